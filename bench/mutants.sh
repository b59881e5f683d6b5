#!/usr/bin/env bash
# Mutation testing of the core modules with cargo-mutants 27.x (docs/mutants.md).
#
#   bench/mutants.sh                          # the core modules (CORE below)
#   bench/mutants.sh answer sanitize          # some of them (names as in MODULES below)
#   bench/mutants.sh --in-diff FILE [MODULE…] # only mutants on lines a diff touches
#   git diff main | bench/mutants.sh --in-diff -
#   bench/mutants.sh --list                   # the modules and the tests each one runs
#   bench/mutants.sh --summary [MODULE…]      # the table of the last run again
#   MUTANTS_WORK=target/mutants-b bench/mutants.sh MODULE…  # a second run beside the first
#   MUTANTS_SHARD=1/2 MUTANTS_WORK=… bench/mutants.sh MODULE  # half a module's mutants (0/2, 1/2)
#
# It runs in its own copy of the working tree (target/mutants/tree, with its own target
# folder, kept from run to run so only changed code is rebuilt), in place, one mutant at a
# time, under nice: the machine is shared. Each module's mutants run only the tests that
# can see that module (MODULES below), with nextest. Results: target/mutants/out/MODULE (/ as _)/
# mutants.out; at the end a table of caught / missed / timeout / unviable, and every
# missed mutant that docs/mutants.md does not list as equivalent (exit 1 if there is one).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# module | source file | test targets (cargo args) | nextest filter
# The SDK and browser tests are left out: they cost seconds each and see no more of
# these modules than the raw tests next to them. Without names, the CORE modules run.
# Only setup's own unit tests can see setup's modules (the faces reach setup through the
# binary): its rows leave out the library's other unit tests, half a minute a mutant.
MODULES=$(cat <<'EOF'
input|crates/core/src/input.rs|--lib --test input_errors --test input_tolerance --test fixtures --test documents|all()
answer|crates/core/src/answer.rs|--lib --test tty_replies --test documents|all()
prompt|crates/core/src/prompt.rs|--lib --test fixtures --test documents --test tty_replies|all()
sanitize|crates/core/src/sanitize.rs|--lib|all()
markdown|crates/core/src/markdown.rs|--lib --test fixtures --test documents|all()
text|crates/core/src/text.rs|--lib --test input_tolerance --test tty_replies|all()
model|crates/core/src/model.rs|--lib --test input_tolerance --test tty_replies|all()
web/submission|crates/core/src/submission.rs|--lib|all()
mcp/form|src/mcp/form.rs|--lib --test mcp|not test(/^(python_sdk|typescript_sdk)/)
server/guard|crates/server/src/guard.rs|--lib --test web --test web_hostile|not test(/^browser_/)
server|crates/server/src/lib.rs|--lib --test web --test web_hostile|not test(/^browser_/)
server/request|crates/server/src/request.rs|--lib --test web --test web_hostile --test inbox_tokens|not test(/^browser_/)
server/response|crates/server/src/response.rs|--lib --test web --test web_hostile --test mcp_http|not test(/^browser_/)
setup/launch|src/setup/launch.rs|--lib --test setup_launch|all()
generate|src/generate.rs|--test completions|all()
mcp/kept|src/mcp/kept.rs|--lib --test mcp_fallbacks|all()
mcp/inbox|src/mcp/inbox.rs|--lib --test mcp_http --test inbox --test mcp_fallbacks --test mcp_form_wait|test(/^(mcp::inbox|three_http|a_question_whose_call_ended|an_mcp_call_times_out|fallback_auto_)/) | binary(mcp_form_wait)
inbox/store|crates/inbox/src/store/mod.rs|--lib --test store|all()
inbox/store/sqlite|crates/inbox/src/store/sqlite.rs|--lib --test store|all()
inbox/store/postgres|crates/inbox/src/store/postgres/mod.rs|--lib --test store --test team_inbox|all()
inbox/hub|crates/inbox/src/hub.rs|--lib --test team_inbox|all()
inbox/hub/refusing|crates/inbox/src/hub/refusing.rs|--lib --test inbox_disk|all()
inbox/tokens|crates/inbox/src/tokens.rs|--lib --test inbox_tokens|all()
inbox/routes|crates/inbox/src/routes.rs|--lib --test team_inbox --test fuzz_inbox --test inbox --test mcp_http|kind(lib) | binary(team_inbox) | binary(fuzz_inbox) | test(/^(a_whole_tool_input|a_foreign_origin_is_403)/)
inbox/state|crates/inbox/src/state.rs|--lib --test inbox|kind(lib) | test(/^(the_state_folder|askers_without_an_inbox|inbox_answer_and_inbox_cancel)/)
inbox/listen|crates/inbox/src/listen.rs|--lib --test past_loopback|all()
server/tls|crates/server/src/tls.rs|--lib --test past_loopback|all()
inbox/client|crates/inbox/src/client.rs|--lib --test inbox_tokens|all()
inbox/metrics|crates/inbox/src/metrics.rs|--lib --test team_inbox|test(/metrics/)
inbox/notify|crates/inbox/src/notify.rs|--lib --test inbox|test(/notif|^inbox::/)
setup/json|src/setup/json.rs|--lib --test setup --test fuzz_setup|all()
setup/toml|src/setup/toml.rs|--lib --test setup --test fuzz_setup|all()
setup/diff|src/setup/diff.rs|--lib --test setup|all()
setup/file|src/setup/file.rs|--lib --test setup --test fuzz_setup|all()
setup/hooks|src/setup/hooks/mod.rs|--lib --test setup_hooks|(kind(lib) & test(/^setup::/)) | (binary(setup_hooks) & not test(/^(claude_code_runs|claude_code_asks|codex_loads)/))
setup/hooks/json|src/setup/hooks/json.rs|--lib --test setup_hooks|(kind(lib) & test(/^setup::/)) | (binary(setup_hooks) & not test(/^(claude_code_runs|claude_code_asks|codex_loads)/))
setup/hooks/toml|src/setup/hooks/toml.rs|--lib --test setup_hooks|(kind(lib) & test(/^setup::/)) | (binary(setup_hooks) & not test(/^(claude_code_runs|claude_code_asks|codex_loads)/))
setup|src/setup/mod.rs|--lib --test setup --test setup_pty --test setup_launch --test fuzz_setup|all()
tty/widgets|src/tty/widgets.rs|--lib --test tty_screen --test tty_pty --test tty_plain|all()
tty/keys|src/tty/keys.rs|--lib --test tty_screen --test tty_pty --test tty_plain|all()
cli|src/cli.rs|--bins --test help --test input_errors --test tty_replies --test describe --test check|all()
error|crates/core/src/error.rs|--lib --test input_errors --test documents --test tty_replies|all()
schema|crates/core/src/schema.rs|--lib --test schemas --test documents|all()
describe|crates/core/src/describe.rs|--lib --test describe|all()
check|src/check.rs|--lib --test check --test documents|all()
check/report|src/check/report.rs|--lib --test check --test documents|all()
check/documents|src/check/documents.rs|--lib --test check --test documents|all()
ask|src/ask.rs|--lib --test tty_replies --test tty_plain --test web --test inbox|not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
lib|src/lib.rs|--lib --test documents --test input_errors --test tty_replies --test check --test mcp|not test(/^(python_sdk|typescript_sdk)/)
main|src/main.rs|--bins --test documents --test input_errors --test tty_replies --test tty_plain --test help --test describe --test check --test completions --test tty_no_tty --test setup --test inbox --test inbox_tokens --test mcp --test fuzz_setup|not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
server/linger|crates/server/src/linger.rs|--lib --test web --test web_hostile --test inbox|not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
tty|src/tty/mod.rs|--lib --test tty_screen --test tty_pty --test tty_plain|all()
tty/render|src/tty/render.rs|--lib --test tty_screen --test tty_pty|all()
tty/terminal|src/tty/terminal.rs|--lib --test tty_screen --test tty_pty --test tty_plain|all()
tty/plain|src/tty/plain.rs|--lib --test tty_plain|all()
tty/bell|src/tty/bell.rs|--lib --test tty_pty --test tty_plain|all()
tty/sys/unix|src/tty/sys/unix.rs|--lib --test tty_screen --test tty_pty --test tty_plain --test tty_no_tty|all()
tty/sys|src/tty/sys/mod.rs|--lib --test tty_plain|all()
platform/paths|crates/platform/src/paths.rs|--lib --test setup --test inbox_tokens --test inbox --test mcp|kind(lib) | binary(setup) | binary(inbox_tokens) | test(/^(the_state_folder|fallback_web_open)/)
platform/files|crates/platform/src/files.rs|--lib --test setup --test inbox_tokens|all()
platform/net|crates/platform/src/net.rs|--lib --test web --test web_hostile|not test(/^browser_/)
platform/shell|crates/platform/src/shell.rs|--lib --test inbox|test(/notif|^platform::/)
platform/signals|crates/platform/src/signals.rs|--lib --test inbox --test web|not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
platform/process|crates/platform/src/process.rs|--lib --test inbox --test setup|not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
inbox/asker|crates/inbox/src/asker.rs|--lib --test inbox --test inbox_disk|not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
web|src/web.rs|--lib --test web --test web_hostile --test mcp_url|((kind(lib) | binary(web) | binary(web_hostile)) & not test(/^browser_/)) | test(/^a_decline_on_the_page/)
mcp|src/mcp/mod.rs|--lib --test mcp --test mcp_fallbacks|not test(/^(python_sdk|typescript_sdk)/)
mcp/result|src/mcp/result.rs|--lib --test mcp --test mcp_fallbacks|not test(/^(python_sdk|typescript_sdk)/)
mcp/wire|src/mcp/wire.rs|--lib --test mcp --test mcp_fallbacks|not test(/^(python_sdk|typescript_sdk)/)
mcp/server|src/mcp/server.rs|--lib --test mcp --test mcp_fallbacks --test mcp_app --test mcp_wait --test mcp_url|(not binary(mcp_app) & not binary(mcp_wait) & not binary(mcp_url) & not test(/^(python_sdk|typescript_sdk)/)) | test(/^(without_an_answer|a_client_without_the_extension|a_host_with_the_extension_shows|without_an_inbox_the_server_keeps|an_unknown_resume_id|a_request_state|a_failed_or_odd|a_cancelled_call)/)
mcp/fallback|src/mcp/fallback.rs|--lib --test mcp_fallbacks --test mcp_web|all()
mcp/progress|src/mcp/progress.rs|--lib --test mcp --test mcp_wait|not test(/^(python_sdk|typescript_sdk)/)
mcp/page|src/mcp/page.rs|--lib --test mcp --test mcp_fallbacks --test mcp_web --test mcp_wait|not test(/^(python_sdk|typescript_sdk)/)
mcp/http|src/mcp/http.rs|--lib --test mcp_http|all()
mcp/url|src/mcp/url.rs|--lib --test mcp_url --test mcp_fallbacks|all()
mcp/app|src/mcp/app.rs|--lib --test mcp_app|all()
inbox|crates/inbox/src/lib.rs|--lib --test team_inbox --test inbox_tokens --test inbox|test(/^inbox::tests::|^a_token_kept_in_the_store|^sigterm_drains|^a_token_added|^history_lists_every_outcome/)
platform/user|crates/platform/src/user.rs|--lib|all()
away|crates/inbox/src/away.rs|--lib --test hook --test inbox_rules|kind(lib) | binary(hook) | test(/^(a_while_away_rule|rule_and_away_commands)/)
hook|src/hook/mod.rs|--lib --test hook --test hosts_hooks|kind(lib) | binary(hook) | test(/^codex_and_gemini_events/)
hook/claude|src/hook/claude.rs|--lib --test hook|all()
hook/codex|src/hook/codex.rs|--lib --test hosts_hooks|kind(lib) | test(/codex/)
hook/gemini|src/hook/gemini.rs|--lib --test hosts_hooks|kind(lib) | test(/gemini/)
mcp/handover|src/mcp/handover.rs|--lib --test mcp_form_wait|all()
inbox/policy|crates/inbox/src/policy.rs|--lib --test inbox_escalation|kind(lib) | (binary(inbox_escalation) & not test(/^the_page_/))
inbox/contact|crates/inbox/src/contact.rs|--lib --test inbox_channels|kind(lib) | binary(inbox_channels)
inbox/statuses|crates/inbox/src/statuses.rs|--lib --test inbox_disk --test team_inbox|kind(lib) | binary(inbox_disk) | test(/^(a_read_only_database|postgres_stopped)/)
inbox/channels/policy_file|crates/inbox/src/channels/policy_file.rs|--lib --test inbox_escalation|kind(lib) | test(/^(a_bad_policy|an_edited_policy)/)
inbox/channels|crates/inbox/src/channels/mod.rs|--lib --test inbox_channels --test inbox_escalation|kind(lib) | binary(inbox_channels) | test(/^(a_question_to_a_person|two_postgres_replicas_announce)/)
inbox/channels/route|crates/inbox/src/channels/route.rs|--lib --test inbox_channels --test inbox_escalation|kind(lib) | binary(inbox_channels) | (binary(inbox_escalation) & not test(/^the_page_/))
inbox/channels/http|crates/inbox/src/channels/http.rs|--lib --test inbox_channels|all()
inbox/channels/webhook|crates/inbox/src/channels/webhook.rs|--lib --test inbox_channels|all()
inbox/channels/ntfy|crates/inbox/src/channels/ntfy.rs|--lib --test inbox_channels|all()
inbox/channels/slack|crates/inbox/src/channels/slack.rs|--lib --test inbox_channels|all()
inbox/channels/email|crates/inbox/src/channels/email.rs|--lib --test inbox_channels|all()
inbox/channels/smtp|crates/inbox/src/channels/smtp.rs|--lib --test inbox_channels|all()
inbox/channels/links|crates/inbox/src/channels/links.rs|--lib --test inbox_channels --test inbox_links|kind(lib) | binary(inbox_channels) | (binary(inbox_links) & not test(/real_browser|paired_phone/))
inbox/channels/matrix|crates/inbox/src/channels/matrix.rs|--lib --test inbox_matrix|all()
inbox/links|crates/inbox/src/links.rs|--lib --test inbox_links|kind(lib) | (binary(inbox_links) & not test(/real_browser/))
inbox/link_routes|crates/inbox/src/link_routes.rs|--lib --test inbox_links|kind(lib) | (binary(inbox_links) & not test(/real_browser/))
inbox/pair|crates/inbox/src/pair.rs|--lib --test phone --test inbox_links|kind(lib) | (binary(phone) & not test(/^an_emulated_phone/)) | test(/paired/)
inbox/phone|crates/inbox/src/phone.rs|--lib --test phone|kind(lib) | binary(phone)
inbox/hub/rules|crates/inbox/src/hub/rules/mod.rs|--lib --test inbox_rules|all()
input/routing|crates/core/src/input/routing.rs|--lib --test inbox_team --test input_errors|kind(lib) | binary(input_errors) | (binary(inbox_team) & not test(/^the_page_lists/))
inbox/hub/escalation|crates/inbox/src/hub/escalation.rs|--lib --test inbox_escalation|kind(lib) | (binary(inbox_escalation) & not test(/^the_page_/))
inbox/hub/rules/applying|crates/inbox/src/hub/rules/applying.rs|--lib --test inbox_rules|all()
inbox/hub/links|crates/inbox/src/hub/links.rs|--lib --test inbox_links|kind(lib) | (binary(inbox_links) & not test(/real_browser/))
inbox/hub/routing|crates/inbox/src/hub/routing.rs|--lib --test inbox_team|kind(lib) | (binary(inbox_team) & not test(/^the_page_lists/))
inbox/hub/votes|crates/inbox/src/hub/votes.rs|--lib --test inbox_team --test team_inbox|kind(lib) | binary(team_inbox) | (binary(inbox_team) & not test(/^the_page_lists/))
inbox/hub/leaving|crates/inbox/src/hub/leaving.rs|--lib --test team_inbox --test inbox|(kind(lib) | binary(team_inbox) | binary(inbox)) & not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
inbox/hub/listing|crates/inbox/src/hub/listing.rs|--lib --test team_inbox --test inbox|(kind(lib) | binary(team_inbox) | binary(inbox)) & not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
inbox/hub/provenance|crates/inbox/src/hub/provenance.rs|--lib --test team_inbox --test inbox|(kind(lib) | binary(team_inbox) | binary(inbox)) & not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
inbox/hub/sync|crates/inbox/src/hub/sync.rs|--lib --test team_inbox|all()
inbox/hub/text|crates/inbox/src/hub/text.rs|--lib --test team_inbox --test inbox|(kind(lib) | binary(team_inbox) | binary(inbox)) & not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
inbox/hub/waiting|crates/inbox/src/hub/waiting.rs|--lib --test team_inbox --test inbox|(kind(lib) | binary(team_inbox) | binary(inbox)) & not test(/^(browser_|python_sdk|typescript_sdk|the_page)/)
inbox/store/pool|crates/inbox/src/store/pool.rs|--lib --test store --test team_inbox|all()
inbox/store/tls|crates/inbox/src/store/tls.rs|--lib --test store_tls|all()
inbox/store/postgres/listen|crates/inbox/src/store/postgres/listen.rs|--lib --test store --test team_inbox|all()
inbox/store/postgres/schema|crates/inbox/src/store/postgres/schema.rs|--lib --test store|all()
inbox/store/postgres/session|crates/inbox/src/store/postgres/session.rs|--lib --test store|all()
server/blocking|crates/server/src/blocking.rs|--lib --test inbox_links --test inbox_channels|kind(lib) | binary(inbox_channels) | (binary(inbox_links) & not test(/real_browser/))
setup/hosts|src/setup/hosts.rs|--lib --test setup --test setup_hooks|(kind(lib) & test(/^setup::/)) | binary(setup) | (binary(setup_hooks) & not test(/^(claude_code_runs|claude_code_asks|codex_loads)/))
setup/paths|src/setup/paths.rs|--lib --test setup --test setup_hooks|(kind(lib) & test(/^setup::/)) | binary(setup) | (binary(setup_hooks) & not test(/^(claude_code_runs|claude_code_asks|codex_loads)/))
EOF
)
# What runs without module names: everything between a question's bytes and a
# document's bytes, and the guard every page's requests pass.
CORE="input answer prompt sanitize markdown text model web/submission mcp/form server/guard"
KNOWN=$(cut -d'|' -f1 <<<"$MODULES" | tr '\n' ' ')

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

