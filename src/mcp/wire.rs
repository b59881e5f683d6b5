//! stdio framing between the client and rmcp.
//!
//! rmcp silently drops lines that are not JSON and answers misshapen messages
//! with an id-less error, so a client waiting on that id would hang. This
//! layer reads stdin one line at a time and hands rmcp only the lines it can
//! parse; every other line gets its JSON-RPC error here, with the request's id
//! whenever it has one. rmcp's output and these errors share one writer, so
//! each message stays one whole line on stdout.
//!
//! Two errors are this layer's own, where rmcp's would confuse the client: a
//! request before `initialize` that does not carry 2026-07-28's per-request
//! `_meta` (rmcp only says the `_meta` is missing), and a line over 4 MiB,
//! whose id is found by one bounded pass over its bytes ([`IdScan`]) so the
//! request gets its own reply.

use rmcp::ServiceExt;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, JsonRpcRequest, ProtocolVersion,
};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::log;
use super::server::AskUserServer;

/// Longest accepted message. A tool input is at most 256 KiB; this leaves
/// room for escaping and double encoding while bounding memory.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// The pipes between this layer and rmcp.
const PIPE_BYTES: usize = 64 * 1024;

const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const INVALID_PARAMS: i32 = -32602;

#[derive(Serialize)]
struct ErrorResponse {
    jsonrpc: &'static str,
    id: Value,
    error: ErrorObject,
}

#[derive(Serialize)]
struct ErrorObject {
    code: i32,
    message: String,
}

fn error_line(id: Value, code: i32, message: String) -> Vec<u8> {
    let response = ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: ErrorObject { code, message },
    };
    let mut line = serde_json::to_vec(&response).unwrap_or_default();
    line.push(b'\n');
    line
}

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// A message rmcp can parse.
    Forward,
    /// Answer with this error line instead.
    Reply(Vec<u8>),
    /// A notification rmcp cannot parse: JSON-RPC never answers those.
    Drop,
}

/// Methods rmcp knows. A request for one of them that rmcp still reads as a
/// custom request had params of the wrong shape.
const STANDARD_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

fn invalid_params(id: Value, method: &str) -> Verdict {
    Verdict::Reply(error_line(
        id,
        INVALID_PARAMS,
        format!(
            "Invalid params: the params of {method} do not have the shape the MCP schema gives"
        ),
    ))
}

/// The `_meta` key that marks a 2026-07-28 request (stateless: no `initialize`).
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Whether rmcp has chosen how this client talks: by `initialize` (legacy),
/// or by a first request carrying 2026-07-28's `_meta` (stateless). Before
/// that, rmcp answers every request but `ping` with "request _meta is missing
/// or has malformed required fields", which tells a client that simply
/// skipped `initialize` nothing it can act on.
#[derive(Debug, Default)]
struct Session {
    opened: bool,
}

impl Session {
    /// What to do with a request rmcp can read.
    fn admit(&mut self, id: Value, request: &ClientRequest) -> Verdict {
        if let ClientRequest::CustomRequest(custom) = request
            && STANDARD_METHODS.contains(&custom.method.as_str())
        {
            return invalid_params(id, &custom.method);
        }
        if self.opened {
            return Verdict::Forward;
        }
        match request {
            ClientRequest::InitializeRequest(_) => self.opened = true,
            ClientRequest::PingRequest(_) => {}
            request => {
                let meta = request.get_meta();
                if meta
                    .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
                {
                    self.opened = true;
                } else if !meta.contains_key(PROTOCOL_VERSION_KEY) {
                    // No sign of 2026-07-28: a client that skipped initialize.
                    // (One that names a version but lacks a key gets rmcp's
                    // own message, which names the keys.)
                    return Verdict::Reply(not_initialized(id, request.method()));
                }
            }
        }
        Verdict::Forward
    }
}

/// The error for a request before `initialize`: -32602 (invalid params), as
/// rmcp answers the same request and as the Python SDK answers a request
/// before initialization; the -32000 of the TypeScript SDK's HTTP transport
/// is in the range MCP 2026-07-28 tells new implementations not to use.
fn not_initialized(id: Value, method: &str) -> Vec<u8> {
    error_line(
        id,
        INVALID_PARAMS,
        format!(
            "Invalid params: the server is not initialized: send initialize (then notifications/initialized) before {method}; \
             a 2026-07-28 client instead gives each request {PROTOCOL_VERSION_KEY} and \
             io.modelcontextprotocol/clientCapabilities in its _meta"
        ),
    )
}

