"""Plays a short session of the terminal face for scripts/screenshots.

asciinema records what this prints. It shows a command being typed, runs
the real binary (argv[1]) on a pseudo-terminal of its own with the form in
argv[2], types keys into it at a person's pace, then shows the answer
document the binary printed on stdout.
"""

import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time

binary, form = sys.argv[1], sys.argv[2]
out = sys.stdout.buffer


def show(data: bytes) -> None:
    out.write(data)
    out.flush()


def type_out(text: str, pause: float = 0.05) -> None:
    for char in text:
        show(char.encode())
        time.sleep(pause)


# What a person types, then what the form does with each key: (keys, pause after).
KEYS = [
    (b"", 1.2),          # read the first question
    (b"\r", 1.0),        # Rust (recommended, preselected)
    (b"\x1b[B", 0.6),    # down to SQLite
    (b"\r", 1.0),
    (b" ", 0.5),         # Docker
    (b"\x1b[B", 0.4),
    (b"\x1b[B", 0.4),
    (b" ", 0.6),         # Docs site
    (b"\r", 1.0),
    (b"y", 1.5),         # create the repository: yes
]

show(b"$ ")
time.sleep(0.6)
type_out("ask_user ask project-setup.json > answer.json\n")
answer_read, answer_write = os.pipe()
# A terminal of its own (its controlling terminal: the binary opens /dev/tty),
# the answer document on a pipe.
pid, master = pty.fork()
if pid == 0:
    os.dup2(answer_write, 1)
    os.environ["TERM"] = "xterm-256color"
    os.execv(binary, [binary, "ask", form])
os.close(answer_write)
fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))


def pump(seconds: float) -> None:
    """Copies the form's screen to the recording for `seconds`."""
    until = time.monotonic() + seconds
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            show(data)


for keys, pause in KEYS:
    if keys:
        os.write(master, keys)
    pump(pause)
os.waitpid(pid, 0)
pump(0.2)
answer = b""
while chunk := os.read(answer_read, 65536):
    answer += chunk
show(b"$ ")
time.sleep(0.6)
type_out("jq -c .answers[] answer.json\n")
import json  # noqa: E402  (only for the last line)

answers = json.loads(answer)["answers"]
for item in answers:
    show((json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n").encode())
show(b"$ ")
time.sleep(2.0)
