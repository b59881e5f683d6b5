//! The inbox's store: one seam ([`Store`]), two implementations.
//! - [`sqlite`]: one SQLite file (`inbox.sqlite3`) in the state folder, the
//!   embedded default for one person on one machine;
//! - [`postgres`]: a PostgreSQL database (`--store postgres://…` or
//!   `ASK_USER_STORE`), for an inbox that outlives one machine.
//!
//! Both keep the same rules, and `tests/store.rs` runs the same tests on
//! both:
//! - a question's outcome is written once, by the first writer, with a
//!   conditional update (`… WHERE outcome IS NULL`), never read-then-write;
//!   the database itself refuses a second one (a trigger);
//! - the event log (asked, asker left, asker back, decided) is append-only;
//! - an ask whose `ask_key` is stored already (a retry) finds that question;
//! - a call returns only after what it wrote is committed.
//!
//! Each store carries its schema's version and migrates forward on open; a
//! store written by a newer ask_user is refused ([`Error::NewerSchema`]).

pub mod pool;
pub mod postgres;
pub mod sqlite;
pub mod tls;

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub use self::postgres::PostgresStore;
pub use self::sqlite::SqliteStore;

/// The schema this code writes. 1: questions and events; 2: who decided
/// (`decided_by`, a person's name); 3: who asked (`asked_by`, an asker
/// token's name); 4: named tokens kept in the store (`inbox token add`);
/// 5: the key of one-question links (shared by replicas), and the faces
/// `link`, `ntfy` and `matrix`; 6: the votes of questions that need
/// approvals (`votes`); 7: the groups of person tokens (`member_of`);
/// 8: standing answers (`rules`), each person's away switch (`away`) and
/// the face `rule`; 9: the escalation steps fired (`escalations`).
pub const SCHEMA_VERSION: i64 = 9;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("PostgreSQL: {0}")]
    Postgres(String),
    /// PostgreSQL refused a write and will go on refusing it until someone
    /// acts: its disk is full, or the database is read-only.
    #[error("PostgreSQL: {1}")]
    PostgresRefusing(Refusal, String),
    #[error(
        "the store was written by a newer ask_user (schema {found}, this one knows {known}); run that version, or move the store away"
    )]
    NewerSchema { found: i64, known: i64 },
    /// A row this code cannot read (an unknown outcome, say).
    #[error("the store holds {0}")]
    Corrupt(String),
    #[error("the system random source failed ({0})")]
    Random(getrandom::Error),
    /// SQLite could not switch to write-ahead logging.
    #[error("the store could not switch to WAL mode (it is in {0} mode)")]
    NotWal(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Why a store refuses writes in a way that does not heal by itself (unlike
/// an outage, which ends when the database is back): somebody has to free
/// space or make the store writable. A new ask is then refused at once
/// rather than retried (docs/inbox.md, "A full disk").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// SQLite's `SQLITE_FULL` (the file system said ENOSPC), PostgreSQL's
    /// `disk_full` (53100).
    DiskFull,
    /// SQLite's `SQLITE_READONLY` (a read-only file or file system),
    /// PostgreSQL's `read_only_sql_transaction` (25006: a standby, or a
    /// database set read-only).
    ReadOnly,
}

impl Refusal {
    /// For messages: "the store refuses writes: disk full".
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::DiskFull => "disk full",
            Refusal::ReadOnly => "read-only",
        }
    }
}

impl Error {
    /// The refusal this error is, if it is one; `None` for everything else
    /// (an outage, a lost connection, a busy file: these may pass).
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(failure, _)) => match failure.code {
                rusqlite::ErrorCode::DiskFull => Some(Refusal::DiskFull),
                rusqlite::ErrorCode::ReadOnly => Some(Refusal::ReadOnly),
                _ => None,
            },
            Error::PostgresRefusing(refusal, _) => Some(*refusal),
            _ => None,
        }
    }
}

/// Where the store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL connection string (`postgres://…`, `postgresql://…`, or
    /// `host=… dbname=…`).
    Postgres(String),
}

impl Location {
    /// `--store` / `ASK_USER_STORE`: a PostgreSQL URL (`postgres://`,
    /// `postgresql://`), else a SQLite file's path.
    pub fn parse(text: &str) -> Location {
        let lower = text.get(..13).unwrap_or(text).to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Location::Postgres(text.to_string())
        } else {
            Location::Sqlite(PathBuf::from(text))
        }
    }

    /// For messages: the file's path, or the database's host, port and name
    /// (never its password).
    pub fn describe(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => postgres::describe(url),
        }
    }
}

