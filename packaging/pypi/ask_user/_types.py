"""The documents of ask_user as types: TypedDicts that mirror schemas/*.json.

They are the very dicts the binary prints (keys as it spells them, absent
values omitted, never None), so `answer["answers"][0]["values"]` reads the
document as docs/documents.md shows it.

`Answer` is the union of the four outcomes of schemas/answer.json's `oneOf`,
told apart by the literal flags `answered`, `cancelled`, `timedOut` and
`pending` (a type checker narrows on `answer["answered"] is True`), or by
`outcome(answer)`: "answered" | "cancelled" | "timed_out" | "pending".
"""

from __future__ import annotations

from typing import Any, Dict, List, Union

# Literal and TypedDict are in typing from Python 3.8, the package's floor.
from typing import Literal, TypedDict

__all__ = [
    "UI",
    "Outcome",
    "Kind",
    "Answerer",
    "Vote",
    "QuestionAnswer",
    "Answered",
    "Cancelled",
    "TimedOut",
    "Pending",
    "Answer",
    "Option",
    "PromptItem",
    "PromptDocument",
    "ErrorDetail",
    "ErrorDocument",
    "CheckCounts",
    "CheckedFile",
    "CheckReport",
]

UI = Literal["auto", "tty", "terminal", "plain", "web", "inbox"]
"""Where `ask` asks (`ask --ui`; "terminal" is "tty")."""

Outcome = Literal["answered", "cancelled", "timed_out", "pending"]
"""What became of a question: `outcome(answer)`."""

Kind = Literal["single_select", "multi_select", "text", "confirm"]


# --- answer document (schemas/answer.json) ---------------------------------


class Answerer(TypedDict):
    """Who answered: `answeredBy` on every answered document."""

    kind: Literal["person", "rule", "link"]
    name: str
    channel: Literal["terminal", "page", "cli", "form", "app", "inbox", "link", "matrix", "ntfy"]


class _QuestionAnswerRequired(TypedDict):
    questionId: str
    values: List[str]


class QuestionAnswer(_QuestionAnswerRequired, total=False):
    """One question's answer: `values` are the chosen labels (then the Other
    text), the text, or "yes"/"no"; `optionIds` the chosen "1", "2", … (select
    kinds only)."""

    optionIds: List[str]
    customText: str
    note: str


class _VoteRequired(TypedDict):
    kind: Literal["person", "rule", "link"]
    name: str
    channel: Literal["terminal", "page", "cli", "form", "app", "inbox", "link", "matrix", "ntfy"]
    votedAt: str
    answers: List[QuestionAnswer]


class Vote(_VoteRequired, total=False):
    """One vote cast on a question that needed approvals."""

    veto: Literal[True]


class _AnsweredRequired(TypedDict):
    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["ok"]
    answered: Literal[True]
    cancelled: Literal[False]
    timedOut: Literal[False]
    answers: List[QuestionAnswer]
    answeredBy: Union[Answerer, List[Vote]]


class Answered(_AnsweredRequired, total=False):
    """The person answered: one entry in `answers` per question, and
    `answeredBy`."""

    inboxId: str
    hint: str


class _CancelledRequired(TypedDict):
    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["ok"]
    answered: Literal[False]
    cancelled: Literal[True]
    timedOut: Literal[False]
    answers: List[QuestionAnswer]


class Cancelled(_CancelledRequired, total=False):
    """Cancelled or declined (`reason`, when known: "declined",
    "dismissed"): no answers."""

    reason: str
    inboxId: str
    hint: str


class _TimedOutRequired(TypedDict):
    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["ok"]
    answered: Literal[False]
    cancelled: Literal[False]
    timedOut: Literal[True]
    answers: List[QuestionAnswer]


class TimedOut(_TimedOutRequired, total=False):
    """Nobody answered in time: no answers. Asked through the inbox, it
    carries `inboxId` and a `hint`: `collect(inboxId)` gets the answer later."""

    inboxId: str
    hint: str


class Pending(TypedDict):
    """The wait ended before an answer, and the question can still be
    answered: `collect(answer["inboxId"])`."""

    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["ok"]
    answered: Literal[False]
    cancelled: Literal[False]
    timedOut: Literal[False]
    pending: Literal[True]
    inboxId: str
    hint: str
    answers: List[QuestionAnswer]


Answer = Union[Answered, Cancelled, TimedOut, Pending]
"""The answer document (`ask`, `collect`): one of its four outcomes."""


# --- prompt document (schemas/prompt.json) ---------------------------------


class _OptionRequired(TypedDict):
    id: str
    label: str


class Option(_OptionRequired, total=False):
    description: str
    recommended: Literal[True]


class _PromptItemRequired(TypedDict):
    question: str
    kind: Kind
    answer_instructions: str
    answer_format: Dict[str, Any]


class PromptItem(_PromptItemRequired, total=False):
    """One question as the prompt document shows it."""

    id: str
    header: str
    context: str
    options: List[Option]
    placeholder: str
    default: Union[str, List[str]]
    required: Literal[False]


class _PromptDocumentRequired(TypedDict):
    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["ok"]
    rendered_markdown: str


class PromptDocument(_PromptDocumentRequired, total=False):
    """What `prompt` returns: one question in `prompt`, or several in
    `prompts`, and the markdown a person reads."""

    title: str
    context: str
    prompt: PromptItem
    prompts: List[PromptItem]


# --- error document (schemas/error.json) -----------------------------------


class _ErrorDetailRequired(TypedDict):
    code: str
    message: str


class ErrorDetail(_ErrorDetailRequired, total=False):
    """`code` is one of schemas/error.json's codes (docs/documents.md)."""

    path: str
    parseError: str


class ErrorDocument(TypedDict):
    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["error"]
    error: ErrorDetail


# --- check report (`ask_user check --format json`, docs/check.md) ----------


class CheckCounts(TypedDict):
    files: int
    valid: int
    invalid: int
    missing: int


class _CheckedFileRequired(TypedDict):
    path: str
    status: Literal["valid", "invalid", "missing"]


class CheckedFile(_CheckedFileRequired, total=False):
    """One file's verdict; `kind` is absent when it could not be read or
    parsed, `error` present when it is invalid."""

    kind: Literal["input", "prompt", "answer", "error"]
    error: ErrorDetail


class CheckReport(TypedDict):
    """What `check` returns: `valid` is the verdict over every file."""

    tool: Literal["ask_user"]
    version: Literal[1]
    status: Literal["ok"]
    valid: bool
    counts: CheckCounts
    files: List[CheckedFile]
