//! The inbox's clients: askers and the CLI verbs speak HTTP/1.1 to it with
//! hyper's client, one connection per request, with the token as a bearer.
//! Whatever the inbox refuses comes back as the error it sent (its error
//! document read back into an [`AskError`]).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{Method, Request, StatusCode, header};
use http_body::Body as _;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;

use super::state::Endpoint;
use ask_user_core::error::{AskError, Detail, ErrorDocument};

/// Time to connect to the inbox and get a response's head.
const RESPONSE_TIME: Duration = Duration::from_secs(10);
/// Largest whole response read (a listing of many questions fits easily).
const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;
/// Largest event read from a stream (an outcome document fits easily).
const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// Why a request did not get an answer from the inbox.
#[derive(Debug)]
pub enum Failure {
    /// No connection, or it broke: the inbox may be restarting; try again.
    Unreachable(String),
    /// The inbox answered with an error: final.
    Refused(AskError),
}

impl Failure {
    /// As an error for a person or a model.
    pub fn into_error(self, endpoint: &Endpoint) -> AskError {
        match self {
            Failure::Refused(err) => err,
            Failure::Unreachable(why) => AskError::NoInbox(Detail::new(format!(
                "the inbox at {} did not answer ({why}); start it with `ask_user inbox`",
                endpoint.base
            ))),
        }
    }
}

pub struct Client {
    endpoint: Endpoint,
}

impl Client {
    pub fn new(endpoint: Endpoint) -> Client {
        Client { endpoint }
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// A GET whose JSON answer is read whole.
    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, Failure> {
        let response = self.send(Method::GET, path, None).await?;
        read_json(response).await
    }

    /// A POST of `body` as JSON, whose JSON answer is read whole.
    pub async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, Failure> {
        let bytes = ask_user_core::document_line(body).into_bytes();
        let response = self.send(Method::POST, path, Some(bytes)).await?;
        read_json(response).await
    }

    /// A GET of a stream of server-sent events.
    pub async fn events(&self, path: &str) -> Result<Events, Failure> {
        let response = self.send(Method::GET, path, None).await?;
        if !response.status().is_success() {
            return Err(refused(response).await);
        }
        Ok(Events {
            body: response.into_body(),
            buffer: BytesMut::new(),
            searched: 0,
        })
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<http::Response<Incoming>, Failure> {
        let unreachable = |e: &dyn std::fmt::Display| Failure::Unreachable(e.to_string());
        let exchange = async {
            let stream = TcpStream::connect(self.endpoint.dial())
                .await
                .map_err(|e| unreachable(&e))?;
            let _ = stream.set_nodelay(true);
            let mut sender = if self.endpoint.tls() {
                http1(self.tls(stream).await?).await?
            } else {
                http1(stream).await?
            };
            let mut request = Request::builder()
                .method(method)
                .uri(path)
                .header(header::HOST, &self.endpoint.authority)
                .header(
                    header::AUTHORIZATION,
                    format!("Bearer {}", self.endpoint.token),
                );
            if body.is_some() {
                // The server takes POSTs from its own origin only (against
                // cross-site forms); this client speaks for that origin.
                request = request
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::ORIGIN, &self.endpoint.base);
            }
            let request = request
                .body(Whole(body.map(Bytes::from)))
                .map_err(|e| unreachable(&e))?;
            sender
                .send_request(request)
                .await
                .map_err(|e| unreachable(&e))
        };
        tokio::time::timeout(RESPONSE_TIME, exchange)
            .await
            .unwrap_or_else(|_| Err(Failure::Unreachable("no response in time".into())))
    }
}

/// HTTP/1.1 over `io`; the connection runs beside the request and ends
/// with the response.
async fn http1<I>(io: I) -> Result<hyper::client::conn::http1::SendRequest<Whole>, Failure>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| Failure::Unreachable(e.to_string()))?;
    tokio::spawn(connection);
    Ok(sender)
}

impl Client {
    /// The TLS handshake with an `https://` inbox. A certificate that does
    /// not verify is final (retrying cannot fix it), and says how to trust
    /// a private CA.
    async fn tls(
        &self,
        stream: TcpStream,
    ) -> Result<tokio_rustls::client::TlsStream<TcpStream>, Failure> {
        let refused = |message: String| Failure::Refused(AskError::NoInbox(Detail::new(message)));
        let connector = ask_user_server::tls::connector().map_err(refused)?;
        let name = ask_user_server::tls::server_name(self.endpoint.host()).map_err(refused)?;
        connector.connect(name, stream).await.map_err(|e| {
            let certificate = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
                .is_some_and(|e| matches!(e, rustls::Error::InvalidCertificate(_)));
            if certificate {
                refused(format!(
                    "the inbox at {} has a certificate this machine does not trust ({e}); set SSL_CERT_FILE to the PEM file of the CA that signed it",
                    self.endpoint.base
                ))
            } else {
                Failure::Unreachable(format!("TLS handshake failed ({e})"))
            }
        })
    }
}