/// Opens the store at `location`, creating and migrating its schema.
pub fn open(location: &Location) -> Result<Box<dyn Store>> {
    open_at(location, SCHEMA_VERSION)
}

/// The connections of one replica's pool ([`pool::Pool`]): `connections`
/// of them for PostgreSQL (each opened as [`open`] does), one for SQLite
/// whatever is asked.
pub fn open_pool(location: &Location, connections: usize) -> Result<Vec<Box<dyn Store>>> {
    let count = match location {
        Location::Sqlite(_) => 1,
        Location::Postgres(_) => connections.max(1),
    };
    (0..count).map(|_| open(location)).collect()
}

/// [`open`], migrating no further than `version`: for tests of migrations
/// (a store as an earlier ask_user left it).
#[doc(hidden)]
pub fn open_at(location: &Location, version: i64) -> Result<Box<dyn Store>> {
    Ok(match location {
        Location::Sqlite(path) => Box::new(SqliteStore::open_at(path, version)?),
        Location::Postgres(url) => Box::new(PostgresStore::open_at(url, version)?),
    })
}

/// The store's operations: each one a transaction, committed before it returns.
pub trait Store: Send {
    /// Stores a new question and returns its id; an ask with a key already
    /// stored (a retry) returns that question's id and stores nothing.
    /// `created` says which.
    fn ask(&mut self, question: &NewQuestion) -> Result<(String, bool)>;

    /// The question with this id.
    fn get(&mut self, id: &str) -> Result<Option<Stored>>;

    /// The questions with these ids, each once, in no promised order; ids
    /// not stored are left out. One read for many where the store can (a
    /// replica reading back the changes that others announced together).
    fn get_many(&mut self, ids: &[String]) -> Result<Vec<Stored>> {
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::with_capacity(ids.len());
        for id in ids.iter().filter(|id| seen.insert(id.as_str())) {
            found.extend(self.get(id)?);
        }
        Ok(found)
    }

    /// Every pending question, oldest first (ties: the order they were stored).
    fn pending(&mut self) -> Result<Vec<Stored>>;

    /// The decided questions, the most recently decided first; at most
    /// `limit` of them (`None`: all).
    fn history(&mut self, limit: Option<usize>) -> Result<Vec<Stored>>;

    /// Writes a question's outcome, if it has none yet: the first writer wins.
    fn decide(&mut self, id: &str, decision: &Decision) -> Result<Decided>;

    /// Marks a pending question "asker gone" (`reason`: why it left); false
    /// when it is decided, unknown or already marked.
    fn mark_gone(&mut self, id: &str, reason: &str, at: Millis) -> Result<bool>;

    /// Clears the "asker gone" mark of a pending question whose asker came
    /// back; false when there was none to clear.
    fn mark_back(&mut self, id: &str, at: Millis) -> Result<bool>;

    /// The events of one question, oldest first.
    fn events(&mut self, id: &str) -> Result<Vec<Event>>;

    /// The schema version the store is at.
    fn schema_version(&mut self) -> Result<i64>;

    /// How many inbox replicas serve this store now (`/metrics`'
    /// `mcp_inbox_replicas`): 1 for SQLite (one inbox holds its folder); for
    /// PostgreSQL, the replicas whose listening connection is open on this
    /// database ([`postgres::LISTENER_NAME`]).
    fn replicas(&mut self) -> Result<u64>;

    /// "sqlite" or "postgres" (for messages and metrics).
    fn kind(&self) -> &'static str;

    /// The named tokens kept in the store, by name.
    fn tokens(&mut self) -> Result<Vec<StoredToken>>;

    /// Keeps a named token; false (and nothing written) when its name is
    /// taken.
    fn add_token(&mut self, token: &StoredToken) -> Result<bool>;

    /// Forgets the token of this name; false when there was none.
    fn remove_token(&mut self, name: &str) -> Result<bool>;

    /// The key of one-question links ([`crate::links`]): the stored
    /// one, else 32 new random bytes stored now. Get-or-create in one
    /// statement's conflict rule, so that replicas starting together agree.
    fn link_key(&mut self) -> Result<[u8; LINK_KEY_LEN]>;

    /// Casts `vote` on pending question `id` (a person's later vote
    /// replaces theirs), then hands every vote, in the order cast, to
    /// `tally`; the outcome it returns is written in the same transaction,
    /// so that votes racing through replicas are each counted once and the
    /// deciding one writes the outcome once.
    fn vote(&mut self, id: &str, vote: &NewVote, tally: Tally) -> Result<Voted>;

