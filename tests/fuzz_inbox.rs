//! Property tests of the inbox's HTTP API bodies (issue 26): any body
//! POSTed to ask, answer, reply, decline, dismiss, cancel or leave gets a
//! documented status (never a 5xx), an error document with the code that
//! fits its status when it is refused, and leaves the inbox whole: a
//! pending question stays pending through every refused request, and stays
//! answerable.
//!
//! Two targets take the same requests: the routes in process
//! (`routes::Inbox::post`, what the server calls once a body is read), and
//! a real `ask_user inbox` over loopback (127.0.0.1, one kept-alive
//! connection, a time limit on every response). Inputs: arbitrary bytes,
//! random JSON with the API's keys, each route's own body shapes, and those
//! bodies with a few bytes changed. `cargo test` runs a few thousand in
//! process and a few hundred over loopback; `bench/fuzz.sh` runs 100,000
//! (`PROPTEST_CASES`, `FUZZ_INBOX_LOOPBACK_CASES`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ask_user::error::{AskError, ErrorDocument};
use ask_user::inbox::hub::Hub;
use ask_user::inbox::routes::Inbox;
use ask_user::inbox::store::SqliteStore;
use ask_user_server::Body;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

fn cases(variable: &str, default: u32) -> u32 {
    std::env::var(variable)
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}

/// A hang guard, not a speed target: one request and its response.
const HANG: Duration = Duration::from_secs(10);

/// The question every case can aim at: a single select whose second
/// option the final answer picks.
const CANARY: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;

/// The verbs a question takes by POST, and some it does not.
const VERBS: [&str; 9] = [
    "answer", "reply", "decline", "dismiss", "cancel", "leave", "wait", "nope", "ANSWER",
];
const POSTED: [&str; 6] = ["answer", "reply", "decline", "dismiss", "cancel", "leave"];
const DECIDING: [&str; 5] = ["answer", "reply", "decline", "dismiss", "cancel"];

