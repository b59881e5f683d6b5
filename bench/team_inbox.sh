#!/usr/bin/env bash
# The team inbox: two replicas on one PostgreSQL (200 askers waiting on A,
# answered through B; asks acknowledged per second with their median and p99,
# with the pool and with one connection a replica; PostgreSQL's own insert
# rate by pgbench), against one replica on SQLite
# measured in the same run. Needs PostgreSQL (.ci/setup-postgres.sh).
# Usage: bench/team_inbox.sh [ASKERS] [ANSWERS] [ASKS] [CLIENTS]   (builds the release binary first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
binary=${ASK_USER_BIN:-$(scripts/build-release)}
python3 "$root/bench/team_inbox_bench.py" "$binary" "${1:-200}" "${2:-100}" "${3:-2000}" "${4:-16}"
