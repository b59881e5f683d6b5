//! What the server sends: every response carries the same protective headers
//! (a locked CSP unless it is a page with its own nonce policy, no-store,
//! nosniff, no framing, no referrer, same-origin isolation). Bodies are whole
//! or streamed (server-sent events, or an HTTP service's own stream: the
//! inbox's `/mcp`).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use http_body::{Frame, SizeHint};
use serde::Serialize;
use tokio::sync::mpsc;

use super::guard::Rejection;

/// For everything that is not a page: nothing may load, nothing may frame it.
pub const LOCKED_CSP: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// One response, before it becomes HTTP.
pub struct Reply {
    status: u16,
    content_type: &'static str,
    /// A page's own policy; every other response gets [`LOCKED_CSP`].
    csp: Option<String>,
    body: Body,
    /// Close the connection after this response (refusals do).
    close: bool,
    /// Headers of an HTTP service's own response ([`Reply::from_http`]):
    /// sent as they are, except those this module sets.
    headers: HeaderMap,
}

impl Reply {
    /// An HTML page whose one script and one style carry `nonce`.
    pub fn page(html: String, nonce: &str) -> Self {
        Reply {
            status: 200,
            content_type: "text/html; charset=utf-8",
            csp: Some(format!(
                "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; \
                 connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            )),
            body: Body::Whole(Some(Bytes::from(html))),
            close: false,
            headers: HeaderMap::new(),
        }
    }

    /// [`Reply::page`] for an installable app page: it may also register a
    /// service worker, read its web app manifest and show images, all from
    /// its own origin only (the inbox's phone page, crates/inbox/src/phone.rs).
    pub fn app_page(html: String, nonce: &str) -> Self {
        let mut reply = Reply::page(html, nonce);
        reply.csp = Some(format!(
            "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; \
             connect-src 'self'; img-src 'self'; manifest-src 'self'; worker-src 'self'; \
             base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ));
        reply
    }

    /// A file built into the binary (a script, a manifest, an icon), with
    /// the locked policy, or `csp` (a service worker runs under its own
    /// script's policy: it needs `connect-src 'self'` to fill its cache).
    pub fn asset(content_type: &'static str, bytes: &'static [u8], csp: Option<&str>) -> Self {
        Reply {
            status: 200,
            content_type,
            csp: csp.map(str::to_string),
            body: Body::Whole(Some(Bytes::from_static(bytes))),
            close: false,
            headers: HeaderMap::new(),
        }
    }

    /// A JSON document on one line.
    pub fn json<T: Serialize>(status: u16, value: &T) -> Self {
        Reply::whole(
            status,
            "application/json",
            ask_user_core::document_line(value).into_bytes(),
        )
    }

    /// A line of plain text.
    pub fn text(status: u16, message: &str) -> Self {
        Reply::whole(
            status,
            "text/plain; charset=utf-8",
            format!("{message}\n").into_bytes(),
        )
    }

    /// Metrics in the Prometheus text format (version 0.0.4).
    pub fn prometheus(text: String) -> Self {
        Reply::whole(
            200,
            "text/plain; version=0.0.4; charset=utf-8",
            text.into_bytes(),
        )
    }

    /// A stream of server-sent events: each item received is sent as it is
    /// (already framed as `data: …\n\n`); the stream ends when every sender is
    /// dropped or the server stops.
    pub fn events(events: mpsc::Receiver<Bytes>) -> Self {
        Reply {
            status: 200,
            content_type: "text/event-stream",
            csp: None,
            body: Body::Stream(events),
            close: false,
            headers: HeaderMap::new(),
        }
    }

    /// An HTTP service's own response (the MCP SDK's, for `/mcp`): its
    /// status, headers and body as they are, with this module's protective
    /// headers on top.
    pub fn from_http<B>(response: http::Response<B>) -> Self
    where
        B: http_body::Body<Data = Bytes, Error = Infallible> + Send + 'static,
    {
        let (parts, body) = response.into_parts();
        let mut headers = parts.headers;
        let content_type = match headers.remove(header::CONTENT_TYPE) {
            Some(value) if value == "application/json" => "application/json",
            Some(value) if value == "text/event-stream" => "text/event-stream",
            Some(_) | None => "text/plain; charset=utf-8",
        };
        Reply {
            status: parts.status.as_u16(),
            content_type,
            csp: None,
            body: Body::Service(Box::pin(body)),
            close: false,
            headers,
        }
    }

    /// The refusal for `rejection`; the connection closes after it.
    pub fn refusal(rejection: Rejection) -> Self {
        Reply::text(rejection.status(), rejection.message()).closing()
    }

    /// Adds a header (`Retry-After`, say); the protective headers this
    /// module sets win over one of the same name.
    pub fn with_header(mut self, name: header::HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Closes the connection once this response is sent.
    /// The same reply with another status (a page that says a link is
    /// closed: 410).
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    pub fn closing(mut self) -> Self {
        self.close = true;
        self
    }

    pub fn status(&self) -> u16 {
        self.status
    }

    fn whole(status: u16, content_type: &'static str, bytes: Vec<u8>) -> Self {
        Reply {
            status,
            content_type,
            csp: None,
            body: Body::Whole(Some(Bytes::from(bytes))),
            close: false,
            headers: HeaderMap::new(),
        }
    }

    /// The HTTP response, with every protective header.
    pub fn into_response(self) -> http::Response<Body> {
        let csp = self.csp.as_deref().unwrap_or(LOCKED_CSP);
        let mut response = http::Response::new(self.body);
        *response.status_mut() =
            StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        *response.headers_mut() = self.headers;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.content_type),
        );
        if let Ok(csp) = HeaderValue::from_str(csp) {
            headers.insert(header::CONTENT_SECURITY_POLICY, csp);
        }
        for (name, value) in [
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "no-referrer"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        for (name, value) in [
            ("cross-origin-opener-policy", "same-origin"),
            ("cross-origin-resource-policy", "same-origin"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        if self.close {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// A response body: whole, a stream that ends when its senders are gone, or
/// an HTTP service's own body.
pub enum Body {
    Whole(Option<Bytes>),
    Stream(mpsc::Receiver<Bytes>),
    Service(Pin<Box<dyn http_body::Body<Data = Bytes, Error = Infallible> + Send>>),
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Stream(events) => events.poll_recv(cx).map(|e| e.map(|b| Ok(Frame::data(b)))),
            Body::Service(body) => body.as_mut().poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Body::Whole(bytes) => bytes.is_none(),
            Body::Stream(_) => false,
            Body::Service(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Whole(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Body::Stream(_) => SizeHint::default(),
            Body::Service(body) => body.size_hint(),
        }
    }
}

/// A fresh nonce for a page's CSP (128 bits of OS randomness, hex).
pub fn nonce() -> Result<String, getrandom::Error> {
    super::guard::random_hex(16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    fn header<'r>(response: &'r http::Response<Body>, name: &str) -> Option<&'r str> {
        response.headers().get(name).and_then(|v| v.to_str().ok())
    }

    #[test]
    fn every_response_is_locked_down() {
        for reply in [
            Reply::text(404, "not found"),
            Reply::json(200, &serde_json::json!({"a": 1})),
            Reply::refusal(Rejection::BadToken),
        ] {
            let response = reply.into_response();
            assert_eq!(
                header(&response, "content-security-policy"),
                Some(LOCKED_CSP)
            );
            assert_eq!(header(&response, "cache-control"), Some("no-store"));
            assert_eq!(header(&response, "x-content-type-options"), Some("nosniff"));
            assert_eq!(header(&response, "x-frame-options"), Some("DENY"));
            assert_eq!(header(&response, "referrer-policy"), Some("no-referrer"));
            assert_eq!(
                header(&response, "cross-origin-opener-policy"),
                Some("same-origin")
            );
            assert_eq!(
                header(&response, "cross-origin-resource-policy"),
                Some("same-origin")
            );
        }
    }

    #[test]
    fn a_page_has_its_nonce_policy_and_refusals_close() {
        let response = Reply::page("<p>".into(), "abc").into_response();
        let csp = header(&response, "content-security-policy").unwrap();
        assert!(csp.contains("script-src 'nonce-abc'") && csp.contains("style-src 'nonce-abc'"));
        assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"));
        assert_eq!(header(&response, "connection"), None);
        assert_eq!(
            header(&response, "content-type"),
            Some("text/html; charset=utf-8")
        );

        let refused = Reply::refusal(Rejection::TooLarge).into_response();
        assert_eq!(refused.status(), 413);
        assert_eq!(header(&refused, "connection"), Some("close"));
        assert_eq!(
            Reply::text(200, "x").closing().into_response().headers()["connection"],
            "close"
        );
    }

    #[test]
    fn nonces_are_fresh_128_bit_hex() {
        let (a, b) = (nonce().unwrap(), nonce().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn bodies_give_their_bytes_and_end() {
        let mut body = Reply::text(200, "hi").into_response().into_body();
        assert_eq!(body.size_hint().exact(), Some(3));
        assert!(!body.is_end_stream());
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let Poll::Ready(Some(Ok(frame))) = Pin::new(&mut body).poll_frame(&mut cx) else {
            panic!("a frame");
        };
        assert_eq!(frame.into_data().unwrap(), Bytes::from_static(b"hi\n"));
        assert!(body.is_end_stream());
        assert_eq!(body.size_hint().exact(), Some(0));
        assert!(matches!(
            Pin::new(&mut body).poll_frame(&mut cx),
            Poll::Ready(None)
        ));

        let (send, receive) = mpsc::channel(2);
        let mut events = Reply::events(receive).into_response();
        assert_eq!(header(&events, "content-type"), Some("text/event-stream"));
        let body = events.body_mut();
        assert!(!body.is_end_stream());
        assert_eq!(body.size_hint().exact(), None);
        assert!(Pin::new(&mut *body).poll_frame(&mut cx).is_pending());
        send.try_send(Bytes::from_static(b"data: 1\n\n")).unwrap();
        let Poll::Ready(Some(Ok(frame))) = Pin::new(&mut *body).poll_frame(&mut cx) else {
            panic!("an event");
        };
        assert_eq!(
            frame.into_data().unwrap(),
            Bytes::from_static(b"data: 1\n\n")
        );
        drop(send);
        assert!(matches!(
            Pin::new(&mut *body).poll_frame(&mut cx),
            Poll::Ready(None)
        ));
    }
}
