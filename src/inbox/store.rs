//! The inbox's store: one SQLite file (`inbox.sqlite3`) in the state folder,
//! the only code that writes it. WAL mode with `synchronous=FULL`: a question
//! or an outcome is on disk before the call that wrote it returns, so what
//! the inbox acknowledged survives `kill -9` (and a power cut).
//!
//! One row per question. Its outcome is written once, by the first writer
//! (`UPDATE … WHERE outcome IS NULL`), and never rewritten (a trigger refuses
//! it). Beside the rows, an append-only log of events (asked, asker left,
//! asker back, decided) for history and metrics.

use std::fs::OpenOptions;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

pub use rusqlite::Error;
pub type Result<T> = std::result::Result<T, Error>;

/// The schema this code writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE questions (
    id          TEXT PRIMARY KEY,
    -- Chosen by the asker, so that a retried ask finds its question again.
    ask_key     TEXT NOT NULL UNIQUE,
    -- The tool input as the asker sent it; the inbox parses it again on start.
    input       TEXT NOT NULL,
    -- Its prompt document, as it was listed and shown.
    prompt      TEXT NOT NULL,
    source_name TEXT,
    source_cwd  TEXT,
    source_pid  INTEGER,
    -- Times are milliseconds since the Unix epoch.
    asked_at    INTEGER NOT NULL,
    expires_at  INTEGER,
    -- The live 'asker gone' mark: when and why the asker left.
    gone_at     INTEGER,
    gone_reason TEXT,
    outcome     TEXT CHECK (outcome IN
                  ('answered','declined','cancelled','dismissed','timed_out','asker_gone')),
    face        TEXT CHECK (face IN ('page','cli','asker','inbox')),
    -- The document the asker gets.
    document    TEXT,
    decided_at  INTEGER,
    CHECK ((outcome IS NULL) = (face IS NULL)
       AND (outcome IS NULL) = (document IS NULL)
       AND (outcome IS NULL) = (decided_at IS NULL))
) STRICT;
CREATE INDEX questions_pending ON questions (asked_at) WHERE outcome IS NULL;
CREATE TABLE events (
    seq      INTEGER PRIMARY KEY,
    question TEXT NOT NULL REFERENCES questions (id),
    at       INTEGER NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('asked','asker_left','asker_back','decided')),
    -- asker_left: the reason; decided: the outcome and the face, as 'outcome/face'.
    detail   TEXT
) STRICT;
CREATE INDEX events_question ON events (question);
CREATE TRIGGER outcome_written_once
    BEFORE UPDATE OF outcome, face, document, decided_at ON questions
    WHEN OLD.outcome IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an outcome is written once');
END;
CREATE TRIGGER events_never_rewritten BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are never rewritten');
END;
";

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

pub fn now_ms() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| {
        Millis::try_from(d.as_millis()).unwrap_or(Millis::MAX)
    })
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
}

