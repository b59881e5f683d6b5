#!/usr/bin/env bash
# Installs a requirements file's pinned Python packages into python3, unless
# every pinned version is there already. Used by the .ci/setup-*.sh scripts.
set -euo pipefail
requirements=$1
if python3 - "$requirements" <<'PY' 2>/dev/null; then exit 0; fi
import importlib.metadata, sys
pins = [l.split("==") for l in open(sys.argv[1]) if "==" in l and not l.startswith("#")]
sys.exit(any(importlib.metadata.version(n.strip()) != v.strip() for n, v in pins))
PY
pip=(python3 -m pip install --quiet --disable-pip-version-check -r "$requirements")
# Debian's own Python refuses system-wide installs (PEP 668) unless told.
"${pip[@]}" || "${pip[@]}" --break-system-packages
