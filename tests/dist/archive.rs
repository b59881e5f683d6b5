//! The archive, SHA256SUMS, reproducibility and the one version.

use std::path::Path;
use std::process::Command;

use crate::common::dist::{cargo_version, dist, walk};

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn two_runs_with_one_source_date_epoch_are_byte_identical() {
    let dist = dist();
    let first = walk(&dist.out);
    let second = walk(&dist.again);
    let names = |files: &[std::path::PathBuf], base: &Path| -> Vec<String> {
        files
            .iter()
            .map(|f| f.strip_prefix(base).unwrap().display().to_string())
            .collect()
    };
    assert_eq!(names(&first, &dist.out), names(&second, &dist.again));
    for (a, b) in first.iter().zip(&second) {
        assert!(
            read(a) == read(b),
            "{} differs from {}",
            a.display(),
            b.display()
        );
    }
    // The archives and npm tarballs are among them.
    let names = names(&first, &dist.out);
    assert!(names.iter().any(|n| n.ends_with(".tar.gz")), "{names:?}");
    assert!(
        names.iter().filter(|n| n.ends_with(".tgz")).count() >= 2,
        "{names:?}"
    );
}

/// `tar -tvzf`'s listing of the archive.
fn listing(archive: &Path) -> String {
    let output = Command::new("tar")
        .arg("--numeric-owner")
        .arg("-tvzf")
        .arg(archive)
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

pub fn the_archive_holds_the_binary_docs_completions_and_man_pages() {
    let dist = dist();
    let archive = dist.archive();
    let top = format!("ask_user-{}-{}", dist.version, dist.target);
    let listing = listing(&archive);
    let names: Vec<&str> = listing
        .lines()
        .map(|line| line.split_whitespace().last().unwrap())
        .collect();
    let mut want = vec![
        format!("{top}/"),
        format!("{top}/LICENSE"),
        format!("{top}/README.md"),
        format!("{top}/ask_user"),
        format!("{top}/completions/"),
        format!("{top}/completions/_ask_user"),
        format!("{top}/completions/_ask_user.ps1"),
        format!("{top}/completions/ask_user.bash"),
        format!("{top}/completions/ask_user.elv"),
        format!("{top}/completions/ask_user.fish"),
        format!("{top}/man/"),
    ];
    for page in crate::common::man_pages() {
        want.push(format!("{top}/man/{page}"));
    }
    want.sort();
    assert_eq!(names, want, "sorted entries, nothing else:\n{listing}");
    // Fixed owners and times; the binary is executable.
    for line in listing.lines() {
        assert!(line.contains(" 0/0 "), "owner 0/0: {line}");
        assert!(
            line.contains(" 2026-11-01 00:00"),
            "SOURCE_DATE_EPOCH as mtime: {line}"
        );
    }
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("-rwxr-xr-x") && l.ends_with("/ask_user"))
    );
    // The binary in it is the release binary, and runs.
    let unpacked = tempfile::tempdir().unwrap();
    assert!(
        Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(unpacked.path())
            .status()
            .unwrap()
            .success()
    );
    let version = Command::new(unpacked.path().join(&top).join("ask_user"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(version.stdout).unwrap(),
        format!("ask_user {}\n", dist.version)
    );
    // Completions and pages are what the binary generates from its clap
    // definitions (tests/completions.rs loads them in the shells and groff).
    let unpacked = unpacked.path().join(&top);
    for (shell, file) in [
        ("bash", "ask_user.bash"),
        ("zsh", "_ask_user"),
        ("fish", "ask_user.fish"),
        ("elvish", "ask_user.elv"),
        ("powershell", "_ask_user.ps1"),
    ] {
        let generated = Command::new(crate::common::BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(
            generated.stdout == read(&unpacked.join("completions").join(file)),
            "{file}"
        );
    }
    let pages = tempfile::tempdir().unwrap();
    assert!(
        Command::new(crate::common::BIN)
            .arg("man")
            .arg(pages.path())
            .status()
            .unwrap()
            .success()
    );
    for page in crate::common::man_pages() {
        assert!(
            read(&pages.path().join(&page)) == read(&unpacked.join("man").join(&page)),
            "{page}"
        );
    }
}

pub fn sha256sums_lists_every_artifact_and_checks() {
    let dist = dist();
    let sums = String::from_utf8(read(&dist.out.join("SHA256SUMS"))).unwrap();
    let listed: Vec<&str> = sums
        .lines()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    let mut artifacts: Vec<String> = walk(&dist.out)
        .iter()
        .map(|f| f.strip_prefix(&dist.out).unwrap().display().to_string())
        .filter(|n| {
            [".tar.gz", ".zip", ".tgz", ".whl", ".mcpb"]
                .iter()
                .any(|s| n.ends_with(s))
        })
        .collect();
    artifacts.sort();
    assert_eq!(listed, artifacts);
    let check = Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&dist.out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// Every manifest the channels publish carries Cargo.toml's version: the
/// checked-in ones here, the built ones in the channels' own tests.
pub fn every_manifest_carries_cargo_tomls_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let version = cargo_version();
    let json = |path: &str| -> serde_json::Value {
        serde_json::from_slice(&read(&root.join(path))).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let mut found = Vec::new();
    let npm = json("packaging/npm/ask-user/package.json");
    found.push((
        "packaging/npm/ask-user/package.json version",
        npm["version"].clone(),
    ));
    for (name, pinned) in npm["optionalDependencies"].as_object().unwrap() {
        found.push((
            Box::leak(format!("optionalDependencies {name}").into_boxed_str()),
            pinned.clone(),
        ));
    }
    let platform = json("packaging/npm/platform/package.json");
    found.push((
        "packaging/npm/platform/package.json version",
        platform["version"].clone(),
    ));
    let manifest = json("packaging/mcpb/manifest.json");
    found.push((
        "packaging/mcpb/manifest.json version",
        manifest["version"].clone(),
    ));
    let server = json("server.json");
    found.push(("server.json version", server["version"].clone()));
    for package in server["packages"].as_array().unwrap() {
        if let Some(v) = package.get("version") {
            found.push(("server.json packages[].version", v.clone()));
        }
    }
    let pyproject = String::from_utf8(read(&root.join("pyproject.toml"))).unwrap();
    let py_version = pyproject.lines().find_map(|l| {
        l.strip_prefix("version = \"")
            .and_then(|r| r.strip_suffix('"'))
    });
    found.push(("pyproject.toml version", serde_json::json!(py_version)));
    for (what, value) in found {
        assert_eq!(
            value,
            serde_json::json!(version),
            "{what} differs from Cargo.toml's {version}"
        );
    }
}
