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
mod leaving;
mod links;
mod listing;
pub mod provenance;
mod refusing;
mod routing;
pub mod rules;
mod sync;
mod text;
pub mod votes;
mod waiting;

pub use leaving::Leaving;
pub use links::LinkTarget;
pub use listing::{Gone, HistoryEntry, Listed};
use text::{already_decided, check_request, decision, millis, store_error, stored_json};
pub use text::{human, resume_hint, unknown_question};
pub use waiting::{Wait, Waiter};

use super::links::LinkKey;
use super::metrics::{AskingFace, Metrics, StoreGauges};
use super::store::{
    self, Decided, Decision, Face, Millis, NewQuestion, Outcome, Source, Store, Stored, pool::Pool,
    rfc3339,
};
use super::tokens;
use ask_user_core::answer::{AnswerDocument, AnsweredBy, Unanswered, resolve_replies};
use ask_user_core::error::{AskError, Detail};
use ask_user_core::model::Prompt;
use ask_user_core::prompt::PromptDocument;
use ask_user_core::submission::{self, Submission};
use ask_user_server::guard::Digests;

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

/// What the page hears about.
#[derive(Debug, Clone)]
pub enum Change {
    /// A new question this replica stored (its [`Listed`] JSON): pages list
    /// it, `--notify` and the channels announce it.
    Asked(Arc<str>),
    /// A new question another replica stored, heard of through the store
    /// (PostgreSQL): pages list it and `--notify` (this machine's own
    /// command) announces it; the channels, which every replica shares,
    /// leave it to the replica that stored it, so that a question reaches
    /// each contact once however many replicas there are.
    Heard(Arc<str>),
    /// A question got its outcome.
    Closed {
        id: String,
        outcome: Outcome,
        face: Face,
        /// Whether this replica announced the question to the channels,
        /// which then hear of its end from this replica only.
        announced: bool,
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
    /// Whether this replica announced it to the channels (its own ask, or
    /// one pending when it started): only then does it announce its end.
    announced: bool,
}

impl Open {
    /// A pending question as stored. `absent_since`: when its asker's
    /// absence began counting here (`None`: not here; its asker waits on
    /// another replica, which watches it). `None` for an input that no
    /// longer parses.
    fn from_stored(stored: &Stored, absent_since: Option<Instant>) -> Option<Open> {
        let question = &stored.question;
        // A stored input was accepted once; the same parser accepts it again.
        let prompt =
            ask_user_core::prompt::parse_input_or_prompt(question.input.as_bytes()).ok()?;
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
            announced: true,
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
    /// Their keys (a retry may share one): a question with one of them that
    /// the store's notice brings in before its ask does is this replica's
    /// own ([`Change::Asked`], not [`Change::Heard`]).
    asking_keys: HashMap<String, usize>,
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

/// Counts one ask, and its key, in its gap ([`State::closed_while_asking`])
/// while it lives.
struct Asking<'a>(&'a Hub, &'a str);

impl<'a> Asking<'a> {
    fn start(hub: &'a Hub, key: &'a str) -> Asking<'a> {
        let mut state = hub.state();
        state.asking += 1;
        *state.asking_keys.entry(key.to_string()).or_default() += 1;
        Asking(hub, key)
    }
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.asking -= 1;
        if state.asking == 0 {
            state.closed_while_asking.clear();
        }
        if let Some(count) = state.asking_keys.get_mut(self.1) {
            *count -= 1;
            if *count == 0 {
                state.asking_keys.remove(self.1);
            }
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
                asking_keys: HashMap::new(),
            }),
            pool,
            changes: broadcast::Sender::new(CHANGES_BUFFER),
            grace,
            retention,
            metrics,
            link_key,
            link_base: OnceLock::new(),
            inbox_user: ask_user_platform::user::name(),
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
        let prompt = ask_user_core::prompt::parse_input_or_prompt(request.input.get().as_bytes())?;
        let document = ask_user_core::document_line(&PromptDocument::new(&prompt));
        let asked_at = store::now_ms();
        let asking = Asking::start(self, &request.key);
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
                announced: true,
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

    /// Every change from now on (`--notify` hears the new questions here).
    pub fn changes(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
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
            document: ask_user_core::document_line(&document.with_inbox_id(id)),
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
        // Not in memory (a question this replica never listed): its end is
        // said as before, to every channel that wants it.
        let mut announced = true;
        if let Some(open) = state.open.remove(id) {
            open.outcome.send_replace(Some(Arc::clone(&line)));
            self.metrics.closed(
                open.face,
                decision.outcome,
                decision.face,
                decision.at - open.asked_at,
            );
            announced = open.announced;
        }
        let _ = self.changes.send(Change::Closed {
            id: id.to_string(),
            outcome: decision.outcome,
            face: decision.face,
            announced,
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
                announced: open.announced,
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

    /// Reads the named tokens kept in the store into `digests` (the
    /// guard's), and the people they name into the routing.
    pub fn reload_tokens(&self, digests: &Digests) -> Result<(), AskError> {
        let stored = self.stored_tokens()?;
        self.set_people(&stored);
        digests.replace(stored.into_iter().filter_map(tokens::as_digest).collect());
        Ok(())
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

#[cfg(test)]
mod tests;