/// What a request aims at.
#[derive(Debug, Clone)]
enum Route {
    Ask,
    /// `/api/questions/ID/VERB`.
    Question(Id, &'static str),
}

#[derive(Debug, Clone, Copy)]
enum Id {
    /// The pending question.
    Canary,
    /// A question answered earlier.
    Decided,
    /// Ids the inbox never gave, and ones that cannot be ids.
    Other(&'static str),
}

/// One end of the API: the routes in process, or a real inbox.
trait Target {
    /// The status, whether the body is JSON, and the body.
    fn post(&mut self, path: &str, body: &[u8]) -> Result<(u16, bool, Vec<u8>), TestCaseError>;
}

/// The routes in process, on a store of their own.
struct InProcess {
    _dir: tempfile::TempDir,
    inbox: Inbox,
}

impl InProcess {
    fn new() -> InProcess {
        let dir = scratch();
        let store = Box::new(SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap());
        let day = Duration::from_secs(86_400);
        let hub = Hub::new(store, day, day).unwrap();
        InProcess {
            inbox: Inbox::new(Arc::new(hub)),
            _dir: dir,
        }
    }
}

impl Target for InProcess {
    fn post(&mut self, path: &str, body: &[u8]) -> Result<(u16, bool, Vec<u8>), TestCaseError> {
        let response = self.inbox.post(path, body).into_response();
        let json = response
            .headers()
            .get("content-type")
            .is_some_and(|value| value == "application/json");
        let status = response.status().as_u16();
        let body = match response.into_body() {
            Body::Whole(bytes) => bytes.map(|b| b.to_vec()).unwrap_or_default(),
            Body::Stream(_) => return Err(TestCaseError::fail("a POST answered with a stream")),
            // Only POST /mcp is answered by the MCP service, and this
            // fixture fuzzes the inbox's own routes.
            Body::Service(_) => {
                return Err(TestCaseError::fail("an inbox route answered as a service"));
            }
        };
        Ok((status, json, body))
    }
}

/// A real `ask_user inbox --port 0`, spoken to over one kept-alive
/// connection (a new one after the inbox closes it).
struct Loopback {
    child: common::process::ChildGuard,
    _dir: tempfile::TempDir,
    port: u16,
    token: String,
    stream: Option<BufReader<TcpStream>>,
}

impl Loopback {
    fn start() -> Loopback {
        let dir = scratch();
        let (child, line) =
            common::process::spawn_inbox(&mut Command::new(common::bin()), dir.path(), |rest| {
                assert!(!rest.contains("panicked"), "the inbox panicked: {rest}")
            });
        let url = line
            .split_whitespace()
            .find(|word| word.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL from the inbox: {line:?}"));
        let (port, query) = url["http://127.0.0.1:".len()..].split_once('/').unwrap();
        Loopback {
            child,
            _dir: dir,
            port: port.parse().unwrap(),
            token: query.strip_prefix("?token=").unwrap().to_string(),
            stream: None,
        }
    }

    /// SIGTERM: the inbox stops cleanly (exit 0) after every input.
    fn stop(mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert_eq!(status.code(), Some(0), "the inbox did not stop cleanly");
                return;
            }
            assert!(started.elapsed() < HANG, "the inbox did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn exchange(&mut self, request: &[u8]) -> std::io::Result<(u16, bool, bool, Vec<u8>)> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(("127.0.0.1", self.port))?;
            stream.set_read_timeout(Some(HANG))?;
            stream.set_nodelay(true)?;
            self.stream = Some(BufReader::new(stream));
        }
        let reader = self.stream.as_mut().unwrap();
        reader.get_mut().write_all(request)?;
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|status| status.parse().ok())
            .unwrap_or(0);
        let header = |name: &str| {
            head.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_string())
            })
        };
        let length: usize = header("content-length")
            .and_then(|length| length.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let json = header("content-type").as_deref() == Some("application/json");
        let close = header("connection").is_some_and(|value| value.eq_ignore_ascii_case("close"));
        Ok((status, json, close, body))
    }
}

impl Target for Loopback {
    fn post(&mut self, path: &str, body: &[u8]) -> Result<(u16, bool, Vec<u8>), TestCaseError> {
        let host = format!("127.0.0.1:{}", self.port);
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {}\r\nOrigin: http://{host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.token,
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        // A connection the inbox closed between requests (idle time) is
        // reopened once; a second failure is the inbox's.
        let mut outcome = self.exchange(&request);
        if outcome.is_err() {
            self.stream = None;
            outcome = self.exchange(&request);
        }
        let (status, json, close, body) = outcome
            .map_err(|e| TestCaseError::fail(format!("no response to POST {path} ({e})")))?;
        if close {
            self.stream = None;
        }
        Ok((status, json, body))
    }
}

/// A state folder in memory when there is one: every answer is synced.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

/// The pending question and the ids the cases aim at.
struct Fixture<T> {
    target: T,
    canary: String,
    decided: String,
    asked: u64,
    /// How many responses had each status.
    statuses: std::collections::BTreeMap<u16, u64>,
}

impl<T: Target> Fixture<T> {
    fn new(mut target: T) -> Fixture<T> {
        let decided = ask(&mut target, "first").unwrap();
        answer(&mut target, &decided).unwrap();
        let canary = ask(&mut target, "canary-0").unwrap();
        Fixture {
            target,
            canary,
            decided,
            asked: 0,
            statuses: Default::default(),
        }
    }

    /// A new pending question, once the last one was closed.
    fn renew(&mut self) -> Result<(), TestCaseError> {
        self.asked += 1;
        self.decided = std::mem::take(&mut self.canary);
        self.canary = ask(&mut self.target, &format!("canary-{}", self.asked))?;
        Ok(())
    }

