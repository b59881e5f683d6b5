//! MCP Apps (issue 23, part 4): a host built on the official SDKs
//! (tests/apps/host.mjs: the MCP TypeScript SDK client, and ext-apps' own
//! host side, AppBridge) declares the `io.modelcontextprotocol/ui` extension
//! and calls `ask_user`. The call returns `pending` at once, before any View
//! exists; headless Chromium then renders the `ui://` form in a sandboxed
//! iframe under the spec's default CSP; the person answers in it; the form's
//! app-only submit tool stores the answer; `{"resume": id}` returns it.
//! A client without the extension never sees the app. With an inbox running,
//! the question and its answer live in the inbox.
//!
//! The host is pinned in tests/apps (installed by .ci/setup-apps.sh);
//! Chromium and playwright-core come from tests/web (.ci/setup-web.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use common::bin;
use common::clients::{chromium, require, runs, tests_dir};
use common::inbox::{Inbox, run};
use common::mcp_raw::Raw;
use common::process::{output_with_stdin, spawn_inbox};

/// tests/apps with node and its pinned host installed.
fn apps_host() -> PathBuf {
    let dir = tests_dir("apps");
    let installed = dir
        .join("node_modules/@modelcontextprotocol/ext-apps")
        .is_dir()
        && dir
            .join("node_modules/@modelcontextprotocol/client")
            .is_dir();
    require(
        (installed && runs("node", &["--version"])).then_some(dir),
        "node and the MCP Apps host of tests/apps (run .ci/setup-apps.sh)",
    )
}

fn question() -> Value {
    json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"]})
}

/// Runs the host on `scenario` (the binary, Chromium and playwright-core
/// filled in); returns its report.
fn run_host(mut scenario: Value) -> Value {
    let dir = apps_host();
    if scenario["extension"] == true {
        let chromium = chromium(&["playwright-core"]);
        scenario["chromium"] = json!(chromium);
        scenario["playwright"] =
            json!(tests_dir("web").join("node_modules/playwright-core/index.mjs"));
    }
    scenario["binary"] = json!(bin());
    let output = output_with_stdin(
        Command::new("node").arg("host.mjs").current_dir(&dir),
        scenario.to_string().as_bytes(),
    )
    .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{e}: the host said {stdout:?}; stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(
        report.get("thrown").is_none(),
        "the host failed: {}\n{report:#}\nstderr: {}",
        report["thrown"],
        String::from_utf8_lossy(&output.stderr)
    );
    report
}

fn scenario(state: &Path, server_args: &[&str], pin: Option<&str>, person: Value) -> Value {
    let mut scenario = json!({
        "server_args": server_args,
        "server_env": {"ASK_USER_STATE_DIR": state},
        "extension": true,
        "arguments": question(),
        "person": person,
    });
    if let Some(pin) = pin {
        scenario["pin"] = json!(pin);
    }
    scenario
}

fn position(report: &Value, event: &str) -> usize {
    let events = report["events"].as_array().unwrap();
    events
        .iter()
        .position(|e| e == event)
        .unwrap_or_else(|| panic!("no event {event:?} in {events:?}"))
}

