#!/usr/bin/env bash
# The inbox with 200 concurrent askers pending: answer (by `inbox answer`) to
# the asker's stdout, `inbox list`, and the inbox's RSS, against a bare start
# of the binary measured in the same run.
# Usage: bench/inbox.sh [ASKERS] [ANSWERS]   (builds the release binary first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
binary=${ASK_USER_BIN:-$(scripts/build-release)}
python3 "$root/bench/inbox_bench.py" "$binary" "${1:-200}" "${2:-100}"
