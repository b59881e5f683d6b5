//! One release build, and the crate crates.io gets. `scripts/build-release`
//! is the one way tools/ask_user and scripts/dist build, with one
//! environment: after scripts/dist built the fresh clone (tests/common/dist.rs,
//! with its own SOURCE_DATE_EPOCH), building again as tools/ask_user does
//! compiles nothing. `cargo package --locked` builds the packaged crate (what
//! `cargo install ask_user` builds, and what `cargo binstall ask_user` reads
//! its metadata from) and holds the sources, no test clients, under
//! crates.io's 10 MB.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::dist::dist;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The clone's release target folder, as tests/common/dist.rs builds it.
fn clone_target_dir() -> PathBuf {
    crate::common::clone::target_dir().join("fresh-clone/target")
}

/// `program` in the clone with the build environment of tests/common/dist.rs,
/// SOURCE_DATE_EPOCH as `epoch` (None: unset), and `CARGO_TERM_PROGRESS`
/// off; asserts that it exited 0.
fn in_clone(program: &Path, args: &[&str], epoch: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().copied())
        .env("CARGO_TARGET_DIR", clone_target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("SOURCE_DATE_EPOCH")
        .stdin(Stdio::null());
    if let Some(epoch) = epoch {
        command.env("SOURCE_DATE_EPOCH", epoch);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{} {args:?} failed ({}):\n{}",
        program.display(),
        output.status,
        text(&output.stderr)
    );
    output
}

/// The lines of cargo's stderr that say it compiles something.
fn compiled(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.trim_start().starts_with("Compiling "))
        .collect()
}

pub fn release_build_after_dist_compiles_nothing_whatever_source_date_epoch() {
    let dist = dist();
    // scripts/dist built with SOURCE_DATE_EPOCH=1793491200; tools/ask_user
    // and a plain scripts/build-release run without it (or with another),
    // or from another cargo process (its CARGO_MANIFEST_DIR, CARGO_PKG_NAME),
    // and find the build done.
    let build = dist.clone.join("scripts/build-release");
    let other_process = [
        ("CARGO_MANIFEST_DIR", "/elsewhere"),
        ("CARGO_PKG_NAME", "another"),
        ("CARGO_PKG_VERSION_MAJOR", "9"),
    ];
    for (epoch, env) in [
        (None, &[][..]),
        (Some("1"), &[][..]),
        (Some(crate::common::dist::SOURCE_DATE_EPOCH), &[][..]),
        (None, &other_process[..]),
    ] {
        let output = in_clone(&build, &[], epoch, env);
        let stderr = text(&output.stderr);
        assert_eq!(
            compiled(&stderr),
            Vec::<&str>::new(),
            "SOURCE_DATE_EPOCH={epoch:?}, {env:?}: built again:\n{stderr}"
        );
        assert!(stderr.contains("Finished `release` profile"), "{stderr}");
        assert_eq!(
            text(&output.stdout).trim_end(),
            dist.clone.join("dist/ask_user").display().to_string()
        );
    }
    // tools/ask_user finds dist/ask_user fresh: it runs it, no build at all.
    let output = in_clone(
        &dist.clone.join("tools/ask_user"),
        &["--version"],
        None,
        &[],
    );
    assert_eq!(text(&output.stdout), format!("ask_user {}\n", dist.version));
    assert_eq!(text(&output.stderr), "");
}

/// The names in a .crate (a gzip'd tar), without the top folder.
fn crate_files(file: &Path) -> Vec<String> {
    let output = Command::new("tar")
        .arg("-tzf")
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout)
        .lines()
        .filter(|line| !line.ends_with('/'))
        .map(|line| {
            line.split_once('/')
                .map_or(line, |(_, rest)| rest)
                .to_string()
        })
        .collect()
}

/// Takes out of `command`'s environment what cargo sets for this test
/// process (CARGO_MANIFEST_DIR, CARGO_PKG_NAME, …): ring's build script
/// reruns when one of them changes (`rerun-if-env-changed`), so a cargo run
/// from here with them would rebuild ring for the next `cargo test`, and
/// that one rebuild it again for this.
fn without_cargo_test_env(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
            || [
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "OUT_DIR",
            ]
            .contains(&name.as_ref())
        {
            command.env_remove(name.as_ref());
        }
    }
    command
}

