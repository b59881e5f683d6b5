//! The release artifacts of `scripts/dist`, built once per test process from
//! a fresh clone: a copy of the source tree without build output or
//! installs, kept at a fixed path under this build's target folder (the
//! one tests/fresh_clone.rs runs) and
//! updated file by file (an unchanged file keeps its time, so cargo's
//! release build of the clone is reused from one test session to the next).
//! The release build shares its dependencies with tests/fresh_clone.rs
//! (the same CARGO_TARGET_DIR). `scripts/dist` runs twice, into `out` and
//! `again`, with one SOURCE_DATE_EPOCH: the two must be byte-identical.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::clients::{require, runs};

/// The fixed SOURCE_DATE_EPOCH of both runs: 2026-11-01T00:00:00Z.
pub const SOURCE_DATE_EPOCH: &str = "1793491200";

pub struct Dist {
    /// The first run's folder: every artifact.
    pub out: PathBuf,
    /// The second run's folder, from the same clone and SOURCE_DATE_EPOCH.
    pub again: PathBuf,
    /// The clone the artifacts were built from.
    pub clone: PathBuf,
    /// Cargo.toml's version.
    pub version: String,
    /// The target triple the binary was built for (this machine's).
    pub target: String,
}

impl Dist {
    /// The archive's file name.
    pub fn archive(&self) -> PathBuf {
        self.out
            .join(format!("ask_user-{}-{}.tar.gz", self.version, self.target))
    }

    /// The one file in `out` (or below it) whose name ends with `suffix`.
    pub fn one(&self, suffix: &str) -> PathBuf {
        let mut found: Vec<PathBuf> = walk(&self.out)
            .into_iter()
            .filter(|path| path.to_string_lossy().ends_with(suffix))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one file ending in {suffix} in {}: {found:?}",
            self.out.display()
        );
        found.pop().unwrap()
    }
}

/// Every file below `dir`, sorted.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                folders.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    files
}

/// Cargo.toml's `version`.
pub fn cargo_version() -> String {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("Cargo.toml has a version line")
        .to_string()
}

/// The artifacts, built on first use (npm and node, and python3, are needed:
/// without them the test is ignored, a failure under CI).
pub fn dist() -> &'static Dist {
    require(
        (runs("npm", &["--version"])
            && runs("node", &["--version"])
            && runs("python3", &["--version"]))
        .then_some(()),
        "node, npm and python3 (scripts/dist packs with them)",
    );
    static DIST: OnceLock<Dist> = OnceLock::new();
    DIST.get_or_init(build)
}

fn build() -> Dist {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = super::clone::target_dir().join("dist-test");
    std::fs::create_dir_all(&base).unwrap();
    // One build at a time: test processes run side by side under nextest,
    // and share the clone and these folders. Held until this process ends,
    // and taken once: when a build panics, the next test's build runs again
    // in this process, and a second lock on the file would wait for ever on
    // the first (a failed build hung the run instead of failing it).
    static LOCK: OnceLock<std::fs::File> = OnceLock::new();
    LOCK.get_or_init(|| {
        let lock = std::fs::File::create(base.join("lock")).unwrap();
        lock.lock()
            .unwrap_or_else(|error| panic!("lock {}: {error}", base.join("lock").display()));
        lock
    });
    // tests/fresh_clone.rs's clone: one release build serves both.
    let clone = super::clone::target_dir().join("fresh-clone/ask_user");
    super::clone::sync_tree(root, &clone);
    let out = base.join("out");
    let again = base.join("again");
    for folder in [&out, &again] {
        if folder.exists() {
            std::fs::remove_dir_all(folder).unwrap();
        }
        let output = Command::new(clone.join("scripts/dist"))
            .arg("--out")
            .arg(folder)
            .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
            .env(
                "CARGO_TARGET_DIR",
                super::clone::target_dir().join("fresh-clone/target"),
            )
            .env_remove("CARGO_BUILD_TARGET_DIR")
            .env_remove("RUSTFLAGS")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "scripts/dist --out {} failed ({}):\n{}",
            folder.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let target = String::from_utf8(Command::new("rustc").arg("-vV").output().unwrap().stdout)
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("host: ").map(str::to_string))
        .unwrap();
    Dist {
        out,
        again,
        clone,
        version: cargo_version(),
        target,
    }
}
