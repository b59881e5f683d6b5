#!/usr/bin/env bash
# Start-up benchmark of the toolbox face, and the release binary's size and linkage.
#   bench/toolbox.sh            # 1000 interleaved runs each
#   BENCH_RUNS=300 bench/toolbox.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(scripts/build-release)
size=$(stat -c %s "$bin")
echo "release binary: $bin"
echo "size: $size bytes ($(awk -v s="$size" 'BEGIN{printf "%.2f", s/1048576}') MiB; ceiling < 10 MiB: $([ "$size" -lt 10485760 ] && echo met || echo NOT met))"
echo "file: $(file -b "$bin")"
ASK_USER_BIN="$bin" cargo bench --quiet --bench toolbox
