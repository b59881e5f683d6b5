//! A form the client has not answered within `--wait`: some
//! clients declare form elicitation and never show the form (Claude
//! Desktop), and drop the call at their own timer. So when the wait ends
//! first, the question is handed over to the `--fallback` road: into the
//! inbox (`inbox`, or `auto` with one running) or onto a page this process
//! keeps (`web`, or `auto` with none), and the call returns the same
//! pending document those roads return, with the id `{"resume": id}` takes.
//!
//! The form stays open meanwhile, watched in the background. The first
//! outcome wins wherever it comes from:
//!
//! - a form answered later answers the inbox question (the page's own
//!   route, so the inbox's history has it like any answer) or the kept page;
//!   if the person answered there first, the form's answer changes nothing;
//! - a late explicit decline counts as the outcome (the person said no);
//! - a late cancel of the form does not: the host gave up on the form, not
//!   the person on the question, which stays open;
//! - an outcome there first (an answer, a cancel, a timeout) withdraws the
//!   form (`notifications/cancelled` for it); so does the question's own
//!   time limit.
//!
//! `--fallback prompt`, `error` and `tty` have no pending document: past
//! the wait the form is withdrawn and the fallback answers the call, as
//! for a client without forms.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ClientResult, ElicitResult, ElicitationAction};
use rmcp::service::{RequestContext, RequestHandle, ServiceError};

use super::form::Form;
use super::kept::Kept;
use super::{Fallback, Options, inbox, log, page, result};
use crate::answer::{AnswerDocument, Unanswered};
use crate::model::Prompt;

/// The form request still out with the client.
pub type FormRequest = RequestHandle<RoleServer>;

/// Where a question goes when its form was not answered within the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Road {
    Inbox,
    Page,
    /// The fallback answers the call (prompt, error, tty): no pending document.
    Fallback,
}

impl Road {
    /// The road `fallback` takes; `inbox_runs` is asked only for `auto`.
    pub fn of(fallback: Fallback, inbox_runs: impl FnOnce() -> bool) -> Road {
        match fallback {
            Fallback::Inbox => Road::Inbox,
            Fallback::Web => Road::Page,
            Fallback::Auto if inbox_runs() => Road::Inbox,
            Fallback::Auto => Road::Page,
            Fallback::Prompt | Fallback::Error | Fallback::Tty => Road::Fallback,
        }
    }
}

/// Where the handed-over question waits, for the form's watcher.
enum Held {
    Inbox {
        id: String,
        source: crate::inbox::store::Source,
    },
    Page {
        kept: Kept,
        id: String,
    },
}

/// Hands the question over to `road` (not [`Road::Fallback`]) with `form`
/// still open; returns the pending document, or the error that kept the
/// question from its road (the form is withdrawn then).
/// `timeout`: what is left of the question's own time limit.
#[allow(clippy::too_many_arguments)]
pub async fn hand_over(
    road: Road,
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    form: Form,
    request: FormRequest,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
    log_notices: bool,
) -> CallToolResult {
    log(format_args!(
        "the client did not answer the form within the wait; handing the question over to {}",
        if road == Road::Inbox {
            "the inbox"
        } else {
            "the answer page"
        }
    ));
    let (held, document) = if road == Road::Inbox {
        match inbox::hand_over(prompt, timeout, context).await {
            Ok(document) => match document.inbox_id.clone().filter(|_| document.pending) {
                Some(id) => {
                    let source = inbox::source_of(context);
                    (Held::Inbox { id, source }, document)
                }
                // Not pending (the client cancelled the call meanwhile): that is the outcome.
                None => {
                    withdraw(request, "the question ended").await;
                    return result::answered(&document);
                }
            },
            Err(err) => {
                withdraw(request, "the question could not be handed over").await;
                return result::error(&err);
            }
        }
    } else {
        match page::keep_page(options, kept, prompt, timeout, context, log_notices).await {
            Ok((kept_page, _)) => {
                let document = page::pending_document(&kept_page.id);
                let held = Held::Page {
                    kept: kept.clone(),
                    id: kept_page.id,
                };
                (held, document)
            }
            Err(err) => {
                withdraw(request, "the question could not be handed over").await;
                return result::error(&err);
            }
        }
    };
    tokio::spawn(watch(request, prompt.clone(), form, held, timeout));
    result::answered(&document)
}

/// Sends `notifications/cancelled` for the form: nothing waits for it any more.
async fn withdraw(request: FormRequest, why: &str) {
    log(format_args!("the form is withdrawn: {why}"));
    if let Err(err) = request.cancel(Some(why.to_string())).await {
        log(format_args!("the client was not told ({err})"));
    }
}

