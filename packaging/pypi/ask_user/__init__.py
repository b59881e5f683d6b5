"""Ask a person a structured question from Python; get typed JSON back.

    >>> import ask_user
    >>> answer = ask_user.ask({"question": "Which?", "options": ["a", "b"]}, reply=["2"])
    >>> answer["answers"][0]["values"]
    ['b']

Each call runs the `ask_user` binary this package installs (`ASK_USER_BIN`
overrides it) and returns its document as a TypedDict (`ask_user.Answer`,
`PromptDocument`, `CheckReport`). A cancelled, declined or timed-out question
is a result, never an answer and never an exception: `outcome(answer)` says
which. Every failure is an `AskUserError` carrying the error document's
`code`, `message` and `path`. The guide: docs/python.md.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union, cast

from . import _run
from ._binary import find_binary
from ._types import (
    UI,
    Answer,
    Answered,
    Answerer,
    Cancelled,
    CheckCounts,
    CheckedFile,
    CheckReport,
    ErrorDetail,
    ErrorDocument,
    Kind,
    Option,
    Outcome,
    Pending,
    PromptDocument,
    PromptItem,
    QuestionAnswer,
    TimedOut,
    Vote,
)
from .errors import AskUserError, BinaryFailed, BinaryNotFound, UnparsableOutput

__all__ = [
    "ask",
    "ask_async",
    "collect",
    "collect_async",
    "prompt",
    "check",
    "outcome",
    "find_binary",
    "Questions",
    "Reply",
    "UI",
    "Outcome",
    "Kind",
    "Answer",
    "Answered",
    "Cancelled",
    "TimedOut",
    "Pending",
    "QuestionAnswer",
    "Answerer",
    "Vote",
    "PromptDocument",
    "PromptItem",
    "Option",
    "ErrorDocument",
    "ErrorDetail",
    "CheckReport",
    "CheckCounts",
    "CheckedFile",
    "AskUserError",
    "BinaryNotFound",
    "BinaryFailed",
    "UnparsableOutput",
]

Questions = Union[Mapping[str, Any], Sequence[Mapping[str, Any]], str, bytes]
"""A tool input in any dialect the binary reads (docs/documents.md): a dict,
a list of questions (sent as `{"questions": [...]}`), or JSON text."""

Reply = Union[str, Sequence[str]]
"""Scripted replies, one per question in order (`ask --reply`): "2", "1,3",
a label, "yes", free text, "" to skip a question that is not required."""

_UIS = ("auto", "tty", "terminal", "plain", "web", "inbox")


def _input_bytes(questions: object) -> bytes:
    # The checks run for callers without a type checker too.
    if isinstance(questions, bytes):
        return questions
    if isinstance(questions, str):
        return questions.encode("utf-8")
    if isinstance(questions, Mapping):
        document = dict(cast("Mapping[str, Any]", questions))
        return json.dumps(document, ensure_ascii=False).encode("utf-8")
    if isinstance(questions, (list, tuple)):
        items = list(cast("Sequence[Any]", questions))
        return json.dumps({"questions": items}, ensure_ascii=False).encode("utf-8")
    raise TypeError(f"questions must be a dict, a list of questions or JSON text, not {type(questions).__name__}")


def _seconds(timeout: object) -> str:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
    if not math.isfinite(timeout) or timeout < 0:
        raise ValueError(f"timeout must be 0 (wait forever) or a positive number of seconds, not {timeout!r}")
    text = repr(float(timeout)) if isinstance(timeout, float) else str(timeout)
    if "e" in text:
        text = f"{timeout:.9f}"
    return text


def _replies(reply: object) -> List[str]:
    if isinstance(reply, str):
        return [reply]
    if not isinstance(reply, (list, tuple)):
        raise TypeError(f"reply must be a str or a list of str, not {type(reply).__name__}")
    replies: List[str] = []
    for one in cast("Sequence[object]", reply):
        if not isinstance(one, str):
            raise TypeError(f"each reply must be a str, not {type(one).__name__}")
        replies.append(one)
    return replies


def _ask_argv(ui: object, timeout: object, reply: object) -> List[str]:
    if not isinstance(ui, str) or ui not in _UIS:
        raise ValueError(f"ui must be one of {', '.join(_UIS)}, not {ui!r}")
    argv = [find_binary(), "ask", "--ui", "tty" if ui == "terminal" else ui]
    if timeout is not None:
        argv += ["--timeout", _seconds(timeout)]
    if reply is not None:
        for one in _replies(reply):
            argv += ["--reply", one]
    argv.append("-")
    return argv


def _resume_input(inbox_id: object) -> bytes:
    if not isinstance(inbox_id, str) or not inbox_id:
        raise ValueError("inbox_id must be the inboxId of an earlier answer document")
    return json.dumps({"resume": inbox_id}).encode("utf-8")


def _answer(result: Tuple[int, bytes, str]) -> Answer:
    return cast(Answer, _run.answer_document(*result))


def ask(
    questions: Questions,
    *,
    ui: UI = "auto",
    timeout: Optional[float] = None,
    inbox: Optional[str] = None,
    token: Optional[str] = None,
    reply: Optional[Reply] = None,
) -> Answer:
    """Asks a person and returns the answer document (`ask_user ask`).

    ui: where to ask (`--ui`): "auto" (the inbox when one runs, else the
    terminal), "tty"/"terminal", "plain", "web" (a page on 127.0.0.1), "inbox".
    timeout: seconds before giving up (a `TimedOut` result; 0 waits forever;
    None: the input's own timeout, else none). inbox, token: the inbox's URL
    and token (`ASK_USER_INBOX`, `ASK_USER_TOKEN`). reply: scripted replies,
    one per question (`--reply`), so that code can be tested without a person.

    KeyboardInterrupt ends the child before it goes on."""
    argv = _ask_argv(ui, timeout, reply)
    return _answer(_run.run_sync(argv, _input_bytes(questions), _run.child_env(inbox, token)))


async def ask_async(
    questions: Questions,
    *,
    ui: UI = "auto",
    timeout: Optional[float] = None,
    inbox: Optional[str] = None,
    token: Optional[str] = None,
    reply: Optional[Reply] = None,
) -> Answer:
    """`ask` for asyncio: cancelling the task ends the child."""
    argv = _ask_argv(ui, timeout, reply)
    return _answer(await _run.run_async(argv, _input_bytes(questions), _run.child_env(inbox, token)))


def collect(
    inbox_id: str,
    *,
    ui: UI = "inbox",
    timeout: Optional[float] = None,
    inbox: Optional[str] = None,
    token: Optional[str] = None,
) -> Answer:
    """The answer to a question asked earlier through the inbox (its
    `inboxId`; `{"resume": ID}`): at once if the person gave it, else it
    waits like a new ask. An id the inbox does not have, or no longer
    keeps, is `AskUserError` with code UNKNOWN_QUESTION."""
    argv = _ask_argv(ui, timeout, None)
    return _answer(_run.run_sync(argv, _resume_input(inbox_id), _run.child_env(inbox, token)))


async def collect_async(
    inbox_id: str,
    *,
    ui: UI = "inbox",
    timeout: Optional[float] = None,
    inbox: Optional[str] = None,
    token: Optional[str] = None,
) -> Answer:
    """`collect` for asyncio: cancelling the task ends the child."""
    argv = _ask_argv(ui, timeout, None)
    return _answer(await _run.run_async(argv, _resume_input(inbox_id), _run.child_env(inbox, token)))


def prompt(questions: Questions) -> PromptDocument:
    """The prompt document for `questions` (`ask_user prompt`, what
    `TOOLBOX_ACTION=execute` prints): the normalized questions and the
    markdown a person reads. Asks nobody."""
    result = _run.run_sync([find_binary(), "prompt", "-"], _input_bytes(questions), _run.child_env(None, None))
    parsed = _run.document(*result, codes=(0,), what="a prompt")
    if "rendered_markdown" not in parsed:
        raise UnparsableOutput("ask_user printed a document that is no prompt document", result[1].decode("utf-8", "replace"), result[0])
    return cast(PromptDocument, parsed)


def check(document: Union[Questions, "os.PathLike[str]"]) -> CheckReport:
    """Checks a tool input or an ask_user document (`ask_user check --format
    json`): a dict or JSON text is checked as one document, a path (a
    `pathlib.Path`) as that file, or the folder searched for `*.json`.
    An invalid document is a report with `valid: False`, not an exception."""
    if isinstance(document, os.PathLike):
        argv = [find_binary(), "check", "--format", "json", "--", os.fspath(document)]
        stdin = b""
    else:
        argv = [find_binary(), "check", "--format", "json", "-"]
        stdin = _input_bytes(document)
    result = _run.run_sync(argv, stdin, _run.child_env(None, None))
    parsed = _run.document(*result, codes=(0, 1), what="a check report")
    if not isinstance(parsed.get("valid"), bool) or not isinstance(parsed.get("files"), list):
        raise UnparsableOutput("ask_user printed a document that is no check report", result[1].decode("utf-8", "replace"), result[0])
    return cast(CheckReport, parsed)


def outcome(answer: Answer) -> Outcome:
    """What became of the question: "answered", "cancelled" (declined and
    dismissed too), "timed_out" or "pending" (`collect` it later)."""
    if answer.get("pending") is True:
        return "pending"
    if answer["answered"] is True:
        return "answered"
    if answer["cancelled"] is True:
        return "cancelled"
    if answer["timedOut"] is True:
        return "timed_out"
    raise UnparsableOutput("the answer document has no outcome", json.dumps(answer), 0)
