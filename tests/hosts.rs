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
use common::stand_in::{HostTurn, Network, QUESTION, document_in, postgres_answer, result_text};

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
               "answers": [{"questionId": "q1", "values": ["Postgres"], "optionIds": ["2"]}],
               "answeredBy": common::answered_by("form")})
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

// ---- The host's own questions, answered in the inbox (issue 38) ----
//
// Claude Code 2.1.330 runs `ask_user hook claude-code` as its PreToolUse hook
// (matcher AskUserQuestion) and its Elicitation hook, written by hand in the
// scratch HOME's settings.json as `setup --hooks` writes them. Print mode
// offers AskUserQuestion only with a permission prompt tool
// (`--permission-prompt-tool`): tests/hosts/host_prompt_server.py stands in
// for the host's own UI there (it records the request and denies it).

/// What the stand-in model asks through AskUserQuestion.
fn ask_tool_input() -> Value {
    json!({"questions": [{"question": "Which database?", "header": "Database",
        "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "Postgres", "description": "a server"}]}]})
}

/// The hook's own `--timeout` and Claude Code's `timeout` for the hook, in seconds.
type Timeouts = (&'static str, u64);
/// The person has a minute; Claude Code waits for the hook for two.
const A_MINUTE: Timeouts = ("60", 120);
/// The hook gives "no answer" after 2 s.
const TWO_SECONDS: Timeouts = ("2", 120);

/// Claude Code's settings with the hooks: `ask_user hook claude-code
/// --timeout SECONDS` for AskUserQuestion and for any server's form.
fn hook_settings((timeout, host_timeout): Timeouts) -> Value {
    let command = format!("'{}' hook claude-code --timeout {timeout}", bin());
    let hooks = json!([{"type": "command", "command": command, "timeout": host_timeout}]);
    json!({"hooks": {
        "PreToolUse": [{"matcher": "AskUserQuestion", "hooks": hooks}],
        "Elicitation": [{"matcher": "", "hooks": hooks}],
    }})
}

/// One `claude -p` turn on `network` (tests/hosts/claude_hook.py) whose
/// model calls `tool`; with `second_server`, ask_user's own MCP server is
/// connected too (the server whose form the Elicitation hook answers).
struct HookTurn {
    child: common::process::ChildGuard,
}

impl HookTurn {
    fn start(
        network: &Network,
        scratch: &Scratch,
        state: &Path,
        (tool, input): (&str, Value),
        timeouts: Timeouts,
    ) -> HookTurn {
        let claude = claude_code();
        let python = common::clients::mcp_python();
        let settings = scratch.home().join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, hook_settings(timeouts).to_string()).unwrap();
        let prompt_server = tests_dir("hosts").join("host_prompt_server.py");
        let mut servers = json!({"host": {"command": python, "args": [prompt_server]}});
        let mut args = vec!["--permission-prompt-tool", "mcp__host__prompt"];
        if tool != "AskUserQuestion" {
            servers["ask_user"] = json!({"command": bin(), "args": ["mcp"]});
            args.extend(["--allowedTools", tool]);
        }
        let scenario = json!({
            "claude": claude, "home": scratch.home(), "project": scratch.project(),
            "tool": tool, "tool_input": input, "mcp": {"mcpServers": servers},
            "args": args,
            "env": {"ASK_USER_STATE_DIR": state,
                    "HOST_PROMPT_SEEN": scratch.path("host-ui.jsonl")},
            "timeout": HOST_TURN.as_secs(),
        });
        let mut command = network.command("python3");
        command
            .arg(tests_dir("hosts").join("claude_hook.py"))
            .env_remove("ASK_USER_INBOX")
            .env_remove("ASK_USER_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = common::process::ChildGuard::spawn(&mut command).unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(scenario.to_string().as_bytes())
            .unwrap();
        HookTurn { child }
    }

    /// claude_hook.py's report, once the turn is over: Claude Code exited 0
    /// and its model saw exactly one tool result, returned as (is_error, text).
    fn tool_result(self) -> (bool, String) {
        let output = self.child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "claude_hook.py: {stderr}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["exit"], 0, "{report}");
        assert_eq!(report["result"], "MOCK MODEL SAW TOOL RESULT", "{report}");
        let results = report["tool_results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{report}");
        (
            results[0]["is_error"].as_bool().unwrap(),
            result_text(&results[0]["content"]),
        )
    }
}

fn set_away(state: &Path, on: bool) {
    let status = std::process::Command::new(bin())
        .args(["away", if on { "on" } else { "off" }])
        .env("ASK_USER_STATE_DIR", state)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

impl NetworkInbox<'_> {
    /// The one question in the inbox, once it is there.
    fn the_question(&self) -> Value {
        let deadline = Instant::now() + HOST_TURN;
        loop {
            let (code, pending) = self.verb(&["list"]);
            assert_eq!(code, 0, "{pending:?}");
            if let [question] = pending.as_slice() {
                return question.clone();
            }
            assert!(Instant::now() < deadline, "no question in the inbox");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Asks through the hook while away and answers `replies` in the inbox:
/// the question there, and what the model got.
fn answered_in_the_inbox(tool: (&str, Value), replies: &[&str]) -> (Value, (bool, String)) {
    let network = Network::start();
    let scratch = Scratch::new();
    let state = scratch.path("state");
    let inbox = NetworkInbox::start(&network, &state);
    set_away(&state, true);
    let turn = HookTurn::start(&network, &scratch, &state, tool, A_MINUTE);
    let question = inbox.the_question();
    let id = question["inboxId"].as_str().unwrap();
    let mut answer = vec!["answer", id];
    for reply in replies {
        answer.extend(["--reply", reply]);
    }
    let (code, answered) = inbox.verb(&answer);
    assert_eq!(code, 0, "{answered:?}");
    let result = turn.tool_result();
    assert_eq!(inbox.verb(&["list"]), (0, vec![]));
    (question, result)
}

/// What a turn left when nobody answered in the inbox.
struct Unanswered {
    /// What the model got: (is_error, text).
    result: (bool, String),
    /// The inbox's pending questions after the turn.
    pending: Vec<Value>,
    /// The requests that reached the host's own UI (host_prompt_server.py).
    host_ui: Vec<Value>,
}

/// Asks through the hook (the person `away` or not); nobody answers in the inbox.
fn not_answered(tool: (&str, Value), away: bool, timeouts: Timeouts) -> Unanswered {
    let network = Network::start();
    let scratch = Scratch::new();
    let state = scratch.path("state");
    let inbox = NetworkInbox::start(&network, &state);
    set_away(&state, away);
    let result = HookTurn::start(&network, &scratch, &state, tool, timeouts).tool_result();
    let (code, pending) = inbox.verb(&["list"]);
    assert_eq!(code, 0);
    let host_ui = std::fs::read_to_string(scratch.path("host-ui.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    Unanswered {
        result,
        pending,
        host_ui,
    }
}

/// The host's own UI was asked `input`, once, through AskUserQuestion, and
/// denied it (what the model then reads); the inbox holds nothing.
fn assert_the_hosts_own_ui_asked(unanswered: &Unanswered, input: &Value) {
    assert_eq!(
        unanswered.host_ui,
        [json!({"tool_name": "AskUserQuestion", "input": input})]
    );
    assert_eq!(unanswered.result, (true, "THE HOST'S OWN UI".to_string()));
    assert_eq!(unanswered.pending, Vec::<Value>::new());
}

fn the_ask_tool() -> (&'static str, Value) {
    ("AskUserQuestion", ask_tool_input())
}

fn a_servers_form() -> (&'static str, Value) {
    (
        "mcp__ask_user__ask_user",
        serde_json::from_str(QUESTION).unwrap(),
    )
}

fn claude_code_ask_tool_away_is_answered_in_the_inbox() {
    let (question, result) = answered_in_the_inbox(the_ask_tool(), &["2"]);
    assert_eq!(
        question["source"]["name"], "Claude Code (hook)",
        "{question}"
    );
    assert_eq!(
        question["document"]["prompt"]["question"],
        "Which database?"
    );
    assert_eq!(
        result,
        (
            false,
            "Your questions have been answered: \"Which database?\"=\"Postgres\". \
             You can now continue with these answers in mind."
                .to_string()
        )
    );
}

fn claude_code_ask_tool_at_the_keyboard_goes_to_the_hosts_own_ui() {
    // The hook stepped aside (exit 0, no output): Claude Code asked its own UI.
    let unanswered = not_answered(the_ask_tool(), false, A_MINUTE);
    assert_the_hosts_own_ui_asked(&unanswered, &ask_tool_input());
}

fn claude_code_ask_tool_away_and_unanswered_says_nobody_answered() {
    let unanswered = not_answered(the_ask_tool(), true, TWO_SECONDS);
    assert_eq!(
        unanswered.result,
        (false, "The user did not answer the questions.".to_string())
    );
    // The host's UI was not asked; the inbox keeps the question, "asker
    // gone" (as after `ask --ui inbox --timeout`).
    assert_eq!(unanswered.host_ui, Vec::<Value>::new());
    assert_eq!(unanswered.pending.len(), 1, "{:?}", unanswered.pending);
    assert_eq!(unanswered.pending[0]["askerGone"]["reason"], "timeout");
}

fn claude_code_goes_on_with_its_own_ui_when_the_hook_cannot_ask() {
    // An option label over 200 characters: Claude Code takes it, ask_user
    // does not (INVALID_OPTIONS); the hook exits 1 with one line on stderr.
    let mut input = ask_tool_input();
    input["questions"][0]["options"][1]["label"] = json!("Postgres ".repeat(23));
    let unanswered = not_answered(("AskUserQuestion", input.clone()), true, A_MINUTE);
    assert_the_hosts_own_ui_asked(&unanswered, &input);
}

fn claude_code_ending_the_hook_first_asks_in_its_own_ui_and_the_inbox_keeps_it() {
    // Claude Code's timeout for the hook (3 s) before the hook's own (60 s):
    // Claude Code ends the hook and goes on with its own UI; the question
    // stays in the inbox, "asker gone" (away). Hence the hook's --timeout
    // must stay below Claude Code's.
    let unanswered = not_answered(the_ask_tool(), true, ("60", 3));
    assert_eq!(unanswered.host_ui.len(), 1, "{:?}", unanswered.host_ui);
    assert_eq!(unanswered.result, (true, "THE HOST'S OWN UI".to_string()));
    assert_eq!(unanswered.pending.len(), 1, "{:?}", unanswered.pending);
    assert_eq!(unanswered.pending[0]["askerGone"]["reason"], "away");
}

fn claude_code_form_away_is_answered_in_the_inbox() {
    // ask_user's form has the question and an optional note (`q1.note`):
    // two questions in the inbox, the note skipped.
    let (question, (is_error, text)) = answered_in_the_inbox(a_servers_form(), &["2", ""]);
    assert_eq!(
        question["source"]["name"], "Claude Code (hook)",
        "{question}"
    );
    let asked = &question["document"]["prompts"];
    assert_eq!(
        asked[0]["question"], "Which database should we use?",
        "{question}"
    );
    assert_eq!(asked[0]["kind"], "single_select", "{question}");
    assert_eq!(asked[1]["kind"], "text", "{question}");
    assert!(!is_error, "{text}");
    assert_eq!(
        document_in(&text),
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": true,
               "cancelled": false, "timedOut": false,
               "answers": [{"questionId": "q1", "values": ["Postgres"], "optionIds": ["2"]}],
               "answeredBy": common::answered_by("form")})
    );
}

fn claude_code_form_at_the_keyboard_is_the_hosts_own() {
    let unanswered = not_answered(a_servers_form(), false, A_MINUTE);
    assert_eq!(unanswered.pending, Vec::<Value>::new());
    let (is_error, text) = unanswered.result;
    assert!(!is_error, "{text}");
    // Print mode has no UI for a form: Claude Code cancels it.
    assert_eq!(
        document_in(&text),
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
               "cancelled": true, "timedOut": false, "answers": []})
    );
}

fn claude_code_form_away_and_unanswered_is_cancelled() {
    let unanswered = not_answered(a_servers_form(), true, TWO_SECONDS);
    assert_eq!(unanswered.pending.len(), 1, "{:?}", unanswered.pending);
    let (is_error, text) = unanswered.result;
    assert!(!is_error, "{text}");
    assert_eq!(
        document_in(&text),
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
               "cancelled": true, "timedOut": false, "answers": []})
    );
}

common::harness::main!(
    claude_code_lists_the_server_as_connected,
    claude_code_print_mode_returns_the_answer_to_the_model,
    claude_code_print_mode_returns_a_decline_to_the_model,
    claude_code_print_mode_returns_invalid_reply_for_an_empty_form,
    amp_connects_over_mcp_and_has_no_toolboxes,
    codex_gives_up_at_its_tool_timeout_and_a_resume_collects_the_answer,
    claude_code_gives_up_at_its_mcp_tool_timeout_and_a_resume_collects_the_answer,
    claude_code_ask_tool_away_is_answered_in_the_inbox,
    claude_code_ask_tool_at_the_keyboard_goes_to_the_hosts_own_ui,
    claude_code_ask_tool_away_and_unanswered_says_nobody_answered,
    claude_code_goes_on_with_its_own_ui_when_the_hook_cannot_ask,
    claude_code_ending_the_hook_first_asks_in_its_own_ui_and_the_inbox_keeps_it,
    claude_code_form_away_is_answered_in_the_inbox,
    claude_code_form_at_the_keyboard_is_the_hosts_own,
    claude_code_form_away_and_unanswered_is_cancelled,
);
