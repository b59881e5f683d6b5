#!/usr/bin/env bash
# The bugs that once survived the whole suite (issue 17), put back one at a time in a
# scratch copy of the working tree (target/bugs/tree): each must now fail the test its
# patch names on its "Test:" line (a nextest binary id and test name).
#
#   bench/bugs.sh            # the whole suite for each bug; lists every test that failed
#   bench/bugs.sh --quick    # only the named test for each bug
#   bench/bugs.sh bench/bugs/3-*.patch   # some of the bugs
#
# Exit 0 when every bug is caught by its named test; 1 otherwise (or when a patch no
# longer applies: then it needs rewriting for the code as it is).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
patches=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) patches+=("$(realpath "$arg")") ;;
  esac
done
[ ${#patches[@]} -gt 0 ] || patches=("$PWD"/bench/bugs/*.patch)

tree=$PWD/target/bugs/tree
. bench/scratch-tree.sh
copy_tree "$tree"
export CARGO_TARGET_DIR=$tree/target CARGO_TERM_COLOR=never CI=true

status=0
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  test_line=$(sed -n 's/^Test: //p' "$patch")
  binary=${test_line%% *}
  test_name=${test_line#* }
  echo "== $name: $(head -n 1 "$patch")"
  if ! (cd "$tree" && patch --quiet --forward -p1 <"$patch"); then
    echo "   the patch no longer applies"
    status=1
    copy_tree "$tree"
    continue
  fi
  if [ -n "$quick" ]; then
    filter="binary_id($binary) & test(=$test_name)"
  else
    filter="all()"
  fi
  log=$tree/../$name.log
  (cd "$tree" && nice -n 10 cargo nextest run --no-fail-fast --workspace -E "$filter") \
    >"$log" 2>&1 || true
  # Put the tree back before anything else can fail.
  (cd "$tree" && patch --quiet --reverse -p1 <"$patch")
  failed=$(grep -E '^ +(FAIL|TIMEOUT|SIGSEGV|SIGABRT) \[' "$log" | sed -E 's/^ +[A-Z]+ \[[^]]*\] (\([^)]*\) )?//' | sort -u)
  if grep -qxF "$test_line" <<<"$failed"; then
    echo "   caught by $test_line"
  else
    echo "   NOT caught by $test_line (log: $log)"
    status=1
  fi
  if [ -z "$quick" ]; then
    echo "   all failing tests: $(grep -c . <<<"$failed")"
    sed 's/^/     /' <<<"$failed"
  fi
done
exit "$status"