impl Face {
    pub fn as_str(self) -> &'static str {
        match self {
            Face::Page => "page",
            Face::Cli => "cli",
            Face::Asker => "asker",
            Face::Inbox => "inbox",
        }
    }

    fn parse(text: &str) -> Option<Face> {
        [Face::Page, Face::Cli, Face::Asker, Face::Inbox]
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

pub struct Store {
    conn: Connection,
}

/// Letters for question ids: lowercase, without i, l, o and u, which are
/// misread or misheard (Crockford's base 32).
const ID_ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
/// Characters in a question id (40 bits: short enough to type over SSH).
pub const ID_LEN: usize = 8;

impl Store {
    /// Opens (creating it 0600, with its schema) the store at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        // SQLite gives its WAL and shared-memory files the database's mode.
        let _ = crate::platform::files::private(
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .open(path);
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::InvalidParameterName(format!(
                "the store could not switch to WAL mode (it is in {mode} mode)"
            )));
        }
        conn.execute_batch(
            "PRAGMA synchronous = FULL;
             PRAGMA foreign_keys = ON;
             PRAGMA cache_size = -1024;",
        )?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        match version {
            0 => {
                tx.execute_batch(SCHEMA)?;
                tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
            }
            SCHEMA_VERSION => {}
            newer => {
                return Err(Error::InvalidParameterName(format!(
                    "the store was written by a newer ask_user (schema {newer}, this one knows {SCHEMA_VERSION}); run that version, or move the store away"
                )));
            }
        }
        tx.commit()
    }

    /// Stores a new question and returns its id; an ask with a key already
    /// stored (a retry) returns that question's id and stores nothing.
    /// `created` says which.
    pub fn ask(&mut self, question: &NewQuestion) -> Result<(String, bool)> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let existing: Option<String> = tx
            .query_row(
                "SELECT id FROM questions WHERE ask_key = ?1",
                [&question.ask_key],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(id) = existing {
            return Ok((id, false));
        }
        let id = loop {
            let id = new_id().map_err(|e| Error::InvalidParameterName(e.to_string()))?;
            let taken: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM questions WHERE id = ?1)",
                [&id],
                |row| row.get(0),
            )?;
            if !taken {
                break id;
            }
        };
        tx.execute(
            "INSERT INTO questions (id, ask_key, input, prompt, source_name, source_cwd,
                 source_pid, asked_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                question.ask_key,
                question.input,
                question.prompt,
                question.source.name,
                question.source.cwd,
                question.source.pid,
                question.asked_at,
                question.expires_at,
            ],
        )?;
        log_event(&tx, &id, question.asked_at, "asked", None)?;
        tx.commit()?;
        Ok((id, true))
    }

    /// The question with this id.
    pub fn get(&self, id: &str) -> Result<Option<Stored>> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM questions WHERE id = ?1"),
                [id],
                read_row,
            )
            .optional()
    }

    /// Every pending question, oldest first.
    pub fn pending(&self) -> Result<Vec<Stored>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM questions WHERE outcome IS NULL ORDER BY asked_at, rowid"
        ))?;
        statement.query_map([], read_row)?.collect()
    }

    /// The decided questions, the most recently decided first; at most
    /// `limit` of them (`None`: all).
    pub fn history(&self, limit: Option<usize>) -> Result<Vec<Stored>> {
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut statement = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM questions WHERE outcome IS NOT NULL
             ORDER BY decided_at DESC, rowid DESC LIMIT ?1"
        ))?;
        statement.query_map([limit], read_row)?.collect()
    }

    /// Writes a question's outcome, if it has none yet: the first writer wins.
    pub fn decide(&mut self, id: &str, decision: &Decision) -> Result<Decided> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let changed = tx.execute(
            "UPDATE questions SET outcome = ?2, face = ?3, document = ?4, decided_at = ?5,
                 gone_at = NULL, gone_reason = NULL
             WHERE id = ?1 AND outcome IS NULL",
            params![
                id,
                decision.outcome.as_str(),
                decision.face.as_str(),
                decision.document,
                decision.at,
            ],
        )?;
        if changed == 1 {
            let detail = format!("{}/{}", decision.outcome.as_str(), decision.face.as_str());
            log_event(&tx, id, decision.at, "decided", Some(&detail))?;
            tx.commit()?;
            return Ok(Decided::Now);
        }
        let before = tx
            .query_row(
                &format!("SELECT {COLUMNS} FROM questions WHERE id = ?1"),
                [id],
                read_row,
            )
            .optional()?;
        Ok(match before {
            Some(Stored {
                decision: Some(decision),
                ..
            }) => Decided::Already(decision),
            // Pending yet unchanged cannot happen inside the transaction.
            _ => Decided::Unknown,
        })
    }

    /// Marks a pending question "asker gone" (`reason`: why it left); false
    /// when it is decided, unknown or already marked.
    pub fn mark_gone(&mut self, id: &str, reason: &str, at: Millis) -> Result<bool> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let changed = tx.execute(
            "UPDATE questions SET gone_at = ?2, gone_reason = ?3
             WHERE id = ?1 AND outcome IS NULL AND gone_at IS NULL",
            params![id, at, reason],
        )?;
        if changed == 1 {
            log_event(&tx, id, at, "asker_left", Some(reason))?;
        }
        tx.commit()?;
        Ok(changed == 1)
    }

    /// Clears the "asker gone" mark of a pending question whose asker came
    /// back; false when there was none to clear.
    pub fn mark_back(&mut self, id: &str, at: Millis) -> Result<bool> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let changed = tx.execute(
            "UPDATE questions SET gone_at = NULL, gone_reason = NULL
             WHERE id = ?1 AND outcome IS NULL AND gone_at IS NOT NULL",
            params![id],
        )?;
        if changed == 1 {
            log_event(&tx, id, at, "asker_back", None)?;
        }
        tx.commit()?;
        Ok(changed == 1)
    }

    /// The events of one question, oldest first: (time, kind, detail).
    pub fn events(&self, id: &str) -> Result<Vec<(Millis, String, Option<String>)>> {
        let mut statement = self
            .conn
            .prepare("SELECT at, kind, detail FROM events WHERE question = ?1 ORDER BY seq")?;
        statement
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect()
    }
}

