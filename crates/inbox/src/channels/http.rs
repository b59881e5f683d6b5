//! The channels' HTTP: one POST (or PUT) per attempt over hyper's client,
//! `https://` through the askers' rustls connector (the system's roots,
//! `SSL_CERT_FILE`), and the target URLs as `--notify-to` names them.
//! No URL crate: a target is `scheme://host[:port]/path[?query]`, which is
//! all a notification endpoint needs (userinfo and fragments are refused).

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, header};
use http_body_util_lite::Whole;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::DeliveryError;

/// Largest response body read back (errors are logged with its start).
const MAX_REPLY_BYTES: usize = 64 * 1024;

/// A parsed `http://` or `https://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub tls: bool,
    /// As written (a name, an IPv4 address, or `[IPv6]`).
    pub host: String,
    pub port: u16,
    /// From the first `/` on, with the query; `/` when empty.
    pub path: String,
}

impl Target {
    /// `text` as an `http://` or `https://` URL.
    pub fn parse(text: &str) -> Result<Target, String> {
        let (tls, rest) = if let Some(rest) = text.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = text.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(format!("{text:?} is not an http:// or https:// URL"));
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        if path.contains('#') || path.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "{text:?}: a notification URL has no fragment, space or control character"
            ));
        }
        let (host, port) = split_authority(authority).map_err(|why| format!("{text:?}: {why}"))?;
        Ok(Target {
            tls,
            host,
            port: port.unwrap_or(if tls { 443 } else { 80 }),
            path,
        })
    }

    /// This machine only: an IP loopback address, or `localhost`.
    pub fn is_loopback(&self) -> bool {
        let bare = self.host.trim_start_matches('[').trim_end_matches(']');
        bare.eq_ignore_ascii_case("localhost")
            || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// The Host header.
    pub fn authority(&self) -> String {
        let default = if self.tls { 443 } else { 80 };
        if self.port == default {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// `scheme://authority` (no path).
    pub fn origin(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.authority())
    }

    /// Where to connect.
    pub fn dial(&self) -> (String, u16) {
        let bare = self.host.trim_start_matches('[').trim_end_matches(']');
        (bare.to_string(), self.port)
    }
}

/// `host[:port]` (IPv6 in brackets); no userinfo.
pub fn split_authority(authority: &str) -> Result<(String, Option<u16>), String> {
    if authority.contains('@') {
        return Err(
            "credentials in the URL are refused (they would be on the command line)".into(),
        );
    }
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']').ok_or("an IPv6 address without its ]")?;
        let (host, after) = authority.split_at(end + 1);
        match after.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if after.is_empty() => (host, None),
            None => return Err("text after the IPv6 address".into()),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty()
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']' | ':'))
    {
        return Err(format!("{host:?} is not a host name or address"));
    }
    let port = match port {
        Some(port) => Some(
            port.parse::<u16>()
                .ok()
                .filter(|&p| p != 0)
                .ok_or_else(|| format!("{port:?} is not a port"))?,
        ),
        None => None,
    };
    Ok((host.to_string(), port))
}

/// A response's status and the start of its body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One request: `method` to `target` with `headers` and `body`; the whole
/// exchange (connect, TLS, response head and body) within `timeout`.
/// A status other than 2xx is an error: 4xx but 408 and 429 permanent (the
/// same request cannot succeed later), everything else transient.
pub async fn send(
    target: &Target,
    method: Method,
    headers: &[(&str, String)],
    body: Vec<u8>,
    timeout: Duration,
) -> Result<Reply, DeliveryError> {
    send_up_to(target, method, headers, body, timeout, MAX_REPLY_BYTES).await
}

/// [`send`], reading up to `max_bytes` of the response body (Matrix's
/// `/sync`, whose replies can pass 64 KiB); a longer body is cut there, as
/// [`send`] cuts at 64 KiB.
pub async fn send_up_to(
    target: &Target,
    method: Method,
    headers: &[(&str, String)],
    body: Vec<u8>,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Reply, DeliveryError> {
    let exchange = async {
        let transient = |e: &dyn std::fmt::Display| DeliveryError::Transient(e.to_string());
        let stream = TcpStream::connect(target.dial())
            .await
            .map_err(|e| transient(&e))?;
        let _ = stream.set_nodelay(true);
        let mut request = Request::builder()
            .method(method)
            .uri(&target.path)
            .header(header::HOST, target.authority())
            .header(
                header::USER_AGENT,
                concat!("ask_user/", env!("CARGO_PKG_VERSION")),
            );
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let request = request
            .body(Whole(Some(Bytes::from(body))))
            .map_err(|e| DeliveryError::Permanent(e.to_string()))?;
        let response = if target.tls {
            let connector = ask_user_server::tls::connector().map_err(DeliveryError::Permanent)?;
            let name = ask_user_server::tls::server_name(&target.host)
                .map_err(DeliveryError::Permanent)?;
            let stream = connector
                .connect(name, stream)
                .await
                .map_err(|e| transient(&format!("TLS handshake failed ({e})")))?;
            exchange_on(stream, request, max_bytes).await?
        } else {
            exchange_on(stream, request, max_bytes).await?
        };
        let (status, body) = response;
        let reply = Reply { status, body };
        if (200..300).contains(&status) {
            Ok(reply)
        } else {
            let text = String::from_utf8_lossy(&reply.body);
            let text = ask_user_core::sanitize::one_line(&text, 200);
            let why = format!("HTTP {status}: {text}");
            if (400..500).contains(&status) && status != 408 && status != 429 {
                Err(DeliveryError::Permanent(why))
            } else {
                Err(DeliveryError::Transient(why))
            }
        }
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .unwrap_or_else(|_| {
            Err(DeliveryError::Transient(format!(
                "no response within {} s",
                timeout.as_secs_f64()
            )))
        })
}

async fn exchange_on<I>(
    io: I,
    request: Request<Whole>,
    max_bytes: usize,
) -> Result<(u16, Vec<u8>), DeliveryError>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use http_body::Body as _;
    let transient = |e: &dyn std::fmt::Display| DeliveryError::Transient(e.to_string());
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| transient(&e))?;
    tokio::spawn(connection);
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| transient(&e))?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut read = Vec::new();
    while read.len() < max_bytes {
        match std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    read.extend_from_slice(&data);
                }
            }
            Some(Err(e)) => return Err(transient(&e)),
            None => break,
        }
    }
    read.truncate(max_bytes);
    Ok((status, read))
}

