//! URL-mode elicitation end to end: a client built on the official MCP
//! TypeScript SDK (tests/mcp/ts_url.mjs) that declares ONLY
//! `elicitation: {url: {}}` calls `ask_user mcp`, is asked to send the person
//! to the question's own page, consents; a real headless Chromium
//! (tests/web/drive.mjs) plays the person there.
//!
//! Both protocol eras: the initialize era with @modelcontextprotocol/sdk
//! 1.32.2 (`elicitation/create` in url mode, then
//! `notifications/elicitation/complete`), and 2026-07-28 with the v2 client
//! @modelcontextprotocol/client 2.4.0 (the url elicitation inside an
//! `InputRequiredResult`, no id and no notification; the SDK retries).
//!
//! The clients are installed by .ci/setup-mcp.sh and .ci/setup-web.sh. When
//! one is missing the tests count as ignored (tests/common/harness.rs), and
//! fail under CI.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::bin;
use common::browser::Browser;
use common::clients::{chromium, inspector_command, mcp_typescript_sdk, mcpdo, require, runs};
use common::mcp_raw::Raw;
use common::process::{output_with_stdin, port_is_closed, spawn_inbox};

/// The two eras: the SDK that speaks each, and the version it must negotiate.
const ERAS: [(&str, &str); 2] = [("v1", "2025-11-25"), ("v2", "2026-07-28")];

/// tests/mcp with node and both TypeScript SDKs (v1 and the v2 client).
fn typescript_sdks() -> PathBuf {
    let dir = mcp_typescript_sdk();
    let v2 = dir
        .join("node_modules/@modelcontextprotocol/client")
        .is_dir();
    require(
        v2.then_some(dir),
        "the MCP TypeScript SDK v2 client (run .ci/setup-mcp.sh)",
    )
}

/// A release form: a single select (Staging recommended) and a text.
fn release_form() -> Value {
    json!({"title": "Release", "timeout": 60_000, "questions": [
        {"id": "target", "question": "Deploy where?",
         "options": [{"label": "Staging", "recommended": true}, "Production"]},
        {"id": "note", "question": "Release note?", "type": "text"}]})
}

/// What ts_url.mjs printed, and the server's stderr.
struct Called {
    client: Value,
    stderr: String,
}

impl Called {
    fn result(&self) -> &Value {
        &self.client["results"][0]
    }

    /// The one url elicitation the call made.
    fn elicitation(&self) -> &Value {
        let all = self.result()["elicitations"].as_array().unwrap();
        assert_eq!(all.len(), 1, "one url elicitation: {all:?}");
        &all[0]
    }

    fn url(&self) -> String {
        self.elicitation()["url"].as_str().unwrap().to_string()
    }

