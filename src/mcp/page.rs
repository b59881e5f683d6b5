//! `--fallback web`: the person answers on the local page that `ask --ui web`
//! serves. The page's address (with its token) reaches them three ways: the
//! server's stderr (clients keep it in their MCP logs), a log notice to the
//! client, and the message of the call's progress notifications.

// MCP logging is deprecated by SEP-2577 yet is what handshake-era clients
// without forms (the ones this fallback is for) show or log.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{CallToolResult, LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::RequestContext;

use super::progress::Waiting;
use super::{Options, log, result};
use crate::answer::{AnswerDocument, Unanswered};
use crate::model::Prompt;
use crate::web::{WebOptions, WebSession, open_in_browser};

/// The logger name on our log notices.
const LOGGER: &str = "ask_user";

/// Serves the page until the person answers or cancels there, the timeout
/// passes, or the client cancels the call; the port is closed on every way out.
pub async fn ask_on_page(
    options: &Options,
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> CallToolResult {
    let web = WebOptions {
        port: options.port,
        open_browser: options.open_browser,
        timeout,
        // The client's cancel drops the page's future below, which closes it.
        interrupt: None,
    };
    let session = match WebSession::start(prompt, &web) {
        Ok(session) => session,
        Err(err) => return result::error(&err),
    };
    let url = session.url();
    log(format_args!("answer in your browser: {url}"));
    if web.open_browser {
        open_in_browser(&url);
    }
    if log_notices {
        let notice = LoggingMessageNotificationParam::new(
            LoggingLevel::Notice,
            format!("ask_user: the person can answer in a browser at {url}").into(),
        )
        .with_logger(LOGGER);
        let _ = context.peer.notify_logging_message(notice).await;
    }
    let where_to = format!(": answer in your browser at {url}");
    let mut waiting = Waiting::new(context, timeout);
    waiting.report(context, &where_to).await;

    // The page is served on this runtime, beside the protocol. Should this
    // call be dropped (the server shutting down), the page's port closes too.
    let page = session.run();
    tokio::pin!(page);
    let ended = loop {
        tokio::select! {
            ended = &mut page => break ended,
            () = context.ct.cancelled() => {
                // The client gave up on this call. Dropping the page closes its
                // port at once; rmcp sends no response for a cancelled request.
                return result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled));
            }
            () = waiting.tick() => waiting.report(context, &where_to).await,
        }
    };
    match ended {
        Ok(outcome) => result::answered(&outcome.document),
        Err(err) => result::error(&err),
    }
}

/// Whether this call may get a notice-level log message: on 2026-07-28 only
/// when the request opted in with a level at or below notice; before that,
/// unless `logging/setLevel` asked for less (`muted`).
pub fn wants_notices(context: &RequestContext<RoleServer>, muted: bool) -> bool {
    let modern = context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize());
    if modern {
        context.meta.log_level().is_some_and(shows_notices)
    } else {
        !muted
    }
}

/// Whether a client asking for `level` and above wants notices.
pub fn shows_notices(level: LoggingLevel) -> bool {
    matches!(
        level,
        LoggingLevel::Debug | LoggingLevel::Info | LoggingLevel::Notice
    )
}