    fn path(&self, route: &Route) -> String {
        match route {
            Route::Ask => "/api/ask".to_string(),
            Route::Question(id, verb) => {
                let id = match id {
                    Id::Canary => self.canary.as_str(),
                    Id::Decided => self.decided.as_str(),
                    Id::Other(id) => id,
                };
                format!("/api/questions/{id}/{verb}")
            }
        }
    }

    /// One request and every property of its response.
    fn check(&mut self, route: &Route, body: &[u8]) -> Result<(), TestCaseError> {
        let path = self.path(route);
        let started = Instant::now();
        let (status, json, response) = self.target.post(&path, body)?;
        prop_assert!(
            started.elapsed() < HANG,
            "POST {} took {:?}",
            path,
            started.elapsed()
        );
        let text = String::from_utf8_lossy(&response).into_owned();
        prop_assert!(status < 500, "POST {} got {}: {}", path, status, text);
        let verb = match route {
            Route::Ask => "ask",
            Route::Question(_, verb) => verb,
        };
        *self.statuses.entry(status).or_default() += 1;
        if !json {
            // Only a verb that does not exist answers in plain text.
            prop_assert!(
                status == 404 && text == "not found\n" && verb != "ask" && !POSTED.contains(&verb),
                "POST {} got {} {:?}",
                path,
                status,
                text
            );
            return self.still_pending(&path, status);
        }
        // A body that is not JSON at all is refused as such, whatever the
        // route and question; decline, dismiss and cancel take `{}` only.
        if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() {
            prop_assert!(
                status == 400 && text.contains("\"INVALID_JSON\""),
                "POST {} of no JSON got {}: {}",
                path,
                status,
                text
            );
        }
        if status == 200 && ["decline", "dismiss", "cancel"].contains(&verb) {
            let parsed = serde_json::from_slice::<Value>(body).ok();
            prop_assert_eq!(parsed, Some(json!({})), "POST {} took a body", path);
        }
        let document: Value = serde_json::from_slice(&response)
            .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {text}")))?;
        prop_assert!(
            !text.trim_end().contains('\n'),
            "a response spans lines: {text}"
        );
        if status >= 400 {
            check_error(status, &text)?;
            return self.still_pending(&path, status);
        }
        match route {
            Route::Ask => {
                prop_assert_eq!(status, 201);
                let id = document["inboxId"].as_str().unwrap_or_default();
                prop_assert!(ask_user::inbox::store::is_id(id), "not an id: {}", text);
                prop_assert_eq!(document.as_object().map(Map::len), Some(1), "{}", text);
                self.still_pending(&path, status)
            }
            Route::Question(id, verb) => {
                prop_assert_eq!(status, 200);
                prop_assert_eq!(&document["tool"], "ask_user", "{}", text);
                prop_assert_eq!(&document["status"], "ok", "{}", text);
                let answered = document["answered"].as_bool();
                prop_assert!(answered.is_some(), "no answer document: {}", text);
                let decides = DECIDING.contains(verb)
                    || (*verb == "leave"
                        && document["cancelled"] == true
                        && document["hint"].is_null());
                match id {
                    Id::Canary if decides => {
                        prop_assert_eq!(&document["inboxId"], self.canary.as_str());
                        // Closed once: a second decision is refused as such.
                        let path = format!("/api/questions/{}/answer", self.canary);
                        let (again, _, body) = self.target.post(&path, br#"{"answers":[]}"#)?;
                        let text = String::from_utf8_lossy(&body);
                        prop_assert_eq!(again, 409, "{}", text);
                        prop_assert!(text.contains("ALREADY_ANSWERED"), "{}", text);
                        self.renew()
                    }
                    _ => self.still_pending(&path, status),
                }
            }
        }
    }

    /// The pending question is still pending: the page's answer with the
    /// wrong number of answers is refused as such (not as unknown or
    /// already answered), and changes nothing.
    fn still_pending(&mut self, after: &str, status: u16) -> Result<(), TestCaseError> {
        let path = format!("/api/questions/{}/answer", self.canary);
        let (probe, _, body) = self.target.post(&path, br#"{"answers":[]}"#)?;
        let text = String::from_utf8_lossy(&body);
        prop_assert_eq!(
            probe,
            422,
            "after POST {} ({}), the pending question: {}",
            after,
            status,
            text
        );
        prop_assert!(
            text.contains("INVALID_REPLY") && text.contains("0 answers for 1"),
            "{}",
            text
        );
        Ok(())
    }

    /// The pending question is answered as a person would, and a new one asked.
    fn answer_canary(&mut self) -> Result<(), TestCaseError> {
        answer(&mut self.target, &self.canary)?;
        self.renew()
    }
}

/// Asks the canary question under `key`; its id.
fn ask(target: &mut impl Target, key: &str) -> Result<String, TestCaseError> {
    let body = json!({"key": key, "input": serde_json::from_str::<Value>(CANARY).unwrap()});
    let (status, _, response) = target.post("/api/ask", body.to_string().as_bytes())?;
    let document: Value = serde_json::from_slice(&response).unwrap_or_default();
    prop_assert_eq!(status, 201, "{}", document);
    Ok(document["inboxId"].as_str().unwrap_or_default().to_string())
}

/// `inbox answer ID --reply 2`: SQLite, as the answer document says.
fn answer(target: &mut impl Target, id: &str) -> Result<(), TestCaseError> {
    let path = format!("/api/questions/{id}/reply");
    let (status, _, response) = target.post(&path, br#"{"replies":["2"]}"#)?;
    let document: Value = serde_json::from_slice(&response).unwrap_or_default();
    prop_assert_eq!(status, 200, "{}", document);
    prop_assert_eq!(
        document,
        json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
               "timedOut":false,"inboxId":id,
               "answers":[{"questionId":"q1","values":["SQLite"],"optionIds":["2"]}],
               "answeredBy":common::answered_by("cli")})
    );
    Ok(())
}

/// A refusal: the error document, its code one the status stands for.
fn check_error(status: u16, text: &str) -> Result<(), TestCaseError> {
    let document: ErrorDocument<'_> = serde_json::from_str(text)
        .map_err(|e| TestCaseError::fail(format!("not an error document ({e}): {text}")))?;
    prop_assert_eq!(document.tool.as_ref(), "ask_user");
    prop_assert_eq!(document.status.as_ref(), "error");
    let code = document.error.code.as_ref();
    prop_assert!(AskError::CODES.contains(&code), "unknown code {}", code);
    let expected = match code {
        "INVALID_JSON" => 400,
        "UNKNOWN_QUESTION" => 404,
        "ALREADY_ANSWERED" => 409,
        "INTERNAL_ERROR" => 500,
        _ => 422,
    };
    prop_assert_eq!(status, expected, "{}", text);
    prop_assert!(
        !document.error.message.trim().is_empty(),
        "no message: {}",
        text
    );
    Ok(())
}

fn route() -> impl Strategy<Value = Route> {
    let id = prop_oneof![
        6 => Just(Id::Canary),
        2 => Just(Id::Decided),
        1 => prop::sample::select(vec![
            "7hq2k9mc", "7HQ2K9MC", "0000000000", "x", "ask_user", "%2e%2e", "a%20b", "%00", "-",
        ])
        .prop_map(Id::Other),
    ];
    prop_oneof![
        2 => Just(Route::Ask),
        5 => (id, prop::sample::select(VERBS.to_vec())).prop_map(|(id, verb)| Route::Question(id, verb)),
    ]
}

const KEYS: [&str; 26] = [
    "key",
    "input",
    "source",
    "expiresAt",
    "face",
    "name",
    "cwd",
    "pid",
    "answers",
    "optionIds",
    "other",
    "text",
    "confirm",
    "note",
    "replies",
    "notes",
    "reason",
    "questions",
    "question",
    "options",
    "type",
    "multi_select",
    "id",
    "label",
    "inboxId",
    "",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec![
            json!(0),
            json!(1),
            json!(2),
            json!(-1),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(u64::MAX),
            json!(4_294_967_296u64),
            json!(1.5),
            json!(-1e308),
        ]),
        prop::sample::select(vec![
            "",
            "1",
            "2",
            "SQLite",
            "PostgreSQL",
            "timeout",
            "cancelled",
            "away",
            "ask",
            "mcp",
            "execute",
            "k",
            "q1",
            "7hq2k9mc",
            "Which database?",
            "é",
            "\u{0}",
            "\u{1b}[2J",
            "a b",
            "\u{7f}",
        ])
        .prop_map(|text| Value::String(text.to_string())),
        "(?s).{0,12}".prop_map(Value::String),
    ]
}

