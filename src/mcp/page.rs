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

use super::kept::{self, Kept, KeptPage, Waited};
use super::progress::Waiting;
use super::{Options, log, result};
use crate::answer::{AnswerDocument, Unanswered};
use crate::model::Prompt;
use crate::web::{WebOptions, WebSession};
use ask_user_platform::paths::open_in_browser;

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
    // The client's cancel drops the page's future below, which closes it.
    let web = page_options(options, timeout);
    let session = match WebSession::start(prompt, &web) {
        Ok(session) => session,
        Err(err) => return result::error(&err),
    };
    let url = session.url();
    let where_to = announce(&url, web.open_browser, context, log_notices).await;
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

/// Tells the person where the page is (stderr, the browser opener, a log
/// notice); returns the progress messages' tail naming it.
async fn announce(
    url: &str,
    open_browser: bool,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> String {
    log(format_args!("answer in your browser: {url}"));
    if open_browser {
        open_in_browser(url);
    }
    if log_notices {
        let notice = LoggingMessageNotificationParam::new(
            LoggingLevel::Notice,
            format!("ask_user: the person can answer in a browser at {url}").into(),
        )
        .with_logger(LOGGER);
        let _ = context.peer.notify_logging_message(notice).await;
    }
    format!(": answer in your browser at {url}")
}

/// `--wait`: the page is kept by this process ([`Kept`]), so it outlives
/// the call. Waits up to `wait` for its outcome; then the result is a
/// pending document naming the id a later `{"resume": id}` gives. The
/// client's cancel still closes the page: with a wait below the host's
/// timer, a cancel is the person's or the model's, not a timeout's.
#[allow(clippy::too_many_arguments)]
pub async fn ask_on_kept_page(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    timeout: Option<Duration>,
    wait: Duration,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> CallToolResult {
    let (page, where_to) =
        match keep_page(options, kept, prompt, timeout, context, log_notices).await {
            Ok(kept) => kept,
            Err(err) => return result::error(&err),
        };
    wait_for_kept(kept, &page.id, wait, context, &where_to)
        .await
        .unwrap_or_else(|| closed(&page.id))
}

/// Starts the question's page, kept by this process ([`Kept`]), and tells
/// the person where it is (stderr, `--open`, a log notice); the page and
/// the progress messages' tail naming it.
pub async fn keep_page(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> Result<(KeptPage, String), crate::error::AskError> {
    let web = page_options(options, timeout);
    let page = kept.start_page(prompt, &web)?;
    let where_to = announce(&page.url, web.open_browser, context, log_notices).await;
    Ok((page, where_to))
}

/// The pending document for kept question `id`: still open, and how to collect it.
pub fn pending_document(id: &str) -> AnswerDocument {
    AnswerDocument::pending(id, kept::resume_hint(id))
}

/// `{"resume": id}` for a question this process keeps: its outcome, or a
/// wait for it up to `wait` (`None`: until the outcome), then pending
/// again. `None` when this process keeps no such question.
pub async fn resume_kept(
    kept: &Kept,
    id: &str,
    wait: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> Option<CallToolResult> {
    // An outcome at once, with no progress or notices.
    match kept.peek(id)? {
        Waited::Done(document) => return Some(result::answered(&document)),
        Waited::Open => {}
    }
    let where_to = ": answer in your browser (the page given before)";
    match wait {
        Some(wait) => wait_for_kept(kept, id, wait, context, where_to).await,
        None => {
            let waited = kept.wait(id, None);
            tokio::select! {
                waited = waited => waited.map(|waited| outcome(id, waited)),
                () = context.ct.cancelled() => {
                    kept.close(id);
                    Some(result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled)))
                }
            }
        }
    }
}

async fn wait_for_kept(
    kept: &Kept,
    id: &str,
    wait: Duration,
    context: &RequestContext<RoleServer>,
    where_to: &str,
) -> Option<CallToolResult> {
    let mut waiting = Waiting::new(context, Some(wait));
    let waited = kept.wait(id, Some(wait));
    tokio::pin!(waited);
    loop {
        tokio::select! {
            waited = &mut waited => return waited.map(|waited| outcome(id, waited)),
            () = context.ct.cancelled() => {
                // The client gave up on this call: close the page (its port
                // at once), as without a wait. rmcp sends no response.
                kept.close(id);
                return Some(result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled)));
            }
            () = waiting.tick() => waiting.report(context, where_to).await,
        }
    }
}

fn outcome(id: &str, waited: Waited) -> CallToolResult {
    match waited {
        Waited::Done(document) => result::answered(&document),
        Waited::Open => result::answered(&pending_document(id)),
    }
}

/// A kept page forgotten under the call (past [`kept::MAX_KEPT`]).
fn closed(id: &str) -> CallToolResult {
    log(format_args!("the kept question {id} was forgotten"));
    result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled))
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

/// The answer page as `--port` and `--open` ask, for `timeout`. No
/// interrupt: the call's own cancel (or the kept page's end) closes it.
fn page_options(options: &Options, timeout: Option<Duration>) -> WebOptions {
    WebOptions {
        port: options.port,
        open_browser: options.open_browser,
        timeout,
        interrupt: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Notices are wanted at notice level and below it, not above.
    #[test]
    fn notices_are_shown_at_notice_and_more_verbose_levels() {
        use LoggingLevel::*;
        for level in [Debug, Info, Notice] {
            assert!(shows_notices(level), "{level:?}");
        }
        for level in [Warning, Error, Critical, Alert, Emergency] {
            assert!(!shows_notices(level), "{level:?}");
        }
    }

    /// A kept page forgotten under its call (past `MAX_KEPT`) ends the call
    /// as cancelled: a document, never an empty result.
    #[test]
    fn a_page_forgotten_under_its_call_gives_the_cancelled_document() {
        let result = closed("abcd1234");
        assert_eq!(result.is_error, Some(false));
        let document = result.structured_content.expect("a document");
        assert_eq!(document["cancelled"], true, "{document}");
        assert_eq!(document["answered"], false, "{document}");
        assert_eq!(document["status"], "ok", "{document}");
    }
}
