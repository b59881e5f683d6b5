//! Real agent hosts against `ask_user mcp`, offline: Claude Code 2.1.330 and
//! the Amp CLI 0.0.1790142911-g7618fb, their native Linux x86_64 builds
//! (installed by .ci/setup-hosts.sh), each with a scratch HOME and, where
//! `unshare` allows, in a network namespace with only loopback.
//!
//! Claude Code's model is a scripted stand-in for the Anthropic Messages API
//! on 127.0.0.1 (tests/hosts/claude_print.py), and its `Elicitation` hook
//! plays the person (tests/hosts/elicitation_hook.py). Amp needs its servers
//! for any agent turn, so it is tested as far as it runs offline.
//!
//! Collect later against the hosts' own tool timeouts: Codex 0.169.0
//! (`tool_timeout_sec`) and Claude Code (`MCP_TOOL_TIMEOUT`) call
//! `ask_user mcp --fallback inbox` on a stand-in for their model's API
//! (tests/hosts/model_stand_in.py), give up on the call after 3 s, and a
//! later `{"resume": ID}` through the same host collects the person's answer.
//! Without the hosts these tests count as ignored, and fail under CI.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::clients::{amp, claude_code, codex, offline, tests_dir};
use common::process::output_with_stdin;
use common::scratch::Scratch;
use common::stand_in::{HostTurn, Network, QUESTION, postgres_answer, result_text};

fn claude_code_lists_the_server_as_connected() {
    let claude = claude_code();
    let scratch = Scratch::new();
    let (code, text) =
        scratch.run(offline(&claude).args(["mcp", "add", "ask_user", "--", bin(), "mcp"]));
    assert_eq!(code, 0, "{text}");
    let (code, text) = scratch.run(offline(&claude).args(["mcp", "list"]));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("ask_user: {} mcp - ✔ Connected", bin())),
        "{text}"
    );
}

