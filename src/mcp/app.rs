//! MCP Apps (extension `io.modelcontextprotocol/ui`, spec 2026-01-26): an
//! inline answer form for hosts that render apps but show no elicitation
//! forms (Claude Desktop, claude.ai, VS Code, Cursor, Goose).
//!
//! Only for a client that declares the extension with our mime type:
//! - `tools/list` gives the tool `_meta.ui.resourceUri` ([`RESOURCE_URI`],
//!   one static template, as the spec wants: the host may prefetch it) and
//!   adds the app-only submit tool ([`submit_tool_name`], `visibility:
//!   ["app"]`: hosts keep it from the model);
//! - `resources/list` and `resources/read` give the form (`app.html`, with
//!   the answer page's widgets, self-contained: no fetch, no outside file);
//! - `ask_user` returns AT ONCE with a `pending` document and the question
//!   for the form in the result's `_meta` ([`FORM_META`]), never waiting for
//!   the app: a tool that blocks while its app is shown deadlocks in hosts
//!   that hold `tool-input` until the call completes (claude-ai-mcp#170);
//! - the form submits through the host-proxied `tools/call` of the submit
//!   tool, which stores the answer: in the inbox when the question lives
//!   there, else in this process ([`Kept`]); then the form asks the host to
//!   tell the model (`ui/message`, best effort), and the model collects the
//!   answer with `{"resume": id}`.
//!
//! A client that does not declare the extension sees none of it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ListResourcesResult, MetaObject,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceContents, Tool,
};
use rmcp::service::RequestContext;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::kept::{Kept, Waited};
use super::progress::Waiting;
use super::{Fallback, Options, inbox, log, result};
use crate::answer::AnswerDocument;
use crate::error::{AskError, Detail};
use crate::inbox::asker::{self, AskerOptions, Target};
use crate::inbox::client::Client;
use crate::inbox::hub::Leaving;
use crate::inbox::metrics::AskingFace;
use crate::inbox::state::Lookup;
use crate::model::Prompt;
use crate::prompt::{PromptDocument, PromptItem};
use crate::submission::{self, Submission};

/// The extension's identifier in the client's `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The mime type of an MCP App's HTML; the client must list it.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The form: one template for every question (the data comes with the result).
pub const RESOURCE_URI: &str = "ui://ask_user/form.html";
/// The key, in an `ask_user` result's `_meta`, of the question for the form.
pub const FORM_META: &str = "io.github.ask-user/form";
/// How long a `{"resume": id}` of an app's question waits for the person
/// when the server has no `--wait`: below the shortest host timer we know
/// (Claude Desktop's ~60 s), so a resume never outlives its call.
pub const RESUME_WAIT: Duration = Duration::from_secs(30);
/// How many app questions one server remembers (as [`super::kept::MAX_KEPT`]).
const MAX_HELD: usize = 64;

/// The form, with the answer page's widgets in place.
static FORM_HTML: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    include_str!("app.html")
        .replace("/*__FORM_CSS__*/", ask_user_server::form::CSS)
        .replace("/*__FORM_JS__*/", ask_user_server::form::JS)
        .replace("__VERSION__", env!("CARGO_PKG_VERSION"))
});

/// Whether the client renders MCP Apps: it declares the extension and our
/// mime type (the spec makes `mimeTypes` required).
pub fn client_shows_apps(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|caps| caps.extensions)
        .and_then(|extensions| extensions.get(EXTENSION).cloned())
        .and_then(|settings| settings.get("mimeTypes").cloned())
        .and_then(|types| types.as_array().cloned())
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// The app-only tool that takes the form's answer.
pub fn submit_tool_name(tool_name: &str) -> String {
    format!("{tool_name}_submit")
}

/// `tools/list` for a client that renders apps: the tool pointing at the
/// form, and the app-only submit tool.
pub fn tools(tool: &Tool, tool_name: &str) -> Vec<Tool> {
    let mut shown = tool.clone();
    let mut meta = shown.meta.take().unwrap_or_default();
    meta.0
        .insert("ui".into(), json!({ "resourceUri": RESOURCE_URI }));
    shown.meta = Some(meta);
    vec![shown, submit_tool(tool_name)]
}