fn classify(line: &[u8], session: &mut Session) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(JsonRpcMessage::Request(JsonRpcRequest { id, request, .. })) => {
            return session.admit(serde_json::to_value(id).unwrap_or_default(), &request);
        }
        Ok(_) => return Verdict::Forward,
        Err(_) => {}
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Verdict::Reply(error_line(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: the message is not JSON ({e})"),
            ));
        }
    };
    let Value::Object(message) = value else {
        return Verdict::Reply(error_line(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message is one JSON object (batches are not supported)".into(),
        ));
    };
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned();
    let method = message.get("method").and_then(Value::as_str);
    let version_ok = message.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    match (id, method) {
        (None, Some(_)) if !message.contains_key("id") => Verdict::Drop,
        (Some(id), Some(method)) if version_ok => invalid_params(id, method),
        (id, _) => Verdict::Reply(error_line(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response (it needs \"jsonrpc\":\"2.0\", a string or integer id, and a method)".into(),
        )),
    }
}

/// The longest id [`IdScan`] keeps: ids are counters or short strings.
const MAX_ID_BYTES: usize = 256;

/// What [`IdScan`] expects next at the top level of the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Start,
    Key,
    Colon,
    Value,
    /// Inside a number or a literal (`true`, `null`).
    Scalar,
    AfterValue,
    Done,
}

/// The top-level `"id"` of a line too long to keep, found by one pass over
/// its bytes as they stream by, in constant memory: a lexer that tracks
/// strings, escapes and nesting, and keeps only the top-level keys' first
/// bytes and the id's own (at most [`MAX_ID_BYTES`]). The id may stand
/// anywhere among the keys: the TypeScript SDK writes it after the params.
/// Only a string or integer id counts, as for any request.
#[derive(Debug)]
struct IdScan {
    expect: Expect,
    /// Nesting inside a top-level value (0: at the top level).
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The string being read is a top-level key.
    in_key: bool,
    key: Vec<u8>,
    /// The value being read is the top-level id's.
    id_value: bool,
    raw: Vec<u8>,
    found: Option<Value>,
}

impl Default for IdScan {
    fn default() -> Self {
        IdScan {
            expect: Expect::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            in_key: false,
            key: Vec::new(),
            id_value: false,
            raw: Vec::new(),
            found: None,
        }
    }
}

impl IdScan {
    fn feed(&mut self, bytes: &[u8]) {
        let mut at = 0;
        while at < bytes.len() && self.expect != Expect::Done {
            // Inside a string that is not kept (the bulk of a long line),
            // only a quote or a backslash matters: skip to the next one.
            if self.in_string && !self.escaped && !self.keeps_string() {
                match bytes[at..].iter().position(|&b| b == b'"' || b == b'\\') {
                    Some(skip) => at += skip,
                    None => return,
                }
            }
            self.byte(bytes[at]);
            at += 1;
        }
    }

    /// Whether the string being read is kept: a top-level key, or the id.
    fn keeps_string(&self) -> bool {
        self.depth == 0 && (self.in_key || self.id_value)
    }

    /// The id, if the line had one of a kind a request may carry. The end
    /// of the line ends a number standing last.
    fn id(mut self) -> Option<Value> {
        if self.expect == Expect::Scalar {
            self.end_id();
        }
        self.found
    }

    fn keep(&mut self, byte: u8) {
        if self.in_key {
            // Enough to tell "id" from any other key.
            if self.key.len() < 3 {
                self.key.push(byte);
            }
        } else if self.id_value && self.raw.len() <= MAX_ID_BYTES {
            self.raw.push(byte);
        }
    }

    /// The id's value is complete: keep it if it is a string or an integer.
    fn end_id(&mut self) {
        if self.id_value && self.raw.len() <= MAX_ID_BYTES {
            let value: Option<Value> = serde_json::from_slice(&self.raw).ok();
            if let Some(id) = value.filter(|v| v.is_string() || v.is_i64() || v.is_u64()) {
                self.found = Some(id);
            }
        }
        self.id_value = false;
        self.raw.clear();
    }

