//! `ask_user mcp` driven by real clients: the official MCP Python SDK (both
//! protocol eras), the official TypeScript SDK, and raw JSON-RPC lines for
//! what no SDK will send (malformed traffic, cancellation, 2025-06-18 forms).
//!
//! The SDK clients are installed by .ci/setup-mcp.sh. When one is missing its
//! tests count as ignored (tests/common/harness.rs), and fail under CI.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use common::bin;
use common::clients::{mcp_python, mcp_typescript_sdk, tests_dir};
use common::mcp_raw::Raw;
use common::process::{ChildGuard, exit_within, output_with_stdin, port_is_closed};

fn here() -> PathBuf {
    tests_dir("mcp")
}

/// Runs one scenario through tests/mcp/py_client.py.
fn python_scenario(mode: &str, scenario: Value) -> Value {
    let python = mcp_python();
    let mut scenario = scenario;
    scenario["binary"] = json!(bin());
    scenario["mode"] = json!(mode);
    let output = output_with_stdin(
        Command::new(python)
            .arg(here().join("py_client.py"))
            .stderr(Stdio::piped()),
        scenario.to_string().as_bytes(),
    )
    .expect("python runs");
    assert!(
        output.status.success(),
        "py_client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("py_client prints JSON")
}

fn call(arguments: Value, reply: Value) -> Value {
    json!({"arguments": arguments, "reply": reply})
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The `error` object of an error result as a Python SDK call gave it: the
/// error document is in the one text block, with no structuredContent
/// (which the outputSchema does not describe).
fn sdk_error(result: &Value) -> Value {
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(result["structured"], Value::Null, "{result}");
    error_document(&result["texts"])
}

/// The `error` object of a raw JSON-RPC error result (`result` of the reply).
fn raw_error(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let texts: Vec<Value> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["text"].clone())
        .collect();
    error_document(&Value::Array(texts))
}

fn error_document(texts: &Value) -> Value {
    let texts = texts.as_array().unwrap();
    assert_eq!(texts.len(), 1, "one text block: {texts:?}");
    let document: Value = serde_json::from_str(texts[0].as_str().unwrap()).unwrap();
    assert_eq!(document["tool"], "ask_user");
    assert_eq!(document["status"], "error", "{document}");
    document["error"].clone()
}

const MODES: [&str; 2] = ["legacy", "auto"];

fn python_sdk_lists_the_one_tool_in_both_eras() {
    let described: Value = serde_json::from_str(&ask_user::describe::describe(
        ask_user::describe::Format::Mcp,
        ask_user::TOOL_NAME,
    ))
    .unwrap();
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let out = python_scenario(mode, json!({"calls": []}));
        assert_eq!(out["protocol_version"], version, "{mode}");
        let tools = out["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1);
        let tool = &tools[0];
        assert_eq!(tool["name"], "ask_user");
        assert_eq!(tool["inputSchema"], described["inputSchema"]);
        assert_eq!(tool["outputSchema"], described["outputSchema"]);
        assert_eq!(tool["annotations"]["readOnlyHint"], true);
        assert_eq!(tool["annotations"]["destructiveHint"], false);
        assert_eq!(tool["annotations"]["openWorldHint"], false);
    }
}

fn python_sdk_answers_every_kind_through_a_form_in_both_eras() {
    for mode in MODES {
        let scenario = json!({"calls": [
            call(
                json!({"question": "Which database?", "context": "For the cache.",
                       "options": ["PostgreSQL", {"label": "SQLite", "recommended": true}],
                       "allow_other": true}),
                accept(json!({"q1": "2"})),
            ),
            call(
                json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"], "allow_other": true}),
                accept(json!({"q1.other": "DuckDB"})),
            ),
            call(
                json!({"question": "Which checks?", "options": ["lint", "test", "bench"], "multi_select": true}),
                accept(json!({"q1": ["3", "1"]})),
            ),
            call(
                json!({"prompt": "Name the branch", "type": "text", "default": "main"}),
                accept(json!({"q1": "feature/x"})),
            ),
            call(
                json!({"prompt": "Deploy now?", "type": "confirm"}),
                accept(json!({"q1": false})),
            ),
            call(
                json!({"title": "Setup", "questions": [
                    {"id": "lang", "question": "Language?", "options": ["Rust", "Go"]},
                    {"id": "notes", "question": "Anything else?", "required": false}]}),
                accept(json!({"lang": "1"})),
            ),
            // A note beside the choice (Claude Code drops the choice when a
            // note is added; here both are kept), and one on a skipped question.
            call(
                json!({"questions": [
                    {"question": "Which database?", "options": ["PostgreSQL", "SQLite"]},
                    {"question": "Extras?", "options": ["Redis", "Kafka"], "multi_select": true,
                     "required": false}]}),
                accept(json!({"q1": "1", "q1.note": "but keep SQLite for tests",
                              "q2.note": "none for now"})),
            ),
        ]});
        let out = python_scenario(mode, scenario);
        let results = out["results"].as_array().unwrap();
        for result in results {
            assert_eq!(result["is_error"], false, "{mode}: {result}");
            assert_eq!(result["structured"]["answered"], true, "{mode}: {result}");
            assert_eq!(
                result["forms"].as_array().unwrap().len(),
                1,
                "one form per call"
            );
            // The text block is the same document, on one line.
            let text: Value = serde_json::from_str(result["texts"][0].as_str().unwrap()).unwrap();
            assert_eq!(text, result["structured"]);
        }
        let answer = |i: usize| results[i]["structured"]["answers"].clone();
        assert_eq!(
            answer(0),
            json!([{"questionId": "q1", "values": ["SQLite"], "optionIds": ["2"]}])
        );
        assert_eq!(
            answer(1),
            json!([{"questionId": "q1", "values": ["DuckDB"], "optionIds": [], "customText": "DuckDB"}])
        );
        assert_eq!(
            answer(2),
            json!([{"questionId": "q1", "values": ["lint", "bench"], "optionIds": ["1", "3"]}])
        );
        assert_eq!(
            answer(3),
            json!([{"questionId": "q1", "values": ["feature/x"]}])
        );
        assert_eq!(answer(4), json!([{"questionId": "q1", "values": ["no"]}]));
        assert_eq!(
            answer(5),
            json!([{"questionId": "lang", "values": ["Rust"], "optionIds": ["1"]},
                   {"questionId": "notes", "values": []}])
        );
        assert_eq!(
            answer(6),
            json!([{"questionId": "q1", "values": ["PostgreSQL"], "optionIds": ["1"],
                    "note": "but keep SQLite for tests"},
                   {"questionId": "q2", "values": [], "optionIds": [], "note": "none for now"}])
        );

        // The forms: titled enums (both SDK eras are 2025-11-25 or later),
        // context in the message, Other as an optional string, defaults kept.
        let form = |i: usize| results[i]["forms"][0].clone();
        assert_eq!(form(0)["message"], "Which database?\n\nFor the cache.");
        let schema = form(0)["requested_schema"].clone();
        assert_eq!(
            schema["properties"]["q1"]["oneOf"],
            json!([{"const": "1", "title": "PostgreSQL"}, {"const": "2", "title": "SQLite (recommended)"}])
        );
        assert_eq!(schema["properties"]["q1.other"]["type"], "string");
        assert!(
            schema.get("required").is_none(),
            "with Other, neither field alone is required"
        );
        let multi = form(2)["requested_schema"]["properties"]["q1"].clone();
        assert_eq!(multi["type"], "array");
        assert_eq!(
            multi["items"]["anyOf"][2],
            json!({"const": "3", "title": "bench"})
        );
        assert_eq!(multi["minItems"], 1);
        let text = form(3)["requested_schema"].clone();
        assert_eq!(text["properties"]["q1"]["default"], "main");
        assert_eq!(text["required"], json!(["q1"]));
        assert_eq!(
            form(4)["requested_schema"]["properties"]["q1"]["type"],
            "boolean"
        );
        let several = form(5).clone();
        assert_eq!(
            several["message"],
            "Setup\n\nPlease answer the 2 questions below."
        );
        let keys: Vec<&String> = several["requested_schema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(
            keys,
            ["lang", "lang.note", "notes", "notes.note"],
            "fields keep the question order, each with its optional note"
        );
        let note = &several["requested_schema"]["properties"]["lang.note"];
        assert_eq!(note["type"], "string");
        assert_eq!(note["maxLength"], 1000);
        assert!(
            several["requested_schema"]["required"]
                .as_array()
                .is_some_and(|required| required == &[json!("lang")]),
            "a note is never required: {several}"
        );
    }
}

fn python_sdk_decline_and_cancel_give_no_answer() {
    for mode in MODES {
        let question = json!({"question": "Proceed?", "options": ["yes, go", "no, stop"]});
        let scenario = json!({"calls": [
            call(question.clone(), json!({"action": "decline"})),
            call(question, json!({"action": "cancel"})),
        ]});
        let out = python_scenario(mode, scenario);
        let declined = &out["results"][0];
        assert_eq!(declined["is_error"], false);
        assert_eq!(
            declined["structured"],
            json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
                   "cancelled": true, "timedOut": false, "reason": "declined", "answers": []})
        );
        let cancelled = &out["results"][1];
        assert_eq!(
            cancelled["structured"],
            json!({"tool": "ask_user", "version": 1, "status": "ok", "answered": false,
                   "cancelled": true, "timedOut": false, "answers": []})
        );
    }
}

