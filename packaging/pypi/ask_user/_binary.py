"""Finding the `ask_user` binary.

1. `ASK_USER_BIN`, when set and not empty: that file (made absolute);
2. the `ask_user` the wheel installed beside the running interpreter (its
   scripts folder, then the user scheme's, for `pip install --user`);
3. PATH, searched by hand: only absolute entries, so that neither the
   current folder nor a relative entry ("", ".", "bin") is ever searched,
   and on Windows only `ask_user.exe` (never a .bat or .cmd).

The path handed to the operating system is always absolute.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Iterator, List, Optional, Set

from .errors import BinaryNotFound

__all__ = ["find_binary"]

WINDOWS = sys.platform == "win32"
NAME = "ask_user.exe" if WINDOWS else "ask_user"


def _is_program(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _scripts_folders() -> Iterator[str]:
    seen: Set[str] = set()
    schemes: List[Optional[str]] = [None]
    try:
        schemes.append(sysconfig.get_preferred_scheme("user"))  # Python 3.10+
    except AttributeError:
        schemes.append("nt_user" if WINDOWS else "posix_user")
    for scheme in schemes:
        try:
            folder = sysconfig.get_path("scripts") if scheme is None else sysconfig.get_path("scripts", scheme)
        except KeyError:
            continue
        if folder and os.path.isabs(folder) and folder not in seen:
            seen.add(folder)
            yield folder


def _path_folders() -> Iterator[str]:
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        # "" and relative entries name the current folder, or one under it.
        if folder and os.path.isabs(folder):
            yield folder


def find_binary() -> str:
    """The absolute path of the `ask_user` binary to run; `BinaryNotFound`
    when there is none."""
    override = os.environ.get("ASK_USER_BIN")
    if override:
        path = os.path.abspath(override)
        if not _is_program(path):
            raise BinaryNotFound(f"ASK_USER_BIN names {path}, which is not an executable file")
        return path
    found: Optional[str] = None
    for folder in _scripts_folders():
        candidate = os.path.join(folder, NAME)
        if _is_program(candidate):
            found = candidate
            break
    if found is None:
        for folder in _path_folders():
            candidate = os.path.join(folder, NAME)
            if _is_program(candidate):
                found = candidate
                break
    if found is None:
        raise BinaryNotFound(
            f"no {NAME} in this Python's scripts folder or on PATH: "
            "install the ask-user package (pip install ask-user), or set ASK_USER_BIN to the binary"
        )
    return os.path.abspath(found)
