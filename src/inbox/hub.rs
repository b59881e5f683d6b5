//! The inbox's heart, apart from HTTP: the pending questions (in the store
//! and, parsed, in memory), who waits for them, and every way one ends. The
//! routes ([`super::routes`]) only translate requests into these calls.
//!
//! Every change goes to the store first; only after it is on disk are
//! waiters and pages told.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::{broadcast, watch};

pub mod escalation;
mod links;
pub mod provenance;
mod routing;
mod rules;
pub mod votes;

pub use links::LinkTarget;

use super::links::LinkKey;
use super::metrics::{AskingFace, Metrics, StoreGauges};
use super::store::{
    self, Decided, Decision, Face, Millis, NewQuestion, Outcome, Source, Store, Stored, pool::Pool,
};
use crate::answer::{AnswerDocument, AnsweredBy, Unanswered, resolve_replies};
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::prompt::PromptDocument;
use crate::web::submission::{self, Submission};

/// How many changes a slow page may fall behind before its stream restarts.
const CHANGES_BUFFER: usize = 256;
/// What a replica that is stopping says to an ask or a wait (`NO_INBOX`,
/// 503): askers recognise it by this start and move to the next replica.
pub const STOPPING: &str = "this inbox replica is stopping";
/// Longest ask key, source name and working directory accepted.
const MAX_KEY_CHARS: usize = 64;
const MAX_NAME_CHARS: usize = 200;
const MAX_CWD_CHARS: usize = 4096;

/// What an asker sends to ask.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AskRequest {
    /// Chosen by the asker (random); a retried ask with the same key gets
    /// the same question back instead of a second one.
    pub key: String,
    /// The tool input, in any dialect, as the asker read it.
    pub input: Box<RawValue>,
    #[serde(default)]
    pub source: Source,
    /// When the asker gives up (milliseconds since the Unix epoch).
    #[serde(default)]
    pub expires_at: Option<Millis>,
    /// The face it asks through (for the metrics).
    #[serde(default)]
    pub face: Option<AskingFace>,
}

/// The reply to an ask.
#[derive(Debug, Serialize, Deserialize)]
pub struct Asked {
    #[serde(rename = "inboxId")]
    pub inbox_id: String,
}

/// A pending question as `inbox list` prints it and the page receives it.
#[derive(Debug, Serialize)]
pub struct Listed<'a> {
    #[serde(rename = "inboxId")]
    pub inbox_id: &'a str,
    pub source: &'a Source,
    #[serde(rename = "askedAt")]
    pub asked_at: String,
    #[serde(rename = "expiresAt", skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Set while the question waits without its asker (collect later).
    #[serde(rename = "askerGone", skip_serializing_if = "Option::is_none")]
    pub asker_gone: Option<Gone>,
    /// The question's prompt document, as `ask_user prompt` prints it.
    pub document: &'a RawValue,
    /// For a question that needs approvals: how many agree so far, and who voted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvals: Option<&'a votes::Ballot>,
    /// Who it is addressed to (the input's `to`: a person or a group;
    /// issue #40). The page lists it under "For you" for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<&'a str>,
    /// The escalation steps fired for it (`--policy`), in step order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<escalation::Shown>,
}

/// The "asker gone" mark of a pending question.
#[derive(Debug, Serialize)]
pub struct Gone {
    /// When the asker left.
    pub since: String,
    /// Why: `timeout` (its own time ran out), `away` (its client gave up on
    /// the call), or `disconnected` (killed, or its connection lost for good).
    pub reason: String,
    /// When the inbox stops keeping the question (`timed_out` or `asker_gone`).
    #[serde(rename = "keptUntil")]
    pub kept_until: String,
}

/// A decided question as `inbox history` prints it and the page's History shows it.
#[derive(Debug, Serialize)]
pub struct HistoryEntry<'a> {
    #[serde(rename = "inboxId")]
    pub inbox_id: &'a str,
    pub source: &'a Source,
    #[serde(rename = "askedAt")]
    pub asked_at: String,
    pub outcome: &'static str,
    /// Which face decided it: `page`, `cli`, `asker`, `inbox`, `link`, `ntfy`, `matrix` or `rule`.
    pub face: &'static str,
    /// The person who decided it, by the name of their token (`--tokens`),
    /// or the standing rule, by its id; absent when the inbox's own token
    /// (or no person) decided.
    #[serde(rename = "decidedBy", skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<&'a str>,
    #[serde(rename = "decidedAt")]
    pub decided_at: String,
    /// Its prompt document.
    pub question: &'a RawValue,
    /// The answer document its asker got (or gets on resume).
    pub answer: &'a RawValue,
    /// The escalation steps fired while it was pending (`--policy`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<escalation::Shown>,
}

/// How the person or an asker ends a question.
#[derive(Debug)]
pub enum Action {
    /// The page's structured answer.
    Submit(Submission),
    /// `inbox answer --reply … --note …`: one reply per question (the §7
    /// rules), and the note on each, when there is one.
    Replies(Vec<String>, Vec<Option<String>>),
    /// The page's Decline.
    Decline,
    /// The page's Dismiss, for a question whose asker is gone: a later
    /// resume gets `cancelled: true` (reason `dismissed`), never an answer.
    Dismiss,
    /// `inbox cancel`, or the asker cancelled.
    Cancel,
}

/// Why an asker leaves its question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Leaving {
    /// Its own time ran out.
    Timeout,
    /// It was cancelled (Ctrl-C, a signal, `inbox cancel`).
    Cancelled,
    /// Its client gave up on the call (an MCP `notifications/cancelled`,
    /// often a host's own tool timeout): the question is kept, as for a timeout.
    Away,
    /// Its call's wait (`mcp --wait`) ended first: the question is kept, as
    /// for a timeout, and the asker gets a pending document. Not [`Away`]:
    /// that one says `cancelled`, which would tell the model the person
    /// cancelled, while here nobody has done anything yet.
    ///
    /// [`Away`]: Leaving::Away
    Pending,
}

