//! `ask_user mcp` for clients that cannot, or may not, show a form, driven by
//! raw JSON-RPC lines (no SDK, so these run wherever the binary builds):
//! every `--fallback`, `--no-elicitation`, NO_ELICITATION, a client whose
//! form request fails, and the bounds of `--timeout`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::inbox::run;
use common::mcp_raw::Raw;
use common::process::{spawn_inbox, without_tty};
use common::{bin, run_with};

/// What the model reads next to a relayed prompt document.
const RELAY_NOTE: &str = "This MCP client cannot show a form, so nobody has been asked yet. \
Show rendered_markdown to the person and end your turn; their reply is the answer \
(see answer_instructions). Do not answer for them.";

const NO_ELICITATION: &str = r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"NO_ELICITATION","message":"this MCP client cannot show a form to the person (it declared no form elicitation); ask them the question in the chat instead"}}"#;

fn question() -> Value {
    json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"]})
}

/// The line `ask_user prompt` prints for `question()`, without its newline.
fn prompt_line() -> String {
    let run = run_with(&["prompt"], &[], question().to_string().as_bytes());
    assert_eq!(run.code, 0);
    run.stdout.trim_end_matches('\n').to_string()
}

/// The next message, which must be the response to call `id`: its result.
fn result_of(raw: &Raw, id: u64) -> Value {
    let reply = raw.next();
    assert_eq!(reply["id"], id, "expected the call's result, got {reply}");
    reply["result"].clone()
}

/// The tool result of a relayed prompt: the document as `ask_user prompt`
/// prints it (text and structured), then the note for the model.
fn assert_relayed_prompt(result: &Value) {
    let line = prompt_line();
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": line}, {"type": "text", "text": RELAY_NOTE}])
    );
    assert_eq!(
        result["structuredContent"],
        serde_json::from_str::<Value>(&line).unwrap()
    );
}

/// The error document of an error result: its one text block (error results
/// carry no structuredContent, which the outputSchema keeps for answers).
fn error_document(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let blocks = result["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{result}");
    assert_eq!(blocks[0]["type"], "text");
    serde_json::from_str(blocks[0]["text"].as_str().unwrap()).unwrap()
}

/// The tool result of an error document given as its exact line.
fn assert_error_result(result: &Value, line: &str) {
    error_document(result);
    assert_eq!(result["content"][0]["text"], line);
}

#[test]
fn without_forms_the_default_fallback_relays_the_prompt_document() {
    // No elicitation at all, in both handshake versions (URL-only: tests/mcp_url.rs).
    for (version, capabilities) in [("2025-11-25", json!({})), ("2025-06-18", json!({}))] {
        let mut raw = Raw::start(&["mcp"]);
        raw.initialize(version, capabilities);
        raw.call(1, &question(), None);
        assert_relayed_prompt(&result_of(&raw, 1));
    }
    // The same with the fallback named.
    let mut raw = Raw::start(&["mcp", "--fallback", "prompt"]);
    raw.initialize("2025-11-25", json!({}));
    raw.call(2, &question(), None);
    assert_relayed_prompt(&result_of(&raw, 2));
}

#[test]
fn fallback_error_is_no_elicitation() {
    let mut raw = Raw::start(&["mcp", "--fallback", "error"]);
    raw.initialize("2025-11-25", json!({}));
    raw.call(1, &question(), None);
    assert_error_result(&result_of(&raw, 1), NO_ELICITATION);
    // The session goes on.
    raw.ping(2);
}

#[test]
fn no_elicitation_never_sends_a_form_to_a_client_that_has_forms() {
    let forms = json!({"elicitation": {"form": {}}});
    let mut raw = Raw::start(&["mcp", "--no-elicitation"]);
    raw.initialize("2025-11-25", forms.clone());
    raw.call(1, &question(), None);
    // The very next message is the result: no elicitation/create came first.
    assert_relayed_prompt(&result_of(&raw, 1));

    let mut raw = Raw::start(&["mcp", "--no-elicitation", "--fallback", "error"]);
    raw.initialize("2025-11-25", forms);
    raw.call(1, &question(), None);
    assert_error_result(&result_of(&raw, 1), NO_ELICITATION);
}

#[test]
fn a_form_the_client_fails_to_show_falls_back() {
    for (args, expect_error) in [
        (&["mcp"][..], false),
        (&["mcp", "--fallback", "error"], true),
    ] {
        let mut raw = Raw::start(args);
        raw.initialize("2025-11-25", json!({"elicitation": {}}));
        raw.call(1, &question(), None);
        let form = raw.next();
        assert_eq!(form["method"], "elicitation/create", "{form}");
        raw.send(
            &json!({"jsonrpc": "2.0", "id": form["id"],
                    "error": {"code": -32603, "message": "this client cannot draw forms"}})
            .to_string(),
        );
        let result = result_of(&raw, 1);
        if expect_error {
            assert_error_result(&result, NO_ELICITATION);
        } else {
            assert_relayed_prompt(&result);
        }
    }
}