    /// The tool result's document (structuredContent, the same as its text).
    fn document(&self) -> Value {
        let result = self.result();
        assert_eq!(result["isError"], false, "{result}");
        let text: Value = serde_json::from_str(result["texts"][0].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structured"]);
        result["structured"].clone()
    }
}

/// Runs ts_url.mjs with `sdk` on one call answered (consent) with `reply`.
fn call(sdk: &str, reply: &str, watch: Option<&PathBuf>, env: &[(&str, &PathBuf)]) -> Called {
    let calls = json!([{"arguments": release_form(), "reply": {"action": reply}}]);
    run_client(sdk, &["mcp", "--fallback", "inbox"], calls, watch, env)
}

/// Runs ts_url.mjs with `sdk` against `ask_user SERVER_ARGS` on `calls`.
fn run_client(
    sdk: &str,
    server_args: &[&str],
    calls: Value,
    watch: Option<&PathBuf>,
    env: &[(&str, &PathBuf)],
) -> Called {
    let dir = typescript_sdks();
    let scenario = json!({
        "binary": bin(), "server_args": server_args, "sdk": sdk, "watch": watch, "calls": calls,
    });
    let mut command = Command::new("node");
    command
        .arg("ts_url.mjs")
        .current_dir(dir)
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN")
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let output =
        output_with_stdin(&mut command, scenario.to_string().as_bytes()).expect("node runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "ts_url.mjs failed: {stderr}");
    Called {
        client: serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("ts_url.mjs prints JSON: {stderr}")),
        stderr,
    }
}

/// Starts the browser, then the client; the browser plays `scenario` at the
/// URL of the url elicitation.
fn in_browser(scenario: &str, sdk: &str, env: &[(&str, &PathBuf)]) -> Called {
    let chromium = chromium(&["playwright-core"]);
    typescript_sdks();
    let url_file = std::env::temp_dir().join(format!(
        "ask-user-mcp-url-{}-{scenario}-{sdk}.url",
        std::process::id()
    ));
    let driver = Browser::start(&chromium, scenario, &url_file);
    let called = call(sdk, "accept", Some(&url_file), env);
    if !url_file.exists() {
        driver.kill();
        panic!("no url elicitation reached the client: {}", called.client);
    }
    let played = driver.wait();
    let _ = std::fs::remove_file(&url_file);
    played.assert_passed(scenario);
    called
}

/// `--wait 1`: the call returns pending while the page stays up; the
/// person answers afterwards, and `{"resume": ID}` on the same server
/// returns the answer.
fn past_the_wait_the_call_is_pending_and_resume_collects_the_answer_in_both_eras() {
    let chromium = chromium(&["playwright-core"]);
    typescript_sdks();
    for (sdk, version) in ERAS {
        let url_file = std::env::temp_dir().join(format!(
            "ask-user-mcp-url-{}-wait-{sdk}.url",
            std::process::id()
        ));
        let driver = Browser::start(&chromium, "url-answer-later", &url_file);
        let calls = json!([
            {"arguments": release_form(), "reply": {"action": "accept"}, "go": true},
            {"resume": true},
        ]);
        let called = run_client(sdk, &["mcp", "--wait", "1"], calls, Some(&url_file), &[]);
        driver.wait().assert_passed("url-answer-later");
        let _ = std::fs::remove_file(&url_file);
        assert_eq!(called.client["protocolVersion"], version);
        let first = &called.client["results"][0];
        let pending = &first["structured"];
        assert_eq!(pending["pending"], true, "{sdk}: {first}");
        assert_eq!(pending["answered"], false);
        let id = pending["inboxId"].as_str().unwrap();
        assert_eq!(id.len(), 32, "{pending}");
        assert!(pending["hint"].as_str().unwrap().contains(id), "{pending}");
        assert_eq!(first["completions"], json!([]), "not complete yet");
        let url = first["elicitations"][0]["url"].as_str().unwrap();
        assert!(!url.contains(id), "the id is not in the URL");
        let resumed = &called.client["results"][1];
        assert_eq!(resumed["isError"], false, "{resumed}");
        assert_eq!(
            resumed["structured"]["answers"][0]["values"],
            json!(["Production"]),
            "{sdk}: {resumed}"
        );
        assert_token_spent(url);
    }
}

/// The url elicitation of `era`: its message and URL, and in the initialize
/// era an `elicitationId` that the complete notification names.
fn assert_url_elicitation(called: &Called, version: &str) {
    assert_eq!(called.client["protocolVersion"], version);
    let elicitation = called.elicitation();
    assert_eq!(elicitation["mode"], "url");
    assert_eq!(
        elicitation["message"],
        "ask_user asks: Release (answer on this page in your browser)"
    );
    let url = called.url();
    let token = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split_once("/?token="))
        .map(|(_, token)| token)
        .unwrap_or_else(|| panic!("not a local page's URL: {url}"));
    assert_eq!(token.len(), 32, "a 128-bit token: {url}");
    let completions = &called.result()["completions"];
    if version == "2025-11-25" {
        let id = elicitation["elicitationId"].as_str().unwrap();
        assert_eq!(id.len(), 32, "{id}");
        assert_ne!(id, token, "the id is not the token");
        assert_eq!(completions, &json!([{"elicitationId": id}]));
    } else {
        assert_eq!(completions, &json!([]), "no notification in 2026-07-28");
    }
}

/// Once the form has ended, the page's token opens nothing: the port is
/// closed (within 2 s).
fn assert_token_spent(url: &str) {
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap();
    for _ in 0..100 {
        if port_is_closed(port) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the page at {url} still listens after its form ended");
}

fn the_person_answers_on_the_page_of_a_url_only_client_in_both_eras() {
    for (sdk, version) in ERAS {
        let called = in_browser("url-answer", sdk, &[]);
        assert_url_elicitation(&called, version);
        assert_eq!(
            called.document(),
            json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": true,
                   "cancelled": false, "timedOut": false, "answers": [
                     {"questionId": "target", "values": ["Production"], "optionIds": ["2"]},
                     {"questionId": "note", "values": ["Ship it"]}],
                   "answeredBy": common::answered_by("page")}),
            "{sdk}: {}",
            called.stderr
        );
        assert_token_spent(&called.url());
    }
}