/// A whole request body in one frame (hyper needs a `Body`; the client's
/// own is private to it).
mod http_body_util_lite {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use http_body::{Body, Frame, SizeHint};

    pub struct Whole(pub Option<Bytes>);

    impl Body for Whole {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.0.take().map(|data| Ok(Frame::data(data))))
        }

        fn is_end_stream(&self) -> bool {
            self.0.is_none()
        }

        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.len() as u64))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_read_with_their_defaults() {
        let t = Target::parse("https://ntfy.sh/my-topic").unwrap();
        assert_eq!(
            (t.tls, t.host.as_str(), t.port, t.path.as_str()),
            (true, "ntfy.sh", 443, "/my-topic")
        );
        assert_eq!(t.origin(), "https://ntfy.sh");
        let t = Target::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!((t.port, t.path.as_str()), (8080, "/"));
        assert!(t.is_loopback());
        assert_eq!(t.authority(), "127.0.0.1:8080");
        let t = Target::parse("http://[::1]:9/hook?x=1").unwrap();
        assert_eq!(t.dial(), ("::1".to_string(), 9));
        assert_eq!(t.path, "/hook?x=1");
        assert!(t.is_loopback());
        assert!(Target::parse("http://localhost/x").unwrap().is_loopback());
        assert!(!Target::parse("http://10.0.0.1/x").unwrap().is_loopback());
        assert!(!Target::parse("http://example.com/x").unwrap().is_loopback());
        assert_eq!(Target::parse("http://h?q").unwrap().path, "/?q");
    }

    /// A server that answers every request with `status` (or never, for 0).
    async fn answering(status: u16) -> Target {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(async move {
                    let mut buffer = [0; 4096];
                    let _ = stream.read(&mut buffer).await;
                    if status == 0 {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        return;
                    }
                    // A long body: only its start is kept.
                    let body = "x".repeat(100_000);
                    let head = format!(
                        "HTTP/1.1 {status} S\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(body.as_bytes()).await;
                });
            }
        });
        Target::parse(&format!("http://127.0.0.1:{port}/p")).unwrap()
    }

    #[test]
    fn statuses_are_delivered_transient_or_permanent() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let post = |target: Target, timeout: Duration| async move {
                send(&target, Method::POST, &[], b"{}".to_vec(), timeout).await
            };
            let second = Duration::from_secs(5);
            let reply = post(answering(200).await, second).await.unwrap();
            assert_eq!((reply.status, reply.body.len()), (200, MAX_REPLY_BYTES));
            for status in [500, 503, 408, 429] {
                let failed = post(answering(status).await, second).await;
                assert!(
                    matches!(&failed, Err(DeliveryError::Transient(why)) if why.starts_with(&format!("HTTP {status}: xxx"))),
                    "{status}: {failed:?}"
                );
            }
            for status in [400, 401, 404, 410] {
                let failed = post(answering(status).await, second).await;
                assert!(
                    matches!(&failed, Err(DeliveryError::Permanent(why)) if why.len() < 300),
                    "{status}: {failed:?}"
                );
            }
            let stalled = post(answering(0).await, Duration::from_millis(200)).await;
            assert!(
                matches!(&stalled, Err(DeliveryError::Transient(why)) if why == "no response within 0.2 s"),
                "{stalled:?}"
            );
            // Nothing listens (the port was free a moment ago): transient.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let target = Target::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
            assert!(matches!(
                post(target, second).await,
                Err(DeliveryError::Transient(_))
            ));
        });
    }

    #[test]
    fn bad_targets_are_refused_with_why() {
        for (bad, why) in [
            ("ftp://x/y", "not an http"),
            ("https://user:pw@host/x", "credentials"),
            ("https://host:0/x", "not a port"),
            ("https://host:99999/x", "not a port"),
            ("https:///x", "not a host"),
            ("https://ho st/x", "not a host"),
            ("https://host/x#frag", "fragment"),
            ("https://host/a b", "fragment, space"),
            ("http://[::1/x", "without its ]"),
        ] {
            let err = Target::parse(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }
}
