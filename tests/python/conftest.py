"""pytest for the Python library `import ask_user` (packaging/pypi/ask_user),
run by tests/python_lib.rs with ASK_USER_BIN set to the binary under test.

Alone: ASK_USER_BIN=target/debug/ask_user tests/python/.venv/bin/python -m pytest tests/python
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
# The library from the source tree, as the wheel installs it.
sys.path.insert(0, str(ROOT / "packaging" / "pypi"))


@pytest.fixture(scope="session")
def binary() -> str:
    path = os.environ.get("ASK_USER_BIN")
    assert path, "ASK_USER_BIN must name the ask_user binary under test"
    return os.path.abspath(path)


@pytest.fixture(autouse=True)
def own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test asks with a state folder of its own: no inbox of the
    machine's is found, none of the test's is left behind."""
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("ASK_USER_STATE_DIR", str(state))
    for name in ("ASK_USER_UI", "ASK_USER_INBOX", "ASK_USER_TOKEN", "TOOLBOX_ACTION"):
        monkeypatch.delenv(name, raising=False)


class Inbox:
    def __init__(self, binary: str, state: Path) -> None:
        self.binary = binary
        self.state = state
        self.process = subprocess.Popen(
            [binary, "inbox", "--port", "0"],
            env={**os.environ, "ASK_USER_STATE_DIR": str(state)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while True:
            assert self.process.poll() is None, "the inbox ended at start"
            try:
                found = json.loads((state / "inbox.json").read_text())
                if self.verb("list").returncode == 0:
                    break
            except (OSError, ValueError):
                pass
            assert time.monotonic() < deadline, "the inbox did not start within 20 s"
            time.sleep(0.05)
        self.url: str = found["url"]
        self.token: str = found["token"]

    def verb(self, *args: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(
            [self.binary, "inbox", *args],
            env={**os.environ, "ASK_USER_STATE_DIR": str(self.state)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )

    def pending(self) -> list:  # type: ignore[type-arg]
        out = self.verb("list")
        assert out.returncode == 0, out.stderr
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]

    def wait_for_question(self) -> str:
        deadline = time.monotonic() + 20
        while True:
            pending = self.pending()
            if pending:
                return str(pending[0]["inboxId"])
            assert time.monotonic() < deadline, "no question reached the inbox within 20 s"
            time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def inbox(binary: str, tmp_path: Path) -> Iterator[Inbox]:
    """A running inbox with a state folder of its own, which the asking
    tests reach only through `inbox=` and `token=` (their own state folder
    has no inbox.json)."""
    running = Inbox(binary, tmp_path / "inbox-state")
    try:
        yield running
    finally:
        running.stop()


def children() -> Dict[int, str]:
    """This process's living children: pid → command name."""
    found: Dict[int, str] = {}
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid …: comm may hold spaces and parentheses.
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == me and fields[0] != "Z":
            found[int(entry.name)] = comm
    return found


def wait_for_child(within: float = 20) -> int:
    """The pid of this process's one child (the binary a call started)."""
    deadline = time.monotonic() + within
    while True:
        found = children()
        if found:
            assert len(found) == 1, found
            return next(iter(found))
        assert time.monotonic() < deadline, f"no child within {within} s"
        time.sleep(0.02)


def gone(pid: int) -> bool:
    """True when `pid` no longer exists (ended and reaped: not a zombie)."""
    return not Path(f"/proc/{pid}").exists()
