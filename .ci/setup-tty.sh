#!/usr/bin/env bash
# For the terminal tests (tests/tty_screen.rs): Python's pyte (pinned), the
# terminal emulator that tests/tty/screen.py feeds the raw pty bytes to, and
# Debian's tmux, a terminal that reflows its lines on a resize.
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }
bash .ci/pip-pinned.sh tests/tty/requirements.txt
