//! `inbox --notify-to KIND=URL`: notifications the person can
//! answer, built in beside `--notify CMD`. KIND is `ntfy`, `slack`,
//! `webhook`, `email` or `matrix`; each kind has its own file. Every
//! notification carries the question's one-question link (a capability for
//! that question alone, never a token).
//!
//! Delivery runs beside the inbox, never in an ask's way: the hub's changes
//! are read from its broadcast (as [`super::notify`] does), each channel has
//! a bounded queue ([`QUEUE`]: a dead channel cannot eat memory; what does
//! not fit is dropped, logged and counted) and one worker that keeps up to
//! [`IN_FLIGHT`] deliveries going at once (a slow receiver costs each notice
//! its own time, not the sum of those queued before it), a question's own
//! notices one after the other in the order they came (created before
//! closed), each attempt within `--notify-timeout`, retrying a transient
//! failure (no connection, a timeout, HTTP 5xx, 408, 429) with exponential
//! backoff from [`FIRST_RETRY`] up to [`LAST_RETRY`] until it goes through;
//! a permanent failure (another 4xx, a refused configuration) is logged and
//! dropped. Every failure is one line on stderr and a count in /metrics
//! (`mcp_notify_failures_total{channel,reason}`).
//!
//! Secrets never come from the command line: each is an environment
//! variable, or a file named by the same variable with `_FILE` appended,
//! which must be private (mode 0600) as `--tokens` is ([`secret`]).

pub mod email;
pub mod http;
mod links;
pub mod matrix;
pub mod ntfy;
pub mod policy_file;
pub mod route;
pub mod slack;
mod smtp;
pub mod webhook;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::{Semaphore, broadcast, mpsc};

use super::hub::{Change, Hub};
use super::metrics::Metrics;
use super::store::Source;
use crate::contact::{Kind, Spec};
use ask_user_core::prompt::{PromptDocument, PromptItem};
pub use links::HubLinks;

/// Notices waiting per channel; past this a new one is dropped (and counted).
pub const QUEUE: usize = 256;
/// Deliveries under way at once per channel (retries included). A
/// receiver answering in L seconds then takes up to 16 / L notices a
/// second: 320 at 50 ms, so 100 asks a second and their closes (200
/// notices) leave a third of the slots free for a slower moment. More would
/// open more connections to one receiver at once (each attempt is a
/// connection of its own) for no gain at that rate; 16 stays well under
/// what receivers allow one client (Postfix: 50 by default; a refusal is
/// retried anyway). One notice that keeps failing holds one of the 16, not
/// the channel.
pub const IN_FLIGHT: usize = 16;
/// The first wait before a failed delivery is tried again; it doubles ...
pub const FIRST_RETRY: Duration = Duration::from_millis(250);
/// ... up to this.
pub const LAST_RETRY: Duration = Duration::from_secs(60);

/// A channel, ready to deliver.
#[derive(Debug)]
pub enum Channel {
    Ntfy(ntfy::Ntfy),
    Slack(slack::Slack),
    Webhook(webhook::Webhook),
    Email(email::Email),
    /// In an `Arc`: its reply listener shares it.
    Matrix(Arc<matrix::MatrixTarget>),
}

/// Reads a variable of the environment (a seam for tests).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Each spec with its secrets read from `env`; `Err` says which flag value
/// (or which variable) is wrong, for a usage error.
pub fn resolve(specs: &[Spec], env: Env<'_>) -> Result<Vec<Channel>, String> {
    specs
        .iter()
        .map(|spec| {
            resolve_one(spec, env)
                .map_err(|why| format!("--notify-to {}=…: {why}", spec.kind.as_str()))
        })
        .collect()
}

