//! No form road outlives the host's timer (issue 38, the Claude Desktop
//! scenario). The host is played by the official MCP TypeScript SDK
//! (tests/mcp/ts_form_wait.mjs): it declares form elicitation, leaves every
//! form unanswered (until a test answers one), sends no progress token, and
//! gives up on a call at 60 s (its request timeout, which sends
//! notifications/cancelled), as Claude Desktop does. The waits are real:
//! the server's 45 s, so the scenarios run at once, a thread each.
//!
//! - The entry `setup claude-desktop` writes (read back from the written
//!   file), with an inbox running: a pending document with an id before the
//!   60 s; no form sent; the question is in `inbox list`, answered with
//!   `inbox answer ID --reply 2`, and `{"resume": ID}` returns the answer.
//! - The `.mcpb` manifest's args (its defaults filled in), no inbox: pending
//!   before the 60 s; the page stays up; a POST as the page sends it answers
//!   it; resume collects the answer.
//! - The form road itself, for an entry without `--no-elicitation` (the one
//!   setup wrote before): the form is sent and not answered; the call returns
//!   pending before the 60 s with the question in the inbox; the form,
//!   answered after that, decides it once: resume returns the form's answer,
//!   and `inbox answer` afterwards gets ALREADY_ANSWERED. Without an inbox
//!   the page takes over; answered there first, the form is withdrawn.
//!
//! The TypeScript SDK is installed by .ci/setup-mcp.sh; without it these
//! tests count as ignored (tests/common/harness.rs), and fail under CI.

mod common;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::clients::mcp_typescript_sdk;
use common::inbox::run;
use common::page::same_origin_request;
use common::process::{ChildGuard, spawn_inbox};

/// Claude Desktop's timer on one call, as the client plays it.
const HOST_TIMEOUT_MS: u64 = 60_000;

const QUESTION: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;

