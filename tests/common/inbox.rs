//! `ask_user inbox` and its askers as real processes, for the tests that
//! drive them (tests/inbox.rs, tests/team_inbox.rs): each process gets a
//! state folder of its own (`ASK_USER_STATE_DIR`) and runs without a terminal.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::bin;
use super::page::{self, Response, same_origin_request};
use super::process::{ChildGuard, exit_with_one_line, exit_within, spawn_asking, without_tty};

/// A command for the binary without a terminal (a session of its own) and
/// with `dir` as its state folder.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(bin());
    command
        .args(args)
        .env("ASK_USER_STATE_DIR", dir)
        .env_remove("TOOLBOX_ACTION")
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN")
        .env_remove("ASK_USER_UI")
        .env_remove("ASK_USER_SOURCE");
    without_tty(&mut command);
    command
}

/// A state folder for one test.
pub fn state() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Polls `condition` every 20 ms until it holds; panics after `limit`.
pub fn until(limit: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A running `ask_user inbox`, killed when dropped.
pub struct Inbox {
    pub child: ChildGuard,
    pub dir: PathBuf,
    pub port: u16,
    pub token: String,
    pub url: String,
    pub stderr: BufReader<ChildStderr>,
}

impl Inbox {
    pub fn start(dir: &Path) -> Inbox {
        Inbox::start_with(dir, &["--port", "0"])
    }

    /// Starts it and reads its address from the line it prints.
    pub fn start_with(dir: &Path, args: &[&str]) -> Inbox {
        let mut inbox = command(dir, &["inbox"]);
        inbox.args(args);
        Inbox::spawn(dir, inbox)
    }

    /// Starts `ask_user inbox …` as `command` has it.
    pub fn spawn(dir: &Path, mut command: Command) -> Inbox {
        let mut child = ChildGuard::spawn(
            command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL from the inbox: {line:?}"))
            .to_string();
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
        let (port, query) = rest.split_once('/').unwrap();
        Inbox {
            child,
            dir: dir.to_path_buf(),
            port: port.parse().unwrap(),
            token: query.strip_prefix("?token=").unwrap().to_string(),
            url,
            stderr,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A request as the page sends it (token, Origin, JSON).
    pub fn request(&self, method: &str, path: &str, body: &str) -> Response {
        same_origin_request(self.port, &self.token, method, path, body)
    }

    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        page::send(self.port, method, path, headers, body)
    }

    /// The pending questions, as `inbox list` prints them.
    pub fn list(&self) -> Vec<Value> {
        let out = command(&self.dir, &["inbox", "list"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    pub fn ids(&self) -> Vec<String> {
        self.list()
            .iter()
            .map(|item| item["inboxId"].as_str().unwrap().to_string())
            .collect()
    }

    /// SIGTERM: a clean stop, exit 0, inbox.json removed.
    /// Stops the inbox as [`Inbox::stopped`] does, and returns what it said
    /// on stderr after its first line.
    pub fn stop(self) -> String {
        signal(self.child.id(), "TERM");
        self.stopped()
    }

    /// After a stop signal (sent by the test): waits for the exit, and
    /// asserts it was clean (exit 0, nothing on stdout, inbox.json removed).
    pub fn stopped(mut self) -> String {
        let status = exit_within(
            &mut self.child,
            Duration::from_secs(20),
            Duration::from_millis(20),
        )
        .expect("the inbox did not stop");
        let mut said = String::new();
        let _ = self.stderr.read_to_string(&mut said);
        assert_eq!(status.code(), Some(0), "{said}");
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        assert_eq!(stdout, "", "a serving inbox prints nothing on stdout");
        assert!(!self.dir.join("inbox.json").exists());
        said
    }

    pub fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// A running asker; its question's id, read from its stderr. An asker a
/// failed test leaves behind would wait for ever: its guard ends it.
pub struct Asker {
    pub child: ChildGuard,
    pub id: String,
}

impl Asker {
    /// `ask --ui inbox` (plus `args`) with `input` on stdin.
    pub fn ask(dir: &Path, input: &str, args: &[&str]) -> Asker {
        let mut command = command(dir, &["ask", "--ui", "inbox", "-"]);
        command.args(args);
        Asker::spawn(command, input)
    }

    /// Any asking command with `input` on stdin, once its question is in the inbox.
    pub fn spawn(mut command: Command, input: &str) -> Asker {
        let (child, mut stderr, line) = spawn_asking(&mut command, input);
        let id = line
            .split("question ")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .unwrap_or_else(|| panic!("no question id from the asker: {line:?}"))
            .to_string();
        assert_eq!(id.len(), 8, "{line}");
        // The rest of stderr is drained, so the asker never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Asker { child, id }
    }

    /// Waits for the exit: the code and stdout (one JSON line).
    pub fn finish(mut self) -> (i32, Value) {
        let (code, stdout) = exit_with_one_line(&mut self.child, Duration::from_secs(30));
        (code, serde_json::from_str(&stdout).unwrap())
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

/// Runs `ask_user ARGS` to its end: (code, stdout).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = command(dir, args).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// Runs `command` to its end with `input` on stdin (a child that exits
/// before reading it, as on NO_TTY, is fine): (code, stdout).
pub fn run_with_input(command: &mut Command, input: &[u8]) -> (i32, String) {
    finished(spawn_fed(command, input))
}

/// As [`run_with_input`], for a run that must end within `limit`: one still
/// running then is killed, and the test fails.
pub fn run_with_input_within(
    command: &mut Command,
    input: &[u8],
    limit: Duration,
) -> (i32, String) {
    let mut child = spawn_fed(command, input);
    if exit_within(&mut child, limit, Duration::from_millis(50)).is_none() {
        drop(child);
        panic!("still running after {limit:?}: {command:?}");
    }
    finished(child)
}

/// `command` started with `input` written to its stdin, stdout piped.
fn spawn_fed(command: &mut Command, input: &[u8]) -> ChildGuard {
    let mut child = ChildGuard::spawn(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
    .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input);
    child
}

/// The exit code and stdout of `child`, once it ends.
fn finished(child: ChildGuard) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// Asserts an error document: exit 1, this code, a message containing `message`.
pub fn assert_error((code, stdout): (i32, String), error_code: &str, message: &str) {
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
        "{stdout:?}"
    );
    let document: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(document["status"], "error");
    assert_eq!(document["error"]["code"], error_code, "{document}");
    let text = document["error"]["message"].as_str().unwrap();
    assert!(text.contains(message), "{text:?} lacks {message:?}");
}
