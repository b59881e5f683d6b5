//! The server in process, with small limits, against raw TCP clients.
use super::*;
use std::io::{Read, Write};
use std::net::TcpStream;

/// Echoes what it got: the method and path, a query parameter, a header,
/// a POST body's length, or two events.
struct Echo;

impl App for Echo {
    async fn respond(&self, request: Request) -> Reply {
        match request.path() {
            "/body" => match request.body().await {
                Ok(body) => Reply::text(200, &body.len().to_string()),
                Err(refusal) => refusal,
            },
            "/events" => {
                let (send, events) = tokio::sync::mpsc::channel(2);
                send.try_send(bytes::Bytes::from_static(b"data: one\n\n"))
                    .unwrap();
                send.try_send(bytes::Bytes::from_static(b"data: two\n\n"))
                    .unwrap();
                Reply::events(events)
            }
            "/query" => Reply::text(200, request.query("q").unwrap_or("none")),
            "/header" => Reply::text(200, request.header("x-h").unwrap_or("none")),
            "/open" | "/open-post" => Reply::text(
                200,
                if request.holder().is_some() {
                    "holder"
                } else {
                    "nobody"
                },
            ),
            path => Reply::text(200, &format!("{} {path}", request.method())),
        }
    }

    fn tokenless(&self, path: &str) -> bool {
        path == "/open"
    }

    fn tokenless_post(&self, path: &str) -> bool {
        path == "/open-post"
    }
}

/// A server on a thread of its own; stopped and joined when dropped.
struct Running {
    port: u16,
    token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    fn start(limits: Limits) -> Running {
        let server = Server::bind(0, limits).unwrap();
        let (port, token) = (server.port(), server.token().to_string());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let until = async {
                let _ = stopped.await;
            };
            runtime
                .block_on(server.serve_until(Arc::new(Echo), until))
                .unwrap();
        });
        Running {
            port,
            token,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
    }

    /// A request head with our Host, and the token when `token`.
    fn head(&self, line: &str, token: bool, extra: &str) -> String {
        let auth = if token {
            format!("Authorization: Bearer {}\r\n", self.token)
        } else {
            String::new()
        };
        format!(
            "{line} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{auth}{extra}\r\n",
            self.port
        )
    }

    fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// Reads one response (head, then a Content-Length body); the status and body.
fn response(stream: &mut TcpStream) -> (u16, String) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            other => panic!("no complete response head: {other:?} after {head:?}"),
        }
    }
    let head = String::from_utf8(head).unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .map_or(0, |n| n.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

fn exchange(stream: &mut TcpStream, request: &str) -> (u16, String) {
    stream.write_all(request.as_bytes()).unwrap();
    response(stream)
}

/// Whether the server closed the connection (EOF or reset; no data).
fn closed(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1];
    matches!(stream.read(&mut buf), Ok(0) | Err(_))
}

fn small_limits() -> Limits {
    Limits {
        max_header_bytes: 8192,
        header_time: Duration::from_secs(30),
        max_body_bytes: 10,
        body_time: Duration::from_secs(30),
        max_connections: 3,
        tokenless_per_window: 3,
        rate_window: Duration::from_secs(3600),
    }
}

#[test]
fn proven_connections_stay_open_and_refused_ones_close() {
    let server = Running::start(small_limits());
    let mut proven = server.connect();
    for path in ["/a", "/b"] {
        let request = server.head(&format!("GET {path}"), true, "");
        assert_eq!(
            exchange(&mut proven, &request),
            (200, format!("GET {path}\n"))
        );
    }
    let mut refused = server.connect();
    let request = server.head("GET /a", false, "");
    assert_eq!(exchange(&mut refused, &request).0, 401);
    assert!(closed(&mut refused));
    let query = format!(
        "GET /q?token={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.token, server.port
    );
    assert_eq!(exchange(&mut proven, &query), (200, "GET /q\n".into()));
}

#[test]
fn well_known_metadata_is_not_found_for_anyone() {
    let server = Running::start(Limits {
        tokenless_per_window: 100,
        ..small_limits()
    });
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        for token in [false, true] {
            let request = server.head(&format!("GET {path}"), token, "");
            let (status, body) = exchange(&mut server.connect(), &request);
            assert_eq!(status, 404, "{path} {token}");
            assert!(body.contains("no OAuth"), "{body}");
        }
    }
    let rebound =
        "GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: evil.example\r\n\r\n";
    assert_eq!(exchange(&mut server.connect(), rebound).0, 403);
}