fn python_sdk_times_out_without_inventing_an_answer() {
    for mode in MODES {
        // The server waits 1 s. Handshake era: the person never answers, so
        // only the server's timeout can end the call (it withdraws the form).
        // 2026-07-28 has no server-to-client requests: the reply comes back
        // with the retry 1.5 s after the form, past the deadline the first
        // call handed out, which the server checks on the retry.
        let mut call = json!({"arguments": {"question": "Pick", "options": ["a", "b"], "default": "a"},
                              "reply": accept(json!({"q1": "2"}))});
        if mode == "legacy" {
            call["hold"] = json!(true);
        } else {
            call["delay"] = json!(1.5);
        }
        let scenario = json!({"server_args": ["mcp", "--timeout", "1"], "calls": [call]});
        let out = python_scenario(mode, scenario);
        let result = &out["results"][0];
        assert_eq!(result["is_error"], false, "{mode}");
        assert_eq!(result["structured"]["timedOut"], true, "{mode}: {result}");
        assert_eq!(result["structured"]["answered"], false);
        assert_eq!(result["structured"]["answers"], json!([]));
    }
}

fn python_sdk_gets_invalid_input_as_an_error_result() {
    for mode in MODES {
        let scenario = json!({"calls": [
            call(json!({"question": "Pick", "options": ["only one"]}), json!({"action": "cancel"})),
            call(json!({"question": "Pick"}), json!({"action": "cancel"})),
            call(json!({"question": "Pick", "options": ["a", "b"], "timeout": 5}), json!({"action": "cancel"})),
        ]});
        let out = python_scenario(mode, scenario);
        let expected = [
            ("INVALID_OPTIONS", "options"),
            ("MISSING_OPTIONS", "options"),
            ("INVALID_FIELD", "timeout"),
        ];
        for (result, (code, path)) in out["results"].as_array().unwrap().iter().zip(expected) {
            assert_eq!(result["forms"], json!([]), "no form for invalid input");
            let error = sdk_error(result);
            assert_eq!(error["code"], code, "{mode}: {result}");
            assert_eq!(error["path"], path);
            assert!(!error["message"].as_str().unwrap().is_empty());
        }
    }
}

