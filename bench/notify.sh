#!/usr/bin/env bash
# Notices to a slow receiver: 300 asks at 100 a second (each cancelled 1 s
# later) to an inbox whose webhook receiver takes 50 ms a request; ask to
# created event received and cancel to closed event received, median and
# p99, against a receiver answering at once measured in the same run.
# Usage: bench/notify.sh [ASKS] [PER_SECOND] [DELAY_MS]   (builds the release binary first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
binary=${ASK_USER_BIN:-$(scripts/build-release)}
python3 "$root/bench/notify_bench.py" "$binary" "${1:-300}" "${2:-100}" "${3:-50}"
