#!/usr/bin/env bash
# For the store's tests on PostgreSQL (tests/store.rs, tests/common/postgres.rs):
# Debian's PostgreSQL server programs (bookworm: PostgreSQL 15). The tests start
# their own server in a temporary folder as an unprivileged user; the package's
# own cluster is not created (nothing listens on 5432 because of this script).
# Idempotent: installs only what is missing.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  exit 0
fi
mkdir -p /etc/postgresql-common
[ -e /etc/postgresql-common/createcluster.conf ] ||
  echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
ls /usr/lib/postgresql/*/bin/initdb
