#!/usr/bin/env bash
# Installs the real MCP clients that tests/mcp.rs drives: the official Python
# SDK into tests/mcp/.venv and the official TypeScript SDK into
# tests/mcp/node_modules. Idempotent: a second run only checks the pins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here/tests/mcp"

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

npm ci --silent --no-audit --no-fund
