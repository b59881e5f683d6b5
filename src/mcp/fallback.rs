//! When the client cannot show a form: relay the prompt, ask on the
//! terminal or on the local answer page, or say so
//! (`--fallback prompt|tty|web|error`).

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;

use super::{Fallback, Options, page, result};
use crate::answer::AnswerDocument;
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::prompt::PromptDocument;

/// `log_notices`: whether the client may get a log notice (see [`page::wants_notices`]).
pub async fn reach_person(
    options: &Options,
    prompt: &Prompt,
    timeout: Duration,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> CallToolResult {
    match options.fallback {
        Fallback::Prompt => result::relay(&PromptDocument::new(prompt)),
        Fallback::Error => result::error(&AskError::NoElicitation(Detail::new(
            "this MCP client cannot show a form to the person (it declared no form elicitation); ask them the question in the chat instead",
        ))),
        Fallback::Web => page::ask_on_page(options, prompt, timeout, context, log_notices).await,
        Fallback::Tty => {
            let prompt = prompt.clone();
            // The terminal face blocks on a person: keep it off the protocol thread.
            let asked = tokio::task::spawn_blocking(move || ask_on_tty(&prompt, timeout)).await;
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

/// Asks on the terminal of the machine the server runs on (NO_TTY when it
/// has none). A `notifications/cancelled` cannot interrupt a person mid-form:
/// the form ends by answer, Esc, Ctrl-C or the timeout.
pub fn ask_on_tty(prompt: &Prompt, timeout: Duration) -> Result<AnswerDocument, AskError> {
    let terminal = crate::tty::Terminal::open()?;
    crate::tty::ask(terminal, prompt, Some(timeout))
}
