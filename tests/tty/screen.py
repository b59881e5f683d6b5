"""What a person would see: the raw bytes a pty showed, replayed into pyte's
VT100 emulator, printed as JSON ({"display": [rows], "cursor": [y, x]}).

    screen.py TRANSCRIPT COLS ROWS [--resize OFFSET NEW_COLS reflow|cut]

With --resize, the first OFFSET bytes are drawn at COLS columns, then the
window becomes NEW_COLS wide, then the rest is drawn:
- "cut" is pyte's own resize, as xterm does: rows keep their place and lose
  what no longer fits.
- "reflow" is what VTE (GNOME Terminal), kitty, iTerm2, Windows Terminal,
  alacritty and tmux do: each line is wrapped again at the new width, the
  cursor stays on its character, and rows pushed past the top scroll away.
  pyte does not reflow, so this script does it between the two halves. It
  needs to know where lines were wrapped by the terminal: it refuses a
  screen with a full-width row (which may be a wrapped line) instead of
  guessing.
"""

import json
import sys

import pyte


def screen_of(columns, rows, data):
    screen = pyte.Screen(columns, rows)
    stream = pyte.ByteStream(screen)
    stream.feed(data)
    return screen, stream


def reflow(screen, columns):
    """A new screen `columns` wide holding `screen`'s lines wrapped again."""
    lines = [line.rstrip() for line in screen.display]
    for y, line in enumerate(lines):
        if len(line) >= screen.columns:
            sys.exit(f"row {y} fills the width: cannot tell whether it wraps: {line!r}")
    cursor_y, cursor_x = screen.cursor.y, screen.cursor.x
    # Blank rows after the cursor's line hold nothing to keep.
    last = max([cursor_y] + [y for y, line in enumerate(lines) if line])
    rows = []
    new_cursor = (0, 0)
    for y, line in enumerate(lines[: last + 1]):
        start = len(rows)
        pieces = [line[i : i + columns] for i in range(0, len(line), columns)] or [""]
        rows.extend(pieces)
        if y == cursor_y:
            offset = min(cursor_x, len(line))
            new_cursor = (start + offset // columns, offset % columns)
            if new_cursor[0] >= len(rows):
                rows.append("")
    # What does not fit scrolls off the top, as output does.
    overflow = max(0, len(rows) - screen.lines)
    rows = rows[overflow:]
    new_cursor = (new_cursor[0] - overflow, new_cursor[1])
    fresh, stream = screen_of(columns, screen.lines, b"")
    stream.feed("\r\n".join(rows).encode())
    stream.feed(f"\x1b[{new_cursor[0] + 1};{new_cursor[1] + 1}H".encode())
    return fresh, stream


def main():
    path, columns, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = open(path, "rb").read()
    if len(sys.argv) > 4:
        if sys.argv[4] != "--resize" or len(sys.argv) != 8:
            sys.exit(__doc__)
        offset, new_columns, model = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
        screen, stream = screen_of(columns, rows, data[:offset])
        if model == "reflow":
            screen, stream = reflow(screen, new_columns)
        elif model == "cut":
            screen.resize(rows, new_columns)
        else:
            sys.exit(f"unknown model {model!r}")
        stream.feed(data[offset:])
    else:
        screen, _ = screen_of(columns, rows, data)
    print(json.dumps({
        "display": [line.rstrip() for line in screen.display],
        "cursor": [screen.cursor.y, screen.cursor.x],
    }, ensure_ascii=False))


if __name__ == "__main__":
    main()
