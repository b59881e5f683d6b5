#!/usr/bin/env bash
# Regenerates docs/phone.png: the inbox on a paired phone (tests/web/phone.mjs:
# headless Chromium emulating a 360 x 740 phone), a two-question form with its
# first question half answered. Needs what .ci/setup-web.sh installs. The
# asker runs in /tmp/demo/project as claude-code (scripts/pictures/demo.sh),
# as for the inbox pictures: the card shows the asker's name and folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${ASK_USER_BIN:-$("$root/scripts/build-release")}
# shellcheck source=scripts/pictures/demo.sh
. "$root/scripts/pictures/demo.sh"
tmp=$(mktemp -d)
export ASK_USER_STATE_DIR="$tmp/state"
unset ASK_USER_INBOX ASK_USER_TOKEN
public=https://inbox.example.test
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
    demo_leave
}
trap cleanup EXIT
demo_enter

# Reachable as a phone needs it (a pretend proxy's public URL); the phone
# opens the link on loopback, a secure context for its service worker.
"$bin" inbox --listen 127.0.0.1:0 --behind-proxy --public-url "$public" 2>"$tmp/inbox.err" &
pids+=($!)
until [ -s "$ASK_USER_STATE_DIR/inbox.json" ]; do sleep 0.05; done
local_url=$(sed -n 's/.*"url":"\(http:\/\/[^"]*\)".*/\1/p' "$ASK_USER_STATE_DIR/inbox.json")

form='{"title":"Before the release","questions":[
  {"question":"Which transports?","type":"multi-select","options":["HTTP","gRPC","WebSocket"],"allow_other":true},
  {"question":"Ship it today?","options":["yes","no"]}]}'
printf '%s' "$form" | ASK_USER_SOURCE=claude-code "$bin" ask --ui inbox - \
    >"$tmp/answer.json" 2>"$tmp/asker.err" &
asker=$!
pids+=("$asker")
until grep -q "question " "$tmp/asker.err" 2>/dev/null; do
    kill -0 "$asker" 2>/dev/null || { cat "$tmp/asker.err" >&2; exit 1; }
    sleep 0.05
done
"$bin" inbox list >"$tmp/list.json"
if ! grep -q "\"cwd\":\"$ASK_USER_DEMO_DIR\"" "$tmp/list.json"; then
    echo "phone-screenshot.sh: the asker is not in $ASK_USER_DEMO_DIR:" >&2
    cat "$tmp/list.json" >&2
    exit 1
fi
demo_check "$tmp/list.json"

link=$("$bin" inbox pair pixel 2>/dev/null | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
(cd "$root/tests/web" && node phone.mjs "${link/$public/$local_url}" - "$root/docs/phone.png")
wait "$asker"
grep -q '"NATS"' "$tmp/answer.json" || { cat "$tmp/answer.json" >&2; exit 1; }
ls -l "$root/docs/phone.png"