/// Random JSON whose keys are the API's.
fn api_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..6).prop_map(
                |pairs| Value::Object(
                    pairs
                        .into_iter()
                        .map(|(key, value)| (key.to_string(), value))
                        .collect::<Map<_, _>>()
                )
            ),
        ]
    })
}

fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        scalar(),
        Just(json!("1")),
        Just(json!("2")),
        Just(json!("SQLite"))
    ]
}

fn texts() -> impl Strategy<Value = Value> {
    prop::collection::vec(text(), 0..3).prop_map(Value::Array)
}

/// An asker's ask, right or nearly.
fn ask_body() -> impl Strategy<Value = Value> {
    let input = prop_oneof![
        3 => Just(serde_json::from_str::<Value>(CANARY).unwrap()),
        1 => Just(json!({"questions":[{"question":"Name?"}]})),
        1 => Just(json!({"question":"OK?","type":"confirm"})),
        1 => Just(json!("{\"question\":\"Twice encoded?\"}")),
        2 => api_json(),
    ];
    let source = prop_oneof![
        3 => ("\\PC{0,8}", "\\PC{0,8}", any::<u32>())
            .prop_map(|(name, cwd, pid)| json!({"name": name, "cwd": cwd, "pid": pid})),
        1 => Just(json!({"name": "x".repeat(201)})),
        1 => api_json(),
    ];
    let expires = prop_oneof![
        3 => any::<i64>().prop_map(Value::from),
        1 => scalar(),
    ];
    let face = prop_oneof![
        3 => prop::sample::select(vec!["ask", "mcp", "execute"]).prop_map(Value::from),
        1 => scalar(),
    ];
    (
        prop_oneof![
            4 => "[!-~]{1,12}".prop_map(Value::String),
            1 => scalar(),
            1 => Just(json!("x".repeat(65))),
        ],
        input,
        prop::option::of(source),
        prop::option::of(expires),
        prop::option::of(face),
    )
        .prop_map(|(key, input, source, expires, face)| {
            let mut body = json!({"key": key, "input": input});
            for (name, value) in [("source", source), ("expiresAt", expires), ("face", face)] {
                if let Some(value) = value {
                    body[name] = value;
                }
            }
            body
        })
}

