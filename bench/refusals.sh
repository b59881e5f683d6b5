#!/usr/bin/env bash
# How fast the inbox turns requests away (a wrong token, no token: 401; an
# asker's token where a person's is needed: 403), against a request with a
# valid token: medians, p99 and ratios; exit 1 when a 401 or 429 median is
# over 1.2x the valid token's, or a status is not the expected one.
# Takes about a minute a window (the tokenless limit's 60 s).
# Usage: bench/refusals.sh [ROUNDS] [WINDOWS]   (builds the release binary first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
binary=${ASK_USER_BIN:-$(scripts/build-release)}
python3 "$root/bench/refusals_bench.py" "$binary" "${1:-2000}" "${2:-2}"
