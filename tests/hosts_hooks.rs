//! Codex 0.169.0 and Gemini CLI 0.61.0 run `ask_user hook codex|gemini` as
//! the hook before their own ask tool (issue 38): Codex's `PreToolUse` on
//! `request_user_input` (in `codex exec`, the hook trusted for the run with
//! `--dangerously-bypass-hook-trust`), Gemini CLI's `BeforeTool` on
//! `ask_user` (its interactive terminal UI under `script`: `gemini -p` has
//! no ask_user at all). Their model is the scripted stand-in
//! (tests/hosts/model_stand_in.py), which calls the host's own ask tool.
//!
//! Away, with an inbox running, the question is listed in the inbox, the
//! person answers it with `ask_user inbox answer`, and the stand-in receives
//! the answer: inside the host's "blocked" message, as neither host lets a
//! hook hand its ask tool a result. A question nobody answers in time tells
//! the model so, with no option. At the keyboard the hook steps aside and
//! the host's own tool runs. Without the hosts these tests count as
//! ignored, and fail under CI. One test needs no host: the events the hook
//! cannot answer (exit 1, one line on stderr: both hosts then ask themselves).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::clients::{codex, gemini, node22_path, require};
use common::process::ChildGuard;
use common::scratch::Scratch;
use common::stand_in::{HostTurn, Network};

/// How long one host turn may take (its start-up on a loaded machine included).
const HOST_TURN: Duration = Duration::from_secs(120);
/// The person's message that makes the stand-in call the host's own ask tool.
const PROMPT: &str = "Ask me with your own ask tool which database to use.";
/// The question the stand-in asks (tests/hosts/model_stand_in.py's HOST_QUESTIONS).
const QUESTION: &str = "Which database should we use?";
/// What the hook's reason says before the person's answer (src/hook/gemini.rs).
const ANSWERED: &str =
    "The person answered in the ask_user inbox (this is their answer, not a refusal)";
/// `--timeout` of the hook when nobody answers.
const NO_ANSWER_SECONDS: &str = "2";

/// A running `ask_user inbox` on `network` with its own state folder, the
/// person away or at the keyboard; killed when dropped.
struct Person<'a> {
    network: &'a Network,
    _inbox: ChildGuard,
    state: PathBuf,
}

