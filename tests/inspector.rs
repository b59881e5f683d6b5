//! `ask_user mcp` under the MCP Inspector CLI 2.12.0 and mcpdo 2.12.0 (both in
//! the npm package @modelcontextprotocol/inspector 2.12.0, run under Node 22;
//! installed by .ci/setup-hosts.sh). Both validate structuredContent against
//! the tool's advertised outputSchema and reject a result that does not match,
//! so every error path is driven through them: each must reach the caller as
//! an error result carrying its error document.
//!
//! The Inspector CLI declares no elicitation (every call takes the server's
//! fallback); mcpdo declares forms, so it also reaches INVALID_REPLY.
//! Without the clients these tests count as ignored, and fail under CI.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::bin;
use common::clients::{inspector_command, mcp_inspector, mcpdo};

/// What one CLI run printed: exit code, stdout as JSON, stderr.
struct Printed {
    code: i32,
    json: Value,
    stderr: String,
}

fn printed(command: &mut Command) -> Printed {
    let output = command.output().expect("the client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|_| panic!("stdout is not JSON: {stdout}\nstderr: {stderr}"));
    Printed {
        code: output.status.code().unwrap_or(-1),
        json,
        stderr,
    }
}

/// The code of an error result the client accepted: exit 5 ("the tool
/// returned isError"), the error document in the one text block, no
/// structuredContent; not the client's schema-validation error.
fn error_code(printed: &Printed) -> String {
    let result = &printed.json;
    assert_eq!(printed.code, 5, "{result}\n{}", printed.stderr);
    assert!(
        printed.stderr.contains("tool_is_error"),
        "{}",
        printed.stderr
    );
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "{result}");
    let document: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(document["status"], "error", "{document}");
    document["error"]["code"].as_str().unwrap().to_string()
}

/// Tool arguments as (key, value) pairs.
type ToolArgs = Vec<(String, String)>;

/// A question whose arguments come to more than 256 KiB, in pieces under the
/// kernel's 128 KiB limit for one command-line argument.
fn too_large_padding() -> ToolArgs {
    (1..=3)
        .map(|i| (format!("padding{i}"), "y".repeat(100_000)))
        .collect()
}

// ---- the Inspector CLI ----

/// `mcp-inspector --cli bin() SERVER_ARGS --method tools/call` with `tool_args`
/// (key=value, the value parsed as JSON where it is JSON).
fn inspector_call(home: &Path, server_args: &[&str], tool_args: &[(String, String)]) -> Printed {
    let mut command = inspector_command(&mcp_inspector(), home);
    command.arg("--cli").arg(bin()).args(server_args);
    command.args(["--method", "tools/call", "--tool-name", "ask_user"]);
    for (key, value) in tool_args {
        command.arg("--tool-arg").arg(format!("{key}={value}"));
    }
    printed(&mut command)
}

fn question(text: &str) -> ToolArgs {
    vec![
        ("question".to_string(), text.to_string()),
        (
            "options".to_string(),
            r#"["PostgreSQL","SQLite"]"#.to_string(),
        ),
    ]
}

