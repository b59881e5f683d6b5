//! URL-mode elicitation: a client that declares `elicitation.url` (and no
//! forms) is asked to send the person to the question's own answer page
//! ([`crate::web`]), which offers Decline beside Submit and Cancel there.
//!
//! - Initialize era: `elicitation/create` with `mode: "url"`, an
//!   `elicitationId`, the page's URL and a message. The client's `accept` is
//!   consent only; the page's outcome is the answer. When the page ends,
//!   `notifications/elicitation/complete` names the `elicitationId`.
//! - 2026-07-28: the first call returns an `InputRequiredResult` with the
//!   url-mode elicitation (no id, no notification in that era); the retry
//!   with the client's `accept` waits for the page's outcome. `requestState`
//!   carries only the kept page's id: 128 random bits, which name nothing an
//!   attacker could guess or forge.
//!
//! In both eras the page runs in the background ([`Kept`]): it stays up
//! between a 2026-07-28 call and its retry, and past `--wait` (the result is
//! then `pending`, and `{"resume": id}` collects the answer).
//!
//! The URL holds the page's own token: one question's, made for this page,
//! refused once the form has ended (then the port closes). It is never the
//! inbox's token.

use std::collections::BTreeMap;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, CustomNotification,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    InputRequiredResult, ServerNotification, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext};
use serde_json::json;

use super::kept::{Kept, Waited};
use super::progress::Waiting;
use super::{Options, log, result};
use crate::answer::{AnswerDocument, Unanswered};
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::web::{WebOptions, WebSession};

/// The key of our one elicitation inside an `InputRequiredResult`.
const INPUT_KEY: &str = "ask_user";
/// `requestState` of a 2026-07-28 url-mode call: this prefix, then the kept page's id.
const STATE_PREFIX: &str = "url-page:";
/// How long a finished call waits for a consent the client has not sent yet.
const CONSENT_GRACE: Duration = Duration::from_secs(2);
/// The notification that tells the client the person is done on the page.
pub const COMPLETE: &str = "notifications/elicitation/complete";

/// Whether the client declared url-mode elicitation.
pub fn client_opens_urls(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|caps| caps.elicitation)
        .is_some_and(|e| e.url.is_some())
}

/// Asks through a url-mode elicitation in the era the call speaks. `None`:
/// the client refused the elicitation request itself (not the person's
/// decline): the caller falls back as for a client without elicitation.
pub async fn ask(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    request: &CallToolRequestParams,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> Option<CallToolResponse> {
    let modern = context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize());
    if modern {
        Some(ask_stateless(options, kept, prompt, request, timeout, context).await)
    } else {
        ask_and_wait(options, kept, prompt, timeout, context)
            .await
            .map(CallToolResponse::from)
    }
}

/// The page, bound and offering Decline; the client opens it, so we never do.
fn start_page(
    options: &Options,
    prompt: &Prompt,
    timeout: Option<Duration>,
) -> Result<WebSession, AskError> {
    let web = WebOptions {
        port: options.port,
        open_browser: false,
        timeout,
        interrupt: None,
    };
    Ok(WebSession::start(prompt, &web)?.with_decline())
}

/// What the client shows beside the URL when it asks the person's consent.
pub fn message(prompt: &Prompt) -> String {
    let about = match (&prompt.title, prompt.questions.as_slice()) {
        (Some(title), _) => title.clone(),
        (None, [one]) => one.text.clone(),
        (None, many) => format!("{} questions", many.len()),
    };
    format!("ask_user asks: {about} (answer on this page in your browser)")
}

fn url_request(prompt: &Prompt, url: String, elicitation_id: String) -> ElicitRequest {
    ElicitRequest::new(ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: message(prompt),
        url,
        elicitation_id,
    })
}

fn unanswered(how: Unanswered) -> CallToolResult {
    result::answered(&AnswerDocument::unanswered(how))
}

/// The client's reply to the consent: `None` when it consented.
fn refused(reply: &ElicitResult) -> Option<Unanswered> {
    match reply.action {
        ElicitationAction::Accept => None,
        ElicitationAction::Decline => Some(Unanswered::Declined),
        // Cancel, and any action a later revision adds: no answer.
        _ => Some(Unanswered::Cancelled),
    }
}

