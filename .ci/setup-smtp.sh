#!/usr/bin/env bash
# The real SMTP server tests/inbox_channels.rs delivers `--notify-to email=` to:
# aiosmtpd (tests/smtp/requirements.txt, pinned) in tests/smtp/.venv.
# Idempotent: a second run only checks the pins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here/tests/smtp"
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
.venv/bin/python -c 'import aiosmtpd; print("aiosmtpd", aiosmtpd.__version__)'
