#!/usr/bin/env bash
# What scripts/dist's PyPI, MCP bundle and registry steps and their tests
# (tests/dist) run, at pinned versions: uv, pipx, check-jsonschema and maturin
# from PyPI (packaging/requirements.txt), Python's venv, and the official MCP
# bundle CLI, @anthropic-ai/mcpb, from npm (packaging/package-lock.json) into
# packaging/node_modules. Idempotent and quiet: a second run only checks the
# pins; logs are shown only when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quietly() { "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }

bash .ci/pip-pinned.sh packaging/requirements.txt

# The wheel's test installs it into a fresh venv; Debian's python3 ships venv
# (and the ensurepip it needs) separately.
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    quietly apt-get update
    quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
fi

# npm ci empties node_modules first: skip it when the pinned CLI is in place.
pinned=$(sed -n 's/.*"@anthropic-ai\/mcpb": "\(.*\)".*/\1/p' packaging/package.json)
mcpb=packaging/node_modules/.bin/mcpb
if [ -L packaging/node_modules ]; then rm packaging/node_modules; fi
if [ ! -x "$mcpb" ] || [ "$("$mcpb" --version 2>/dev/null)" != "$pinned" ] \
    || [ packaging/package-lock.json -nt packaging/node_modules/.package-lock.json ]; then
    quietly npm ci --prefix packaging --no-audit --no-fund --loglevel=error
fi