impl Leaving {
    pub fn as_str(self) -> &'static str {
        match self {
            Leaving::Timeout => "timeout",
            Leaving::Cancelled => "cancelled",
            Leaving::Away => "away",
            Leaving::Pending => "pending",
        }
    }
}

/// What the page hears about.
#[derive(Debug, Clone)]
pub enum Change {
    /// A new question (its [`Listed`] JSON).
    Asked(Arc<str>),
    /// A question got its outcome.
    Closed {
        id: String,
        outcome: Outcome,
        face: Face,
    },
    /// Its asker is connected (`true`) or not.
    Presence { id: String, present: bool },
    /// A pending question's card changed (a vote, an escalation step): its
    /// [`Listed`] JSON again. Not a new question: nobody is notified.
    Updated(Arc<str>),
}

/// A question that is still open, as held in memory.
struct Open {
    prompt: Prompt,
    asked_at: Millis,
    source: Source,
    expires_at: Option<Millis>,
    /// Its prompt document (one line of JSON).
    document: String,
    /// The "asker gone" mark: when and why its asker left.
    gone: Option<(Millis, String)>,
    /// The face it was asked through (`None` when asked before a restart).
    face: Option<AskingFace>,
    /// The outcome's document, once there is one.
    outcome: watch::Sender<Option<Arc<str>>>,
    /// Wait connections open for it.
    waiters: usize,
    /// Since when no asker waits (`None` while one does).
    absent_since: Option<Instant>,
    /// The asker token's name that asked it (`None`: the inbox's own token).
    asked_by: Option<String>,
    /// Its votes so far, when it needs approvals.
    ballot: Option<votes::Ballot>,
    /// The escalation steps fired for it, in step order.
    escalations: Vec<store::Escalation>,
}

impl Open {
    /// A pending question as stored. `absent_since`: when its asker's
    /// absence began counting here (`None`: not here; its asker waits on
    /// another replica, which watches it). `None` for an input that no
    /// longer parses.
    fn from_stored(stored: &Stored, absent_since: Option<Instant>) -> Option<Open> {
        let question = &stored.question;
        // A stored input was accepted once; the same parser accepts it again.
        let prompt = crate::prompt::parse_input_or_prompt(question.input.as_bytes()).ok()?;
        Some(Open {
            prompt,
            asked_at: question.asked_at,
            source: question.source.clone(),
            expires_at: question.expires_at,
            document: question.prompt.clone(),
            gone: stored.gone.clone(),
            face: None,
            outcome: watch::Sender::new(None),
            waiters: 0,
            absent_since,
            asked_by: question.asked_by.clone(),
            ballot: None,
            escalations: Vec::new(),
        })
    }
}

pub struct Hub {
    /// Memory only: never held across a store call, so that one replica's
    /// calls overlap on the pool's connections. Lock order: a connection of
    /// the pool first, then this.
    state: Mutex<State>,
    /// The store's connections (`--store-connections`): all calls about one
    /// question go through its own connection, held for the whole
    /// operation ([`Pool::of`]), which keeps that question's writes in order.
    pool: Pool,
    /// "sqlite" or "postgres".
    store_kind: &'static str,
    /// Whether the store answered its last contact (`/readyz`).
    store_reachable: AtomicBool,
    /// Set once the replica stops (SIGTERM): it takes no new ask or wait,
    /// and the open waits end, so that their askers reconnect elsewhere.
    draining: watch::Sender<bool>,
    changes: broadcast::Sender<Change>,
    /// How long a question may have no asker waiting before it is marked "asker gone".
    grace: Duration,
    /// How long a question is kept after its asker left (collect later), and
    /// an outcome can be resumed after it was decided.
    retention: Duration,
    metrics: Metrics,
    /// The key of one-question links (kept in the store: replicas share it).
    link_key: LinkKey,
    /// Where links point: the public URL, else the inbox's own (set once
    /// the server is bound; [`Hub::link_for`] is `None` before).
    link_base: OnceLock<String>,
    /// The operating system's user running the inbox: the person behind
    /// its own token, in `answeredBy`.
    inbox_user: String,
    /// Person tokens' names and groups, for `to` ([`Hub::people_for`]).
    people: routing::People,
    /// The standing answers and who is away ([`Hub::reload_rules`]).
    rules: rules::Rules,
}

struct State {
    open: HashMap<String, Open>,
    /// Asks between their store call and their entry in `open`.
    asking: usize,
    /// Questions decided or closed while `asking` was above zero: an ask
    /// stores its question on any connection, before its id (so its own
    /// connection) is known; if another replica, or a page here, decides it
    /// before the ask puts it in memory, the ask must not list it as pending.
    /// Emptied whenever no ask is in that gap.
    closed_while_asking: HashSet<String>,
}

impl State {
    /// Question `id` left (or never entered) `open` with an outcome.
    fn closed(&mut self, id: &str) {
        if self.asking > 0 {
            self.closed_while_asking.insert(id.to_string());
        }
    }
}

/// Counts one ask in its gap ([`State::closed_while_asking`]) while it lives.
struct Asking<'a>(&'a Hub);

impl<'a> Asking<'a> {
    fn start(hub: &'a Hub) -> Asking<'a> {
        hub.state().asking += 1;
        Asking(hub)
    }
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.asking -= 1;
        if state.asking == 0 {
            state.closed_while_asking.clear();
        }
    }
}

