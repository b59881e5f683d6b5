//! `--fallback inbox`: the question goes to the running inbox (`ask_user
//! inbox`), where the person answers it in the inbox page or from a
//! terminal (`ask_user inbox answer`), and the call waits for the outcome.
//! The source shown beside the question is the MCP client's name.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;

use super::progress::Waiting;
use super::{log, result};
use crate::inbox::asker::{self, AskerOptions, Target};
use crate::inbox::hub::Leaving;
use crate::inbox::metrics::AskingFace;
use crate::inbox::state::Lookup;
use crate::model::Prompt;
use crate::prompt::PromptDocument;

/// Whether an inbox runs (found as askers find it): `--fallback auto`.
pub fn runs() -> bool {
    Lookup::from_env().discover().is_ok()
}

/// Asks in the inbox and waits for the outcome, the timeout (`None`: none
/// of the server's own), the wait (then the question stays open there and
/// the result is pending), or the client's cancel (the inbox keeps the
/// question: a cancel is often the host's own tool timeout).
pub async fn ask_in_inbox(
    prompt: &Prompt,
    timeout: Option<Duration>,
    wait: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    // The inbox reads a prompt document as it reads a tool input.
    let input = match serde_json::to_value(PromptDocument::new(prompt))
        .map_err(|e| e.to_string())
        .and_then(|value| crate::input::into_object(value).map_err(|e| e.to_string()))
    {
        Ok(input) => input,
        Err(e) => {
            return result::error(&crate::error::AskError::InternalError(
                crate::error::Detail::new(format!("the question could not be sent ({e})")),
            ));
        }
    };
    wait_in_inbox(Target::Ask(input), timeout, wait, context).await
}

/// `{"resume": id}`: the outcome of a question asked through the inbox
/// before, at once if it has one, else a wait for it (whichever fallback
/// this server has: only the inbox keeps questions).
pub async fn resume_in_inbox(
    id: String,
    timeout: Option<Duration>,
    wait: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    wait_in_inbox(Target::Resume(id), timeout, wait, context).await
}

async fn wait_in_inbox(
    target: Target,
    timeout: Option<Duration>,
    wait: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let options = AskerOptions {
        lookup: Lookup::from_env(),
        source: asker::local_source(context.client_info().map(|info| info.name)),
        timeout,
        face: AskingFace::Mcp,
    };
    // A client's cancel is often its own tool timeout: the inbox keeps the
    // question. The wait's end keeps it too, and says pending.
    let cancelled = async {
        let wait_ends = async {
            match wait {
                Some(wait) => tokio::time::sleep(wait).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = context.ct.cancelled() => Leaving::Away,
            () = wait_ends => Leaving::Pending,
        }
    };
    let mut waiting = Waiting::new(context, timeout);
    let asked = asker::ask(target, options, cancelled, |id, endpoint| {
        log(format_args!(
            "asked in the inbox ({}/), question {id}",
            endpoint.base
        ))
    });
    tokio::pin!(asked);
    let outcome = loop {
        tokio::select! {
            outcome = &mut asked => break outcome,
            () = waiting.tick() => waiting.report(context, ": answer in the inbox").await,
        }
    };
    match outcome {
        Ok(document) => result::answered(&document),
        Err(err) => result::error(&err),
    }
}
