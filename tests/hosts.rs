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

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::clients::{amp, claude_code, codex, node22_path, offline, tests_dir};
use common::process::{exit_within, output_with_stdin};

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
    let (code, text) = scratch.run(
        &claude,
        &["mcp", "add", "ask_user", "--", bin(), "mcp"],
        &[],
    );
    assert_eq!(code, 0, "{text}");
    let (code, text) = scratch.run(&claude, &["mcp", "list"], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("ask_user: {} mcp - ✔ Connected", bin())),
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
    let (code, text) = scratch.run(&amp, &["mcp", "add", "ask_user", "--", bin(), "mcp"], &key);
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

// ---- Collect later through a host's own tool timeout (issue 26) ----

/// How long one host turn may take (its start-up on a loaded machine included).
const HOST_TURN: Duration = Duration::from_secs(120);
/// The hosts' tool timeout in these tests: far below ask_user's own 300 s.
const TOOL_TIMEOUT_SECONDS: u64 = 3;

/// A loopback network of its own (a network namespace, where `unshare`
/// allows it) holding the model stand-in; the inbox, the hosts and the
/// person's `inbox` verbs join it, so the hosts' calls home never leave the
/// machine and still reach the inbox.
struct Network {
    stand_in: Child,
    /// A line here lets the stand-in answer the host's next tool result.
    go_on: std::process::ChildStdin,
    namespaced: bool,
    /// The stand-in's lines after the first: what the model did and saw.
    events: Receiver<Value>,
    port: u16,
}

impl Network {
    fn start() -> Network {
        let mut command = offline("python3");
        let namespaced = command.get_program() == "unshare";
        let mut stand_in = command
            .arg(tests_dir("hosts").join("model_stand_in.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = stand_in.stdout.take().unwrap();
        let (send, events) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let event = serde_json::from_str(&line).unwrap_or_else(|_| json!({"line": line}));
                if send.send(event).is_err() {
                    return;
                }
            }
        });
        // It prints its port once it listens (in the namespace, loopback up).
        let first = events.recv_timeout(Duration::from_secs(30));
        let port = first
            .as_ref()
            .ok()
            .and_then(|first| first["port"].as_u64())
            .unwrap_or_else(|| panic!("the model stand-in did not start: {first:?}"));
        Network {
            go_on: stand_in.stdin.take().unwrap(),
            stand_in,
            namespaced,
            events,
            port: u16::try_from(port).unwrap(),
        }
    }

    /// `program` on this network.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        if !self.namespaced {
            return Command::new(program);
        }
        let mut command = Command::new("nsenter");
        command
            .arg(format!("--target={}", self.stand_in.id()))
            .args(["--net", "--"])
            .arg(program);
        command
    }

    /// Lets the model answer the tool result it holds: the host's turn ends.
    fn go_on(&self) {
        (&self.go_on).write_all(b"\n").unwrap();
    }

    /// Asserts the model did nothing more.
    fn no_more_events(&self) {
        let more: Vec<Value> = self.events.try_iter().collect();
        assert!(more.is_empty(), "the model did more: {more:?}");
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        let _ = self.stand_in.kill();
        let _ = self.stand_in.wait();
    }
}

/// A running `ask_user inbox` on `network`, with its own state folder.
struct NetworkInbox<'a> {
    network: &'a Network,
    child: Child,
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
            child,
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

impl Drop for NetworkInbox<'_> {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One host turn, running in a process group of its own (a host that
/// overruns or a failed test ends it whole), its output going to `log`.
struct HostTurn {
    child: Child,
    log: std::path::PathBuf,
}

impl HostTurn {
    fn start(command: &mut Command, log: &Path) -> HostTurn {
        let file = std::fs::File::create(log).unwrap();
        command
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        // Its own process group, so that the drop below ends the host's children too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(command, 0);
        let child = command.spawn().unwrap();
        HostTurn {
            child,
            log: log.to_path_buf(),
        }
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The model's next event; a failure when the host ends first or the
    /// turn takes over [`HOST_TURN`].
    fn next_event(&mut self, network: &Network, what: &str) -> Value {
        let deadline = Instant::now() + HOST_TURN;
        loop {
            match network.events.recv_timeout(Duration::from_millis(50)) {
                Ok(event) => return event,
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the model stand-in ended before it {what}")
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!(
                    "the host ended ({status}) before the model {what}: {}",
                    self.output()
                );
            }
            assert!(
                Instant::now() < deadline,
                "the model never {what} within {HOST_TURN:?}: {}",
                self.output()
            );
        }
    }

    /// Waits for the end of the turn: (exit code, stdout + stderr).
    fn finish(mut self) -> (i32, String) {
        let status = exit_within(&mut self.child, HOST_TURN, Duration::from_millis(50));
        let status = status.unwrap_or_else(|| {
            panic!("the host's turn took over {HOST_TURN:?}: {}", self.output())
        });
        (status.code().unwrap_or(-1), self.output())
    }
}

impl Drop for HostTurn {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            // SAFETY: kill(2) on the process group this test started.
            #[cfg(unix)]
            unsafe {
                libc::kill(-(self.child.id() as i32), libc::SIGKILL)
            };
            #[cfg(not(unix))]
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The text of a tool result as the host gave it to the model: a string,
/// content blocks, or Codex's output object.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| block["text"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(output) => result_text(output.get("content").unwrap_or(&Value::Null)),
        _ => String::new(),
    }
}