/// A scratch HOME where `setup` writes.
fn scratch_setup(home: &Path, args: &[&str]) -> String {
    let out = Command::new(bin())
        .arg("setup")
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("xdg"))
        .env("TMPDIR", home.join("tmp"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The command and args `ask_user setup claude-desktop` writes, read from
/// the file it wrote.
fn setup_entry() -> (PathBuf, Vec<String>) {
    let home = tempfile::tempdir().unwrap();
    scratch_setup(home.path(), &["claude-desktop"]);
    let file = home.path().join("xdg/Claude/claude_desktop_config.json");
    let config: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let entry = &config["mcpServers"]["ask_user"];
    let args = strings(&entry["args"]);
    (PathBuf::from(entry["command"].as_str().unwrap()), args)
}

/// The args of packaging/mcpb/manifest.json, each `${user_config.KEY}` its default.
fn manifest_args() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/mcpb/manifest.json");
    let manifest: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let defaults: Vec<(String, String)> = manifest["user_config"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(key, option)| {
            let default = match &option["default"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (format!("${{user_config.{key}}}"), default)
        })
        .collect();
    strings(&manifest["server"]["mcp_config"]["args"])
        .into_iter()
        .map(|arg| {
            defaults
                .iter()
                .fold(arg, |arg, (name, value)| arg.replace(name, value))
        })
        .collect()
}

fn strings(array: &Value) -> Vec<String> {
    array
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap().to_string())
        .collect()
}

/// The host (ts_form_wait.mjs) and the server it runs; a host that does not
/// close when asked is killed with its server (its guard).
struct Host {
    child: ChildGuard,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Lines read while looking for another kind.
    early: VecDeque<Value>,
}

impl Host {
    /// `state`: the server's ASK_USER_STATE_DIR (an inbox runs there, or none).
    fn start(state: &Path, command: &Path, args: &[String]) -> Host {
        let dir = mcp_typescript_sdk();
        // An empty PATH: `--open` finds no browser opener (it says so on stderr).
        let no_programs = state.join("no-programs");
        std::fs::create_dir_all(&no_programs).unwrap();
        let mut child = ChildGuard::spawn(
            Command::new("node")
                .arg(dir.join("ts_form_wait.mjs"))
                .current_dir(&dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit()),
        )
        .expect("node runs");
        let mut stdin = child.stdin.take().unwrap();
        let setup = json!({
            "binary": command,
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
            early: VecDeque::new(),
        }
    }

    fn send(&mut self, command: &Value) {
        writeln!(self.stdin, "{command}").unwrap();
    }

    /// The next line that `is` one of the wanted kind; others wait their turn.
    fn line(&mut self, is: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.early.iter().position(&is) {
            return self.early.remove(at).unwrap();
        }
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the host ended"
            );
            let value: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
            if is(&value) {
                return value;
            }
            self.early.push_back(value);
        }
    }

    /// Calls the tool and waits for its outcome line.
    fn call(&mut self, arguments: &Value) -> Value {
        self.send(&json!({ "call": arguments }));
        self.line(|line| line.get("call").is_some())
    }

    /// (forms received, forms the server withdrew).
    fn forms(&mut self) -> (u64, u64) {
        self.send(&json!({"forms": true}));
        let line = self.line(|line| line.get("forms").is_some());
        (
            line["forms"].as_u64().unwrap(),
            line["withdrawn"].as_u64().unwrap(),
        )
    }

    /// Answers the oldest open form; whether one was open.
    fn answer_form(&mut self, action: &str, value: &str) -> bool {
        self.send(&json!({"answer_form": {"action": action, "value": value}}));
        let line = self.line(|line| line.get("answeredForm").is_some());
        line["answeredForm"].as_bool().unwrap()
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

/// A pending document, before the host's timer: not an answer, with its id
/// and a hint naming the resume input.
fn pending_id(outcome: &Value) -> String {
    let elapsed = outcome["elapsedMs"].as_u64().unwrap();
    assert!(
        elapsed < HOST_TIMEOUT_MS,
        "after the host's timer: {outcome}"
    );
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
    let id = document["inboxId"].as_str().expect("an id").to_string();
    let hint = document["hint"].as_str().unwrap();
    assert!(hint.contains(&format!(r#"{{"resume": "{id}"}}"#)), "{hint}");
    id
}

/// The answer document says the person chose `label`.
fn assert_answered(outcome: &Value, label: &str) {
    let document = document(outcome);
    assert_eq!(document["answered"], true, "{document}");
    assert!(document.get("pending").is_none(), "{document}");
    assert_eq!(
        document["answers"][0]["values"],
        json!([label]),
        "{document}"
    );
}

/// The person chooses option `option_id` on the page at `url`, as the page posts it.
fn answer_on_page(url: &str, option_id: &str) {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, query) = rest.split_once('/').unwrap();
    let token = query.strip_prefix("?token=").unwrap();
    let body = json!({"answers": [{"optionIds": [option_id]}]}).to_string();
    let posted = same_origin_request(port.parse().unwrap(), token, "POST", "/answer", &body);
    assert_eq!(posted.status, 200, "{}", posted.body);
}

/// `inbox list`: the ids of the pending questions.
fn listed(state: &Path) -> Vec<String> {
    let (code, out) = run(state, &["inbox", "list"]);
    assert_eq!(code, 0, "{out}");
    out.lines()
        .map(|line| {
            let item: Value = serde_json::from_str(line).unwrap();
            item["inboxId"].as_str().unwrap().to_string()
        })
        .collect()
}

/// `inbox history`: (id, outcome, face) of each decided question, newest first.
fn decided(state: &Path) -> Vec<(String, String, String)> {
    let (code, out) = run(state, &["inbox", "history"]);
    assert_eq!(code, 0, "{out}");
    out.lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| entry[name].as_str().unwrap().to_string();
            (field("inboxId"), field("outcome"), field("face"))
        })
        .collect()
}

/// The error document of an error result.
fn error(outcome: &Value) -> Value {
    assert_eq!(outcome["isError"], true, "{outcome}");
    serde_json::from_str(outcome["texts"][0].as_str().unwrap()).unwrap()
}

fn question() -> Value {
    serde_json::from_str(QUESTION).unwrap()
}

/// The entry `setup claude-desktop` writes, an inbox running: no form is
/// sent; pending before the timer; answered in the inbox; resume collects.
fn setup_entry_with_an_inbox() {
    let (command, args) = setup_entry();
    assert_eq!(
        command.canonicalize().unwrap(),
        Path::new(bin()).canonicalize().unwrap()
    );
    assert!(args.iter().any(|arg| arg == "--no-elicitation"), "{args:?}");
    let state = tempfile::tempdir().unwrap();
    let (inbox, _) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    let mut host = Host::start(state.path(), &command, &args);
    let first = host.call(&question());
    let id = pending_id(&first);
    assert_eq!(id.len(), 8, "an inbox id: {id}");
    assert_eq!(host.forms(), (0, 0), "no form is sent");
    assert_eq!(listed(state.path()), [id.as_str()]);
    let (code, answered) = run(state.path(), &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{answered}");
    assert_answered(&host.call(&json!({ "resume": id })), "SQLite");
    drop(host);
    drop(inbox);
}

/// The `.mcpb` manifest's args, no inbox: pending before the timer; the
/// page stays up, is answered there, and resume collects.
fn manifest_args_without_an_inbox() {
    let args = manifest_args();
    let (_, setup_args) = setup_entry();
    // The same road as setup's entry, with the bundle's own time limit.
    let mut without_timeout = args.clone();
    let at = without_timeout
        .iter()
        .position(|a| a == "--timeout")
        .unwrap();
    without_timeout.drain(at..at + 2);
    assert_eq!(without_timeout, setup_args);
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path(), Path::new(bin()), &args);
    let first = host.call(&question());
    let id = pending_id(&first);
    assert_eq!(id.len(), 32, "a kept page's id: {id}");
    assert_eq!(host.forms(), (0, 0), "no form is sent");
    let url = first["urls"][0]
        .as_str()
        .expect("the page's address")
        .to_string();
    answer_on_page(&url, "2");
    assert_answered(&host.call(&json!({ "resume": id })), "SQLite");
}

/// Setup's entry without `--no-elicitation`: the form road, with `--wait`.
fn form_road_args() -> (PathBuf, Vec<String>) {
    let (command, mut args) = setup_entry();
    args.retain(|arg| arg != "--no-elicitation");
    (command, args)
}

/// The form is sent and left open; the call returns pending before the
/// timer with the question in the inbox; the form answered after that
/// decides it once.
fn an_unanswered_form_goes_to_the_inbox_and_its_late_answer_counts_once() {
    let (command, args) = form_road_args();
    let state = tempfile::tempdir().unwrap();
    let (inbox, _) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    let mut host = Host::start(state.path(), &command, &args);
    let first = host.call(&question());
    let id = pending_id(&first);
    assert_eq!(id.len(), 8, "an inbox id: {id}");
    assert_eq!(host.forms(), (1, 0), "the form was sent and stays open");
    assert_eq!(listed(state.path()), [id.as_str()]);

    // The host shows the form at last; the person picks PostgreSQL there.
    assert!(host.answer_form("accept", "1"));
    assert_answered(&host.call(&json!({ "resume": id })), "PostgreSQL");
    let (code, refused) = run(state.path(), &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 1, "{refused}");
    let refused: Value = serde_json::from_str(&refused).unwrap();
    assert_eq!(refused["error"]["code"], "ALREADY_ANSWERED", "{refused}");
    assert!(listed(state.path()).is_empty());
    // History has it as the page's answer: the route the form's answer took.
    assert_eq!(
        decided(state.path()),
        [(id.clone(), "answered".into(), "page".into())]
    );
    // Once: the resume still says PostgreSQL.
    assert_answered(&host.call(&json!({ "resume": id })), "PostgreSQL");
    drop(host);
    drop(inbox);
}

/// No inbox: the page takes over from the unanswered form; answered there
/// first, the form is withdrawn, and resume collects the page's answer.
fn an_unanswered_form_goes_to_the_page_which_answers_first() {
    let (command, args) = form_road_args();
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path(), &command, &args);
    let first = host.call(&question());
    let id = pending_id(&first);
    assert_eq!(id.len(), 32, "a kept page's id: {id}");
    let url = first["urls"][0]
        .as_str()
        .expect("the page's address")
        .to_string();
    answer_on_page(&url, "2");
    assert_answered(&host.call(&json!({ "resume": id })), "SQLite");
    let limit = Instant::now() + Duration::from_secs(5);
    while host.forms() != (1, 1) {
        assert!(
            Instant::now() < limit,
            "the form is withdrawn: {:?}",
            host.forms()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// With an inbox, the person answers there first: the form is withdrawn,
/// and nothing is left for a late form answer to change.
fn an_unanswered_form_goes_to_the_inbox_which_answers_first() {
    let (command, args) = form_road_args();
    let state = tempfile::tempdir().unwrap();
    let (inbox, _) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    let mut host = Host::start(state.path(), &command, &args);
    let id = pending_id(&host.call(&question()));
    let (code, answered) = run(state.path(), &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{answered}");
    let limit = Instant::now() + Duration::from_secs(5);
    while host.forms() != (1, 1) {
        assert!(
            Instant::now() < limit,
            "the form is withdrawn: {:?}",
            host.forms()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!host.answer_form("accept", "1"), "no form is open");
    assert_answered(&host.call(&json!({ "resume": id })), "SQLite");
    drop(host);
    drop(inbox);
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| arg.to_string()).collect()
}

/// `--fallback prompt` has no pending document: past the wait the form is
/// withdrawn and the prompt document is relayed, as for a client without forms.
fn past_the_wait_the_prompt_fallback_relays_and_withdraws_the_form() {
    let state = tempfile::tempdir().unwrap();
    let args = args(&["mcp", "--fallback", "prompt", "--wait", "1"]);
    let mut host = Host::start(state.path(), Path::new(bin()), &args);
    let outcome = host.call(&question());
    assert_eq!(outcome["isError"], false, "{outcome}");
    let relayed = &outcome["structured"];
    assert!(relayed["rendered_markdown"].is_string(), "{outcome}");
    assert!(
        relayed.get("answered").is_none(),
        "no answer document: {outcome}"
    );
    let elapsed = outcome["elapsedMs"].as_u64().unwrap();
    assert!((1000..10_000).contains(&elapsed), "{elapsed} ms");
    assert_eq!(host.forms(), (1, 1), "sent, then withdrawn");
}

/// The form road's late replies on a kept page (`--fallback web`): the
/// host's cancel leaves the question open; an explicit decline decides it.
fn a_late_form_cancel_leaves_the_question_open_and_a_late_decline_decides_it() {
    let state = tempfile::tempdir().unwrap();
    let args = args(&["mcp", "--fallback", "web", "--wait", "1"]);
    let mut host = Host::start(state.path(), Path::new(bin()), &args);
    let id = pending_id(&host.call(&question()));
    assert!(host.answer_form("cancel", ""));
    // Still open: a resume waits its second and is pending again.
    assert_eq!(pending_id(&host.call(&json!({ "resume": id }))), id);
    let url = host.call(&json!({ "resume": id }))["urls"][0]
        .as_str()
        .unwrap()
        .to_string();
    answer_on_page(&url, "1");
    assert_answered(&host.call(&json!({ "resume": id })), "PostgreSQL");

    let declined = pending_id(&host.call(&question()));
    assert!(host.answer_form("decline", ""));
    let limit = Instant::now() + Duration::from_secs(5);
    let document = loop {
        let document = document(&host.call(&json!({ "resume": declined })));
        if document.get("pending").is_none() || Instant::now() > limit {
            break document;
        }
    };
    assert_eq!(
        (&document["cancelled"], &document["reason"]),
        (&json!(true), &json!("declined")),
        "{document}"
    );
}

/// The form road's late decline in the inbox (`--fallback inbox`): it
/// decides the question there, as the page's Decline does.
fn a_late_form_decline_decides_the_inbox_question() {
    let state = tempfile::tempdir().unwrap();
    let (inbox, _) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    let args = args(&["mcp", "--fallback", "inbox", "--wait", "1"]);
    let mut host = Host::start(state.path(), Path::new(bin()), &args);
    let id = pending_id(&host.call(&question()));
    assert_eq!(listed(state.path()), [id.as_str()]);
    assert!(host.answer_form("decline", ""));
    let document = document(&host.call(&json!({ "resume": id })));
    assert_eq!(
        (&document["cancelled"], &document["reason"]),
        (&json!(true), &json!("declined")),
        "{document}"
    );
    assert_eq!(
        decided(state.path()),
        [(id, "declined".into(), "page".into())]
    );
    drop(host);
    drop(inbox);
}

/// Past the wait with nowhere to go: `--fallback inbox` and no inbox is
/// NO_INBOX; a page whose port is taken is WEB_ERROR. Either way the form
/// is withdrawn, and the call ends before the host's timer.
fn past_the_wait_a_road_that_cannot_be_taken_is_an_error_and_the_form_is_withdrawn() {
    let state = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for (args, code, says) in [
        (
            args(&["mcp", "--fallback", "inbox", "--wait", "1"]),
            "NO_INBOX",
            "no inbox",
        ),
        (
            args(&["mcp", "--fallback", "web", "--port", &port, "--wait", "1"]),
            "WEB_ERROR",
            &port,
        ),
    ] {
        let mut host = Host::start(state.path(), Path::new(bin()), &args);
        let outcome = host.call(&question());
        let error = error(&outcome);
        assert_eq!(error["error"]["code"], code, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.to_lowercase().contains(says), "{args:?}: {message}");
        assert_eq!(host.forms(), (1, 1), "{args:?}: sent, then withdrawn");
    }
}

/// Every 45-second scenario at once, a thread each; a failure names its scenario.
fn the_claude_desktop_scenario_never_outlives_the_hosts_timer() {
    // Here, not in a thread: a missing SDK ends this test as ignored.
    mcp_typescript_sdk();
    let scenarios: [(&str, fn()); 5] = [
        ("setup_entry_with_an_inbox", setup_entry_with_an_inbox),
        (
            "manifest_args_without_an_inbox",
            manifest_args_without_an_inbox,
        ),
        (
            "an_unanswered_form_goes_to_the_inbox_and_its_late_answer_counts_once",
            an_unanswered_form_goes_to_the_inbox_and_its_late_answer_counts_once,
        ),
        (
            "an_unanswered_form_goes_to_the_inbox_which_answers_first",
            an_unanswered_form_goes_to_the_inbox_which_answers_first,
        ),
        (
            "an_unanswered_form_goes_to_the_page_which_answers_first",
            an_unanswered_form_goes_to_the_page_which_answers_first,
        ),
    ];
    let running: Vec<_> = scenarios
        .into_iter()
        .map(|(name, scenario)| {
            let thread = std::thread::Builder::new().name(name.to_string());
            (name, thread.spawn(scenario).unwrap())
        })
        .collect();
    let failed: Vec<&str> = running
        .into_iter()
        .filter_map(|(name, thread)| thread.join().is_err().then_some(name))
        .collect();
    assert!(
        failed.is_empty(),
        "failed (see their panics above): {failed:?}"
    );
}

common::harness::main!(
    the_claude_desktop_scenario_never_outlives_the_hosts_timer,
    past_the_wait_the_prompt_fallback_relays_and_withdraws_the_form,
    a_late_form_cancel_leaves_the_question_open_and_a_late_decline_decides_it,
    a_late_form_decline_decides_the_inbox_question,
    past_the_wait_a_road_that_cannot_be_taken_is_an_error_and_the_form_is_withdrawn,
);
