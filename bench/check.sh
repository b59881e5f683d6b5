#!/usr/bin/env bash
# Benchmark for `ask_user check` (issue #4), rerunnable:
#   1. 10,000 small tool inputs checked in one run, against ajv-cli (npm, pinned
#      in bench/package.json) validating the same files against schemas/input.json,
#      measured in the same run. Target: check at least 20x faster (wall time).
#   2. 1,000 against 10,000 files, to show that the cost grows linearly (and
#      5,000, to check the line through the other two).
# Prints the median wall time of RUNS runs of each, and the ratios.
#
# Usage: bench/check.sh [RUNS]   (default 5; needs cargo, python3, node and npm)
set -euo pipefail

runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

echo "building the release binary..." >&2
bin=$(scripts/build-release)

if [ ! -x bench/node_modules/.bin/ajv ]; then
    echo "installing ajv-cli (bench/package.json)..." >&2
    (cd bench && npm ci --no-audit --no-fund --silent)
fi
ajv=$root/bench/node_modules/.bin/ajv

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# N small, valid inputs in the four dialects, each one different.
make_corpus() {
    python3 - "$1" "$2" <<'PY'
import json, os, sys
dir, n = sys.argv[1], int(sys.argv[2])
os.makedirs(dir)
for i in range(n):
    shape = i % 4
    if shape == 0:
        doc = {"question": f"Which database for service {i}?", "context": "Reads dominate.",
               "options": [{"label": "PostgreSQL", "description": "Transactional", "recommended": True},
                           {"label": "SQLite", "description": "One file"}, "DynamoDB"]}
    elif shape == 1:
        doc = {"questions": [{"question": f"Which features for release {i}?", "header": "Features",
                              "multiSelect": True,
                              "options": [{"label": "Auth", "description": "Log in"},
                                          {"label": "Billing", "description": "Stripe"}]},
                             {"question": "Which style?", "header": "Style", "multiSelect": False,
                              "options": [{"label": "Tabs", "description": "Tabs"},
                                          {"label": "Spaces", "description": "Spaces"}]}]}
    elif shape == 2:
        doc = {"title": f"Release {i}", "timeout": 60000,
               "questions": [{"id": "name", "question": "Release name?", "type": "text"},
                             {"id": "ship", "question": "Ship it?", "type": "confirm", "default": "yes"},
                             {"id": "where", "question": "Where?", "type": "multi-select",
                              "options": ["staging", "prod", "canary"]}]}
    else:
        doc = {"prompt": f"Pick a colour for theme {i}", "type": "choice",
               "options": ["red", "green", "blue"], "default": 2}
    with open(os.path.join(dir, f"input-{i:05}.json"), "w") as f:
        json.dump(doc, f)
PY
}

make_corpus "$work/1k" 1000
make_corpus "$work/5k" 5000
make_corpus "$work/10k" 10000

# Both must call every file valid, or the timings compare different work.
"$bin" check --quiet "$work/10k"
"$ajv" validate --spec=draft2020 --strict=false -s schemas/input.json -d "$work/10k/*.json" >/dev/null 2>&1 \
    || { echo "ajv rejects the corpus" >&2; exit 1; }

# Runs a command `runs` times; prints "WALL_MS CPU_MS": the medians of its wall
# time and of its CPU time (user + system, from getrusage). On a busy machine
# wall time includes waiting for a core; CPU time shows the work itself.
medians() {
    python3 - "$runs" "$@" <<'PY'
import os, resource, statistics, subprocess, sys, time
runs, command = int(sys.argv[1]), sys.argv[2:]
walls, cpus = [], []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
print(f"{statistics.median(walls) * 1000:.1f} {statistics.median(cpus) * 1000:.1f}")
PY
}

read -r check_1k check_1k_cpu < <(medians "$bin" check --quiet "$work/1k")
read -r check_5k check_5k_cpu < <(medians "$bin" check --quiet "$work/5k")
read -r check_10k check_10k_cpu < <(medians "$bin" check --quiet "$work/10k")
ajv_args=(validate --spec=draft2020 --strict=false -s schemas/input.json)
read -r ajv_1k ajv_1k_cpu < <(medians "$ajv" "${ajv_args[@]}" -d "$work/1k/*.json")
read -r ajv_10k ajv_10k_cpu < <(medians "$ajv" "${ajv_args[@]}" -d "$work/10k/*.json")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
per_file() { awk -v t="$1" -v n="$2" 'BEGIN {printf "%.1f", t * 1000 / n}'; }

echo "ask_user check vs ajv-cli 5.0.0 (--spec=draft2020), median of $runs runs, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %9s %9s %13s\n' "" "wall ms" "CPU ms" "wall µs/file"
printf '%-24s %9s %9s %13s\n' "ask_user check, 1,000"  "$check_1k"  "$check_1k_cpu"  "$(per_file "$check_1k" 1000)"
printf '%-24s %9s %9s %13s\n' "ask_user check, 5,000"  "$check_5k"  "$check_5k_cpu"  "$(per_file "$check_5k" 5000)"
printf '%-24s %9s %9s %13s\n' "ask_user check, 10,000" "$check_10k" "$check_10k_cpu" "$(per_file "$check_10k" 10000)"
printf '%-24s %9s %9s %13s\n' "ajv-cli, 1,000"         "$ajv_1k"    "$ajv_1k_cpu"    "$(per_file "$ajv_1k" 1000)"
printf '%-24s %9s %9s %13s\n' "ajv-cli, 10,000"        "$ajv_10k"   "$ajv_10k_cpu"   "$(per_file "$ajv_10k" 10000)"
echo "ajv / check, 10,000 files:  wall $(ratio "$ajv_10k" "$check_10k")x, CPU $(ratio "$ajv_10k_cpu" "$check_10k_cpu")x (target: at least 20x wall)"
echo "check 10,000 / 1,000 files: wall $(ratio "$check_10k" "$check_1k")x, CPU $(ratio "$check_10k_cpu" "$check_1k_cpu")x (10x files)"
# Linear growth: a fixed start-up cost plus the same cost per file. The line
# through 1,000 and 10,000 files predicts 5,000; the measurement should match.
awk -v a="$check_1k" -v b="$check_10k" -v m="$check_5k" 'BEGIN {
    per = (b - a) / 9000; fixed = a - 1000 * per; predicted = fixed + 5000 * per
    printf "check wall time ~ %.1f ms + %.1f µs x files; predicts %.1f ms for 5,000, measured %.1f ms (%+.0f%%)\n",
        fixed, per * 1000, predicted, m, (m - predicted) / predicted * 100 }'

