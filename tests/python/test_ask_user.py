"""The Python library against the real binary (ASK_USER_BIN): every
outcome, every error class, and cancellation that leaves no process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict

import pytest

import ask_user
from ask_user import _binary, _run
from conftest import Inbox, children, gone, wait_for_child

WHICH: Dict[str, Any] = {"question": "Which?", "options": ["a", "b"]}


def fake_binary(folder: Path, body: str, interpreter: str = "/bin/sh") -> str:
    """An executable `ask_user` that runs `body` instead of the binary."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ask_user"
    path.write_text(f"#!{interpreter}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


# --- answered ---------------------------------------------------------------


def test_scripted_reply_answers_with_the_chosen_label() -> None:
    answer = ask_user.ask({"question": "Which?", "options": ["a", "b"]}, reply=["2"])
    assert answer["answers"][0]["values"] == ["b"]
    assert answer["answers"][0].get("optionIds") == ["2"]
    assert answer["answered"] is True and answer["cancelled"] is False and answer["timedOut"] is False
    assert ask_user.outcome(answer) == "answered"
    assert answer["answered"] is True and answer["answeredBy"]["channel"] == "cli"  # type: ignore[index]


def test_questions_in_every_form_the_binary_reads() -> None:
    forms: list = [  # type: ignore[type-arg]
        WHICH,
        [WHICH],
        json.dumps(WHICH),
        json.dumps(WHICH).encode(),
        {"questions": [{"question": "Which?", "header": "Pick", "options": [{"label": "a"}, {"label": "b"}], "multiSelect": False}]},
        {"prompt": "Which?", "type": "choice", "options": ["a", "b"]},
    ]
    for form in forms:
        answer = ask_user.ask(form, reply="b")
        assert answer["answers"][0]["values"] == ["b"], form


def test_several_questions_take_one_reply_each_and_a_reply_may_start_with_a_dash() -> None:
    answer = ask_user.ask(
        {"questions": [{"question": "Why?", "type": "text"}, {"question": "Sure?", "type": "confirm"}]},
        reply=["- because", "yes"],
    )
    assert [a["values"] for a in answer["answers"]] == [["- because"], ["yes"]]


def test_toolbox_action_in_the_environment_does_not_change_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inherited from a toolbox host, it would make the binary print its description.
    monkeypatch.setenv("TOOLBOX_ACTION", "describe")
    assert ask_user.ask(WHICH, reply="1")["answers"][0]["values"] == ["a"]
    assert "prompt" in ask_user.prompt(WHICH)


def test_ask_async_answers() -> None:
    answer = asyncio.run(ask_user.ask_async(WHICH, reply=["2"]))
    assert answer["answers"][0]["values"] == ["b"]
    assert ask_user.outcome(answer) == "answered"


# --- timed out, cancelled, collected: results, never answers ---------------


def test_a_timeout_is_a_result_with_no_answer() -> None:
    started = time.monotonic()
    answer = ask_user.ask(WHICH, ui="web", timeout=0.5)
    assert time.monotonic() - started < 15
    assert ask_user.outcome(answer) == "timed_out"
    assert answer["timedOut"] is True and answer["answered"] is False
    assert answer["answers"] == []
    assert "answeredBy" not in answer


def test_a_question_cancelled_in_the_inbox_is_a_cancelled_result(inbox: Inbox) -> None:
    async def scenario() -> ask_user.Answer:
        task = asyncio.ensure_future(
            ask_user.ask_async(WHICH, ui="inbox", inbox=inbox.url, token=inbox.token, timeout=60)
        )
        question = await asyncio.get_running_loop().run_in_executor(None, inbox.wait_for_question)
        cancelled = await asyncio.get_running_loop().run_in_executor(None, inbox.verb, "cancel", question)
        assert cancelled.returncode == 0, cancelled.stdout + cancelled.stderr
        return await asyncio.wait_for(task, 30)

    answer = asyncio.run(scenario())
    assert ask_user.outcome(answer) == "cancelled"
    assert answer["cancelled"] is True and answer["answered"] is False
    assert answer["answers"] == []
    assert "answeredBy" not in answer


def test_an_answer_given_after_the_timeout_is_collected_later(inbox: Inbox) -> None:
    first = ask_user.ask(WHICH, ui="inbox", inbox=inbox.url, token=inbox.token, timeout=0.5)
    assert ask_user.outcome(first) == "timed_out"
    assert first["answers"] == []
    question = first.get("inboxId")
    assert isinstance(question, str) and "resume" in first.get("hint", "")
    given = inbox.verb("answer", question, "--reply", "2")
    assert given.returncode == 0, given.stdout + given.stderr
    later = ask_user.collect(question, inbox=inbox.url, token=inbox.token, timeout=30)
    assert ask_user.outcome(later) == "answered"
    assert later["answers"][0]["values"] == ["b"]
    assert asyncio.run(ask_user.collect_async(question, inbox=inbox.url, token=inbox.token))["answers"] == later["answers"]


def test_collecting_an_unknown_question_raises_its_code(inbox: Inbox) -> None:
    with pytest.raises(ask_user.AskUserError) as raised:
        ask_user.collect("zzzzzzzz", inbox=inbox.url, token=inbox.token, timeout=10)
    assert raised.value.code == "UNKNOWN_QUESTION"


# --- errors -----------------------------------------------------------------


def test_an_error_document_raises_askusererror_with_its_code_message_and_path() -> None:
    bad = {"question": "Pick one", "options": ["only"]}
    for call in (lambda: ask_user.ask(bad, reply="1"), lambda: ask_user.prompt(bad)):
        with pytest.raises(ask_user.AskUserError) as raised:
            call()
        error = raised.value
        assert type(error) is ask_user.AskUserError
        assert error.code == "INVALID_OPTIONS"
        assert error.message == "options must have at least 2 items"
        assert error.path == "options"
        assert error.document is not None and error.document["status"] == "error"
        assert str(error) == "INVALID_OPTIONS: options must have at least 2 items (at options)"


def test_a_reply_that_answers_nothing_is_invalid_reply() -> None:
    with pytest.raises(ask_user.AskUserError) as raised:
        ask_user.ask(WHICH, reply=["9"])
    assert raised.value.code == "INVALID_REPLY"
    assert raised.value.path == "questions[0]"


def test_json_text_that_is_not_json_is_invalid_json_with_the_parsers_message() -> None:
    with pytest.raises(ask_user.AskUserError) as raised:
        ask_user.prompt("{not json")
    assert raised.value.code == "INVALID_JSON"
    assert raised.value.parse_error


def test_no_terminal_and_no_reply_is_no_tty() -> None:
    # pytest's stdin is no terminal, and with no /dev/tty of its own…
    if os.path.exists("/dev/tty"):
        try:
            open("/dev/tty").close()
            pytest.skip("this run has a terminal")  # never under cargo test: its children have none
        except OSError:
            pass
    with pytest.raises(ask_user.AskUserError) as raised:
        ask_user.ask(WHICH, ui="tty")
    assert raised.value.code == "NO_TTY"


def test_a_missing_binary_is_binarynotfound(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ASK_USER_BIN", str(tmp_path / "nowhere" / "ask_user"))
    with pytest.raises(ask_user.BinaryNotFound) as raised:
        ask_user.ask(WHICH, reply="1")
    assert isinstance(raised.value, ask_user.AskUserError)
    assert raised.value.code == "BINARY_NOT_FOUND"
    assert str(tmp_path / "nowhere" / "ask_user") in raised.value.message
    with pytest.raises(ask_user.BinaryNotFound):
        asyncio.run(ask_user.ask_async(WHICH, reply="1"))


def test_lookup_never_searches_the_current_folder_and_returns_an_absolute_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ASK_USER_BIN")
    monkeypatch.setattr(_binary, "_scripts_folders", lambda: iter(()))
    here = tmp_path / "here"
    fake_binary(here, "exit 0")
    fake_binary(here / "bin", "exit 0")
    monkeypatch.chdir(here)
    # "" and "." name the current folder, "bin" a folder under it.
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin"]))
    with pytest.raises(ask_user.BinaryNotFound):
        ask_user.find_binary()
    elsewhere = tmp_path / "elsewhere"
    expected = fake_binary(elsewhere, "exit 0")
    monkeypatch.setenv("PATH", os.pathsep.join([".", str(elsewhere)]))
    assert ask_user.find_binary() == expected
    # ASK_USER_BIN relative: made absolute.
    monkeypatch.setenv("ASK_USER_BIN", "bin/ask_user")
    assert ask_user.find_binary() == str(here / "bin" / "ask_user")


def test_lookup_prefers_the_interpreters_scripts_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ASK_USER_BIN")
    scripts = fake_binary(tmp_path / "scripts", "exit 0")
    on_path = tmp_path / "path"
    fake_binary(on_path, "exit 0")
    monkeypatch.setattr(_binary.sysconfig, "get_path", lambda name, scheme=None: str(tmp_path / "scripts"))
    monkeypatch.setenv("PATH", str(on_path))
    assert ask_user.find_binary() == scripts


@pytest.mark.parametrize(
    "body, returncode",
    [
        ("exit 3", 3),  # an exit code the contract does not name
        ("echo 'error: unexpected argument' >&2; exit 2", 2),  # a usage error
        ("exit 0", 0),  # no document
        ("exit 1", 1),  # exit 1 without its error document
        ("kill -9 $$", -9),  # a signal
    ],
)
def test_a_binary_that_exits_oddly_is_binaryfailed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, body: str, returncode: int
) -> None:
    monkeypatch.setenv("ASK_USER_BIN", fake_binary(tmp_path, f"cat >/dev/null; {body}"))
    with pytest.raises(ask_user.BinaryFailed) as raised:
        ask_user.ask(WHICH, reply="1")
    assert raised.value.returncode == returncode
    assert raised.value.code == "BINARY_FAILED"
    if returncode == 2:
        assert "unexpected argument" in raised.value.stderr
    with pytest.raises(ask_user.BinaryFailed):
        asyncio.run(ask_user.ask_async(WHICH, reply="1"))


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        '["a list"]',
        '{"tool":"other"}',
        '{"tool":"ask_user","version":1,"status":"ok","prompt":{}}',  # no answer document
    ],
)
def test_output_that_is_no_document_is_unparsableoutput(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, line: str) -> None:
    monkeypatch.setenv("ASK_USER_BIN", fake_binary(tmp_path, f"cat >/dev/null; echo '{line}'"))
    with pytest.raises(ask_user.UnparsableOutput) as raised:
        ask_user.ask(WHICH, reply="1")
    assert raised.value.output.strip() == line
    assert raised.value.code == "UNPARSABLE_OUTPUT"


