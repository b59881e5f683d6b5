//! The store in one SQLite file (`inbox.sqlite3`), the embedded default.
//! WAL mode with `synchronous=FULL`: a question or an outcome is on disk
//! before the call that wrote it returns, so what the inbox acknowledged
//! survives `kill -9` (and a power cut). One writer at a time (`BEGIN
//! IMMEDIATE`), so that two processes on one file take turns.

use std::fs::OpenOptions;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};

use super::{
    Decided, Decision, Error, Escalated, Escalation, Event, Face, Millis, NewQuestion, NewVote,
    Result, SCHEMA_VERSION, Source, Store, Stored, StoredRule, StoredToken, Tally, TokenRole,
    Voted, new_id,
};

/// Each schema version's step, applied in order from the store's version
/// (`PRAGMA user_version`) to [`SCHEMA_VERSION`]. A step is never edited once
/// released: a later change is a new step.
const MIGRATIONS: [&str; 9] = [
    // 1: questions and their event log.
    "
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
",
    // 2: who decided (a person's name, from a named token).
    "
ALTER TABLE questions ADD COLUMN decided_by TEXT;
DROP TRIGGER outcome_written_once;
CREATE TRIGGER outcome_written_once
    BEFORE UPDATE OF outcome, face, document, decided_at, decided_by ON questions
    WHEN OLD.outcome IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an outcome is written once');
END;
",
    // 3: who asked (an asker token's name).
    "
ALTER TABLE questions ADD COLUMN asked_by TEXT;
CREATE TRIGGER asker_written_once BEFORE UPDATE OF asked_by ON questions
BEGIN
    SELECT RAISE(ABORT, 'who asked is written once');
END;
",
    // 4: named tokens (`inbox token add`): the SHA-256 of each, never the token.
    "
CREATE TABLE tokens (
    name     TEXT PRIMARY KEY,
    role     TEXT NOT NULL CHECK (role IN ('person','asker')),
    digest   BLOB NOT NULL UNIQUE CHECK (length(digest) = 32),
    added_at INTEGER NOT NULL
) STRICT;
",
    // 5: the key of one-question links (one row), and the faces link, ntfy
    // and matrix. SQLite cannot change a CHECK in place: the questions
    // table is rebuilt (SQLite's documented procedure, foreign keys off
    // around it: see `migrate`), its rowids kept (the pending order's tie-break).
    "
CREATE TABLE link_key (
    only_one INTEGER PRIMARY KEY CHECK (only_one = 1),
    key      BLOB NOT NULL CHECK (length(key) = 32)
) STRICT;
CREATE TABLE questions_v5 (
    id          TEXT PRIMARY KEY,
    ask_key     TEXT NOT NULL UNIQUE,
    input       TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    source_name TEXT,
    source_cwd  TEXT,
    source_pid  INTEGER,
    asked_at    INTEGER NOT NULL,
    expires_at  INTEGER,
    gone_at     INTEGER,
    gone_reason TEXT,
    outcome     TEXT CHECK (outcome IN
                  ('answered','declined','cancelled','dismissed','timed_out','asker_gone')),
    face        TEXT CHECK (face IN ('page','cli','asker','inbox','link','ntfy','matrix')),
    document    TEXT,
    decided_at  INTEGER,
    decided_by  TEXT,
    asked_by    TEXT,
    CHECK ((outcome IS NULL) = (face IS NULL)
       AND (outcome IS NULL) = (document IS NULL)
       AND (outcome IS NULL) = (decided_at IS NULL))
) STRICT;
INSERT INTO questions_v5 (rowid, id, ask_key, input, prompt, source_name, source_cwd, source_pid,
        asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at,
        decided_by, asked_by)
    SELECT rowid, id, ask_key, input, prompt, source_name, source_cwd, source_pid,
        asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at,
        decided_by, asked_by
    FROM questions ORDER BY rowid;
DROP TABLE questions;
ALTER TABLE questions_v5 RENAME TO questions;
CREATE INDEX questions_pending ON questions (asked_at) WHERE outcome IS NULL;
CREATE TRIGGER outcome_written_once
    BEFORE UPDATE OF outcome, face, document, decided_at, decided_by ON questions
    WHEN OLD.outcome IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an outcome is written once');
END;
CREATE TRIGGER asker_written_once BEFORE UPDATE OF asked_by ON questions
BEGIN
    SELECT RAISE(ABORT, 'who asked is written once');
END;
",
    // 6: the votes of questions that need approvals: one per person
    // (a later vote replaces theirs), kept after the outcome.
    "
CREATE TABLE votes (
    question TEXT NOT NULL REFERENCES questions (id),
    voter    TEXT NOT NULL,
    face     TEXT NOT NULL,
    -- The JSON of the person's answers.
    answers  TEXT NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (question, voter)
) STRICT;
",
    // 7: the groups of a person token (`--group`), space-separated
    // (a group name has no spaces: `tokens::check_name`); '' for none.
    "
ALTER TABLE tokens ADD COLUMN member_of TEXT NOT NULL DEFAULT '';
",
    // 8: standing answers (`inbox rule`), each person's away
    // switch, and the face rule (the questions table rebuilt as in step 5).
    "
CREATE TABLE rules (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    -- The JSON of its match and answer.
    rule       TEXT NOT NULL,
    added_at   INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE TABLE away (
    person TEXT PRIMARY KEY,
    since  INTEGER NOT NULL
) STRICT;
CREATE TABLE questions_v8 (
    id          TEXT PRIMARY KEY,
    ask_key     TEXT NOT NULL UNIQUE,
    input       TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    source_name TEXT,
    source_cwd  TEXT,
    source_pid  INTEGER,
    asked_at    INTEGER NOT NULL,
    expires_at  INTEGER,
    gone_at     INTEGER,
    gone_reason TEXT,
    outcome     TEXT CHECK (outcome IN
                  ('answered','declined','cancelled','dismissed','timed_out','asker_gone')),
    face        TEXT CHECK (face IN ('page','cli','asker','inbox','link','ntfy','matrix','rule')),
    document    TEXT,
    decided_at  INTEGER,
    decided_by  TEXT,
    asked_by    TEXT,
    CHECK ((outcome IS NULL) = (face IS NULL)
       AND (outcome IS NULL) = (document IS NULL)
       AND (outcome IS NULL) = (decided_at IS NULL))
) STRICT;
INSERT INTO questions_v8 (rowid, id, ask_key, input, prompt, source_name, source_cwd, source_pid,
        asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at,
        decided_by, asked_by)
    SELECT rowid, id, ask_key, input, prompt, source_name, source_cwd, source_pid,
        asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at,
        decided_by, asked_by
    FROM questions ORDER BY rowid;
DROP TABLE questions;
ALTER TABLE questions_v8 RENAME TO questions;
CREATE INDEX questions_pending ON questions (asked_at) WHERE outcome IS NULL;
CREATE TRIGGER outcome_written_once
    BEFORE UPDATE OF outcome, face, document, decided_at, decided_by ON questions
    WHEN OLD.outcome IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'an outcome is written once');
END;
CREATE TRIGGER asker_written_once BEFORE UPDATE OF asked_by ON questions
BEGIN
    SELECT RAISE(ABORT, 'who asked is written once');
END;
",
    // 9: the escalation steps fired (the policy's `[[escalate]]`), one
    // row per question and step: the first replica's insert wins.
    "
CREATE TABLE escalations (
    question TEXT NOT NULL REFERENCES questions (id),
    step     INTEGER NOT NULL,
    after_ms INTEGER NOT NULL,
    notify   TEXT NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (question, step)
) STRICT;
",
];