fn python_sdk_without_elicitation_gets_each_fallback() {
    let question = json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"]});
    for mode in MODES {
        let prompt = json!({"elicit": false, "calls": [call(question.clone(), json!(null))]});
        let out = python_scenario(mode, prompt);
        let result = &out["results"][0];
        assert_eq!(result["is_error"], false, "{mode}");
        // Exactly what `ask_user prompt` prints for the same input.
        let expected = output_with_stdin(
            Command::new(bin()).arg("prompt"),
            question.to_string().as_bytes(),
        )
        .unwrap();
        let expected: Value = serde_json::from_slice(&expected.stdout).unwrap();
        assert_eq!(result["structured"], expected);
        assert!(
            result["texts"][1]
                .as_str()
                .unwrap()
                .contains("end your turn")
        );

        let error = json!({"elicit": false, "server_args": ["mcp", "--fallback", "error"],
                           "calls": [call(question.clone(), json!(null))]});
        let out = python_scenario(mode, error);
        let result = &out["results"][0];
        let error = sdk_error(result);
        assert_eq!(error["code"], "NO_ELICITATION");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("ask them the question in the chat")
        );

        // A client that declares forms but is told not to use them.
        let never = json!({"server_args": ["mcp", "--no-elicitation"],
                           "calls": [call(question.clone(), accept(json!({"q1": "1"})))]});
        let out = python_scenario(mode, never);
        let result = &out["results"][0];
        assert_eq!(result["forms"], json!([]), "no form was shown");
        assert_eq!(result["structured"], expected);

        // No terminal face in this build (and no terminal under test): NO_TTY.
        let tty = json!({"elicit": false, "server_args": ["mcp", "--fallback", "tty"],
                         "calls": [call(question.clone(), json!(null))]});
        let out = python_scenario(mode, tty);
        let result = &out["results"][0];
        assert_eq!(sdk_error(result)["code"], "NO_TTY");
    }
}

fn python_sdk_learns_the_page_address_and_gets_notices_only_when_it_opts_in() {
    // Nobody answers: the server's short timeout ends each call. (Handshake-era
    // clients get the notice unless they lower the level: tests/mcp_web.rs and
    // fallback_web_sends_no_notice_after_set_level_above_notice.)
    let question = json!({"prompt": "Go?", "type": "confirm"});
    for (mode, log_level, notices) in [
        ("auto", None, 0),
        ("auto", Some("info"), 1),
        ("auto", Some("warning"), 0),
    ] {
        let url_file = std::env::temp_dir().join(format!(
            "ask-user-mcp-{}-{mode}-{}.url",
            std::process::id(),
            log_level.unwrap_or("none")
        ));
        let _ = std::fs::remove_file(&url_file);
        let scenario = json!({"elicit": false, "watch": url_file, "log_level": log_level,
            "server_args": ["mcp", "--fallback", "web", "--timeout", "1"],
            "calls": [call(question.clone(), json!(null))]});
        let out = python_scenario(mode, scenario);
        let url = std::fs::read_to_string(&url_file).unwrap();
        let _ = std::fs::remove_file(&url_file);
        let result = &out["results"][0];
        let case = format!("{mode} {log_level:?}");
        assert_eq!(result["structured"]["timedOut"], true, "{case}");
        assert_eq!(result["page_closed"], true, "{case}");
        assert_eq!(
            page_url(result["progress"][0]["message"].as_str().unwrap()),
            url
        );
        let logs = out["logs"].as_array().unwrap();
        assert_eq!(logs.len(), notices, "{case}: {logs:?}");
        for log in logs {
            assert_eq!(page_url(log["data"].as_str().unwrap()), url);
        }
    }
}