fn submit_tool(tool_name: &str) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "The question's inboxId from the pending document."},
            "answers": {"type": "array", "items": {"type": "object"}, "description": "The form's answers, one per question, as the answer page posts them."},
            "cancel": {"type": "boolean", "description": "true: the person cancelled the form."}
        },
        "required": ["id"],
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else {
        unreachable!("a JSON object literal")
    };
    let mut tool = Tool::new(
        submit_tool_name(tool_name),
        format!(
            "Takes the person's answer from {tool_name}'s form (MCP App). For the app only: never call it yourself."
        ),
        Arc::new(schema),
    );
    let mut meta = MetaObject::default();
    meta.0.insert("ui".into(), json!({ "visibility": ["app"] }));
    tool.meta = Some(meta);
    tool
}

/// `resources/list`: the form, for a client that renders apps; else nothing.
pub fn resources(context: &RequestContext<RoleServer>) -> ListResourcesResult {
    if !client_shows_apps(context) {
        return ListResourcesResult::with_all_items(Vec::new());
    }
    let resource = Resource::new(RESOURCE_URI, "ask_user_form")
        .with_title("ask_user: the answer form")
        .with_description("The form a question is answered in, inside the chat.")
        .with_mime_type(MIME_TYPE);
    ListResourcesResult::with_all_items(vec![resource])
}

