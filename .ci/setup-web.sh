#!/usr/bin/env bash
# What tests/web.rs needs for the browser tests: Debian's chromium (a real
# headless browser) and the npm packages pinned in tests/web/package-lock.json
# (playwright-core drives the browser, axe-core checks accessibility).
# playwright-core downloads no browser: the tests use /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        chromium fonts-dejavu-core
fi

cd tests/web
npm ci --no-audit --no-fund --loglevel=error
