#!/usr/bin/env bash
# What tests/web.rs needs for the browser tests: Debian's chromium (a real
# headless browser) and the npm packages pinned in tests/web/package-lock.json
# (playwright-core drives the browser, axe-core checks accessibility).
# playwright-core downloads no browser: the tests use /usr/bin/chromium.
# Quiet on success: apt's and npm's logs are shown only when they fail.
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quietly() { "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }

if ! command -v chromium >/dev/null 2>&1; then
    quietly apt-get update
    quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        chromium fonts-dejavu-core
fi

cd tests/web
# A linked install (a shared one) is replaced by this folder's own, never emptied.
if [ -L node_modules ]; then rm node_modules; fi
quietly npm ci --no-audit --no-fund --loglevel=error
