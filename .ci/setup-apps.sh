#!/usr/bin/env bash
# Installs the MCP Apps host that tests/mcp_app.rs drives: ext-apps' host side
# (AppBridge) and the MCP TypeScript SDK client, pinned in
# tests/apps/package-lock.json, into tests/apps/node_modules. Chromium and
# playwright-core come from tests/web (.ci/setup-web.sh).
# Idempotent; quiet on success: npm's log is shown only when it fails.
set -euo pipefail
cd "$(dirname "$0")/../tests/apps"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A linked install (a shared one) is replaced by this folder's own, never emptied.
if [ -L node_modules ]; then rm node_modules; fi
npm ci --no-audit --no-fund --loglevel=error >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
