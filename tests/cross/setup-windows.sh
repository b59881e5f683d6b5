#!/usr/bin/env bash
# `ask_user setup` on Windows, into a temporary profile: ask_user.exe under wine
# (through the wrapper .ci/cross writes around tests/cross/wine-run), with
# APPDATA and USERPROFILE pointing into a temporary folder. tests/setup.rs checks
# the Unix folders (HOME, XDG_CONFIG_HOME); this checks the Windows ones
# (DESIGN §15): Claude Desktop and VS Code under %APPDATA%, Cursor under
# %USERPROFILE%; a second run changes nothing; --remove takes the entry out;
# nothing lands in the wine prefix's own profile.
#
#   tests/cross/setup-windows.sh WRAPPER
#
# Prints libtest's closing line, so .ci/cross counts these like the others.
set -u
bin=${1:?usage: tests/cross/setup-windows.sh WRAPPER}
tmp=$(mktemp -d /tmp/ask_user-setup-windows.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export APPDATA="$tmp/Roaming" USERPROFILE="$tmp/home"
unset HOME XDG_CONFIG_HOME CODEX_HOME CLAUDE_CONFIG_DIR TOOLBOX_ACTION
mkdir -p "$APPDATA" "$USERPROFILE"
passed=0 failed=0
result() { # name status detail
  if [ "$2" -eq 0 ]; then
    echo "test $1 ... ok"
    passed=$((passed + 1))
  else
    echo "test $1 ... FAILED"
    printf '  %s\n' "$3"
    failed=$((failed + 1))
  fi
}
# The entry names ask_user.exe by its Windows path, as current_exe gives it.
has_entry() { # file key
  python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8-sig"))
entry = doc[sys.argv[2]]["ask_user"]
assert entry["command"].lower().endswith("ask_user.exe"), entry
PY
}

for case in "claude-desktop $APPDATA/Claude/claude_desktop_config.json mcpServers" \
            "vscode $APPDATA/Code/User/mcp.json servers" \
            "cursor $USERPROFILE/.cursor/mcp.json mcpServers"; do
  read -r host file key <<<"$case"
  out=$("$bin" setup "$host" 2>&1)
  code=$?
  if [ "$code" -eq 0 ] && [ -f "$file" ] && detail=$(has_entry "$file" "$key" 2>&1); then
    result "setup_${host//-/_}_writes_under_the_windows_profile" 0 ""
  else
    result "setup_${host//-/_}_writes_under_the_windows_profile" 1 \
      "exit $code; ${file#"$tmp"/} $([ -f "$file" ] && echo exists || echo missing); $out ${detail:-}"
    continue
  fi
  before=$(cat "$file")
  out=$("$bin" setup "$host" 2>&1)
  code=$?
  [ "$code" -eq 0 ] && [ "$(cat "$file")" = "$before" ]
  result "setup_${host//-/_}_twice_changes_nothing" $? "exit $code; $out"
done

out=$("$bin" setup --list 2>&1)
code=$?
case "$out" in *claude-desktop*) ok=0 ;; *) ok=1 ;; esac
[ "$code" -eq 0 ] || ok=1
result setup_list_names_the_hosts "$ok" "exit $code; $out"

file="$APPDATA/Claude/claude_desktop_config.json"
out=$("$bin" setup --remove claude-desktop 2>&1)
code=$?
! grep -q '"ask_user"' "$file" 2>/dev/null && [ "$code" -eq 0 ]
result setup_remove_takes_the_entry_out "$?" "exit $code; $out; $(cat "$file" 2>/dev/null)"

# Nothing in the prefix's own profile: the temporary one was used.
prefix="${ASK_USER_CROSS:-/var/cache/ask_user-cross}/sid/w/wineprefix-tests/drive_c/users"
stray=$(find "$prefix" \( -path '*/Claude/claude_desktop_config.json' -o -path '*/Code/User/mcp.json' -o -path '*/.cursor/mcp.json' \) 2>/dev/null | head -n 3)
[ -z "$stray" ]
result setup_writes_nothing_in_the_wine_profile "$?" "found: $stray"

status=ok
[ "$failed" -eq 0 ] || status=FAILED
echo
echo "test result: $status. $passed passed; $failed failed; 0 ignored; 0 measured; 0 filtered out"
[ "$failed" -eq 0 ]