/// A stream of server-sent events.
pub struct Events {
    body: Incoming,
    buffer: BytesMut,
    /// How much of `buffer` holds no event's end: each frame's bytes are
    /// searched once, not the whole buffer again (an event of a megabyte
    /// comes in a hundred frames).
    searched: usize,
}

impl Events {
    /// The next event's data (comments, the heartbeats, are skipped); `None`
    /// when the stream ends, breaks, or sends nothing for `silence`.
    pub async fn next(&mut self, silence: Duration) -> Option<String> {
        loop {
            if let Some(end) = find(&self.buffer[self.searched..], b"\n\n") {
                let event = self.buffer.split_to(self.searched + end + 2);
                self.searched = 0;
                let data: Vec<&str> = std::str::from_utf8(&event)
                    .ok()?
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(|data| data.strip_prefix(' ').unwrap_or(data))
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return Some(data.join("\n"));
            }
            // The last byte may be the first "\n" of an end the next frame finishes.
            self.searched = self.buffer.len().saturating_sub(1);
            if self.buffer.len() > MAX_EVENT_BYTES {
                return None;
            }
            let frame =
                std::future::poll_fn(|cx| std::pin::Pin::new(&mut self.body).poll_frame(cx));
            match tokio::time::timeout(silence, frame).await {
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                _ => return None,
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

async fn read_json<T: DeserializeOwned>(response: http::Response<Incoming>) -> Result<T, Failure> {
    if !response.status().is_success() {
        return Err(refused(response).await);
    }
    let bytes = read_whole(response.into_body()).await?;
    serde_json::from_slice(&bytes).map_err(|e| Failure::Refused(unreadable_answer(&e.to_string())))
}

/// What to do about a version mismatch, said after each of its errors.
const SAME_VERSION: &str = "run the same version on both sides: restart the inbox with this ask_user (`ask_user inbox`), or ask with the inbox's own ask_user";

/// The inbox took no request this ask_user built (every body is built by
/// serde, so its INVALID_JSON means another version): VERSION_MISMATCH,
/// naming this version; the inbox's own message names its version.
fn not_understood(inbox_said: &str) -> AskError {
    AskError::VersionMismatch(Detail::new(format!(
        "the inbox did not understand a request from this ask_user {} ({inbox_said}); {SAME_VERSION}",
        env!("CARGO_PKG_VERSION")
    )))
}

/// A successful answer this ask_user cannot read: another version.
fn unreadable_answer(parse_error: &str) -> AskError {
    AskError::VersionMismatch(
        Detail::new(format!(
            "the inbox answered something this ask_user {} cannot read: it is another version; {SAME_VERSION}",
            env!("CARGO_PKG_VERSION")
        ))
        .with_parse_error(parse_error.to_string()),
    )
}

/// The error an unsuccessful response stands for: the error document the
/// inbox sent, or (a refusal by the server itself) one made from its text.
/// 502, 503 and 504 are not final: a replica that is stopping (its drain),
/// or a proxy in front whose replicas are away for a moment.
async fn refused(response: http::Response<Incoming>) -> Failure {
    let status = response.status();
    let bytes = match read_whole(response.into_body()).await {
        Ok(bytes) => bytes,
        Err(failure) => return failure,
    };
    if matches!(
        status,
        StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
    ) {
        let said = serde_json::from_slice::<ErrorDocument<'_>>(&bytes)
            .map(|document| document.error.message.into_owned())
            .unwrap_or_else(|_| String::from_utf8_lossy(&bytes).trim().to_string());
        return Failure::Unreachable(format!("{status}: {said}"));
    }
    if let Ok(document) = serde_json::from_slice::<ErrorDocument<'_>>(&bytes) {
        let detail = Detail {
            message: document.error.message.into_owned(),
            path: document.error.path.map(|p| p.into_owned()),
            parse_error: document.error.parse_error.map(|p| p.into_owned()),
        };
        if let Some(err) = AskError::from_code(&document.error.code, detail) {
            return Failure::Refused(match err {
                AskError::InvalidJson(said) => not_understood(&said.message),
                err => err,
            });
        }
    }
    let text = String::from_utf8_lossy(&bytes).trim().to_string();
    let err = match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
            AskError::TokenRefused(Detail::new(format!(
                "the inbox refused this ask_user's token ({status}: {text}); the token (inbox.json or ASK_USER_TOKEN) is not the running inbox's, or it was removed"
            )))
        }
        _ => AskError::InternalError(Detail::new(format!(
            "the inbox refused the request ({status}: {text})"
        ))),
    };
    Failure::Refused(err)
}

async fn read_whole(mut body: Incoming) -> Result<Bytes, Failure> {
    let mut bytes = BytesMut::new();
    let read = async {
        while let Some(frame) =
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame = frame.map_err(|e| Failure::Unreachable(e.to_string()))?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > MAX_RESPONSE_BYTES {
                    return Err(Failure::Unreachable("the response is too large".into()));
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(())
    };
    tokio::time::timeout(RESPONSE_TIME, read)
        .await
        .unwrap_or_else(|_| Err(Failure::Unreachable("the response stalled".into())))?;
    Ok(bytes.freeze())
}

/// A request body sent whole (or none).
struct Whole(Option<Bytes>);

impl http_body::Body for Whole {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        std::task::Poll::Ready(self.0.take().map(|bytes| Ok(http_body::Frame::data(bytes))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A stand-in for an inbox of another version: it answers one request
    /// with `response` (raw HTTP), whatever was asked.
    fn other_version(response: &'static str) -> Endpoint {
        stand_in_pieces(vec![response.to_string()], false)
    }

    /// Like [`other_version`], writing the response in `pieces`, 200 ms
    /// apart (so the client has read each before the next); when
    /// `held_open`, the connection stays open after the response until the
    /// client closes it.
    fn stand_in_pieces(pieces: Vec<String>, held_open: bool) -> Endpoint {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            for (n, piece) in pieces.iter().enumerate() {
                if n > 0 {
                    std::thread::sleep(Duration::from_millis(200));
                }
                stream.write_all(piece.as_bytes()).unwrap();
            }
            if held_open {
                let _ = stream.read(&mut head);
            }
        });
        local(port)
    }

    /// The endpoint of a stand-in on 127.0.0.1:`port`.
    fn local(port: u16) -> Endpoint {
        Endpoint {
            base: format!("http://127.0.0.1:{port}"),
            authority: format!("127.0.0.1:{port}"),
            token: "0".repeat(32),
        }
    }

    /// A whole response (leaked: the stand-in's thread outlives the test's
    /// borrow); no Content-Type header when `content_type` is empty.
    fn canned(status: &str, content_type: &str, body: &str) -> &'static str {
        let content_type = if content_type.is_empty() {
            String::new()
        } else {
            format!("content-type: {content_type}\r\n")
        };
        Box::leak(
            format!(
                "HTTP/1.1 {status}\r\n{content_type}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_boxed_str(),
        )
    }

    fn post(endpoint: Endpoint) -> AskError {
        match post_failure(endpoint) {
            Failure::Refused(err) => err,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_inbox_that_does_not_take_our_request_is_a_version_mismatch() {
        let body = r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"INVALID_JSON","message":"this inbox, ask_user 0.0.9, does not take that request","parseError":"unknown field `face`"}}"#;
        let response = canned("400 Bad Request", "application/json", body);
        let err = post(other_version(response));
        assert_eq!(err.code(), "VERSION_MISMATCH");
        assert_eq!(
            err.to_string(),
            format!(
                "the inbox did not understand a request from this ask_user {} (this inbox, ask_user 0.0.9, does not take that request); {SAME_VERSION}",
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    fn post_failure(endpoint: Endpoint) -> Failure {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = Client::new(endpoint);
        match runtime.block_on(client.post::<_, super::super::hub::Asked>("/api/ask", &"x")) {
            Err(failure) => failure,
            Ok(asked) => panic!("{}", asked.inbox_id),
        }
    }

    #[test]
    fn a_stopping_replica_or_a_proxy_without_one_is_unreachable_not_final() {
        let body = r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"NO_INBOX","message":"this inbox replica is stopping"}}"#;
        let drain = canned("503 Service Unavailable", "application/json", body);
        let proxies: [&'static str; 3] = [
            drain,
            "HTTP/1.1 502 Bad Gateway\r\ncontent-length: 11\r\nconnection: close\r\n\r\nbad gateway",
            "HTTP/1.1 504 Gateway Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        ];
        for (response, says) in proxies.into_iter().zip([
            "503 Service Unavailable: this inbox replica is stopping",
            "502 Bad Gateway: bad gateway",
            "504 Gateway Timeout: ",
        ]) {
            match post_failure(other_version(response)) {
                Failure::Unreachable(why) => assert_eq!(why, says),
                Failure::Refused(err) => panic!("{says}: final {err}"),
            }
        }
        // Any other status stays final.
        let teapot =
            "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
        assert!(matches!(
            post_failure(other_version(teapot)),
            Failure::Refused(AskError::InternalError(_))
        ));
    }

    /// A store that refuses writes for good (507, a full disk) is final:
    /// the asker exits with it, where a 503 (an outage) is waited out.
    #[test]
    fn a_store_that_refuses_writes_is_final() {
        let body = r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"STORE_ERROR","message":"the inbox's store refuses writes: disk full"}}"#;
        let full = canned("507 Insufficient Storage", "application/json", body);
        match post_failure(other_version(full)) {
            Failure::Refused(err) => {
                assert_eq!(err.code(), "STORE_ERROR");
                assert_eq!(err.message(), "the inbox's store refuses writes: disk full");
            }
            other => panic!("{other:?}"),
        }
        let outage = canned("503 Service Unavailable", "application/json", body);
        assert!(matches!(
            post_failure(other_version(outage)),
            Failure::Unreachable(_)
        ));
    }

    #[test]
    fn an_answer_we_cannot_read_is_a_version_mismatch() {
        let err = post(other_version(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]",
        ));
        assert_eq!(err.code(), "VERSION_MISMATCH");
        let document = serde_json::to_value(err.document()).unwrap();
        assert!(
            document["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("the inbox answered something this ask_user "),
            "{document}"
        );
        assert!(document["error"]["parseError"].is_string(), "{document}");
    }

    #[test]
    fn other_errors_of_the_inbox_keep_their_code() {
        let body = r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"UNKNOWN_QUESTION","message":"no such question"}}"#;
        let response = canned("404 Not Found", "application/json", body);
        assert_eq!(post(other_version(response)).code(), "UNKNOWN_QUESTION");
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A 200 whose body is `body`, read until the connection closes.
    fn ok_until_closed(content_type: &str, body: &str) -> &'static str {
        Box::leak(
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n{body}"
            )
            .into_boxed_str(),
        )
    }

    /// A listing of megabytes is read; past MAX_RESPONSE_BYTES a response
    /// is refused as too large, never buffered without bound.
    #[test]
    fn whole_responses_are_read_up_to_their_limit() {
        let large = format!("\"{}\"", "q".repeat(3 * 1024 * 1024));
        let endpoint = other_version(ok_until_closed("application/json", &large));
        let read = runtime().block_on(Client::new(endpoint).get::<String>("/api/questions"));
        assert_eq!(read.map(|text| text.len()).ok(), Some(3 * 1024 * 1024));
        // Exactly the limit is read.
        let whole = format!("\"{}\"", "q".repeat(MAX_RESPONSE_BYTES - 2));
        let endpoint = other_version(ok_until_closed("application/json", &whole));
        let read = runtime().block_on(Client::new(endpoint).get::<String>("/api/questions"));
        assert_eq!(
            read.map(|text| text.len()).ok(),
            Some(MAX_RESPONSE_BYTES - 2)
        );
        let endpoint = other_version(ok_until_closed(
            "application/json",
            &"q".repeat(MAX_RESPONSE_BYTES + 1),
        ));
        match runtime().block_on(Client::new(endpoint).get::<String>("/api/questions")) {
            Err(Failure::Unreachable(why)) => assert_eq!(why, "the response is too large"),
            other => panic!("{other:?}"),
        }
    }

    /// An event of hundreds of kilobytes (an outcome document) is read
    /// whole; one that never ends within MAX_EVENT_BYTES ends the stream.
    #[test]
    fn events_are_read_up_to_their_limit() {
        let outcome = "o".repeat(512 * 1024);
        let stream = format!(": heartbeat\n\ndata: {outcome}\n\n");
        let endpoint = other_version(ok_until_closed("text/event-stream", &stream));
        runtime().block_on(async {
            let mut events = Client::new(endpoint).events("/api/events").await.unwrap();
            let silence = Duration::from_secs(10);
            assert_eq!(
                events.next(silence).await.map(|e| e.len()),
                Some(outcome.len())
            );
            assert_eq!(events.next(silence).await, None);
        });
        let endless = format!("data: {}", "e".repeat(MAX_EVENT_BYTES + 1024));
        let endpoint = stand_in_pieces(
            vec![ok_until_closed("text/event-stream", &endless).to_string()],
            true,
        );
        runtime().block_on(async {
            let mut events = Client::new(endpoint).events("/api/events").await.unwrap();
            // The stand-in neither closes nor falls silent for a minute:
            // only the limit ends the stream, at once.
            let next = events.next(Duration::from_secs(60));
            let ended = tokio::time::timeout(Duration::from_secs(5), next).await;
            assert_eq!(ended, Ok(None));
        });
        // An event of exactly the limit, its end still to come, is waited for.
        let head = ok_until_closed("text/event-stream", "");
        let data = "d".repeat(MAX_EVENT_BYTES - "data: ".len());
        let pieces = vec![format!("{head}data: {data}"), "\n\n".to_string()];
        let endpoint = stand_in_pieces(pieces, false);
        runtime().block_on(async {
            let mut events = Client::new(endpoint).events("/api/events").await.unwrap();
            let next = events.next(Duration::from_secs(10)).await;
            assert_eq!(next.map(|e| e.len()), Some(data.len()));
        });
    }

    /// An event's end split between two writes, and two events in one, are
    /// each found once.
    #[test]
    fn events_are_split_where_they_end_whatever_the_frames() {
        let head = ok_until_closed("text/event-stream", "");
        let pieces = vec![
            format!("{head}data: one\n"),
            "\ndata: two\n\ndata: thr".to_string(),
            "ee\n".to_string(),
            "\n".to_string(),
        ];
        let endpoint = stand_in_pieces(pieces, false);
        runtime().block_on(async {
            let mut events = Client::new(endpoint).events("/api/events").await.unwrap();
            let silence = Duration::from_secs(10);
            for expected in ["one", "two", "three"] {
                assert_eq!(events.next(silence).await.as_deref(), Some(expected));
            }
            assert_eq!(events.next(silence).await, None);
        });
    }

    /// A 401 or 403 with no error document (a proxy's, or another server's
    /// on the port) says the token is not the running inbox's.
    #[test]
    fn a_refused_token_says_so() {
        for (status, text) in [
            ("401 Unauthorized", "no token"),
            ("403 Forbidden", "wrong host"),
        ] {
            let response = canned(status, "", text);
            let err = post(other_version(response));
            assert_eq!(err.code(), "TOKEN_REFUSED");
            assert_eq!(
                err.to_string(),
                format!(
                    "the inbox refused this ask_user's token ({status}: {text}); the token (inbox.json or ASK_USER_TOKEN) is not the running inbox's, or it was removed"
                )
            );
        }
    }

    /// Requests go as any HTTP/1.1 server or proxy takes them: a POST's
    /// body with its length, never chunked; a GET with no body and no
    /// length (a stand-in reads each request's head and body).
    #[test]
    fn requests_carry_their_length_and_no_chunks() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (heads, received) = std::sync::mpsc::channel::<(String, Vec<u8>)>();
        std::thread::spawn(move || {
            for _ in 0..2 {
                let (mut stream, _) = listener.accept().unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length: "))
                    .map_or(0, |n| n.trim().parse().unwrap());
                let mut body = vec![0u8; length];
                stream.read_exact(&mut body).unwrap();
                heads.send((head, body)).unwrap();
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\n\"ok\"",
                );
            }
        });
        let client = Client::new(local(port));
        let runtime = runtime();
        let said = runtime.block_on(client.post::<_, String>("/api/ask", &"x"));
        assert_eq!(said.ok().as_deref(), Some("ok"));
        let (head, body) = received.recv().unwrap();
        assert!(head.starts_with("post /api/ask http/1.1\r\n"), "{head}");
        assert!(head.contains("\r\ncontent-length: 3\r\n"), "{head}");
        assert!(!head.contains("transfer-encoding"), "{head}");
        assert_eq!(body, b"\"x\"");
        let said = runtime.block_on(client.get::<String>("/api/questions"));
        assert_eq!(said.ok().as_deref(), Some("ok"));
        let (head, body) = received.recv().unwrap();
        assert!(
            head.starts_with("get /api/questions http/1.1\r\n"),
            "{head}"
        );
        assert!(!head.contains("content-length"), "{head}");
        assert!(!head.contains("transfer-encoding"), "{head}");
        assert!(body.is_empty());
    }
}
