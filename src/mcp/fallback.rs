//! When the client cannot show a form: relay the prompt, ask on the
//! terminal, on the local answer page or in the inbox, or say so
//! (`--fallback prompt|tty|web|inbox|auto|error`). With `--wait`, the page
//! and the inbox return a pending document when the wait ends first.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;

use super::kept::Kept;
use super::{Fallback, Options, inbox, page, result};
use crate::answer::{AnswerDocument, Unanswered};
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::prompt::PromptDocument;

/// `log_notices`: whether the client may get a log notice (see [`page::wants_notices`]).
/// `kept`: where a page outlives a call whose wait ended first.
pub async fn reach_person(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> CallToolResult {
    match options.fallback {
        Fallback::Prompt => result::relay(&PromptDocument::new(prompt)),
        Fallback::Error => result::error(&AskError::NoElicitation(Detail::new(
            "this MCP client cannot show a form to the person (it declared no form elicitation); ask them the question in the chat instead",
        ))),
        Fallback::Web => on_page(options, kept, prompt, timeout, context, log_notices).await,
        Fallback::Inbox => inbox::ask_in_inbox(prompt, timeout, options.wait, context).await,
        Fallback::Auto if inbox::runs() => {
            inbox::ask_in_inbox(prompt, timeout, options.wait, context).await
        }
        Fallback::Auto => on_page(options, kept, prompt, timeout, context, log_notices).await,
        Fallback::Tty => {
            let prompt = prompt.clone();
            let stop = Arc::new(AtomicBool::new(false));
            let stop_form = Arc::clone(&stop);
            // The terminal face blocks on a person: keep it off the protocol thread.
            let mut form =
                tokio::task::spawn_blocking(move || ask_on_tty(&prompt, timeout, Some(stop_form)));
            let asked = tokio::select! {
                asked = &mut form => asked,
                () = context.ct.cancelled() => {
                    // The client gave up on this call: end the form (the
                    // terminal is restored within the poll interval) before
                    // saying so. rmcp sends no response for a cancelled request.
                    stop.store(true, Ordering::SeqCst);
                    let _ = form.await;
                    return result::answered(&AnswerDocument::unanswered(Unanswered::Cancelled));
                }
            };
            match asked {
                Ok(Ok(document)) => result::answered(&document),
                Ok(Err(err)) => result::error(&err),
                Err(join) => result::error(&AskError::InternalError(Detail::new(format!(
                    "the terminal fallback stopped unexpectedly ({join})"
                )))),
            }
        }
    }
}

/// The answer page: kept by this process past the call when there is a
/// wait, else served for the length of the call.
async fn on_page(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> CallToolResult {
    match options.wait {
        Some(wait) => {
            page::ask_on_kept_page(options, kept, prompt, timeout, wait, context, log_notices).await
        }
        None => page::ask_on_page(options, prompt, timeout, context, log_notices).await,
    }
}

/// Asks on the terminal of the machine the server runs on (NO_TTY when it
/// has none). Setting `stop` ends the form as cancelled, with the terminal
/// restored, as Esc does. `timeout` `None`: no limit.
pub fn ask_on_tty(
    prompt: &Prompt,
    timeout: Option<Duration>,
    stop: Option<Arc<AtomicBool>>,
) -> Result<AnswerDocument, AskError> {
    let mut terminal = crate::tty::Terminal::open()?;
    if let Some(stop) = stop {
        terminal.stop_when(stop);
    }
    crate::tty::ask(terminal, prompt, timeout)
}
