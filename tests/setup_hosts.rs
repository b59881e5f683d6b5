//! The hosts' own CLIs read what `ask_user setup` wrote, offline, in a
//! temporary HOME: `codex mcp get ask_user --json` (command, `mcp`,
//! tool_timeout_sec), `gemini mcp list` (the server is listed), `claude mcp
//! list` (✔ Connected: Claude Code started the server) and `amp mcp doctor`
//! (connected, 1 tool). Each test then breaks the key setup wrote and checks
//! that the host no longer sees the server, so a wrong key fails the test.
//!
//! The hosts are the optional group that `.ci/setup-hosts.sh` installs
//! (pinned, in tests/hosts); without them these tests count as ignored, and
//! fail under CI.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::bin;
use common::clients::{amp, claude_code, codex, gemini, node22_path, offline};
use serde_json::Value;

/// A temporary home with a project folder to run the CLIs in.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(home.project()).unwrap();
        home
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    fn env(&self, command: &mut Command) {
        command
            .env("HOME", self.root())
            .env("XDG_CONFIG_HOME", self.root().join(".config"))
            .env("CODEX_HOME", self.root().join(".codex"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("TOOLBOX_ACTION")
            .current_dir(self.project());
    }

    fn setup(&self, host: &str) -> PathBuf {
        let mut command = Command::new(bin());
        command.args(["setup", host]);
        self.env(&mut command);
        // setup refuses a binary in the temporary folder: a checkout under
        // /tmp must not look like one (the hosts keep the real TMPDIR).
        command.env("TMPDIR", self.root().join("tmp"));
        let out = command.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line: Value = serde_json::from_slice(&out.stdout).unwrap();
        PathBuf::from(line["path"].as_str().unwrap())
    }

    /// Runs a host CLI; its stdout and stderr together.
    /// Runs a host, offline, with Node 22 first on PATH.
    fn host(&self, program: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
        let mut command = offline(program);
        command.args(args).env("PATH", node22_path());
        self.env(&mut command);
        for (key, value) in env {
            command.env(key, value);
        }
        let out = command.output().unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }
}

fn binary() -> String {
    fs::canonicalize(bin())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string()
}

/// Replaces `from` with `to` in the file (once, and it must be there).
fn break_key(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {text}");
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// `codex mcp get ask_user --json` shows the command, `mcp` first, and the
/// tool timeout setup wrote.
fn codex_sees(home: &Home, program: &Path) -> Result<(), String> {
    let out = home.host(program, &["mcp", "get", "ask_user", "--json"], &[]);
    let json = out
        .find("{\n")
        .map(|at| &out[at..])
        .ok_or_else(|| out.clone())?;
    // The JSON, then Codex's warnings on stderr.
    let server: Value = serde_json::Deserializer::from_str(json)
        .into_iter()
        .next()
        .and_then(Result::ok)
        .ok_or_else(|| out.clone())?;
    let ok = server["transport"]["command"] == binary().as_str()
        && server["transport"]["args"][0] == "mcp"
        && server["tool_timeout_sec"].as_f64() == Some(1860.0);
    if ok { Ok(()) } else { Err(out) }
}

fn codex_reads_the_entry() {
    let program = codex();
    let home = Home::new();
    let path = home.setup("codex");
    codex_sees(&home, &program).unwrap_or_else(|out| panic!("codex does not see it: {out}"));
    break_key(&path, "tool_timeout_sec", "tool_timeout");
    assert!(
        codex_sees(&home, &program).is_err(),
        "a wrong key must show"
    );
    break_key(&path, "[mcp_servers.ask_user]", "[mcp_server.ask_user]");
    assert!(
        codex_sees(&home, &program).is_err(),
        "a wrong table must show"
    );
}

/// `gemini mcp list` lists the server with the args setup wrote, and
/// connected to it (so `mcp --tool-name ask_person` started). Gemini starts
/// user servers only in a trusted folder; the project is trusted here.
fn gemini_lists(home: &Home, program: &Path) -> Result<(), String> {
    let out = home.host(program, &["mcp", "list"], &[]);
    let listed = format!(
        "✓ ask_user: {} mcp --tool-name ask_person (stdio) - Connected",
        binary()
    );
    if out.contains(&listed) {
        Ok(())
    } else {
        Err(out)
    }
}

fn gemini_lists_the_server() {
    let program = gemini();
    let home = Home::new();
    let path = home.setup("gemini");
    let trusted = serde_json::json!({ home.project().to_str().unwrap(): "TRUST_FOLDER" });
    fs::write(
        home.root().join(".gemini/trustedFolders.json"),
        trusted.to_string(),
    )
    .unwrap();
    gemini_lists(&home, &program).unwrap_or_else(|out| panic!("gemini does not list it: {out}"));
    break_key(&path, "\"mcpServers\"", "\"mcp_servers\"");
    assert!(
        gemini_lists(&home, &program).is_err(),
        "a wrong key must show"
    );
}

/// `claude mcp list` started the server and shows it connected.
fn claude_connects(home: &Home, program: &Path) -> Result<(), String> {
    let out = home.host(program, &["mcp", "list"], &[]);
    let connected = format!("ask_user: {} mcp - ✔ Connected", binary());
    if out.contains(&connected) {
        Ok(())
    } else {
        Err(out)
    }
}

fn claude_code_connects() {
    let program = claude_code();
    let home = Home::new();
    let path = home.setup("claude-code");
    claude_connects(&home, &program).unwrap_or_else(|out| panic!("claude does not connect: {out}"));
    break_key(&path, "\"command\"", "\"cmd\"");
    assert!(
        claude_connects(&home, &program).is_err(),
        "a wrong key must show"
    );
}

/// `amp mcp doctor` connected to the server and found its one tool.
fn amp_connects(home: &Home, program: &Path) -> Result<(), String> {
    let out = home.host(program, &["mcp", "doctor"], &[("AMP_API_KEY", "dummy")]);
    if out.contains("ask_user (user settings): connected (1 tools: ask_user)") {
        Ok(())
    } else {
        Err(out)
    }
}

fn amp_connects_with_one_tool() {
    let program = amp();
    let home = Home::new();
    let path = home.setup("amp");
    amp_connects(&home, &program).unwrap_or_else(|out| panic!("amp does not connect: {out}"));
    break_key(&path, "\"amp.mcpServers\"", "\"amp.mcp_servers\"");
    assert!(
        amp_connects(&home, &program).is_err(),
        "a wrong key must show"
    );
}

common::harness::main!(
    codex_reads_the_entry,
    gemini_lists_the_server,
    claude_code_connects,
    amp_connects_with_one_tool,
);
