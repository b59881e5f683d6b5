"""Ask which database to use, and act on every outcome.

    python packaging/pypi/examples/choose.py          # asks on the terminal (or the inbox)
    python packaging/pypi/examples/choose.py --reply 2  # scripted, as a test would

A cancel or a timeout is a result, never an answer: the code below has to
say what it does then.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import ask_user


def choose(replies: Optional[List[str]] = None) -> str:
    answer = ask_user.ask(
        {
            "question": "Which database should the service use?",
            "options": [
                {"label": "PostgreSQL", "description": "the team runs it already", "recommended": True},
                "SQLite",
            ],
        },
        timeout=300,
        reply=replies,
    )
    if answer["answered"] is True:
        # A type checker knows `answeredBy` is there now.
        who = answer["answeredBy"]
        by = who["name"] if isinstance(who, dict) else ", ".join(vote["name"] for vote in who)
        return f"{answer['answers'][0]['values'][0]} (answered by {by})"
    what = ask_user.outcome(answer)
    if what == "timed_out" and "inboxId" in answer:
        return f"no answer yet: collect it later with ask_user.collect({answer['inboxId']!r})"
    return f"no database chosen ({what})"


if __name__ == "__main__":
    try:
        print(choose(sys.argv[2:] if sys.argv[1:2] == ["--reply"] else None))
    except ask_user.AskUserError as error:
        print(f"could not ask: {error}", file=sys.stderr)
        sys.exit(1)
