"""docs/python.md and the README's "From code" run: each ```python block is
executed (with the binary under test), and the ```text title="Output"```
block after it is what it must print. A block that cannot run here says so in its title
(title="not run here: REASON"), as tests/docs.rs asks of console blocks."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from conftest import ROOT

PAGES = [ROOT / "docs" / "python.md", ROOT / "README.md"]
NOT_RUN = 'title="not run here: '


def blocks(text: str) -> List[Tuple[int, str, str]]:
    """(line, info, body) of every fenced block."""
    found: List[Tuple[int, str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^```(.*)$", lines[i])
        if match:
            start, info, body = i + 1, match.group(1).strip(), []
            i += 1
            while i < len(lines) and lines[i] != "```":
                body.append(lines[i])
                i += 1
            assert i < len(lines), f"line {start}: a block that never closes"
            found.append((start, info, "\n".join(body) + "\n"))
        i += 1
    return found


def examples() -> List[Tuple[str, str, Optional[str]]]:
    """(where, code, expected output or None) of each python block to run."""
    runs: List[Tuple[str, str, Optional[str]]] = []
    for page in PAGES:
        runs += _examples(page)
    return runs


def _examples(page: Path) -> List[Tuple[str, str, Optional[str]]]:
    found = blocks(page.read_text(encoding="utf-8"))
    runs: List[Tuple[str, str, Optional[str]]] = []
    for index, (line, info, body) in enumerate(found):
        if info.split(" ")[0] != "python" or NOT_RUN in info:
            continue
        expected = None
        if index + 1 < len(found) and found[index + 1][1] == 'text title="Output"':
            expected = found[index + 1][2]
        runs.append((f"{page.relative_to(ROOT)}:{line}", body, expected))
    return runs


def test_the_pages_have_examples_that_run() -> None:
    where = [w for w, _, _ in examples()]
    assert sum(w.startswith("docs/python.md:") for w in where) >= 6, where
    assert sum(w.startswith("README.md:") for w in where) == 1, where
    assert all(expected is not None for _, _, expected in examples())


@pytest.mark.parametrize("where, code, expected", examples(), ids=[w for w, _, _ in examples()])
def test_example_runs_and_prints_what_the_page_shows(where: str, code: str, expected: Optional[str]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, "exec"), {"__name__": "__main__"})
    assert out.getvalue() == expected, where


def test_the_packaged_example_runs_with_a_scripted_reply() -> None:
    import os
    import subprocess
    import sys

    example = ROOT / "packaging" / "pypi" / "examples" / "choose.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "packaging" / "pypi")}
    done = subprocess.run(
        [sys.executable, str(example), "--reply", "2"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("SQLite (answered by "), done.stdout