/// One spec with its secrets read from `env` (a policy's contact, or one
/// `--notify-to`); `Err` says why, without naming where it came from.
pub fn resolve_one(spec: &Spec, env: Env<'_>) -> Result<Channel, String> {
    match spec.kind {
        Kind::Ntfy => ntfy::Ntfy::parse(&spec.target, env).map(Channel::Ntfy),
        Kind::Slack => slack::Slack::parse(&spec.target, env).map(Channel::Slack),
        Kind::Webhook => webhook::Webhook::parse(&spec.target, env).map(Channel::Webhook),
        Kind::Email => email::Email::parse(&spec.target, env).map(Channel::Email),
        Kind::Matrix => {
            matrix::MatrixTarget::parse(&spec.target, env).map(|t| Channel::Matrix(Arc::new(t)))
        }
    }
}

/// The secret `name`: the variable itself, else the file `name_FILE`
/// names (private: no access for group or others; one trailing newline
/// dropped). `None` when neither is set (or the variable is empty).
pub fn secret(env: Env<'_>, name: &str) -> Result<Option<String>, String> {
    if let Some(value) = env(name).filter(|v| !v.is_empty()) {
        return Ok(Some(value));
    }
    let Some(path) = env(&format!("{name}_FILE")).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let path = std::path::Path::new(&path);
    let shown = path.display();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| format!("{name}_FILE: cannot read {shown} ({e})"))?
            .mode();
        if mode & 0o077 != 0 {
            return Err(format!(
                "{name}_FILE: {shown} is readable by others (mode {:o}); make it private: chmod 600 {shown}",
                mode & 0o777
            ));
        }
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{name}_FILE: cannot read {shown} ({e})"))?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.is_empty() {
        return Err(format!("{name}_FILE: {shown} is empty"));
    }
    Ok(Some(text.to_string()))
}

/// A target that may be `http://` only on this machine: the notification
/// carries a capability, which must not cross a network in the clear.
pub fn secure_target(text: &str, what: &str) -> Result<http::Target, String> {
    let target = http::Target::parse(text)?;
    if !target.tls && !target.is_loopback() {
        return Err(format!(
            "{what} {text:?} is plain http:// past this machine: the notification carries a link that answers the question; use https://"
        ));
    }
    Ok(target)
}

/// What a channel is told.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    Asked(Question),
    Closed(Closed),
}

impl Notice {
    pub fn inbox_id(&self) -> &str {
        match self {
            Notice::Asked(question) => &question.inbox_id,
            Notice::Closed(closed) => &closed.inbox_id,
        }
    }
}

/// A new question, as the channels show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub inbox_id: String,
    /// The document's title.
    pub title: Option<String>,
    /// One per prompt (a single `prompt` is one item).
    pub items: Vec<PromptItem>,
    /// The source's name.
    pub asker: Option<String>,
    /// The one-question link (`None` when the inbox has no link to give).
    pub link: Option<String>,
    /// For a lone single-select question of at most three options: one
    /// signed POST target per option (ntfy's action buttons), in order.
    pub choices: Vec<ChoiceLink>,
    /// The prompt document, one line of JSON.
    pub document: String,
    /// When it was asked, RFC 3339.
    pub asked_at: String,
    /// Who it is addressed to (the input's `to`), for routing only: no
    /// channel shows it.
    pub to: Option<String>,
    /// Set when this notice is an escalation step's, not the ask's.
    pub escalation: Option<Escalation>,
}

/// An escalation step that fired for a question still unanswered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    /// 1-based, in the ladder's order.
    pub step: usize,
    /// The step's `notify`: a person or a group.
    pub notify: String,
}

/// An option with the URL that answers it by a POST.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceLink {
    pub label: String,
    pub url: String,
}

impl Question {
    /// A line for a title or a subject: the title, else the first question
    /// (after "Still unanswered: " for an escalation step's notice).
    pub fn headline(&self) -> String {
        let text = self
            .title
            .clone()
            .or_else(|| self.items.first().map(|item| item.question.clone()))
            .unwrap_or_default();
        let line = ask_user_core::sanitize::one_line(&text, 200);
        match &self.escalation {
            Some(_) => format!("Still unanswered: {line}"),
            None => line,
        }
    }

