#!/usr/bin/env python3
"""Prints a cargo-mutants --exclude-re for the lines of FILE that only a
Windows build compiles (each `#[cfg(windows)]` or `#[cfg(not(unix))]` item:
a module, a function, an impl, a const), or nothing when there are none. On Linux those mutants
cannot be built into the binary the tests run, so every one of them would
count as missed; bench/mutants.sh leaves them out and docs/mutants.md says
so. (cfg!(windows) inside a function is compiled everywhere and stays.)

    bench/windows-lines.py crates/platform/src/files.rs
"""
import re
import sys


def windows_lines(lines):
    found = set()
    i = 0
    while i < len(lines):
        if lines[i].strip() not in ("#[cfg(windows)]", "#[cfg(not(unix))]"):
            i += 1
            continue
        start = j = i + 1
        while j < len(lines) and lines[j].lstrip().startswith(("#[", "///", "//")):
            j += 1  # more attributes and comments before the item
        indent = len(lines[j]) - len(lines[j].lstrip())
        end = j
        if not lines[j].rstrip().endswith(";"):
            # The item ends at the first `}` back at its own indent.
            end = j + 1
            while end < len(lines) and not (
                lines[end].startswith(" " * indent + "}")
                and len(lines[end]) - len(lines[end].lstrip()) == indent
            ):
                end += 1
        found.update(range(start + 1, end + 2))  # 1-based, the attribute's line too
        i = end + 1
    return sorted(found)


def main():
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    numbers = windows_lines(lines)
    if numbers:
        print("^" + re.escape(path) + ":(" + "|".join(map(str, numbers)) + "):")


if __name__ == "__main__":
    main()