/// Runs one scenario through tests/mcp/ts_client.mjs (the TypeScript SDK).
fn typescript_scenario(scenario: Value) -> Value {
    let dir = mcp_typescript_sdk();
    let mut scenario = scenario;
    scenario["binary"] = json!(bin());
    let output = output_with_stdin(
        Command::new("node")
            .arg(dir.join("ts_client.mjs"))
            .current_dir(&dir)
            .stderr(Stdio::piped()),
        scenario.to_string().as_bytes(),
    )
    .expect("node runs");
    assert!(
        output.status.success(),
        "ts_client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("ts_client prints JSON")
}

/// The error code of a result the TypeScript SDK accepted: the error
/// document in the one text block, no structuredContent.
fn typescript_error_code(result: &Value) -> Value {
    assert!(
        result.get("thrown").is_none(),
        "the SDK rejected it: {result}"
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["structured"], Value::Null, "{result}");
    error_document(&result["texts"])["code"].clone()
}

/// `mcp --tool-name ask_person`: the SDK lists that name, calls it, and is
/// refused the old one.
fn typescript_sdk_sees_and_calls_a_renamed_tool() {
    let question = json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"]});
    let mut renamed = call(question.clone(), accept(json!({"q1": "1"})));
    renamed["name"] = json!("ask_person");
    let mut old = call(question, accept(json!({"q1": "1"})));
    old["name"] = json!("ask_user");
    let out = typescript_scenario(json!({
        "server_args": ["mcp", "--tool-name", "ask_person"], "calls": [renamed, old]}));
    assert_eq!(out["tools"].as_array().unwrap().len(), 1);
    assert_eq!(out["tools"][0]["name"], "ask_person");
    let results = out["results"].as_array().unwrap();
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    assert_eq!(
        results[0]["structured"]["answers"][0]["values"],
        json!(["PostgreSQL"])
    );
    let thrown = results[1]["thrown"].as_str().unwrap();
    assert!(
        thrown.contains("unknown tool \"ask_user\"; this server has one tool, ask_person"),
        "{thrown}"
    );
}

fn typescript_sdk_asks_and_reads_decline() {
    let question = json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"]});
    let out = typescript_scenario(json!({"calls": [
        call(question.clone(), accept(json!({"q1": "2"}))),
        call(question.clone(), json!({"action": "decline"})),
    ]}));
    assert_eq!(out["server"]["name"], "ask_user");
    assert_eq!(out["tools"][0]["name"], "ask_user");
    let results = out["results"].as_array().unwrap();
    assert_eq!(
        results[0]["forms"][0]["requestedSchema"]["properties"]["q1"]["oneOf"][1],
        json!({"const": "2", "title": "SQLite"})
    );
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    assert_eq!(
        results[0]["structured"],
        json!({"tool": "ask_user", "version": 1, "status": "ok",
            "answered": true, "cancelled": false, "timedOut": false,
            "answers": [{"questionId": "q1", "values": ["SQLite"], "optionIds": ["2"]}],
            "answeredBy": common::answered_by("form")})
    );
    assert_eq!(results[1]["isError"], false, "{}", results[1]);
    assert_eq!(results[1]["structured"]["reason"], "declined");
}

/// Every error result passes the SDK's check against the advertised
/// outputSchema and reaches the caller with its code; so does the relayed
/// prompt document.
fn typescript_sdk_accepts_every_error_result() {
    let question = json!({"question": "Which database?", "options": ["PostgreSQL", "SQLite"]});
    let too_large = json!({"question": "q", "options": ["a", "b"], "context": "y".repeat(300_000)});
    let out = typescript_scenario(json!({"calls": [
        call(json!({"question": " ", "options": ["a", "b"]}), json!(null)),
        call(json!({"question": "Pick", "options": ["only one"]}), json!(null)),
        call(question.clone(), accept(json!({}))),
        call(too_large, json!(null)),
    ]}));
    let codes: Vec<Value> = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(typescript_error_code)
        .collect();
    assert_eq!(
        codes,
        [
            "MISSING_QUESTION",
            "INVALID_OPTIONS",
            "INVALID_REPLY",
            "INPUT_TOO_LARGE"
        ]
    );
    assert_eq!(out["results"][2]["forms"].as_array().unwrap().len(), 1);

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for (server_args, code) in [
        (vec!["mcp", "--fallback", "error"], "NO_ELICITATION"),
        (vec!["mcp", "--fallback", "tty"], "NO_TTY"),
        (
            vec!["mcp", "--fallback", "web", "--port", &port],
            "WEB_ERROR",
        ),
    ] {
        let out = typescript_scenario(json!({"elicit": false, "server_args": server_args,
            "calls": [call(question.clone(), json!(null))]}));
        assert_eq!(typescript_error_code(&out["results"][0]), code);
    }

    let out = typescript_scenario(json!({"elicit": false,
        "calls": [call(question.clone(), json!(null))]}));
    let relayed = &out["results"][0];
    assert_eq!(relayed["isError"], false, "{relayed}");
    assert_eq!(
        relayed["structured"]["prompt"]["question"],
        "Which database?"
    );
}

// ---- raw JSON-RPC over stdio (the client: tests/common/mcp_raw.rs) ----

/// A request before `initialize`, without 2026-07-28's per-request `_meta`,
/// is told to initialize first (-32602, with its own id), and the session
/// then opens as usual; a 2026-07-28 request needs no initialize.
fn a_request_before_initialize_is_told_to_initialize() {
    let mut raw = Raw::start(&["mcp"]);
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let reply = raw.next();
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Invalid params: the server is not initialized: send initialize (then notifications/initialized) before tools/list;"
        ),
        "{message}"
    );
    assert!(
        !message.contains("is missing or has malformed"),
        "{message}"
    );
    raw.ping(2);
    raw.initialize("2025-11-25", json!({}));
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    let reply = raw.next();
    assert_eq!(reply["id"], 3, "{reply}");
    assert_eq!(reply["result"]["tools"][0]["name"], "ask_user", "{reply}");

    let mut stateless = Raw::start(&["mcp"]);
    stateless.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string(),
    );
    let reply = stateless.next();
    assert_eq!(reply["result"]["tools"][0]["name"], "ask_user", "{reply}");
}

