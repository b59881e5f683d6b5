//! Waits shorter than the host's timer, with nothing lost (issue 23, "Short
//! timers"). A host that gives up on a tool call after 5 s and sends no
//! progress token is played by the official MCP TypeScript SDK
//! (tests/mcp/ts_wait.mjs: no elicitation, a 5 s request timeout). The
//! server runs with the entry `setup` writes for a host without forms
//! (Claude Desktop: `--no-elicitation --fallback auto --open --wait 45`), its wait scaled
//! down to 3 s.
//!
//! - The call returns `pending` with an id, before the client's timer (the
//!   SDK throws on its timeout: a result at all is before it).
//! - The person answers 4 s later, on the page (a POST as the page sends
//!   it, its address read from the server's stderr) or in the inbox
//!   (`ask_user inbox answer`), and `{"resume": ID}` on the same server
//!   returns that answer: without an inbox, the `mcp` process kept the page.
//! - A resume before the answer is pending again; an unknown id is
//!   UNKNOWN_QUESTION; bad `--wait` values are usage errors.
//!
//! The TypeScript SDK is installed by .ci/setup-mcp.sh; without it these
//! tests count as ignored (tests/common/harness.rs), and fail under CI.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::clients::mcp_typescript_sdk;
use common::inbox::run;
use common::page::same_origin_request;
use common::process::{ChildGuard, spawn_inbox};

/// The host's timer, and the setup-written wait scaled down below it.
const HOST_TIMEOUT_MS: u64 = 5000;
const SCALED_WAIT: &str = "3";
/// When the person answers, after the call returned pending.
const PERSON_TAKES: Duration = Duration::from_secs(4);

const QUESTION: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;

