#!/usr/bin/env bash
# For the terminal tests (tests/tty_screen.rs): Python's pyte (pinned), the
# terminal emulator that tests/tty/screen.py feeds the raw pty bytes to, and
# Debian's tmux, a terminal that reflows its lines on a resize.
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }
requirements=tests/tty/requirements.txt
if python3 - "$requirements" <<'PY' 2>/dev/null; then exit 0; fi
import importlib.metadata, sys
pins = [l.split("==") for l in open(sys.argv[1]) if "==" in l and not l.startswith("#")]
sys.exit(any(importlib.metadata.version(n.strip()) != v.strip() for n, v in pins))
PY
pip=(python3 -m pip install --quiet --disable-pip-version-check -r "$requirements")
# Debian's own Python refuses system-wide installs (PEP 668) unless told.
"${pip[@]}" || "${pip[@]}" --break-system-packages