#[test]
fn only_tokenless_requests_are_limited() {
    let server = Running::start(small_limits());
    // A too large declared body without the token still counts.
    let mut first = server.connect();
    let big = server.head("POST /body", false, "Content-Length: 11\r\n");
    assert_eq!(exchange(&mut first, &big).0, 413);
    for _ in 0..2 {
        let request = server.head("GET /", false, "");
        assert_eq!(exchange(&mut server.connect(), &request).0, 401);
    }
    for _ in 0..3 {
        let request = server.head("GET /", false, "");
        assert_eq!(exchange(&mut server.connect(), &request).0, 429);
    }
    let wrong_host = "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n";
    assert_eq!(exchange(&mut server.connect(), wrong_host).0, 429);
    // The token holder: never counted, never limited.
    let mut holder = server.connect();
    for _ in 0..10 {
        let request = server.head("GET /ok", true, "");
        assert_eq!(exchange(&mut holder, &request), (200, "GET /ok\n".into()));
    }
}

#[test]
fn at_the_cap_the_oldest_unproven_connection_goes_and_proven_ones_stay() {
    let server = Running::start(small_limits());
    let mut proven = server.connect();
    let request = server.head("GET /p", true, "");
    assert_eq!(exchange(&mut proven, &request).0, 200);
    let mut first = server.connect();
    let mut second = server.connect();
    // A fourth connection: the oldest unproven one (first) is evicted.
    let mut third = server.connect();
    assert!(closed(&mut first));
    let mut fourth = server.connect();
    assert!(closed(&mut second));
    assert_eq!(exchange(&mut proven, &request).0, 200);
    // Once every open connection proved the token, a newcomer is closed.
    assert_eq!(exchange(&mut third, &request).0, 200);
    assert_eq!(exchange(&mut fourth, &request).0, 200);
    let mut newcomer = server.connect();
    assert!(closed(&mut newcomer));
    for stream in [&mut proven, &mut third, &mut fourth] {
        assert_eq!(exchange(stream, &request).0, 200);
    }
    // A proven connection that closes makes room again.
    drop(fourth);
    let reopened = (0..100).any(|_| {
        let mut again = server.connect();
        let ok = again
            .write_all(request.as_bytes())
            .is_ok_and(|()| !closed_or_answers(&mut again));
        ok || {
            std::thread::sleep(Duration::from_millis(20));
            false
        }
    });
    assert!(reopened, "no room after a proven connection closed");
}

/// True when the connection closed without an answer.
fn closed_or_answers(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 12];
    match stream.read(&mut buf) {
        Ok(n) if n > 0 => !buf.starts_with(b"HTTP/1.1 200"),
        _ => true,
    }
}

#[test]
fn registry_evicts_the_oldest_unproven_first() {
    let mut connections = Connections::default();
    let (a, ca) = connections.admit(3).unwrap();
    let (b, cb) = connections.admit(3).unwrap();
    let (c, _) = connections.admit(3).unwrap();
    assert_eq!((a, b, c), (0, 1, 2));
    ca.proven.store(true, Ordering::SeqCst);
    // At the cap: b is the oldest unproven.
    let (d, _) = connections.admit(3).unwrap();
    assert_eq!(d, 3);
    assert_eq!(
        connections.open.keys().copied().collect::<Vec<_>>(),
        [0, 2, 3]
    );
    assert!(!connections.open.contains_key(&1));
    drop(cb);
    assert!(connections.evict_oldest_unproven());
    assert_eq!(connections.open.keys().copied().collect::<Vec<_>>(), [0, 3]);
    assert!(connections.evict_oldest_unproven());
    assert!(!connections.evict_oldest_unproven());
    assert!(
        connections.admit(1).is_none(),
        "only proven ones at the cap"
    );
    assert_eq!(connections.admit(2).map(|(id, _)| id), Some(4));
}

#[test]
fn an_evicted_connection_is_told_even_before_it_waits() {
    let mut connections = Connections::default();
    let (_, first) = connections.admit(1).unwrap();
    connections.admit(1).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let told = runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(5), first.evicted.notified()).await
    });
    assert!(told.is_ok());
}

#[test]
fn heads_must_be_small_and_timely() {
    let mut limits = small_limits();
    limits.header_time = Duration::from_millis(300);
    let server = Running::start(limits);
    let mut slow = server.connect();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127").unwrap();
    assert!(closed(&mut slow));
    let mut idle = server.connect();
    assert!(closed(&mut idle));
    let mut large = server.connect();
    let header = format!("X-Large: {}\r\n", "a".repeat(9000));
    let _ = large.write_all(server.head("GET /", true, &header).as_bytes());
    assert_eq!(response(&mut large).0, 431);
    // An idle keep-alive connection gets the same time for its next head.
    let mut kept = server.connect();
    assert_eq!(exchange(&mut kept, &server.head("GET /", true, "")).0, 200);
    assert!(closed(&mut kept));
}