    /// The votes cast on question `id`, in the order cast.
    fn votes(&mut self, id: &str) -> Result<Vec<NewVote>>;

    /// The standing answers (`inbox rule add`), oldest first.
    fn rules(&mut self) -> Result<Vec<StoredRule>>;

    /// Keeps a rule; false (and nothing written) when its id is taken.
    fn add_rule(&mut self, rule: &StoredRule) -> Result<bool>;

    /// Forgets rule `id`; false when there was none.
    fn remove_rule(&mut self, id: &str) -> Result<bool>;

    /// The people who are away (a person's own switch), with since when.
    fn away(&mut self) -> Result<Vec<(String, Millis)>>;

    /// Sets `person` away since `since`, or back (`None`). The first
    /// `since` stays while they stay away.
    fn set_away(&mut self, person: &str, since: Option<Millis>) -> Result<()>;

    /// Records that escalation step `escalation.step` fired for its
    /// question, if the question is still pending and no replica recorded
    /// that step yet: the first writer wins (the key is question and step),
    /// and only it notifies.
    fn escalate(&mut self, escalation: &Escalation) -> Result<Escalated>;

    /// The escalation steps fired for the questions `ids`, by question,
    /// then step.
    fn escalations(&mut self, ids: &[String]) -> Result<Vec<Escalation>>;
}

/// A standing answer as stored: who owns it, its match and answer as the
/// JSON of [`crate::hub::rules::Rule`], and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRule {
    pub id: String,
    pub owner: String,
    /// The JSON of its [`crate::hub::rules::Rule`].
    pub rule: String,
    pub added_at: Millis,
    pub expires_at: Millis,
}

/// An escalation step that fired for a question (the policy's
/// `[[escalate]]`): kept, so that it fires once across the
/// replicas and restarts, and history shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    pub question: String,
    /// 1-based, in the ladder's order when it fired.
    pub step: u32,
    /// The step's `after`, in milliseconds.
    pub after: Millis,
    /// The step's `notify`: a person or a group.
    pub notify: String,
    pub at: Millis,
}

/// What [`Store::escalate`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escalated {
    /// Recorded now: the caller notifies.
    Fired,
    /// Another replica (or an earlier call) recorded this step first.
    Already,
    /// The question has an outcome (or no question has this id): nothing kept.
    Closed,
}

/// One person's vote on a question that needs approvals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewVote {
    /// The person's token (or device) name.
    pub voter: String,
    pub face: Face,
    /// Their answers: the JSON of the answer document's `answers`.
    pub answers: String,
    pub at: Millis,
}

/// Decides, from every vote cast so far, whether the question now has an
/// outcome ([`crate::hub::votes`]).
pub type Tally = std::sync::Arc<dyn Fn(&[NewVote]) -> Option<Decision> + Send + Sync>;

/// What [`Store::vote`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Voted {
    /// The vote is kept; the question is still open. Every vote so far.
    Counted(Vec<NewVote>),
    /// The vote is kept and decided the question (this decision).
    Decided(Decision),
    /// The question already had an outcome; the vote was not kept.
    Already(Decision),
    /// No question has this id.
    Unknown,
}

/// Bytes of the links' key (HMAC-SHA256's own size).
pub const LINK_KEY_LEN: usize = 32;

/// Random bytes (getrandom) for a store that has no link key yet.
fn new_link_key() -> Result<[u8; LINK_KEY_LEN]> {
    let mut bytes = [0u8; LINK_KEY_LEN];
    getrandom::fill(&mut bytes).map_err(Error::Random)?;
    Ok(bytes)
}

/// A stored link key, checked for its length.
fn stored_link_key(bytes: &[u8]) -> Result<[u8; LINK_KEY_LEN]> {
    bytes
        .try_into()
        .map_err(|_| Error::Corrupt(format!("a link key of {} bytes", bytes.len())))
}

/// A named token kept in the store (`ask_user inbox token add`): its role
/// and the SHA-256 of the token, never the token itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredToken {
    pub name: String,
    pub role: TokenRole,
    pub digest: Vec<u8>,
    pub added_at: Millis,
    /// The groups of a person token (`--group`), sorted; none
    /// for an asker.
    pub groups: Vec<String>,
}