pub fn cargo_package_builds_each_crate_with_its_sources_and_no_test_clients() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let version = crate::common::dist::cargo_version();
    // What `cargo publish` uploads, built as crates.io's readers build it
    // (`cargo install ask_user`), in this test build's own target folder:
    // the dependencies are those of `cargo build`, already built.
    let target = crate::common::clone::target_dir();
    let output = without_cargo_test_env(&mut Command::new("cargo"))
        .args(["package", "--locked", "--allow-dirty"])
        .arg("--target-dir")
        .arg(&target)
        .current_dir(root)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "cargo package failed:\n{stderr}");
    // Every crate of the workspace, each after those it depends on: the
    // binary's crate is verified against the packaged crates below it, as
    // crates.io will have them.
    let verified: Vec<usize> = [
        "ask_user_core",
        "ask_user_platform",
        "ask_user_server",
        "ask_user_inbox",
        "ask_user",
    ]
    .iter()
    .map(|name| stderr.find(&format!("Verifying {name} v")).expect(&stderr))
    .collect();
    assert!(verified.is_sorted(), "{stderr}");

    let file = target.join(format!("package/ask_user-{version}.crate"));
    let files = crate_files_under_a_megabyte(&file);
    for wanted in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "src/main.rs",
        "src/lib.rs",
    ] {
        assert!(files.iter().any(|f| f == wanted), "{wanted}: {files:?}");
    }
    // Only what builds and what a reader needs: no tests (their clients,
    // fixtures and node_modules), packaging, docs site or build output.
    only_tops(
        &files,
        &[
            "Cargo.toml",
            "Cargo.toml.orig",
            "Cargo.lock",
            "README.md",
            "LICENSE",
            "CHANGELOG.md",
            ".cargo_vcs_info.json",
            "src",
        ],
    );

    // The contract: its sources and the schemas they embed (the links to the
    // root's schemas/ and LICENSE packed as files), nothing of the faces.
    let file = target.join(format!("package/ask_user_core-{version}.crate"));
    let files = crate_files_under_a_megabyte(&file);
    for wanted in [
        "Cargo.toml",
        "README.md",
        "LICENSE",
        "src/lib.rs",
        "src/input.rs",
        "schemas/answer.json",
        "schemas/tool-input.json",
    ] {
        assert!(files.iter().any(|f| f == wanted), "{wanted}: {files:?}");
    }
    only_tops(
        &files,
        &[
            "Cargo.toml",
            "Cargo.toml.orig",
            "Cargo.lock",
            "README.md",
            "LICENSE",
            ".cargo_vcs_info.json",
            "src",
            "schemas",
        ],
    );
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/Cargo.toml"),
    )
    .unwrap();
    let dependencies = manifest_dependencies(&manifest);
    assert_eq!(
        dependencies,
        ["serde", "serde_json", "thiserror"],
        "{manifest}"
    );
}

/// The files of a packaged crate, which crates.io takes only under 10 MB
/// (ours are under 1 MB).
fn crate_files_under_a_megabyte(file: &Path) -> Vec<String> {
    let size = std::fs::metadata(file).unwrap().len();
    assert!(size < 1_000_000, "{} is {size} bytes", file.display());
    crate_files(file)
}

fn only_tops(files: &[String], allowed: &[&str]) {
    for file in files {
        let top = file.split('/').next().unwrap();
        assert!(allowed.contains(&top), "{file} is in the crate");
        assert!(!file.contains("node_modules"), "{file}");
    }
}

/// The names under `[dependencies]` of a manifest (not dev- or build-).
fn manifest_dependencies(manifest: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            names.push(line.split(['=', ' ', '.']).next().unwrap());
        }
    }
    names
}

/// The fresh clone holds no `.git` of the checkout's. In a git worktree
/// `.git` is a file naming the checkout's repository: copied, it made the
/// pre-commit test's `git init` and `commit` in its copy commit to the
/// developer's branch. A `.git` file an older copy left goes; a `.git`
/// folder of the copy's own (the pre-commit tests `git init` one) stays.
pub fn fresh_clone_copies_no_git_file_of_the_checkout() {
    use crate::common::clone::sync_tree;
    let from = tempfile::tempdir().unwrap();
    std::fs::write(
        from.path().join(".git"),
        "gitdir: /elsewhere/.git/worktrees/x\n",
    )
    .unwrap();
    std::fs::write(from.path().join("Cargo.toml"), "[package]\n").unwrap();
    std::fs::create_dir_all(from.path().join("src")).unwrap();
    std::fs::write(from.path().join("src/.git"), "gitdir: /elsewhere\n").unwrap();
    std::fs::write(from.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let to = tempfile::tempdir().unwrap();
    sync_tree(from.path(), to.path());
    let names = |dir: &Path| {
        let mut names: Vec<String> = crate::common::dist::walk(dir)
            .iter()
            .map(|file| file.strip_prefix(dir).unwrap().display().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(to.path()), ["Cargo.toml", "src/main.rs"]);
    // What an older copy left: a .git file goes, the copy's own .git folder stays.
    std::fs::write(to.path().join("src/.git"), "gitdir: /elsewhere\n").unwrap();
    std::fs::create_dir_all(to.path().join(".git")).unwrap();
    std::fs::write(to.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    sync_tree(from.path(), to.path());
    assert_eq!(names(to.path()), [".git/HEAD", "Cargo.toml", "src/main.rs"]);
}
