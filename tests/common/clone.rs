//! A "fresh clone" of the source tree for the tests that build from one
//! (tests/fresh_clone.rs, tests/common/dist.rs): a copy without build
//! output and installs.

use std::path::{Path, PathBuf};

/// Build output and installed clients: not part of a clone.
pub const NOT_CLONED: [&str; 8] = [
    ".git",
    "target",
    "dist",
    "node_modules",
    ".venv",
    "__pycache__",
    "corpus",
    "artifacts",
];

/// This build's target directory: where clones and their build caches live.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Makes `to` a copy of the tree at `from`, without `NOT_CLONED` names and
/// links (installs), touching only what differs: a file with the same bytes and mode keeps its time,
/// and what `from` no longer has goes (but for `NOT_CLONED` names, which
/// are `to`'s own build output and installs).
pub fn sync_tree(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to).unwrap();
    let mut wanted = Vec::new();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let kind = entry.file_type().unwrap();
        // Build output and installs are folders: the file scripts/dist is source.
        // `.git` is never copied, folder or file: in a git worktree it is a
        // file naming the checkout's own repository, and a copy of it would
        // make git in the clone (`git init`, `commit` in the pre-commit
        // tests) commit to the developer's branch.
        if name == ".git" || (kind.is_dir() && NOT_CLONED.iter().any(|skip| name == *skip)) {
            continue;
        }
        let target = to.join(&name);
        if kind.is_dir() {
            if target.is_file() {
                std::fs::remove_file(&target).unwrap();
            }
            sync_tree(&entry.path(), &target);
        } else if kind.is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            let mode = entry.metadata().unwrap().permissions().mode();
            let same = std::fs::read(&target).is_ok_and(|old| old == bytes)
                && std::fs::metadata(&target).is_ok_and(|m| m.permissions().mode() == mode);
            if !same {
                if target.is_dir() {
                    std::fs::remove_dir_all(&target).unwrap();
                }
                std::fs::copy(entry.path(), &target).unwrap();
            }
        } else if kind.is_symlink() {
            // crates/core links the root's schemas/ and LICENSE: the link, as git keeps it.
            let link = std::fs::read_link(entry.path()).unwrap();
            if std::fs::read_link(&target).ok().as_ref() != Some(&link) {
                if target.is_dir() && !target.is_symlink() {
                    std::fs::remove_dir_all(&target).unwrap();
                } else if target.symlink_metadata().is_ok() {
                    std::fs::remove_file(&target).unwrap();
                }
                std::os::unix::fs::symlink(&link, &target).unwrap();
            }
        } else {
            continue;
        }
        wanted.push(name);
    }
    for entry in std::fs::read_dir(to).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let path = entry.path();
        // A `.git` file copied by an older version of this function points
        // at the checkout's repository: it goes (a `.git` folder is the
        // clone's own repository, and stays).
        if name == ".git" && path.is_file() {
            std::fs::remove_file(&path).unwrap();
            continue;
        }
        if wanted.contains(&name) || NOT_CLONED.iter().any(|skip| name == *skip) {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            std::fs::remove_dir_all(path).unwrap();
        } else {
            std::fs::remove_file(path).unwrap();
        }
    }
}