/// A token's groups as stored (`member_of`): space-separated, sorted, once
/// each (group names have no spaces: `tokens::check_name`).
fn join_groups(groups: &[String]) -> String {
    let mut groups: Vec<&str> = groups.iter().map(String::as_str).collect();
    groups.sort_unstable();
    groups.dedup();
    groups.join(" ")
}

/// The stored `member_of` as a list ('' is none).
fn split_groups(stored: &str) -> Vec<String> {
    stored.split_whitespace().map(str::to_string).collect()
}

/// What a named token may do ([`ask_user_server::guard::Holder`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenRole {
    Person,
    Asker,
}

impl TokenRole {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenRole::Person => "person",
            TokenRole::Asker => "asker",
        }
    }

    pub fn parse(text: &str) -> Option<TokenRole> {
        match text {
            "person" => Some(TokenRole::Person),
            "asker" => Some(TokenRole::Asker),
            _ => None,
        }
    }
}

/// The payload of the notice a change of tokens sends (PostgreSQL): never a
/// question's id, which has [`ID_LEN`] characters.
pub const TOKENS_CHANGED: &str = "tokens";

/// The payload of the notice a change of rules or of someone's away switch
/// sends (PostgreSQL).
pub const RULES_CHANGED: &str = "rules";

/// One entry of a question's event log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub at: Millis,
    /// asked, asker_left, asker_back or decided.
    pub kind: String,
    /// asker_left: the reason; decided: the outcome and the face, as
    /// 'outcome/face'.
    pub detail: Option<String>,
}

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

pub fn now_ms() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| {
        Millis::try_from(d.as_millis()).unwrap_or(Millis::MAX)
    })
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

/// How a question ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// By the page, `inbox answer`, or the asker's own terminal.
    Answered,
    /// The person pressed Decline in the page.
    Declined,
    /// `inbox cancel`, or the asker cancelled (Ctrl-C, SIGTERM, an MCP cancel).
    Cancelled,
    /// The person dismissed a question whose asker was gone.
    Dismissed,
    /// The asker's time ran out with nobody answering.
    TimedOut,
    /// The asker disappeared (killed, connection lost) with nobody answering.
    AskerGone,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Answered => "answered",
            Outcome::Declined => "declined",
            Outcome::Cancelled => "cancelled",
            Outcome::Dismissed => "dismissed",
            Outcome::TimedOut => "timed_out",
            Outcome::AskerGone => "asker_gone",
        }
    }

    fn parse(text: &str) -> Option<Outcome> {
        [
            Outcome::Answered,
            Outcome::Declined,
            Outcome::Cancelled,
            Outcome::Dismissed,
            Outcome::TimedOut,
            Outcome::AskerGone,
        ]
        .into_iter()
        .find(|o| o.as_str() == text)
    }
}

/// Which face decided a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// The inbox page in a browser.
    Page,
    /// `ask_user inbox answer|cancel` from another terminal.
    Cli,
    /// The asker itself (its terminal, its cancel, its timeout).
    Asker,
    /// The inbox on its own (an asker that never came back).
    Inbox,
    /// A one-question link (`/l/…`), opened from a notification.
    Link,
    /// An ntfy notification's action button (a signed choice).
    Ntfy,
    /// A reply in a Matrix room.
    Matrix,
    /// A standing answer (`inbox rule add`); its id is the decision's `by`.
    Rule,
}

impl Face {
    pub fn as_str(self) -> &'static str {
        match self {
            Face::Page => "page",
            Face::Cli => "cli",
            Face::Asker => "asker",
            Face::Inbox => "inbox",
            Face::Link => "link",
            Face::Ntfy => "ntfy",
            Face::Matrix => "matrix",
            Face::Rule => "rule",
        }
    }

    fn parse(text: &str) -> Option<Face> {
        [
            Face::Page,
            Face::Cli,
            Face::Asker,
            Face::Inbox,
            Face::Link,
            Face::Ntfy,
            Face::Matrix,
            Face::Rule,
        ]
        .into_iter()
        .find(|f| f.as_str() == text)
    }
}

/// Where a question comes from, as far as the asker knows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The host or agent ("claude-code", "amp"), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The asker's working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// A question as an asker hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewQuestion {
    pub ask_key: String,
    pub input: String,
    pub prompt: String,
    pub source: Source,
    pub asked_at: Millis,
    pub expires_at: Option<Millis>,
    /// The asker token's name, when a named asker asked it (only that asker
    /// may wait for it, resume it or leave it).
    pub asked_by: Option<String>,
}

