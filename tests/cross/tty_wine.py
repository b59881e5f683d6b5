#!/usr/bin/env python3
"""Drives the Windows terminal face (ask_user.exe ask) under wine, in a real
pseudo-terminal, and checks the answer document and the exit code.

    scripts/cross-run -- python3 tests/cross/tty_wine.py PATH/TO/ask_user.exe

Runs in the cross chroot (scripts/cross-setup: wine64 and env.sh). Exits
non-zero when a check fails, and prints each check as it goes.

How wine hosts it: wine gives a Windows program a console bridged to the
Unix terminal (its conhost in "unix" mode) when stdin, stdout or stderr is a
tty; it reads keys from stdin's tty and draws on stdout's, else stderr's.
So the child gets the pty as stdin and stderr and a pipe as stdout: the
console (CONIN$/CONOUT$) is the pty, and stdout stays the JSON document, as
with /dev/tty on Unix. The prompt comes from a file argument (wine maps / to
Z:, so a Unix path works). With no tty at all, wine gives no console, which
is the "no terminal" case.

Measured limits of wine 10.0's unix console (reported as "note", never
failures): in raw mode the Ctrl-C byte usually ends its reading of the tty
(no key record, no control event, and no key after it arrives; in 1 of 3
runs it did reach the form, which then cancelled), and it does not pass
a tty resize on (no resize record, the size stays the one at start). In line
mode (--ui plain) Ctrl-C does become the console's Ctrl-C event, and that is
checked.
"""

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

DOWN, UP, ESC, CTRL_C, BACKSPACE = b"\x1b[B", b"\x1b[A", b"\x1b", b"\x03", b"\x7f"
DATABASE = {
    "question": "Which database?",
    "options": [
        {"label": "PostgreSQL", "description": "relational, mature", "recommended": True},
        {"label": "SQLite", "description": "embedded, single file"},
        {"label": "Redis"},
    ],
}
NAME = {"question": "Your name?", "type": "text"}
# wine's first start in a prefix can take 10 s or more.
FIRST_SCREEN = 60.0

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def note(what):
    print("note " + what, flush=True)


def visible(raw):
    """The pty's bytes as text, without escape sequences (wine's console
    redraws with its own cursor moves, so words are matched, not lines)."""
    text = raw.decode("utf-8", "replace")
    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", " ", text)
    text = re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", " ", text)
    return text.replace("\x1b", " ")


class Run:
    """ask_user.exe ask ARGS PROMPT_FILE with the pty as its console."""

    def __init__(self, exe, prompt, args, console=True, rows=30, columns=100):
        self.folder = tempfile.mkdtemp(prefix="tty_wine_")
        path = os.path.join(self.folder, "prompt.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(prompt, f, ensure_ascii=False)
        env = dict(os.environ, TERM="xterm-256color")
        env.pop("ASK_USER_UI", None)
        command = ["wine64", exe, "ask", *args, path]
        self.raw = b""
        self.master = None
        if not console:
            self.child = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=env, start_new_session=True)
            self.child.stdin.close()
            return
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.before = termios.tcgetattr(slave)

        def controlling_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.child = subprocess.Popen(
            command, stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env,
            preexec_fn=controlling_terminal)
        os.close(slave)

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.raw += os.read(self.master, 65536)
                except OSError:
                    return

    def expect(self, word, within=FIRST_SCREEN):
        end = time.time() + within
        while time.time() < end and self.child.poll() is None:
            if word in visible(self.raw):
                return True
            self.pump(0.1)
        return word in visible(self.raw)

    def keys(self, data, settle=0.5):
        os.write(self.master, data)
        self.pump(settle)
        return self

    def finish(self, within=30.0):
        """(exit code, the stdout document or None, stdout text)."""
        end = time.time() + within
        while self.child.poll() is None and time.time() < end:
            if self.master is not None:
                self.pump(0.1)
            else:
                time.sleep(0.1)
        if self.child.poll() is None:
            os.killpg(self.child.pid, signal.SIGKILL)
            self.child.wait()
            return None, None, "(killed: still running after %.0f s)" % within
        if self.master is not None:
            self.pump(0.3)
        out = self.child.stdout.read().decode("utf-8", "replace")
        try:
            document = json.loads(out)
        except ValueError:
            document = None
        return self.child.returncode, document, out

    def terminal_restored(self):
        """The pty's settings once the program is gone, as they were."""
        try:
            after = termios.tcgetattr(self.master)
        except termios.error:
            return False
        return after[3] & (termios.ICANON | termios.ECHO) == self.before[3] & (
            termios.ICANON | termios.ECHO)


def answered(document, values):
    return (document is not None and document.get("answered") is True
            and document["answers"][0]["values"] == values)


