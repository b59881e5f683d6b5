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
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

npm ci --no-audit --no-fund --loglevel=error >/dev/null
