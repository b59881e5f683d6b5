#!/usr/bin/env bash
# Fuzzing of the inputs that come from outside a tool call (issue 26), by the
# property tests `cargo test` runs with a few hundred cases, here with CASES
# inputs per property:
#   setup  `setup`'s JSONC and TOML merge on arbitrary host config files, in
#          process (src/setup/json/fuzz.rs, src/setup/toml/fuzz.rs: four
#          properties per format), and through the binary (tests/fuzz_setup.rs,
#          at most 2,000);
#   inbox  the inbox's API bodies (ask, answer, reply, decline, dismiss,
#          cancel, leave), in process and against a real `ask_user inbox` on
#          127.0.0.1 (tests/fuzz_inbox.rs).
# Each property prints its input count, how its inputs fell (merged or
# refused; statuses) and its time. Any failure (a panic, a crash, a broken
# property, one input over 10 s: a hang) stops the run with exit 1.
#
# Built once in a profile of its own (target/fuzz: release speed, with
# overflow checks and debug assertions, unwinding panics), so that neither
# the debug nor the release build is disturbed.
# Usage: bench/fuzz.sh [CASES] [setup|inbox|all]   (default 100000 all)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cases=${1:-100000}
what=${2:-all}
case "$what" in
  setup | inbox | all) ;;
  *)
    echo "usage: bench/fuzz.sh [CASES] [setup|inbox|all]" >&2
    exit 2
    ;;
esac

profile=(
  --profile fuzz
  --config 'profile.fuzz.inherits="release"'
  --config 'profile.fuzz.lto=false'
  --config 'profile.fuzz.codegen-units=16'
  --config 'profile.fuzz.panic="unwind"'
  --config 'profile.fuzz.strip=false'
  --config 'profile.fuzz.overflow-checks=true'
  --config 'profile.fuzz.debug-assertions=true'
)

# Runs one test target's properties (those matching FILTER) with CASES
# inputs each, and shows their counts. Usage: fuzz TARGET-ARGS [FILTER...]
fuzz() {
  local target=$1
  shift
  echo "== $target $*" >&2
  # shellcheck disable=SC2086 # TARGET-ARGS are words
  PROPTEST_CASES=$cases FUZZ_INBOX_LOOPBACK_CASES=$cases \
    nice cargo test "${profile[@]}" $target -- --nocapture --test-threads 1 "$@" 2>&1 |
    grep -oE 'fuzz [a-z_]+: .*|panicked.*|Test failed.*|minimal failing.*|^test result.*' >&2
}

started=$(date +%s)
cargo test "${profile[@]}" --no-run --lib --test fuzz_setup --test fuzz_inbox 2>&1 | tail -n 1 >&2
if [ "$what" != inbox ]; then
  fuzz --lib setup::json::fuzz setup::toml::fuzz
  fuzz "--test fuzz_setup"
fi
if [ "$what" != setup ]; then
  fuzz "--test fuzz_inbox"
fi
echo "all properties held; $(($(date +%s) - started)) s" >&2