/// One `claude -p` turn whose model calls ask_user, the form answered by the
/// hook with `reply`: tests/hosts/claude_print.py's report.
fn claude_turn(hook_reply: Value) -> Value {
    let claude = claude_code();
    let scratch = Scratch::new();
    let scenario = json!({
        "claude": claude, "server": [bin(), "mcp"],
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
    // Claude Code speaks 2026-07-28: discovery, the tools and (as the
    // server offers resources, for MCP Apps) the resources, then the call,
    // then the call again with the person's reply (the input_required round).
    let mut methods: Vec<&str> = report["traffic"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|message| message["method"].as_str())
        .collect();
    // The two lists go out together, in either order.
    if let Some(lists) = methods.get_mut(1..3) {
        lists.sort_unstable();
    }
    assert_eq!(
        methods,
        [
            "server/discover",
            "resources/list",
            "tools/list",
            "tools/call",
            "tools/call"
        ],
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
    let (code, text) = scratch.run(
        offline(&amp)
            .args(["mcp", "add", "ask_user", "--", bin(), "mcp"])
            .envs(key),
    );
    assert_eq!(code, 0, "{text}");
    let (code, text) = scratch.run(offline(&amp).args(["mcp", "doctor"]).envs(key));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("ask_user (user settings): connected (1 tools: ask_user)"),
        "{text}"
    );
    let tools = concat!(env!("CARGO_MANIFEST_DIR"), "/tools");
    let (code, text) = scratch.run(
        offline(&amp)
            .args(["tools", "show", "tb__ask_user"])
            .envs([("AMP_API_KEY", "dummy"), ("AMP_TOOLBOX", tools)]),
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("No such tool: tb__ask_user"), "{text}");
}

// ---- Collect later through a host's own tool timeout (issue 26) ----

/// How long one host turn may take (its start-up on a loaded machine included).
const HOST_TURN: Duration = Duration::from_secs(120);
/// The hosts' tool timeout in these tests: far below ask_user's own 300 s.
const TOOL_TIMEOUT_SECONDS: u64 = 3;

/// A running `ask_user inbox` on `network`, with its own state folder;
/// killed when dropped.
struct NetworkInbox<'a> {
    network: &'a Network,
    _child: common::process::ChildGuard,
    state: std::path::PathBuf,
}

impl<'a> NetworkInbox<'a> {
    fn start(network: &'a Network, state: &Path) -> NetworkInbox<'a> {
        std::fs::create_dir_all(state).unwrap();
        // Its first line says it serves (inbox.json is written); the rest is drained.
        let (child, line) =
            common::process::spawn_inbox(&mut network.command(bin()), state, |_| ());
        assert!(line.contains("serving http://127.0.0.1:"), "{line:?}");
        NetworkInbox {
            network,
            _child: child,
            state: state.to_path_buf(),
        }
    }

    /// `ask_user inbox VERB ARGS`, as the person runs it: (exit code, stdout lines).
    fn verb(&self, args: &[&str]) -> (i32, Vec<Value>) {
        let out = self
            .network
            .command(bin())
            .arg("inbox")
            .args(args)
            .env("ASK_USER_STATE_DIR", &self.state)
            .env_remove("ASK_USER_INBOX")
            .env_remove("ASK_USER_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let lines = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}")))
            .collect();
        (out.status.code().unwrap_or(-1), lines)
    }

    /// The one question the host's call left, once it is marked "asker
    /// gone". A question the inbox closed instead fails at once.
    fn kept_question(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (code, pending) = self.verb(&["list"]);
            assert_eq!(code, 0, "{pending:?}");
            if pending.len() == 1 && pending[0].get("askerGone").is_some() {
                return pending[0].clone();
            }
            let (code, closed) = self.verb(&["history"]);
            assert_eq!(code, 0, "{closed:?}");
            assert!(
                closed.is_empty(),
                "the inbox closed the question when the host gave up on the call: {closed:?}"
            );
            assert!(
                Instant::now() < deadline,
                "no question kept in the inbox: {pending:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Starts one host turn: `prompt` from the person, `resume` to continue the
/// last session.
type Turn<'a> = dyn Fn(&str, bool) -> HostTurn + 'a;

/// The scenario both hosts go through. The model asks; the host gives up on
/// the call after its tool timeout (`gave_up` checks what it told the
/// model); while the host waits for its model, the question is in the
/// inbox, marked "asker gone" by the host's cancel; the person answers it
/// there and tells the model its id; the model's `{"resume": ID}` through
/// the same host gets the answer.
fn collect_later_through(
    network: &Network,
    inbox: &NetworkInbox,
    client_name: &str,
    turn: &Turn,
    gave_up: impl Fn(&Value),
) {
    let question: Value = serde_json::from_str(QUESTION).unwrap();
    let mut first = turn("Ask me which database to use.", false);
    let call = first.next_event(network, "called ask_user");
    assert_eq!(call["event"], "call", "{call}");
    assert_eq!(call["input"], question);
    let result = first.next_event(network, "saw the call's result");
    assert_eq!(result["event"], "result", "{result}");
    gave_up(&result);

    let kept = inbox.kept_question();
    let id = kept["inboxId"].as_str().unwrap().to_string();
    assert_eq!(kept["source"]["name"], client_name, "{kept}");
    assert_eq!(
        kept["document"]["prompt"]["question"], question["question"],
        "{kept}"
    );
    // "away": the host's own cancel (notifications/cancelled) reached ask_user.
    assert_eq!(kept["askerGone"]["reason"], "away", "{kept}");
    network.go_on();
    let (code, text) = first.finish();
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("MOCK MODEL SAW TOOL RESULT"), "{text}");
    // The host and its MCP server are gone; the question stays.
    let (code, pending) = inbox.verb(&["list"]);
    assert_eq!((code, pending.len()), (0, 1), "{pending:?}");

    let answer = postgres_answer(&id);
    let (code, answered) = inbox.verb(&["answer", &id, "--reply", "2"]);
    assert_eq!((code, answered), (0, vec![answer.clone()]));

    let mut second = turn(&format!("I answered question {id} in the inbox."), true);
    let call = second.next_event(network, "resumed");
    assert_eq!(call["input"], json!({"resume": id}), "{call}");
    second.ends_with_the_answer(network, "saw the resumed result", &answer);
    assert_eq!(inbox.verb(&["list"]), (0, vec![]));
}

fn codex_gives_up_at_its_tool_timeout_and_a_resume_collects_the_answer() {
    let codex = codex();
    let network = Network::start();
    let scratch = Scratch::new();
    let state = scratch.path("state");
    let inbox = NetworkInbox::start(&network, &state);
    let quoted = |text: &str| serde_json::to_string(text).unwrap();
    // Codex declares forms but declines them in `exec`: --no-elicitation
    // sends the question to the inbox.
    let mcp_servers = format!(
        r#"[mcp_servers.ask_user]
command = {bin}
args = ["mcp", "--fallback", "inbox", "--no-elicitation"]
env = {{ ASK_USER_STATE_DIR = {state} }}
tool_timeout_sec = {TOOL_TIMEOUT_SECONDS}
"#,
        bin = quoted(bin()),
        state = quoted(state.to_str().unwrap()),
    );
    let turn = |prompt: &str, resume: bool| {
        let mut command = network.codex(&codex, &scratch, &mcp_servers);
        command.arg("exec");
        if resume {
            command.args(["resume", "--last"]);
        }
        command.args(["--skip-git-repo-check", prompt]);
        HostTurn::start(&mut command, &scratch.path("codex.log"), HOST_TURN)
    };
    collect_later_through(&network, &inbox, "codex-mcp-client", &turn, |result| {
        let text = result_text(&result["content"]);
        let timed_out = format!("timed out awaiting tools/call after {TOOL_TIMEOUT_SECONDS}s");
        assert!(text.contains(&timed_out), "{result}");
    });
}

fn claude_code_gives_up_at_its_mcp_tool_timeout_and_a_resume_collects_the_answer() {
    let claude = claude_code();
    let network = Network::start();
    let scratch = Scratch::new();
    let state = scratch.path("state");
    let inbox = NetworkInbox::start(&network, &state);
    // Without --no-elicitation Claude Code's print mode cancels the form.
    let mcp = json!({"mcpServers": {"ask_user": {
        "command": bin(), "args": ["mcp", "--fallback", "inbox", "--no-elicitation"],
        "env": {"ASK_USER_STATE_DIR": state},
    }}});
    let timeout_ms = (TOOL_TIMEOUT_SECONDS * 1000).to_string();
    let turn = |prompt: &str, resume: bool| {
        let mut command = network.claude(&claude, &scratch);
        command.arg("-p");
        if resume {
            command.arg("--continue");
        }
        command
            .arg(prompt)
            .args(["--mcp-config", &mcp.to_string(), "--strict-mcp-config"])
            .args(["--allowedTools", "mcp__ask_user__ask_user"])
            .args(["--output-format", "json"])
            .env("MCP_TOOL_TIMEOUT", &timeout_ms);
        HostTurn::start(&mut command, &scratch.path("claude.log"), HOST_TURN)
    };
    collect_later_through(&network, &inbox, "claude-code", &turn, |result| {
        assert_eq!(result["is_error"], true, "{result}");
        let timed_out = format!(
            "MCP server \"ask_user\" tool \"ask_user\" timed out after {TOOL_TIMEOUT_SECONDS}s"
        );
        assert_eq!(result_text(&result["content"]), timed_out, "{result}");
    });
}

common::harness::main!(
    claude_code_lists_the_server_as_connected,
    claude_code_print_mode_returns_the_answer_to_the_model,
    claude_code_print_mode_returns_a_decline_to_the_model,
    claude_code_print_mode_returns_invalid_reply_for_an_empty_form,
    amp_connects_over_mcp_and_has_no_toolboxes,
    codex_gives_up_at_its_tool_timeout_and_a_resume_collects_the_answer,
    claude_code_gives_up_at_its_mcp_tool_timeout_and_a_resume_collects_the_answer,
);