/// The args `setup` writes for Claude Desktop (read back with `setup
/// --list`), the wait scaled down to [`SCALED_WAIT`].
fn setup_args_for_a_host_without_forms() -> Vec<String> {
    let home = tempfile::tempdir().unwrap();
    let setup = |args: &[&str]| {
        let out = Command::new(bin())
            .arg("setup")
            .args(args)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("xdg"))
            .env("TMPDIR", home.path().join("tmp"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    setup(&["claude-desktop"]);
    let listed: Value = serde_json::from_str(setup(&["--list", "claude-desktop"]).trim()).unwrap();
    assert_eq!(listed["road"], "page or inbox", "{listed}");
    let mut args: Vec<String> = listed["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap().to_string())
        .collect();
    let at = args.iter().position(|arg| arg == "--wait").expect("a wait");
    assert_eq!(args[at + 1], listed["waitSeconds"].to_string());
    assert!(
        listed["waitSeconds"].as_u64().unwrap() < 60,
        "below Claude Desktop's ~60 s"
    );
    args[at + 1] = SCALED_WAIT.to_string();
    assert!(
        args.windows(2).any(|pair| pair == ["--fallback", "auto"]),
        "{args:?}"
    );
    args
}

/// The short-timer host (ts_wait.mjs) and the server it runs; a host that
/// does not close when asked is killed with its server (its guard).
struct Host {
    child: ChildGuard,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Host {
    /// `state`: the server's ASK_USER_STATE_DIR (an inbox runs there, or none).
    fn start(state: &Path) -> Host {
        let dir = mcp_typescript_sdk();
        let args = setup_args_for_a_host_without_forms();
        // An empty PATH: `--open` finds no browser opener (it says so on stderr).
        let no_programs = state.join("no-programs");
        std::fs::create_dir_all(&no_programs).unwrap();
        let mut child = ChildGuard::spawn(
            Command::new("node")
                .arg(dir.join("ts_wait.mjs"))
                .current_dir(&dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit()),
        )
        .expect("node runs");
        let mut stdin = child.stdin.take().unwrap();
        let setup = json!({
            "binary": bin(),
            "server_args": args,
            "server_env": {
                "ASK_USER_STATE_DIR": state,
                "PATH": no_programs,
                "HOME": state,
            },
            "timeout_ms": HOST_TIMEOUT_MS,
        });
        writeln!(stdin, "{setup}").unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Host {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, arguments: &Value) {
        writeln!(self.stdin, "{}", json!({ "call": arguments })).unwrap();
    }

    /// The next call's outcome line.
    fn outcome(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn call(&mut self, arguments: &Value) -> Value {
        self.send(arguments);
        self.outcome()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, r#"{{"close":true}}"#);
        let limit = Instant::now() + Duration::from_secs(10);
        while Instant::now() < limit {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Still running: the guard kills it, with its server.
    }
}

/// The answer document of a successful result (as structuredContent and text).
fn document(outcome: &Value) -> Value {
    assert!(
        outcome.get("thrown").is_none(),
        "the host gave up: {outcome}"
    );
    assert_eq!(outcome["isError"], false, "{outcome}");
    let text: Value = serde_json::from_str(outcome["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(text, outcome["structured"]);
    text
}

/// A pending document: not an answer, with its id and a hint naming the resume input.
fn pending_id(outcome: &Value) -> String {
    let document = document(outcome);
    assert_eq!(
        (
            &document["answered"],
            &document["cancelled"],
            &document["timedOut"],
            &document["pending"]
        ),
        (&json!(false), &json!(false), &json!(false), &json!(true)),
        "{document}"
    );
    assert_eq!(document["answers"], json!([]));
    let id = document["inboxId"].as_str().expect("an id").to_string();
    let hint = document["hint"].as_str().unwrap();
    assert!(hint.contains(&format!(r#"{{"resume": "{id}"}}"#)), "{hint}");
    // The hint is also a text block of its own, for the model to read.
    assert_eq!(outcome["texts"][1], hint);
    id
}

fn assert_answered_postgresql(outcome: &Value) {
    let document = document(outcome);
    assert_eq!(document["answered"], true, "{document}");
    assert!(document.get("pending").is_none(), "{document}");
    assert_eq!(document["answers"][0]["values"], json!(["PostgreSQL"]));
}

/// The person chooses PostgreSQL on the page at `url`, as the page posts it.
fn answer_on_page(url: &str) {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, query) = rest.split_once('/').unwrap();
    let token = query.strip_prefix("?token=").unwrap();
    let posted = same_origin_request(
        port.parse().unwrap(),
        token,
        "POST",
        "/answer",
        r#"{"answers":[{"optionIds":["1"]}]}"#,
    );
    assert_eq!(posted.status, 200, "{}", posted.body);
}

fn question() -> Value {
    serde_json::from_str(QUESTION).unwrap()
}

/// No inbox: the call returns pending, the `mcp` process keeps the page,
/// a resume before the answer is pending again, and after the person
/// answered (4 s after the pending came back) a resume returns the answer.
fn without_an_inbox_the_server_keeps_the_page_and_a_resume_returns_the_answer() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path());
    let first = host.call(&question());
    let returned = Instant::now();
    let id = pending_id(&first);
    assert_eq!(id.len(), 32, "128 random bits in hex: {id}");
    let urls = first["urls"].as_array().unwrap();
    assert_eq!(urls.len(), 1, "{first}");
    let url = urls[0].as_str().unwrap().to_string();

    // Before the answer: pending again, same id (after the wait, again).
    let again = host.call(&json!({ "resume": id }));
    assert_eq!(pending_id(&again), id);

    if let Some(rest) = PERSON_TAKES.checked_sub(returned.elapsed()) {
        std::thread::sleep(rest);
    }
    answer_on_page(&url);
    let collected = host.call(&json!({ "resume": id }));
    assert_answered_postgresql(&collected);
    // Kept: a second resume gets the same answer.
    assert_eq!(
        document(&host.call(&json!({ "resume": id }))),
        document(&collected)
    );
}

/// The answer wins: a resume that is waiting when the person answers
/// returns the answer, not pending.
fn an_answer_during_a_resumes_wait_wins() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path());
    let first = host.call(&question());
    let id = pending_id(&first);
    let url = first["urls"][0].as_str().unwrap().to_string();
    host.send(&json!({ "resume": id }));
    std::thread::sleep(Duration::from_millis(500));
    answer_on_page(&url);
    assert_answered_postgresql(&host.outcome());
}

/// With an inbox: the question waits there; the person answers it from a
/// terminal 4 s later; the resume collects the answer.
fn with_an_inbox_the_inbox_keeps_the_question_and_a_resume_returns_the_answer() {
    let state = tempfile::tempdir().unwrap();
    let (inbox, line) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    let mut host = Host::start(state.path());
    let first = host.call(&question());
    let returned = Instant::now();
    let id = pending_id(&first);
    assert_eq!(id.len(), 8, "an inbox id: {id}");
    assert!(
        first["urls"].as_array().unwrap().is_empty(),
        "no page: {first}"
    );

    let again = host.call(&json!({ "resume": id }));
    assert_eq!(pending_id(&again), id);

    if let Some(rest) = PERSON_TAKES.checked_sub(returned.elapsed()) {
        std::thread::sleep(rest);
    }
    let (code, answered) = run(
        state.path(),
        &["inbox", "answer", &id, "--reply", "PostgreSQL"],
    );
    assert_eq!(code, 0, "{answered}");
    assert_answered_postgresql(&host.call(&json!({ "resume": id })));
    drop(host);
    drop(inbox);
}

/// An id neither this server nor an inbox keeps: UNKNOWN_QUESTION, saying so.
fn an_unknown_resume_id_is_unknown_question() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path());
    let outcome = host.call(&json!({"resume": "0123456789abcdef0123456789abcdef"}));
    assert_eq!(outcome["isError"], true, "{outcome}");
    let error: Value = serde_json::from_str(outcome["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(error["error"]["code"], "UNKNOWN_QUESTION", "{error}");
    assert_eq!(error["error"]["path"], "resume");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("is kept by this MCP server, and no inbox runs"),
        "{message}"
    );
}

/// Bad `--wait` values: usage errors (exit 2), saying what a wait is.
fn a_bad_wait_is_a_usage_error() {
    for (wait, says) in [
        (
            "soon",
            r#""soon" is not a number of seconds (like 30 or 0.5)"#,
        ),
        (
            "-1",
            r#""-1" is out of range: give more than 0 and at most 86400 seconds"#,
        ),
        (
            "0",
            r#""0" is out of range: give more than 0 and at most 86400 seconds"#,
        ),
        ("86401", r#""86401" is out of range"#),
    ] {
        let out = Command::new(bin())
            .args(["mcp", &format!("--wait={wait}")])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{wait}: {stderr}");
        assert!(out.stdout.is_empty());
        assert!(stderr.contains("invalid value"), "{stderr}");
        assert!(stderr.contains("--wait <SECONDS>"), "{stderr}");
        assert!(stderr.contains(says), "{wait}: {stderr}");
    }
}

common::harness::main!(
    without_an_inbox_the_server_keeps_the_page_and_a_resume_returns_the_answer,
    an_answer_during_a_resumes_wait_wins,
    with_an_inbox_the_inbox_keeps_the_question_and_a_resume_returns_the_answer,
    an_unknown_resume_id_is_unknown_question,
    a_bad_wait_is_a_usage_error,
);