/// Waits for whichever comes first: the form's reply, the question's
/// outcome where it was handed over, or the question's time limit.
async fn watch(
    mut request: FormRequest,
    prompt: Prompt,
    form: Form,
    held: Held,
    timeout: Option<Duration>,
) {
    let decided_there = async {
        match &held {
            Held::Inbox { id, source } => inbox::outcome(id, source.clone()).await,
            Held::Page { kept, id } => {
                kept.wait(id, None).await;
            }
        }
    };
    let time_is_up = async {
        match timeout {
            Some(timeout) => tokio::time::sleep(timeout).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        reply = &mut request.rx => {
            let Some(document) = late_outcome(&prompt, &form, reply) else {
                return;
            };
            settle(&held, &prompt, document).await;
        }
        () = decided_there => withdraw(request, "the question was decided elsewhere").await,
        () = time_is_up => withdraw(request, "ask_user timed out waiting for the person").await,
    }
}

type Reply = Result<Result<ClientResult, ServiceError>, tokio::sync::oneshot::error::RecvError>;

/// What a form reply after the pending document decides: an answer or a
/// decline; `None` (the question stays open) for a cancel, a reply that
/// answers nothing, or no reply at all.
fn late_outcome(prompt: &Prompt, form: &Form, reply: Reply) -> Option<AnswerDocument> {
    let reply: ElicitResult = match reply {
        Ok(Ok(ClientResult::ElicitResult(reply))) => reply,
        Ok(Ok(other)) => {
            log(format_args!(
                "the client answered the form with something else ({other:?}); the question stays open"
            ));
            return None;
        }
        Ok(Err(err)) => {
            log(format_args!(
                "the client ended the form ({err}); the question stays open"
            ));
            return None;
        }
        Err(_) => return None,
    };
    match reply.action {
        ElicitationAction::Accept => match form.read(prompt, reply.content.as_ref()) {
            Ok(document) => Some(document),
            Err(err) => {
                log(format_args!(
                    "the form's late reply answers nothing ({}); the question stays open",
                    err.document().error.message
                ));
                None
            }
        },
        ElicitationAction::Decline => Some(AnswerDocument::unanswered(Unanswered::Declined)),
        // The host gave up on the form, not the person on the question.
        _ => {
            log(format_args!(
                "the client cancelled the form after the wait; the question stays open"
            ));
            None
        }
    }
}

/// Decides the handed-over question with the form's outcome, unless an
/// outcome came first (then this one changes nothing).
async fn settle(held: &Held, prompt: &Prompt, document: AnswerDocument) {
    let decided = match held {
        Held::Page { kept, id } => match kept.settle(id, document) {
            Some(true) => Ok(()),
            Some(false) => Err(format!("the question {id} had an outcome already")),
            None => Err(format!("the question {id} is no longer kept")),
        },
        Held::Inbox { id, .. } => inbox::decide(id, prompt, &document).await,
    };
    match decided {
        Ok(()) => log(format_args!("the form's late reply decided the question")),
        Err(why) => log(format_args!("the form's late reply changes nothing: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::kept::Waited;

    fn prompt(input: &str) -> Prompt {
        crate::input::parse(input.as_bytes()).expect("a valid input")
    }

    #[test]
    fn the_road_after_the_wait_is_the_fallbacks() {
        let never = || panic!("only auto looks for an inbox");
        assert_eq!(Road::of(Fallback::Inbox, never), Road::Inbox);
        assert_eq!(Road::of(Fallback::Web, never), Road::Page);
        assert_eq!(Road::of(Fallback::Auto, || true), Road::Inbox);
        assert_eq!(Road::of(Fallback::Auto, || false), Road::Page);
        for fallback in [Fallback::Prompt, Fallback::Error, Fallback::Tty] {
            assert_eq!(Road::of(fallback, never), Road::Fallback);
        }
    }

    #[test]
    fn only_an_answer_or_a_decline_decides_after_the_wait() {
        let p = prompt(r#"{"question":"Go?","options":["yes","no"]}"#);
        let form = Form::new(&p, super::super::form::Dialect::Titled);
        let reply = |action, content| -> Reply {
            let mut reply = ElicitResult::new(action);
            reply.content = content;
            Ok(Ok(ClientResult::ElicitResult(reply)))
        };
        let answered = late_outcome(
            &p,
            &form,
            reply(
                ElicitationAction::Accept,
                Some(serde_json::json!({"q1": "2"})),
            ),
        )
        .expect("an answer");
        assert!(answered.answered, "{answered:?}");
        assert_eq!(answered.answers[0].values, ["no"]);
        let declined = late_outcome(&p, &form, reply(ElicitationAction::Decline, None));
        assert_eq!(
            declined,
            Some(AnswerDocument::unanswered(Unanswered::Declined))
        );
        // The host's cancel, an accept that answers nothing, a closed connection: still open.
        assert_eq!(
            late_outcome(&p, &form, reply(ElicitationAction::Cancel, None)),
            None
        );
        assert_eq!(
            late_outcome(&p, &form, reply(ElicitationAction::Accept, None)),
            None
        );
        let failed: Reply = Ok(Err(ServiceError::Cancelled { reason: None }));
        assert_eq!(late_outcome(&p, &form, failed), None);
    }

    #[tokio::test]
    async fn a_late_answer_settles_a_kept_page_once() {
        let p = prompt(r#"{"question":"Go?","options":["yes","no"]}"#);
        let kept = Kept::default();
        let web = crate::web::WebOptions {
            port: None,
            open_browser: false,
            timeout: None,
            interrupt: None,
        };
        let page = kept.start_page(&p, &web).unwrap();
        let held = Held::Page {
            kept: kept.clone(),
            id: page.id.clone(),
        };
        let first = AnswerDocument::unanswered(Unanswered::Declined);
        settle(&held, &p, first.clone()).await;
        assert_eq!(kept.peek(&page.id), Some(Waited::Done(first.clone())));
        // A second outcome changes nothing: the first wins.
        settle(&held, &p, AnswerDocument::unanswered(Unanswered::Cancelled)).await;
        assert_eq!(kept.peek(&page.id), Some(Waited::Done(first)));
    }
}
