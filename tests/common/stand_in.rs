//! The scripted stand-in for the models' APIs (tests/hosts/model_stand_in.py)
//! on a loopback network of its own, and one host turn against it: for the
//! tests that drive a real host over MCP (tests/hosts.rs's collect-later
//! tests, tests/mcp_http.rs).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::clients::{node22_path, offline, tests_dir};
use super::process::{ChildGuard, exit_within};
use super::scratch::Scratch;

/// The question the model stand-in asks (tests/hosts/model_stand_in.py).
pub const QUESTION: &str =
    r#"{"question":"Which database should we use?","options":["SQLite","Postgres"]}"#;

/// The answer document for [`QUESTION`] answered "Postgres" (`--reply 2`)
/// in the inbox, where it is `id`.
pub fn postgres_answer(id: &str) -> Value {
    json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": true,
        "cancelled": false, "timedOut": false, "inboxId": id,
        "answers": [{"questionId": "q1", "values": ["Postgres"], "optionIds": ["2"]}],
        "answeredBy": super::answered_by("cli")})
}

/// A loopback network of its own (a network namespace, where `unshare`
/// allows it) holding the model stand-in; an inbox, the hosts and the
/// person's `inbox` verbs join it through [`Network::command`], so the
/// hosts' calls home never leave the machine and still reach the inbox.
pub struct Network {
    /// Killed when the network is dropped.
    stand_in: ChildGuard,
    /// A line here lets the stand-in answer the host's next tool result.
    go_on: ChildStdin,
    namespaced: bool,
    /// The stand-in's lines after the first: what the model did and saw.
    pub events: Receiver<Value>,
    /// The stand-in's port on 127.0.0.1 (Anthropic `/v1/messages`, OpenAI `/v1/responses`).
    pub port: u16,
}

impl Network {
    pub fn start() -> Network {
        let mut command = offline("python3");
        let namespaced = command.get_program() == "unshare";
        let mut stand_in = ChildGuard::spawn(
            command
                .arg(tests_dir("hosts").join("model_stand_in.py"))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped()),
        )
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
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
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

    /// The stand-in's base URL for the hosts (`ANTHROPIC_BASE_URL`, `…/v1` for Codex).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Claude Code (`claude`, the caller adds `-p …`) on this network, in
    /// `scratch`, its model the Anthropic stand-in: the MCP tools offered to
    /// the model directly (not through tool search), no traffic home.
    pub fn claude(&self, claude: &Path, scratch: &Scratch) -> Command {
        let mut command = self.command(claude);
        command
            .env("HOME", scratch.home())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("ANTHROPIC_BASE_URL", self.base_url())
            .env("ANTHROPIC_API_KEY", "dummy")
            .env("ENABLE_TOOL_SEARCH", "false")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .current_dir(scratch.project());
        command
    }

    /// Codex (`codex`, under Node 22; the caller adds `exec …`) on this
    /// network, in `scratch`, its model the OpenAI Responses stand-in (no
    /// retries, no approvals) and its MCP servers `mcp_servers` (TOML
    /// tables), all in `scratch`'s `.codex/config.toml`.
    pub fn codex(&self, codex: &Path, scratch: &Scratch, mcp_servers: &str) -> Command {
        let codex_home = scratch.home().join(".codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        let config = format!(
            r#"model = "stand-in"
model_provider = "stand_in"
approval_policy = "never"

[model_providers.stand_in]
name = "model stand-in"
base_url = "{base}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

{mcp_servers}"#,
            base = self.base_url(),
        );
        std::fs::write(codex_home.join("config.toml"), config).unwrap();
        let mut command = self.command(codex);
        command
            .env("HOME", scratch.home())
            .env("CODEX_HOME", &codex_home)
            .env("PATH", node22_path())
            .current_dir(scratch.project());
        command
    }

    /// Lets the model answer the tool result it holds: the host's turn ends.
    pub fn go_on(&self) {
        (&self.go_on).write_all(b"\n").unwrap();
    }

    /// Asserts the model did nothing more.
    pub fn no_more_events(&self) {
        let more: Vec<Value> = self.events.try_iter().collect();
        assert!(more.is_empty(), "the model did more: {more:?}");
    }
}

/// One host turn, running in a process group of its own (a host that
/// overruns or a failed test ends it whole: its guard kills the group),
/// its output going to `log`.
pub struct HostTurn {
    child: ChildGuard,
    log: PathBuf,
    limit: Duration,
}

impl HostTurn {
    /// Starts `command`; the turn, and each wait on it, may take `limit`.
    pub fn start(command: &mut Command, log: &Path, limit: Duration) -> HostTurn {
        let file = std::fs::File::create(log).unwrap();
        command
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        let child = ChildGuard::spawn(command).unwrap();
        HostTurn {
            child,
            log: log.to_path_buf(),
            limit,
        }
    }

    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The model's next event; a failure when the host ends first or the
    /// wait takes over the turn's limit.
    pub fn next_event(&mut self, network: &Network, what: &str) -> Value {
        let deadline = Instant::now() + self.limit;
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
                "the model never {what} within {:?}: {}",
                self.limit,
                self.output()
            );
        }
    }

    /// Asserts the host is still running (it waits for a tool call, say).
    pub fn assert_running(&mut self, what: &str) {
        if let Some(status) = self.child.try_wait().unwrap() {
            panic!("the host ended ({status}) {what}: {}", self.output());
        }
    }

    /// The rest of a turn whose call the person answered: the model's next
    /// event (`what`) is a tool result that holds `answer`; the model then
    /// answers it, the turn ends cleanly, and the model did nothing more.
    pub fn ends_with_the_answer(mut self, network: &Network, what: &str, answer: &Value) {
        let result = self.next_event(network, what);
        assert_eq!(result["event"], "result", "{result}");
        assert_ne!(result["is_error"], true, "{result}");
        assert_eq!(&document_in(&result_text(&result["content"])), answer);
        network.go_on();
        let (code, text) = self.finish();
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("MOCK MODEL SAW TOOL RESULT"), "{text}");
        network.no_more_events();
    }

    /// Waits for the end of the turn: (exit code, stdout + stderr).
    pub fn finish(mut self) -> (i32, String) {
        let status = exit_within(&mut self.child, self.limit, Duration::from_millis(50));
        let status = status.unwrap_or_else(|| {
            panic!(
                "the host's turn took over {:?}: {}",
                self.limit,
                self.output()
            )
        });
        (status.code().unwrap_or(-1), self.output())
    }
}

/// The text of a tool result as the host gave it to the model: a string,
/// content blocks, or Codex's output object.
pub fn result_text(content: &Value) -> String {
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
pub fn document_in(text: &str) -> Value {
    let line = text
        .lines()
        .find(|line| line.starts_with(r#"{"tool":"ask_user""#))
        .unwrap_or_else(|| panic!("no ask_user document in {text:?}"));
    serde_json::from_str(line).unwrap()
}