def unanswered(document, flag):
    return (document is not None and document.get("answered") is False
            and document.get(flag) is True)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tty_wine.py PATH/TO/ask_user.exe")
    exe = sys.argv[1]
    started = time.time()

    print("== arrow down and Enter choose an option", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty"])
    check(run.expect("Redis"), "the question and its options are drawn on the console")
    check("database?" in visible(run.raw) and "embedded," in visible(run.raw),
          "the question text and the descriptions are on the pty")
    run.keys(DOWN).keys(b"\r")
    code, document, out = run.finish()
    check(code == 0, f"exit code 0 (got {code})")
    check(answered(document, ["SQLite"]) and document["answers"][0]["optionIds"] == ["2"],
          f"stdout is the answer SQLite, option 2: {out.strip()}")
    check(run.terminal_restored(), "the pty's line settings are back after the exit")

    print("== Tab moves down, arrow up moves up", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty"])
    run.expect("Redis")
    run.keys(b"\t").keys(b"\t").keys(UP).keys(b"\r")
    code, document, out = run.finish()
    check(code == 0 and answered(document, ["SQLite"]), f"Tab, Tab, Up, Enter: SQLite ({out.strip()})")

    print("== typing text, non-ASCII and Backspace", flush=True)
    run = Run(exe, NAME, ["--ui", "tty"])
    check(run.expect("name?"), "the text question is drawn")
    run.keys("Zoë 文x".encode("utf-8")).keys(BACKSPACE).keys(b"\r")
    code, document, out = run.finish()
    check(code == 0 and answered(document, ["Zoë 文"]),
          f"typed 'Zoë 文x', Backspace, Enter: 'Zoë 文' ({out.strip()})")

    print("== Esc cancels", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty"])
    run.expect("Redis")
    run.keys(ESC, settle=1.0)
    code, document, out = run.finish()
    check(code == 130 and unanswered(document, "cancelled"), f"exit 130, cancelled ({out.strip()})")
    check("Cancelled" in visible(run.raw), "stderr (the pty) says Cancelled")
    check(run.terminal_restored(), "the pty's line settings are back after the cancel")

    print("== the timeout ends the form", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty", "--timeout", "2"])
    run.expect("Redis")
    code, document, out = run.finish()
    check(code == 124 and unanswered(document, "timedOut"), f"exit 124, timedOut ({out.strip()})")

    print("== Ctrl-C in the full form", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty"])
    run.expect("Redis")
    run.keys(CTRL_C, settle=2.0)
    if run.child.poll() is None:
        run.keys(ESC, settle=2.0)
        if run.child.poll() is None:
            note("wine's console stops reading the tty at the Ctrl-C byte in raw mode "
                 "(no key record, no control event; the tty goes back to canonical mode "
                 "and later keys, Esc too, never reach the program). On Windows Ctrl-C "
                 "is a key record, translated to Key::CtrlC (unit test "
                 "ctrl_keys_are_the_control_bytes_of_a_terminal). Ended by SIGKILL.")
            os.killpg(run.child.pid, signal.SIGKILL)
            run.child.wait()
        else:
            code, document, out = run.finish()
            note(f"wine dropped the Ctrl-C byte; Esc then ended the form: exit {code}")
            check(code == 130 and unanswered(document, "cancelled"), f"exit 130 ({out.strip()})")
    else:
        code, document, out = run.finish()
        check(code == 130 and unanswered(document, "cancelled"), f"Ctrl-C: exit 130, cancelled ({out.strip()})")

    print("== plain mode: a typed line answers", flush=True)
    run = Run(exe, DATABASE, ["--ui", "plain"])
    check(run.expect("Enter."), "the question is printed as lines")
    check("\x1b[1m" not in run.raw.decode("utf-8", "replace"), "plain mode writes no style sequence")
    run.keys(b"2\r", settle=1.0)
    code, document, out = run.finish()
    check(code == 0 and answered(document, ["SQLite"]), f"'2' and Enter: SQLite ({out.strip()})")

    print("== plain mode: Ctrl-C cancels", flush=True)
    # Wine's console now and then drops a Ctrl-C byte from the pty (measured:
    # 1 run in 4 on a loaded machine; the same loss as in the full form above).
    # One more try in a new process tells that from Ctrl-C not being handled,
    # which fails both.
    for attempt, settle in enumerate((2.0, 4.0), start=1):
        run = Run(exe, DATABASE, ["--ui", "plain"])
        run.expect("Enter.")
        run.keys(CTRL_C, settle=settle)
        if run.child.poll() is not None:
            break
        if attempt == 1:
            note("wine's console dropped the Ctrl-C byte; trying once more in a new process")
            run.finish(within=1.0)
    if run.child.poll() is None:
        failures.append("plain mode: Ctrl-C did not end the question")
        print("FAIL Ctrl-C did not end the plain question", flush=True)
    code, document, out = run.finish()
    check(code == 130 and unanswered(document, "cancelled"), f"exit 130, cancelled ({out.strip()})")

    print("== plain mode: Ctrl-Z, Enter is the end of input", flush=True)
    run = Run(exe, DATABASE, ["--ui", "plain"])
    run.expect("Enter.")
    run.keys(b"\x1a\r", settle=1.0)
    code, document, out = run.finish()
    check(code == 130 and unanswered(document, "cancelled"), f"exit 130, cancelled ({out.strip()})")

    print("== no console: NO_TTY", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty"], console=False)
    code, document, out = run.finish()
    check(code == 1 and document is not None and document.get("error", {}).get("code") == "NO_TTY",
          f"exit 1 and the NO_TTY error document ({out.strip()})")

    print("== resize", flush=True)
    run = Run(exe, DATABASE, ["--ui", "tty"], columns=100)
    run.expect("Redis")
    fcntl.ioctl(run.master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 60, 0, 0))
    run.pump(1.0)
    run.keys(b"\r")
    code, document, out = run.finish()
    check(code == 0 and answered(document, ["PostgreSQL"]),
          f"the form still answers after a resize ({out.strip()})")
    note("wine 10's unix console keeps the size it started with (no resize record); "
         "on Windows a resize is a WINDOW_BUFFER_SIZE record or a changed window size")

    print(f"== {len(failures)} failed, in {time.time() - started:.0f} s", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