const COLUMNS: &str = "id, ask_key, input, prompt, source_name, source_cwd, source_pid, \
     asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at";

fn read_row(row: &Row<'_>) -> rusqlite::Result<Stored> {
    let gone_at: Option<Millis> = row.get(9)?;
    let gone_reason: Option<String> = row.get(10)?;
    let outcome: Option<String> = row.get(11)?;
    let decision = match outcome {
        None => None,
        Some(outcome) => {
            let face: String = row.get(12)?;
            let bad = |what: &str, value: &str| {
                rusqlite::Error::InvalidColumnName(format!("unknown {what} {value:?} in the store"))
            };
            Some(Decision {
                outcome: Outcome::parse(&outcome).ok_or_else(|| bad("outcome", &outcome))?,
                face: Face::parse(&face).ok_or_else(|| bad("face", &face))?,
                document: row.get(13)?,
                at: row.get(14)?,
            })
        }
    };
    Ok(Stored {
        id: row.get(0)?,
        question: NewQuestion {
            ask_key: row.get(1)?,
            input: row.get(2)?,
            prompt: row.get(3)?,
            source: Source {
                name: row.get(4)?,
                cwd: row.get(5)?,
                pid: row.get(6)?,
            },
            asked_at: row.get(7)?,
            expires_at: row.get(8)?,
        },
        gone: gone_at.map(|at| (at, gone_reason.unwrap_or_default())),
        decision,
    })
}

fn log_event(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    at: Millis,
    kind: &str,
    detail: Option<&str>,
) -> Result<()> {
    tx.execute(
        "INSERT INTO events (question, at, kind, detail) VALUES (?1, ?2, ?3, ?4)",
        params![id, at, kind, detail],
    )
    .map(drop)
}

fn new_id() -> std::result::Result<String, getrandom::Error> {
    let mut bytes = [0u8; ID_LEN];
    getrandom::fill(&mut bytes)?;
    Ok(bytes
        .iter()
        .map(|b| char::from(ID_ALPHABET[usize::from(b % 32)]))
        .collect())
}