pub struct SqliteStore {
    conn: Connection,
}

impl SqliteStore {
    /// Opens (creating it 0600, with its schema) the store at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        SqliteStore::open_at(path, SCHEMA_VERSION)
    }

    /// [`SqliteStore::open`], migrating no further than `version`.
    pub(super) fn open_at(path: &Path, version: i64) -> Result<SqliteStore> {
        // SQLite gives its WAL and shared-memory files the database's mode.
        let _ = ask_user_platform::files::private(
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .open(path);
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::NotWal(mode));
        }
        conn.execute_batch(
            "PRAGMA synchronous = FULL;
             PRAGMA foreign_keys = ON;
             PRAGMA cache_size = -1024;",
        )?;
        let mut store = SqliteStore { conn };
        store.migrate(version)?;
        Ok(store)
    }

    fn migrate(&mut self, target: i64) -> Result<()> {
        // A step that rebuilds a table (5) drops one that events refer to:
        // foreign keys are off around the migration (the pragma is a no-op
        // inside a transaction) and checked before it commits.
        self.conn.execute_batch("PRAGMA foreign_keys = OFF")?;
        let migrated = self.migrate_steps(target);
        self.conn.execute_batch("PRAGMA foreign_keys = ON")?;
        migrated
    }

    fn migrate_steps(&mut self, target: i64) -> Result<()> {
        let tx = self.immediate()?;
        let found: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if found > SCHEMA_VERSION {
            return Err(Error::NewerSchema {
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (version, step) in (1..).zip(MIGRATIONS) {
            if version > found && version <= target {
                tx.execute_batch(step)?;
                tx.execute_batch(&format!("PRAGMA user_version = {version}"))?;
            }
        }
        let broken: Option<String> = tx
            .query_row("PRAGMA foreign_key_check", [], |row| row.get(0))
            .optional()?;
        if let Some(table) = broken {
            return Err(Error::Corrupt(format!(
                "a row of {table} whose question is missing"
            )));
        }
        tx.commit()?;
        Ok(())
    }

    /// A write transaction that holds the file's write lock from its start.
    fn immediate(&mut self) -> rusqlite::Result<Transaction<'_>> {
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
    }

    fn select(&self, id: &str) -> Result<Option<Stored>> {
        let row = self
            .conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM questions WHERE id = ?1"),
                [id],
                read_row,
            )
            .optional()?;
        row.map(Columns::stored).transpose()
    }
}