/// Refused before its head was read whole, a client still reads the
/// refusal and then a clean end of file, and may go on sending for a
/// while: the lingering close drains it instead of resetting the
/// connection (on Windows a reset loses the refusal, see linger.rs).
#[test]
fn a_refused_head_ends_in_end_of_file_not_a_reset() {
    let server = Running::start(small_limits());
    let mut large = server.connect();
    // Past the 8 KiB limit, within the 64 KiB the close drains.
    let header = format!("X-Large: {}\r\n", "a".repeat(40 * 1024));
    large
        .write_all(server.head("GET /", true, &header).as_bytes())
        .unwrap();
    assert_eq!(response(&mut large).0, 431);
    let mut buf = [0u8; 1];
    assert!(
        matches!(large.read(&mut buf), Ok(0)),
        "not a clean end of file after the 431"
    );
    // The server still drains: what the client goes on sending is read,
    // not answered with a reset (which a second write would report).
    for _ in 0..2 {
        large.write_all(b"more").unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A tokenless route is served without the token, as nobody; with the
/// token, as its holder; it never lets a POST without our Origin and JSON,
/// a wrong token's other routes or a wrong Host through.
#[test]
fn tokenless_routes_serve_without_the_token_and_nothing_more() {
    let server = Running::start(Limits {
        tokenless_per_window: 100,
        ..small_limits()
    });
    let open = server.head("GET /open", false, "");
    assert_eq!(
        exchange(&mut server.connect(), &open),
        (200, "nobody\n".into())
    );
    let wrong = open.replace("\r\n\r\n", "\r\nAuthorization: Bearer wrong\r\n\r\n");
    assert_eq!(
        exchange(&mut server.connect(), &wrong),
        (200, "nobody\n".into())
    );
    let mut proven = server.connect();
    let held = server.head("GET /open", true, "");
    assert_eq!(exchange(&mut proven, &held), (200, "holder\n".into()));
    // The token proved the connection: it stays open for the next request.
    assert_eq!(exchange(&mut proven, &held), (200, "holder\n".into()));
    // A tokenless GET route takes no POST without the token, ...
    let post = server.head("POST /open", false, "Content-Length: 0\r\n");
    assert_eq!(exchange(&mut server.connect(), &post).0, 401);
    // ... and a tokenless POST route (the inbox's pairing claim) needs our
    // Origin and JSON, and takes no GET.
    let post = server.head("POST /open-post", false, "Content-Length: 0\r\n");
    assert_eq!(exchange(&mut server.connect(), &post).0, 403);
    let get = server.head("GET /open-post", false, "");
    assert_eq!(exchange(&mut server.connect(), &get).0, 401);
    let foreign = server.head(
        "POST /open-post",
        false,
        "Origin: https://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n",
    ) + "{}";
    assert_eq!(exchange(&mut server.connect(), &foreign).0, 403);
    let own = format!(
        "Origin: http://127.0.0.1:{}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n",
        server.port
    );
    let not_json = server.head("POST /open-post", false, &own) + "{}";
    assert_eq!(exchange(&mut server.connect(), &not_json).0, 415);
    let own = own.replace("text/plain", "application/json");
    let ours = server.head("POST /open-post", false, &own) + "{}";
    assert_eq!(
        exchange(&mut server.connect(), &ours),
        (200, "nobody\n".into())
    );
    let other = server.head("GET /closed", false, "");
    assert_eq!(exchange(&mut server.connect(), &other).0, 401);
    let rebound = "GET /open HTTP/1.1\r\nHost: evil.example\r\n\r\n";
    assert_eq!(exchange(&mut server.connect(), rebound).0, 403);
}

#[test]
fn apps_see_the_method_query_and_single_headers() {
    let server = Running::start(small_limits());
    let mut stream = server.connect();
    let mut ask = |line: &str, extra: &str| {
        let request = server.head(line, true, extra);
        exchange(&mut stream, &request).1
    };
    assert_eq!(ask("DELETE /x", ""), "DELETE /x\n");
    assert_eq!(ask("GET /query?a=1&q=two", ""), "two\n");
    assert_eq!(ask("GET /query?a=1", ""), "none\n");
    assert_eq!(ask("GET /header", "X-H:  three \r\n"), "three\n");
    assert_eq!(ask("GET /header", "X-H: 3\r\nX-H: 3\r\n"), "none\n");
    assert_eq!(ask("GET /header", ""), "none\n");
}

#[test]
fn a_header_limit_below_hypers_minimum_is_raised_to_it() {
    let mut limits = small_limits();
    limits.max_header_bytes = 100;
    let server = Running::start(limits);
    let header = format!("X-Fits: {}\r\n", "a".repeat(200));
    let request = server.head("GET /fits", true, &header);
    assert_eq!(exchange(&mut server.connect(), &request).0, 200);
}

#[test]
fn bodies_are_read_within_their_size_and_time() {
    let mut limits = small_limits();
    limits.body_time = Duration::from_millis(300);
    let server = Running::start(limits);
    let post = |extra: &str, body: &str| {
        let mut head = server.head("POST /body", true, extra);
        head = head.replacen(
            "\r\n\r\n",
            &format!(
                "\r\nOrigin: http://127.0.0.1:{}\r\nContent-Type: application/json\r\n\r\n",
                server.port
            ),
            1,
        );
        let mut stream = server.connect();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        response(&mut stream)
    };
    assert_eq!(
        post("Content-Length: 10\r\n", "0123456789"),
        (200, "10\n".into())
    );
    assert_eq!(post("Content-Length: 11\r\n", "01234567890").0, 413);
    let chunked = "Transfer-Encoding: chunked\r\n";
    assert_eq!(
        post(chunked, "5\r\n01234\r\n0\r\n\r\n"),
        (200, "5\n".into())
    );
    assert_eq!(
        post(chunked, "6\r\n012345\r\n6\r\n012345\r\n0\r\n\r\n").0,
        413
    );
    // One chunk over the limit on its own.
    assert_eq!(post(chunked, "b\r\n0123456789a\r\n0\r\n\r\n").0, 413);
    let (status, message) = post("Content-Length: 5\r\n", "01");
    assert_eq!(status, 408);
    assert!(message.contains("in time"), "{message}");
    assert_eq!(post(chunked, "zz\r\n").0, 400);
    // POSTs also need our Origin and JSON.
    let mut stream = server.connect();
    let bare = server.head("POST /body", true, "Content-Length: 1\r\n");
    assert_eq!(exchange(&mut stream, &format!("{bare}x")).0, 403);
}

#[test]
fn events_stream_until_their_senders_are_gone() {
    let server = Running::start(small_limits());
    let mut stream = server.connect();
    stream
        .write_all(
            server
                .head("GET /events", true, "Connection: close\r\n")
                .as_bytes(),
        )
        .unwrap();
    let mut all = String::new();
    stream.read_to_string(&mut all).unwrap();
    assert!(all.starts_with("HTTP/1.1 200"), "{all}");
    assert!(all.contains("content-type: text/event-stream"));
    assert!(all.contains("transfer-encoding: chunked"));
    assert!(all.contains("data: one\n\n") && all.contains("data: two\n\n"));
}

#[test]
fn stopping_closes_the_port_and_every_connection() {
    let server = Running::start(small_limits());
    let port = server.port;
    let mut proven = server.connect();
    assert_eq!(
        exchange(&mut proven, &server.head("GET /", true, "")).0,
        200
    );
    server.stop();
    assert!(closed(&mut proven));
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn running_out_of_descriptors_is_said_at_once_then_at_most_once_a_minute() {
    let emfile = std::io::Error::from_raw_os_error(ask_user_platform::net::OUT_OF_DESCRIPTORS[0]);
    let mut report = ExhaustionReport::default();
    let start = Instant::now();
    let first = report.failed(&emfile, start).unwrap();
    assert!(
        first.starts_with("ask_user: out of file descriptors: accept failed (")
            && (first.contains("Too many open files") || cfg!(windows))
            && first.contains("), 1 time so far;")
            && first.ends_with("raise the limit (ulimit -n) if this lasts"),
        "{first}"
    );
    let minute = EXHAUSTION_REPORT_EVERY;
    assert_eq!(report.failed(&emfile, start), None);
    assert_eq!(report.failed(&emfile, start + minute / 2), None);
    let second = report.failed(&emfile, start + minute).unwrap();
    assert!(second.contains("), 4 times so far;"), "{second}");
    assert_eq!(
        report.failed(&emfile, start + minute * 2 - minute / 60),
        None
    );
    assert!(report.failed(&emfile, start + minute * 2).is_some());
}

#[test]
fn only_emfile_and_enfile_mean_out_of_descriptors() {
    // The codes per platform are platform::net's tests.
    for code in ask_user_platform::net::OUT_OF_DESCRIPTORS {
        assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(code)));
    }
    #[cfg(unix)]
    for code in [libc::ECONNABORTED, libc::ENOMEM] {
        let error = std::io::Error::from_raw_os_error(code);
        assert!(!out_of_descriptors(&error), "{error}");
    }
    assert!(!out_of_descriptors(&std::io::Error::other("not the OS's")));
}

#[test]
fn a_port_in_use_cannot_be_bound() {
    let taken = StdListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let port = taken.local_addr().unwrap().port();
    let error = Server::bind(port, Limits::default()).err().unwrap();
    assert!(matches!(error, BindError::Listen(_)));
    assert!(!error.to_string().is_empty());
}
