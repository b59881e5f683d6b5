//! The routes of one-question links ([`super::links`]), reached without the
//! token: the capability in the path is the only key, and it opens one
//! question.
//!
//! | route | does |
//! |---|---|
//! | `GET /l/CAP` | the page of that one question (HTML); 410 once it is closed, 404 for a link the inbox did not make |
//! | `GET /l/CAP/form` | its questions, for the page (JSON, as the answer page's `/form`) |
//! | `POST /l/CAP` | answers it: `{"answers":[…]}` as the page posts; once (then 409 `ALREADY_ANSWERED`) |
//! | `POST /l/CAP/choose/OPTION/SIG` | answers a single-select question with OPTION (an ntfy action button); SIG binds the id, the option and the link's expiry. No `Origin` needed; a JSON content type is (the body: empty or `{}`) |
//!
//! Every request counts toward the server's tokenless limit before it gets
//! here, so a wrong capability is a failed guess like a wrong token. A
//! link the inbox did not make (changed, truncated, another key's) gets the
//! same 404 whatever is wrong with it. A valid capability is checked
//! against the store too: a closed question's link opens nothing.

use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use http::Method;
use serde::Serialize;

use super::hub::votes::VoteRecorded;
use super::hub::{Action, Hub, LinkTarget};
use super::links::{self, LinkError};
use super::store::{self, Face, Outcome};
use ask_user_core::error::{AskError, Detail};
use ask_user_core::prompt::{PromptDocument, PromptItem};
use ask_user_core::submission::{PostedAnswer, Submission};
use ask_user_server::guard::Holder;
use ask_user_server::{Reply, Request, response};

/// The page of one question, with the shared form widgets in place.
static PAGE: LazyLock<String> = LazyLock::new(|| {
    include_str!("link.html")
        .replace("/*__FORM_CSS__*/", ask_user_server::form::CSS)
        .replace("/*__FORM_JS__*/", ask_user_server::form::JS)
});
const NONCE_SLOT: &str = "__NONCE__";
const PREFIX: &str = "/l/";

/// Whether `path` is a link's (the server lets these in without the token).
pub fn is_link_path(path: &str) -> bool {
    path.starts_with(PREFIX)
}

/// What a link's path asks for.
#[derive(Debug, PartialEq, Eq)]
enum Route<'a> {
    /// `/l/CAP`
    Page(&'a str),
    /// `/l/CAP/form`
    Form(&'a str),
    /// `/l/CAP/choose/OPTION/SIG` (OPTION still percent-encoded)
    Choose {
        capability: &'a str,
        option: &'a str,
        signature: &'a str,
    },
}

fn route(path: &str) -> Option<Route<'_>> {
    let rest = path.strip_prefix(PREFIX)?;
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [capability] => Some(Route::Page(capability)),
        [capability, "form"] => Some(Route::Form(capability)),
        [capability, "choose", option, signature] => Some(Route::Choose {
            capability,
            option,
            signature,
        }),
        _ => None,
    }
}

/// Serves a request to `/l/…`. Opening a question and answering it read and
/// write the store: that runs on tokio's blocking threads, never on the
/// server's one thread, so a slow store holds no other request.
pub async fn respond(hub: &Arc<Hub>, request: Request) -> Reply {
    let method = request.method().clone();
    // A device token (a paired phone) names who answered; any other token
    // adds nothing: the capability alone decides what may be done.
    let device = match request.holder() {
        Some(Holder::Person(name)) => Some(name.clone()),
        _ => None,
    };
    let path = request.path().to_string();
    let Some(route) = route(&path) else {
        return Reply::text(404, "not found");
    };
    let body = match (&method, route) {
        (&Method::POST, Route::Page(_) | Route::Choose { .. }) => match request.body().await {
            Ok(body) => body,
            Err(reply) => return reply,
        },
        _ => Bytes::new(),
    };
    let hub = Arc::clone(hub);
    ask_user_server::blocking::blocking(move || {
        serve(&hub, &method, &path, &body, device.as_deref())
    })
    .await
    .unwrap_or_else(|| Reply::text(500, "the link could not be served"))
}

/// [`respond`]'s work, once the body is read.
fn serve(hub: &Hub, method: &Method, path: &str, body: &[u8], device: Option<&str>) -> Reply {
    let Some(route) = route(path) else {
        return Reply::text(404, "not found");
    };
    match (method, route) {
        (&Method::GET, Route::Page(capability)) => page(hub, capability),
        (&Method::GET, Route::Form(capability)) => form(hub, capability),
        (&Method::POST, Route::Page(capability)) => answer(hub, capability, body, device),
        (
            &Method::POST,
            Route::Choose {
                capability,
                option,
                signature,
            },
        ) => choose(hub, capability, option, signature, body, device),
        _ => Reply::text(405, "method not allowed"),
    }
}

/// The id a capability opens, or the error document's reply.
fn open(hub: &Hub, capability: &str) -> Result<(String, u64), AskError> {
    let now = u64::try_from(store::now_ms()).unwrap_or(0);
    hub.link_key().open(capability, now).map_err(link_error)
}

