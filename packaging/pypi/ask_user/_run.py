"""Running the binary: one child per call, its stdin written, its stdout read
as one JSON document, its stderr passed on to `sys.stderr` (the page's
address, the inbox's notes: what a person may need) and the end of it kept
for `BinaryFailed`.

A call that is interrupted (KeyboardInterrupt in `ask`, the cancellation of
the task awaiting `ask_async`, any other exception) ends its child before
the exception goes on: SIGTERM (the binary then cancels, and an inbox
question it asked is marked "asker gone"), SIGKILL after `GRACE_SECONDS`,
and the child is reaped: no process is left.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from typing import IO, Any, Dict, List, Mapping, Optional, Tuple, cast

from ._types import ErrorDocument
from .errors import AskUserError, BinaryFailed, BinaryNotFound, UnparsableOutput

GRACE_SECONDS = 3.0
"""How long an ended child has between SIGTERM and SIGKILL."""

_STDERR_KEEP = 8192


def child_env(inbox: Optional[str], token: Optional[str]) -> Dict[str, str]:
    env = dict(os.environ)
    # TOOLBOX_ACTION wins over argv: inherited from a toolbox host it would
    # turn `ask_user ask` into a toolbox execute.
    env.pop("TOOLBOX_ACTION", None)
    if inbox is not None:
        env["ASK_USER_INBOX"] = inbox
    if token is not None:
        env["ASK_USER_TOKEN"] = token
    return env


class _Tail:
    """What the child writes on stderr: passed on, and its end kept."""

    def __init__(self) -> None:
        self._kept = bytearray()

    def feed(self, chunk: bytes) -> None:
        self._kept += chunk
        del self._kept[:-_STDERR_KEEP]
        try:
            sys.stderr.write(chunk.decode("utf-8", "replace"))
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass  # no stderr to pass it on to (a closed one, pythonw)

    def text(self) -> str:
        return self._kept.decode("utf-8", "replace")


def _spawn_failed(argv: List[str], error: OSError) -> BinaryNotFound:
    return BinaryNotFound(f"cannot run {argv[0]}: {error.strerror or error}")


# --- sync -------------------------------------------------------------------


def _end_sync(process: "subprocess.Popen[bytes]") -> None:
    if process.poll() is None:
        try:
            process.terminate()
            process.wait(GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
        except BaseException:
            process.kill()
            process.wait()
            raise
    process.wait()


def run_sync(argv: List[str], stdin: bytes, env: Mapping[str, str]) -> Tuple[int, bytes, str]:
    """Runs `argv` with `stdin`; its exit code (negative: a signal), stdout
    and the end of its stderr."""
    read_fd, write_fd = os.pipe()
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=write_fd,
            env=dict(env),
        )
    except OSError as error:
        os.close(read_fd)
        raise _spawn_failed(argv, error) from error
    finally:
        os.close(write_fd)
    tail = _Tail()
    reader = os.fdopen(read_fd, "rb", buffering=0)

    def pass_on(stream: IO[bytes]) -> None:
        with stream:
            for chunk in iter(lambda: stream.read(4096), b""):
                tail.feed(chunk)

    forwarder = threading.Thread(target=pass_on, args=(reader,), daemon=True)
    try:
        forwarder.start()
        try:
            stdout, _ = process.communicate(stdin)
        except BrokenPipeError:
            # It stopped reading (an input over its limit): its document says why.
            assert process.stdout is not None
            stdout = process.stdout.read()
            process.wait()
    except BaseException:
        _end_sync(process)
        if not forwarder.is_alive():
            reader.close()  # never started (closing twice is harmless)
        raise
    # A grandchild (a browser opener) may hold stderr open: don't wait on it.
    forwarder.join(1.0)
    return process.returncode, stdout, tail.text()


# --- async ------------------------------------------------------------------


async def _end_async(process: "asyncio.subprocess.Process") -> None:
    if process.returncode is not None:
        return
    try:
        process.terminate()
    except ProcessLookupError:
        pass
    try:
        await asyncio.wait_for(process.wait(), GRACE_SECONDS)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
    except BaseException:
        # Cancelled again while waiting: end it at once.
        try:
            process.kill()
        except ProcessLookupError:
            pass
        raise


async def run_async(argv: List[str], stdin: bytes, env: Mapping[str, str]) -> Tuple[int, bytes, str]:
    """`run_sync` for asyncio."""
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
        )
    except OSError as error:
        raise _spawn_failed(argv, error) from error
    tail = _Tail()

    async def pass_on() -> None:
        assert process.stderr is not None
        while True:
            chunk = await process.stderr.read(4096)
            if not chunk:
                return
            tail.feed(chunk)

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            process.stdin.write(stdin)
            await process.stdin.drain()
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass

    forwarder = asyncio.ensure_future(pass_on())
    try:
        assert process.stdout is not None
        _, stdout = await asyncio.gather(write_stdin(), process.stdout.read())
        await process.wait()
    except BaseException:
        forwarder.cancel()
        await _end_async(process)
        raise
    try:
        await asyncio.wait_for(forwarder, 1.0)
    except asyncio.TimeoutError:
        pass
    returncode = process.returncode
    assert returncode is not None
    return returncode, stdout, tail.text()


# --- documents --------------------------------------------------------------


def _how(returncode: int) -> str:
    if returncode < 0:
        return f"was killed by signal {-returncode}"
    return f"exited with {returncode}"


def document(
    returncode: int, stdout: bytes, stderr: str, *, codes: Tuple[int, ...], what: str
) -> Dict[str, Any]:
    """The one document a run printed, checked against its exit code: an
    error document is raised as `AskUserError`; `codes` are the exit codes
    that may come with any other document."""
    if returncode < 0 or (returncode not in codes and returncode != 1):
        raise BinaryFailed(f"ask_user {_how(returncode)}: {stderr.strip() or 'nothing on stderr'}", returncode, stderr)
    text = stdout.decode("utf-8", "replace")
    if not text.strip():
        raise BinaryFailed(
            f"ask_user {_how(returncode)} and printed no document: {stderr.strip() or 'nothing on stderr'}",
            returncode,
            stderr,
        )
    try:
        loaded: object = json.loads(text)
    except ValueError as error:
        raise UnparsableOutput(f"ask_user printed something that is not JSON ({error})", text, returncode) from None
    if not isinstance(loaded, dict):
        raise UnparsableOutput("ask_user printed JSON that is no ask_user document", text, returncode)
    parsed = cast(Dict[str, Any], loaded)
    if parsed.get("tool") != "ask_user":
        raise UnparsableOutput("ask_user printed JSON that is no ask_user document", text, returncode)
    if parsed.get("status") == "error":
        detail: object = parsed.get("error")
        if not isinstance(detail, dict):
            raise UnparsableOutput("ask_user printed an error document without an error", text, returncode)
        fields = cast(Dict[str, Any], detail)
        if not isinstance(fields.get("code"), str) or not isinstance(fields.get("message"), str):
            raise UnparsableOutput("ask_user printed an error document without a code and message", text, returncode)
        raise AskUserError.from_document(cast(ErrorDocument, parsed))
    if returncode not in codes:
        raise BinaryFailed(f"ask_user {_how(returncode)} without an error document", returncode, stderr)
    if parsed.get("status") != "ok":
        raise UnparsableOutput(f"ask_user printed a document whose status is not ok, for {what}", text, returncode)
    return parsed


def answer_document(returncode: int, stdout: bytes, stderr: str) -> Dict[str, Any]:
    parsed = document(returncode, stdout, stderr, codes=(0, 124, 130), what="an answer")
    flags = [parsed.get(key) for key in ("answered", "cancelled", "timedOut")]
    if not all(isinstance(flag, bool) for flag in flags) or not isinstance(parsed.get("answers"), list):
        raise UnparsableOutput("ask_user printed a document that is no answer document", stdout.decode("utf-8", "replace"), returncode)
    return parsed
