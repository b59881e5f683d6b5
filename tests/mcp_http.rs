//! MCP over Streamable HTTP on the inbox (`/mcp`, issue 23) through real
//! clients: the official TypeScript SDK (1.32.2, initialize era, and
//! @modelcontextprotocol/client 2.4.0 pinned to 2026-07-28) and the Python
//! SDK (tests/mcp/ts_http.mjs, tests/mcp/py_http.py), each sending the
//! inbox token as `Authorization: Bearer`. The person answers in the inbox
//! page (headless Chromium, tests/web/drive.mjs) or with `ask_user inbox
//! answer`; the answer comes back in the tool result, and a question whose
//! call ended is collected later with `{"resume": ID}`.
//!
//! Issue 11's hostile clients on `/mcp`: no token (401, and no OAuth
//! pointer anywhere), a foreign Origin (403), a rebinding Host (refused),
//! stalled bodies and a flood of tokenless requests (the person's answer
//! still goes through).
//!
//! Real hosts, each a whole agent turn over HTTP: Claude Code 2.1.330
//! (`claude mcp add --transport http … --header "Authorization: Bearer …"`,
//! one `claude -p` turn) and Codex 0.169.0 (`url` with
//! `bearer_token_env_var`, one `codex exec` turn), each on the scripted
//! model stand-in tests/hosts.rs uses (tests/hosts/model_stand_in.py, the
//! Anthropic Messages and OpenAI Responses APIs; tests/common/stand_in.rs),
//! in a loopback network of their own with the inbox. The model sees the
//! host's `ask_user` tool in its request (the host connected to /mcp with
//! the token and listed it) and calls it; the question is pending in the
//! inbox; `ask_user inbox answer` answers it, and the model receives the
//! answer document as the tool result. The same /mcp added without the
//! token gives the model no tool (and Claude Code's `mcp list` shows it not
//! connected).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::browser::Browser;
use common::clients::{chromium, claude_code, codex, mcp_python, mcp_typescript_sdk, tests_dir};
use common::page::{self, Response, read_response};
use common::process::{ChildGuard, JsonClient, exit_within, json_client, spawn_inbox};
use common::scratch::Scratch;
use common::stand_in::{HostTurn, Network, QUESTION, postgres_answer};

const DATABASE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;
const EXTRAS: &str =
    r#"{"question":"Which extras?","options":["Redis","Kafka","NATS"],"multi_select":true}"#;
const NAME: &str = r#"{"questions":[{"question":"Name the service"}]}"#;

/// A running `ask_user inbox` with a state folder of its own.
struct Inbox {
    child: ChildGuard,
    dir: tempfile::TempDir,
    port: u16,
    token: String,
    url: String,
}

impl Inbox {
    fn start() -> Inbox {
        Inbox::spawn(&mut Command::new(bin()))
    }