/// The checks every run with the extension shares: the app is offered as
/// the spec says, the call returned pending before any View existed, the
/// form rendered under the default CSP without a complaint, and the app's
/// submit went through the app-only tool.
fn assert_app_round(report: &Value) -> String {
    // tools/list: the tool points at the form; the submit tool is for the app only.
    let tools = report["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{tools:?}");
    assert_eq!(
        tools[0]["meta"]["ui"]["resourceUri"], "ui://ask_user/form.html",
        "{tools:?}"
    );
    assert_eq!(tools[1]["name"], "ask_user_submit");
    assert_eq!(tools[1]["meta"]["ui"]["visibility"], json!(["app"]));
    assert_eq!(
        report["modelTools"],
        json!(["ask_user"]),
        "the model never sees the submit tool"
    );
    assert_eq!(report["resource"]["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(report["resources"][0]["uri"], "ui://ask_user/form.html");

    // No call blocks on the app: pending, before any View was there.
    let call = &report["call"];
    assert_eq!(call["isError"], false, "{call}");
    let document = &call["structured"];
    assert_eq!(document["pending"], true, "{document}");
    assert_eq!(document["answered"], false, "{document}");
    assert!(position(report, "tool call returned") < position(report, "view initialized"));
    let id = document["inboxId"].as_str().expect("an id").to_string();
    assert!(
        document["hint"]
            .as_str()
            .unwrap()
            .contains(&format!(r#"{{"resume": "{id}"}}"#)),
        "{document}"
    );
    let texts = call["texts"].as_array().unwrap();
    assert!(
        texts
            .iter()
            .any(|t| t.as_str().unwrap().contains("**Which database?**")),
        "a text fallback for the model: {texts:?}"
    );
    let form = &call["meta"]["io.github.ask-user/form"];
    assert_eq!(form["id"], id.as_str());
    assert_eq!(form["submitTool"], "ask_user_submit");

    // The form, as the person saw it, under the spec's default CSP.
    assert_eq!(report["shown"]["labels"], json!(["PostgreSQL", "SQLite"]));
    assert_eq!(report["console"], json!([]), "no CSP violation, no error");
    assert!(position(report, "form shown") < position(report, "app called ask_user_submit"));
    assert_eq!(report["appCalls"][0]["name"], "ask_user_submit");
    assert_eq!(report["appCalls"][0]["arguments"]["id"], id.as_str());

    // The app told the host (best effort): a message naming the resume.
    assert_eq!(report["told"], "context message", "{report:#}");
    let message = report["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        message.contains(&format!(r#"{{"resume": "{id}"}}"#)),
        "{message}"
    );

    // A replay of the submit is refused: the first outcome stays.
    assert_eq!(report["replay"]["isError"], true, "{}", report["replay"]);
    let replay: Value =
        serde_json::from_str(report["replay"]["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(replay["error"]["code"], "ALREADY_ANSWERED", "{replay}");
    id
}

fn assert_answered(resume: &Value, value: &str) {
    assert_eq!(resume["isError"], false, "{resume}");
    let document = &resume["structured"];
    assert_eq!(document["answered"], true, "{document}");
    assert_eq!(
        document["answers"][0]["values"],
        json!([value]),
        "{document}"
    );
    assert!(document.get("pending").is_none(), "{document}");
}

/// The initialize era (2025-11-25), no inbox: the mcp process keeps the
/// question; the person answers in the form; resume returns the answer.
fn a_host_with_the_extension_shows_the_form_and_resume_returns_the_answer() {
    let state = tempfile::tempdir().unwrap();
    let report = run_host(scenario(
        state.path(),
        &["mcp"],
        Some("legacy"),
        json!({"choose": "PostgreSQL"}),
    ));
    assert_eq!(report["protocol"], "2025-11-25");
    let id = assert_app_round(&report);
    assert_eq!(id.len(), 32, "a kept question's id: {id}");
    assert_eq!(
        report["call"]["meta"]["io.github.ask-user/form"]["inInbox"],
        false
    );
    assert_eq!(report["appResults"][0]["structured"]["answered"], true);
    assert_eq!(
        report["appResults"][0]["structured"]["answeredBy"],
        common::answered_by("app")
    );
    assert_answered(&report["resume"], "PostgreSQL");
}

/// After the answer, the form shrinks to its short final note and says so
/// (`ui/notifications/size-changed`): the host gets a smaller height than
/// the form's and sizes the frame to the note, with no blank frame left
/// below it (it kept about 200 px of it before).
fn after_submit_the_form_reports_its_smaller_height() {
    let state = tempfile::tempdir().unwrap();
    let report = run_host(scenario(
        state.path(),
        &["mcp"],
        Some("legacy"),
        json!({"choose": "SQLite"}),
    ));
    assert_answered(&report["resume"], "SQLite");
    let sizes = report["sizes"].as_array().unwrap();
    let height = |size: &Value| size["height"].as_f64().unwrap();
    let form = sizes
        .iter()
        .filter(|s| s["afterSubmit"] == false)
        .map(height)
        .fold(0.0, f64::max);
    let last = sizes.last().expect("sizes reported");
    assert_eq!(
        last["afterSubmit"], true,
        "no size after the submit: {sizes:?}"
    );
    assert!(form > 300.0, "the form's own height: {sizes:?}");
    assert!(height(last) < form - 100.0, "{sizes:?}");
    let frame = &report["frame"];
    let (frame_height, bottom) = (
        frame["height"].as_f64().unwrap(),
        frame["finalBottom"].as_f64().unwrap(),
    );
    assert_eq!(
        frame_height,
        height(last),
        "the host sized the frame: {frame}"
    );
    // The note's box, then the page's bottom padding (1rem), nothing more.
    assert!(
        frame_height >= bottom && frame_height - bottom <= 24.0,
        "{frame}"
    );
}

/// 2026-07-28 (capabilities per request): the same, and an empty submit is
/// refused (shown beside its question) before the answer goes through.
fn the_same_in_the_2026_07_28_era_with_a_refused_empty_submit() {
    let state = tempfile::tempdir().unwrap();
    let report = run_host(scenario(
        state.path(),
        &["mcp"],
        Some("2026-07-28"),
        json!({"choose": "SQLite", "submit_empty": true}),
    ));
    assert_eq!(report["protocol"], "2026-07-28");
    assert_app_round(&report);
    // The server refused the empty answer (INVALID_REPLY), the form showed
    // it beside the question, and the question stayed open for the answer.
    let refused = &report["appResults"][0];
    assert_eq!(refused["isError"], true, "{refused}");
    let error: Value = serde_json::from_str(refused["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(error["error"]["code"], "INVALID_REPLY", "{error}");
    assert_eq!(error["error"]["path"], "questions[0]", "{error}");
    assert!(
        !report["refused"].as_str().unwrap_or("").is_empty(),
        "{report:#}"
    );
    assert_eq!(report["appResults"][1]["structured"]["answered"], true);
    assert_answered(&report["resume"], "SQLite");
}

/// Cancel in the form: resume returns cancelled, never an answer.
fn a_cancel_in_the_form_is_what_resume_returns() {
    let state = tempfile::tempdir().unwrap();
    let report = run_host(scenario(
        state.path(),
        &["mcp"],
        None,
        json!({"cancel": true}),
    ));
    assert_app_round(&report);
    let document = &report["resume"]["structured"];
    assert_eq!(document["cancelled"], true, "{document}");
    assert_eq!(document["answered"], false, "{document}");
}

/// With an inbox running (`--fallback auto`, or `inbox`): the question is an inbox
/// question; the form's answer lands in the inbox (its history shows it),
/// and resume returns it.
fn with_an_inbox_the_answer_lands_in_the_inbox() {
    // The outside clients first: a missing one ends the test before an inbox starts.
    apps_host();
    chromium(&["playwright-core"]);
    let state = tempfile::tempdir().unwrap();
    let (_inbox, line) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    assert!(
        line.contains("http://127.0.0.1:"),
        "the inbox started: {line}"
    );
    // `auto` finds the running inbox; `inbox` names it.
    for fallback in ["auto", "inbox"] {
        let report = run_host(scenario(
            state.path(),
            &["mcp", "--fallback", fallback],
            None,
            json!({"choose": "PostgreSQL"}),
        ));
        let id = assert_app_round(&report);
        assert_eq!(id.len(), 8, "{fallback}: an inbox id: {id}");
        assert_eq!(
            report["call"]["meta"]["io.github.ask-user/form"]["inInbox"],
            true
        );
        assert_answered(&report["resume"], "PostgreSQL");

        let (code, history) = run(state.path(), &["inbox", "history"]);
        assert_eq!(code, 0, "{history}");
        let entry: Value = history
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|entry| entry["inboxId"] == id.as_str())
            .unwrap_or_else(|| panic!("{fallback}: {id} is in the inbox's history: {history}"));
        assert!(entry.to_string().contains("PostgreSQL"), "{entry}");
    }
}

/// A client that does not declare the extension: no app tool, no `_meta.ui`,
/// no resources (reading the form is refused), and the call takes the
/// ordinary fallback (the relayed prompt), never a pending app question.
fn a_client_without_the_extension_never_sees_the_app() {
    let state = tempfile::tempdir().unwrap();
    let report = run_host(json!({
        "server_args": ["mcp"],
        "server_env": {"ASK_USER_STATE_DIR": state.path()},
        "extension": false,
        "arguments": question(),
    }));
    assert_eq!(report["tools"], json!([{"name": "ask_user", "meta": null}]));
    assert_eq!(report["resourceUri"], Value::Null);
    assert_eq!(report["resources"], json!([]));
    assert_eq!(report["read"]["code"], -32002, "{}", report["read"]);
    assert!(
        report["read"]["thrown"]
            .as_str()
            .unwrap()
            .contains("for clients that declare the io.modelcontextprotocol/ui extension"),
        "{}",
        report["read"]
    );
    assert_eq!(report["submit"]["code"], -32602, "{}", report["submit"]);
    assert!(
        report["submit"]["thrown"]
            .as_str()
            .unwrap()
            .contains(r#"unknown tool "ask_user_submit""#),
        "{}",
        report["submit"]
    );
    let call = &report["call"];
    assert_eq!(call["meta"], Value::Null, "{call}");
    assert!(call["structured"].get("pending").is_none(), "{call}");
    assert!(
        call["structured"]["rendered_markdown"].is_string(),
        "{call}"
    );
}

/// Raw JSON-RPC, no SDK (so it runs everywhere): with `--wait 1`, a
/// resume before the person answered comes back pending again after the
/// wait, never blocking on the form; the submit tool refuses an id it never
/// gave (UNKNOWN_QUESTION) and an answer that does not fit (INVALID_REPLY),
/// then takes the answer, which the next resume returns.
fn without_an_answer_a_resume_is_pending_again_and_the_submit_tool_checks_what_it_takes() {
    let state = tempfile::tempdir().unwrap();
    let mut raw = Raw::start_with(
        &["mcp", "--wait", "1"],
        &[("ASK_USER_STATE_DIR", state.path().as_os_str())],
    );
    let apps = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    raw.initialize("2025-11-25", apps);
    raw.call(1, &question(), None);
    let asked = raw.next();
    let document = &asked["result"]["structuredContent"];
    assert_eq!(document["pending"], true, "{asked}");
    let id = document["inboxId"].as_str().unwrap().to_string();

    raw.call(2, &json!({"resume": id}), None);
    let resumed = raw.next();
    let document = &resumed["result"]["structuredContent"];
    assert_eq!(document["pending"], true, "{resumed}");
    assert_eq!(document["inboxId"], id.as_str(), "{resumed}");
    assert!(
        document["hint"]
            .as_str()
            .unwrap()
            .contains("form in this chat"),
        "{resumed}"
    );

    let submit = |raw: &mut Raw, call: u64, arguments: Value| {
        let request = json!({"jsonrpc": "2.0", "id": call, "method": "tools/call",
            "params": {"name": "ask_user_submit", "arguments": arguments}});
        raw.send(&request.to_string());
        raw.next()["result"].clone()
    };
    let error = |result: &Value| -> Value {
        assert_eq!(result["isError"], true, "{result}");
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
    };
    let unknown = error(&submit(
        &mut raw,
        3,
        json!({"id": "feedface", "cancel": true}),
    ));
    assert_eq!(unknown["error"]["code"], "UNKNOWN_QUESTION", "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains(r#"no question "feedface" was asked through this server's form"#),
        "{unknown}"
    );
    let unfit = error(&submit(
        &mut raw,
        4,
        json!({"id": id, "answers": [{"optionIds": ["9"]}]}),
    ));
    assert_eq!(unfit["error"]["code"], "INVALID_REPLY", "{unfit}");
    assert_eq!(unfit["error"]["path"], "questions[0]", "{unfit}");
    let taken = submit(
        &mut raw,
        5,
        json!({"id": id, "answers": [{"optionIds": ["2"]}]}),
    );
    assert_eq!(taken["structuredContent"]["answered"], true, "{taken}");

    raw.call(6, &json!({"resume": id}), None);
    let collected = raw.next();
    let document = &collected["result"]["structuredContent"];
    assert_eq!(
        document["answers"][0]["values"],
        json!(["SQLite"]),
        "{collected}"
    );
}

/// The race the app's ask leaves to the inbox: the question is in the inbox
/// and the person answers it there before the server's "leave it pending"
/// arrives. The inbox's reply to that leave is the decided document, and
/// that is the call's result: answered at once, no form, nothing to resume.
/// A proxy in front of the real inbox holds the leave until the answer is in.
fn an_answer_the_inbox_has_before_the_leave_is_the_calls_result() {
    let state = tempfile::tempdir().unwrap();
    let inbox = Inbox::start(state.path());
    let (proxy_port, leaving, release) = holding_proxy(inbox.port);

    let elsewhere = tempfile::tempdir().unwrap();
    let address = format!("http://127.0.0.1:{proxy_port}");
    let mut raw = Raw::start_with(
        &["mcp", "--fallback", "inbox"],
        &[
            ("ASK_USER_STATE_DIR", elsewhere.path().as_os_str()),
            ("ASK_USER_INBOX", address.as_ref()),
            ("ASK_USER_TOKEN", inbox.token.as_ref()),
        ],
    );
    let apps = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    raw.initialize("2025-11-25", apps);
    raw.call(1, &question(), None);

    let id = leaving
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the server leaves the question pending in the inbox");
    let (code, answered) = run(state.path(), &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{answered}");
    release.send(()).unwrap();

    let result = raw.next();
    let document = &result["result"]["structuredContent"];
    assert_eq!(document["answered"], true, "{result}");
    assert_eq!(document["pending"], Value::Null, "{result}");
    assert_eq!(document["inboxId"], id.as_str(), "{result}");
    assert_eq!(
        document["answers"][0]["values"],
        json!(["SQLite"]),
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.github.ask-user/form"],
        Value::Null,
        "no form for a decided question: {result}"
    );
}

/// A proxy on a port of its own in front of the inbox at `inbox_port`: it
/// passes requests on (with the inbox's own Host and Origin) and responses back, but
/// holds a question's `leave` until `release` hears from the test, after
/// sending the question's id on `leaving`.
fn holding_proxy(
    inbox_port: u16,
) -> (
    u16,
    std::sync::mpsc::Receiver<String>,
    std::sync::mpsc::Sender<()>,
) {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex, mpsc};

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (leaving_send, leaving) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let released = Arc::new(Mutex::new(released));
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(upstream) = TcpStream::connect(("127.0.0.1", inbox_port)) else {
                return;
            };
            let (mut back_from, mut back_to) =
                (upstream.try_clone().unwrap(), client.try_clone().unwrap());
            std::thread::spawn(move || std::io::copy(&mut back_from, &mut back_to));
            let (leaving_send, released) = (leaving_send.clone(), Arc::clone(&released));
            std::thread::spawn(move || {
                let mut from = BufReader::new(client);
                let mut to = upstream;
                loop {
                    // One request: its head line by line (Host and Origin the inbox's own), then its body.
                    let mut head = Vec::new();
                    let mut length = 0usize;
                    let mut first = String::new();
                    loop {
                        let mut line = String::new();
                        if from.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let lower = line.to_ascii_lowercase();
                        if first.is_empty() {
                            first = line.clone();
                        }
                        if let Some(value) = lower.strip_prefix("content-length:") {
                            length = value.trim().parse().unwrap();
                        }
                        if lower.starts_with("host:") {
                            line = format!("host: 127.0.0.1:{inbox_port}\r\n");
                        } else if lower.starts_with("origin:") {
                            line = format!("origin: http://127.0.0.1:{inbox_port}\r\n");
                        }
                        let end = line == "\r\n";
                        head.extend_from_slice(line.as_bytes());
                        if end {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    from.read_exact(&mut body).unwrap();
                    let leave = first
                        .strip_prefix("POST /api/questions/")
                        .and_then(|path| path.split(' ').next())
                        .and_then(|path| path.strip_suffix("/leave"));
                    if let Some(id) = leave {
                        leaving_send.send(id.to_string()).unwrap();
                        released.lock().unwrap().recv().unwrap();
                    }
                    if to
                        .write_all(&head)
                        .and_then(|()| to.write_all(&body))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (port, leaving, release)
}

common::harness::main!(
    without_an_answer_a_resume_is_pending_again_and_the_submit_tool_checks_what_it_takes,
    a_host_with_the_extension_shows_the_form_and_resume_returns_the_answer,
    after_submit_the_form_reports_its_smaller_height,
    the_same_in_the_2026_07_28_era_with_a_refused_empty_submit,
    a_cancel_in_the_form_is_what_resume_returns,
    with_an_inbox_the_answer_lands_in_the_inbox,
    a_client_without_the_extension_never_sees_the_app,
    an_answer_the_inbox_has_before_the_leave_is_the_calls_result,
);
