//! `--fallback inbox`: the question goes to the running inbox (`ask_user
//! inbox`), where the person answers it in the inbox page or from a
//! terminal (`ask_user inbox answer`), and the call waits for the outcome.
//! The source shown beside the question is the MCP client's name.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{CallToolResult, Implementation};
use rmcp::service::RequestContext;

use super::progress::Waiting;
use super::{log, result};
use crate::answer::AnswerDocument;
use crate::error::{AskError, Detail};
use crate::inbox::asker::{self, AskerOptions, Target};
use crate::inbox::client::{Client, Failure};
use crate::inbox::hub::Leaving;
use crate::inbox::metrics::AskingFace;
use crate::inbox::state::Lookup;
use crate::inbox::store::Source;
use crate::model::{Kind, Prompt};
use crate::prompt::PromptDocument;
use crate::submission::{PostedAnswer, Submission};

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
    match input_of(prompt) {
        Ok(input) => wait_in_inbox(Target::Ask(input), timeout, wait, context).await,
        Err(err) => result::error(&err),
    }
}

/// The tool input the inbox reads: it reads a prompt document as it reads a tool input.
fn input_of(prompt: &Prompt) -> Result<crate::input::Object, AskError> {
    serde_json::to_value(PromptDocument::new(prompt))
        .map_err(|e| e.to_string())
        .and_then(|value| crate::input::into_object(value).map_err(|e| e.to_string()))
        .map_err(|e| {
            AskError::InternalError(Detail::new(format!("the question could not be sent ({e})")))
        })
}