/// Whether `text` could be a question id (to refuse nonsense before a lookup).
pub fn is_id(text: &str) -> bool {
    text.len() == ID_LEN && text.bytes().all(|b| ID_ALPHABET.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};

    fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("inbox.sqlite3")).unwrap();
        (dir, store)
    }

    fn question(key: &str, asked_at: Millis) -> NewQuestion {
        NewQuestion {
            ask_key: key.into(),
            input: r#"{"question":"Deploy?","options":["yes","no"]}"#.into(),
            prompt: r#"{"tool":"ask_user"}"#.into(),
            source: Source {
                name: Some("claude-code".into()),
                cwd: Some("/src/app".into()),
                pid: Some(4242),
            },
            asked_at,
            expires_at: Some(asked_at + 60_000),
        }
    }

    fn decision(outcome: Outcome, face: Face, document: &str) -> Decision {
        Decision {
            outcome,
            face,
            document: document.into(),
            at: now_ms(),
        }
    }

    #[test]
    fn a_question_round_trips_and_lists_oldest_first() {
        let (_dir, mut store) = temp_store();
        let (late, created) = store.ask(&question("k2", 2_000)).unwrap();
        assert!(created);
        let (early, _) = store.ask(&question("k1", 1_000)).unwrap();
        assert!(
            is_id(&late) && is_id(&early) && late != early,
            "{late} {early}"
        );
        let pending: Vec<String> = store.pending().unwrap().into_iter().map(|q| q.id).collect();
        assert_eq!(pending, [early.clone(), late.clone()]);
        let stored = store.get(&early).unwrap().unwrap();
        assert_eq!(
            stored,
            Stored {
                id: early.clone(),
                question: question("k1", 1_000),
                gone: None,
                decision: None,
            }
        );
        assert_eq!(store.get("zzzzzzzz").unwrap(), None);
    }

    #[test]
    fn a_retried_ask_finds_its_question() {
        let (_dir, mut store) = temp_store();
        let (id, created) = store.ask(&question("same", 1_000)).unwrap();
        assert!(created);
        assert_eq!(store.ask(&question("same", 5_000)).unwrap(), (id, false));
        assert_eq!(store.pending().unwrap().len(), 1);
    }

    #[test]
    fn the_first_decision_wins_and_is_never_rewritten() {
        let (_dir, mut store) = temp_store();
        let (id, _) = store.ask(&question("k", 1_000)).unwrap();
        let first = decision(Outcome::Answered, Face::Page, r#"{"answered":true}"#);
        assert_eq!(store.decide(&id, &first).unwrap(), Decided::Now);
        let second = decision(Outcome::Cancelled, Face::Cli, r#"{"cancelled":true}"#);
        assert_eq!(
            store.decide(&id, &second).unwrap(),
            Decided::Already(first.clone())
        );
        assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(first));
        assert!(store.pending().unwrap().is_empty());
        assert_eq!(store.decide("00000000", &second).unwrap(), Decided::Unknown);
        // Even SQL that skips the code cannot rewrite an outcome.
        let err = store
            .conn
            .execute("UPDATE questions SET outcome = 'dismissed'", [])
            .unwrap_err();
        assert!(err.to_string().contains("written once"), "{err}");
        let err = store
            .conn
            .execute("UPDATE events SET kind = 'asked'", [])
            .unwrap_err();
        assert!(err.to_string().contains("never rewritten"), "{err}");
    }

    #[test]
    fn two_writers_at_once_one_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        let mut store = Store::open(&path).unwrap();
        for round in 0..20 {
            let (id, _) = store.ask(&question(&format!("k{round}"), 1_000)).unwrap();
            let start = Arc::new(Barrier::new(2));
            let writers: Vec<_> = [Face::Page, Face::Cli]
                .into_iter()
                .map(|face| {
                    let (path, id, start) = (path.clone(), id.clone(), Arc::clone(&start));
                    std::thread::spawn(move || {
                        // Each writer has a connection of its own, as two processes would.
                        let mut own = Store::open(&path).unwrap();
                        start.wait();
                        let mine = decision(Outcome::Answered, face, face.as_str());
                        (mine.clone(), own.decide(&id, &mine).unwrap())
                    })
                })
                .collect();
            let results: Vec<(Decision, Decided)> =
                writers.into_iter().map(|w| w.join().unwrap()).collect();
            let winners: Vec<&Decision> = results
                .iter()
                .filter(|(_, d)| *d == Decided::Now)
                .map(|(mine, _)| mine)
                .collect();
            assert_eq!(winners.len(), 1, "round {round}: {results:?}");
            let winner = winners[0].clone();
            for (_, decided) in &results {
                assert!(
                    *decided == Decided::Now || *decided == Decided::Already(winner.clone()),
                    "the loser sees the winner's outcome: {decided:?}"
                );
            }
            assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(winner));
            let decided_events = store
                .events(&id)
                .unwrap()
                .into_iter()
                .filter(|(_, kind, _)| kind == "decided")
                .count();
            assert_eq!(decided_events, 1);
        }
    }

    #[test]
    fn what_was_acknowledged_is_there_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        let mut store = Store::open(&path).unwrap();
        let (a, _) = store.ask(&question("a", 1_000)).unwrap();
        let (b, _) = store.ask(&question("b", 2_000)).unwrap();
        let answered = decision(Outcome::Answered, Face::Cli, "{}");
        store.decide(&a, &answered).unwrap();
        // Dropped without any goodbye, as a killed process would be.
        std::mem::forget(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.get(&a).unwrap().unwrap().decision, Some(answered));
        let pending: Vec<String> = store.pending().unwrap().into_iter().map(|q| q.id).collect();
        assert_eq!(pending, [b]);
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let synchronous: i64 = store
            .conn
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .unwrap();
        assert_eq!(synchronous, 2, "FULL");
    }

    #[test]
    fn asker_gone_marks_come_and_go_and_are_logged() {
        let (_dir, mut store) = temp_store();
        let (id, _) = store.ask(&question("k", 1_000)).unwrap();
        assert!(store.mark_gone(&id, "timeout", 5_000).unwrap());
        assert!(
            !store.mark_gone(&id, "killed", 6_000).unwrap(),
            "already marked"
        );
        assert_eq!(
            store.get(&id).unwrap().unwrap().gone,
            Some((5_000, "timeout".to_string()))
        );
        assert!(store.mark_back(&id, 7_000).unwrap());
        assert!(!store.mark_back(&id, 7_500).unwrap());
        assert_eq!(store.get(&id).unwrap().unwrap().gone, None);
        assert!(store.mark_gone(&id, "killed", 8_000).unwrap());
        let gone = decision(Outcome::AskerGone, Face::Inbox, "{}");
        store.decide(&id, &gone).unwrap();
        assert_eq!(
            store.get(&id).unwrap().unwrap().gone,
            None,
            "a decided question has no live mark"
        );
        assert!(!store.mark_gone(&id, "killed", 9_000).unwrap());
        let kinds: Vec<(String, Option<String>)> = store
            .events(&id)
            .unwrap()
            .into_iter()
            .map(|(_, kind, detail)| (kind, detail))
            .collect();
        assert_eq!(
            kinds,
            [
                ("asked".to_string(), None),
                ("asker_left".to_string(), Some("timeout".to_string())),
                ("asker_back".to_string(), None),
                ("asker_left".to_string(), Some("killed".to_string())),
                ("decided".to_string(), Some("asker_gone/inbox".to_string())),
            ]
        );
    }

    #[test]
    fn history_is_the_decided_questions_newest_first() {
        let (_dir, mut store) = temp_store();
        let mut ids = Vec::new();
        for (n, outcome) in [Outcome::Answered, Outcome::Dismissed, Outcome::TimedOut]
            .into_iter()
            .enumerate()
        {
            let (id, _) = store.ask(&question(&format!("k{n}"), 1_000)).unwrap();
            let mut decided = decision(outcome, Face::Page, "{}");
            decided.at = 10_000 + i64::try_from(n).unwrap();
            store.decide(&id, &decided).unwrap();
            ids.push(id);
        }
        store.ask(&question("pending", 1_000)).unwrap();
        let listed = |limit| -> Vec<(String, Outcome)> {
            store
                .history(limit)
                .unwrap()
                .into_iter()
                .map(|q| (q.id, q.decision.unwrap().outcome))
                .collect()
        };
        assert_eq!(
            listed(None),
            [
                (ids[2].clone(), Outcome::TimedOut),
                (ids[1].clone(), Outcome::Dismissed),
                (ids[0].clone(), Outcome::Answered),
            ]
        );
        assert_eq!(listed(Some(1)), [(ids[2].clone(), Outcome::TimedOut)]);
        assert!(listed(Some(0)).is_empty());
    }

    #[test]
    fn the_file_is_private_and_a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        let store = Store::open(&path).unwrap();
        // Modes are Unix's; on Windows the profile's access list applies.
        #[cfg(unix)]
        for file in ["inbox.sqlite3", "inbox.sqlite3-wal"] {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(file))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{file}");
        }
        store
            .conn
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        drop(store);
        let err = Store::open(&path).err().expect("a newer schema is refused");
        assert!(err.to_string().contains("newer ask_user"), "{err}");
    }
}
