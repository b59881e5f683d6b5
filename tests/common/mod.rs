//! Helpers shared by the integration tests: run the real binary, parse its one
//! document; the outside clients (`clients`, `browser`) and the harness that
//! counts a test whose client is missing as ignored (`harness`); child
//! processes (each in a `process::ChildGuard`, which ends it with the test)
//! and ports (`process`); a raw JSON-RPC client for `ask_user mcp`
//! (`mcp_raw`); the model stand-in's loopback network and a host's turn on
//! it (`stand_in`), and the scratch HOME and project a host runs in
//! (`scratch`).
#![allow(dead_code)]

pub mod browser;
pub mod clients;
// Unix only: file modes (fresh_clone and the release tests, which are Unix-only).
#[cfg(unix)]
pub mod clone;
// Unix only: the release artifacts are built and checked on Linux (tests/dist.rs).
#[cfg(unix)]
pub mod dist;
pub mod harness;
pub mod inbox;
// A real Synapse homeserver and a matrix-nio client (tests/inbox_matrix.rs).
pub mod matrix;
pub mod mcp_raw;
pub mod page;
// A PostgreSQL server run as an unprivileged user (tests/store.rs,
// tests/team_inbox.rs); found on Debian's paths, so elsewhere its tests are
// ignored (a failure under CI).
pub mod postgres;
pub mod process;
pub mod scratch;
pub mod stand_in;
// Unix only: pseudo-terminals through rexpect (a Unix-only dev-dependency).
#[cfg(unix)]
pub mod pty;

use std::sync::LazyLock;

use assert_cmd::Command;
use serde_json::Value;

/// The `ask_user` cargo built for the host. The tests that run the binary
/// call [`bin`] instead; the release-artifact tests (tests/dist) check the
/// host's own artifacts and keep this one.
pub const BIN: &str = env!("CARGO_BIN_EXE_ask_user");

/// The binary under test: `ASK_USER_TEST_BIN` when set (a path to an
/// executable, made absolute against the test's working folder), else the
/// host's [`BIN`]. `.ci/cross` points it at a foreign build, the aarch64
/// binary (run through qemu-user by binfmt_misc) or a wrapper that runs
/// `ask_user.exe` under wine, so that the same host-compiled tests drive it.
pub fn bin() -> &'static str {
    static PATH: LazyLock<String> = LazyLock::new(|| match std::env::var_os("ASK_USER_TEST_BIN") {
        Some(path) if !path.is_empty() => {
            let path = std::env::current_dir()
                .expect("the working folder")
                .join(path);
            assert!(
                path.is_file(),
                "ASK_USER_TEST_BIN names no file: {}",
                path.display()
            );
            path.into_os_string()
                .into_string()
                .expect("ASK_USER_TEST_BIN is UTF-8")
        }
        _ => BIN.to_string(),
    });
    &PATH
}

/// True when the tests drive a binary other than the host's own build
/// (`ASK_USER_TEST_BIN` is set): a test that needs the host's binary itself
/// (its file, copied or linked) says so.
pub fn foreign_bin() -> bool {
    bin() != BIN
}

/// A temporary folder every user may enter, for what a test runs as
/// another user (nobody): the temporary folder may itself be in a home
/// nobody else can enter (TMPDIR=~/tmp, mode 700), and then the system's
/// own is taken, where there is one.
#[cfg(unix)]
pub fn temp_others_may_enter() -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let others_may_enter = |dir: &std::path::Path| {
        dir.canonicalize().is_ok_and(|dir| {
            dir.ancestors().all(|folder| {
                std::fs::metadata(folder).is_ok_and(|meta| meta.permissions().mode() & 0o001 != 0)
            })
        })
    };
    [std::env::temp_dir(), "/var/tmp".into(), "/tmp".into()]
        .into_iter()
        .find(|dir| others_may_enter(dir))
        .unwrap_or_else(std::env::temp_dir)
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The single JSON document on stdout (asserting there is exactly one line).
    pub fn doc(&self) -> Value {
        assert!(
            self.stdout.ends_with('\n') && self.stdout.matches('\n').count() == 1,
            "stdout must be one JSON line: {:?}",
            self.stdout
        );
        serde_json::from_str(&self.stdout).expect("stdout is JSON")
    }
}

pub fn run_with(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Run {
    let mut cmd = Command::new(bin());
    cmd.args(args).env_remove("TOOLBOX_ACTION");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.write_stdin(stdin.to_vec()).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The toolbox execute face on `input`.
pub fn execute(input: &[u8]) -> Run {
    run_with(&[], &[("TOOLBOX_ACTION", "execute")], input)
}

/// A valid input's prompt document (exit 0, status ok).
pub fn ok(input: &str) -> Value {
    let run = execute(input.as_bytes());
    let doc = run.doc();
    assert_eq!(run.code, 0, "expected success for {input}: {doc}");
    assert_eq!(doc["status"], "ok");
    doc
}

/// Asserts an error document with this code, path and a message containing `message`.
pub fn assert_error(run: &Run, code: &str, path: Option<&str>, message: &str) -> Value {
    let doc = run.doc();
    assert_eq!(run.code, 1, "exit code for {doc}");
    assert_eq!(doc["status"], "error", "{doc}");
    assert_eq!(doc["tool"], "ask_user");
    assert_eq!(doc["version"], 1);
    let error = &doc["error"];
    assert_eq!(error["code"], code, "{doc}");
    match path {
        Some(p) => assert_eq!(error["path"], p, "{doc}"),
        None => assert!(error.get("path").is_none(), "unexpected path in {doc}"),
    }
    let text = error["message"].as_str().unwrap();
    assert!(text.contains(message), "message {text:?} lacks {message:?}");
    doc
}

pub fn err(input: &str, code: &str, path: Option<&str>, message: &str) -> Value {
    assert_error(&execute(input.as_bytes()), code, path, message)
}

/// The pages `ask_user man` writes: one per command --help lists (the
/// hidden `man` has none), and the inbox's verbs.
pub fn man_pages() -> Vec<String> {
    let mut pages = vec!["ask_user.1".to_string()];
    for command in [
        "answer",
        "ask",
        "away",
        "check",
        "completions",
        "describe",
        "help",
        "hook",
        "inbox",
        "mcp",
        "prompt",
        "schema",
        "setup",
    ] {
        pages.push(format!("ask_user-{command}.1"));
    }
    for verb in [
        "answer", "away", "cancel", "history", "list", "pair", "rule", "token",
    ] {
        pages.push(format!("ask_user-inbox-{verb}.1"));
    }
    for verb in ["add", "list", "remove"] {
        pages.push(format!("ask_user-inbox-token-{verb}.1"));
        pages.push(format!("ask_user-inbox-rule-{verb}.1"));
    }
    pages.sort();
    pages
}

/// The `answeredBy` a local face (or the inbox's own token) writes on
/// `channel`: the person is this test process's user, as the binary
/// names it (tests inherit its environment).
pub fn answered_by(channel: &str) -> Value {
    serde_json::json!({"kind": "person", "name": ask_user_platform::user::name(), "channel": channel})
}

/// [`answered_by`] as the JSON text that ends an answered document line:
/// `,"answeredBy":{…}` (it is the document's last key).
pub fn answered_by_json(channel: &str) -> String {
    format!(",\"answeredBy\":{}", answered_by(channel))
}