/// The page's answer, right or nearly.
fn answer_body() -> impl Strategy<Value = Value> {
    let posted = (
        prop::option::of(texts()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(prop_oneof![any::<bool>().prop_map(Value::Bool), scalar()]),
        prop::option::of(text()),
    )
        .prop_map(|(option_ids, other, text, confirm, note)| {
            let mut answer = Map::new();
            for (name, value) in [
                ("optionIds", option_ids),
                ("other", other),
                ("text", text),
                ("confirm", confirm),
                ("note", note),
            ] {
                if let Some(value) = value {
                    answer.insert(name.to_string(), value);
                }
            }
            Value::Object(answer)
        });
    prop::collection::vec(posted, 0..3).prop_map(|answers| json!({"answers": answers}))
}

/// `inbox answer`'s replies and notes, right or nearly.
fn reply_body() -> impl Strategy<Value = Value> {
    (texts(), prop::option::of(texts())).prop_map(|(replies, notes)| match notes {
        Some(notes) => json!({"replies": replies, "notes": notes}),
        None => json!({"replies": replies}),
    })
}

fn leave_body() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => prop::sample::select(vec!["timeout", "cancelled", "away"]).prop_map(|r| json!({"reason": r})),
        1 => scalar().prop_map(|reason| json!({"reason": reason})),
    ]
}

