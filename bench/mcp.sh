#!/usr/bin/env bash
# Latency of `ask_user mcp` (tools/list, non-blocking tools/call) over 1,000
# calls on one server, against ping on the same server, and its peak RSS.
# Usage: bench/mcp.sh [CALLS]   (builds the release binary first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
binary=$(scripts/build-release)
python3 "$root/bench/mcp_bench.py" "$binary" "${1:-1000}"
