#!/usr/bin/env bash
# For tests/python_lib.rs, the Python library `import ask_user`
# (packaging/pypi/ask_user): pytest and mypy (pinned in
# tests/python/requirements.txt) into tests/python/.venv, and pyright (pinned
# in tests/python/package-lock.json) into tests/python/node_modules.
# Idempotent: a second run only checks the pins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here/tests/python"
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
# Installs only when a pinned version is missing (seconds when all are there).
if ! .venv/bin/python - requirements.txt <<'PY' 2>/dev/null; then
import importlib.metadata, sys
pins = [l.split("==") for l in open(sys.argv[1]) if "==" in l and not l.startswith("#")]
sys.exit(any(importlib.metadata.version(n.strip()) != v.strip() for n, v in pins))
PY
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
fi

# npm ci empties node_modules first: only when the installed pyright is not the lock's.
version() { node -p "$1" 2>/dev/null || true; }
locked=$(version 'require("./package-lock.json").packages["node_modules/pyright"].version')
installed=$(version 'require("./node_modules/pyright/package.json").version')
if [ -z "$installed" ] || [ "$installed" != "$locked" ]; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