/// A refused link: the same words for every way a guess is wrong.
pub fn link_error(error: LinkError) -> AskError {
    match error {
        LinkError::Malformed | LinkError::BadSignature => AskError::UnknownQuestion(Detail::new(
            "this link is not one the inbox made (or it was changed); open the link from the notification again",
        )),
        LinkError::Expired => AskError::UnknownQuestion(Detail::new(
            "this link has expired (at the question's deadline); the question can no longer be answered through it",
        )),
    }
}

/// Status of a link's error document: 410 for an expired link, else as the
/// inbox's routes answer.
fn reply(hub: &Hub, err: &AskError, expired: bool) -> Reply {
    hub.metrics().error(err.code());
    let reply = super::statuses::error_reply(err);
    if expired {
        reply.with_status(410)
    } else {
        reply
    }
}

fn closed_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Answered => "It has been answered already.",
        Outcome::Declined => "It was declined.",
        Outcome::Cancelled | Outcome::Dismissed => "It was cancelled.",
        Outcome::TimedOut | Outcome::AskerGone => "Its time ran out.",
    }
}

/// A page with one heading and one sentence, fixed texts only.
fn notice(status: u16, title: &str, text: &str) -> Reply {
    let Ok(nonce) = response::nonce() else {
        return Reply::text(500, "no randomness");
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>ask_user: {title}</title>\n<style nonce=\"{nonce}\">{css}\nmain {{ max-width: 44rem; margin: 0 auto; padding: 1.5rem 1rem; }}</style>\n\
         </head>\n<body data-state=\"closed\">\n<main>\n<p class=\"brand\">ask_user</p>\n<h1>{title}</h1>\n<p>{text}</p>\n</main>\n</body>\n</html>\n",
        css = ask_user_server::form::CSS,
    );
    Reply::page(html, &nonce).with_status(status)
}

fn page(hub: &Hub, capability: &str) -> Reply {
    let id = match open(hub, capability) {
        Ok((id, _)) => id,
        Err(_) if matches!(capability_error(hub, capability), Some(LinkError::Expired)) => {
            return notice(
                410,
                "This link has expired",
                "The question's time is over; it can no longer be answered here.",
            );
        }
        Err(_) => {
            return notice(
                404,
                "This link is not valid",
                "The inbox did not make this link, or it was changed on the way. Open the link from the notification again.",
            );
        }
    };
    match hub.link_target(&id) {
        Ok(LinkTarget::Open { .. }) => match response::nonce() {
            Ok(nonce) => Reply::page(PAGE.replace(NONCE_SLOT, &nonce), &nonce),
            Err(_) => Reply::text(500, "no randomness"),
        },
        Ok(LinkTarget::Closed(outcome)) => {
            notice(410, "This question is closed", closed_text(outcome))
        }
        Ok(LinkTarget::Unknown) => notice(
            410,
            "This question is closed",
            "The inbox no longer holds it.",
        ),
        Err(err) => {
            hub.metrics().error(err.code());
            notice(
                503,
                "The inbox cannot show this question now",
                "Its store cannot be reached; try again in a moment.",
            )
        }
    }
}

fn capability_error(hub: &Hub, capability: &str) -> Option<LinkError> {
    let now = u64::try_from(store::now_ms()).unwrap_or(0);
    hub.link_key().open(capability, now).err()
}

/// What `GET /l/CAP/form` returns: the one question's form.
#[derive(Serialize)]
struct FormView {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    #[serde(rename = "remainingMs", skip_serializing_if = "Option::is_none")]
    remaining_ms: Option<u64>,
    questions: Vec<PromptItem>,
}

fn form(hub: &Hub, capability: &str) -> Reply {
    let (id, _) = match open(hub, capability) {
        Ok(opened) => opened,
        Err(err) => {
            let expired = capability_error(hub, capability) == Some(LinkError::Expired);
            return reply(hub, &err, expired);
        }
    };
    let (document, expires_at) = match hub.link_target(&id) {
        Ok(LinkTarget::Open {
            document,
            expires_at,
            ..
        }) => (document, expires_at),
        Ok(LinkTarget::Closed(outcome)) => return closed(hub, outcome),
        Ok(LinkTarget::Unknown) => return closed(hub, Outcome::AskerGone),
        Err(err) => return reply(hub, &err, false),
    };
    let Ok(prompt) = serde_json::from_str::<PromptDocument>(&document) else {
        return reply(
            hub,
            &AskError::InternalError(Detail::new("the question's stored form cannot be read")),
            false,
        );
    };
    let now = store::now_ms();
    Reply::json(
        200,
        &FormView {
            title: prompt.title,
            context: prompt.context,
            remaining_ms: expires_at.map(|end| u64::try_from(end - now).unwrap_or(0)),
            questions: prompt
                .prompts
                .unwrap_or_else(|| prompt.prompt.into_iter().collect()),
        },
    )
}