fn a_decline_on_the_page_gives_declined_in_both_eras() {
    for (sdk, version) in ERAS {
        let called = in_browser("url-decline", sdk, &[]);
        assert_url_elicitation(&called, version);
        assert_eq!(
            called.document(),
            json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
                   "cancelled": true, "timedOut": false, "reason": "declined", "answers": []}),
            "{sdk}"
        );
        assert_token_spent(&called.url());
    }
}

/// The client's own decline or cancel of the consent ends the question: no
/// page outcome is waited for, and the page closes.
fn the_clients_decline_and_cancel_give_declined_and_cancelled_in_both_eras() {
    for (sdk, version) in ERAS {
        for (reply, reason) in [("decline", Some("declined")), ("cancel", None)] {
            let called = call(sdk, reply, None, &[]);
            assert_eq!(called.client["protocolVersion"], version);
            let mut expected = json!({"tool": "ask_user", "version": 1, "status": "ok",
                "answered": false, "cancelled": true, "timedOut": false, "answers": []});
            if let Some(reason) = reason {
                expected["reason"] = json!(reason);
            }
            assert_eq!(called.document(), expected, "{sdk} {reply}");
            assert_eq!(called.result()["completions"], json!([]), "{sdk} {reply}");
            assert_token_spent(&called.url());
        }
    }
}

/// With an inbox running (and `--fallback inbox`), the URL is the question's
/// own page: its token is not the inbox's, which never leaves the machine's
/// discovery file.
fn the_inbox_token_never_appears_in_the_url() {
    let node_ok = runs("node", &["--version"]);
    require(node_ok.then_some(()), "node (run .ci/setup-mcp.sh)");
    let state = tempfile::tempdir().unwrap();
    let state_dir = state.path().to_path_buf();
    let (inbox, line) = spawn_inbox(&mut Command::new(bin()), &state_dir, |_| {});
    let inbox_token = line
        .split("token=")
        .nth(1)
        .map(|rest| {
            rest.chars()
                .take_while(char::is_ascii_hexdigit)
                .collect::<String>()
        })
        .unwrap_or_else(|| panic!("no token in the inbox's line: {line}"));
    assert_eq!(inbox_token.len(), 32, "{line}");
    for (sdk, version) in ERAS {
        let called = in_browser("url-answer", sdk, &[("ASK_USER_STATE_DIR", &state_dir)]);
        assert_url_elicitation(&called, version);
        let url = called.url();
        assert!(!url.contains(&inbox_token), "the inbox token is in {url}");
        assert_eq!(called.document()["answered"], true, "{sdk}");
        let elicitation = called.elicitation().to_string();
        assert!(!elicitation.contains(&inbox_token), "{elicitation}");
    }
    drop(inbox);
}

