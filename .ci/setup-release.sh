#!/usr/bin/env bash
# For tests/dist/release.rs (install.sh, Homebrew, pre-commit, the workflows)
# and tests/completions.rs: Debian's shellcheck (install.sh and the scripts
# of action.yml; actionlint runs it on the workflows' run: blocks), ruby
# (`ruby -c` on the formula), zsh and fish (the completion scripts load in
# them), man-db and bash-completion (install.sh's man pages and completions
# are found where it puts them), and the pinned Python tools of .ci/release-requirements.txt
# (pre-commit, check-jsonschema, actionlint).
# Debian 12's packages are fixed within the release, so apt is not pinned
# further. Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for tool in shellcheck:shellcheck ruby:ruby zsh:zsh fish:fish groff:groff man:man-db; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
# bash-completion's loader, which finds install.sh's completions under the
# XDG data folder (tests/dist/release.rs); a file, not a command.
[ -f /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
if [ ${#missing[@]} -ne 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
bash .ci/pip-pinned.sh .ci/release-requirements.txt