def test_arguments_are_checked_before_anything_runs() -> None:
    with pytest.raises(ValueError):
        ask_user.ask(WHICH, ui="nowhere")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ask_user.ask(WHICH, timeout=-1)
    with pytest.raises(TypeError):
        ask_user.ask(WHICH, reply=[2])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        ask_user.ask(42)  # type: ignore[arg-type]


# --- prompt and check -------------------------------------------------------


def test_prompt_returns_the_prompt_document() -> None:
    document = ask_user.prompt(WHICH)
    item = document["prompt"]  # type: ignore[typeddict-item]
    assert item["kind"] == "single_select"
    assert [(o["id"], o["label"]) for o in item["options"]] == [("1", "a"), ("2", "b")]  # type: ignore[typeddict-item]
    assert item["answer_instructions"] == "Reply with the option number (1-2)."
    assert "**Which?**" in document["rendered_markdown"]
    several = ask_user.prompt([WHICH, {"question": "Why?", "type": "text"}])
    assert [p["id"] for p in several["prompts"]] == ["q1", "q2"]  # type: ignore[typeddict-item]


def test_check_reports_valid_and_invalid_documents(tmp_path: Path) -> None:
    good = ask_user.check(WHICH)
    assert good["valid"] is True
    assert good["files"] == [{"path": "-", "status": "valid", "kind": "input"}]
    bad = ask_user.check({"question": "Pick one", "options": ["only"]})
    assert bad["valid"] is False
    assert bad["files"][0]["error"]["code"] == "INVALID_OPTIONS"  # type: ignore[typeddict-item]
    # What ask returned is a document check accepts.
    answered = ask_user.check(dict(ask_user.ask(WHICH, reply="2")))
    assert answered["valid"] is True and answered["files"][0].get("kind") == "answer"
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "db.json").write_text(json.dumps(WHICH))
    (folder / "bad.json").write_text('{"question":"Deploy?","options":["yes"]}')
    report = ask_user.check(folder)
    assert report["counts"] == {"files": 2, "valid": 1, "invalid": 1, "missing": 0}
    assert report["valid"] is False
    missing = ask_user.check(tmp_path / "nothing-here")
    assert missing["counts"]["missing"] == 1