/// The answer document in a tool result's text (Codex puts its own lines first).
fn document_in(text: &str) -> Value {
    let line = text
        .lines()
        .find(|line| line.starts_with(r#"{"tool":"ask_user""#))
        .unwrap_or_else(|| panic!("no ask_user document in {text:?}"));
    serde_json::from_str(line).unwrap()
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

    let answer = json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": true,
        "cancelled": false, "timedOut": false, "inboxId": id,
        "answers": [{"questionId": "q1", "values": ["Postgres"], "optionIds": ["2"]}]});
    let (code, answered) = inbox.verb(&["answer", &id, "--reply", "2"]);
    assert_eq!((code, answered), (0, vec![answer.clone()]));

    let mut second = turn(&format!("I answered question {id} in the inbox."), true);
    let call = second.next_event(network, "resumed");
    assert_eq!(call["input"], json!({"resume": id}), "{call}");
    let result = second.next_event(network, "saw the resumed result");
    assert_eq!(result["event"], "result", "{result}");
    assert_ne!(result["is_error"], true, "{result}");
    assert_eq!(document_in(&result_text(&result["content"])), answer);
    network.go_on();
    let (code, text) = second.finish();
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("MOCK MODEL SAW TOOL RESULT"), "{text}");
    network.no_more_events();
    assert_eq!(inbox.verb(&["list"]), (0, vec![]));
}

fn codex_gives_up_at_its_tool_timeout_and_a_resume_collects_the_answer() {
    let codex = codex();
    let network = Network::start();
    let scratch = Scratch::new();
    let state = scratch.dir.path().join("state");
    let inbox = NetworkInbox::start(&network, &state);
    let codex_home = scratch.home().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let quoted = |text: &str| serde_json::to_string(text).unwrap();
    // Codex declares forms but declines them in `exec`: --no-elicitation
    // sends the question to the inbox.
    let config = format!(
        r#"model = "stand-in"
model_provider = "stand_in"
approval_policy = "never"

[model_providers.stand_in]
name = "model stand-in"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.ask_user]
command = {bin}
args = ["mcp", "--fallback", "inbox", "--no-elicitation"]
env = {{ ASK_USER_STATE_DIR = {state} }}
tool_timeout_sec = {TOOL_TIMEOUT_SECONDS}
"#,
        port = network.port,
        bin = quoted(bin()),
        state = quoted(state.to_str().unwrap()),
    );
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    let turn = |prompt: &str, resume: bool| {
        let mut command = network.command(&codex);
        command.arg("exec");
        if resume {
            command.args(["resume", "--last"]);
        }
        command
            .args(["--skip-git-repo-check", prompt])
            .env("HOME", scratch.home())
            .env("CODEX_HOME", &codex_home)
            .env("PATH", node22_path())
            .current_dir(scratch.project());
        HostTurn::start(&mut command, &scratch.dir.path().join("codex.log"))
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
    let state = scratch.dir.path().join("state");
    let inbox = NetworkInbox::start(&network, &state);
    // Without --no-elicitation Claude Code's print mode cancels the form.
    let mcp = json!({"mcpServers": {"ask_user": {
        "command": bin(), "args": ["mcp", "--fallback", "inbox", "--no-elicitation"],
        "env": {"ASK_USER_STATE_DIR": state},
    }}});
    let timeout_ms = (TOOL_TIMEOUT_SECONDS * 1000).to_string();
    let turn = |prompt: &str, resume: bool| {
        let mut command = network.command(&claude);
        command.arg("-p");
        if resume {
            command.arg("--continue");
        }
        command
            .arg(prompt)
            .args(["--mcp-config", &mcp.to_string(), "--strict-mcp-config"])
            .args(["--allowedTools", "mcp__ask_user__ask_user"])
            .args(["--output-format", "json"])
            .env("HOME", scratch.home())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env(
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", network.port),
            )
            .env("ANTHROPIC_API_KEY", "dummy")
            .env("MCP_TOOL_TIMEOUT", &timeout_ms)
            // Offer the MCP tool to the model directly, not through tool search.
            .env("ENABLE_TOOL_SEARCH", "false")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .current_dir(scratch.project());
        HostTurn::start(&mut command, &scratch.dir.path().join("claude.log"))
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
