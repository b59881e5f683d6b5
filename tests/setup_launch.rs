//! `setup` run from the system's temporary folder refuses to write an entry
//! a reboot would break, and says what to do; nothing is written. The
//! refusal is `TEMPORARY_BINARY`, reported as every other failure of setup
//! is: a `✗` line per host on stderr, the error document in the host's place
//! on stdout, and with `--dry-run` stderr only (stdout stays a patch); the
//! exit code is 1. (The npx and global-install cases run through the real
//! npm packages: tests/dist/setup.rs.)

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// The binary copied into a fresh folder under the temporary folder.
fn copy_in_temp() -> (tempfile::TempDir, std::path::PathBuf) {
    let folder = tempfile::tempdir().unwrap(); // in std::env::temp_dir()
    let copy = folder.path().join("ask_user");
    std::fs::copy(common::bin(), &copy).unwrap();
    (folder, copy)
}

fn setup(copy: &Path, home: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(copy);
    command
        .arg("setup")
        .args(args)
        .env("HOME", home)
        .env("CODEX_HOME", home.join("codex"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("TOOLBOX_ACTION")
        .stdin(std::process::Stdio::null());
    // Each test copies the binary and runs its copy. Another test's process,
    // forked while this copy's write handle was open, holds that handle until
    // it execs: running the copy then fails with ETXTBSY for a moment.
    for _ in 0..50 {
        match command.output() {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done.unwrap(),
        }
    }
    command.output().unwrap()
}

/// The message, with the folder the copy runs from (canonical, as setup
/// reads its own path).
fn expected_start(folder: &Path) -> String {
    format!(
        "this ask_user runs from the temporary folder {}, which the system may empty, \
         so a host could not start it later; install it (npm install -g ask-user, ",
        folder.canonicalize().unwrap().display()
    )
}

fn assert_refusal(document: &serde_json::Value, folder: &Path) {
    assert_eq!(document["status"], "error", "{document}");
    assert_eq!(document["error"]["code"], "TEMPORARY_BINARY", "{document}");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(&expected_start(folder)), "{message}");
    assert!(message.ends_with("and run setup from there"), "{message}");
}

#[test]
fn a_binary_in_the_temporary_folder_is_refused_per_host_and_nothing_is_written() {
    let (folder, copy) = copy_in_temp();
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = setup(&copy, home.path(), &["claude-code", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    // stdout: one error document per host, in the order named.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    for line in &lines {
        assert_refusal(line, folder.path());
    }
    // stderr: a ✗ line per host, with the same message.
    let stderr = String::from_utf8(out.stderr).unwrap();
    let crossed: Vec<&str> = stderr.lines().filter(|l| l.starts_with("✗ ")).collect();
    assert_eq!(crossed.len(), 2, "{stderr}");
    for (line, host) in crossed.iter().zip(["claude-code", "codex"]) {
        assert!(
            line.starts_with(&format!("✗ {host}: {}", expected_start(folder.path()))),
            "{line}"
        );
    }
    assert_eq!(
        std::fs::read_dir(home.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn with_dry_run_the_refusal_goes_to_stderr_only() {
    let (folder, copy) = copy_in_temp();
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = setup(&copy, home.path(), &["--dry-run", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "stdout stays a patch"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("✗ codex: {}", expected_start(folder.path()))),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

/// Without a HOST the refusal comes before the picker (no terminal is
/// needed to learn it): one ✗ line and one error document.
#[test]
fn without_a_host_the_refusal_comes_before_choosing() {
    let (folder, copy) = copy_in_temp();
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = setup(&copy, home.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let document: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_refusal(&document, folder.path());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "✗ ask_user setup: {}",
            expected_start(folder.path())
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let dry = setup(&copy, home.path(), &["--dry-run"]);
    assert_eq!(dry.status.code(), Some(1));
    assert!(dry.stdout.is_empty());
}

/// `--remove` needs no entry to be written: it runs from anywhere.
#[test]
fn remove_runs_from_the_temporary_folder() {
    let (_folder, copy) = copy_in_temp();
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = setup(&copy, home.path(), &["--remove", "codex"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let document: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(document["action"], "unchanged", "{document}");
}
