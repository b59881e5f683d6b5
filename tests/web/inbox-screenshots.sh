#!/usr/bin/env bash
# Regenerates docs/inbox-light.png and docs/inbox-dark.png: the inbox page with
# three pending questions from three askers, in headless Chromium, light and
# dark. Needs what .ci/setup-web.sh installs. The askers run in
# /tmp/demo/project (scripts/pictures/demo.sh): the page shows each asker's
# folder, and the pictures are taken only once every one is that folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${ASK_USER_BIN:-$("$root/scripts/build-release")}
# shellcheck source=scripts/pictures/demo.sh
. "$root/scripts/pictures/demo.sh"
tmp=$(mktemp -d)
export ASK_USER_STATE_DIR="$tmp/state"
unset ASK_USER_INBOX ASK_USER_TOKEN
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
    demo_leave
}
trap cleanup EXIT
demo_enter

"$bin" inbox --port 0 2>"$tmp/inbox.err" &
pids+=($!)
until grep -q "http://" "$tmp/inbox.err" 2>/dev/null; do sleep 0.05; done

(cd "$root/tests/web" && node drive.mjs inbox-screenshot "$tmp/url" "$root/docs/inbox-{scheme}.png") &
driver=$!

# Three askers, one after the other (the page lists them oldest first).
ask() {
    local source=$1 input=$2
    shift 2
    # Counted before the asker starts: a fast one may say "question" at once.
    local want=$(( $(grep -c "question " "$tmp/askers.err" 2>/dev/null || true) + 1 ))
    printf '%s' "$input" | ASK_USER_SOURCE="$source" "$bin" ask --ui inbox "$@" - \
        >/dev/null 2>>"$tmp/askers.err" &
    local asker=$!
    pids+=("$asker")
    until [ "$(grep -c "question " "$tmp/askers.err" 2>/dev/null || true)" -ge "$want" ]; do
        kill -0 "$asker" 2>/dev/null || { cat "$tmp/askers.err" >&2; exit 1; }
        sleep 0.05
    done
}
: >"$tmp/askers.err"
ask claude-code '{"question":"Which database should the service use?","context":"The agent is about to write the data layer.","options":[{"label":"PostgreSQL","description":"A server; best for many writers.","recommended":true},{"label":"SQLite","description":"One file, no server."}]}' --timeout 600
ask codex "$(cat "$root/tests/web/every-kind.json")" --timeout 1200
ask amp '{"question":"Delete the old migration files?","type":"confirm","default":"no"}'

# Every asker is listed from the demo folder, and nothing else shows a folder.
"$bin" inbox list >"$tmp/list.json"
if [ "$(grep -c . "$tmp/list.json")" -ne 3 ] \
    || [ "$(grep -c "\"cwd\":\"$ASK_USER_DEMO_DIR\"" "$tmp/list.json")" -ne 3 ]; then
    echo "inbox-screenshots.sh: the askers are not all in $ASK_USER_DEMO_DIR:" >&2
    cat "$tmp/list.json" >&2
    exit 1
fi
demo_check "$tmp/list.json"
grep -o 'http://[^ ]*' "$tmp/inbox.err" | head -n 1 >"$tmp/url.part"
mv "$tmp/url.part" "$tmp/url"
wait "$driver"
ls -l "$root"/docs/inbox-*.png
