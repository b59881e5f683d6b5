//! `ask` without a controlling terminal: NO_TTY at once, nothing drawn, never
//! a hang, even when stdin never ends. Each child runs in a new session
//! (setsid), so it has no controlling terminal even when `cargo test` does.
//! Speed is measured by bench/tty_no_tty.py; the limits here only guard
//! against a hang.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::bin;
use common::process::ChildGuard;
const INPUT: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;

fn without_tty(args: &[&str]) -> Command {
    let mut command = Command::new(bin());
    common::process::without_tty(command.args(args));
    command
}

/// Waits for the child with a hang guard; returns (code, stdout, stderr).
fn finish(mut child: ChildGuard) -> (i32, String, String) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            panic!("ask hung without a terminal");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code().unwrap(), stdout, stderr)
}

fn assert_no_tty(code: i32, stdout: &str, stderr: &str) {
    assert_eq!(code, 1);
    assert!(stdout.ends_with('\n') && stdout.matches('\n').count() == 1);
    let document: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(document["status"], "error");
    assert_eq!(document["error"]["code"], "NO_TTY");
    let message = document["error"]["message"].as_str().unwrap();
    // The middle names the terminal device and the OS error, which differ
    // between systems: /dev/tty on Unix, the console (CONIN$) on Windows,
    // whose binary .ci/cross runs these host-compiled tests against.
    let device = ["/dev/tty", "the console"].into_iter().find(|device| {
        message.starts_with(&format!(
            "ask needs a terminal to ask on, and there is none: {device} cannot be opened ("
        ))
    });
    assert!(
        device.is_some()
            && message.ends_with("); run it in a terminal, or pass one --reply per question"),
        "{message}"
    );
    assert_eq!(stderr, "", "nothing may be drawn without a terminal");
}

#[test]
fn no_terminal_is_no_tty_with_nothing_drawn() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("no_tty_input.json");
    std::fs::write(&file, INPUT).unwrap();
    let child = ChildGuard::spawn(
        without_tty(&["ask", file.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    let (code, stdout, stderr) = finish(child);
    assert_no_tty(code, &stdout, &stderr);
}

#[test]
fn no_terminal_is_no_tty_even_when_stdin_never_ends() {
    // The JSON pipe stays open: ask must not wait for it before finding no terminal.
    let mut child = ChildGuard::spawn(
        without_tty(&["ask", "--timeout", "60"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    let stdin = child.stdin.take();
    let (code, stdout, stderr) = finish(child);
    drop(stdin);
    assert_no_tty(code, &stdout, &stderr);
}

#[test]
fn replies_need_no_terminal() {
    let mut child = ChildGuard::spawn(
        without_tty(&["ask", "--reply", "2"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), INPUT.as_bytes()).unwrap();
    let (code, stdout, stderr) = finish(child);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(stderr, "");
    let document: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(document["answers"][0]["values"][0], "SQLite");
}