impl Hub {
    /// Loads the pending questions of `store`. Their askers get `grace` to
    /// come back (they reconnect with backoff after an inbox restart); a
    /// question without its asker is kept for `retention`.
    pub fn new(
        store: Box<dyn Store>,
        grace: Duration,
        retention: Duration,
    ) -> Result<Hub, AskError> {
        Hub::pooled(vec![store], grace, retention)
    }

    /// [`Hub::new`] on several connections to one store
    /// ([`store::open_pool`]); at least one.
    pub fn pooled(
        stores: Vec<Box<dyn Store>>,
        grace: Duration,
        retention: Duration,
    ) -> Result<Hub, AskError> {
        let metrics = Metrics::default();
        let pool = Pool::new(stores.into_iter().map(|s| metrics.timed(s)).collect());
        let mut slot = pool.any();
        let store = &mut **slot;
        let link_key = LinkKey::from_bytes(&store.link_key().map_err(store_error)?);
        let now = Instant::now();
        let mut open = HashMap::new();
        for stored in store.pending().map_err(store_error)? {
            if let Some(mut question) = Open::from_stored(&stored, Some(now)) {
                question.ballot = votes::stored_ballot(store, &stored.id, &question.prompt)?;
                open.insert(stored.id, question);
            }
        }
        let ids: Vec<String> = open.keys().cloned().collect();
        for (id, fired) in escalation::stored(store, &ids)? {
            if let Some(question) = open.get_mut(&id) {
                question.escalations = fired;
            }
        }
        let store_kind = store.kind();
        drop(slot);
        Ok(Hub {
            store_kind,
            store_reachable: AtomicBool::new(true),
            draining: watch::Sender::new(false),
            state: Mutex::new(State {
                open,
                asking: 0,
                closed_while_asking: HashSet::new(),
            }),
            pool,
            changes: broadcast::Sender::new(CHANGES_BUFFER),
            grace,
            retention,
            metrics,
            link_key,
            link_base: OnceLock::new(),
            inbox_user: crate::platform::user::name(),
            people: Default::default(),
            rules: Default::default(),
        })
    }

    /// The key of one-question links.
    pub fn link_key(&self) -> &LinkKey {
        &self.link_key
    }

    /// Sets where links point (once; later calls change nothing).
    pub fn set_link_base(&self, base: String) {
        let _ = self.link_base.set(base);
    }

    /// Where links point, once set.
    pub fn link_base(&self) -> Option<&str> {
        self.link_base.get().map(String::as_str)
    }

    /// The one-question link of pending question `id` (its full URL), good
    /// until its deadline, else for the retention time from now; `None`
    /// for a question that is not pending or before the base is set.
    pub fn link_for(&self, question_id: &str) -> Option<String> {
        let base = self.link_base()?;
        let expires = self.link_expiry(question_id)?;
        let capability = self.link_key.issue(question_id, expires);
        Some(super::links::link_url(base, &capability))
    }

