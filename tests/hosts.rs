//! Real agent hosts against `ask_user mcp`, offline: Claude Code 2.1.330 and
//! the Amp CLI 0.0.1790142911-g7618fb, their native Linux x86_64 builds
//! (installed by .ci/setup-hosts.sh), each with a scratch HOME and, where
//! `unshare` allows, in a network namespace with only loopback.
//!
//! Claude Code's model is a scripted stand-in for the Anthropic Messages API
//! on 127.0.0.1 (tests/hosts/claude_print.py), and its `Elicitation` hook
//! plays the person (tests/hosts/elicitation_hook.py). Amp needs its servers
//! for any agent turn, so it is tested as far as it runs offline.
//! Without the hosts these tests count as ignored, and fail under CI.

mod common;

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::BIN;
use common::clients::{amp, claude_code, offline, tests_dir};
use common::process::output_with_stdin;

/// A scratch HOME and a project folder (a git repository, as Claude Code expects).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        std::fs::create_dir(dir.path().join("project")).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path().join("project"))
            .status();
        assert!(git.is_ok_and(|s| s.success()), "git init");
        Scratch { dir }
    }

    fn home(&self) -> std::path::PathBuf {
        self.dir.path().join("home")
    }

    fn project(&self) -> std::path::PathBuf {
        self.dir.path().join("project")
    }

    /// `program ARGS` run offline in the project with this HOME: exit code and stdout + stderr.
    fn run(&self, program: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
        let output = offline(program)
            .args(args)
            .envs(env.iter().copied())
            .env("HOME", self.home())
            .current_dir(self.project())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code().unwrap_or(-1), text)
    }
}

fn claude_code_lists_the_server_as_connected() {
    let claude = claude_code();
    let scratch = Scratch::new();
    let (code, text) = scratch.run(&claude, &["mcp", "add", "ask_user", "--", BIN, "mcp"], &[]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = scratch.run(&claude, &["mcp", "list"], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("ask_user: {BIN} mcp - ✔ Connected")),
        "{text}"
    );
}

const QUESTION: &str =
    r#"{"question":"Which database should we use?","options":["SQLite","Postgres"]}"#;

/// One `claude -p` turn whose model calls ask_user, the form answered by the
/// hook with `reply`: tests/hosts/claude_print.py's report.
fn claude_turn(hook_reply: Value) -> Value {
    let claude = claude_code();
    let scratch = Scratch::new();
    let scenario = json!({
        "claude": claude, "server": [BIN, "mcp"],
        "home": scratch.home(), "project": scratch.project(),
        "tool_input": serde_json::from_str::<Value>(QUESTION).unwrap(),
        "hook": hook_reply,
    });
    let mut command = offline("python3");
    command
        .arg(tests_dir("hosts").join("claude_print.py"))
        .stderr(Stdio::piped());
    let output = output_with_stdin(&mut command, scenario.to_string().as_bytes()).unwrap();
    assert!(
        output.status.success(),
        "claude_print.py: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["exit"], 0, "{report}");
    assert_eq!(report["result"], "MOCK MODEL SAW TOOL RESULT", "{report}");
    // Claude Code speaks 2026-07-28: discovery, then the call, then the
    // call again with the person's reply (the input_required round).
    let methods: Vec<&str> = report["traffic"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|message| message["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        ["server/discover", "tools/list", "tools/call", "tools/call"],
        "{report}"
    );
    let form = &report["hook_input"];
    assert_eq!(form["hook_event_name"], "Elicitation");
    assert_eq!(form["mode"], "form");
    assert_eq!(
        form["requested_schema"]["properties"]["q1"]["oneOf"],
        json!([{"const": "1", "title": "SQLite"}, {"const": "2", "title": "Postgres"}])
    );
    report
}

/// The one tool result the stand-in model received: (is_error, document).
fn tool_result(report: &Value) -> (bool, Value) {
    let results = report["tool_results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{report}");
    let content = &results[0]["content"];
    let text = match content {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap().to_string(),
    };
    let document = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"));
    (results[0]["is_error"].as_bool().unwrap(), document)
}

fn claude_code_print_mode_returns_the_answer_to_the_model() {
    let report = claude_turn(json!({"action": "accept", "content": {"q1": "2"}}));
    let (is_error, document) = tool_result(&report);
    assert!(!is_error);
    assert_eq!(
        document,
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": true,
               "cancelled": false, "timedOut": false,
               "answers": [{"questionId": "q1", "values": ["Postgres"], "optionIds": ["2"]}]})
    );
}

fn claude_code_print_mode_returns_a_decline_to_the_model() {
    let report = claude_turn(json!({"action": "decline"}));
    let (is_error, document) = tool_result(&report);
    assert!(!is_error);
    assert_eq!(
        document,
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
               "cancelled": true, "timedOut": false, "reason": "declined", "answers": []})
    );
}

fn claude_code_print_mode_returns_invalid_reply_for_an_empty_form() {
    let report = claude_turn(json!({"action": "accept", "content": {}}));
    let (is_error, document) = tool_result(&report);
    assert!(is_error);
    assert_eq!(document["status"], "error");
    assert_eq!(document["error"]["code"], "INVALID_REPLY");
    assert_eq!(document["error"]["path"], "questions[0]");
}

/// `amp mcp add` + `amp mcp doctor`: connected, one tool. The current Amp
/// has no toolboxes: AMP_TOOLBOX is ignored.
fn amp_connects_over_mcp_and_has_no_toolboxes() {
    let amp = amp();
    let scratch = Scratch::new();
    let key = [("AMP_API_KEY", "dummy")];
    let (code, text) = scratch.run(&amp, &["mcp", "add", "ask_user", "--", BIN, "mcp"], &key);
    assert_eq!(code, 0, "{text}");
    let (code, text) = scratch.run(&amp, &["mcp", "doctor"], &key);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("ask_user (user settings): connected (1 tools: ask_user)"),
        "{text}"
    );
    let tools = concat!(env!("CARGO_MANIFEST_DIR"), "/tools");
    let (code, text) = scratch.run(
        &amp,
        &["tools", "show", "tb__ask_user"],
        &[("AMP_API_KEY", "dummy"), ("AMP_TOOLBOX", tools)],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("No such tool: tb__ask_user"), "{text}");
}

common::harness::main!(
    claude_code_lists_the_server_as_connected,
    claude_code_print_mode_returns_the_answer_to_the_model,
    claude_code_print_mode_returns_a_decline_to_the_model,
    claude_code_print_mode_returns_invalid_reply_for_an_empty_form,
    amp_connects_over_mcp_and_has_no_toolboxes,
);
