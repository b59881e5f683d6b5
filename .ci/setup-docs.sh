#!/usr/bin/env bash
# The guide's site: installs mkdocs-material, pinned with everything it pulls in
# (.ci/docs-requirements.txt), into target/docs-venv, then builds the site with
# `mkdocs build --strict` into target/site. Strict mode fails on any warning:
# a link to a missing page or anchor (mkdocs.yml's validation), a page left out
# of the nav. So .ci/run, which runs every .ci/setup-*.sh, checks the docs.
# Idempotent: a second run only checks the pins, then builds again (seconds).
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quietly() { "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }

venv=target/docs-venv
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian's python3 ships venv separately.
        rm -rf "$venv"
        quietly apt-get update
        quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
        python3 -m venv "$venv"
    fi
fi
quietly "$venv/bin/python" -m pip install --disable-pip-version-check -r .ci/docs-requirements.txt

# NO_MKDOCS_2_WARNING: mkdocs-material's banner about its successor, not a
# finding about these docs.
NO_MKDOCS_2_WARNING=1 "$venv/bin/mkdocs" build --strict --quiet
echo "docs: mkdocs build --strict: no warnings; site in target/site"