fn malformed_traffic_gets_json_rpc_errors_and_the_server_goes_on() {
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({}));
    let cases: [(&str, Value, i64); 9] = [
        ("{not json", Value::Null, -32700),
        ("\u{1}\u{2}", Value::Null, -32700),
        ("[1, 2, 3]", Value::Null, -32600),
        (r#"{"id": 5, "method": "tools/list"}"#, json!(5), -32600),
        (
            r#"{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}"#,
            Value::Null,
            -32600,
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 11, "method": "no/such/method"}"#,
            json!(11),
            -32601,
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": 5}}"#,
            json!(12),
            -32602,
        ),
        (
            r#"{"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": {"name": "ask_user", "arguments": [1]}}"#,
            json!("s"),
            -32602,
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {"name": "other"}}"#,
            json!(14),
            -32602,
        ),
    ];
    for (i, (line, id, code)) in cases.into_iter().enumerate() {
        raw.send(line);
        let reply = raw.next();
        assert_eq!(reply["id"], id, "{line}");
        assert_eq!(reply["error"]["code"], code, "{line}: {reply}");
        assert!(!reply["error"]["message"].as_str().unwrap().is_empty());
        raw.ping(100 + i as u64);
    }

    // Blank lines, and lines of spaces, are skipped without an answer.
    raw.send("");
    raw.send(" \t ");
    raw.ping(150);

    // A malformed notification gets no answer (JSON-RPC never answers those).
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}"#);
    raw.ping(200);

    // A line over the 4 MiB limit is skipped whole and answered with an
    // error that carries its id: first, as the Python SDK writes it, or
    // last, after the params, as the TypeScript SDK does.
    let filler = "x".repeat(5 * 1024 * 1024);
    for (huge, id) in [
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":300,"method":"tools/call","params":{{"name":"ask_user","arguments":{{"question":"{filler}"}}}}}}"#
            ),
            json!(300),
        ),
        (
            format!(
                r#"{{"method":"tools/call","params":{{"name":"ask_user","arguments":{{"question":"{filler}","id":1}}}},"jsonrpc":"2.0","id":"last"}}"#
            ),
            json!("last"),
        ),
        // No id to be found (a notification): null, as JSON-RPC says.
        (
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"text":"{filler}"}}}}"#
            ),
            Value::Null,
        ),
    ] {
        raw.send(&huge);
        let reply = raw.next();
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(
            reply["error"]["message"],
            "Invalid Request: the message is longer than 4194304 bytes"
        );
        raw.ping(301);
    }

    // Large but within the line limit: the tool's own INPUT_TOO_LARGE, as an error result.
    let large = json!({"jsonrpc": "2.0", "id": 400, "method": "tools/call", "params": {
        "name": "ask_user", "arguments": {"question": "q", "options": ["a", "b"],
        "context": "y".repeat(300_000)}}});
    raw.send(&large.to_string());
    let reply = raw.next();
    assert_eq!(reply["id"], 400);
    assert_eq!(raw_error(&reply["result"])["code"], "INPUT_TOO_LARGE");
    raw.ping(401);
}

/// A line past the 4 MiB limit is read by a scan for its id that holds a few
/// hundred bytes whatever the line: a 32 MiB id (no id a request may carry)
/// must not grow the server's peak memory by more than its 4 MiB line buffer
/// could, which a first long line has already filled.
#[cfg(target_os = "linux")]
fn a_line_over_4_mib_is_scanned_in_constant_memory() {
    use common::process::memory_kib;
    const MIB: usize = 1024 * 1024;
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({}));
    let warm = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "x".repeat(6 * MIB)
    );
    raw.send(&warm);
    assert_eq!(raw.next()["id"], 1);
    let pid = raw.child.id();
    let before = memory_kib(pid, "VmHWM:");
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
        "7".repeat(32 * MIB)
    );
    raw.send(&huge);
    let reply = raw.next_within(Duration::from_secs(60));
    assert_eq!(reply["id"], Value::Null, "an id over 256 bytes is none");
    assert_eq!(reply["error"]["code"], -32600);
    let peak = memory_kib(pid, "VmHWM:");
    assert!(
        peak < before + 8 * 1024,
        "peak memory grew from {before} KiB to {peak} KiB over a 32 MiB line"
    );
    raw.ping(2);
}

fn tool_name_renames_the_tool_on_the_wire() {
    let mut raw = Raw::start(&["mcp", "--tool-name", "ask.person-2"]);
    let init = raw.initialize("2025-11-25", json!({}));
    assert!(
        init["result"]["instructions"]
            .as_str()
            .unwrap()
            .starts_with("One tool, ask.person-2:")
    );
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let listed = raw.next();
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "ask.person-2");
    let call = |id: u64, name: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": {"question": "Pick", "options": ["a", "b"]}}})
        .to_string()
    };
    // No form elicitation declared: the prompt document comes back.
    raw.send(&call(2, "ask.person-2"));
    let reply = raw.next();
    assert_eq!(reply["id"], 2);
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    // The document keeps "tool": "ask_user": it names the format, not the tool.
    assert_eq!(reply["result"]["structuredContent"]["tool"], "ask_user");
    raw.send(&call(3, "ask_user"));
    let refused = raw.next();
    assert_eq!(refused["id"], 3);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this server has one tool, ask.person-2")
    );
}

fn client_cancellation_stops_the_wait_and_withdraws_the_form() {
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({"elicitation": {"form": {}}}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"question": "Pick", "options": ["a", "b"]}}})
        .to_string(),
    );
    let form = raw.next();
    assert_eq!(form["method"], "elicitation/create");
    let form_id = form["id"].clone();
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user pressed stop"}}"#);
    let withdrawn = raw.next();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], form_id);
    // No response for the cancelled call: the next line is the ping's.
    raw.ping(8);
}

// ---- --fallback web without a browser (tests/mcp_web.rs has the browser) ----

/// The answer page's URL inside a notice or progress message.
fn page_url(text: &str) -> String {
    let start = text.find("http://127.0.0.1:").expect("a page URL");
    text[start..].split_whitespace().next().unwrap().to_string()
}

fn port_of(url: &str) -> u16 {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    rest.split('/').next().unwrap().parse().unwrap()
}

/// Whether the port stops listening within 2 s.
fn port_closes(port: u16) -> bool {
    (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        port_is_closed(port)
    })
}