/// The body a route takes (an empty object for decline, dismiss and
/// cancel), right or nearly, or another route's.
fn shaped(route: &Route) -> BoxedStrategy<Value> {
    let own = match route {
        Route::Ask => ask_body().boxed(),
        Route::Question(_, "answer") => answer_body().boxed(),
        Route::Question(_, "reply") => reply_body().boxed(),
        Route::Question(_, "leave") => leave_body().boxed(),
        Route::Question(..) => prop_oneof![
            3 => Just(json!({})),
            1 => Just(json!({"x": 1})),
            1 => Just(json!([])),
            1 => Just(json!(null)),
        ]
        .boxed(),
    };
    let any_route = prop_oneof![ask_body(), answer_body(), reply_body(), leave_body()];
    prop_oneof![4 => own, 1 => any_route].boxed()
}

#[derive(Debug, Clone)]
enum Edit {
    Put(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Repeat(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let token = prop::sample::select(vec![
        &b"\""[..],
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"null",
        b"0",
        b"-1e999",
        b"\\u0000",
        b"\\ud800",
        b"\xff",
        b"\xef\xbb\xbf",
        b" ",
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Edit::Put(at, byte)),
        (any::<usize>(), token.prop_map(<[u8]>::to_vec)).prop_map(|(at, t)| Edit::Insert(at, t)),
        (any::<usize>(), 1usize..12).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<usize>(), 1usize..24).prop_map(|(at, n)| Edit::Repeat(at, n)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Edit::Put(at, byte) if !bytes.is_empty() => bytes[at % len] = *byte,
            Edit::Insert(at, token) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, token.iter().copied());
            }
            Edit::Delete(at, n) if !bytes.is_empty() => {
                let at = at % len;
                bytes.drain(at..(at + n).min(bytes.len()));
            }
            Edit::Repeat(at, n) if !bytes.is_empty() => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(end..end, copy);
            }
            _ => {}
        }
    }
    bytes
}

/// A request body, shown as text when a case fails.
#[derive(Clone)]
struct Bytes(Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

/// A request: its route, and a body for it.
fn request() -> impl Strategy<Value = (Route, Bytes)> {
    route().prop_flat_map(|route| {
        let body = prop_oneof![
            2 => prop::collection::vec(any::<u8>(), 0..256),
            2 => api_json().prop_map(|value| value.to_string().into_bytes()),
            6 => shaped(&route).prop_map(|value| value.to_string().into_bytes()),
            3 => (shaped(&route), prop::collection::vec(edit(), 1..4))
                .prop_map(|(value, edits)| apply(value.to_string().into_bytes(), &edits)),
        ];
        (Just(route), body.prop_map(Bytes))
    })
}

/// Runs `cases` requests against `target`, answering the pending question
/// every 64 of them; then says how the statuses fell (`--nocapture`), and
/// gives the target back.
fn run<T: Target>(name: &str, target: T, cases: u32) -> T {
    let fixture = std::cell::RefCell::new(Fixture::new(target));
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        // A failing case is reported as found: shrinking would replay
        // requests against an inbox whose state has moved on.
        max_shrink_iters: 0,
        ..ProptestConfig::default()
    };
    let started = Instant::now();
    let outcome = TestRunner::new(config).run(&request(), |(route, body)| {
        let mut fixture = fixture.borrow_mut();
        fixture.check(&route, &body.0)?;
        if fixture.statuses.values().sum::<u64>() % 64 == 0 {
            fixture.answer_canary()?;
        }
        Ok(())
    });
    let mut fixture = fixture.into_inner();
    if let Err(failure) = outcome {
        panic!("{name}: {failure}");
    }
    fixture.answer_canary().unwrap();
    eprintln!(
        "fuzz {name}: {cases} inputs, statuses {:?}, {} questions closed, {:.1} s",
        fixture.statuses,
        fixture.asked,
        started.elapsed().as_secs_f64()
    );
    fixture.target
}