/// Initialize era: the page runs in the background ([`Kept`]) while the
/// client asks the person's consent; the call ends with the page's outcome,
/// the client's decline or cancel, its `notifications/cancelled` (the page
/// closes then), or, past `--wait`, a pending document (the page stays up
/// for `{"resume": id}`).
async fn ask_and_wait(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> Option<CallToolResult> {
    let elicitation_id = match ask_user_server::guard::random_hex(16) {
        Ok(id) => id,
        Err(e) => {
            return Some(result::error(&AskError::InternalError(Detail::new(
                format!("the system random source failed ({e}); no id could be made"),
            ))));
        }
    };
    let page = match start_page(options, prompt, timeout).and_then(|page| kept.keep(page)) {
        Ok(page) => page,
        Err(err) => return Some(result::error(&err)),
    };
    let request =
        ServerRequest::ElicitRequest(url_request(prompt, page.url, elicitation_id.clone()));
    let mut handle = match context
        .peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
    {
        Ok(handle) => handle,
        Err(err) => {
            kept.close(&page.id);
            log(format_args!(
                "could not send the url elicitation ({err}); using the fallback"
            ));
            return None;
        }
    };
    let outcome = kept.wait(&page.id, options.wait);
    tokio::pin!(outcome);
    let mut waiting = Waiting::new(context, options.wait.or(timeout));
    // Set once the client has answered the consent (its `accept`).
    let mut consented = false;
    let waited = loop {
        tokio::select! {
            reply = &mut handle.rx, if !consented => match reply {
                Ok(Ok(ClientResult::ElicitResult(reply))) => match refused(&reply) {
                    None => consented = true,
                    Some(how) => {
                        // The page closes: the link opens nothing more.
                        kept.close(&page.id);
                        return Some(unanswered(how));
                    }
                },
                Ok(Ok(other)) => {
                    kept.close(&page.id);
                    log(format_args!("the client answered the url elicitation with {other:?}"));
                    return Some(result::error(&AskError::InternalError(Detail::new(
                        "the client answered the url elicitation with something that is not an elicitation result (accept, decline or cancel); ask the person in the chat instead",
                    ))));
                }
                Ok(Err(err)) => {
                    kept.close(&page.id);
                    log(format_args!(
                        "the client could not open the url elicitation ({err}); using the fallback"
                    ));
                    return None;
                }
                Err(_) => {
                    kept.close(&page.id);
                    return Some(result::error(&AskError::InternalError(Detail::new(
                        "the connection closed while waiting for the person",
                    ))));
                }
            },
            waited = &mut outcome => break waited,
            () = context.ct.cancelled() => {
                // The client gave up on this call; rmcp sends no response for it.
                kept.close(&page.id);
                if !consented {
                    let _ = handle.cancel(Some("the tool call was cancelled".into())).await;
                }
                return Some(unanswered(Unanswered::Cancelled));
            }
            () = waiting.tick() => waiting.report(context, "").await,
        }
    };
    let document = match waited {
        Some(Waited::Done(document)) => document,
        // Past `--wait`: the page stays up. An elicitation the client has
        // not answered yet is left open, not cancelled: the person may still
        // be shown the link; the late reply is dropped.
        Some(Waited::Open) => return Some(pending(&page.id)),
        // Forgotten under the call (past kept::MAX_KEPT).
        None => AnswerDocument::unanswered(Unanswered::Cancelled),
    };
    let complete =
        CustomNotification::new(COMPLETE, Some(json!({"elicitationId": elicitation_id})));
    let _ = context
        .peer
        .send_notification(ServerNotification::CustomNotification(complete))
        .await;
    if !consented {
        // The person was done before the client passed on their consent. Some
        // clients reply only now, on the notification (mcpdo): let the reply
        // come rather than cancel a request the client is answering.
        tokio::select! {
            _ = &mut handle.rx => {}
            () = tokio::time::sleep(CONSENT_GRACE) => {
                let _ = handle
                    .cancel(Some("the person is done on the page".into()))
                    .await;
            }
        }
    }
    Some(result::answered(&document))
}

/// Not answered within `--wait`; `{"resume": id}` collects it.
fn pending(id: &str) -> CallToolResult {
    result::answered(&AnswerDocument::pending(id, super::kept::resume_hint(id)))
}

/// 2026-07-28: the first call starts the kept page and returns the url-mode
/// elicitation; the retry brings the client's consent and waits for the
/// page's outcome (its own deadline ends it as timed out).
async fn ask_stateless(
    options: &Options,
    kept: &Kept,
    prompt: &Prompt,
    request: &CallToolRequestParams,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> CallToolResponse {
    let reply = request
        .input_responses
        .as_ref()
        .and_then(|responses| responses.get(INPUT_KEY))
        .and_then(|value| serde_json::from_value::<ElicitResult>(value.clone()).ok());
    let id = request
        .request_state
        .as_deref()
        .and_then(|state| state.strip_prefix(STATE_PREFIX));
    match (id, reply) {
        (Some(id), Some(reply)) => match refused(&reply) {
            Some(how) => {
                kept.close(id);
                unanswered(how).into()
            }
            None => wait_for_page(kept, id, options.wait.or(timeout), options.wait, context)
                .await
                .into(),
        },
        (id, _) => {
            // A first call, or a retry without the client's reply: (again) a page.
            if let Some(id) = id {
                kept.close(id);
            }
            match start_page(options, prompt, timeout).and_then(|page| kept.keep(page)) {
                Ok(page) => {
                    let requests = BTreeMap::from([(
                        INPUT_KEY.to_string(),
                        InputRequest::Elicitation(url_request(prompt, page.url, String::new())),
                    )]);
                    InputRequiredResult::new(
                        Some(requests),
                        Some(format!("{STATE_PREFIX}{}", page.id)),
                    )
                    .into()
                }
                Err(err) => result::error(&err).into(),
            }
        }
    }
}

/// Waits for kept page `id`'s outcome (up to `wait`, `--wait`; then
/// pending), or the client's `notifications/cancelled` (the page closes
/// then), reporting progress over `expected` meanwhile.
async fn wait_for_page(
    kept: &Kept,
    id: &str,
    expected: Option<Duration>,
    wait: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let mut waiting = Waiting::new(context, expected);
    let outcome = kept.wait(id, wait);
    tokio::pin!(outcome);
    let waited = loop {
        tokio::select! {
            waited = &mut outcome => break waited,
            () = context.ct.cancelled() => {
                kept.close(id);
                return unanswered(Unanswered::Cancelled);
            }
            () = waiting.tick() => waiting.report(context, "").await,
        }
    };
    match waited {
        Some(Waited::Done(document)) => result::answered(&document),
        Some(Waited::Open) => pending(id),
        None => result::error(&AskError::UnknownQuestion(Detail::new(
            "this server keeps no answer page for this call (it restarted, or the requestState is not one it gave); call the tool again with the question",
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(input: &str) -> Prompt {
        crate::input::parse(input.as_bytes()).unwrap()
    }

    #[test]
    fn the_message_names_the_question() {
        assert_eq!(
            message(&prompt(r#"{"question":"Ship it?","options":["yes","no"]}"#)),
            "ask_user asks: Ship it? (answer on this page in your browser)"
        );
        assert_eq!(
            message(&prompt(
                r#"{"title":"Release","questions":[{"question":"A?"},{"question":"B?"}]}"#
            )),
            "ask_user asks: Release (answer on this page in your browser)"
        );
        assert_eq!(
            message(&prompt(
                r#"{"questions":[{"question":"A?"},{"question":"B?"}]}"#
            )),
            "ask_user asks: 2 questions (answer on this page in your browser)"
        );
    }

    #[test]
    fn the_consent_maps_to_typed_states() {
        let reply = ElicitResult::new;
        assert_eq!(refused(&reply(ElicitationAction::Accept)), None);
        assert_eq!(
            refused(&reply(ElicitationAction::Decline)),
            Some(Unanswered::Declined)
        );
        assert_eq!(
            refused(&reply(ElicitationAction::Cancel)),
            Some(Unanswered::Cancelled)
        );
    }

    #[test]
    fn the_2026_elicitation_is_in_url_mode() {
        let request = url_request(
            &prompt(r#"{"question":"Go?","type":"text"}"#),
            "http://127.0.0.1:1/?token=t".into(),
            String::new(),
        );
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(value["method"], "elicitation/create");
        assert_eq!(value["params"]["mode"], "url");
        assert_eq!(value["params"]["url"], "http://127.0.0.1:1/?token=t");
        // rmcp 3.11 writes the id the 2026-07-28 schema dropped as "" (its
        // clients ignore it; the TypeScript SDK v2 strips it).
        assert_eq!(value["params"]["elicitationId"], "");
    }
}
