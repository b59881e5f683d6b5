//! MCP over Streamable HTTP on the inbox (`POST /mcp`): the same `ask_user`
//! tool as `ask_user mcp` over stdio, served by rmcp's own Streamable HTTP
//! service behind the inbox's hardened server ([`ask_user_server`]).
//!
//! The server has already proven every request before it gets here: its
//! Host is the inbox's own (no DNS rebinding), it carries the inbox token
//! (`Authorization: Bearer`), an `Origin`, when sent, is the inbox's own,
//! and its body arrived whole within the size and time limits. rmcp checks
//! Host and Origin once more against the same lists. The token goes in the
//! header only: a `token` in the URL (which the page's own link uses) is
//! refused here with 400, even beside a good bearer, since URLs end up in
//! logs and no MCP host needs it (each sends headers).
//!
//! Stateless, in both protocol eras: the initialize era without sessions
//! (`initialize` is answered, and every later POST stands alone) and
//! 2026-07-28 (`server/discover`, per-request metadata). GET and DELETE are
//! 405: there is no session and no stream to resume. Nothing is kept in
//! memory per client, so no client can fill it.
//!
//! Every question goes to this inbox as an ordinary inbox question (the
//! `--fallback inbox` road of stdio, with forms off): it is listed,
//! answered on the page or with `ask_user inbox answer`, and collected later
//! with `{"resume": ID}`. The asker finds the inbox the way every asker
//! does, through its discovery file, which this very inbox wrote: one road
//! for every face, with the same waits, heartbeats and leave rules.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::server::AskUserServer;
use super::{Fallback, Options};
use crate::inbox::routes::McpEndpoint;
use ask_user_server::guard::Rejection;
use ask_user_server::{Reply, Request};

pub use crate::inbox::routes::{MCP_MAX_BODY_BYTES as MAX_BODY_BYTES, MCP_PATH as PATH};

/// `/mcp` on the inbox, which answers to `sites` (its Host and Origin checks).
pub struct McpHttp {
    service: StreamableHttpService<AskUserServer, NeverSessionManager>,
}

impl McpHttp {
    pub fn new(sites: &[ask_user_server::Site]) -> McpHttp {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_allowed_hosts(sites.iter().map(|site| site.authority.clone()))
            .with_allowed_origins(sites.iter().map(|site| site.origin.clone()))
            .enforce_origin_validation()
            .with_max_request_body_bytes(MAX_BODY_BYTES);
        let service = StreamableHttpService::new(
            || Ok(AskUserServer::new(options())),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        McpHttp { service }
    }

    /// The inbox's `/mcp` ([`crate::inbox::ServeOptions::mcp`]).
    pub fn endpoint(sites: &[ask_user_server::Site]) -> Box<dyn McpEndpoint> {
        Box::new(McpHttp::new(sites))
    }

    /// One request to `/mcp` (any method), already proven by the server.
    pub async fn respond(&self, request: Request) -> Reply {
        if request.query("token").is_some() {
            return Reply::refusal(Rejection::TokenInUrl);
        }
        match request.into_http().await {
            Ok(request) => Reply::from_http(self.service.handle(request).await),
            Err(refusal) => refusal,
        }
    }
}

impl McpEndpoint for McpHttp {
    fn respond(&self, request: Request) -> Pin<Box<dyn Future<Output = Reply> + Send + '_>> {
        Box::pin(McpHttp::respond(self, request))
    }
}

/// The tool's options on `/mcp`: the stdio defaults, except that the
/// question always goes to this inbox. Forms are off: a stateless server
/// cannot send `elicitation/create`, and a form shown by one host would
/// bypass the inbox that every agent on HTTP shares.
fn options() -> Options {
    Options {
        fallback: Fallback::Inbox,
        elicitation: false,
        ..Options::default()
    }
}