/// A question as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub id: String,
    /// What its asker handed over.
    pub question: NewQuestion,
    /// When and why the asker left, while the question is pending.
    pub gone: Option<(Millis, String)>,
    pub decision: Option<Decision>,
}

/// A question's one outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub outcome: Outcome,
    pub face: Face,
    /// The document the asker gets (one line of JSON).
    pub document: String,
    pub at: Millis,
    /// The person who decided, by name, when a named token decided it.
    pub by: Option<String>,
}

impl Decision {
    /// The event log's detail for it: 'outcome/face'.
    fn detail(&self) -> String {
        format!("{}/{}", self.outcome.as_str(), self.face.as_str())
    }

    /// From its stored columns; `None` when the question is pending.
    fn from_columns(
        outcome: Option<String>,
        face: Option<String>,
        document: Option<String>,
        at: Option<Millis>,
        by: Option<String>,
    ) -> Result<Option<Decision>> {
        let Some(outcome) = outcome else {
            return Ok(None);
        };
        let bad = |what: &str, value: &str| Error::Corrupt(format!("an unknown {what} {value:?}"));
        let face = face.unwrap_or_default();
        Ok(Some(Decision {
            outcome: Outcome::parse(&outcome).ok_or_else(|| bad("outcome", &outcome))?,
            face: Face::parse(&face).ok_or_else(|| bad("face", &face))?,
            document: document.ok_or_else(|| bad("document", "NULL"))?,
            at: at.ok_or_else(|| bad("decision time", "NULL"))?,
            by,
        }))
    }
}

/// What [`Store::decide`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// This decision is the question's outcome.
    Now,
    /// The question already had this outcome; nothing was written.
    Already(Decision),
    /// No question has this id.
    Unknown,
}

/// Letters for question ids: lowercase, without i, l, o and u, which are
/// misread or misheard (Crockford's base 32).
const ID_ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
/// Characters in a question id (40 bits: short enough to type over SSH).
pub const ID_LEN: usize = 8;

fn new_id() -> Result<String> {
    let mut bytes = [0u8; ID_LEN];
    getrandom::fill(&mut bytes).map_err(Error::Random)?;
    Ok(bytes
        .iter()
        .map(|b| char::from(ID_ALPHABET[usize::from(b % 32)]))
        .collect())
}

/// A new random id, as questions get (rules use it too).
pub fn fresh_id() -> Result<String> {
    new_id()
}

/// Whether `text` could be a question id (to refuse nonsense before a lookup).
pub fn is_id(text: &str) -> bool {
    text.len() == ID_LEN && text.bytes().all(|b| ID_ALPHABET.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_postgres_by_its_scheme_else_a_file() {
        for url in [
            "postgres://u@db/inbox",
            "postgresql://db:5433/inbox",
            "POSTGRES://db/x",
        ] {
            assert_eq!(Location::parse(url), Location::Postgres(url.into()));
        }
        for path in ["inbox.sqlite3", "/var/lib/postgres", "postgres:/x", "pg"] {
            assert_eq!(Location::parse(path), Location::Sqlite(path.into()));
        }
    }

    #[test]
    fn a_location_is_described_without_a_password() {
        assert_eq!(
            Location::Sqlite("/var/lib/ask_user/inbox.sqlite3".into()).describe(),
            "/var/lib/ask_user/inbox.sqlite3"
        );
        assert_eq!(
            Location::Postgres("postgres://ask:s3cret@db:5433/inbox".into()).describe(),
            "postgres://db:5433/inbox"
        );
    }

    #[test]
    fn now_is_milliseconds_since_the_epoch() {
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let now = u128::try_from(now_ms()).unwrap();
        let after = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis();
        assert!(before <= now && now <= after, "{before} {now} {after}");
    }

    #[test]
    fn ids_spread_over_the_whole_alphabet() {
        // 8,000 random letters from 32: all 32 appear (the chance that one
        // is missing is about 32 * (31/32)^8000, below 1e-100).
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            seen.extend(new_id().unwrap().bytes());
        }
        assert_eq!(seen.len(), 32, "{seen:?}");
    }

    #[test]
    fn ids_use_the_alphabet_and_have_their_length() {
        let id = new_id().unwrap();
        assert!(is_id(&id), "{id}");
        assert!(!is_id("0000000"), "too short");
        assert!(!is_id("000000000"), "too long");
        assert!(!is_id("0000000i"), "i is not in the alphabet");
        assert!(!is_id("0000000A"), "upper case is not");
    }
}