fn fallback_web_closes_the_page_when_the_call_is_cancelled() {
    let mut raw = Raw::start(&["mcp", "--fallback", "web"]);
    let init = raw.initialize("2025-11-25", json!({}));
    assert_eq!(init["result"]["capabilities"]["logging"], json!({}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"question": "Pick", "options": ["a", "b"]},
            "_meta": {"progressToken": "p7"}}})
        .to_string(),
    );
    let notice = raw.next();
    assert_eq!(notice["method"], "notifications/message", "{notice}");
    assert_eq!(notice["params"]["level"], "notice");
    let url = page_url(notice["params"]["data"].as_str().unwrap());
    let progress = raw.next();
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "p7");
    assert_eq!(progress["params"]["total"], 300.0);
    assert_eq!(
        page_url(progress["params"]["message"].as_str().unwrap()),
        url
    );
    let port = port_of(&url);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#);
    assert!(port_closes(port), "port {port} still open after the cancel");
    // No response for the cancelled call: the next line is the ping's.
    raw.ping(8);
}

#[cfg(unix)]
fn fallback_web_open_hands_the_page_to_the_system_opener() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in xdg-open (and open, on macOS) that writes down what it was given.
    let bin = std::env::temp_dir().join(format!("ask-user-opener-{}", std::process::id()));
    std::fs::create_dir_all(&bin).unwrap();
    let opened = bin.join("opened");
    for name in ["xdg-open", "open"] {
        let script = bin.join(name);
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut raw = Raw::start_with(
        &["mcp", "--fallback", "web", "--open"],
        &[("PATH", bin.as_os_str())],
    );
    raw.initialize("2025-11-25", json!({}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"prompt": "Go?", "type": "confirm"}}})
        .to_string(),
    );
    let notice = raw.next();
    let url = page_url(notice["params"]["data"].as_str().unwrap());
    let given = (0..250).find_map(|_| {
        std::thread::sleep(Duration::from_millis(20));
        std::fs::read_to_string(&opened)
            .ok()
            .filter(|s| s.ends_with('\n'))
    });
    let _ = std::fs::remove_dir_all(&bin);
    assert_eq!(given.as_deref().map(str::trim), Some(url.as_str()));
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#);
    assert!(port_closes(port_of(&url)));
}

fn fallback_web_closes_the_page_when_the_client_goes_away() {
    let mut raw = Raw::start(&["mcp", "--fallback", "web"]);
    raw.initialize("2025-11-25", json!({}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"prompt": "Go?", "type": "confirm"}}})
        .to_string(),
    );
    let port = port_of(&page_url(raw.next()["params"]["data"].as_str().unwrap()));
    // stdin closes: rmcp lets waiting calls finish for 5 s, then cancels them.
    raw.stdin = None;
    let status = exit_within(
        &mut raw.child,
        Duration::from_secs(10),
        Duration::from_millis(50),
    )
    .expect("the server did not exit");
    assert_eq!(status.code(), Some(0));
    assert!(port_is_closed(port));
}

fn fallback_web_sends_no_notice_after_set_level_above_notice() {
    let mut raw = Raw::start(&["mcp", "--fallback", "web", "--timeout", "1"]);
    raw.initialize("2025-11-25", json!({}));
    raw.send(
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}"#,
    );
    assert_eq!(raw.next(), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"prompt": "Go?", "type": "confirm"}}})
        .to_string(),
    );
    // Neither a notice nor progress (no token): the next line is the result.
    let reply = raw.next();
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["timedOut"], true);
}

fn fallback_web_on_a_taken_port_is_web_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let mut raw = Raw::start(&["mcp", "--fallback", "web", "--port", &port]);
    raw.initialize("2025-11-25", json!({}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"prompt": "Go?", "type": "confirm"}}})
        .to_string(),
    );
    let reply = raw.next();
    let error = raw_error(&reply["result"]);
    assert_eq!(error["code"], "WEB_ERROR");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{error}"
    );
}

fn only_fallback_web_declares_logging() {
    let mut raw = Raw::start(&["mcp", "--fallback", "tty"]);
    let init = raw.initialize("2025-11-25", json!({}));
    assert!(init["result"]["capabilities"].get("logging").is_none());
    assert!(init["result"]["capabilities"]["tools"].is_object());
}

fn a_timeout_withdraws_the_form_and_reports_timed_out() {
    let mut raw = Raw::start(&["mcp", "--timeout", "1"]);
    raw.initialize("2025-11-25", json!({"elicitation": {}}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"prompt": "Go?", "type": "confirm"}}})
        .to_string(),
    );
    let form = raw.next();
    assert_eq!(form["method"], "elicitation/create");
    let mut seen = [raw.next(), raw.next()];
    seen.sort_by_key(|m| m.get("method").is_none());
    assert_eq!(seen[0]["method"], "notifications/cancelled");
    assert_eq!(seen[0]["params"]["requestId"], form["id"]);
    assert_eq!(seen[1]["id"], 3);
    assert_eq!(seen[1]["result"]["structuredContent"]["timedOut"], true);
}

/// `mcp --timeout TIMEOUT` with a form client, asked a confirm (call id 4)
/// with a progress token: the server and its `elicitation/create`.
fn waiting_with_progress(timeout: &str) -> (Raw, Value) {
    let mut raw = Raw::start(&["mcp", "--timeout", timeout]);
    raw.initialize("2025-11-25", json!({"elicitation": {}}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "_meta": {"progressToken": "tok"},
            "name": "ask_user", "arguments": {"prompt": "Go?", "type": "confirm"}}})
        .to_string(),
    );
    let form = raw.next();
    assert_eq!(form["method"], "elicitation/create");
    (raw, form)
}