/// A form not answered within the wait (src/mcp/handover.rs): asks in the
/// inbox and leaves at once, so the document is pending with the inbox's
/// id (or, should the client cancel the call meanwhile, cancelled). NO_INBOX
/// when none runs.
pub async fn hand_over(
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> Result<AnswerDocument, AskError> {
    let options = AskerOptions {
        lookup: Lookup::from_env(),
        source: source_of(context),
        timeout,
        face: AskingFace::Mcp,
    };
    let (asked, in_the_inbox) = tokio::sync::oneshot::channel::<()>();
    let leave = async {
        tokio::select! {
            () = context.ct.cancelled() => Leaving::Away,
            _ = in_the_inbox => Leaving::Pending,
        }
    };
    asker::ask(
        Target::Ask(input_of(prompt)?),
        options,
        leave,
        |id, endpoint| {
            log(format_args!(
                "asked in the inbox ({}/), question {id}",
                endpoint.base
            ));
            let _ = asked.send(());
        },
    )
    .await
}

/// Waits, with no limit of its own, until question `id` has an outcome in
/// the inbox (or the inbox refuses the wait); reconnects as askers do.
pub async fn outcome(id: &str, source: Source) {
    let options = AskerOptions {
        lookup: Lookup::from_env(),
        source,
        timeout: None,
        face: AskingFace::Mcp,
    };
    let target = Target::Resume(id.to_string());
    let _ = asker::ask(target, options, std::future::pending(), |_, _| {}).await;
}

/// Answers (or declines) question `id` with `document`, through the routes
/// the inbox page uses; `Err` says why nothing changed (an outcome there
/// first: ALREADY_ANSWERED; an asker's token, which may not answer).
pub async fn decide(id: &str, prompt: &Prompt, document: &AnswerDocument) -> Result<(), String> {
    let endpoint = Lookup::from_env()
        .discover()
        .map_err(|missing| missing.message())?;
    let client = Client::new(endpoint);
    let path = |verb: &str| format!("/api/questions/{id}/{verb}");
    // The inbox may be restarting: try again a few times, as askers do.
    let mut pause = Duration::from_millis(200);
    for _ in 0..8 {
        let decided = if document.answered {
            let body = submission_of(prompt, document);
            client
                .post::<_, AnswerDocument>(&path("answer"), &body)
                .await
        } else {
            client
                .post::<_, AnswerDocument>(&path("decline"), &NoBody {})
                .await
        };
        match decided {
            Ok(_) => return Ok(()),
            Err(Failure::Refused(err)) => {
                return Err(format!("{}: {}", err.code(), err.document().error.message));
            }
            Err(Failure::Unreachable(why)) => {
                log(format_args!(
                    "the inbox did not answer ({why}); trying again"
                ));
                tokio::time::sleep(pause).await;
                pause = next_pause(pause);
            }
        }
    }
    Err(format!(
        "the inbox at {} did not answer",
        client.endpoint().base
    ))
}

/// The wait before the next try: doubled each time up to 4 s, so the eight
/// tries span about 18 s, long enough for an inbox to restart.
fn next_pause(pause: Duration) -> Duration {
    (pause * 2).min(Duration::from_secs(4))
}

/// The empty body of a decline.
#[derive(serde::Serialize)]
struct NoBody {}

/// The inbox page's body for `document`'s answers to `prompt` (a form answered
/// after the handover): what the page would have posted for the same choices.
fn submission_of(prompt: &Prompt, document: &AnswerDocument) -> Submission {
    let answers = prompt
        .questions
        .iter()
        .map(|question| {
            let Some(answer) = document
                .answers
                .iter()
                .find(|answer| answer.question_id == question.id)
            else {
                return PostedAnswer::default();
            };
            let first = answer.values.first().cloned();
            let mut posted = match question.kind {
                Kind::SingleSelect | Kind::MultiSelect => PostedAnswer {
                    option_ids: answer.option_ids.clone().unwrap_or_default(),
                    other: answer.custom_text.clone(),
                    ..PostedAnswer::default()
                },
                Kind::Text => PostedAnswer {
                    text: first,
                    ..PostedAnswer::default()
                },
                Kind::Confirm => PostedAnswer {
                    confirm: first.map(|value| value == crate::text::yes_no(true)),
                    ..PostedAnswer::default()
                },
            };
            posted.note = answer.note.clone();
            posted
        })
        .collect();
    Submission { answers }
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
        source: source_of(context),
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

/// Who asks, as the inbox lists it. Over stdio: this process, named after
/// its client. Over HTTP (the inbox's own `/mcp`, where rmcp puts the
/// request's [`http::request::Parts`] in the context): the client alone, as
/// the working folder and pid here would be the inbox's own.
pub(super) fn source_of(context: &RequestContext<RoleServer>) -> Source {
    match context.extensions.get::<http::request::Parts>() {
        Some(parts) => Source {
            name: http_client_name(context.client_info(), &parts.headers),
            cwd: None,
            pid: None,
        },
        None => asker::local_source(context.client_info().map(|info| info.name)),
    }
}

/// The name of a client over HTTP: the `clientInfo` it sent with this request
/// (2026-07-28, or a client that repeats it), else its `User-Agent`'s first
/// product. A stateless initialize-era call carries no `clientInfo`, and rmcp
/// stands its own name in for it, which names nobody.
fn http_client_name(info: Option<Implementation>, headers: &http::HeaderMap) -> Option<String> {
    let placeholder = Implementation::default().name;
    info.map(|info| info.name)
        .filter(|name| !name.trim().is_empty() && *name != placeholder)
        .or_else(|| {
            let agent = headers.get(http::header::USER_AGENT)?.to_str().ok()?;
            let product = agent.split_whitespace().next()?;
            Some(product.chars().take(64).collect())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submission::resolve;

    fn prompt(input: &str) -> Prompt {
        crate::input::parse(input.as_bytes()).expect("a valid input")
    }

    fn agent(value: &str) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::USER_AGENT, value.parse().unwrap());
        headers
    }

    #[test]
    fn an_http_client_is_named_by_its_client_info_else_its_user_agent() {
        let named = Some(Implementation::new("claude-code", "2.1.330"));
        assert_eq!(
            http_client_name(named, &agent("node")),
            Some("claude-code".into())
        );
        // rmcp's stand-in for a missing clientInfo, or a blank one: the
        // User-Agent's first product instead.
        for info in [
            Some(Implementation::default()),
            Some(Implementation::new(" ", "1")),
            None,
        ] {
            assert_eq!(
                http_client_name(info, &agent("codex_exec/0.169.0 (Linux; x86_64)")),
                Some("codex_exec/0.169.0".into())
            );
        }
        assert_eq!(http_client_name(None, &http::HeaderMap::new()), None);
        assert_eq!(http_client_name(None, &agent("   ")), None);
        let long = "x".repeat(500);
        assert_eq!(
            http_client_name(None, &agent(&long)).map(|name| name.len()),
            Some(64)
        );
    }

    #[test]
    fn the_tries_wait_longer_each_time_up_to_four_seconds() {
        let pauses: Vec<u64> =
            std::iter::successors(Some(Duration::from_millis(200)), |&p| Some(next_pause(p)))
                .take(8)
                .map(|p| p.as_millis() as u64)
                .collect();
        assert_eq!(pauses, [200, 400, 800, 1600, 3200, 4000, 4000, 4000]);
    }

    /// The page's body made from a form's answer resolves to the same
    /// answer document, for every kind, Other, notes and skipped questions.
    #[test]
    fn a_forms_answer_posted_as_the_page_posts_it_is_the_same_answer() {
        let p = prompt(
            r#"{"questions":[
            {"question":"DB?","options":["PostgreSQL","SQLite"]},
            {"question":"Extras?","type":"multi-select","options":["Redis","Kafka"],"allow_other":true},
            {"question":"Name?"},
            {"question":"Ship?","type":"confirm"},
            {"question":"Why?","required":false},
            {"question":"Also?","type":"multi-select","options":["a","b"],"required":false},
            {"question":"Sure?","type":"confirm","required":false}]}"#,
        );
        let body = r#"{"answers":[{"optionIds":["2"],"note":"fast"},{"optionIds":["2","1"],"other":"NATS"},{"text":"ada"},{"confirm":false},{},{},{}]}"#;
        let document = resolve(&p, serde_json::from_str(body).unwrap()).unwrap();
        let again = resolve(&p, submission_of(&p, &document)).unwrap();
        assert_eq!(again, document);
        assert_eq!(document.answers[3].values, ["no"]);
    }
}
