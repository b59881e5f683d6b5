"""The one exception tree of `ask_user`: every failure is an `AskUserError`.

An error document of the binary (`{"status":"error","error":{...}}`, exit 1)
is raised as `AskUserError` itself, with the document's `code`, `message`
and `path`. Three failures that come with no error document have classes of
their own (and codes of their own, which the binary never prints):

- `BinaryNotFound` (`BINARY_NOT_FOUND`): no `ask_user` to run;
- `BinaryFailed` (`BINARY_FAILED`): the binary exited in a way the contract
  does not name (a signal, an exit code outside 0, 1, 124 and 130, a usage
  error, or no document at all);
- `UnparsableOutput` (`UNPARSABLE_OUTPUT`): stdout was not the one JSON
  document it should be.

A person cancelling, declining or letting a question time out is a result
(`ask_user.outcome(answer)`), never an exception.
"""

from __future__ import annotations

from typing import Optional

from ._types import ErrorDocument

__all__ = ["AskUserError", "BinaryNotFound", "BinaryFailed", "UnparsableOutput"]


class AskUserError(Exception):
    """An ask_user failure: the error document's `code`, `message` and `path`
    (the field that broke a rule, when there is one)."""

    code: str
    message: str
    path: Optional[str]
    parse_error: Optional[str]
    document: Optional[ErrorDocument]

    def __init__(
        self,
        code: str,
        message: str,
        path: Optional[str] = None,
        *,
        parse_error: Optional[str] = None,
        document: Optional[ErrorDocument] = None,
    ) -> None:
        super().__init__(code, message, path)
        self.code = code
        self.message = message
        self.path = path
        self.parse_error = parse_error
        self.document = document

    def __str__(self) -> str:
        text = f"{self.code}: {self.message}"
        if self.path is not None:
            text += f" (at {self.path})"
        return text

    @classmethod
    def from_document(cls, document: ErrorDocument) -> AskUserError:
        """The exception an error document stands for."""
        error = document["error"]
        return cls(
            error["code"],
            error["message"],
            error.get("path"),
            parse_error=error.get("parseError"),
            document=document,
        )


class BinaryNotFound(AskUserError):
    """No `ask_user` binary: `ASK_USER_BIN` names no executable file, or
    neither the interpreter's scripts folder nor PATH has one."""

    def __init__(self, message: str) -> None:
        super().__init__("BINARY_NOT_FOUND", message)


class BinaryFailed(AskUserError):
    """The binary exited in a way its contract does not name: killed by a
    signal, an undocumented exit code, a usage error (exit 2), or no
    document on stdout. `returncode` is the exit code (negative: the
    signal, as `subprocess` gives it); `stderr` the end of what it said."""

    returncode: int
    stderr: str

    def __init__(self, message: str, returncode: int, stderr: str = "") -> None:
        super().__init__("BINARY_FAILED", message)
        self.returncode = returncode
        self.stderr = stderr


class UnparsableOutput(AskUserError):
    """stdout was not one ask_user JSON document of the expected kind.
    `output` is what the binary printed, `returncode` how it exited."""

    output: str
    returncode: int

    def __init__(self, message: str, output: str, returncode: int) -> None:
        super().__init__("UNPARSABLE_OUTPUT", message)
        self.output = output
        self.returncode = returncode
