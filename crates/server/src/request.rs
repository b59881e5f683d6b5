//! A request that passed every check of the server: what an app gets. Its
//! body is read only when the app asks, within the size and time limits.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use http::Method;
use http::request::Parts;
use http_body::Body as _;
use hyper::body::Incoming;

use super::Limits;
use super::guard::{Holder, Rejection, header, query_param};
use super::response::Reply;

/// A request that proved the token (and for a POST, its Origin and JSON).
pub struct Request {
    parts: Parts,
    body: Incoming,
    /// This route's body limit ([`super::App::max_body_bytes`]).
    max_body: usize,
    limits: Arc<Limits>,
    /// Whom its token stands for; `None` on a tokenless route
    /// ([`super::App::tokenless`]) reached without one.
    holder: Option<Holder>,
}

impl Request {
    pub(super) fn new(
        parts: Parts,
        body: Incoming,
        max_body: usize,
        limits: Arc<Limits>,
        holder: Option<Holder>,
    ) -> Self {
        Request {
            parts,
            body,
            max_body,
            limits,
            holder,
        }
    }

    /// Whom the request's token stands for (`None`: no token, on a
    /// tokenless route).
    pub fn holder(&self) -> Option<&Holder> {
        self.holder.as_ref()
    }

    pub fn method(&self) -> &Method {
        &self.parts.method
    }

    /// The path of the request target, without its query.
    pub fn path(&self) -> &str {
        self.parts.uri.path()
    }

    /// A query parameter's raw value.
    pub fn query(&self, name: &str) -> Option<&str> {
        query_param(self.parts.uri.query()?, name)
    }

    /// The value of the one header named `name` (a repeated one counts as absent).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.parts.headers, name)
    }

    /// The request as an [`http::Request`] for an HTTP service (the MCP
    /// SDK's, for `/mcp`), its body read whole first within the same limits
    /// as [`Request::body`]: a service never waits on a slow body itself.
    pub async fn into_http(self) -> Result<http::Request<super::Body>, Reply> {
        let Request {
            parts,
            body,
            max_body,
            limits,
            ..
        } = self;
        let body = read_body(body, max_body, &limits).await?;
        Ok(http::Request::from_parts(
            parts,
            super::Body::Whole(Some(body)),
        ))
    }

    /// The whole body, at most the route's limit ([`Limits::max_body_bytes`]
    /// unless the app says otherwise), arriving within
    /// [`Limits::body_time`]; otherwise the refusal to send (413, 408, 400),
    /// after which the connection closes.
    pub async fn body(self) -> Result<Bytes, Reply> {
        read_body(self.body, self.max_body, &self.limits).await
    }
}

async fn read_body(mut body: Incoming, max: usize, limits: &Limits) -> Result<Bytes, Reply> {
    let read = async {
        let mut bytes = BytesMut::new();
        while let Some(frame) =
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame = frame.map_err(|_| Rejection::BodyUnreadable)?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > max {
                    return Err(Rejection::TooLarge);
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(bytes.freeze())
    };
    match tokio::time::timeout(limits.body_time, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(rejection)) => Err(Reply::refusal(rejection)),
        Err(_) => Err(Reply::refusal(Rejection::BodyTooSlow)),
    }
}