    fn byte(&mut self, byte: u8) {
        let space = matches!(byte, b' ' | b'\t' | b'\r' | b'\n');
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    self.expect = Expect::Colon;
                } else if self.depth == 0 {
                    self.keep(byte);
                    self.end_id();
                    self.expect = Expect::AfterValue;
                }
                return;
            }
            if self.depth == 0 {
                self.keep(byte);
            }
            return;
        }
        if self.depth > 0 {
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        self.expect = Expect::AfterValue;
                    }
                }
                _ => {}
            }
            return;
        }
        self.expect = match (self.expect, byte) {
            // A byte order mark before the object, as `classify` allows.
            (Expect::Start, 0xEF | 0xBB | 0xBF) => Expect::Start,
            (expect, _) if space && expect != Expect::Scalar => expect,
            (Expect::Start, b'{') => Expect::Key,
            (Expect::Key, b'"') => {
                self.in_string = true;
                self.in_key = true;
                self.key.clear();
                Expect::Key
            }
            (Expect::Colon, b':') => {
                self.id_value = self.key == b"id";
                Expect::Value
            }
            (Expect::Value, b'"') => {
                self.in_string = true;
                self.keep(byte);
                Expect::Value
            }
            (Expect::Value, b'{' | b'[') => {
                // An object or array is no id.
                self.id_value = false;
                self.depth = 1;
                Expect::Value
            }
            (Expect::Value, _) => {
                self.keep(byte);
                Expect::Scalar
            }
            (Expect::Scalar, b',' | b'}') | (Expect::AfterValue, b',' | b'}') => {
                self.end_id();
                if byte == b',' {
                    Expect::Key
                } else {
                    Expect::Done
                }
            }
            (Expect::Scalar, _) if space => {
                self.end_id();
                Expect::AfterValue
            }
            (Expect::Scalar, _) => {
                self.keep(byte);
                Expect::Scalar
            }
            // Not a JSON object (or an empty one): stop looking.
            _ => Expect::Done,
        };
    }
}

enum LineRead {
    Line,
    /// The line was over the limit; its id, when one was found.
    TooLong(Option<Value>),
    Eof,
}

/// Reads one line into `line` (without its newline), never buffering more
/// than [`MAX_LINE_BYTES`]: the rest of a longer line is skipped, read only
/// by an [`IdScan`] for its id.
async fn read_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<LineRead> {
    line.clear();
    let mut too_long: Option<IdScan> = None;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if let Some(scan) = too_long {
                LineRead::TooLong(scan.id())
            } else if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], end + 1),
            None => (buffer, buffer.len()),
        };
        let found_end = done > chunk.len();
        match &mut too_long {
            Some(scan) => scan.feed(chunk),
            None if line.len() + chunk.len() > MAX_LINE_BYTES => {
                let mut scan = IdScan::default();
                scan.feed(line);
                scan.feed(chunk);
                too_long = Some(scan);
                line.clear();
            }
            None => line.extend_from_slice(chunk),
        }
        reader.consume(done);
        if found_end {
            return Ok(match too_long {
                Some(scan) => LineRead::TooLong(scan.id()),
                None => LineRead::Line,
            });
        }
    }
}

