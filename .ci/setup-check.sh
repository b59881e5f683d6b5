#!/usr/bin/env bash
# For tests/schemas.rs: Python's jsonschema (pinned), the independent validator
# of schemas/*.json. Idempotent: does nothing when the pinned version is there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/pip-pinned.sh tests/schema/requirements.txt