#[test]
fn fallback_tty_without_a_terminal_is_no_tty() {
    let mut command = Command::new(bin());
    command.args(["mcp", "--fallback", "tty"]);
    without_tty(&mut command);
    let mut raw = Raw::spawn(command);
    raw.initialize("2025-11-25", json!({}));
    raw.call(1, &question(), None);
    let document = error_document(&result_of(&raw, 1));
    let error = &document["error"];
    assert_eq!(error["code"], "NO_TTY", "{document}");
    // The terminal device differs between systems: /dev/tty on Unix, the
    // console on Windows (whose binary .ci/cross runs these tests against).
    let message = error["message"].as_str().unwrap();
    assert!(
        ["/dev/tty", "the console"]
            .iter()
            .any(|device| message.starts_with(&format!(
                "ask needs a terminal to ask on, and there is none: {device}"
            ))),
        "{error}"
    );
    assert!(error.get("path").is_none());
    raw.ping(2);
}

/// A request to the answer page with the headers the page itself sends.
fn post(url: &str, path: &str, body: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, query) = rest.split_once('/').unwrap();
    let token = query.strip_prefix("?token=").unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\
         Origin: http://{host}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// Calls the tool with `question()`, takes the page's address from the log
/// notice, posts `option` there, and returns the call's result.
fn answered_on_the_announced_page(raw: &mut Raw, option: &str) -> Value {
    raw.call(1, &question(), None);
    let notice = raw.next();
    assert_eq!(notice["method"], "notifications/message", "{notice}");
    let data = notice["params"]["data"].as_str().unwrap();
    let url = data
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .expect("the page's address");
    let body = json!({"answers": [{"optionIds": [option]}]}).to_string();
    let response = post(url, "/answer", &body);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let result = result_of(raw, 1);
    assert_eq!(result["isError"], false, "{result}");
    result
}

#[test]
fn fallback_web_takes_the_answer_posted_on_the_page() {
    let mut raw = Raw::start(&["mcp", "--fallback", "web"]);
    raw.initialize("2025-11-25", json!({}));
    let result = answered_on_the_announced_page(&mut raw, "2");
    assert_eq!(
        result["content"][0]["text"],
        format!(
            "{}{}}}",
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["SQLite"],"optionIds":["2"]}]"#,
            common::answered_by_json("page")
        )
    );
}

/// `--fallback auto` with no inbox running (an empty state folder, no
/// `ASK_USER_INBOX`) serves the answer page, as `--fallback web` does.
#[test]
fn fallback_auto_without_an_inbox_serves_the_page() {
    let state = tempfile::tempdir().unwrap();
    let mut command = Command::new(bin());
    command
        .args(["mcp", "--fallback", "auto"])
        .env("ASK_USER_STATE_DIR", state.path())
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN");
    let mut raw = Raw::spawn(command);
    raw.initialize("2025-11-25", json!({}));
    let result = answered_on_the_announced_page(&mut raw, "1");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains(r#""values":["PostgreSQL"]"#),
        "{result}"
    );
}

/// `--fallback auto` with an inbox running asks there: the call's pending
/// document names an inbox question, and the inbox lists it.
#[test]
fn fallback_auto_with_an_inbox_asks_in_the_inbox() {
    let state = tempfile::tempdir().unwrap();
    let (_inbox, line) = spawn_inbox(&mut Command::new(bin()), state.path(), |_| {});
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    let mut command = Command::new(bin());
    command
        .args(["mcp", "--fallback", "auto", "--wait", "0.5"])
        .env("ASK_USER_STATE_DIR", state.path())
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN");
    let mut raw = Raw::spawn(command);
    raw.initialize("2025-11-25", json!({}));
    raw.call(1, &question(), None);
    let result = result_of(&raw, 1);
    let document = &result["structuredContent"];
    assert_eq!(document["pending"], true, "{result}");
    let id = document["inboxId"].as_str().expect("an inbox question");
    let (code, listed) = run(state.path(), &["inbox", "list"]);
    assert_eq!(code, 0, "{listed}");
    assert!(listed.contains(&format!(r#""inboxId":"{id}""#)), "{listed}");
}

#[test]
fn mcp_timeout_accepts_exactly_one_day_and_nothing_longer() {
    let starts = |timeout: &str| {
        Command::new(bin())
            .args(["mcp", "--timeout", timeout])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    // Accepted: the server starts, and ends quietly with its input.
    for timeout in ["86400", "86400.0", "0.001"] {
        let output = starts(timeout);
        assert_eq!(output.status.code(), Some(0), "{timeout}");
        assert!(output.stdout.is_empty(), "{timeout}");
    }
    let output = starts("86400.001");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("out of range"));
}