    /// An inbox started by `command` (the binary, on a network of its own, say).
    fn spawn(command: &mut Command) -> Inbox {
        let dir = tempfile::tempdir().unwrap();
        let (child, line) = spawn_inbox(command, dir.path(), |_| ());
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL from the inbox: {line:?}"))
            .to_string();
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
        let (port, query) = rest.split_once('/').unwrap();
        Inbox {
            child,
            port: port.parse().unwrap(),
            token: query.strip_prefix("?token=").unwrap().to_string(),
            url,
            dir,
        }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn mcp_url(&self) -> String {
        format!("http://{}/mcp", self.host())
    }

    /// `ask_user inbox ARGS` as the person runs it: exit code and stdout.
    fn verb(&self, args: &[&str]) -> (i32, String) {
        self.verb_by(Command::new(bin()), args)
    }

    /// `ask_user inbox ARGS` run by `command` (the binary, on the inbox's network).
    fn verb_by(&self, mut command: Command, args: &[&str]) -> (i32, String) {
        let out = command
            .arg("inbox")
            .args(args)
            .env("ASK_USER_STATE_DIR", self.dir.path())
            .env_remove("ASK_USER_INBOX")
            .env_remove("ASK_USER_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    }

    /// The pending questions, as `inbox list` prints them.
    fn list(&self) -> Vec<Value> {
        let (code, out) = self.verb(&["list"]);
        assert_eq!(code, 0, "{out}");
        out.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn ids(&self) -> Vec<String> {
        self.list()
            .iter()
            .map(|item| item["inboxId"].as_str().unwrap().to_string())
            .collect()
    }

    /// Waits until `count` questions are pending; their ids, oldest first.
    fn wait_for(&self, count: usize) -> Vec<String> {
        until(
            Duration::from_secs(60),
            "the questions in the inbox",
            || self.list().len() == count,
        );
        self.ids()
    }

    /// A raw request to the inbox with these headers (Host included by the caller).
    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
        page::send(self.port, method, path, headers, body)
    }

    /// A POST to /mcp as an MCP client sends it: our Host, `extra` headers.
    fn post_mcp(&self, extra: &[(&str, &str)], body: &str) -> Response {
        let host = self.host();
        let mut headers = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        self.send("POST", "/mcp", &headers, body.as_bytes())
    }

    /// SIGTERM, then a clean exit.
    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = exit_within(
            &mut self.child,
            Duration::from_secs(20),
            Duration::from_millis(20),
        )
        .expect("the inbox did not stop");
        assert_eq!(status.code(), Some(0));
    }
}

/// Polls `condition` every 20 ms until it holds; panics after `limit`.
fn until(limit: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// tests/mcp/ts_http.mjs with `sdk` ("v1" or "v2") and `scenario` (url, token, calls…).
fn ts_http(dir: &Path, sdk: &str, mut scenario: Value) -> JsonClient {
    scenario["sdk"] = json!(sdk);
    json_client(
        Command::new("node").arg("ts_http.mjs").current_dir(dir),
        &scenario,
    )
}

/// tests/mcp/py_http.py in the SDK's `mode` with `scenario`.
fn py_http(python: &Path, mode: &str, mut scenario: Value) -> JsonClient {
    scenario["mode"] = json!(mode);
    json_client(
        Command::new(python).arg(tests_dir("mcp").join("py_http.py")),
        &scenario,
    )
}

fn calls(inbox: &Inbox, arguments: &[&str]) -> Value {
    let calls: Vec<Value> = arguments
        .iter()
        .map(|a| json!({"arguments": serde_json::from_str::<Value>(a).unwrap()}))
        .collect();
    json!({"url": inbox.mcp_url(), "token": inbox.token, "calls": calls})
}

/// Question `id` answered with `answers` in the inbox page (the inbox's own token).
fn answered(id: &str, answers: Value) -> Value {
    json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
           "timedOut":false,"inboxId":id,"answers":answers,
           "answeredBy":common::answered_by("page")})
}

/// Question `id` answered with option `option` in the inbox page.
fn database_answer(id: &str, option: usize) -> Value {
    let label = ["PostgreSQL", "SQLite"][option - 1];
    answered(
        id,
        json!([{"questionId":"q1","values":[label],"optionIds":[option.to_string()]}]),
    )
}

/// [`database_answer`], given with `inbox answer` on the command line.
fn database_answer_from_cli(id: &str, option: usize) -> Value {
    let mut document = database_answer(id, option);
    document["answeredBy"] = common::answered_by("cli");
    document
}

/// The structured result of the first call (Python and TypeScript spell it alike).
fn structured(out: &Value) -> &Value {
    &out["results"][0]["structured"]
}

// ---- The SDKs' clients, answered in the inbox ----

/// Three clients over HTTP at once, in both eras: the TypeScript SDK
/// (initialize era), the Python SDK (its own negotiation) and the
/// TypeScript v2 client (2026-07-28); the person answers the three cards in
/// the page, newest first, and each answer comes back in its tool result.
fn three_http_clients_in_both_eras_are_answered_in_the_inbox_page() {
    let chromium = chromium(&["playwright-core"]);
    let sdk = mcp_typescript_sdk();
    let python = mcp_python();
    let inbox = Inbox::start();
    let url_file = std::env::temp_dir().join(format!(
        "ask-user-mcp-http-{}-inbox-three.url",
        std::process::id()
    ));
    let browser = Browser::start(&chromium, "inbox-three", &url_file);
    std::fs::write(url_file.with_extension("part"), &inbox.url).unwrap();
    std::fs::rename(url_file.with_extension("part"), &url_file).unwrap();

    let v1 = ts_http(&sdk, "v1", calls(&inbox, &[DATABASE]));
    let first = inbox.wait_for(1);
    let py = py_http(&python, "auto", calls(&inbox, &[EXTRAS]));
    let second = inbox.wait_for(2);
    let v2 = ts_http(&sdk, "v2", calls(&inbox, &[NAME]));
    let ids = inbox.wait_for(3);
    assert_eq!(ids[..2], second[..]);
    assert_eq!(ids[..1], first[..]);
    // Ordinary inbox questions: listed with their client's source.
    let listed = inbox.list();
    assert_eq!(
        listed[2]["source"]["name"], "ask-user-http-test",
        "{listed:?}"
    );

    let said = browser.wait().assert_passed("inbox-three");
    eprint!("{said}");
    let _ = std::fs::remove_file(&url_file);

    let v1 = v1.join().unwrap();
    assert_eq!(v1["version"], "2025-11-25", "{v1}");
    assert_eq!(v1["tools"][0]["name"], "ask_user");
    assert_eq!(structured(&v1), &database_answer(&ids[0], 2), "{v1}");
    let py = py.join().unwrap();
    assert_eq!(py["tools"][0]["name"], "ask_user");
    assert_eq!(
        structured(&py),
        &answered(
            &ids[1],
            json!([{"questionId":"q1","values":["Redis","NATS"],"optionIds":["1","3"],
                    "note":"search can wait"}])
        ),
        "{py}"
    );
    let v2 = v2.join().unwrap();
    assert_eq!(v2["version"], "2026-07-28", "{v2}");
    assert_eq!(
        structured(&v2),
        &answered(&ids[2], json!([{"questionId":"q1","values":["billing"]}])),
        "{v2}"
    );
    assert!(inbox.list().is_empty());
    inbox.stop();
}

/// A call whose own timeout ends first leaves its question in the inbox;
/// `ask_user inbox answer` answers it, and `{"resume": ID}` over HTTP (the
/// other era, another client) collects the answer.
fn a_question_whose_call_ended_is_answered_from_the_cli_and_resumed_over_http() {
    let sdk = mcp_typescript_sdk();
    let python = mcp_python();
    let inbox = Inbox::start();
    let short =
        r#"{"question":"Which database?","options":["PostgreSQL","SQLite"],"timeout":10000}"#;
    let out = py_http(&python, "legacy", calls(&inbox, &[short]))
        .join()
        .unwrap();
    let result = structured(&out);
    assert_eq!(result["timedOut"], true, "{out}");
    let id = result["inboxId"].as_str().unwrap().to_string();
    assert_eq!(inbox.ids(), std::slice::from_ref(&id));
    let (code, answer) = inbox.verb(&["answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{answer}");
    let resume = json!({"resume": id}).to_string();
    let out = ts_http(&sdk, "v2", calls(&inbox, &[&resume]))
        .join()
        .unwrap();
    assert_eq!(structured(&out), &database_answer_from_cli(&id, 2), "{out}");
    let out = ts_http(&sdk, "v1", calls(&inbox, &[&resume]))
        .join()
        .unwrap();
    assert_eq!(structured(&out), &database_answer_from_cli(&id, 2), "{out}");
    inbox.stop();
}

/// A whole tool input (near the 256 KiB limit) fits a call on /mcp; a body
/// over /mcp's 512 KiB is refused from its head.
fn a_whole_tool_input_fits_and_a_larger_body_is_refused() {
    let sdk = mcp_typescript_sdk();
    let inbox = Inbox::start();
    let description = "x".repeat(500);
    let questions: Vec<Value> = (0..10)
        .map(|i| {
            let options: Vec<Value> = (0..20)
                .map(|o| json!({"label": format!("option {o}"), "description": description}))
                .collect();
            json!({"question": format!("Q{i}?"), "options": options})
        })
        .collect();
    let big = json!({"questions": questions}).to_string();
    assert!(big.len() > 100_000 && big.len() < 262_144, "{}", big.len());
    let call = ts_http(&sdk, "v1", calls(&inbox, &[&big]));
    let id = inbox.wait_for(1).remove(0);
    let prompts = &inbox.list()[0]["document"]["prompts"];
    assert_eq!(prompts.as_array().unwrap().len(), 10);
    assert_eq!(inbox.verb(&["cancel", &id]).0, 0);
    let out = call.join().unwrap();
    assert_eq!(structured(&out)["cancelled"], true, "{out}");

    let bearer = format!("Bearer {}", inbox.token);
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "y".repeat(600 * 1024)
    );
    let refused = inbox.post_mcp(&[("Authorization", &bearer)], &huge);
    assert_eq!(refused.status, 413, "{}", refused.body);
    inbox.stop();
}

// ---- Hostile clients (issue 11's scenarios on /mcp) ----

/// No token or a wrong one: 401, with no `WWW-Authenticate` (no OAuth
/// resource-metadata pointer); `/.well-known/…` is 404 for everyone; GET
/// and DELETE are 405 (stateless: no stream, no session).
fn no_token_is_401_and_there_is_no_oauth_anywhere() {
    let sdk = mcp_typescript_sdk();
    let inbox = Inbox::start();
    let wrong = format!("Bearer {}", "0".repeat(32));
    for auth in [None, Some(wrong.as_str()), Some("Basic YTpi")] {
        let extra: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        let refused = inbox.post_mcp(&extra, INITIALIZE);
        assert_eq!(refused.status, 401, "{auth:?}: {}", refused.body);
        assert!(
            !refused
                .head
                .to_ascii_lowercase()
                .contains("www-authenticate"),
            "{}",
            refused.head
        );
    }
    let out = ts_http(
        &sdk,
        "v1",
        json!({"url": inbox.mcp_url(), "token": null, "calls": []}),
    )
    .join()
    .unwrap();
    assert_eq!(out["status"], 401, "{out}");
    assert!(
        out["connectError"]
            .as_str()
            .is_some_and(|e| e.contains("Authorization: Bearer")),
        "{out}"
    );
    let host = inbox.host();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let got = inbox.send("GET", path, &[("Host", &host)], b"");
        assert_eq!(got.status, 404, "{path}: {}", got.body);
    }
    let bearer = format!("Bearer {}", inbox.token);
    for method in ["GET", "DELETE"] {
        let headers = [
            ("Host", host.as_str()),
            ("Authorization", bearer.as_str()),
            ("Accept", "text/event-stream"),
        ];
        let got = inbox.send(method, "/mcp", &headers, b"");
        assert_eq!(got.status, 405, "{method}: {}", got.body);
    }
    // With the token, no Origin (a client that is not a browser): served.
    let served = inbox.post_mcp(&[("Authorization", &bearer)], INITIALIZE);
    assert_eq!(served.status, 200, "{}", served.body);
    assert!(served.body.contains(r#""serverInfo":{"name":"ask_user""#));
    inbox.stop();
}

/// The MCP SDK's own responses on /mcp keep their kind of body: an event
/// stream for a request, JSON for its JSON error (a client's response that
/// no request of this stateless server awaits), plain text for its refusal
/// of an `Accept` it cannot serve. Anything else would be sent as text.
fn the_sdks_responses_keep_their_content_type() {
    let inbox = Inbox::start();
    let bearer = format!("Bearer {}", inbox.token);
    let content_type = |response: &Response| response.header("Content-Type").map(str::to_string);
    let stream = inbox.post_mcp(&[("Authorization", &bearer)], INITIALIZE);
    assert_eq!(stream.status, 200, "{}", stream.body);
    assert_eq!(content_type(&stream).as_deref(), Some("text/event-stream"));
    let json = inbox.post_mcp(
        &[("Authorization", &bearer)],
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    );
    assert_eq!(json.status, 400, "{}", json.body);
    assert_eq!(content_type(&json).as_deref(), Some("application/json"));
    let host = inbox.host();
    let text = inbox.send(
        "POST",
        "/mcp",
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
            ("Accept", "text/html"),
        ],
        INITIALIZE.as_bytes(),
    );
    assert_eq!(text.status, 406, "{}", text.body);
    assert_eq!(
        content_type(&text).as_deref(),
        Some("text/plain; charset=utf-8")
    );
    inbox.stop();
}

/// A foreign Origin is 403 even with the token; our own is served. A
/// rebinding Host (a name that resolves here, or our address on another
/// port) is refused before anything else.
fn a_foreign_origin_is_403_and_a_rebinding_host_is_refused() {
    let sdk = mcp_typescript_sdk();
    let inbox = Inbox::start();
    let bearer = format!("Bearer {}", inbox.token);
    let own = format!("http://{}", inbox.host());
    for origin in [
        "http://evil.example",
        "null",
        "https://127.0.0.1",
        &format!("http://localhost:{}", inbox.port),
        &format!("http://127.0.0.1:{}", inbox.port + 1),
    ] {
        let refused = inbox.post_mcp(
            &[("Authorization", &bearer), ("Origin", origin)],
            INITIALIZE,
        );
        assert_eq!(refused.status, 403, "{origin}: {}", refused.body);
    }
    let served = inbox.post_mcp(&[("Authorization", &bearer), ("Origin", &own)], INITIALIZE);
    assert_eq!(served.status, 200, "{}", served.body);
    let out = ts_http(
        &sdk,
        "v1",
        json!({"url": inbox.mcp_url(), "token": inbox.token,
               "headers": {"Origin": "http://evil.example"}, "calls": []}),
    )
    .join()
    .unwrap();
    assert_eq!(out["status"], 403, "{out}");
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{}", inbox.port),
        format!("127.0.0.1:{}", inbox.port + 1),
        format!("127.0.0.1.nip.io:{}", inbox.port),
    ] {
        let headers = [
            ("Host", host.as_str()),
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        let refused = inbox.send("POST", "/mcp", &headers, INITIALIZE.as_bytes());
        assert_eq!(refused.status, 403, "{host}: {}", refused.body);
    }
    // Only /mcp takes a POST without an Origin (MCP clients send none): the
    // inbox's own routes still need the page's, with MCP on.
    let host = inbox.host();
    let headers = [
        ("Host", host.as_str()),
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
    ];
    let ask = br#"{"key":"k","input":{"question":"Deploy?","options":["yes","no"]}}"#;
    let refused = inbox.send("POST", "/api/ask", &headers, ask);
    assert_eq!(refused.status, 403, "{}", refused.body);
    // Only a POST takes a whole tool input; other methods keep the 64 KiB
    // every request has, refused from the head.
    let body = vec![b'x'; 100 * 1024];
    let length = body.len().to_string();
    let mut sized = headers.to_vec();
    sized.push(("Content-Length", length.as_str()));
    for path in ["/api/ask", "/mcp"] {
        let refused = inbox.send("PUT", path, &sized, &body);
        assert_eq!(refused.status, 413, "PUT {path}: {}", refused.body);
    }
    inbox.stop();
}

/// While an MCP client waits for the person: stalled bodies on /mcp (with
/// and without the token, within and over the limit) hold their
/// connections, and 120 tokenless requests flood the inbox (the last 20 get
/// 429). Another MCP client with the token still gets through, and the
/// person's answers (the page's POST and `inbox answer`) reach both.
fn stalled_bodies_and_floods_on_mcp_do_not_block_the_persons_answer() {
    let sdk = mcp_typescript_sdk();
    let python = mcp_python();
    let inbox = Inbox::start();
    let waiting = py_http(&python, "legacy", calls(&inbox, &[DATABASE]));
    let id = inbox.wait_for(1).remove(0);

    let bearer = format!("Authorization: Bearer {}", inbox.token);
    let mut held = Vec::new();
    for (token, length, status) in [
        (true, 100_000, None),
        (true, 600_000, Some(413)),
        (false, 100_000, Some(401)),
        (false, 600_000, Some(413)),
    ] {
        let mut headers = vec![
            "Content-Type: application/json".to_string(),
            "Accept: application/json, text/event-stream".to_string(),
            format!("Content-Length: {length}"),
        ];
        headers.extend(token.then(|| bearer.clone()));
        let head = page::head(&inbox.host(), "POST /mcp HTTP/1.1", &headers);
        let mut stalled = page::hold(inbox.port, format!("{head}{{\"jsonrpc\":").as_bytes());
        if let Some(status) = status {
            assert_eq!(
                read_response(&mut stalled).status,
                status,
                "{token} {length}"
            );
        }
        held.push(stalled);
    }
    let host = inbox.host();
    let statuses: Vec<u16> = (0..120)
        .map(|_| inbox.post_mcp(&[], INITIALIZE).status)
        .collect();
    // 100 tokenless requests a minute: the two stalled ones above count.
    assert_eq!(statuses[..98], [401; 98]);
    assert_eq!(statuses[98..], [429; 22]);

    // A second client, with the token, is never limited.
    let second = ts_http(&sdk, "v2", calls(&inbox, &[DATABASE]));
    let ids = inbox.wait_for(2);
    assert_eq!(ids[0], id);
    let answer = inbox.send(
        "POST",
        &format!("/api/questions/{id}/answer"),
        &[
            ("Host", &host),
            ("Authorization", &format!("Bearer {}", inbox.token)),
            ("Origin", &format!("http://{host}")),
            ("Content-Type", "application/json"),
        ],
        br#"{"answers":[{"optionIds":["2"]}]}"#,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        structured(&waiting.join().unwrap()),
        &database_answer(&id, 2)
    );
    assert_eq!(inbox.verb(&["answer", &ids[1], "--reply", "1"]).0, 0);
    assert_eq!(
        structured(&second.join().unwrap()),
        &database_answer_from_cli(&ids[1], 1)
    );
    drop(held);
    inbox.stop();
}

// ---- Real hosts, on the model stand-in of tests/hosts.rs ----

/// How long one host turn (and each wait within it) may take, its start-up
/// on a loaded machine included; a turn takes a few seconds.
const HOST_TURN: Duration = Duration::from_secs(60);

/// A host's turn in which it had connected to /mcp twice, as `ask_user`
/// with the inbox token and as `no_token` without it, goes through the
/// inbox: the model sees `listed_as` (and nothing of `no_token`) among the
/// host's tools and calls it; the call reaches the inbox over HTTP as a
/// pending question (from a client named `source…`); `ask_user inbox answer`
/// answers it, and the model receives the answer document in the tool
/// result; the turn then ends cleanly and the inbox is empty.
fn turn_through_the_inbox(
    network: &Network,
    inbox: &Inbox,
    mut turn: HostTurn,
    listed_as: &str,
    source: &str,
) {
    let question: Value = serde_json::from_str(QUESTION).unwrap();
    let call = turn.next_event(network, "called ask_user");
    assert_eq!(call["event"], "call", "{call}");
    assert_eq!(call["input"], question, "{call}");
    let tools: Vec<&str> = call["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {call}"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(tools.contains(&listed_as), "{listed_as} not in {tools:?}");
    assert!(
        !tools.iter().any(|tool| tool.contains("no_token")),
        "the server without the token has tools: {tools:?}"
    );

    let verb = |args: &[&str]| inbox.verb_by(network.command(bin()), args);
    let deadline = Instant::now() + HOST_TURN;
    let pending = loop {
        let (code, out) = verb(&["list"]);
        assert_eq!(code, 0, "{out}");
        let pending: Vec<Value> = out
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        if !pending.is_empty() {
            break pending;
        }
        turn.assert_running("before its call reached the inbox");
        assert!(
            Instant::now() < deadline,
            "the call never reached the inbox"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(pending.len(), 1, "{pending:?}");
    let id = pending[0]["inboxId"].as_str().unwrap().to_string();
    assert_eq!(
        pending[0]["document"]["prompt"]["question"], question["question"],
        "{pending:?}"
    );
    // Named after the client (its clientInfo, else its User-Agent); the
    // inbox's own folder and pid would name nobody.
    let name = pending[0]["source"]["name"].as_str().unwrap_or_default();
    assert!(name.starts_with(source), "{source}: {pending:?}");
    assert!(pending[0]["source"].get("cwd").is_none(), "{pending:?}");
    assert!(pending[0]["source"].get("pid").is_none(), "{pending:?}");

    let answer = postgres_answer(&id);
    let (code, out) = verb(&["answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), answer);

    turn.ends_with_the_answer(network, "saw the call's result", &answer);
    assert_eq!(verb(&["list"]), (0, String::new()));
}

/// Claude Code 2.1.330: `claude mcp add --transport http ask_user …/mcp
/// --header "Authorization: Bearer TOKEN"` (and `no_token` without the
/// header). `claude mcp list` shows `ask_user` connected and `no_token`
/// failing to connect;
/// then one `claude -p` turn on the Anthropic stand-in: the model sees
/// `mcp__ask_user__ask_user` among the tools (no `no_token` tool), calls it,
/// the question is pending in the inbox from `claude-code`, `ask_user inbox
/// answer` answers it, and the model gets the answer document as the tool
/// result.
fn claude_code_calls_ask_user_over_http_and_gets_the_answer_from_the_inbox() {
    let claude = claude_code();
    let network = Network::start();
    let inbox = Inbox::spawn(&mut network.command(bin()));
    let scratch = Scratch::new();
    let claude_in = |args: &[&str]| {
        scratch.run(
            network
                .command(&claude)
                .args(args)
                .env_remove("CLAUDE_CONFIG_DIR"),
        )
    };
    let url = inbox.mcp_url();
    let header = format!("Authorization: Bearer {}", inbox.token);
    let with_token = ["mcp", "add", "--transport", "http", "ask_user", &url];
    let (code, text) = claude_in(&[&with_token[..], &["--header", &header]].concat());
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains(&inbox.token), "the token is shown: {text}");
    let (code, text) = claude_in(&["mcp", "add", "--transport", "http", "no_token", &url]);
    assert_eq!(code, 0, "{text}");

    let (code, text) = claude_in(&["mcp", "list"]);
    assert!(code == 0 || code == 1, "{code}: {text}");
    let line = |name: &str| {
        text.lines()
            .find(|line| line.starts_with(&format!("{name}: {url} (HTTP)")))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    assert!(line("ask_user").ends_with("✔ Connected"), "{text}");
    assert!(line("no_token").contains("✘ Failed to connect"), "{text}");

    let mut command = network.claude(&claude, &scratch);
    command
        .args(["-p", "Ask me which database to use."])
        .args(["--allowedTools", "mcp__ask_user__ask_user"])
        .args(["--output-format", "json"]);
    let turn = HostTurn::start(&mut command, &scratch.path("host.log"), HOST_TURN);
    turn_through_the_inbox(
        &network,
        &inbox,
        turn,
        "mcp__ask_user__ask_user",
        "claude-code",
    );
    inbox.stop();
}

/// Codex 0.169.0: `[mcp_servers.ask_user] url = "…/mcp"` with
/// `bearer_token_env_var = "ASK_USER_TOKEN"` (and `no_token` with the URL
/// alone). One `codex exec` turn on the OpenAI Responses stand-in: the
/// model sees `ask_user` in the `mcp__ask_user` namespace among the tools
/// (no `no_token` tool), calls it, the question is pending in the inbox,
/// `ask_user inbox answer` answers it, and the model gets the answer
/// document in the tool result. Nothing of the token is in Codex's config.
fn codex_calls_ask_user_over_http_and_gets_the_answer_from_the_inbox() {
    let codex = codex();
    let network = Network::start();
    let inbox = Inbox::spawn(&mut network.command(bin()));
    let scratch = Scratch::new();
    let mcp_servers = format!(
        r#"[mcp_servers.ask_user]
url = "{url}"
bearer_token_env_var = "ASK_USER_TOKEN"

[mcp_servers.no_token]
url = "{url}"
"#,
        url = inbox.mcp_url(),
    );
    let mut command = network.codex(&codex, &scratch, &mcp_servers);
    command
        .args([
            "exec",
            "--skip-git-repo-check",
            "Ask me which database to use.",
        ])
        .env("ASK_USER_TOKEN", &inbox.token);
    let turn = HostTurn::start(&mut command, &scratch.path("host.log"), HOST_TURN);
    // Codex speaks the initialize era, whose clientInfo a stateless server
    // does not see on the call: the inbox names it by its User-Agent.
    turn_through_the_inbox(&network, &inbox, turn, "mcp__ask_user/ask_user", "codex");
    let written = std::fs::read_to_string(scratch.home().join(".codex/config.toml")).unwrap();
    assert!(!written.contains(&inbox.token), "{written}");
    inbox.stop();
}

/// The token goes to /mcp as a bearer only: a `token` in the URL (the page's
/// own link style) is refused with 400 and a message that says where it
/// goes, right or wrong, alone or beside a good bearer, and nothing is
/// served. A wrong one without a bearer is still 401. The page keeps its
/// `/?token=` link.
fn a_token_in_the_url_on_mcp_is_refused() {
    let inbox = Inbox::start();
    let host = inbox.host();
    let bearer = format!("Bearer {}", inbox.token);
    let with_token = format!("/mcp?token={}", inbox.token);
    let post = |path: &str, extra: &[(&str, &str)]| {
        let mut headers = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
        inbox.send("POST", path, &headers, INITIALIZE.as_bytes())
    };
    for (path, extra) in [
        (with_token.as_str(), &[][..]),
        (
            with_token.as_str(),
            &[("Authorization", bearer.as_str())][..],
        ),
        ("/mcp?token=0000", &[("Authorization", bearer.as_str())][..]),
        ("/mcp?x=1&token=", &[("Authorization", bearer.as_str())][..]),
    ] {
        let refused = post(path, extra);
        assert_eq!(refused.status, 400, "{path}: {}", refused.body);
        assert_eq!(
            refused.body,
            "/mcp takes the token as Authorization: Bearer only, never in the URL (URLs end up in logs); drop ?token= from the URL\n",
            "{path}"
        );
        assert!(!refused.body.contains("serverInfo"));
    }
    let wrong = post("/mcp?token=0000", &[]);
    assert_eq!(wrong.status, 401, "{}", wrong.body);
    let served = post("/mcp", &[("Authorization", bearer.as_str())]);
    assert_eq!(served.status, 200, "{}", served.body);
    let page = inbox.send(
        "GET",
        &format!("/?token={}", inbox.token),
        &[("Host", &host)],
        b"",
    );
    assert_eq!(page.status, 200, "{}", page.body);
    inbox.stop();
}

/// The inbox's answer routes as docs/inbox-api.md's "The HTTP routes" lists
/// them: every POST needs the inbox's own Origin even with a bearer (403
/// without), JSON (415), a JSON object of the route's fields (400
/// INVALID_JSON); an unknown id is 404 UNKNOWN_QUESTION, a reply that does
/// not fit 422 INVALID_REPLY, a GET 405, no token 401; a good reply is 200
/// with the answer document, and a second outcome 409 ALREADY_ANSWERED.
fn the_answer_routes_need_the_inboxs_origin_even_with_a_bearer() {
    let inbox = Inbox::start();
    let host = inbox.host();
    let bearer = format!("Bearer {}", inbox.token);
    let own = format!("http://{host}");
    let json = "application/json";
    let post = |path: &str, headers: &[(&str, &str)], body: &str| {
        let mut all = vec![("Host", host.as_str())];
        all.extend_from_slice(headers);
        inbox.send("POST", path, &all, body.as_bytes())
    };
    let with_origin = [
        ("Authorization", bearer.as_str()),
        ("Origin", own.as_str()),
        ("Content-Type", json),
    ];
    let asked = post(
        "/api/ask",
        &with_origin,
        r#"{"key":"k1","input":{"question":"Which database?","options":["PostgreSQL","SQLite"]}}"#,
    );
    assert_eq!(asked.status, 201, "{}", asked.body);
    let id = serde_json::from_str::<Value>(&asked.body).unwrap()["inboxId"]
        .as_str()
        .unwrap()
        .to_string();
    let route = |verb: &str| format!("/api/questions/{id}/{verb}");
    for verb in ["answer", "reply", "decline", "dismiss", "cancel", "leave"] {
        let bare = post(
            &route(verb),
            &[("Authorization", &bearer), ("Content-Type", json)],
            "{}",
        );
        assert_eq!(bare.status, 403, "{verb}: {}", bare.body);
        assert_eq!(
            bare.body,
            "answers are accepted only from the page itself\n"
        );
        let text = post(
            &route(verb),
            &[
                ("Authorization", &bearer),
                ("Origin", &own),
                ("Content-Type", "text/plain"),
            ],
            "{}",
        );
        assert_eq!(text.status, 415, "{verb}: {}", text.body);
        let got = inbox.send(
            "GET",
            &route(verb),
            &[("Host", &host), ("Authorization", &bearer)],
            b"",
        );
        assert_eq!(got.status, 405, "{verb}: {}", got.body);
    }
    let no_token = post(
        &route("reply"),
        &[("Origin", &own), ("Content-Type", json)],
        "{}",
    );
    assert_eq!(no_token.status, 401, "{}", no_token.body);
    let code = |response: &Response| {
        serde_json::from_str::<Value>(&response.body).unwrap()["error"]["code"].clone()
    };
    let unknown = post(
        "/api/questions/nosuchid/reply",
        &with_origin,
        r#"{"replies":["1"]}"#,
    );
    assert_eq!(
        (unknown.status, code(&unknown)),
        (404, json!("UNKNOWN_QUESTION"))
    );
    let wrong_fields = post(&route("reply"), &with_origin, r#"{"reply":"1"}"#);
    assert_eq!(
        (wrong_fields.status, code(&wrong_fields)),
        (400, json!("INVALID_JSON"))
    );
    let misfit = post(&route("reply"), &with_origin, r#"{"replies":["9"]}"#);
    assert_eq!(
        (misfit.status, code(&misfit)),
        (422, json!("INVALID_REPLY"))
    );
    let answered = post(&route("reply"), &with_origin, r#"{"replies":["2"]}"#);
    assert_eq!(answered.status, 200, "{}", answered.body);
    let document: Value = serde_json::from_str(&answered.body).unwrap();
    assert_eq!(
        document["answers"][0]["values"],
        json!(["SQLite"]),
        "{document}"
    );
    let again = post(&route("cancel"), &with_origin, "{}");
    assert_eq!(
        (again.status, code(&again)),
        (409, json!("ALREADY_ANSWERED"))
    );
    inbox.stop();
}

common::harness::main!(
    three_http_clients_in_both_eras_are_answered_in_the_inbox_page,
    a_question_whose_call_ended_is_answered_from_the_cli_and_resumed_over_http,
    a_whole_tool_input_fits_and_a_larger_body_is_refused,
    no_token_is_401_and_there_is_no_oauth_anywhere,
    the_sdks_responses_keep_their_content_type,
    a_foreign_origin_is_403_and_a_rebinding_host_is_refused,
    a_token_in_the_url_on_mcp_is_refused,
    the_answer_routes_need_the_inboxs_origin_even_with_a_bearer,
    stalled_bodies_and_floods_on_mcp_do_not_block_the_persons_answer,
    claude_code_calls_ask_user_over_http_and_gets_the_answer_from_the_inbox,
    codex_calls_ask_user_over_http_and_gets_the_answer_from_the_inbox,
);