impl Store for SqliteStore {
    fn ask(&mut self, question: &NewQuestion) -> Result<(String, bool)> {
        let tx = self.immediate()?;
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
            let id = new_id()?;
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
                 source_pid, asked_at, expires_at, asked_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
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
                question.asked_by,
            ],
        )?;
        log_event(&tx, &id, question.asked_at, "asked", None)?;
        tx.commit()?;
        Ok((id, true))
    }

    fn get(&mut self, id: &str) -> Result<Option<Stored>> {
        self.select(id)
    }

    fn pending(&mut self) -> Result<Vec<Stored>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM questions WHERE outcome IS NULL ORDER BY asked_at, rowid"
        ))?;
        let rows = statement.query_map([], read_row)?;
        rows.map(|row| row?.stored()).collect()
    }

    fn history(&mut self, limit: Option<usize>) -> Result<Vec<Stored>> {
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut statement = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM questions WHERE outcome IS NOT NULL
             ORDER BY decided_at DESC, rowid DESC LIMIT ?1"
        ))?;
        let rows = statement.query_map([limit], read_row)?;
        rows.map(|row| row?.stored()).collect()
    }

    fn decide(&mut self, id: &str, decision: &Decision) -> Result<Decided> {
        let tx = self.immediate()?;
        let changed = tx.execute(
            "UPDATE questions SET outcome = ?2, face = ?3, document = ?4, decided_at = ?5,
                 decided_by = ?6, gone_at = NULL, gone_reason = NULL
             WHERE id = ?1 AND outcome IS NULL",
            params![
                id,
                decision.outcome.as_str(),
                decision.face.as_str(),
                decision.document,
                decision.at,
                decision.by,
            ],
        )?;
        if changed == 1 {
            log_event(&tx, id, decision.at, "decided", Some(&decision.detail()))?;
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
        Ok(match before.map(Columns::stored).transpose()? {
            Some(Stored {
                decision: Some(decision),
                ..
            }) => Decided::Already(decision),
            // Pending yet unchanged cannot happen inside the transaction.
            _ => Decided::Unknown,
        })
    }

    fn mark_gone(&mut self, id: &str, reason: &str, at: Millis) -> Result<bool> {
        let tx = self.immediate()?;
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

    fn mark_back(&mut self, id: &str, at: Millis) -> Result<bool> {
        let tx = self.immediate()?;
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

    fn events(&mut self, id: &str) -> Result<Vec<Event>> {
        let mut statement = self
            .conn
            .prepare("SELECT at, kind, detail FROM events WHERE question = ?1 ORDER BY seq")?;
        let rows = statement.query_map([id], |row| {
            Ok(Event {
                at: row.get(0)?,
                kind: row.get(1)?,
                detail: row.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn schema_version(&mut self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))?)
    }

    /// One: the inbox that serves this file holds its state folder's lock.
    fn replicas(&mut self) -> Result<u64> {
        Ok(1)
    }

    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn tokens(&mut self) -> Result<Vec<StoredToken>> {
        let mut statement = self
            .conn
            .prepare("SELECT name, role, digest, added_at, member_of FROM tokens ORDER BY name")?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Vec<u8>>(2)?,
                row.get::<_, Millis>(3)?,
                row.get::<_, String>(4)?,
            ))
        })?;
        let mut tokens = Vec::new();
        for row in rows {
            let (name, role, digest, added_at, member_of) = row?;
            let role = TokenRole::parse(&role)
                .ok_or_else(|| Error::Corrupt(format!("a token of role {role:?}")))?;
            tokens.push(StoredToken {
                name,
                role,
                digest,
                added_at,
                groups: super::split_groups(&member_of),
            });
        }
        Ok(tokens)
    }

    fn add_token(&mut self, token: &StoredToken) -> Result<bool> {
        let added = self.conn.execute(
            "INSERT INTO tokens (name, role, digest, added_at, member_of)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO NOTHING",
            params![
                token.name,
                token.role.as_str(),
                token.digest,
                token.added_at,
                super::join_groups(&token.groups)
            ],
        )?;
        Ok(added == 1)
    }

    fn remove_token(&mut self, name: &str) -> Result<bool> {
        Ok(self
            .conn
            .execute("DELETE FROM tokens WHERE name = ?1", [name])?
            == 1)
    }

    fn link_key(&mut self) -> Result<[u8; super::LINK_KEY_LEN]> {
        let fresh = super::new_link_key()?;
        let tx = self.immediate()?;
        tx.execute(
            "INSERT INTO link_key (only_one, key) VALUES (1, ?1) ON CONFLICT DO NOTHING",
            [&fresh[..]],
        )?;
        let key: Vec<u8> = tx.query_row("SELECT key FROM link_key", [], |row| row.get(0))?;
        tx.commit()?;
        super::stored_link_key(&key)
    }

    fn vote(&mut self, id: &str, vote: &NewVote, tally: Tally) -> Result<Voted> {
        // BEGIN IMMEDIATE: the write lock from the start, so that the
        // votes read below are all the votes there are.
        let tx = self.immediate()?;
        let row = tx
            .query_row(
                &format!("SELECT {COLUMNS} FROM questions WHERE id = ?1"),
                [id],
                read_row,
            )
            .optional()?;
        match row.map(Columns::stored).transpose()? {
            None => return Ok(Voted::Unknown),
            Some(Stored {
                decision: Some(decision),
                ..
            }) => {
                // As PostgreSQL's: the deciding vote sent again exactly.
                let again = decision.by.as_deref() == Some(vote.voter.as_str())
                    && read_votes(&tx, id)?.contains(vote);
                return Ok(if again {
                    Voted::Decided(decision)
                } else {
                    Voted::Already(decision)
                });
            }
            Some(_) => {}
        }
        tx.execute(
            "INSERT INTO votes (question, voter, face, answers, at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (question, voter) DO UPDATE
                 SET face = excluded.face, answers = excluded.answers, at = excluded.at",
            params![id, vote.voter, vote.face.as_str(), vote.answers, vote.at],
        )?;
        let votes = read_votes(&tx, id)?;
        let Some(decision) = tally(&votes) else {
            tx.commit()?;
            return Ok(Voted::Counted(votes));
        };
        tx.execute(
            "UPDATE questions SET outcome = ?2, face = ?3, document = ?4, decided_at = ?5,
                 decided_by = ?6, gone_at = NULL, gone_reason = NULL
             WHERE id = ?1 AND outcome IS NULL",
            params![
                id,
                decision.outcome.as_str(),
                decision.face.as_str(),
                decision.document,
                decision.at,
                decision.by,
            ],
        )?;
        log_event(&tx, id, decision.at, "decided", Some(&decision.detail()))?;
        tx.commit()?;
        Ok(Voted::Decided(decision))
    }

    fn votes(&mut self, id: &str) -> Result<Vec<NewVote>> {
        read_votes(&self.conn, id)
    }

    fn rules(&mut self) -> Result<Vec<StoredRule>> {
        let mut statement = self.conn.prepare(
            "SELECT id, owner, rule, added_at, expires_at FROM rules ORDER BY added_at, id",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(StoredRule {
                id: row.get(0)?,
                owner: row.get(1)?,
                rule: row.get(2)?,
                added_at: row.get(3)?,
                expires_at: row.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn add_rule(&mut self, rule: &StoredRule) -> Result<bool> {
        let added = self.conn.execute(
            "INSERT INTO rules (id, owner, rule, added_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (id) DO NOTHING",
            params![
                rule.id,
                rule.owner,
                rule.rule,
                rule.added_at,
                rule.expires_at
            ],
        )?;
        Ok(added == 1)
    }

    fn remove_rule(&mut self, id: &str) -> Result<bool> {
        Ok(self.conn.execute("DELETE FROM rules WHERE id = ?1", [id])? == 1)
    }

    fn away(&mut self) -> Result<Vec<(String, Millis)>> {
        let mut statement = self
            .conn
            .prepare("SELECT person, since FROM away ORDER BY person")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn set_away(&mut self, person: &str, since: Option<Millis>) -> Result<()> {
        match since {
            Some(since) => self.conn.execute(
                "INSERT INTO away (person, since) VALUES (?1, ?2) ON CONFLICT (person) DO NOTHING",
                params![person, since],
            )?,
            None => self
                .conn
                .execute("DELETE FROM away WHERE person = ?1", [person])?,
        };
        Ok(())
    }

    fn escalate(&mut self, escalation: &Escalation) -> Result<Escalated> {
        // BEGIN IMMEDIATE: no outcome can be written between the look and
        // the insert.
        let tx = self.immediate()?;
        let pending: Option<bool> = tx
            .query_row(
                "SELECT outcome IS NULL FROM questions WHERE id = ?1",
                [&escalation.question],
                |row| row.get(0),
            )
            .optional()?;
        if pending != Some(true) {
            return Ok(Escalated::Closed);
        }
        let inserted = tx.execute(
            "INSERT INTO escalations (question, step, after_ms, notify, at)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (question, step) DO NOTHING",
            params![
                escalation.question,
                escalation.step,
                escalation.after,
                escalation.notify,
                escalation.at
            ],
        )?;
        tx.commit()?;
        Ok(if inserted == 1 {
            Escalated::Fired
        } else {
            Escalated::Already
        })
    }

    fn escalations(&mut self, ids: &[String]) -> Result<Vec<Escalation>> {
        let mut statement = self.conn.prepare(
            "SELECT question, step, after_ms, notify, at FROM escalations
             WHERE question = ?1 ORDER BY step",
        )?;
        let mut all = Vec::new();
        for id in ids {
            let rows = statement.query_map([id], |row| {
                Ok(Escalation {
                    question: row.get(0)?,
                    step: row.get(1)?,
                    after: row.get(2)?,
                    notify: row.get(3)?,
                    at: row.get(4)?,
                })
            })?;
            for row in rows {
                all.push(row?);
            }
        }
        Ok(all)
    }
}

/// The votes on question `id`, in the order cast (ties: by name).
fn read_votes(conn: &Connection, id: &str) -> Result<Vec<NewVote>> {
    let mut statement = conn.prepare(
        "SELECT voter, face, answers, at FROM votes WHERE question = ?1 ORDER BY at, voter",
    )?;
    let rows = statement.query_map([id], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, Millis>(3)?,
        ))
    })?;
    rows.map(|row| {
        let (voter, face, answers, at) = row?;
        Ok(NewVote {
            voter,
            face: Face::parse(&face)
                .ok_or_else(|| Error::Corrupt(format!("an unknown face {face:?}")))?,
            answers,
            at,
        })
    })
    .collect()
}

const COLUMNS: &str = "id, ask_key, input, prompt, source_name, source_cwd, source_pid, \
     asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at, decided_by, \
     asked_by";

/// A row as read, before its outcome and face are parsed.
struct Columns {
    id: String,
    question: NewQuestion,
    gone: Option<(Millis, String)>,
    outcome: Option<String>,
    face: Option<String>,
    document: Option<String>,
    decided_at: Option<Millis>,
    decided_by: Option<String>,
}

impl Columns {
    fn stored(self) -> Result<Stored> {
        Ok(Stored {
            id: self.id,
            question: self.question,
            gone: self.gone,
            decision: Decision::from_columns(
                self.outcome,
                self.face,
                self.document,
                self.decided_at,
                self.decided_by,
            )?,
        })
    }
}

fn read_row(row: &Row<'_>) -> rusqlite::Result<Columns> {
    let gone_at: Option<Millis> = row.get(9)?;
    let gone_reason: Option<String> = row.get(10)?;
    Ok(Columns {
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
            asked_by: row.get(16)?,
        },
        gone: gone_at.map(|at| (at, gone_reason.unwrap_or_default())),
        outcome: row.get(11)?,
        face: row.get(12)?,
        document: row.get(13)?,
        decided_at: row.get(14)?,
        decided_by: row.get(15)?,
    })
}

fn log_event(
    tx: &Transaction<'_>,
    id: &str,
    at: Millis,
    kind: &str,
    detail: Option<&str>,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO events (question, at, kind, detail) VALUES (?1, ?2, ?3, ?4)",
        params![id, at, kind, detail],
    )
    .map(drop)
}

