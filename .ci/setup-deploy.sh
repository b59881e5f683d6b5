#!/usr/bin/env bash
# For tests/deploy.rs: systemd-analyze (Debian's systemd package), which
# verifies deploy/ask_user-inbox.service. Idempotent: installs only what is missing.
set -euo pipefail
command -v systemd-analyze >/dev/null ||
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null; }
