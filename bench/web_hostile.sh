#!/usr/bin/env bash
# The answer page with 200 idle hostile connections open: the person's answer
# (median of 20, against the same answer without them in the same run) and
# the server's RSS, for `ask --ui web` and for `mcp --fallback web`.
# Usage: bench/web_hostile.sh [BINARY] [RUNS] [HOSTILE]
#   BINARY defaults to the release binary, built first (scripts/build-release);
#   pass another build (e.g. an older one) to compare.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${1:-}"
if [ -z "$binary" ]; then
  binary=$("$root/scripts/build-release")
fi
ls -l "$binary" | awk '{print "binary: " $NF ", " $5 " bytes"}'
for face in web mcp; do
  python3 "$root/bench/web_hostile.py" "$binary" "$face" "${2:-20}" "${3:-200}"
done
