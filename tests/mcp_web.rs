//! `ask_user mcp --fallback web` end to end: the official MCP Python SDK
//! (tests/mcp/py_client.py, declaring no elicitation) calls the tool, learns
//! the answer page's address from the server's log notice or progress message,
//! and a real headless Chromium (tests/web/drive.mjs) plays the person there.
//!
//! The clients are installed by .ci/setup-mcp.sh and .ci/setup-web.sh. When
//! one is missing the tests count as ignored (tests/common/harness.rs), and
//! fail under CI.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::browser::Browser;
use common::clients::{chromium, mcp_python, tests_dir};
use common::process::output_with_stdin;

/// A release form: a single select (Staging recommended) and a text.
fn release_form(timeout_ms: Option<u64>) -> Value {
    let mut input = json!({"title": "Release", "questions": [
        {"id": "target", "question": "Deploy where?",
         "options": [{"label": "Staging", "recommended": true}, "Production"]},
        {"id": "note", "question": "Release note?", "type": "text"}]});
    if let Some(ms) = timeout_ms {
        input["timeout"] = json!(ms);
    }
    input
}

/// What one call through the page gave.
struct Asked {
    /// py_client.py's output: results (with progress messages) and log notices.
    client: Value,
    /// The server's stderr (the SDK passes it through to the client's).
    server_stderr: String,
    /// The page's address, as the client learned it.
    url: String,
}

impl Asked {
    fn result(&self) -> &Value {
        &self.client["results"][0]
    }
}

/// Starts the browser, then the client (which starts the server); the
/// browser plays `scenario` at the URL the client writes into `url_file`.
fn ask_through_page(scenario: &str, mode: &str, input: Value, server_args: &[&str]) -> Asked {
    let python = mcp_python();
    let chromium = chromium(&["playwright-core"]);
    let url_file = std::env::temp_dir().join(format!(
        "ask-user-mcp-web-{}-{scenario}-{mode}.url",
        std::process::id()
    ));
    let driver = Browser::start(&chromium, scenario, &url_file);

    let mut args = vec!["mcp", "--fallback", "web"];
    args.extend_from_slice(server_args);
    let scenario_doc = json!({
        "binary": bin(), "server_args": args, "mode": mode, "elicit": false,
        "watch": url_file, "log_level": "notice",
        "calls": [{"arguments": input}],
    });
    let output = output_with_stdin(
        Command::new(python)
            .arg(tests_dir("mcp").join("py_client.py"))
            .stderr(Stdio::piped()),
        scenario_doc.to_string().as_bytes(),
    )
    .expect("python runs");
    if !url_file.exists() {
        // The browser would wait for a URL that will never come.
        driver.kill();
        panic!(
            "no URL reached the client: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let played = driver.wait();
    let url = std::fs::read_to_string(&url_file).unwrap_or_default();
    let _ = std::fs::remove_file(&url_file);
    let server_stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "py_client failed: {server_stderr}");
    played.assert_passed(scenario);
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "no URL reached the client"
    );
    Asked {
        client: serde_json::from_slice(&output.stdout).expect("py_client prints JSON"),
        server_stderr,
        url,
    }
}

/// The page's address reached the person every way, and the page was gone
/// (port closed) while the server still ran.
fn assert_url_delivered_and_page_closed(asked: &Asked) {
    let url = &asked.url;
    assert!(
        asked
            .server_stderr
            .contains(&format!("ask_user mcp: answer in your browser: {url}")),
        "stderr: {}",
        asked.server_stderr
    );
    let logs = asked.client["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 1, "one log notice: {logs:?}");
    assert_eq!(logs[0]["level"], "notice");
    assert_eq!(logs[0]["logger"], "ask_user");
    assert_eq!(
        logs[0]["data"],
        format!("ask_user: the person can answer in a browser at {url}")
    );
    let progress = asked.result()["progress"].as_array().unwrap();
    assert_eq!(
        progress[0]["message"],
        format!("waiting for the person (0 s): answer in your browser at {url}")
    );
    assert_eq!(asked.result()["page_closed"], true, "the port stayed open");
}

/// The tool result is the document, as structuredContent and as text.
fn document(asked: &Asked) -> Value {
    let result = asked.result();
    assert_eq!(result["is_error"], false, "{result}");
    let text: Value = serde_json::from_str(result["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structured"]);
    result["structured"].clone()
}

fn the_browser_answers_a_call_from_a_client_without_forms_in_both_eras() {
    for mode in ["legacy", "auto"] {
        let asked = ask_through_page("select-and-text", mode, release_form(Some(60_000)), &[]);
        assert_eq!(
            asked.client["protocol_version"],
            if mode == "legacy" {
                "2025-11-25"
            } else {
                "2026-07-28"
            }
        );
        assert_eq!(
            document(&asked),
            json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": true,
                   "cancelled": false, "timedOut": false, "answers": [
                     {"questionId": "target", "values": ["Production"], "optionIds": ["2"]},
                     {"questionId": "note", "values": ["Ship it"]}],
                   "answeredBy": common::answered_by("page")}),
            "{mode}"
        );
        assert_eq!(
            asked.result()["forms"],
            json!([]),
            "no elicitation was sent"
        );
        assert_url_delivered_and_page_closed(&asked);
    }
}

fn cancel_on_the_page_gives_the_cancelled_document() {
    let asked = ask_through_page("cancel", "legacy", release_form(Some(60_000)), &[]);
    assert_eq!(
        document(&asked),
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
               "cancelled": true, "timedOut": false, "answers": []})
    );
    assert_url_delivered_and_page_closed(&asked);
}

fn the_servers_timeout_expires_the_page_and_gives_timed_out() {
    let started = Instant::now();
    let asked = ask_through_page("expire", "legacy", release_form(None), &["--timeout", "3"]);
    assert_eq!(
        document(&asked),
        json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
               "cancelled": false, "timedOut": true, "answers": []})
    );
    assert_url_delivered_and_page_closed(&asked);
    assert!(started.elapsed() < Duration::from_secs(30));
}

common::harness::main!(
    the_browser_answers_a_call_from_a_client_without_forms_in_both_eras,
    cancel_on_the_page_gives_the_cancelled_document,
    the_servers_timeout_expires_the_page_and_gives_timed_out,
);
