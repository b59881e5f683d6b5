//! A running `ask --ui web` and raw HTTP/1.1 over TCP: what the web tests
//! (tests/web.rs, tests/web_hostile.rs) drive the page with.

use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{ChildStderr, Command};
use std::time::Duration;

use serde_json::Value;

use super::bin;
use super::process::{ChildGuard, exit_with_one_line, port_is_closed, spawn_asking};

/// A running `ask --ui web`: its URL, port and token, read from stderr. A
/// test that fails before [`Page::finish`] leaves no page running: the
/// guard kills it.
pub struct Page {
    pub child: ChildGuard,
    pub port: u16,
    pub token: String,
    pub url: String,
    pub stderr: BufReader<ChildStderr>,
}

impl Page {
    pub fn start(input: &str, args: &[&str]) -> Page {
        Page::start_with(input, args, &[])
    }

    pub fn start_with(input: &str, args: &[&str], env: &[(&str, &str)]) -> Page {
        let mut command = Command::new(bin());
        command
            .args(["ask", "--ui", "web", "-"])
            .args(args)
            .envs(env.iter().copied());
        Page::spawn(command, input)
    }

    /// Runs `command` (an `ask --ui web` reading stdin) with `input`.
    pub fn spawn(mut command: Command, input: &str) -> Page {
        let (child, stderr, line) = spawn_asking(&mut command, input);
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL on stderr: {line:?}"))
            .to_string();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .expect("127.0.0.1 URL");
        let (port, query) = rest.split_once('/').unwrap();
        let token = query.strip_prefix("?token=").unwrap().to_string();
        assert_eq!(token.len(), 32, "a 128-bit token in hex");
        Page {
            child,
            port: port.parse().unwrap(),
            token,
            url,
            stderr,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A request with every header a same-origin page sends.
    pub fn request(&self, method: &str, path: &str, body: &str) -> Response {
        same_origin_request(self.port, &self.token, method, path, body)
    }

    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        send(self.port, method, path, headers, body)
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the exit; checks that the port is closed; returns code and document.
    pub fn finish(self) -> (i32, Value) {
        let (code, stdout) = self.finish_raw();
        let document = serde_json::from_str(&stdout).expect("one JSON document on stdout");
        (code, document)
    }

    /// Waits for the exit; checks that the port is closed; returns the exit
    /// code and stdout exactly (one line).
    pub fn finish_raw(mut self) -> (i32, String) {
        let finished = exit_with_one_line(&mut self.child, Duration::from_secs(20));
        assert!(
            port_is_closed(self.port),
            "port {} is still open after the exit",
            self.port
        );
        finished
    }
}

pub struct Response {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

pub fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("the page listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// One request on a new connection to 127.0.0.1:`port`; its response.
pub fn send(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream = connect(port);
    stream
        .write_all(&raw_request(method, path, headers, body))
        .unwrap();
    read_response(&mut stream)
}

/// A request as a page served on `port` sends it: Host, the bearer
/// `token`, its own Origin, JSON.
pub fn same_origin_request(
    port: u16,
    token: &str,
    method: &str,
    path: &str,
    body: &str,
) -> Response {
    let host = format!("127.0.0.1:{port}");
    let bearer = format!("Bearer {token}");
    let origin = format!("http://{host}");
    let headers = [
        ("Host", host.as_str()),
        ("Authorization", bearer.as_str()),
        ("Origin", origin.as_str()),
        ("Content-Type", "application/json"),
    ];
    send(port, method, path, &headers, body.as_bytes())
}

pub fn raw_request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

pub fn read_response(stream: &mut TcpStream) -> Response {
    let mut raw = Vec::new();
    // A server that refuses a body early may reset the connection after answering.
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    Response {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// Opens a connection to 127.0.0.1:`port`, sends `bytes`, and holds it
/// (until dropped), as a hostile client does.
pub fn hold(port: u16, bytes: &[u8]) -> TcpStream {
    let mut stream = connect(port);
    stream.write_all(bytes).unwrap();
    stream
}

/// A request head of our own making (`Host: host`, then `headers`), as an
/// attacker writes it.
pub fn head(host: &str, request_line: &str, headers: &[String]) -> String {
    let mut head = format!("{request_line}\r\nHost: {host}\r\n");
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head
}

/// The pairing page's claim: no token, the inbox's Origin, JSON.
pub fn claim(port: u16, code: &str) -> Response {
    let host = format!("127.0.0.1:{port}");
    let origin = format!("http://{host}");
    let body = format!(r#"{{"code":"{code}"}}"#);
    send(
        port,
        "POST",
        "/api/pair/claim",
        &[
            ("Host", host.as_str()),
            ("Origin", origin.as_str()),
            ("Content-Type", "application/json"),
        ],
        body.as_bytes(),
    )
}