fn inspector_lists_the_tool_with_no_portability_problem() {
    let home = tempfile::tempdir().unwrap();
    let mut command = inspector_command(&mcp_inspector(), home.path());
    command
        .arg("--cli")
        .arg(bin())
        .arg("mcp")
        .args(["--method", "tools/list", "--strict"]);
    let listed = printed(&mut command);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let tools = listed.json["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "ask_user");
    assert_eq!(tools[0]["outputSchema"]["type"], "object");
}

fn inspector_gets_every_error_result_and_the_relayed_prompt() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let mut too_large = question("Which database?");
    too_large.extend(too_large_padding());
    let cases: [(&[&str], ToolArgs, &str); 6] = [
        (&["mcp"], question(" "), "MISSING_QUESTION"),
        (&["mcp"], too_large, "INPUT_TOO_LARGE"),
        (
            &["mcp", "--fallback", "error"],
            question("Which database?"),
            "NO_ELICITATION",
        ),
        (
            &["mcp", "--fallback", "tty"],
            question("Which database?"),
            "NO_TTY",
        ),
        (
            &["mcp", "--fallback", "web", "--port", &port],
            question("Which database?"),
            "WEB_ERROR",
        ),
        (
            &["mcp"],
            vec![
                ("question".to_string(), "Pick".to_string()),
                ("options".to_string(), r#"["only one"]"#.to_string()),
            ],
            "INVALID_OPTIONS",
        ),
    ];
    for (server_args, tool_args, code) in cases {
        let called = inspector_call(home, server_args, &tool_args);
        assert_eq!(error_code(&called), code, "{server_args:?}");
    }

    // The fallback's prompt document validates as structuredContent.
    let relayed = inspector_call(home, &["mcp"], &question("Which database?"));
    assert_eq!(relayed.code, 0, "{}", relayed.stderr);
    assert_eq!(relayed.json["isError"], false);
    assert_eq!(
        relayed.json["structuredContent"]["prompt"]["question"],
        "Which database?"
    );
}

// ---- mcpdo ----

/// A private mcpdo daemon (`mcpdo private`) with named connections to the
/// server; stopped on drop.
struct Mcpdo {
    program: PathBuf,
    home: tempfile::TempDir,
    daemon: Vec<(String, String)>,
    config: PathBuf,
}

impl Mcpdo {
    /// `servers`: connection name → the server's arguments.
    fn start(servers: &[(&str, Vec<&str>)]) -> Mcpdo {
        let program = mcpdo();
        let home = tempfile::tempdir().unwrap();
        let output = inspector_command(&program, home.path())
            .arg("private")
            .output()
            .unwrap();
        assert!(output.status.success());
        // Lines of `export NAME='VALUE'`.
        let daemon = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                let (name, value) = line.strip_prefix("export ")?.split_once('=')?;
                Some((name.to_string(), value.trim_matches('\'').to_string()))
            })
            .collect::<Vec<_>>();
        assert!(
            daemon
                .iter()
                .any(|(name, _)| name == "MCP_INSPECTOR_DAEMON_DIR"),
            "{daemon:?}"
        );
        let entries: serde_json::Map<String, Value> = servers
            .iter()
            .map(|(name, args)| (name.to_string(), json!({"command": bin(), "args": args})))
            .collect();
        let config = home.path().join("servers.json");
        std::fs::write(&config, json!({"mcpServers": entries}).to_string()).unwrap();
        Mcpdo {
            program,
            home,
            daemon,
            config,
        }
    }

    fn command(&self) -> Command {
        let mut command = inspector_command(&self.program, self.home.path());
        command.envs(self.daemon.iter().map(|(k, v)| (k, v)));
        command.args(["--format", "json"]);
        command
    }

    fn connect(&self, name: &str, args: &[&str]) {
        let mut command = self.command();
        command
            .arg("--config")
            .arg(&self.config)
            .args(["connect", name])
            .args(args);
        let connected = printed(&mut command);
        assert_eq!(connected.code, 0, "{}", connected.stderr);
        assert_eq!(connected.json["name"], name);
    }

    /// tools/call with `key:=value` arguments.
    fn call(&self, connection: &str, arguments: &[(String, String)]) -> Printed {
        let mut command = self.command();
        command.args(["--connection", connection, "tools/call", "ask_user"]);
        command.args(arguments.iter().map(|(k, v)| format!("{k}:={v}")));
        printed(&mut command)
    }

    fn respond(&self, pending: &Printed, reply: &str) -> Printed {
        let id = pending.json["elicitationPending"]["elicitationId"]
            .as_str()
            .unwrap_or_else(|| panic!("no form: {}", pending.json));
        let mut command = self.command();
        command.args(["elicitation/respond", id, reply]);
        printed(&mut command)
    }
}

impl Drop for Mcpdo {
    fn drop(&mut self) {
        let _ = self
            .command()
            .args(["daemon", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // `mcpdo private` made the daemon's folder (under /tmp); nothing else uses it.
        for (name, dir) in &self.daemon {
            if name == "MCP_INSPECTOR_DAEMON_DIR" {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

fn mcpdo_gets_every_error_result_in_both_eras() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let mcpdo = Mcpdo::start(&[
        ("legacy", vec!["mcp"]),
        ("modern", vec!["mcp"]),
        ("error", vec!["mcp", "--fallback", "error"]),
        ("tty", vec!["mcp", "--fallback", "tty"]),
        ("web", vec!["mcp", "--fallback", "web", "--port", &port]),
    ]);
    mcpdo.connect("legacy", &["--era", "legacy"]);
    mcpdo.connect("modern", &["--era", "modern"]);
    for era in ["legacy", "modern"] {
        assert_eq!(
            error_code(&mcpdo.call(era, &question(" "))),
            "MISSING_QUESTION"
        );
        let mut too_large = question("Which database?");
        too_large.extend(
            too_large_padding()
                .into_iter()
                .map(|(k, v)| (k, format!("{v:?}"))),
        );
        assert_eq!(error_code(&mcpdo.call(era, &too_large)), "INPUT_TOO_LARGE");

        // A form answered with nothing: INVALID_REPLY.
        let pending = mcpdo.call(era, &question("Which database?"));
        assert_eq!(pending.code, 0, "{}", pending.stderr);
        assert_eq!(
            error_code(&mcpdo.respond(&pending, "{}")),
            "INVALID_REPLY",
            "{era}"
        );

        // And answered: the answer document validates.
        let pending = mcpdo.call(era, &question("Which database?"));
        let answered = mcpdo.respond(&pending, r#"{"q1":"2"}"#);
        assert_eq!(answered.code, 0, "{}", answered.stderr);
        assert_eq!(
            answered.json["structuredContent"]["answers"][0]["values"],
            json!(["SQLite"]),
            "{era}"
        );
    }
    for (name, code) in [
        ("error", "NO_ELICITATION"),
        ("tty", "NO_TTY"),
        ("web", "WEB_ERROR"),
    ] {
        mcpdo.connect(name, &["--elicit", "off"]);
        let called = mcpdo.call(name, &question("Which database?"));
        assert_eq!(error_code(&called), code, "{name}");
    }
}

common::harness::main!(
    inspector_lists_the_tool_with_no_portability_problem,
    inspector_gets_every_error_result_and_the_relayed_prompt,
    mcpdo_gets_every_error_result_in_both_eras,
);
