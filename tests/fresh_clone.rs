//! A fresh clone's `tools/ask_user`, run from another directory as hosts run
//! tools, prints the fixture's document on its first run (which builds the
//! release binary through scripts/build-release) and on every run after,
//! with CARGO_TARGET_DIR (or CARGO_BUILD_TARGET_DIR) set and unset.
//!
//! The "clone" is a copy of the source tree without build output (no
//! target/, no dist/), at a fixed path under this build's target directory
//! (shared with the release artifacts' tests, tests/common/dist.rs),
//! so that both cases share one release build: the first case builds into a
//! dedicated CARGO_TARGET_DIR, the second finds that build through the
//! clone's own target/ (a link to it), as cargo would with the variable
//! unset. Unchanged files keep their times, so cargo rebuilds the ask_user
//! crate only when the source changed; the dependencies stay built.
//!
//! Slow (a release build): runs with ASK_USER_SLOW=1 (or under CI), else
//! counted as ignored (tests/common/harness.rs).

// Unix only: builds the checkout with scripts/build-release for a Unix host (symlinks, file modes).
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use std::path::Path;
use std::process::Command;

mod common;
#[cfg(unix)]
use common::clone::{sync_tree, target_dir};

const FIXTURE: &str = "seed003-simple-binary";

/// `clone/tools/ask_user` with the toolbox execute face on the fixture, run
/// from `elsewhere`, with `target_dir` as the variable `via` names
/// (CARGO_TARGET_DIR or CARGO_BUILD_TARGET_DIR; `None`: both unset).
#[cfg(unix)]
fn run_tool(clone: &Path, elsewhere: &Path, target_dir: Option<(&str, &Path)>) -> (String, String) {
    let input = std::fs::File::open(clone.join(format!("fixtures/{FIXTURE}.input.json"))).unwrap();
    let mut command = Command::new(clone.join("tools/ask_user"));
    command
        .current_dir(elsewhere)
        .env("TOOLBOX_ACTION", "execute")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .stdin(input);
    if let Some((via, dir)) = target_dir {
        command.env(via, dir);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    (stdout, stderr)
}

#[cfg(unix)]
fn a_fresh_clones_tool_runs_from_another_directory_with_and_without_cargo_target_dir() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = target_dir().join("fresh-clone");
    let clone = base.join("ask_user");
    let cache = base.join("target");
    // The clone is shared with tests/common/dist.rs and kept in sync file by
    // file, so the release build is reused; its build output goes.
    sync_tree(root, &clone);
    for output in [clone.join("dist"), clone.join("target")] {
        if output.is_symlink() {
            std::fs::remove_file(&output).unwrap();
        } else if output.exists() {
            std::fs::remove_dir_all(&output).unwrap();
        }
    }
    assert!(!clone.join("dist").exists() && !clone.join("target").exists());
    let expected =
        std::fs::read_to_string(root.join(format!("fixtures/{FIXTURE}.expected.json"))).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();

    // CARGO_TARGET_DIR set: the first run builds, the second only runs.
    let set = Some(("CARGO_TARGET_DIR", cache.as_path()));
    let (stdout, stderr) = run_tool(&clone, elsewhere.path(), set);
    assert_eq!(stdout, expected);
    assert!(stderr.contains("building the release binary"), "{stderr}");
    assert!(clone.join("dist/ask_user").is_file());
    let (stdout, stderr) = run_tool(&clone, elsewhere.path(), set);
    assert_eq!(stdout, expected);
    assert!(!stderr.contains("building"), "{stderr}");

    // CARGO_BUILD_TARGET_DIR, cargo's other name for it, from a fresh dist/.
    std::fs::remove_dir_all(clone.join("dist")).unwrap();
    let build_set = Some(("CARGO_BUILD_TARGET_DIR", cache.as_path()));
    for run in 0..2 {
        let (stdout, stderr) = run_tool(&clone, elsewhere.path(), build_set);
        assert_eq!(stdout, expected, "run {run}: {stderr}");
        assert_eq!(stderr.contains("building"), run == 0, "run {run}: {stderr}");
    }

    // Unset: a fresh dist/ again; cargo builds into the clone's own target/.
    std::fs::remove_dir_all(clone.join("dist")).unwrap();
    std::os::unix::fs::symlink(&cache, clone.join("target")).unwrap();
    for run in 0..2 {
        let (stdout, stderr) = run_tool(&clone, elsewhere.path(), None);
        assert_eq!(stdout, expected, "run {run}: {stderr}");
        assert_eq!(stderr.contains("building"), run == 0, "run {run}: {stderr}");
    }
}

#[cfg(unix)]
common::harness::main!(
    slow: a_fresh_clones_tool_runs_from_another_directory_with_and_without_cargo_target_dir
);

#[cfg(not(unix))]
fn main() {
    println!("tests/fresh_clone: the release build is checked on Unix; nothing to run here");
}
