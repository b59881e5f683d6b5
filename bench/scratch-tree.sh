# Sourced by bench/mutants.sh and bench/bugs.sh: a scratch copy of the working tree.

# copy_tree DEST: DEST becomes a copy of the working tree (tracked files, and untracked
# ones that are not ignored: the test clients' installs are symlinks). DEST keeps its own
# target folder from run to run; a file is rewritten only when its content differs, and
# then gets a fresh modification time, so cargo rebuilds exactly what changed (a copied
# old time could hide a change from cargo: cargo-mutants rewrites files in place).
copy_tree() {
  local dest staging
  mkdir -p "$1"
  dest=$(cd "$1" && pwd)
  staging=$(mktemp -d)
  git ls-files -z --cached --others --exclude-standard \
    | tar --null --files-from=- --create --file=- \
    | tar --extract --file=- --directory="$staging"
  (
    cd "$staging"
    find . -type d -exec mkdir -p "$dest/{}" \;
    find . ! -type d -print0 | while IFS= read -r -d '' file; do
      if [ -L "$file" ] || ! cmp -s "$file" "$dest/$file"; then
        rm -rf "${dest:?}/$file"
        cp -P "$file" "$dest/$file"
      fi
    done
  )
  # Whatever the working tree no longer has goes (the copy's target folder stays).
  (
    cd "$dest"
    find . -path ./target -prune -o ! -type d -print0 | while IFS= read -r -d '' file; do
      [ -e "$staging/$file" ] || [ -L "$staging/$file" ] || rm -f "$file"
    done
  )
  rm -rf "$staging"
}

# link_clients DEST: the outside test clients installed here (git ignores them, so
# copy_tree leaves them out) become symlinks in DEST, for the tests that drive them.
link_clients() {
  local dest client
  dest=$(cd "$1" && pwd)
  for client in tests/*/node_modules tests/*/.venv; do
    [ -e "$client" ] || continue
    [ -e "$dest/$client" ] || ln -s "$PWD/$client" "$dest/$client"
  done
}