/// 410 with an ALREADY_ANSWERED document: the link's question is closed.
fn closed(hub: &Hub, outcome: Outcome) -> Reply {
    let err = AskError::AlreadyAnswered(Detail::new(format!(
        "this question is closed: {}",
        closed_text(outcome).trim_end_matches('.').to_lowercase()
    )));
    reply(hub, &err, true)
}

fn answer(hub: &Hub, capability: &str, body: &[u8], device: Option<&str>) -> Reply {
    let (id, _) = match open(hub, capability) {
        Ok(opened) => opened,
        Err(err) => {
            let expired = capability_error(hub, capability) == Some(LinkError::Expired);
            return reply(hub, &err, expired);
        }
    };
    let submission = match parse_object::<Submission>(body) {
        Ok(submission) => submission,
        Err(err) => return reply(hub, &err, false),
    };
    decided(hub, &id, Action::Submit(submission), Face::Link, device)
}

fn choose(
    hub: &Hub,
    capability: &str,
    option: &str,
    signature: &str,
    body: &[u8],
    device: Option<&str>,
) -> Reply {
    let (id, expires) = match open(hub, capability) {
        Ok(opened) => opened,
        Err(err) => {
            let expired = capability_error(hub, capability) == Some(LinkError::Expired);
            return reply(hub, &err, expired);
        }
    };
    let now = u64::try_from(store::now_ms()).unwrap_or(0);
    let checked = links::percent_decode(option)
        .ok_or(LinkError::Malformed)
        .and_then(|option| {
            hub.link_key()
                .verify_choice(&id, &option, expires, signature, now)
                .map(|()| option)
        });
    let option = match checked {
        Ok(option) => option,
        Err(e) => return reply(hub, &link_error(e), false),
    };
    if !body.iter().all(u8::is_ascii_whitespace)
        && let Err(err) = parse_object::<Nothing>(body)
    {
        return reply(hub, &err, false);
    }
    match hub.link_target(&id) {
        Ok(LinkTarget::Open {
            single_choice: Some(options),
            ..
        }) if options.contains(&option) => {}
        Ok(LinkTarget::Open { .. }) => {
            return reply(
                hub,
                &AskError::InvalidReply(Detail::new(
                    "this question is not one single choice with that option; open its link to answer it",
                )),
                false,
            );
        }
        Ok(LinkTarget::Closed(_) | LinkTarget::Unknown) | Err(_) => {}
    }
    let submission = Submission {
        answers: vec![PostedAnswer {
            option_ids: vec![option],
            ..PostedAnswer::default()
        }],
    };
    // Only an ntfy notification's action button posts here.
    decided(hub, &id, Action::Submit(submission), Face::Ntfy, device)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

/// The hub's decision through a link: 200 with the answer document's
/// outcome, 409 `ALREADY_ANSWERED` when it was closed first.
fn decided(hub: &Hub, id: &str, action: Action, face: Face, device: Option<&str>) -> Reply {
    match hub.decide_as(id, action, face, device) {
        // A question that needs approvals and is still open: a vote.
        Ok(line) if serde_json::from_str::<VoteRecorded>(&line).is_ok() => {
            Reply::json(200, &Done { status: "voted" })
        }
        Ok(_) => Reply::json(200, &Done { status: "answered" }),
        Err(err) => reply(hub, &err, false),
    }
}

#[derive(Serialize)]
struct Done {
    status: &'static str,
}

/// A JSON object (INVALID_JSON otherwise).
fn parse_object<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, AskError> {
    let first = body
        .iter()
        .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
    let parsed = serde_json::from_slice(body).and_then(|value| match first {
        Some(b'{') => Ok(value),
        _ => Err(serde::de::Error::custom(
            "the body must be a JSON object ({…})",
        )),
    });
    parsed.map_err(|e| {
        AskError::InvalidJson(Detail::new(format!(
            "the body is not what a link takes ({e})"
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_the_page_its_form_and_a_choice_nothing_else() {
        assert_eq!(route("/l/CAP"), Some(Route::Page("CAP")));
        assert_eq!(route("/l/CAP/form"), Some(Route::Form("CAP")));
        assert_eq!(
            route("/l/CAP/choose/yes/SIG"),
            Some(Route::Choose {
                capability: "CAP",
                option: "yes",
                signature: "SIG"
            })
        );
        for path in [
            "/l/",
            "/l/CAP/",
            "/l/CAP/other",
            "/l/CAP/choose/yes",
            "/l/CAP/choose/yes/SIG/more",
            "/l/CAP/form/x",
            "/lx/CAP",
        ] {
            assert!(
                route(path).is_none() || path == "/l/",
                "{path}: {:?}",
                route(path)
            );
        }
        // "/l/" is an empty capability: a page route whose link fails.
        assert_eq!(route("/l/"), Some(Route::Page("")));
        assert!(is_link_path("/l/x") && !is_link_path("/api/questions"));
    }
}