/// mcpdo (in @modelcontextprotocol/inspector 2.12.0, under Node 22) with
/// `--elicit url`: a private daemon, one connection per era. Its
/// `tools/call` returns the pending url elicitation; the person answers on
/// the page; `elicitation/respond ID --done` (the person's "done") returns
/// the tool result. (The Inspector CLI itself, `mcp-inspector --cli`,
/// declares no elicitation at all: it cannot be a url-mode client.)
fn mcpdo_in_url_mode_reaches_the_page_in_both_eras() {
    let program = mcpdo();
    let chromium = chromium(&["playwright-core"]);
    let home = tempfile::tempdir().unwrap();
    let base = |home: &std::path::Path| {
        let mut command = inspector_command(&program, home);
        command
            .env_remove("ASK_USER_INBOX")
            .env_remove("ASK_USER_TOKEN");
        command
    };
    let private = base(home.path()).arg("private").output().unwrap();
    assert!(private.status.success());
    // Lines of `export NAME='VALUE'`.
    let daemon: Vec<(String, String)> = String::from_utf8_lossy(&private.stdout)
        .lines()
        .filter_map(|line| {
            let (name, value) = line.strip_prefix("export ")?.split_once('=')?;
            Some((name.to_string(), value.trim_matches('\'').to_string()))
        })
        .collect();
    // However the test ends, the daemon stops, and with it the servers it runs.
    let _daemon = OnDrop(|| {
        let _ = base(home.path())
            .envs(daemon.iter().map(|(k, v)| (k, v)))
            .args(["daemon", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // `mcpdo private` made the daemon's folder (under /tmp); nothing else uses it.
        for (name, dir) in &daemon {
            if name == "MCP_INSPECTOR_DAEMON_DIR" {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    });
    let run = |args: &[&str]| -> Value {
        let output = base(home.path())
            .envs(daemon.iter().map(|(k, v)| (k, v)))
            .args(["--format", "json"])
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        serde_json::from_str(&stdout).unwrap_or_else(|_| {
            panic!(
                "mcpdo {args:?} printed no JSON: {stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
    };
    let config = home.path().join("servers.json");
    let server = json!({"command": bin(), "args": ["mcp"]});
    std::fs::write(
        &config,
        json!({"mcpServers": {"legacy": server, "modern": server}}).to_string(),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    for (era, scenario, expected) in [
        ("legacy", "url-answer", json!(true)),
        ("modern", "url-decline", json!(false)),
    ] {
        let connected = run(&[
            "--config", config, "connect", era, "--era", era, "--elicit", "url",
        ]);
        assert_eq!(connected["protocolEra"], era, "{connected}");
        let url_file = std::env::temp_dir().join(format!(
            "ask-user-mcp-url-{}-mcpdo-{era}.url",
            std::process::id()
        ));
        let driver = Browser::start(&chromium, scenario, &url_file);
        let form = serde_json::to_string(&release_form()["questions"]).unwrap();
        let pending = run(&[
            "--connection",
            era,
            "tools/call",
            "ask_user",
            "title:=\"Release\"",
            &format!("questions:={form}"),
        ]);
        let pending = &pending["elicitationPending"];
        assert_eq!(pending["mode"], "url", "{pending}");
        assert_eq!(
            pending["message"],
            "ask_user asks: Release (answer on this page in your browser)"
        );
        let url = pending["url"].as_str().unwrap().to_string();
        std::fs::write(url_file.with_extension("part"), &url).unwrap();
        std::fs::rename(url_file.with_extension("part"), &url_file).unwrap();
        driver.wait().assert_passed(scenario);
        let _ = std::fs::remove_file(&url_file);
        let id = pending["elicitationId"].as_str().unwrap();
        let result = run(&["elicitation/respond", id, "--done"]);
        let document = &result["structuredContent"];
        assert_eq!(document["answered"], expected, "{era}: {result}");
        if era == "legacy" {
            assert_eq!(
                document["answers"][0]["values"],
                json!(["Production"]),
                "{result}"
            );
        } else {
            assert_eq!(document["reason"], "declined", "{result}");
        }
        assert_token_spent(&url);
    }
}

/// Runs its closure when dropped: at the end of a test, however it ends.
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// The `_meta` of a 2026-07-28 request from a client that opens URLs only.
fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
           "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}})
}

/// The error document of an error result.
fn error_document(response: &Value) -> Value {
    let result = &response["result"];
    assert_eq!(result["isError"], true, "{response}");
    assert!(result.get("structuredContent").is_none(), "{response}");
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

/// 2026-07-28, raw JSON-RPC: the first call's `requestState` carries only
/// the page's random id; a retry with a `requestState` this server never
/// gave (or gave before a restart) finds no page: UNKNOWN_QUESTION.
fn a_request_state_the_server_never_gave_is_unknown_question() {
    let mut raw = Raw::start(&["mcp"]);
    let params = json!({"name": "ask_user", "_meta": modern_meta(),
        "arguments": {"question": "Go?", "type": "text"}});
    let send = |raw: &mut Raw, id: u64, extra: Value| raw.call_with(id, &params, &extra);
    let first = send(&mut raw, 1, json!({}));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let state = result["requestState"].as_str().unwrap();
    let id = state
        .strip_prefix("url-page:")
        .unwrap_or_else(|| panic!("{state}"));
    assert!(
        id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{state}"
    );
    let request = &result["inputRequests"]["ask_user"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "url");
    let url = request["params"]["url"].as_str().unwrap();
    assert!(
        !url.contains(id),
        "the state is not the page's token: {url}"
    );

    let forged = format!("url-page:{}", "0".repeat(32));
    let retry = send(
        &mut raw,
        2,
        json!({"requestState": forged,
        "inputResponses": {"ask_user": {"action": "accept"}}}),
    );
    assert_eq!(
        error_document(&retry)["error"],
        json!({"code": "UNKNOWN_QUESTION", "message": "this server keeps no answer page for this call (it restarted, or the requestState is not one it gave); call the tool again with the question"})
    );
    // The real state still works: the client's cancel ends the question, and its page.
    let cancelled = send(
        &mut raw,
        3,
        json!({"requestState": state,
        "inputResponses": {"ask_user": {"action": "cancel"}}}),
    );
    assert_eq!(
        cancelled["result"]["structuredContent"]["cancelled"], true,
        "{cancelled}"
    );
    assert_token_spent(url);
}

/// Initialize era, raw JSON-RPC: a client that fails the url elicitation
/// itself (an error response, not the person's decline) gets the
/// `--fallback` (here `prompt`: the prompt document), and the page closes;
/// a reply that is no elicitation result is an INTERNAL_ERROR result; with
/// `--no-elicitation` no url elicitation is sent at all.
fn a_failed_or_odd_url_elicitation_and_no_elicitation() {
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({"elicitation": {"url": {}}}));
    raw.call(1, &json!({"question": "Go?", "type": "text"}), None);
    let request = raw.next();
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["mode"], "url");
    let url = request["params"]["url"].as_str().unwrap().to_string();
    raw.send(
        &json!({"jsonrpc": "2.0", "id": request["id"],
        "error": {"code": -32601, "message": "no browser here"}})
        .to_string(),
    );
    let response = raw.next();
    assert_eq!(response["id"], 1, "{response}");
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{response}");
    assert_eq!(
        result["structuredContent"]["prompt"]["question"], "Go?",
        "{response}"
    );
    assert_token_spent(&url);

    // A reply that is no elicitation result: INTERNAL_ERROR, and the page closes.
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({"elicitation": {"url": {}}}));
    raw.call(1, &json!({"question": "Go?", "type": "text"}), None);
    let request = raw.next();
    let url = request["params"]["url"].as_str().unwrap().to_string();
    raw.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}).to_string());
    let response = raw.next();
    assert_eq!(
        error_document(&response)["error"],
        json!({"code": "INTERNAL_ERROR", "message": "the client answered the url elicitation with something that is not an elicitation result (accept, decline or cancel); ask the person in the chat instead"})
    );
    assert_token_spent(&url);

    // `--no-elicitation` turns URL mode off too: straight to the fallback.
    let mut raw = Raw::start(&["mcp", "--no-elicitation"]);
    raw.initialize("2025-11-25", json!({"elicitation": {"url": {}}}));
    raw.call(1, &json!({"question": "Go?", "type": "text"}), None);
    let response = raw.next();
    assert_eq!(response["id"], 1, "no elicitation/create first: {response}");
    assert_eq!(
        response["result"]["structuredContent"]["prompt"]["question"], "Go?",
        "{response}"
    );
}

/// The client's `notifications/cancelled` for a call waiting on the page
/// closes the page, and the call gets no response (as the protocol asks): in
/// the initialize era after the consent, and in 2026-07-28 during the retry.
fn a_cancelled_call_closes_the_page_in_both_eras() {
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({"elicitation": {"url": {}}}));
    raw.call(1, &json!({"question": "Go?", "type": "text"}), None);
    let request = raw.next();
    let url = request["params"]["url"].as_str().unwrap().to_string();
    raw.send(
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept"}}).to_string(),
    );
    raw.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "the person left"}})
        .to_string(),
    );
    assert_token_spent(&url);
    // Had the cancel overtaken the accept, the server withdraws its own
    // elicitation request too; nothing else may come before the ping's reply.
    raw.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string());
    let mut next = raw.next();
    if next["method"] == "notifications/cancelled" {
        assert_eq!(next["params"]["requestId"], request["id"], "{next}");
        next = raw.next();
    }
    assert_eq!(next, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));

    let mut raw = Raw::start(&["mcp"]);
    let call = |raw: &mut Raw, id: u64, extra: Value| {
        let mut params = json!({"name": "ask_user", "_meta": modern_meta(),
            "arguments": {"question": "Go?", "type": "text"}});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        raw.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
        );
    };
    call(&mut raw, 1, json!({}));
    let first = raw.next();
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let url = first["result"]["inputRequests"]["ask_user"]["params"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    call(
        &mut raw,
        2,
        json!({"requestState": state,
        "inputResponses": {"ask_user": {"action": "accept"}}}),
    );
    raw.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2}})
        .to_string(),
    );
    assert_token_spent(&url);
    // The next message answers the next request: none came for the call.
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": modern_meta()}})
        .to_string(),
    );
    assert_eq!(raw.next()["id"], 3);
}

common::harness::main!(
    the_person_answers_on_the_page_of_a_url_only_client_in_both_eras,
    a_decline_on_the_page_gives_declined_in_both_eras,
    the_clients_decline_and_cancel_give_declined_and_cancelled_in_both_eras,
    the_inbox_token_never_appears_in_the_url,
    past_the_wait_the_call_is_pending_and_resume_collects_the_answer_in_both_eras,
    mcpdo_in_url_mode_reaches_the_page_in_both_eras,
    a_request_state_the_server_never_gave_is_unknown_question,
    a_failed_or_odd_url_elicitation_and_no_elicitation,
    a_cancelled_call_closes_the_page_in_both_eras,
);