#[cfg(test)]
mod tests {
    //! What only SQLite has: its file, its journal, and SQL run past the
    //! code. The rules both stores share are tested on both in tests/store.rs.
    use super::*;
    use crate::store::{Face, Outcome, now_ms};

    fn question(key: &str) -> NewQuestion {
        NewQuestion {
            ask_key: key.into(),
            input: r#"{"question":"Deploy?"}"#.into(),
            prompt: "{}".into(),
            source: Source::default(),
            asked_at: 1_000,
            expires_at: None,
            asked_by: None,
        }
    }

    #[test]
    fn the_database_refuses_a_second_outcome_and_rewritten_events() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
        let (id, _) = store.ask(&question("k")).unwrap();
        let decision = Decision {
            outcome: Outcome::Answered,
            face: Face::Page,
            document: "{}".into(),
            at: now_ms(),
            by: Some("Ada".into()),
        };
        assert_eq!(store.decide(&id, &decision).unwrap(), Decided::Now);
        // Even SQL that skips the code cannot rewrite an outcome.
        for column in ["outcome = 'dismissed'", "decided_by = 'Mallory'"] {
            let err = store
                .conn
                .execute(&format!("UPDATE questions SET {column}"), [])
                .unwrap_err();
            assert!(err.to_string().contains("written once"), "{column}: {err}");
        }
        let err = store
            .conn
            .execute("UPDATE events SET kind = 'asked'", [])
            .unwrap_err();
        assert!(err.to_string().contains("never rewritten"), "{err}");
    }

    #[test]
    fn the_journal_is_wal_with_full_sync_and_the_files_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        let mut store = SqliteStore::open(&path).unwrap();
        store.ask(&question("k")).unwrap();
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
    }
}