    /// When a link to pending question `id` made now expires: its deadline,
    /// else the retention time from now; `None` when it is not pending.
    pub fn link_expiry(&self, question_id: &str) -> Option<u64> {
        self.load(&mut **self.pool.of(question_id), question_id)
            .ok()?;
        let state = self.state();
        let open = state.open.get(question_id)?;
        let end = open.expires_at.unwrap_or_else(|| self.retention_end());
        u64::try_from(end).ok()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores a new question (or finds the one a retry stands for).
    pub fn ask(&self, request: &AskRequest) -> Result<Asked, AskError> {
        self.ask_as(request, None)
    }

    /// [`Hub::ask`] by a named asker (`--tokens`): only it may wait for,
    /// resume or leave the question. A retry of another asker's key is
    /// refused.
    pub fn ask_as(&self, request: &AskRequest, asker: Option<&str>) -> Result<Asked, AskError> {
        self.check_serving()?;
        check_request(request)?;
        // A tool input in any dialect, or a prompt document (what an MCP
        // server or `ask_user prompt` has in hand).
        let prompt = crate::prompt::parse_input_or_prompt(request.input.get().as_bytes())?;
        let document = crate::document_line(&PromptDocument::new(&prompt));
        let asked_at = store::now_ms();
        let asking = Asking::start(self);
        let mut store = self.pool.any();
        let (id, created) = store
            .ask(&NewQuestion {
                ask_key: request.key.clone(),
                input: request.input.get().to_string(),
                prompt: document.clone(),
                source: request.source.clone(),
                asked_at,
                expires_at: request.expires_at,
                asked_by: asker.map(str::to_string),
            })
            .map_err(store_error)?;
        if !created && asker.is_some() {
            let held = self.state().open.get(&id).map(|open| open.asked_by.clone());
            let owner = match held {
                Some(owner) => owner,
                None => store
                    .get(&id)
                    .map_err(store_error)?
                    .and_then(|stored| stored.question.asked_by),
            };
            if owner.as_deref() != asker {
                return Err(AskError::Forbidden(Detail::at(
                    "this key belongs to another asker's question; ask with a key of your own",
                    "key",
                )));
            }
        }
        if created {
            let ballot = prompt
                .routing
                .approvals
                .as_ref()
                .map(|approvals| votes::Ballot {
                    needed: approvals.count,
                    approvals: 0,
                    voters: Vec::new(),
                });
            let open = Open {
                prompt,
                asked_at,
                source: request.source.clone(),
                expires_at: request.expires_at,
                face: request.face,
                document,
                gone: None,
                outcome: watch::Sender::new(None),
                waiters: 0,
                absent_since: Some(Instant::now()),
                asked_by: asker.map(str::to_string),
                ballot,
                escalations: Vec::new(),
            };
            drop(store);
            self.metrics.asked(request.face);
            // A standing answer ends it before it is listed (nobody is
            // notified of a question a rule answered).
            if self.answer_by_rule(&id, &open).is_none() {
                self.enter(&id, open)?;
            }
        }
        drop(asking);
        Ok(Asked { inbox_id: id })
    }

    /// Puts a question this replica has just stored into memory and lists
    /// it, unless it was closed meanwhile (decided through another replica
    /// or a page here before the ask got here: a wait finds its outcome in
    /// the store), or is there already (heard of through the store's notice
    /// first: only what the ask knows is added).
    fn enter(&self, id: &str, open: Open) -> Result<(), AskError> {
        let listed = self.listed(id, &open)?;
        let mut state = self.state();
        if state.closed_while_asking.contains(id) {
            return Ok(());
        }
        if let Some(known) = state.open.get_mut(id) {
            known.face = open.face;
            if known.waiters == 0 {
                known.absent_since = open.absent_since;
            }
            return Ok(());
        }
        state.open.insert(id.to_string(), open);
        let _ = self.changes.send(Change::Asked(listed));
        Ok(())
    }

    /// Every pending question, oldest first, as [`Listed`] JSON.
    pub fn list(&self) -> Vec<Arc<str>> {
        self.listed_in_order(&self.state())
    }

    /// The pending questions now, and every change after them.
    pub fn subscribe(&self) -> (Vec<Arc<str>>, broadcast::Receiver<Change>) {
        // Under the lock, so that no change falls between the two.
        let state = self.state();
        (self.listed_in_order(&state), self.changes.subscribe())
    }

    /// The decided questions, the most recently decided first (at most
    /// `limit`), as [`HistoryEntry`] JSON lines.
    pub fn history(&self, limit: Option<usize>) -> Result<Vec<String>, AskError> {
        let mut store = self.pool.any();
        let stored = store.history(limit).map_err(store_error)?;
        let ids: Vec<String> = stored.iter().map(|item| item.id.clone()).collect();
        let mut fired = escalation::stored(&mut **store, &ids)?;
        drop(store);
        let mut lines = Vec::with_capacity(stored.len());
        for item in &stored {
            let Some(decision) = &item.decision else {
                continue;
            };
            lines.push(crate::document_line(&HistoryEntry {
                inbox_id: &item.id,
                source: &item.question.source,
                asked_at: rfc3339(item.question.asked_at),
                outcome: decision.outcome.as_str(),
                face: decision.face.as_str(),
                decided_by: decision.by.as_deref(),
                decided_at: rfc3339(decision.at),
                question: stored_json(&item.question.prompt)?,
                answer: stored_json(&decision.document)?,
                escalations: fired
                    .remove(&item.id)
                    .unwrap_or_default()
                    .iter()
                    .map(escalation::Shown::of)
                    .collect(),
            }));
        }
        Ok(lines)
    }

    /// Every change from now on (`--notify` hears the new questions here).
    pub fn changes(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Waits for question `id`: its document at once when it has an outcome,
    /// else a [`Waiter`] that counts as the asker being present.
    pub fn wait(self: &Arc<Self>, id: &str) -> Result<Wait, AskError> {
        self.wait_as(id, None)
    }

    /// [`Hub::wait`] by a named asker: its own questions only (another's is
    /// an unknown question to it).
    pub fn wait_as(self: &Arc<Self>, id: &str, asker: Option<&str>) -> Result<Wait, AskError> {
        self.check_serving()?;
        let mut store = self.pool.of(id);
        self.load(&mut **store, id)?;
        self.check_asker(&mut **store, id, asker)?;
        let mut state = self.state();
        if let Some(open) = state.open.get_mut(id) {
            open.waiters += 1;
            let mut came_back = open.absent_since.take().is_some();
            let outcome = open.outcome.subscribe();
            let resumed = open.gone.take().is_some();
            drop(state);
            if resumed {
                // A resume: the question has its asker again.
                came_back = true;
                store.mark_back(id, store::now_ms()).map_err(store_error)?;
            }
            if came_back {
                let _ = self.changes.send(Change::Presence {
                    id: id.to_string(),
                    present: true,
                });
            }
            return Ok(Wait::Pending(Waiter {
                hub: Arc::clone(self),
                id: id.to_string(),
                outcome,
            }));
        }
        drop(state);
        match decision(&mut **store, id)? {
            Some(decision) if self.expired(&decision, store::now_ms()) => {
                Err(self.expired_question(id))
            }
            Some(decision) => Ok(Wait::Done(decision.document.into())),
            None => Err(unknown_question(id)),
        }
    }

    /// Whether a decided question can no longer be resumed: its outcome is
    /// older than the retention time, or the inbox itself ended it because
    /// nobody answered within that time.
    fn expired(&self, decision: &Decision, now: Millis) -> bool {
        decision.face == Face::Inbox || decision.at.saturating_add(millis(self.retention)) <= now
    }

    fn expired_question(&self, id: &str) -> AskError {
        AskError::UnknownQuestion(Detail::new(format!(
            "question {id} has expired: the inbox keeps a question {} after its asker left or it was answered; ask it again",
            human(self.retention)
        )))
    }

    /// Ends question `id` by `action`, done through `face`: the first outcome
    /// wins; later ones get ALREADY_ANSWERED. Returns the document its asker gets.
    pub fn decide(&self, id: &str, action: Action, face: Face) -> Result<Arc<str>, AskError> {
        self.decide_as(id, action, face, None)
    }

    /// [`Hub::decide`] by a named person (`--tokens`), whose name history
    /// keeps.
    pub fn decide_as(
        &self,
        id: &str,
        action: Action,
        face: Face,
        person: Option<&str>,
    ) -> Result<Arc<str>, AskError> {
        let mut store = self.pool.of(id);
        self.load(&mut **store, id)?;
        let state = self.state();
        let Some(open) = state.open.get(id) else {
            drop(state);
            return match decision(&mut **store, id)? {
                Some(decision) => Err(already_decided(id, &decision)),
                None => Err(unknown_question(id)),
            };
        };
        let quorum = votes::Quorum::of(&open.prompt);
        let (outcome, document) = match action {
            Action::Submit(submission) => (
                Outcome::Answered,
                submission::resolve(&open.prompt, submission)?,
            ),
            Action::Replies(replies, notes) => (
                Outcome::Answered,
                resolve_replies(&open.prompt, &replies, &notes)?,
            ),
            Action::Decline => (
                Outcome::Declined,
                AnswerDocument::unanswered(Unanswered::Declined),
            ),
            Action::Dismiss => {
                let mut document = AnswerDocument::unanswered(Unanswered::Cancelled);
                document.reason = Some("dismissed".into());
                (Outcome::Dismissed, document)
            }
            Action::Cancel => (
                Outcome::Cancelled,
                AnswerDocument::unanswered(Unanswered::Cancelled),
            ),
        };
        drop(state);
        if let Some(quorum) = quorum {
            return self.vote(&mut **store, id, quorum, (outcome, document), face, person);
        }
        self.close(&mut **store, id, outcome, face, document, person)
    }

    /// The asker leaves (`why`) without an answer. Cancelled, the question
    /// ends cancelled. On a timeout, a client's give-up or a wait's end
    /// (pending) it stays open,
    /// marked "asker gone", for the retention time (collect later), and the
    /// asker gets a timed-out (or cancelled) document whose `hint` says how
    /// to resume. A question that already has an outcome returns its
    /// document (an answer that beat the asker's timeout still reaches it).
    pub fn leave(&self, id: &str, why: Leaving) -> Result<Arc<str>, AskError> {
        self.leave_as(id, why, None)
    }

    /// [`Hub::leave`] by a named asker: its own questions only.
    pub fn leave_as(
        &self,
        id: &str,
        why: Leaving,
        asker: Option<&str>,
    ) -> Result<Arc<str>, AskError> {
        let mut store = self.pool.of(id);
        self.load(&mut **store, id)?;
        self.check_asker(&mut **store, id, asker)?;
        if !self.state().open.contains_key(id) {
            return match decision(&mut **store, id)? {
                Some(decision) => Ok(decision.document.into()),
                None => Err(unknown_question(id)),
            };
        }
        let how = match why {
            Leaving::Cancelled => {
                let document = AnswerDocument::unanswered(Unanswered::Cancelled);
                return self.close(
                    &mut **store,
                    id,
                    Outcome::Cancelled,
                    Face::Asker,
                    document,
                    None,
                );
            }
            Leaving::Timeout => Unanswered::TimedOut,
            Leaving::Away => Unanswered::Cancelled,
            Leaving::Pending => Unanswered::Pending,
        };
        self.mark_gone(&mut **store, id, why.as_str(), store::now_ms())?;
        let hint = resume_hint(id, Some(self.retention));
        let document = match how {
            Unanswered::Pending => AnswerDocument::pending(id, hint),
            how => {
                let mut document = AnswerDocument::unanswered(how).with_inbox_id(id);
                document.hint = Some(hint);
                document
            }
        };
        Ok(crate::document_line(&document).into())
    }

    /// Marks a pending question "asker gone" (once; the first reason stays)
    /// and tells the pages.
    /// `store`: question `id`'s connection, held by the caller.
    fn mark_gone(
        &self,
        store: &mut dyn Store,
        id: &str,
        reason: &str,
        at: Millis,
    ) -> Result<(), AskError> {
        match self.state().open.get(id) {
            Some(open) if open.gone.is_none() => {}
            _ => return Ok(()),
        }
        store.mark_gone(id, reason, at).map_err(store_error)?;
        let mut state = self.state();
        if let Some(open) = state.open.get_mut(id) {
            open.gone = Some((at, reason.to_string()));
            self.metrics.asker_gone(open.face, reason);
        }
        let _ = self.changes.send(Change::Presence {
            id: id.to_string(),
            present: false,
        });
        Ok(())
    }

    /// Marks "asker gone" every question whose asker has been away longer
    /// than the grace time (killed, or its connection lost for good), and
    /// ends every question kept longer than the retention time after its
    /// asker left: `timed_out` when it left by its timeout, else
    /// `asker_gone`. `now` and `wall` are the same moment on the monotonic
    /// and the wall clock. Returns the ids it ended.
    pub fn sweep(&self, now: Instant, wall: Millis) -> Vec<String> {
        let state = self.state();
        let absent: Vec<String> = state
            .open
            .iter()
            .filter(|(_, open)| {
                open.gone.is_none()
                    && open
                        .absent_since
                        .is_some_and(|since| now.saturating_duration_since(since) >= self.grace)
            })
            .map(|(id, _)| id.clone())
            .collect();
        drop(state);
        for id in absent {
            let _ = self.mark_gone(&mut **self.pool.of(&id), &id, "disconnected", wall);
        }
        let state = self.state();
        let retention = millis(self.retention);
        let expired: Vec<(String, Outcome)> = state
            .open
            .iter()
            .filter_map(|(id, open)| {
                let (since, reason) = open.gone.as_ref()?;
                (since.saturating_add(retention) <= wall).then(|| {
                    let outcome = if reason == Leaving::Timeout.as_str() {
                        Outcome::TimedOut
                    } else {
                        Outcome::AskerGone
                    };
                    (id.clone(), outcome)
                })
            })
            .collect();
        drop(state);
        expired
            .into_iter()
            .filter(|(id, outcome)| {
                let document = if *outcome == Outcome::TimedOut {
                    AnswerDocument::unanswered(Unanswered::TimedOut)
                } else {
                    let mut document = AnswerDocument::unanswered(Unanswered::Cancelled);
                    document.reason = Some("asker gone".into());
                    document
                };
                let mut store = self.pool.of(id);
                self.close(&mut **store, id, *outcome, Face::Inbox, document, None)
                    .is_ok()
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// Writes the outcome (first writer wins), then tells the waiters and
    /// pages. `store`: question `id`'s connection, held by the caller.
    fn close(
        &self,
        store: &mut dyn Store,
        id: &str,
        outcome: Outcome,
        face: Face,
        document: AnswerDocument,
        by: Option<&str>,
    ) -> Result<Arc<str>, AskError> {
        let document = if document.answered && document.answered_by.is_none() {
            let by = provenance::answerer(face, by, &self.inbox_user);
            document.answered_by(AnsweredBy::One(by))
        } else {
            document
        };
        let decision = Decision {
            outcome,
            face,
            document: crate::document_line(&document.with_inbox_id(id)),
            at: store::now_ms(),
            by: by.map(str::to_string),
        };
        let decided = store.decide(id, &decision).map_err(store_error)?;
        let mut state = self.state();
        match decided {
            Decided::Now => {
                state.closed(id);
                Ok(self.closed(&mut state, id, &decision))
            }
            Decided::Already(earlier) => {
                state.closed(id);
                self.closed_elsewhere(&mut state, id, &earlier);
                Err(already_decided(id, &earlier))
            }
            Decided::Unknown => Err(unknown_question(id)),
        }
    }

    /// After `decision` was written here: tells the waiters and pages, and
    /// returns its document.
    fn closed(&self, state: &mut State, id: &str, decision: &Decision) -> Arc<str> {
        let line: Arc<str> = Arc::from(decision.document.as_str());
        if let Some(open) = state.open.remove(id) {
            open.outcome.send_replace(Some(Arc::clone(&line)));
            self.metrics.closed(
                open.face,
                decision.outcome,
                decision.face,
                decision.at - open.asked_at,
            );
        }
        let _ = self.changes.send(Change::Closed {
            id: id.to_string(),
            outcome: decision.outcome,
            face: decision.face,
        });
        line
    }

    /// Another replica's outcome came first: its waiters here get it.
    fn closed_elsewhere(&self, state: &mut State, id: &str, earlier: &Decision) {
        if let Some(open) = state.open.remove(id) {
            open.outcome
                .send_replace(Some(Arc::from(earlier.document.as_str())));
            let _ = self.changes.send(Change::Closed {
                id: id.to_string(),
                outcome: earlier.outcome,
                face: earlier.face,
            });
        }
    }

    /// Brings question `id` up to the store after another replica changed
    /// it (PostgreSQL's NOTIFY): asked there, it is listed here; decided
    /// there, its waiters here get the outcome; its "asker gone" mark follows.
    pub fn refresh(&self, id: &str) -> Result<(), AskError> {
        let mut store = self.pool.of(id);
        if let Some(stored) = store.get(id).map_err(store_error)? {
            self.reconcile(&mut **store, &mut self.state(), stored);
        }
        Ok(())
    }

    /// Brings every question up to the store: after the replica may have
    /// missed changes (its listening connection was lost).
    pub fn resync(&self) -> Result<(), AskError> {
        // Every connection held: no question changes while memory catches up.
        let mut all = self.pool.all();
        let store = &mut **all[0];
        let pending = store.pending().map_err(store_error)?;
        let mut closed: Vec<String> = self.state().open.keys().cloned().collect();
        closed.retain(|id| !pending.iter().any(|stored| stored.id == *id));
        let mut decided = Vec::with_capacity(closed.len());
        for id in closed {
            if let Some(stored) = store.get(&id).map_err(store_error)? {
                decided.push(stored);
            }
        }
        let mut state = self.state();
        for stored in pending.into_iter().chain(decided) {
            self.reconcile(store, &mut state, stored);
        }
        Ok(())
    }

    /// A named asker may touch its own questions only: another's (pending
    /// or decided) is unknown to it, so that it learns nothing of it.
    fn check_asker(
        &self,
        store: &mut dyn Store,
        id: &str,
        asker: Option<&str>,
    ) -> Result<(), AskError> {
        let Some(asker) = asker else {
            return Ok(());
        };
        let held = self.state().open.get(id).map(|open| open.asked_by.clone());
        let owner = match held {
            Some(owner) => owner,
            None => store
                .get(id)
                .map_err(store_error)?
                .and_then(|stored| stored.question.asked_by),
        };
        if owner.as_deref() == Some(asker) {
            Ok(())
        } else {
            Err(unknown_question(id))
        }
    }

    /// A question this replica does not hold, from the store when it is
    /// pending there (asked on another replica, and its notice not here yet).
    /// `store`: question `id`'s connection, held by the caller.
    fn load(&self, store: &mut dyn Store, id: &str) -> Result<(), AskError> {
        if self.state().open.contains_key(id) || !store::is_id(id) {
            return Ok(());
        }
        if let Some(stored) = store.get(id).map_err(store_error)? {
            self.reconcile(store, &mut self.state(), stored);
        }
        Ok(())
    }

    /// Makes memory agree with `stored`, telling waiters and pages.
    /// `store`: the question's connection, held by the caller (the lock
    /// order holds: a slot, then memory); it is read under the memory lock
    /// only for a question that needs approvals (its votes, for the card).
    fn reconcile(&self, store: &mut dyn Store, state: &mut State, stored: Stored) {
        let id = stored.id.clone();
        match (stored.decision, state.open.get_mut(&id)) {
            (Some(decision), Some(_)) => {
                state.closed(&id);
                if let Some(open) = state.open.remove(&id) {
                    open.outcome
                        .send_replace(Some(Arc::from(decision.document.as_str())));
                }
                let _ = self.changes.send(Change::Closed {
                    id,
                    outcome: decision.outcome,
                    face: decision.face,
                });
            }
            (Some(_), None) => state.closed(&id),
            (None, Some(open)) => {
                // A vote through another replica: the card's count follows.
                if open.ballot.is_some() {
                    let ballot = votes::stored_ballot(store, &id, &open.prompt);
                    if let Ok(ballot) = ballot
                        && ballot != open.ballot
                    {
                        open.ballot = ballot;
                        if let Ok(listed) = self.listed(&id, open) {
                            let _ = self.changes.send(Change::Updated(listed));
                        }
                    }
                }
                if open.gone != stored.gone {
                    let present = stored.gone.is_none();
                    open.gone = stored.gone;
                    let _ = self.changes.send(Change::Presence { id, present });
                }
            }
            (None, None) => {
                let pending = Stored {
                    decision: None,
                    ..stored
                };
                let Some(mut open) = Open::from_stored(&pending, None) else {
                    return;
                };
                open.ballot = votes::stored_ballot(store, &id, &open.prompt).unwrap_or(None);
                open.escalations = escalation::stored(store, std::slice::from_ref(&id))
                    .ok()
                    .and_then(|mut fired| fired.remove(&id))
                    .unwrap_or_default();
                if let Ok(listed) = self.listed(&id, &open) {
                    state.open.insert(id, open);
                    let _ = self.changes.send(Change::Asked(listed));
                }
            }
        }
    }

    /// A wait connection closed.
    fn waiter_left(&self, id: &str) {
        let mut state = self.state();
        let Some(open) = state.open.get_mut(id) else {
            return;
        };
        open.waiters = open.waiters.saturating_sub(1);
        if open.waiters == 0 {
            open.absent_since = Some(Instant::now());
            drop(state);
            let _ = self.changes.send(Change::Presence {
                id: id.to_string(),
                present: false,
            });
        }
    }

    /// "sqlite" or "postgres".
    pub fn store_kind(&self) -> &'static str {
        self.store_kind
    }

    /// Whether the store answered its last contact (`/readyz`).
    pub fn store_reachable(&self) -> bool {
        self.store_reachable.load(Ordering::SeqCst)
    }

    /// What the store's listening connection found (PostgreSQL).
    pub fn set_store_reachable(&self, reachable: bool) {
        self.store_reachable.store(reachable, Ordering::SeqCst);
    }

    /// The counts `/metrics` shows.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// `/metrics`: the counts, and the store's gauges as they are now. The
    /// replicas are counted by a call to the store (PostgreSQL: one query,
    /// under its statement timeout), skipped while the store is known to be
    /// unreachable, so that a scrape then never waits on it.
    pub fn render_metrics(&self) -> String {
        let reachable = self.store_reachable();
        let replicas = if reachable {
            self.pool.any().replicas().ok()
        } else {
            None
        };
        self.metrics.render(&StoreGauges {
            kind: self.store_kind,
            reachable,
            replicas,
        })
    }

    /// The named tokens kept in the store (`inbox token add`).
    /// Runs `f` on the store, its errors as the hub's: for the pairing
    /// codes ([`super::pair`]), kept beside the tokens.
    pub fn with_store<T>(
        &self,
        f: impl FnOnce(&mut dyn store::Store) -> Result<T, store::Error>,
    ) -> Result<T, AskError> {
        f(&mut **self.pool.any()).map_err(store_error)
    }

    pub fn stored_tokens(&self) -> Result<Vec<store::StoredToken>, AskError> {
        self.pool.any().tokens().map_err(store_error)
    }

    /// Starts the drain (SIGTERM): from now on an ask or a wait gets
    /// `NO_INBOX` ([`STOPPING`]), and every open wait ends without an
    /// outcome, so that its asker reconnects (to the next replica in its
    /// list). Everything else is still served.
    pub fn drain(&self) {
        self.draining.send_replace(true);
    }

    pub fn is_draining(&self) -> bool {
        *self.draining.borrow()
    }

    /// How many wait connections are open (the drain waits for none).
    pub fn waiting(&self) -> usize {
        self.state().open.values().map(|open| open.waiters).sum()
    }

    /// `NO_INBOX` while draining.
    fn check_serving(&self) -> Result<(), AskError> {
        if self.is_draining() {
            Err(AskError::NoInbox(Detail::new(format!(
                "{STOPPING} and takes no new question or wait; ask through another replica (ASK_USER_INBOX may list several), or again once it is back"
            ))))
        } else {
            Ok(())
        }
    }

    /// Whether question `id` is pending and its asker is connected.
    pub fn is_present(&self, id: &str) -> Option<bool> {
        self.state().open.get(id).map(|open| open.waiters > 0)
    }
}

/// What [`Hub::wait`] found.
pub enum Wait {
    /// The question's outcome document.
    Done(Arc<str>),
    Pending(Waiter),
}

/// An asker waiting for an outcome; dropping it (the connection closed)
/// starts the grace time.
pub struct Waiter {
    hub: Arc<Hub>,
    id: String,
    outcome: watch::Receiver<Option<Arc<str>>>,
}

impl Waiter {
    /// The outcome's document; `None` if the inbox is stopping first.
    pub async fn outcome(&mut self) -> Option<Arc<str>> {
        self.outcome
            .wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|document| document.clone())
    }

    /// Resolves once the replica drains (at once if it does): the wait is
    /// to end without an outcome, so that its asker reconnects elsewhere.
    pub fn stopping(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut draining = self.hub.draining.subscribe();
        async move {
            let _ = draining.wait_for(|draining| *draining).await;
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.hub.waiter_left(&self.id);
    }
}

impl Hub {
    fn listed_in_order(&self, state: &State) -> Vec<Arc<str>> {
        let mut open: Vec<(&String, &Open)> = state.open.iter().collect();
        open.sort_by(|(a_id, a), (b_id, b)| a.asked_at.cmp(&b.asked_at).then(a_id.cmp(b_id)));
        open.into_iter()
            .filter_map(|(id, open)| self.listed(id, open).ok())
            .collect()
    }

    /// A pending question as [`Listed`] JSON.
    fn listed(&self, id: &str, open: &Open) -> Result<Arc<str>, AskError> {
        let document = stored_json(&open.document)?;
        let listed = Listed {
            inbox_id: id,
            source: &open.source,
            asked_at: rfc3339(open.asked_at),
            expires_at: open.expires_at.map(rfc3339),
            asker_gone: open.gone.as_ref().map(|(since, reason)| Gone {
                since: rfc3339(*since),
                reason: reason.clone(),
                kept_until: rfc3339(since.saturating_add(millis(self.retention))),
            }),
            document,
            approvals: open.ballot.as_ref(),
            to: open.prompt.routing.to.as_deref(),
            escalations: escalation::shown(open),
        };
        Ok(crate::document_line(&listed).into())
    }
}

fn stored_json(text: &str) -> Result<&RawValue, AskError> {
    serde_json::from_str(text).map_err(|e| {
        AskError::InternalError(Detail::new(format!("a stored document is not JSON ({e})")))
    })
}

fn millis(duration: Duration) -> Millis {
    Millis::try_from(duration.as_millis()).unwrap_or(Millis::MAX)
}

/// A duration as people write it: `24 h`, `90 min`, `5 s`.
pub fn human(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 3600 && secs.is_multiple_of(3600) {
        format!("{} h", secs / 3600)
    } else if secs >= 60 && secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

/// The one sentence a timed-out document gives the model: how to collect
/// the answer later. `kept`: the inbox's retention, when known.
pub fn resume_hint(id: &str, kept: Option<Duration>) -> String {
    let how_long = kept
        .map(|kept| format!(" for {}", human(kept)))
        .unwrap_or_default();
    format!(
        "Nobody answered yet, but the question stays open in the inbox{how_long}: to collect the person's answer later, call this tool again with the input {{\"resume\": \"{id}\"}} instead of a question (it waits if there is no answer yet)."
    )
}

fn check_request(request: &AskRequest) -> Result<(), AskError> {
    let bad = |message: String, path: &str| Err(AskError::InvalidField(Detail::at(message, path)));
    let key = &request.key;
    if key.is_empty()
        || key.chars().count() > MAX_KEY_CHARS
        || !key.chars().all(|c| c.is_ascii_graphic())
    {
        return bad(
            format!("key must be 1 to {MAX_KEY_CHARS} visible ASCII characters"),
            "key",
        );
    }
    if let Some(name) = &request.source.name
        && name.chars().count() > MAX_NAME_CHARS
    {
        return bad(
            format!("source.name must be at most {MAX_NAME_CHARS} characters"),
            "source.name",
        );
    }
    if let Some(cwd) = &request.source.cwd
        && cwd.chars().count() > MAX_CWD_CHARS
    {
        return bad(
            format!("source.cwd must be at most {MAX_CWD_CHARS} characters"),
            "source.cwd",
        );
    }
    Ok(())
}

fn decision(store: &mut dyn Store, id: &str) -> Result<Option<Decision>, AskError> {
    Ok(store
        .get(id)
        .map_err(store_error)?
        .and_then(|stored| stored.decision))
}

pub fn unknown_question(id: &str) -> AskError {
    AskError::UnknownQuestion(Detail::new(format!(
        "the inbox has no question {id:?}; list the pending ones with `ask_user inbox list`"
    )))
}

fn already_decided(id: &str, decision: &Decision) -> AskError {
    let how = match (decision.outcome, decision.face) {
        (Outcome::Answered, Face::Page) => "answered in the page",
        (Outcome::Answered, Face::Cli) => "answered from a terminal (inbox answer)",
        (Outcome::Answered, Face::Link) => "answered through its one-question link",
        (Outcome::Answered, Face::Ntfy) => "answered from an ntfy notification",
        (Outcome::Answered, Face::Matrix) => "answered in a Matrix room",
        (Outcome::Answered, Face::Rule) => "answered by a standing rule (ask_user inbox rule list)",
        (Outcome::Answered, _) => "answered by its asker",
        (Outcome::Declined, _) => "declined in the page",
        (Outcome::Cancelled, Face::Cli) => "cancelled from a terminal (inbox cancel)",
        (Outcome::Cancelled, _) => "cancelled by its asker",
        (Outcome::Dismissed, _) => "dismissed in the page",
        (Outcome::TimedOut, _) => "timed out",
        (Outcome::AskerGone, _) => "withdrawn: its asker went away",
    };
    AskError::AlreadyAnswered(Detail::new(format!(
        "question {id} is already closed: {how}; nothing was changed"
    )))
}

fn store_error(err: store::Error) -> AskError {
    let check = match err {
        store::Error::Postgres(_) => "check that PostgreSQL is up and reachable",
        _ => "check the state folder's disk and permissions",
    };
    AskError::StoreError(Detail::new(format!(
        "the inbox's store failed ({err}); {check}"
    )))
}

/// `ms` since the Unix epoch as RFC 3339 UTC with milliseconds
/// (`2026-11-23T13:45:12.345Z`).
pub fn rfc3339(ms: Millis) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests;
