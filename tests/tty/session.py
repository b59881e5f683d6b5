"""Runs ask_user on a pseudo-terminal in ways a terminal emulator rarely does,
to reach the paths a normal run never takes (tests/tty_pty.rs):

  hangup      the terminal goes away (the pty's master is closed) while a
              question waits, after one resize. The session leader is this
              script's child, which ignores SIGHUP, so ask_user (not the
              leader) gets no signal and must find the hang-up itself.
  background  ask_user runs in a process group that is not the terminal's
              foreground group, with SIGTTIN and SIGTTOU ignored: it may set
              the terminal up, but a read is refused (EIO) once a key comes.

usage: session.py MODE BIN ARG...   (the question's text must be drawn
before the script acts; it is the last argument's "question")

Prints one JSON line: {"code": exit code or null, "signal": signal or null,
"stdout": the document, "killed": true when ask_user was still running after
the limit}.
"""

import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import fcntl
import time

LIMIT = 10.0


def read_until(master, needle, limit):
    seen = b""
    deadline = time.monotonic() + limit
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SystemExit(f"never drawn: {needle!r} in {seen[-400:]!r}")
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def drain(master, quiet):
    """Reads what comes until nothing has come for `quiet` seconds."""
    while True:
        ready, _, _ = select.select([master], [], [], quiet)
        if not ready:
            return
        try:
            if not os.read(master, 4096):
                return
        except OSError:
            return


def leader(mode, argv, document_fd, status_fd):
    """The session leader: starts ask_user, reports how it ended."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    child = os.fork()
    if child == 0:
        if mode == "background":
            os.setpgid(0, 0)
            signal.signal(signal.SIGTTIN, signal.SIG_IGN)
            signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        os.dup2(document_fd, 1)
        os.execv(argv[0], argv)
    os.close(document_fd)
    os.write(status_fd, f"{child}\n".encode())
    _, status = os.waitpid(child, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    os.write(status_fd, json.dumps({"code": code, "signal": sig}).encode() + b"\n")
    os._exit(0)


def main():
    mode, argv = sys.argv[1], sys.argv[2:]
    question = json.loads(open(argv[-1]).read())["question"].encode()
    document_read, document_write = os.pipe()
    status_read, status_write = os.pipe()
    pid, master = pty.fork()
    if pid == 0:
        os.close(document_read)
        os.close(status_read)
        leader(mode, argv, document_write, status_write)
    os.close(document_write)
    os.close(status_write)
    status = os.fdopen(status_read)
    asker = int(status.readline())
    read_until(master, question, LIMIT)
    drain(master, 0.3)
    if mode == "hangup":
        # A resize first: its SIGWINCH interrupts the wait (EINTR), the
        # error a read after the hang-up must not take for its own.
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        drain(master, 0.5)
        os.close(master)
    elif mode == "background":
        os.write(master, b"1\r")
    else:
        raise SystemExit(f"unknown mode {mode}")
    killed = False
    ready, _, _ = select.select([status], [], [], LIMIT)
    if not ready:
        killed = True
        os.kill(asker, signal.SIGKILL)
    ended = json.loads(status.readline())
    with os.fdopen(document_read, "rb") as document:
        stdout = document.read().decode()
    os.waitpid(pid, 0)
    print(json.dumps({**ended, "stdout": stdout, "killed": killed}))


main()