# --- cancelling the call ends the child --------------------------------------


def test_cancelling_ask_async_ends_the_child_and_leaves_no_process() -> None:
    async def scenario() -> int:
        task = asyncio.ensure_future(ask_user.ask_async(WHICH, ui="web", timeout=120))
        pid = await asyncio.get_running_loop().run_in_executor(None, wait_for_child)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    started = time.monotonic()
    pid = asyncio.run(scenario())
    assert gone(pid), f"ask_user {pid} is still there"
    assert time.monotonic() - started < 20
    assert children() == {}


def test_keyboardinterrupt_in_ask_ends_the_child_and_leaves_no_process() -> None:
    found: Dict[str, int] = {}

    def interrupt() -> None:
        found["pid"] = wait_for_child()
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        ask_user.ask(WHICH, ui="web", timeout=120)
    assert gone(found["pid"]), f"ask_user {found['pid']} is still there"
    assert children() == {}


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stubborn = fake_binary(
        tmp_path,
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(30)",
        interpreter=sys.executable,
    )
    monkeypatch.setenv("ASK_USER_BIN", stubborn)
    monkeypatch.setattr(_run, "GRACE_SECONDS", 0.5)

    async def scenario() -> int:
        task = asyncio.ensure_future(ask_user.ask_async(WHICH))
        pid = await asyncio.get_running_loop().run_in_executor(None, wait_for_child)
        await asyncio.sleep(0.3)  # its SIGTERM handler is set by now
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    started = time.monotonic()
    pid = asyncio.run(scenario())
    assert gone(pid)
    took = time.monotonic() - started
    assert took >= 0.5, "SIGKILL came before the grace ended"
    assert took < 15, f"the child was not killed after the grace: {took:.1f} s"

    found: Dict[str, int] = {}

    def interrupt() -> None:
        found["pid"] = wait_for_child()
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        ask_user.ask(WHICH)
    took = time.monotonic() - started
    assert gone(found["pid"])
    assert children() == {}
    assert took < 15, f"the child was not killed after the grace: {took:.1f} s"
