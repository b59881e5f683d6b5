#!/bin/sh
# install.sh: installs ask_user from a release archive, checked against the
# release's SHA256SUMS, into ~/.local/bin (or --to DIR), and the archive's
# shell completions and man pages under ~/.local/share (or $XDG_DATA_HOME,
# or --data-dir DIR).
#
#   curl -fsSL https://github.com/ask-user/ask_user/releases/latest/download/install.sh | sh
#   curl -fsSL https://github.com/ask-user/ask_user/releases/latest/download/install.sh | sh -s -- --to /usr/local/bin
#
# Options:
#   --to DIR       install ask_user into DIR (default: ~/.local/bin)
#   --data-dir DIR install the completions and man pages under DIR
#                  (default: $XDG_DATA_HOME, else ~/.local/share)
#   --version V    install release V (e.g. 0.1.0) instead of the latest
#   -h, --help     print this help
#
# Environment:
#   ASK_USER_INSTALL_URL   the folder that holds SHA256SUMS and the archives
#                          (default: the GitHub release of V, or the latest)
#
# It downloads SHA256SUMS, finds the archive for this platform in it
# (ask_user-VERSION-TARGET.tar.gz), downloads that, and installs nothing
# unless its sha256 is the one listed. The binary is put in place by a rename
# in DIR, so a running ask_user is never half-written. Then the archive's
# completions and man pages go where the shells and man look for a user's
# own, below the data folder:
#   bash-completion/completions/ask_user   (bash-completion 2 loads it)
#   zsh/site-functions/_ask_user           (zsh: once that folder is on fpath)
#   fish/vendor_completions.d/ask_user.fish
#   man/man1/ask_user*.1                   (man finds it beside ~/.local/bin)
# It says where it put each. `ask_user completions bash|zsh|fish` prints a
# completion script at any time.
#
# POSIX sh (dash, bash, zsh, busybox ash), because `curl | sh` runs whatever
# sh is. Needs curl or wget, tar, and sha256sum or shasum.
set -eu

repository="https://github.com/ask-user/ask_user"
me="ask_user install"

say() { printf '%s: %s\n' "$me" "$*" >&2; }
fail() {
  printf '%s: error: %s\n' "$me" "$*" >&2
  exit 1
}
usage() { sed -n '2,/^set -eu/p' "$0" 2>/dev/null | sed '$d; s/^# \{0,1\}//'; }

to=""
data=""
version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --to)
      [ $# -ge 2 ] || { say "--to needs a folder (e.g. --to ~/.local/bin)"; exit 2; }
      to=$2
      shift 2
      ;;
    --to=*) to=${1#--to=}; shift ;;
    --data-dir)
      [ $# -ge 2 ] || { say "--data-dir needs a folder (e.g. --data-dir ~/.local/share)"; exit 2; }
      data=$2
      shift 2
      ;;
    --data-dir=*) data=${1#--data-dir=}; shift ;;
    --version)
      [ $# -ge 2 ] || { say "--version needs a version (e.g. --version 0.1.0)"; exit 2; }
      version=$2
      shift 2
      ;;
    --version=*) version=${1#--version=}; shift ;;
    -h | --help)
      # Piped into sh, $0 is not this file: print the short form.
      usage || true
      [ -f "$0" ] || printf 'usage: install.sh [--to DIR] [--data-dir DIR] [--version V]   (env: ASK_USER_INSTALL_URL)\n'
      exit 0
      ;;
    *) say "unknown argument $1 (usage: install.sh [--to DIR] [--data-dir DIR] [--version V] [--help])"; exit 2 ;;
  esac
done
version=${version#v}
case "$version" in
  *[!0-9A-Za-z.+-]*) say "--version takes a version like 0.1.0, not $version"; exit 2 ;;
esac
[ -n "$to" ] || to="${HOME:?HOME is not set; give --to DIR}/.local/bin"
[ -n "$data" ] || data=${XDG_DATA_HOME:-${HOME:+$HOME/.local/share}}

# The Rust target triple of the archive built for this machine (what the
# release workflow builds). Linux binaries are static, so glibc and musl
# systems take the same one.
detect_target() {
  os=$(uname -s)
  cpu=$(uname -m)
  case "$cpu" in
    x86_64 | amd64) cpu=x86_64 ;;
    aarch64 | arm64) cpu=aarch64 ;;
    *) cpu="unsupported:$cpu" ;;
  esac
  # An x86_64 shell under Rosetta on an Apple silicon Mac: take the native build.
  if [ "$os" = Darwin ] && [ "$cpu" = x86_64 ] &&
    [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    cpu=aarch64
  fi
  case "$os/$cpu" in
    Linux/x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux/aarch64) echo aarch64-unknown-linux-gnu ;;
    Darwin/x86_64) echo x86_64-apple-darwin ;;
    Darwin/aarch64) echo aarch64-apple-darwin ;;
    *) return 1 ;;
  esac
}
if ! target=$(detect_target); then
  fail "no release archive for this platform ($(uname -s) $(uname -m)): archives exist for Linux and macOS on x86_64 and aarch64; install another way (npm, PyPI, cargo): $repository#install"
fi

if [ -n "${ASK_USER_INSTALL_URL:-}" ]; then
  base=${ASK_USER_INSTALL_URL%/}
elif [ -n "$version" ]; then
  base="$repository/releases/download/v$version"
else
  base="$repository/releases/latest/download"
fi

