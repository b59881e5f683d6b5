#!/usr/bin/env bash
# Regenerates docs/web-light.png and docs/web-dark.png: the every-kind form
# (tests/web/every-kind.json) in headless Chromium, light and dark.
# Needs what .ci/setup-web.sh installs.
# Runs in /tmp/demo/project (scripts/pictures/demo.sh), as scripts/screenshots does.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${ASK_USER_BIN:-$("$root/scripts/build-release")}
# shellcheck source=scripts/pictures/demo.sh
. "$root/scripts/pictures/demo.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; demo_leave' EXIT
demo_enter
cp "$root/tests/web/every-kind.json" service.json

(cd "$root/tests/web" && node drive.mjs screenshot "$tmp/url" "$root/docs/web-{scheme}.png") &
driver=$!
"$bin" ask --ui web service.json >"$tmp/answer.json" 2>"$tmp/stderr" &
page=$!
until grep -q "http://" "$tmp/stderr"; do
    kill -0 "$page" 2>/dev/null || { cat "$tmp/stderr" >&2; exit 1; }
    sleep 0.05
done
grep -o 'http://[^ ]*' "$tmp/stderr" >"$tmp/url.part"
mv "$tmp/url.part" "$tmp/url"
wait "$driver"
wait "$page" || [ $? -eq 130 ] # the driver cancels once the pictures are taken
rm -f service.json
ls -l "$root"/docs/web-*.png