#[test]
fn bodies_in_process() {
    run(
        "inbox_in_process",
        InProcess::new(),
        cases("PROPTEST_CASES", 1_000),
    );
}

#[test]
fn bodies_over_loopback() {
    let cases = cases("FUZZ_INBOX_LOOPBACK_CASES", 200);
    run("inbox_over_loopback", Loopback::start(), cases).stop();
}

/// serde takes a struct from an array of its fields too; the routes take
/// objects only (found by this file over loopback: `[]` cancelled a question).
#[test]
fn a_body_that_is_not_an_object_is_refused_and_changes_nothing() {
    let mut fixture = Fixture::new(InProcess::new());
    let canary = fixture.canary.clone();
    for (verb, body) in [
        ("cancel", "[]"),
        ("decline", " []"),
        ("dismiss", "\n[]"),
        ("leave", "[\"cancelled\"]"),
        ("reply", "[[\"2\"]]"),
        ("answer", "[[{\"optionIds\":[\"2\"]}]]"),
    ] {
        let path = format!("/api/questions/{canary}/{verb}");
        let (status, json, response) = fixture.target.post(&path, body.as_bytes()).unwrap();
        let text = String::from_utf8_lossy(&response);
        assert!(json && status == 400, "{verb} {body}: {status} {text}");
        let document: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(document["error"]["code"], "INVALID_JSON", "{text}");
        assert_eq!(
            document["error"]["parseError"], "the body must be a JSON object ({…})",
            "{text}"
        );
        fixture.still_pending(&path, status).unwrap();
    }
    let ask = json!({"key": "k", "input": serde_json::from_str::<Value>(CANARY).unwrap()});
    let (status, _, _) = fixture
        .target
        .post(
            "/api/ask",
            format!("[{}, {}]", ask["key"], ask["input"]).as_bytes(),
        )
        .unwrap();
    assert_eq!(status, 400);
    // An object still goes through.
    let (status, _, _) = fixture
        .target
        .post(&format!("/api/questions/{canary}/cancel"), b" {} ")
        .unwrap();
    assert_eq!(status, 200);
}

/// An asker of another version sends what this inbox does not take (here a
/// field it does not know): INVALID_JSON from the inbox, whose message names
/// its own version (the asker's side turns it into VERSION_MISMATCH, naming
/// its version too: crates/inbox/src/client.rs).
#[test]
fn a_request_from_another_version_is_refused_naming_the_inbox_version() {
    let mut fixture = Fixture::new(InProcess::new());
    let input = serde_json::from_str::<Value>(CANARY).unwrap();
    let ask = json!({"key": "newer", "input": input, "shape": "of a later version"});
    let (status, json, response) = fixture
        .target
        .post("/api/ask", ask.to_string().as_bytes())
        .unwrap();
    let text = String::from_utf8_lossy(&response);
    assert!(json && status == 400, "{status} {text}");
    let document: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(document["error"]["code"], "INVALID_JSON", "{text}");
    assert_eq!(
        document["error"]["message"],
        format!(
            "this inbox, ask_user {}, does not take that request",
            env!("CARGO_PKG_VERSION")
        ),
        "{text}"
    );
    assert!(
        document["error"]["parseError"]
            .as_str()
            .unwrap()
            .contains("unknown field `shape`"),
        "{text}"
    );
}