/// Runs the server on stdin/stdout until stdin closes.
pub async fn serve_stdio(server: AskUserServer) -> std::io::Result<()> {
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (lines_tx, mut lines_rx) = mpsc::channel::<Vec<u8>>(64);

    // The one writer of stdout.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = lines_rx.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });

    // rmcp's messages, line by line, to the writer.
    let rmcp_lines = lines_tx.clone();
    let relay = tokio::spawn(async move {
        let mut reader = BufReader::new(from_rmcp);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if rmcp_lines.send(line.clone()).await.is_err() {
                        break;
                    }
                }
            }
        }
    });

    // The client's lines: good ones to rmcp, bad ones answered here.
    let filter = tokio::spawn(async move {
        let mut to_rmcp = to_rmcp;
        let mut stdin = BufReader::with_capacity(PIPE_BYTES, tokio::io::stdin());
        let mut line = Vec::new();
        let mut session = Session::default();
        loop {
            let verdict = match read_line(&mut stdin, &mut line).await {
                Ok(LineRead::Eof) | Err(_) => break,
                Ok(LineRead::TooLong(id)) => Verdict::Reply(error_line(
                    id.unwrap_or(Value::Null),
                    INVALID_REQUEST,
                    format!("Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes"),
                )),
                Ok(LineRead::Line) if line.trim_ascii().is_empty() => continue,
                Ok(LineRead::Line) => classify(&line, &mut session),
            };
            match verdict {
                Verdict::Forward => {
                    line.push(b'\n');
                    if to_rmcp.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Verdict::Reply(error) => {
                    if lines_tx.send(error).await.is_err() {
                        break;
                    }
                }
                Verdict::Drop => log(format_args!("ignored a malformed notification")),
            }
        }
        // EOF on stdin: rmcp sees EOF too and stops serving.
        let _ = to_rmcp.shutdown().await;
    });

    match server.serve((rmcp_in, rmcp_out)).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(err) => log(format_args!("the session ended before it began ({err})")),
    }
    filter.abort();
    let _ = relay.await;
    let _ = writer.await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;
    use serde_json::json;

    /// A session past `initialize`.
    fn opened() -> Session {
        Session { opened: true }
    }

    fn reply(line: &str) -> Value {
        match classify(line.as_bytes(), &mut opened()) {
            Verdict::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
            other => panic!("expected an error reply, got {other:?}"),
        }
    }

    #[test]
    fn valid_messages_pass() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        assert_eq!(classify(line.as_bytes(), &mut opened()), Verdict::Forward);
    }

    /// Before `initialize`, a request without 2026-07-28's `_meta` is told
    /// to initialize first (-32602, its own id); ping, initialize and a
    /// stateless request pass, and after either opening nothing is stopped.
    #[test]
    fn a_request_before_initialize_is_told_to_initialize() {
        let mut session = Session::default();
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        let Verdict::Reply(bytes) = classify(list.as_bytes(), &mut session) else {
            panic!("tools/list before initialize passed");
        };
        let error: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            error,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": INVALID_PARAMS, "message":
                "Invalid params: the server is not initialized: send initialize (then notifications/initialized) before tools/list; \
                 a 2026-07-28 client instead gives each request io.modelcontextprotocol/protocolVersion and \
                 io.modelcontextprotocol/clientCapabilities in its _meta"}})
        );
        let call = r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"ask_user","arguments":{}}}"#;
        assert!(matches!(
            classify(call.as_bytes(), &mut session),
            Verdict::Reply(_)
        ));
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        assert_eq!(classify(ping.as_bytes(), &mut session), Verdict::Forward);
        // A 2026-07-28 request that names its version but lacks a key: rmcp's
        // own message names the key.
        let partial = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(classify(partial.as_bytes(), &mut session), Verdict::Forward);
        assert!(!session.opened);

        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
        assert_eq!(
            classify(initialize.as_bytes(), &mut session),
            Verdict::Forward
        );
        assert!(session.opened);
        assert_eq!(classify(list.as_bytes(), &mut session), Verdict::Forward);

        let mut stateless = Session::default();
        let modern = r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        assert_eq!(
            classify(modern.as_bytes(), &mut stateless),
            Verdict::Forward
        );
        assert!(stateless.opened);
    }

    fn scanned(line: &[u8]) -> Option<Value> {
        let mut whole = IdScan::default();
        whole.feed(line);
        // Fed one byte at a time, as chunks may split it anywhere.
        let mut bytewise = IdScan::default();
        for byte in line {
            bytewise.feed(std::slice::from_ref(byte));
        }
        let id = whole.id();
        assert_eq!(id, bytewise.id(), "{}", String::from_utf8_lossy(line));
        id
    }

    /// The top-level id, wherever it stands, past strings and nesting that
    /// hold braces, quotes, escapes and an "id" of their own.
    #[test]
    fn the_scan_finds_the_top_level_id_only() {
        let params = r#"{"name":"ask_user","arguments":{"id":99,"question":"a } { ] [ \" \\ \"id\": 7","options":["x","y"],"n":[1,{"id":"no"}]}}"#;
        for (line, id) in [
            (
                format!(r#"{{"jsonrpc":"2.0","id":300,"method":"tools/call","params":{params}}}"#),
                Some(json!(300)),
            ),
            (
                format!(r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":301}}"#),
                Some(json!(301)),
            ),
            (
                format!(r#"  {{ "params" : {params} , "id" : "s-1" , "jsonrpc":"2.0"}}"#),
                Some(json!("s-1")),
            ),
            (
                format!("\u{feff}{{\"id\":-5,\"params\":{params}}}"),
                Some(json!(-5)),
            ),
            (
                format!(r#"{{"id":"a\"b","params":{params}}}"#),
                Some(json!("a\"b")),
            ),
            // Not ids a request may carry, or none at all.
            (format!(r#"{{"id":null,"params":{params}}}"#), None),
            (format!(r#"{{"id":1.5,"params":{params}}}"#), None),
            (format!(r#"{{"id":{{"x":1}},"params":{params}}}"#), None),
            (format!(r#"{{"id":[1],"params":{params}}}"#), None),
            (format!(r#"{{"id":"{}"}}"#, "x".repeat(MAX_ID_BYTES)), None),
            (
                format!(r#"{{"method":"notifications/x","params":{params}}}"#),
                None,
            ),
            (r#"[{"id":1}]"#.to_string(), None),
            (r#""id""#.to_string(), None),
            (format!(r#"{{"ids":1,"i":2,"params":{params}}}"#), None),
        ] {
            assert_eq!(scanned(line.as_bytes()), id, "{line}");
        }
        // A line cut short still gives the id read before the cut.
        assert_eq!(scanned(br#"{"id":8,"params":{"a":"xxxx"#), Some(json!(8)));
        assert_eq!(scanned(br#"{"params":{"a":"x"},"id":9"#), Some(json!(9)));
    }

    /// The scan holds at most a few hundred bytes whatever it reads: a
    /// megabyte-long id (a string or a number), or long values under other
    /// keys, keep no more than [`MAX_ID_BYTES`] and a key's first bytes. The
    /// line it reads is past the 4 MiB limit, so holding it would undo that
    /// limit (`a_line_over_4_mib_is_scanned_in_constant_memory`, tests/mcp.rs,
    /// measures the process).
    #[test]
    fn the_scan_keeps_only_a_bounded_part_of_what_it_reads() {
        let long = "7".repeat(1024 * 1024);
        for line in [
            format!(r#"{{"id":"{long}","method":"x"}}"#),
            format!(r#"{{"id":{long},"method":"x"}}"#),
            format!(r#"{{"n":{long},"s":"{long}","{long}":1,"id":2}}"#),
        ] {
            let mut scan = IdScan::default();
            scan.feed(line.as_bytes());
            let held = scan.key.capacity() + scan.raw.capacity();
            assert!(held <= 4 * MAX_ID_BYTES, "{held} bytes held");
            // A long id is no id; a short one after long values is found.
            let found = scan.id();
            assert_eq!(found, line.ends_with(r#""id":2}"#).then(|| json!(2)));
        }
    }

    /// Any JSON value, nested a few levels, with keys that look like ids
    /// and strings full of quotes, escapes and brackets.
    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |x| x.is_finite())
                .prop_map(Value::from),
            r#"[a-z"\{}\[\]:, ]{0,6}|.{0,6}"#.prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((any_key(), inner), 0..4)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    fn any_key() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![Just("id".to_string()), r#"[a-z"\{}:]{0,4}"#]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, failure_persistence: None, ..Default::default() })]

        /// Any bytes: the scan ends, fed whole or byte by byte alike (`scanned`
        /// asserts that), without a panic.
        #[test]
        fn the_scan_takes_any_bytes(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = scanned(&bytes);
        }

        /// Any object, compact or pretty, with an id or not, anywhere among
        /// its keys: the scan finds exactly the id serde_json reads at its
        /// top level, when that is a string or an integer it keeps.
        #[test]
        fn the_scan_agrees_with_serde_json(
            pairs in proptest::collection::vec((any_key().prop_map(|k| if k == "id" { "ids".to_string() } else { k }), any_json()), 0..5),
            id in proptest::option::of((0usize..6, any_json())),
            pretty in proptest::prelude::any::<bool>(),
        ) {
            let mut object = serde_json::Map::new();
            let position = id.as_ref().map(|(at, _)| (*at).min(pairs.len()));
            for (index, (key, value)) in pairs.into_iter().enumerate() {
                if position == Some(index) {
                    object.insert("id".to_string(), id.as_ref().unwrap().1.clone());
                }
                object.insert(key, value);
            }
            if let Some((_, value)) = &id {
                object.entry("id").or_insert_with(|| value.clone());
            }
            let object = Value::Object(object);
            let line = if pretty {
                serde_json::to_vec_pretty(&object).unwrap()
            } else {
                serde_json::to_vec(&object).unwrap()
            };
            let expected = object.get("id").filter(|id| {
                (id.is_string() || id.is_i64() || id.is_u64())
                    && serde_json::to_vec(id).unwrap().len() <= MAX_ID_BYTES
            });
            let found = scanned(&line);
            proptest::prop_assert_eq!(found.as_ref(), expected, "{}", String::from_utf8_lossy(&line));
        }
    }

    #[test]
    fn errors_carry_the_id_when_there_is_one() {
        assert_eq!(reply("{oops")["error"]["code"], PARSE_ERROR);
        assert_eq!(reply("[1,2]")["error"]["code"], INVALID_REQUEST);
        let wrong = reply(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}"#);
        assert_eq!(wrong["id"], 7);
        assert_eq!(wrong["error"]["code"], INVALID_PARAMS);
        let no_version = reply(r#"{"id":"x","method":"tools/list"}"#);
        assert_eq!(no_version["id"], "x");
        assert_eq!(no_version["error"]["code"], INVALID_REQUEST);
    }

    /// A request rmcp cannot read but whose envelope is sound (version,
    /// an integer or string id, a method) is invalid params, with its id,
    /// negative ids included; without the version it is an invalid request.
    #[test]
    fn a_sound_envelope_around_bad_params_is_invalid_params() {
        for (line, id) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#,
                json!(7),
            ),
            (
                r#"{"jsonrpc":"2.0","id":-5,"method":"tools/call","params":5}"#,
                json!(-5),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"s","method":"ping","params":[1]}"#,
                json!("s"),
            ),
        ] {
            let error = reply(line);
            assert_eq!(error["id"], id, "{line}");
            assert_eq!(error["error"]["code"], INVALID_PARAMS, "{line}: {error}");
        }
        let line = r#"{"jsonrpc":"1.0","id":-5,"method":"tools/call","params":5}"#;
        let error = reply(line);
        assert_eq!(error["id"], -5, "{line}");
        assert_eq!(error["error"]["code"], INVALID_REQUEST, "{line}: {error}");
    }

    fn lines_of(input: &[u8]) -> Vec<Result<Vec<u8>, Option<Value>>> {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(async {
                // A small buffer: a line arrives in many pieces, none of
                // which ends exactly at the limit.
                let mut reader = tokio::io::BufReader::with_capacity(1000, input);
                let mut line = Vec::new();
                let mut read = Vec::new();
                loop {
                    match read_line(&mut reader, &mut line).await.unwrap() {
                        LineRead::Line => read.push(Ok(line.clone())),
                        LineRead::TooLong(id) => read.push(Err(id)),
                        LineRead::Eof => return read,
                    }
                }
            })
    }

    /// Lines up to 4 MiB are read whole; a longer one is skipped to its end,
    /// and the next line is read as usual.
    #[test]
    fn lines_up_to_4_mib_are_read_and_longer_ones_skipped() {
        const MIB: usize = 1024 * 1024;
        for (size, whole) in [(3 * MIB, true), (4 * MIB, true), (4 * MIB + 1, false)] {
            let mut input = vec![b'x'; size];
            input.extend_from_slice(b"\nnext\n");
            let read = lines_of(&input);
            assert_eq!(read.len(), 2, "{size}");
            if whole {
                assert_eq!(read[0].as_ref().map(Vec::len), Ok(size), "{size}");
            } else {
                assert_eq!(read[0], Err(None), "{size}");
            }
            assert_eq!(read[1], Ok(b"next".to_vec()), "{size}");
        }
        // Over the limit, the request's id is found wherever it stands
        // (here after the params, as the TypeScript SDK writes it).
        let huge = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"arguments":{{"question":"{}"}}}},"id":42}}"#,
            "x".repeat(5 * MIB)
        );
        let read = lines_of(format!("{huge}\nnext\n").as_bytes());
        assert_eq!(read, [Err(Some(json!(42))), Ok(b"next".to_vec())]);
        // A last line without its newline is still a line.
        assert_eq!(lines_of(b"a\nb"), [Ok(b"a".to_vec()), Ok(b"b".to_vec())]);
    }

    #[test]
    fn misshapen_notifications_are_dropped() {
        let line = r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#;
        assert_eq!(classify(line.as_bytes(), &mut opened()), Verdict::Drop);
    }
}