    /// What tells this notice from the question's others, where a channel
    /// needs a key that is the same on every retry (a webhook's event id, a
    /// Matrix transaction): the id, and `-escalated-STEP` for a step's.
    pub fn notice_key(&self) -> String {
        match &self.escalation {
            Some(escalation) => format!("{}-escalated-{}", self.inbox_id, escalation.step),
            None => self.inbox_id.clone(),
        }
    }
}

/// A question that ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed {
    pub inbox_id: String,
    /// `answered`, `cancelled`, … ([`super::store::Outcome::as_str`]).
    pub outcome: &'static str,
    /// The face that ended it ([`super::store::Face::as_str`]).
    pub face: &'static str,
    /// When the inbox heard of it, RFC 3339.
    pub at: String,
}

/// Why one attempt failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryError {
    /// Tried again later (no connection, a timeout, HTTP 5xx, 408, 429).
    Transient(String),
    /// Not tried again: the same request cannot succeed.
    Permanent(String),
}

impl DeliveryError {
    fn reason(&self) -> &'static str {
        match self {
            DeliveryError::Transient(_) => "transient",
            DeliveryError::Permanent(_) => "permanent",
        }
    }

    fn why(&self) -> &str {
        match self {
            DeliveryError::Transient(why) | DeliveryError::Permanent(why) => why,
        }
    }
}

/// What a delivery knows beside the notice.
#[derive(Debug, Clone)]
pub struct Context {
    /// Each attempt's time limit (`--notify-timeout`).
    pub timeout: Duration,
    /// The inbox's own address (CloudEvents' `source`).
    pub source: String,
}

impl Channel {
    pub fn kind(&self) -> Kind {
        match self {
            Channel::Ntfy(_) => Kind::Ntfy,
            Channel::Slack(_) => Kind::Slack,
            Channel::Webhook(_) => Kind::Webhook,
            Channel::Email(_) => Kind::Email,
            Channel::Matrix(_) => Kind::Matrix,
        }
    }

    /// Whether this channel has anything to say about `notice`: the
    /// webhook and Matrix hear of closes too, the others of new questions only.
    pub fn wants(&self, notice: &Notice) -> bool {
        match notice {
            Notice::Asked(_) => true,
            Notice::Closed(_) => matches!(self, Channel::Webhook(_) | Channel::Matrix(_)),
        }
    }

    /// One attempt.
    pub async fn deliver(&self, notice: &Notice, context: &Context) -> Result<(), DeliveryError> {
        match self {
            Channel::Ntfy(ntfy) => ntfy.deliver(notice, context).await,
            Channel::Slack(slack) => slack.deliver(notice, context).await,
            Channel::Webhook(webhook) => webhook.deliver(notice, context).await,
            Channel::Email(email) => email.deliver(notice, context).await,
            Channel::Matrix(target) => matrix::deliver(target, notice).await,
        }
    }
}

/// How the hub's questions become links (the hub's one-question links; a
/// seam for tests).
pub trait Links: Send + Sync {
    /// The one-question link of pending question `id`, and for each of
    /// `option_ids` the signed POST target that answers it with that option:
    /// all made at once, with one expiry, so that every button of a notice
    /// opens the capability its link carries.
    fn links(&self, id: &str, option_ids: &[&str]) -> Option<QuestionLinks>;
}

/// A notice's links: the question's own, and one per answering button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionLinks {
    pub link: String,
    pub choices: Vec<String>,
}

/// Delivers every notice from now on to `channels` (every question to each
/// of them: no policy), until the hub's changes end.
pub async fn deliver_all(
    channels: Vec<Channel>,
    hub: Arc<Hub>,
    links: Arc<dyn Links>,
    context: Context,
) {
    route::Router::new(channels, hub, links, context)
        .run()
        .await;
}

