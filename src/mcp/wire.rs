//! stdio framing between the client and rmcp.
//!
//! rmcp silently drops lines that are not JSON and answers misshapen messages
//! with an id-less error, so a client waiting on that id would hang. This
//! layer reads stdin one line at a time and hands rmcp only the lines it can
//! parse; every other line gets its JSON-RPC error here, with the request's id
//! whenever it has one. rmcp's output and these errors share one writer, so
//! each message stays one whole line on stdout.

use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, JsonRpcRequest};
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

fn classify(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(JsonRpcMessage::Request(JsonRpcRequest {
            id,
            request: ClientRequest::CustomRequest(custom),
            ..
        })) if STANDARD_METHODS.contains(&custom.method.as_str()) => {
            return invalid_params(serde_json::to_value(id).unwrap_or_default(), &custom.method);
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

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads one line into `line` (without its newline), never buffering more
/// than [`MAX_LINE_BYTES`]: the rest of a longer line is skipped.
async fn read_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<LineRead> {
    line.clear();
    let mut too_long = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if too_long {
                LineRead::TooLong
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
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(done);
        if found_end {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
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
        loop {
            let verdict = match read_line(&mut stdin, &mut line).await {
                Ok(LineRead::Eof) | Err(_) => break,
                Ok(LineRead::TooLong) => Verdict::Reply(error_line(
                    Value::Null,
                    INVALID_REQUEST,
                    format!("Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes"),
                )),
                Ok(LineRead::Line) if line.trim_ascii().is_empty() => continue,
                Ok(LineRead::Line) => classify(&line),
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
    use serde_json::json;

    fn reply(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Verdict::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
            other => panic!("expected an error reply, got {other:?}"),
        }
    }

    #[test]
    fn valid_messages_pass() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        assert_eq!(classify(line.as_bytes()), Verdict::Forward);
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

    fn lines_of(input: &[u8]) -> Vec<Result<Vec<u8>, &'static str>> {
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
                        LineRead::TooLong => read.push(Err("too long")),
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
                assert_eq!(read[0], Err("too long"), "{size}");
            }
            assert_eq!(read[1], Ok(b"next".to_vec()), "{size}");
        }
        // A last line without its newline is still a line.
        assert_eq!(lines_of(b"a\nb"), [Ok(b"a".to_vec()), Ok(b"b".to_vec())]);
    }

    #[test]
    fn misshapen_notifications_are_dropped() {
        let line = r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#;
        assert_eq!(classify(line.as_bytes()), Verdict::Drop);
    }
}
