#!/usr/bin/env bash
# For tests/deploy.rs: systemd-analyze (Debian's systemd package), which
# verifies deploy/ask_user-inbox.service. Idempotent: installs only what is missing.
set -euo pipefail
command -v systemd-analyze >/dev/null ||
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null; }
# For tests/past_loopback.rs: network namespaces (iproute2), a test CA
# (openssl) and a real reverse proxy that terminates TLS (Caddy, bookworm's 2.6).
# The package's own service is not started (no systemd here; nothing listens).
missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v openssl >/dev/null || missing+=(openssl)
command -v caddy >/dev/null || missing+=(caddy)
# deploy/compose/compose.yaml is checked with `docker-compose config` (no daemon needed).
command -v docker-compose >/dev/null || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