fn a_waiting_call_reports_progress_when_asked() {
    let (raw, _form) = waiting_with_progress("2");
    let progress = raw.next();
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "tok");
    assert_eq!(progress["params"]["total"], 2.0);
    assert!(
        progress["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("waiting for the person")
    );
}

/// `mcp --timeout 0`, as `ask --timeout 0`: no limit of the server's own.
/// The call is still open at the first heartbeat (15 s without a limit),
/// whose progress has no total, and the person's answer still counts.
fn mcp_timeout_0_sets_no_limit_of_its_own() {
    let (mut raw, form) = waiting_with_progress("0");
    let progress = raw.next_within(Duration::from_secs(60));
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert!(progress["params"].get("total").is_none(), "{progress}");
    raw.send(
        &json!({"jsonrpc": "2.0", "id": form["id"], "result": {"action": "accept", "content": {"q1": true}}})
            .to_string(),
    );
    let reply = raw.next();
    assert_eq!(reply["id"], 4);
    assert_eq!(
        reply["result"]["structuredContent"]["answers"][0]["values"],
        json!(["yes"])
    );
}

fn a_2025_06_18_client_gets_enum_names_and_one_checkbox_per_option() {
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-06-18", json!({"elicitation": {}}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"questions": [
                {"id": "db", "question": "Database?", "options": ["2", "1"]},
                {"id": "checks", "question": "Checks?", "options": [{"label": "lint", "description": "fast"}, "test"], "type": "multi-select"}]}}})
        .to_string(),
    );
    let form = raw.next();
    assert_eq!(form["method"], "elicitation/create");
    let schema = &form["params"]["requestedSchema"];
    assert_eq!(
        schema["properties"]["db"],
        json!({"type": "string", "title": "Database?", "enum": ["2", "1"], "enumNames": ["2", "1"]})
    );
    assert_eq!(
        schema["properties"]["checks.1"],
        json!({"type": "boolean", "title": "Checks?: lint", "description": "fast"})
    );
    assert_eq!(schema["properties"]["checks.2"]["title"], "Checks?: test");
    raw.send(
        &json!({"jsonrpc": "2.0", "id": form["id"], "result": {"action": "accept",
            "content": {"db": "1", "checks.1": false, "checks.2": true}}})
        .to_string(),
    );
    let reply = raw.next();
    assert_eq!(reply["id"], 1);
    assert_eq!(
        reply["result"]["structuredContent"]["answers"],
        json!([{"questionId": "db", "values": ["1"], "optionIds": ["2"]},
               {"questionId": "checks", "values": ["test"], "optionIds": ["2"]}])
    );
}

fn a_reply_that_answers_nothing_is_invalid_reply() {
    let mut raw = Raw::start(&["mcp"]);
    raw.initialize("2025-11-25", json!({"elicitation": {}}));
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"question": "Pick", "options": ["a", "b"]}}})
        .to_string(),
    );
    let form = raw.next();
    raw.send(
        &json!({"jsonrpc": "2.0", "id": form["id"], "result": {"action": "accept", "content": {"q1": "9"}}})
            .to_string(),
    );
    let reply = raw.next();
    let error = raw_error(&reply["result"]);
    assert_eq!(error["code"], "INVALID_REPLY");
    assert_eq!(error["path"], "questions[0]");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Reply with the option number (1-2)")
    );
}

/// Raw, so it runs where no SDK is installed: a declined form is cancelled
/// with the reason `declined`, a cancelled one has no reason; neither is an
/// answer.
fn a_declined_form_is_declined_and_a_cancelled_one_cancelled() {
    for (action, reason) in [("decline", json!("declined")), ("cancel", Value::Null)] {
        let mut raw = Raw::start(&["mcp"]);
        raw.initialize("2025-11-25", json!({"elicitation": {}}));
        raw.call(1, &json!({"question": "Pick", "options": ["a", "b"]}), None);
        let form = raw.next();
        assert_eq!(form["method"], "elicitation/create", "{form}");
        raw.send(
            &json!({"jsonrpc": "2.0", "id": form["id"], "result": {"action": action}}).to_string(),
        );
        let reply = raw.next();
        let document = &reply["result"]["structuredContent"];
        assert_eq!(document["cancelled"], true, "{action}: {reply}");
        assert_eq!(document["answered"], false, "{action}: {reply}");
        assert_eq!(document["reason"], reason, "{action}: {reply}");
    }
}

/// 2026-07-28 (no server-to-client requests), raw: the form comes back in
/// an `input_required` result whose `requestState` holds the deadline. A
/// retry before it with the reply is answered; after it, with or without a
/// reply, it is timed out; before it without a reply, the form again.
fn a_stateless_form_keeps_its_deadline_in_the_request_state() {
    let mut raw = Raw::start(&["mcp"]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}});
    let params = json!({"name": "ask_user", "_meta": meta,
        "arguments": {"question": "Go?", "type": "confirm", "timeout": 600_000}});
    let mut send = |id: u64, extra: Value| raw.call_with(id, &params, &extra)["result"].clone();
    let first = send(1, json!({}));
    assert_eq!(first["resultType"], "input_required", "{first}");
    let state = first["requestState"].as_str().unwrap().to_string();
    assert!(state.starts_with("deadline-ms:"), "{state}");
    let accept = json!({"ask_user": {"action": "accept", "content": {"q1": true}}});

    let again = send(2, json!({"requestState": state}));
    assert_eq!(again["resultType"], "input_required", "{again}");
    let answered = send(3, json!({"requestState": state, "inputResponses": accept}));
    assert_eq!(
        answered["structuredContent"]["answers"][0]["values"],
        json!(["yes"]),
        "{answered}"
    );
    let past = "deadline-ms:1";
    for (id, extra) in [
        (4, json!({"requestState": past, "inputResponses": accept})),
        (5, json!({"requestState": past})),
    ] {
        let late = send(id, extra);
        assert_eq!(late["structuredContent"]["timedOut"], true, "{late}");
        assert_eq!(late["structuredContent"]["answered"], false, "{late}");
    }
}