if command -v curl >/dev/null 2>&1; then
  download() { curl --fail --silent --show-error --location --output "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  download() { wget --quiet --output-document="$2" "$1"; }
else
  fail "neither curl nor wget is installed: install one of them and run this again"
fi
if command -v sha256sum >/dev/null 2>&1; then
  sha256_of() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256_of() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
  fail "neither sha256sum nor shasum is installed, so the download cannot be checked: install coreutils (or perl's shasum)"
fi

work=$(mktemp -d 2>/dev/null || mktemp -d -t ask_user)
staged=""
cleanup() {
  rm -rf "$work"
  if [ -n "$staged" ]; then rm -f "$staged"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

download "$base/SHA256SUMS" "$work/SHA256SUMS" ||
  fail "could not download $base/SHA256SUMS (is the version right? set ASK_USER_INSTALL_URL to another release folder)"

# The archive's line in SHA256SUMS ("HASH  NAME", or "HASH *NAME").
if [ -n "$version" ]; then
  archive="ask_user-$version-$target.tar.gz"
  listed=$(awk -v name="$archive" '{ file = $2; sub(/^\*/, "", file) } file == name { print $1 " " file; exit }' "$work/SHA256SUMS")
else
  listed=$(awk -v suffix="-$target.tar.gz" '{ file = $2; sub(/^\*/, "", file) }
    file ~ /^ask_user-[^\/]*$/ && substr(file, length(file) - length(suffix) + 1) == suffix { print $1 " " file; exit }' "$work/SHA256SUMS")
fi
[ -n "$listed" ] ||
  fail "$base/SHA256SUMS lists no archive for $target${version:+ version $version}: this release has no build for this platform"
expected=${listed%% *}
archive=${listed#* }
case "$archive" in
  */* | .*) fail "$base/SHA256SUMS names an unexpected file ($archive): refusing it" ;;
esac
name=${archive%.tar.gz}

say "downloading $base/$archive"
download "$base/$archive" "$work/$archive" || fail "could not download $base/$archive"
actual=$(sha256_of "$work/$archive")
if [ "$actual" != "$expected" ]; then
  fail "checksum mismatch for $archive: SHA256SUMS says $expected, the download is $actual; nothing was installed (try again; if it persists, report it)"
fi

mkdir "$work/unpacked"
tar -xzf "$work/$archive" -C "$work/unpacked" || fail "could not unpack $archive"
binary="$work/unpacked/$name/ask_user"
[ -f "$binary" ] || fail "$archive holds no $name/ask_user"
for file in completions/ask_user.bash completions/_ask_user completions/ask_user.fish man/ask_user.1; do
  [ -f "$work/unpacked/$name/$file" ] || fail "$archive holds no $name/$file; nothing was installed"
done
chmod 755 "$binary"
installed_version=$("$binary" --version 2>/dev/null) ||
  fail "the downloaded ask_user does not run on this machine ($target); nothing was installed"

mkdir -p "$to" || fail "cannot create $to (choose another folder with --to DIR)"
to=$(cd "$to" && pwd -P)
# Copy into the target folder, then rename: the rename is atomic, so
# ask_user in DIR is always either the old binary or the whole new one.
staged="$to/.ask_user.install.$$"
cp "$binary" "$staged" || fail "cannot write to $to (choose another folder with --to DIR)"
chmod 755 "$staged"
mv -f "$staged" "$to/ask_user"
staged=""

say "installed $installed_version to $to/ask_user"

# The completions and man pages (the same in every archive). A folder that
# cannot be written costs only these: the binary is installed.
extras="$work/unpacked/$name"
bash_file="$data/bash-completion/completions/ask_user"
zsh_dir="$data/zsh/site-functions"
fish_file="$data/fish/vendor_completions.d/ask_user.fish"
man_dir="$data/man/man1"
if [ -z "$data" ]; then
  say "HOME and XDG_DATA_HOME are not set: the completions and man pages are not installed (give --data-dir DIR)"
elif mkdir -p "$(dirname "$bash_file")" "$zsh_dir" "$(dirname "$fish_file")" "$man_dir" 2>/dev/null &&
  cp "$extras/completions/ask_user.bash" "$bash_file" 2>/dev/null &&
  cp "$extras/completions/_ask_user" "$zsh_dir/_ask_user" 2>/dev/null &&
  cp "$extras/completions/ask_user.fish" "$fish_file" 2>/dev/null &&
  rm -f "$man_dir"/ask_user.1 "$man_dir"/ask_user-*.1 2>/dev/null &&
  cp "$extras"/man/*.1 "$man_dir/" 2>/dev/null; then
  say "installed completions: bash $bash_file, zsh $zsh_dir/_ask_user, fish $fish_file"
  set -- "$extras"/man/*.1
  say "installed $# man pages to $man_dir (man ask_user)"
  say "zsh reads $zsh_dir once it is on fpath: put fpath+=($zsh_dir) before compinit in ~/.zshrc"
else
  say "could not write the completions and man pages under $data; ask_user itself is installed (choose another folder with --data-dir DIR, or run ask_user completions SHELL)"
fi
case ":${PATH:-}:" in
  *":$to:"*) ;;
  *)
    say "$to is not on your PATH; add it with:"
    # shellcheck disable=SC2016 # $PATH is for the user's shell to expand
    printf '\n    export PATH="%s:$PATH"\n\n' "$to" >&2
    say "(put that line in ~/.profile, ~/.bashrc or ~/.zshrc; fish: fish_add_path $to)"
    ;;
esac
