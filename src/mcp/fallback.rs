//! When the client cannot show a form: relay the prompt, ask on the
//! terminal, or say so (`--fallback prompt|tty|error`).

use std::time::Duration;

use rmcp::model::CallToolResult;

use super::{Fallback, result};
use crate::answer::AnswerDocument;
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::prompt::PromptDocument;

pub async fn reach_person(
    fallback: Fallback,
    prompt: &Prompt,
    timeout: Duration,
) -> CallToolResult {
    match fallback {
        Fallback::Prompt => result::relay(&PromptDocument::new(prompt)),
        Fallback::Error => result::error(&AskError::NoElicitation(Detail::new(
            "this MCP client cannot show a form to the person (it declared no form elicitation); ask them the question in the chat instead",
        ))),
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