fn stdin_eof_ends_the_server_quietly() {
    let output = Command::new(bin())
        .arg("mcp")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}

/// Diagnostics go to stderr, one prefixed line each: a malformed
/// notification (which JSON-RPC never answers) is logged there and ignored.
/// (That the server goes on after one: malformed_traffic_gets_json_rpc_errors….)
fn a_malformed_notification_is_logged_on_stderr() {
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": "not an object"}),
    ];
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let output = output_with_stdin(
        Command::new(bin()).arg("mcp").stderr(Stdio::piped()),
        input.as_bytes(),
    )
    .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .lines()
            .any(|line| line == "ask_user mcp: ignored a malformed notification"),
        "{stderr}"
    );
}

/// A host that closed the server's stdout (it went away, its stdin still
/// open) ends the server at the next line the server must answer itself,
/// rather than leaving it to wait for the end of stdin.
fn a_server_whose_stdout_is_gone_ends_at_its_next_answer() {
    use std::io::Write;
    let mut child = ChildGuard::spawn(
        Command::new(bin())
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
    .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let _ = writeln!(stdin, "{initialize}");
    // Lines only the server's own filter answers, until it is gone.
    let mut ended = None;
    for _ in 0..50 {
        if writeln!(stdin, "{{oops").is_err() {
            break;
        }
        ended = exit_within(
            &mut child,
            Duration::from_millis(100),
            Duration::from_millis(10),
        );
        if ended.is_some() {
            break;
        }
    }
    let ended = ended.or_else(|| {
        exit_within(
            &mut child,
            Duration::from_secs(1),
            Duration::from_millis(10),
        )
    });
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        ended.is_some(),
        "the server still ran 5 s after its stdout closed"
    );
    drop(stdin);
}

fn a_panic_in_mcp_mode_reports_on_stderr_not_on_the_protocol_stream() {
    let output = Command::new(bin())
        .arg("mcp")
        .env("ASK_USER_DEBUG_PANIC", "mcp")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "stdout is protocol only");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(r#""code":"INTERNAL_ERROR""#), "{stderr}");
}

fn mcp_rejects_a_bad_fallback_as_usage_error() {
    let output = Command::new(bin())
        .args(["mcp", "--fallback", "email"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--fallback"));
}

fn mcp_timeout_takes_decimal_seconds_and_rejects_more_than_a_day() {
    for (timeout, wanted) in [
        ("86400.5", "out of range"),
        ("-1", "out of range: give 0 to 86400 seconds"),
        ("soon", "not a number of seconds"),
    ] {
        let output = Command::new(bin())
            .args(["mcp".to_string(), format!("--timeout={timeout}")])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{timeout}");
        assert!(output.stdout.is_empty(), "{timeout}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("--timeout") && stderr.contains(wanted),
            "{timeout}: {stderr}"
        );
    }
    // A decimal wait is accepted: the server starts and ends with its input.
    let output = Command::new(bin())
        .args(["mcp", "--timeout", "0.5"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}

common::harness::main!(
    python_sdk_lists_the_one_tool_in_both_eras,
    python_sdk_answers_every_kind_through_a_form_in_both_eras,
    python_sdk_decline_and_cancel_give_no_answer,
    python_sdk_times_out_without_inventing_an_answer,
    python_sdk_gets_invalid_input_as_an_error_result,
    python_sdk_without_elicitation_gets_each_fallback,
    python_sdk_learns_the_page_address_and_gets_notices_only_when_it_opts_in,
    typescript_sdk_asks_and_reads_decline,
    typescript_sdk_sees_and_calls_a_renamed_tool,
    typescript_sdk_accepts_every_error_result,
    malformed_traffic_gets_json_rpc_errors_and_the_server_goes_on,
    a_request_before_initialize_is_told_to_initialize,
    client_cancellation_stops_the_wait_and_withdraws_the_form,
    tool_name_renames_the_tool_on_the_wire,
    #[cfg(target_os = "linux")]
    a_line_over_4_mib_is_scanned_in_constant_memory,
    fallback_web_closes_the_page_when_the_call_is_cancelled,
    #[cfg(unix)]
    fallback_web_open_hands_the_page_to_the_system_opener,
    fallback_web_closes_the_page_when_the_client_goes_away,
    fallback_web_sends_no_notice_after_set_level_above_notice,
    fallback_web_on_a_taken_port_is_web_error,
    only_fallback_web_declares_logging,
    a_timeout_withdraws_the_form_and_reports_timed_out,
    a_waiting_call_reports_progress_when_asked,
    a_2025_06_18_client_gets_enum_names_and_one_checkbox_per_option,
    a_reply_that_answers_nothing_is_invalid_reply,
    a_declined_form_is_declined_and_a_cancelled_one_cancelled,
    a_stateless_form_keeps_its_deadline_in_the_request_state,
    stdin_eof_ends_the_server_quietly,
    a_malformed_notification_is_logged_on_stderr,
    a_server_whose_stdout_is_gone_ends_at_its_next_answer,
    a_panic_in_mcp_mode_reports_on_stderr_not_on_the_protocol_stream,
    mcp_rejects_a_bad_fallback_as_usage_error,
    mcp_timeout_takes_decimal_seconds_and_rejects_more_than_a_day,
    mcp_timeout_0_sets_no_limit_of_its_own,
);