/// Reads the changes, and queues a notice for each channel `targets` names
/// that wants it.
async fn dispatch(
    mut changes: broadcast::Receiver<Change>,
    targets: &dyn route::Targets,
    metrics: &Metrics,
    links: &dyn Links,
) {
    loop {
        let (notice, queues) = match changes.recv().await {
            Ok(Change::Asked(listed)) => match read_question(&listed, links) {
                Some(question) => {
                    let queues = targets.asked(&question.inbox_id, question.to.as_deref());
                    (Notice::Asked(question), queues)
                }
                None => continue,
            },
            Ok(Change::Closed {
                id,
                outcome,
                face,
                announced: true,
            }) => {
                let queues = targets.closed(&id);
                let closed = Closed {
                    inbox_id: id,
                    outcome: outcome.as_str(),
                    face: face.as_str(),
                    at: super::store::rfc3339(super::store::now_ms()),
                };
                (Notice::Closed(closed), queues)
            }
            // Another replica's question: announced, and its end too, by the
            // replica that stored it.
            Ok(
                Change::Presence { .. }
                | Change::Updated(_)
                | Change::Heard(_)
                | Change::Closed {
                    announced: false, ..
                },
            ) => continue,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                eprintln!(
                    "ask_user inbox: --notify-to missed {missed} changes (too many at once); they were not sent"
                );
                for (channel, _) in targets.all() {
                    metrics.notify_dropped(channel.kind().as_str(), missed);
                }
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        queue_all(&Arc::new(notice), &queues, metrics);
    }
}

/// Queues `notice` for each of `queues` that wants it; a full queue drops
/// it (said and counted).
fn queue_all(notice: &Arc<Notice>, queues: &[route::Queue], metrics: &Metrics) {
    for (channel, queue) in queues {
        if !channel.wants(notice) {
            continue;
        }
        if queue.try_send(Arc::clone(notice)).is_err() {
            let kind = channel.kind().as_str();
            eprintln!(
                "ask_user inbox: --notify-to {kind}: {QUEUE} notices already wait (is it down?); the one for question {} is dropped",
                notice.inbox_id()
            );
            metrics.notify_dropped(kind, 1);
        }
    }
}

/// A channel's questions with a delivery under way, each with its later
/// notices that wait for it. They are few: a question has a created notice,
/// one for each escalation step, and a closed one, so this holds at most a
/// handful for each of the [`IN_FLIGHT`] questions beside the [`QUEUE`].
type Busy = Arc<Mutex<HashMap<String, VecDeque<Arc<Notice>>>>>;

/// One channel's worker: up to [`IN_FLIGHT`] notices at once, each until it
/// goes through or fails for good; a notice of a question that already has
/// one under way waits for it (and those before it), so that a question's
/// notices arrive in the order they came.
async fn work(
    channel: Arc<Channel>,
    mut queue: mpsc::Receiver<Arc<Notice>>,
    hub: Arc<Hub>,
    context: Context,
) {
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let busy: Busy = Arc::default();
    while let Some(notice) = queue.recv().await {
        let id = notice.inbox_id().to_string();
        if let Some(later) = lock(&busy).get_mut(&id) {
            later.push_back(notice);
            continue;
        }
        // Every slot taken: the queue fills behind this notice, as it did
        // behind the one sender. Only this loop adds to `busy`, so the
        // question is still free once a slot is.
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        lock(&busy).insert(id.clone(), VecDeque::new());
        let (channel, hub, context, busy) = (
            Arc::clone(&channel),
            Arc::clone(&hub),
            context.clone(),
            Arc::clone(&busy),
        );
        tokio::spawn(async move {
            let mut notice = notice;
            loop {
                deliver(&channel, &notice, &hub, &context).await;
                let mut questions = lock(&busy);
                match questions.get_mut(&id).and_then(VecDeque::pop_front) {
                    Some(next) => notice = next,
                    None => {
                        questions.remove(&id);
                        break;
                    }
                }
            }
            drop(slot);
        });
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// One notice, tried until it goes through or fails for good; each attempt
/// counted.
async fn deliver(channel: &Channel, notice: &Notice, hub: &Hub, context: &Context) {
    let kind = channel.kind().as_str();
    let mut wait = FIRST_RETRY;
    loop {
        let failure = match channel.deliver(notice, context).await {
            Ok(()) => {
                hub.metrics().notify_delivered(kind);
                return;
            }
            Err(failure) => failure,
        };
        hub.metrics().notify_failed(kind, failure.reason());
        let id = notice.inbox_id();
        let why = ask_user_core::sanitize::one_line(failure.why(), 300);
        if let DeliveryError::Permanent(_) = failure {
            eprintln!(
                "ask_user inbox: --notify-to {kind} failed for question {id} ({why}); not retried"
            );
            hub.metrics().notify_dropped(kind, 1);
            return;
        }
        eprintln!(
            "ask_user inbox: --notify-to {kind} failed for question {id} ({why}); retrying in {} s",
            wait.as_secs_f64()
        );
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(LAST_RETRY);
    }
}

/// A new question from its [`super::hub::Listed`] JSON, with its links.
pub fn read_question(listed: &str, links: &dyn Links) -> Option<Question> {
    #[derive(Deserialize)]
    struct Listed {
        #[serde(rename = "inboxId")]
        inbox_id: String,
        source: Source,
        #[serde(rename = "askedAt")]
        asked_at: String,
        document: Box<serde_json::value::RawValue>,
        #[serde(default)]
        to: Option<String>,
    }
    let listed: Listed = serde_json::from_str(listed).ok()?;
    let document: PromptDocument = serde_json::from_str(listed.document.get()).ok()?;
    let items: Vec<PromptItem> = match (document.prompt, document.prompts) {
        (Some(item), _) => vec![item],
        (None, Some(items)) => items,
        (None, None) => Vec::new(),
    };
    let id = listed.inbox_id;
    let buttons: Vec<&ask_user_core::prompt::OptionItem> = match items.as_slice() {
        [item] if item.kind == ask_user_core::model::Kind::SingleSelect => {
            let options = item.options.as_deref().unwrap_or_default();
            if (1..=ntfy::MAX_BUTTONS).contains(&options.len()) {
                options.iter().collect()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    };
    let option_ids: Vec<&str> = buttons.iter().map(|option| option.id.as_str()).collect();
    let made = links.links(&id, &option_ids);
    let choices = match &made {
        Some(made) => buttons
            .iter()
            .zip(&made.choices)
            .map(|(option, url)| ChoiceLink {
                label: option.label.clone(),
                url: url.clone(),
            })
            .collect(),
        None => Vec::new(),
    };
    Some(Question {
        link: made.map(|made| made.link),
        inbox_id: id,
        title: document.title,
        items,
        asker: listed.source.name,
        choices,
        document: listed.document.get().to_string(),
        asked_at: listed.asked_at,
        to: listed.to,
        escalation: None,
    })
}

/// The question as plain text: each question, its options numbered, and
/// the link (email, Slack's fallback text).
pub fn plain_text(question: &Question) -> String {
    let mut text = String::new();
    if let Some(escalation) = &question.escalation {
        text.push_str(&format!(
            "Still unanswered: escalated to {} (step {}).\n\n",
            escalation.notify, escalation.step
        ));
    }
    if let Some(title) = &question.title {
        text.push_str(title);
        text.push_str("\n\n");
    }
    for (n, item) in question.items.iter().enumerate() {
        if question.items.len() > 1 {
            text.push_str(&format!("{}. ", n + 1));
        }
        text.push_str(&item.question);
        text.push('\n');
        if let Some(context) = &item.context {
            text.push_str(context);
            text.push('\n');
        }
        for (i, option) in item.options.iter().flatten().enumerate() {
            text.push_str(&format!("   {}) {}\n", i + 1, option.label));
        }
        text.push('\n');
    }
    if let Some(asker) = &question.asker {
        text.push_str(&format!("Asked by {asker}.\n"));
    }
    match &question.link {
        Some(link) => text.push_str(&format!("Answer: {link}\n")),
        None => text.push_str(&format!(
            "Answer it in the inbox (question {}).\n",
            question.inbox_id
        )),
    }
    text
}

#[cfg(test)]
mod tests;