in_diff=""
summary_only=""
modules=()
while [ $# -gt 0 ]; do
  case "$1" in
    --in-diff) [ $# -ge 2 ] || usage; in_diff=$2; shift 2 ;;
    --in-diff=*) in_diff=${1#--in-diff=}; shift ;;
    --list)
      printf '%-16s %-22s %s\n' module file 'tests (cargo targets; nextest filter)'
      while IFS='|' read -r name file targets filter; do
        printf '%-16s %-22s %s; %s\n' "$name" "$file" "$targets" "$filter"
      done <<<"$MODULES"
      exit 0 ;;
    --summary) summary_only=1; shift ;;
    -h | --help) usage ;;
    -*) echo "unknown option $1" >&2; usage ;;
    *) modules+=("$1"); shift ;;
  esac
done
[ ${#modules[@]} -gt 0 ] || read -r -a modules <<<"$CORE"
for module in "${modules[@]}"; do
  grep -q "^$module|" <<<"$MODULES" || { echo "unknown module $module (known: $KNOWN)" >&2; exit 2; }
done

# MUTANTS_WORK: another scratch folder, to run a second set of modules beside the first.
work=${MUTANTS_WORK:-$root/target/mutants}
version=$(cargo mutants --version 2>/dev/null || true)

run() {
  case "$version" in
    "cargo-mutants 27."*) ;;
    *) echo "needs cargo-mutants 27.x (cargo install cargo-mutants --locked); found: ${version:-none}" >&2; exit 2 ;;
  esac
  cargo nextest --version >/dev/null 2>&1 || { echo "needs cargo-nextest" >&2; exit 2; }

  tree=$work/tree
  mkdir -p "$work/out"
  if [ -n "$in_diff" ]; then
    if [ "$in_diff" = - ]; then cat >"$work/diff.patch"; else cp "$in_diff" "$work/diff.patch"; fi
    in_diff=$work/diff.patch
  fi

  . bench/scratch-tree.sh
  copy_tree "$tree"
  link_clients "$tree"

  export CARGO_TARGET_DIR=$tree/target
  # Mutants are meant to fail tests: debug info only slows every link.
  export CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0
  export CARGO_TERM_COLOR=never
  # .config/nextest.toml: a test a mutant hangs fails in 90 s (caught), not a timeout.
  export NEXTEST_PROFILE=mutants

  for module in "${modules[@]}"; do
    IFS='|' read -r _ file targets filter < <(grep "^$module|" <<<"$MODULES")
    # Flat names: the output of `setup` must not hold (and remove) that of `setup/json`.
    out=$work/out/${module//\//_}
    rm -rf "$out"
    mkdir -p "$out"
    args=(--in-place --dir "$tree" --file "$file" --output "$out" --no-times)
    for target in $targets; do args+=("--cargo-arg=$target"); done
    # The contract crate's mutants are caught mostly by the root package's tests
    # (through the binary): test the whole workspace, not only the mutated crate.
    case "$file" in crates/*) args+=(--test-workspace=true) ;; esac
    [ -z "$in_diff" ] || args+=(--in-diff "$in_diff")
    # A big module split between two folders (or sessions): cargo-mutants' consecutive slices.
    [ -z "${MUTANTS_SHARD:-}" ] || args+=(--shard "$MUTANTS_SHARD")
    # Lines only a Windows build compiles: not mutable here (docs/mutants.md).
    windows=$(python3 bench/windows-lines.py "$file")
    [ -z "$windows" ] || args+=(--exclude-re "$windows")
    echo "== $module ($file): $targets; $filter${windows:+; without its Windows-only lines}"
    module_started=$(date +%s)
    # Exit 2 means some mutants were missed, 3 timeouts: the summary reports both.
    nice -n 10 cargo mutants "${args[@]}" -- -E "$filter" || { rc=$?; [ $rc = 2 ] || [ $rc = 3 ]; }
    echo "$(($(date +%s) - module_started))" >"$out/seconds"
  done
}

summary() {
  # Missed mutants that docs/mutants.md explains: its lines "- `NAME` — why".
  explained=$(grep -o '^- `[^`]*`' docs/mutants.md | sed 's/^- `//; s/`$//' || true)
  printf '\n%-16s %6s %6s %6s %7s %8s %7s %6s\n' module total caught missed timeout unviable caught% secs
  unexplained=0
  totals=(0 0 0 0 0 0)
  for module in "${modules[@]}"; do
    result=$work/out/${module//\//_}/mutants.out/outcomes.json
    [ -f "$result" ] || { printf '%-16s (no result)\n' "$module"; unexplained=1; continue; }
    read -r total caught missed timeout unviable < <(jq -r \
      '[.total_mutants, .caught, .missed, .timeout, .unviable] | @tsv' "$result")
    viable=$((caught + missed + timeout))
    pct=$(awk -v c="$caught" -v v="$viable" 'BEGIN { printf "%.1f", v ? 100 * c / v : 100 }')
    seconds=$(cat "$work/out/${module//\//_}/seconds")
    printf '%-16s %6s %6s %6s %7s %8s %7s %6s\n' "$module" "$total" "$caught" "$missed" \
      "$timeout" "$unviable" "$pct" "$seconds"
    totals=($((totals[0] + total)) $((totals[1] + caught)) $((totals[2] + missed)) \
      $((totals[3] + timeout)) $((totals[4] + unviable)) $((totals[5] + seconds)))
    # Names are compared without their line and column, which move with every edit.
    while IFS= read -r name; do
      [ -n "$name" ] || continue
      if ! grep -qxF "$(sed -E 's/^([^:]+):[0-9]+:[0-9]+: /\1: /' <<<"$name")" <<<"$explained"; then
        echo "  missed, not listed as equivalent in docs/mutants.md: $name"
        unexplained=1
      fi
    done <"$work/out/${module//\//_}/mutants.out/missed.txt"
  done
  viable=$((totals[1] + totals[2] + totals[3]))
  printf '%-16s %6s %6s %6s %7s %8s %7s %6s\n' all "${totals[0]}" "${totals[1]}" "${totals[2]}" \
    "${totals[3]}" "${totals[4]}" \
    "$(awk -v c="${totals[1]}" -v v="$viable" 'BEGIN { printf "%.1f", v ? 100 * c / v : 100 }')" \
    "${totals[5]}"
  echo "$version; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  exit "$unexplained"
}

# One compound command, read whole before it runs: editing this file during a run is safe.
{
  [ -n "$summary_only" ] || run
  summary
  exit
}
