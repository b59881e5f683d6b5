#!/usr/bin/env bash
# Installs a real Matrix homeserver and a real Matrix client for
# tests/inbox_matrix.rs (the `--notify-to matrix=…` channel): Synapse
# (matrix-synapse) and matrix-nio, pinned in tests/matrix/requirements.txt,
# into tests/matrix/.venv (about 275 MB, a minute on a warm network).
# tests/common/matrix.rs starts Synapse from there on loopback, with SQLite,
# in a scratch folder. Idempotent: a second run only checks the pins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here/tests/matrix"
# A linked install (a shared one) is replaced by this folder's own, never changed.
if [ -L .venv ]; then rm .venv; fi

if [ ! -x .venv/bin/python ]; then
    if ! python3 -m venv .venv 2>/dev/null; then
        # Debian's python3 ships venv separately.
        rm -rf .venv
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv .venv
    fi
fi
# Only when a pinned version is missing or different (pip would otherwise
# ask the index on every run).
if ! .venv/bin/python - requirements.txt <<'PY' 2>/dev/null; then
import importlib.metadata, sys
pins = [l.split("==") for l in open(sys.argv[1]) if "==" in l and not l.startswith("#")]
sys.exit(any(importlib.metadata.version(n.strip()) != v.strip() for n, v in pins))
PY
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
fi
# The pins are what is installed, and both import.
.venv/bin/python - requirements.txt <<'PY'
import importlib.metadata, sys
for line in open(sys.argv[1]):
    if "==" in line and not line.startswith("#"):
        name, version = (part.strip() for part in line.split("=="))
        found = importlib.metadata.version(name)
        if found != version:
            sys.exit(f"setup-matrix: {name} is {found}, not the pinned {version}")
import synapse.app.homeserver, nio  # noqa: F401
PY