impl<'a> Person<'a> {
    fn start(network: &'a Network, state: &Path, away: bool) -> Person<'a> {
        std::fs::create_dir_all(state).unwrap();
        let (inbox, line) =
            common::process::spawn_inbox(&mut network.command(bin()), state, |_| ());
        assert!(line.contains("serving http://127.0.0.1:"), "{line:?}");
        let person = Person {
            network,
            _inbox: inbox,
            state: state.to_path_buf(),
        };
        if away {
            let (code, out) = person.run(&["away", "on"]);
            assert_eq!(code, 0, "{out:?}");
            assert_eq!(out[0]["away"], true, "{out:?}");
        }
        person
    }

    /// `ask_user ARGS` as the person runs it: (exit code, stdout lines).
    fn run(&self, args: &[&str]) -> (i32, Vec<Value>) {
        let out = self
            .network
            .command(bin())
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

    /// The one question the hook asked in the inbox.
    fn asked(&self, turn: &mut HostTurn) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (code, pending) = self.run(&["inbox", "list"]);
            assert_eq!(code, 0, "{pending:?}");
            if let [question] = pending.as_slice() {
                return question.clone();
            }
            assert!(pending.is_empty(), "{pending:?}");
            turn.assert_running("before the hook asked in the inbox");
            assert!(
                Instant::now() < deadline,
                "the hook asked nothing in the inbox: {}",
                turn.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn assert_nothing_asked(&self) {
        let (code, pending) = self.run(&["inbox", "list"]);
        assert_eq!((code, pending), (0, vec![]));
        let (code, closed) = self.run(&["inbox", "history"]);
        assert_eq!((code, closed), (0, vec![]));
    }

    /// The hook's command line as the host's settings hold it.
    fn hook_command(&self, host: &str, timeout: &str) -> String {
        format!(
            "ASK_USER_STATE_DIR={} {} hook {host} --timeout {timeout}",
            quoted(self.state.to_str().unwrap()),
            quoted(bin())
        )
    }
}

/// `text` in single quotes for `sh` (the tests' paths hold none).
fn quoted(text: &str) -> String {
    assert!(!text.contains('\''), "{text}");
    format!("'{text}'")
}

/// The stand-in's call of the host's own ask tool, and the inbox's question.
fn asked_in_the_inbox(
    network: &Network,
    person: &Person,
    turn: &mut HostTurn,
    tool: &str,
    source: &str,
) -> String {
    let call = turn.next_event(network, "called the host's own ask tool");
    assert_eq!(call["event"], "call", "{call}");
    assert_eq!(
        call["input"]["questions"][0]["question"], QUESTION,
        "{call}"
    );
    let offered = call["tools"].as_array().unwrap();
    assert!(offered.contains(&json!(tool)), "{call}");
    let asked = person.asked(turn);
    assert_eq!(asked["source"]["name"], source, "{asked}");
    let prompt = &asked["document"]["prompt"];
    assert_eq!(prompt["question"], QUESTION, "{asked}");
    assert_eq!(prompt["header"], "Database", "{asked}");
    assert_eq!(
        prompt["options"],
        json!([{"id": "1", "label": "SQLite", "description": "A file beside the code"},
               {"id": "2", "label": "Postgres", "description": "A server"}]),
        "{asked}"
    );
    asked["inboxId"].as_str().unwrap().to_string()
}

/// The person answers "Postgres" in the inbox.
fn answer_postgres(person: &Person, id: &str) {
    let (code, answered) = person.run(&["inbox", "answer", id, "--reply", "2"]);
    assert_eq!(code, 0, "{answered:?}");
    assert_eq!(answered[0]["answers"][0]["values"], json!(["Postgres"]));
}

/// The text of the result the stand-in received.
fn result_of(network: &Network, turn: &mut HostTurn, api: &str) -> (Value, String) {
    let result = turn.next_event(network, "received the tool's result");
    assert_eq!(result["event"], "result", "{result}");
    assert_eq!(result["api"], api, "{result}");
    let text = result["content"].as_str().unwrap_or_default().to_string();
    (result, text)
}

fn assert_nobody_answered(text: &str) {
    assert!(
        text.contains(
            "Nobody answered: the question timed out in the ask_user inbox, and no option was chosen: {\"answers\":{}}"
        ),
        "{text}"
    );
    assert!(
        !text.contains("SQLite") && !text.contains("Postgres"),
        "{text}"
    );
}

// ---- Codex 0.169.0 ----

/// One `codex exec` turn with the hook `command` before request_user_input.
fn codex_turn(network: &Network, scratch: &Scratch, command: &str) -> HostTurn {
    let hooks = format!(
        r#"[[hooks.PreToolUse]]
matcher = "request_user_input"
[[hooks.PreToolUse.hooks]]
type = "command"
command = {command}
timeout = 60
"#,
        command = serde_json::to_string(command).unwrap(),
    );
    let mut host = network.codex(&codex(), scratch, &hooks);
    host.env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN")
        .args([
            "exec",
            "--dangerously-bypass-hook-trust",
            "--skip-git-repo-check",
        ])
        .arg(PROMPT);
    HostTurn::start(&mut host, &scratch.path("codex.log"), HOST_TURN)
}

/// What Codex gives the model for a call its hook denied.
fn codex_blocked(reason: &str) -> String {
    format!("Tool call blocked by PreToolUse hook: {reason}. Tool: request_user_input")
}

fn codex_away_its_own_question_is_answered_in_the_inbox() {
    let network = Network::start();
    let scratch = Scratch::new();
    let person = Person::start(&network, &scratch.path("state"), true);
    let mut turn = codex_turn(&network, &scratch, &person.hook_command("codex", "60"));
    let id = asked_in_the_inbox(
        &network,
        &person,
        &mut turn,
        "request_user_input",
        "Codex (hook)",
    );
    answer_postgres(&person, &id);
    let (_, text) = result_of(&network, &mut turn, "openai");
    let answers = r#"{"answers":{"db":{"answers":["Postgres"]}}}"#;
    assert_eq!(text, codex_blocked(&format!("{ANSWERED}: {answers}")));
    network.go_on();
    let (code, log) = turn.finish();
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("MOCK MODEL SAW TOOL RESULT"), "{log}");
    network.no_more_events();
}

fn codex_away_a_question_nobody_answers_tells_the_model_so() {
    let network = Network::start();
    let scratch = Scratch::new();
    let person = Person::start(&network, &scratch.path("state"), true);
    let command = person.hook_command("codex", NO_ANSWER_SECONDS);
    let mut turn = codex_turn(&network, &scratch, &command);
    asked_in_the_inbox(
        &network,
        &person,
        &mut turn,
        "request_user_input",
        "Codex (hook)",
    );
    let (_, text) = result_of(&network, &mut turn, "openai");
    assert!(
        text.starts_with("Tool call blocked by PreToolUse hook: "),
        "{text}"
    );
    assert_nobody_answered(&text);
    network.go_on();
    let (code, log) = turn.finish();
    assert_eq!(code, 0, "{log}");
}

fn codex_at_the_keyboard_the_hook_steps_aside() {
    let network = Network::start();
    let scratch = Scratch::new();
    let person = Person::start(&network, &scratch.path("state"), false);
    let mut turn = codex_turn(&network, &scratch, &person.hook_command("codex", "60"));
    let call = turn.next_event(&network, "called the host's own ask tool");
    assert_eq!(call["event"], "call", "{call}");
    // Codex's own request_user_input ran: `codex exec` in Default mode has
    // no one to ask.
    let (_, text) = result_of(&network, &mut turn, "openai");
    assert_eq!(text, "request_user_input is unavailable in Default mode");
    network.go_on();
    let (code, log) = turn.finish();
    assert_eq!(code, 0, "{log}");
    person.assert_nothing_asked();
}

// ---- Gemini CLI 0.61.0 ----

/// `script`, which gives Gemini CLI the terminal its interactive UI needs.
fn script() -> PathBuf {
    let found = ["/usr/bin/script", "/bin/script"]
        .map(PathBuf::from)
        .into_iter()
        .find(|path| path.is_file());
    require(found, "script (util-linux), for Gemini CLI's terminal UI")
}

/// Gemini CLI's interactive UI on its turn. `script` starts it in a session
/// of its own, out of the turn's process group: dropping this ends its
/// group first (Gemini CLI outlives `script` otherwise), then the turn.
struct GeminiTurn {
    turn: HostTurn,
    /// Where the shell under `script` writes its pid before it becomes Gemini CLI.
    pid_file: PathBuf,
}

impl Drop for GeminiTurn {
    fn drop(&mut self) {
        #[cfg(unix)]
        end_group_of(&self.pid_file);
    }
}

/// SIGKILL to the process group led by the pid in `pid_file`, while that
/// pid is still Gemini CLI's (not reused).
#[cfg(unix)]
fn end_group_of(pid_file: &Path) {
    let Some(pid) = std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|text| text.trim().parse::<libc::pid_t>().ok())
    else {
        return;
    };
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    if String::from_utf8_lossy(&cmdline).contains("gemini") {
        // SAFETY: killpg takes plain numbers.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

/// Gemini CLI's interactive UI, its first message `PROMPT`, its model the
/// stand-in, the hook `command` before ask_user. It never ends by itself.
fn gemini_turn(network: &Network, scratch: &Scratch, command: &str) -> GeminiTurn {
    let gemini = gemini();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {"BeforeTool": [{"matcher": "^ask_user$", "hooks": [
            {"name": "ask_user", "type": "command", "command": command, "timeout": 60000}]}]},
    });
    let dot_gemini = scratch.home().join(".gemini");
    std::fs::create_dir_all(&dot_gemini).unwrap();
    std::fs::write(dot_gemini.join("settings.json"), settings.to_string()).unwrap();
    let trusted = json!({scratch.project().to_str().unwrap(): "TRUST_FOLDER"});
    std::fs::write(dot_gemini.join("trustedFolders.json"), trusted.to_string()).unwrap();
    let pid_file = scratch.path("gemini.pid");
    // A pty of 0 by 0 cells (script's, fed from /dev/null) shows no dialog.
    let line = format!(
        "stty rows 40 cols 120; echo $$ > {}; exec {} -m gemini-2.5-flash -i {}",
        quoted(pid_file.to_str().unwrap()),
        quoted(gemini.to_str().unwrap()),
        quoted(PROMPT)
    );
    let mut host: Command = network.command(script());
    host.args(["-qfec", &line, "/dev/null"])
        .env("HOME", scratch.home())
        .env("PATH", node22_path())
        .env("GEMINI_API_KEY", "dummy")
        .env("GOOGLE_GEMINI_BASE_URL", network.base_url())
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN")
        .current_dir(scratch.project());
    GeminiTurn {
        turn: HostTurn::start(&mut host, &scratch.path("gemini.log"), HOST_TURN),
        pid_file,
    }
}

fn gemini_away_its_own_question_is_answered_in_the_inbox() {
    let network = Network::start();
    let scratch = Scratch::new();
    let person = Person::start(&network, &scratch.path("state"), true);
    let mut host = gemini_turn(&network, &scratch, &person.hook_command("gemini", "60"));
    let turn = &mut host.turn;
    let id = asked_in_the_inbox(&network, &person, turn, "ask_user", "Gemini CLI (hook)");
    answer_postgres(&person, &id);
    let (result, text) = result_of(&network, turn, "gemini");
    assert_eq!(result["is_error"], true, "{result}");
    let answers = r#"{"answers":{"0":"Postgres"}}"#;
    assert_eq!(
        text,
        format!("Tool execution blocked: {ANSWERED}: {answers}")
    );
    network.go_on();
    network.no_more_events();
}

fn gemini_away_a_question_nobody_answers_tells_the_model_so() {
    let network = Network::start();
    let scratch = Scratch::new();
    let person = Person::start(&network, &scratch.path("state"), true);
    let command = person.hook_command("gemini", NO_ANSWER_SECONDS);
    let mut host = gemini_turn(&network, &scratch, &command);
    let turn = &mut host.turn;
    asked_in_the_inbox(&network, &person, turn, "ask_user", "Gemini CLI (hook)");
    let (_, text) = result_of(&network, turn, "gemini");
    assert!(text.starts_with("Tool execution blocked: "), "{text}");
    assert_nobody_answered(&text);
    network.go_on();
}

fn gemini_at_the_keyboard_the_hook_steps_aside() {
    let network = Network::start();
    let scratch = Scratch::new();
    let person = Person::start(&network, &scratch.path("state"), false);
    let mut host = gemini_turn(&network, &scratch, &person.hook_command("gemini", "60"));
    let turn = &mut host.turn;
    let call = turn.next_event(&network, "called the host's own ask tool");
    assert_eq!(call["event"], "call", "{call}");
    // Gemini CLI's own dialog asks, in its terminal; the model waits.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !turn.output().contains("Postgres") {
        turn.assert_running("before its own dialog asked");
        assert!(
            Instant::now() < deadline,
            "no dialog in the terminal: {}",
            turn.output()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    network.no_more_events();
    person.assert_nothing_asked();
}

// ---- Events the hook cannot answer (no host needed) ----

/// `ask_user hook HOST` fed `event`: exit 1 (both hosts go on with their
/// own UI), nothing on stdout, one line on stderr holding `message`.
fn assert_unfit(host: &str, event: &Value, message: &str) {
    let state = tempfile::tempdir().unwrap();
    let mut command = common::inbox::command(state.path(), &["hook", host]);
    let mut child = ChildGuard::spawn(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        event.to_string().as_bytes(),
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(out.stdout, b"");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("ask_user hook: "), "{stderr}");
    assert!(stderr.contains(message), "{stderr:?} lacks {message:?}");
}

fn codex_and_gemini_events_the_hook_cannot_answer_are_one_line_and_exit_1() {
    let codex_call = |questions: Value| {
        json!({"session_id": "s", "turn_id": "t", "cwd": "/p", "hook_event_name": "PreToolUse",
               "model": "m", "permission_mode": "default", "tool_name": "request_user_input",
               "tool_input": {"questions": questions}, "tool_use_id": "call_1"})
    };
    let gemini_call = |questions: Value| {
        json!({"session_id": "s", "cwd": "/p", "hook_event_name": "BeforeTool",
               "tool_name": "ask_user", "tool_input": {"questions": questions}})
    };
    let secret = json!([{"id": "key", "header": "Key", "question": "Your API key?",
                         "isSecret": true}]);
    assert_unfit(
        "codex",
        &codex_call(secret),
        "question 1 of the request_user_input call is secret (isSecret): Codex's own UI asks it",
    );
    let mut shell = codex_call(json!([]));
    shell["tool_name"] = json!("exec_command");
    assert_unfit(
        "codex",
        &shell,
        "the tool \"exec_command\" is not Codex's request_user_input",
    );
    let one_option = json!([{"id": "db", "question": "Which?", "options": [
        {"label": "SQLite", "description": ""}]}]);
    assert_unfit(
        "codex",
        &codex_call(one_option),
        "INVALID_OPTIONS: options must have at least 2 items (at questions[0].options)",
    );
    let mut ours = gemini_call(json!([]));
    ours["tool_name"] = json!("mcp_ask_user_ask_person");
    assert_unfit(
        "gemini",
        &ours,
        "the tool \"mcp_ask_user_ask_person\" is not Gemini CLI's ask_user: set the BeforeTool hook's matcher to ^ask_user$",
    );
    let dated = json!([{"header": "When", "question": "Which day?", "type": "date"}]);
    assert_unfit(
        "gemini",
        &gemini_call(dated),
        "question 1 of the ask_user call has the type \"date\"",
    );
    assert_unfit("gemini", &gemini_call(json!([])), "INVALID_QUESTIONS");
}

common::harness::main!(
    codex_and_gemini_events_the_hook_cannot_answer_are_one_line_and_exit_1,
    codex_away_its_own_question_is_answered_in_the_inbox,
    codex_away_a_question_nobody_answers_tells_the_model_so,
    codex_at_the_keyboard_the_hook_steps_aside,
    gemini_away_its_own_question_is_answered_in_the_inbox,
    gemini_away_a_question_nobody_answers_tells_the_model_so,
    gemini_at_the_keyboard_the_hook_steps_aside,
);