/// `resources/read`: the form's HTML, for a client that renders apps.
pub fn read(
    request: &ReadResourceRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResult, rmcp::ErrorData> {
    if request.uri != RESOURCE_URI || !client_shows_apps(context) {
        return Err(rmcp::ErrorData::resource_not_found(
            format!(
                "no resource {:?}; this server has only its MCP App's form, for clients that declare the {EXTENSION} extension",
                request.uri
            ),
            None,
        ));
    }
    let mut meta = MetaObject::default();
    // The spec's default CSP is what the form needs: it loads nothing.
    meta.0.insert("ui".into(), json!({ "prefersBorder": true }));
    Ok(ReadResourceResult::new(vec![
        ResourceContents::TextResourceContents {
            uri: RESOURCE_URI.into(),
            mime_type: Some(MIME_TYPE.into()),
            text: FORM_HTML.clone(),
            meta: Some(meta),
        },
    ]))
}

/// The questions this server asked through its app, and where each lives.
#[derive(Clone, Default)]
pub struct Apps {
    held: Arc<Mutex<VecDeque<(String, Held)>>>,
}

#[derive(Clone)]
enum Held {
    /// In this process's [`Kept`], with the prompt its answer is read against.
    Kept(Box<Prompt>),
    /// In the running inbox, which reads the answer itself.
    Inbox,
}

impl Apps {
    fn hold(&self, id: &str, held: Held) {
        let mut all = self.held();
        while all.len() >= MAX_HELD {
            all.pop_front();
        }
        all.push_back((id.to_string(), held));
    }

    fn find(&self, id: &str) -> Option<Held> {
        self.held()
            .iter()
            .find(|(held, _)| held == id)
            .map(|(_, held)| held.clone())
    }

    /// Whether `id` is a question this server asked through its app.
    pub fn holds(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    fn held(&self) -> MutexGuard<'_, VecDeque<(String, Held)>> {
        // A panic while holding the lock leaves the list whole: keep using it.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the form needs to show the question and send its answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FormView<'a> {
    id: &'a str,
    /// The app-only tool the form calls.
    submit_tool: String,
    /// The same question is also in the inbox page.
    in_inbox: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    remaining_ms: Option<u64>,
    questions: Vec<PromptItem>,
}

/// Asks through the app: the question goes into the inbox (`--fallback
/// inbox`, or `auto` with an inbox running), else into this process; the
/// result is pending at once, with the question for the form.
pub async fn ask(
    options: &Options,
    kept: &Kept,
    apps: &Apps,
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let in_inbox = match options.fallback {
        Fallback::Inbox => true,
        Fallback::Auto => inbox::runs(),
        _ => false,
    };
    let asked = if in_inbox {
        ask_in_inbox(prompt, timeout, context).await
    } else {
        kept.keep_question(timeout)
            .map(|id| Asked::Pending(id, Held::Kept(Box::new(prompt.clone()))))
    };
    let id = match asked {
        Ok(Asked::Pending(id, held)) => {
            apps.hold(&id, held);
            id
        }
        Ok(Asked::Done(document)) => return result::answered(&document),
        Err(err) => return result::error(&err),
    };
    log(format_args!(
        "asked in the client's MCP App form{}, question {id}",
        if in_inbox { " and the inbox" } else { "" }
    ));
    pending(options, prompt, &id, timeout, in_inbox)
}

enum Asked {
    Pending(String, Held),
    /// The inbox decided it before it could be left pending.
    Done(AnswerDocument),
}

/// Hands the question to the inbox and leaves it there at once (pending).
async fn ask_in_inbox(
    prompt: &Prompt,
    timeout: Option<Duration>,
    context: &RequestContext<RoleServer>,
) -> Result<Asked, AskError> {
    // The inbox reads a prompt document as it reads a tool input.
    let input = serde_json::to_value(PromptDocument::new(prompt))
        .map_err(|e| e.to_string())
        .and_then(|value| crate::input::into_object(value).map_err(|e| e.to_string()))
        .map_err(|e| {
            AskError::InternalError(Detail::new(format!("the question could not be sent ({e})")))
        })?;
    let options = AskerOptions {
        lookup: Lookup::from_env(),
        source: super::inbox::source_of(context),
        timeout,
        face: AskingFace::Mcp,
    };
    // Once the inbox holds the question, the asker leaves it pending: the
    // app's submit answers it there, and a resume collects it.
    let (asked, taken) = tokio::sync::oneshot::channel::<()>();
    let leave = async move {
        let _ = taken.await;
        Leaving::Pending
    };
    let document = tokio::select! {
        document = asker::ask(Target::Ask(input), options, leave, |_, _| {
            let _ = asked.send(());
        }) => document?,
        () = context.ct.cancelled() => {
            return Ok(Asked::Done(AnswerDocument::unanswered(crate::answer::Unanswered::Cancelled)));
        }
    };
    match document.inbox_id.clone() {
        Some(id) if document.pending => Ok(Asked::Pending(id, Held::Inbox)),
        _ => Ok(Asked::Done(document)),
    }
}

/// The pending result: the document (with the hint) for the model, the
/// question as text should the form not show, and the form's data.
fn pending(
    options: &Options,
    prompt: &Prompt,
    id: &str,
    timeout: Option<Duration>,
    in_inbox: bool,
) -> CallToolResult {
    let document = AnswerDocument::pending(id, resume_hint(id, in_inbox));
    let mut result = result::answered(&document);
    let markdown = PromptDocument::new(prompt).rendered_markdown;
    result.content.push(ContentBlock::text(format!(
        "Should the person see no form, relay the question in the chat instead (their reply there is the answer):\n\n{markdown}"
    )));
    let view = FormView {
        id,
        submit_tool: submit_tool_name(&options.tool_name),
        in_inbox,
        title: prompt.title.as_deref(),
        context: prompt.context.as_deref(),
        remaining_ms: timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        questions: prompt
            .questions
            .iter()
            .map(|q| PromptItem::new(q, true))
            .collect(),
    };
    let mut meta = MetaObject::default();
    meta.0.insert(
        FORM_META.into(),
        serde_json::to_value(view).unwrap_or_default(),
    );
    result.meta = Some(meta);
    result
}

/// The one sentence an app's pending document gives the model.
pub fn resume_hint(id: &str, in_inbox: bool) -> String {
    let also = if in_inbox {
        " (and in the inbox page)"
    } else {
        ""
    };
    format!(
        "The question is shown to the person as a form in this chat{also}; nobody has answered yet. When they say they have answered, or when you need the answer, call this tool again with the input {{\"resume\": \"{id}\"}} instead of a question to collect it (it waits a while if there is no answer yet). Do not ask the question again."
    )
}

/// The submit tool's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Submit {
    id: String,
    /// As the answer page posts them (read by [`submission::resolve`]; the
    /// inbox reads them itself).
    #[serde(default)]
    answers: Option<Vec<Value>>,
    #[serde(default)]
    cancel: bool,
}

/// The app-only submit tool: stores the person's answer (or cancel) where
/// the question lives; the result is the stored outcome.
pub async fn submit(kept: &Kept, apps: &Apps, request: &CallToolRequestParams) -> CallToolResult {
    let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
    let submit: Submit = match serde_json::from_value(arguments) {
        Ok(submit) => submit,
        Err(e) => {
            return result::error(&AskError::InvalidInput(Detail::new(format!(
                "the form's submission is not in its format ({e}); reload the form and answer again"
            ))));
        }
    };
    let Some(held) = apps.find(&submit.id) else {
        return result::error(&AskError::UnknownQuestion(Detail::at(
            format!(
                "no question {:?} was asked through this server's form (or it is long gone); ask the question again",
                submit.id
            ),
            "id",
        )));
    };
    let stored = match held {
        Held::Kept(prompt) => settle_kept(kept, &submit, &prompt),
        Held::Inbox => settle_in_inbox(&submit).await,
    };
    match stored {
        Ok(document) => result::answered(&document),
        Err(err) => result::error(&err),
    }
}

fn outcome_of(submit: &Submit, prompt: &Prompt) -> Result<AnswerDocument, AskError> {
    if submit.cancel {
        return Ok(AnswerDocument::unanswered(
            crate::answer::Unanswered::Cancelled,
        ));
    }
    let answers = answers_of(submit)?;
    let answers = serde_json::from_value(Value::Array(answers)).map_err(|e| {
        AskError::InvalidInput(Detail::at(
            format!(
                "the form's answers are not in its format ({e}); reload the form and answer again"
            ),
            "answers",
        ))
    })?;
    submission::resolve(prompt, Submission { answers }).map(|document| {
        document.answered_by_person(ask_user_platform::user::name(), crate::answer::Channel::App)
    })
}

fn answers_of(submit: &Submit) -> Result<Vec<Value>, AskError> {
    submit.answers.clone().ok_or_else(|| {
        AskError::InvalidInput(Detail::at(
            "the form sent neither answers nor a cancel",
            "answers",
        ))
    })
}

fn settle_kept(kept: &Kept, submit: &Submit, prompt: &Prompt) -> Result<AnswerDocument, AskError> {
    let document = outcome_of(submit, prompt)?;
    match kept.settle(&submit.id, document.clone()) {
        Some(true) => Ok(document),
        Some(false) => Err(already_decided(&submit.id, kept.peek(&submit.id))),
        None => Err(no_longer_kept(&submit.id, "id")),
    }
}

fn no_longer_kept(id: &str, path: &str) -> AskError {
    AskError::UnknownQuestion(Detail::at(
        format!(
            "question {id:?} is no longer kept by this server (too many questions since); ask it again"
        ),
        path,
    ))
}

fn already_decided(id: &str, now: Option<Waited>) -> AskError {
    let how = match now {
        Some(Waited::Done(document)) if document.answered => "answered",
        Some(Waited::Done(document)) if document.timed_out => "timed out",
        _ => "cancelled",
    };
    AskError::AlreadyAnswered(Detail::new(format!(
        "question {id:?} is closed already ({how}); nothing more can be sent"
    )))
}

/// The answer goes to the inbox as its own page would send it.
async fn settle_in_inbox(submit: &Submit) -> Result<AnswerDocument, AskError> {
    let endpoint = Lookup::from_env()
        .discover()
        .map_err(|missing| AskError::NoInbox(Detail::new(missing.message())))?;
    if !crate::inbox::store::is_id(&submit.id) {
        return Err(crate::inbox::hub::unknown_question(&submit.id));
    }
    let client = Client::new(endpoint.clone());
    let posted = if submit.cancel {
        let path = format!("/api/questions/{}/cancel", submit.id);
        client.post(&path, &json!({})).await
    } else {
        let answers = answers_of(submit)?;
        let path = format!("/api/questions/{}/answer", submit.id);
        client.post(&path, &json!({ "answers": answers })).await
    };
    posted.map_err(|failure| failure.into_error(&endpoint))
}

/// `{"resume": id}` of a question asked through the app: its outcome, or
/// after a bounded wait the pending document again. Never an unbounded
/// wait: the form that answers it may be waiting on this very host.
pub async fn resume(
    options: &Options,
    kept: &Kept,
    apps: &Apps,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let wait = options.wait.unwrap_or(RESUME_WAIT);
    match apps.find(id) {
        Some(Held::Inbox) => {
            inbox::resume_in_inbox(id.to_string(), options.default_timeout, Some(wait), context)
                .await
        }
        None => result::error(&no_longer_kept(id, "resume")),
        Some(Held::Kept(_)) => {
            let mut waiting = Waiting::new(context, Some(wait));
            let waited = kept.wait(id, Some(wait));
            tokio::pin!(waited);
            let waited = loop {
                tokio::select! {
                    waited = &mut waited => break waited,
                    // The client gave up on this resume: the question stays
                    // open in the form. rmcp sends no response.
                    () = context.ct.cancelled() => break Some(Waited::Open),
                    () = waiting.tick() => waiting.report(context, ": answer in the form in the chat").await,
                }
            };
            match waited {
                Some(Waited::Done(document)) => result::answered(&document),
                Some(Waited::Open) => {
                    result::answered(&AnswerDocument::pending(id, resume_hint(id, false)))
                }
                None => result::error(&no_longer_kept(id, "resume")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Unanswered;

    fn prompt() -> Prompt {
        crate::input::parse(br#"{"question":"Ship it?","options":["yes","no"]}"#)
            .expect("a valid input")
    }

    fn request(arguments: Value) -> CallToolRequestParams {
        let Value::Object(arguments) = arguments else {
            panic!("an object")
        };
        CallToolRequestParams::new("ask_user_submit").with_arguments(arguments)
    }

    fn error_code(result: &CallToolResult) -> String {
        assert_eq!(result.is_error, Some(true), "{result:?}");
        let text = result.content[0].as_text().expect("text").text.clone();
        let document: Value = serde_json::from_str(&text).unwrap();
        document["error"]["code"].as_str().unwrap().to_string()
    }

    #[test]
    fn the_form_is_self_contained_and_has_the_widgets() {
        let html = FORM_HTML.as_str();
        assert!(html.starts_with("<!doctype html>"));
        assert!(html.contains("var AskForm"), "the form widgets are inlined");
        assert!(!html.contains("__FORM_"), "every slot is filled");
        for outside in [
            "src=\"http",
            "href=\"http",
            "fetch(",
            "XMLHttpRequest",
            "@import",
        ] {
            assert!(!html.contains(outside), "no outside load: {outside}");
        }
    }

    /// A submit to a closed question says how it closed.
    #[test]
    fn a_closed_question_says_how_it_closed() {
        let done = |document| Some(Waited::Done(document));
        for (now, how) in [
            (done(AnswerDocument::answered(Vec::new())), "answered"),
            (
                done(AnswerDocument::unanswered(Unanswered::TimedOut)),
                "timed out",
            ),
            (
                done(AnswerDocument::unanswered(Unanswered::Cancelled)),
                "cancelled",
            ),
            (
                done(AnswerDocument::unanswered(Unanswered::Declined)),
                "cancelled",
            ),
            (None, "cancelled"),
        ] {
            let err = already_decided("abc", now);
            assert_eq!(err.code(), "ALREADY_ANSWERED");
            assert_eq!(
                err.to_string(),
                format!("question \"abc\" is closed already ({how}); nothing more can be sent")
            );
        }
    }

    #[test]
    fn the_submit_tool_is_for_the_app_only() {
        let tool = submit_tool("ask_user");
        assert_eq!(tool.name, "ask_user_submit");
        let meta = tool.meta.unwrap();
        assert_eq!(meta.0["ui"]["visibility"], json!(["app"]));
    }

    #[tokio::test]
    async fn a_kept_question_is_answered_once_through_the_form() {
        let kept = Kept::default();
        let apps = Apps::default();
        let id = kept.keep_question(None).unwrap();
        assert!(!apps.holds(&id), "not asked through the form yet");
        apps.hold(&id, Held::Kept(Box::new(prompt())));
        assert!(apps.holds(&id));
        assert!(!apps.holds("00000000"));
        assert_eq!(kept.peek(&id), Some(Waited::Open));

        let bad = submit(
            &kept,
            &apps,
            &request(json!({"id": id, "answers": [{"optionIds": ["nope"]}]})),
        )
        .await;
        assert_eq!(error_code(&bad), "INVALID_REPLY");
        assert_eq!(
            kept.peek(&id),
            Some(Waited::Open),
            "a refused answer decides nothing"
        );

        let good = submit(
            &kept,
            &apps,
            &request(json!({"id": id, "answers": [{"optionIds": ["1"]}]})),
        )
        .await;
        assert_eq!(good.is_error, Some(false), "{good:?}");
        let Some(Waited::Done(document)) = kept.peek(&id) else {
            panic!("an outcome");
        };
        assert!(document.answered);

        let again = submit(&kept, &apps, &request(json!({"id": id, "cancel": true}))).await;
        assert_eq!(error_code(&again), "ALREADY_ANSWERED");
    }

    #[tokio::test]
    async fn a_cancel_is_kept_as_cancelled() {
        let kept = Kept::default();
        let apps = Apps::default();
        let id = kept.keep_question(None).unwrap();
        apps.hold(&id, Held::Kept(Box::new(prompt())));
        let cancelled = submit(&kept, &apps, &request(json!({"id": id, "cancel": true}))).await;
        assert_eq!(cancelled.is_error, Some(false));
        assert!(matches!(kept.peek(&id), Some(Waited::Done(d)) if d.cancelled));
    }

    #[tokio::test]
    async fn a_kept_question_times_out_on_its_own() {
        let kept = Kept::default();
        let id = kept.keep_question(Some(Duration::from_millis(50))).unwrap();
        let waited = kept.wait(&id, Some(Duration::from_secs(30))).await;
        assert!(
            matches!(waited, Some(Waited::Done(ref d)) if d.timed_out),
            "{waited:?}"
        );
        let settled = kept.settle(&id, AnswerDocument::answered(Vec::new()));
        assert_eq!(settled, Some(false), "the time limit came first");
        assert_eq!(
            kept.settle("nope", AnswerDocument::answered(Vec::new())),
            None
        );
    }

    #[tokio::test]
    async fn submissions_the_server_does_not_know_are_refused() {
        let kept = Kept::default();
        let apps = Apps::default();
        let unknown = submit(&kept, &apps, &request(json!({"id": "abc", "cancel": true}))).await;
        assert_eq!(error_code(&unknown), "UNKNOWN_QUESTION");
        let malformed = submit(&kept, &apps, &request(json!({"id": 7}))).await;
        assert_eq!(error_code(&malformed), "INVALID_INPUT");
        let id = kept.keep_question(None).unwrap();
        apps.hold(&id, Held::Kept(Box::new(prompt())));
        let empty = submit(&kept, &apps, &request(json!({"id": id}))).await;
        assert_eq!(error_code(&empty), "INVALID_INPUT");
    }

    #[test]
    fn the_hint_names_the_resume_input() {
        assert!(resume_hint("abc", false).contains(r#"{"resume": "abc"}"#));
        assert!(resume_hint("abc", true).contains("inbox page"));
    }
}
