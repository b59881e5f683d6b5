#!/usr/bin/env bash
# The npm launcher's cost on execute: `TOOLBOX_ACTION=execute` on
# bench/four-options.json through the installed `ask_user` command of the npm
# package (packaging/npm/ask-user/bin/ask_user.js, run by Node) against the
# native binary it runs, interleaved run by run in one process so that all
# see the same machine load; medians and ratios. Also timed: Node starting
# with an empty script (what any npm launcher pays), and the launcher under
# the Node 22 of tests/hosts (.ci/setup-hosts.sh), where process.execve
# replaces Node with the binary, when it is there.
#   bench/launcher.sh            # 300 runs each
#   bench/launcher.sh 1000
# Builds the release binary and the npm packages, and installs them offline
# into a temporary prefix (removed afterwards).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs=${1:-300}
binary=${ASK_USER_BIN:-$(scripts/build-release)}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
target=$(rustc -vV | sed -n 's/^host: //p')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

packaging/npm/build "$work/out" "$binary" "$version" "$target"
npm_config_cache="$work/cache" npm_config_userconfig="$work/npmrc" npm_config_update_notifier=false \
  npm install -g --offline --no-audit --no-fund --registry http://127.0.0.1:9/ --loglevel=error \
  --prefix "$work/prefix" "$work"/out/npm/ask-user-*-"$version".tgz "$work/out/npm/ask-user-$version.tgz" >/dev/null
native=$(echo "$work"/prefix/lib/node_modules/@ask-user/*/bin/ask_user)

node22="$root/tests/hosts/node_modules/.bin"
[ -x "$node22/node" ] || node22=""
python3 "$root/bench/launcher_bench.py" "$native" "$work/prefix/bin/ask_user" \
  "$root/bench/four-options.json" "$runs" "$node22"
