//! The schema's steps, and the migration that applies them once, whichever
//! replica starts first.

use postgres::Client;

use super::super::{Error, Result, SCHEMA_VERSION};
use super::pg;

/// Each schema version's step, applied in order. A step is never edited
/// once released: a later change is a new step.
const MIGRATIONS: [&str; 9] = [
    // 1: questions and their event log, as in SQLite (`seq`: the order rows
    // were stored, SQLite's rowid).
    "
CREATE TABLE ask_user_schema (version INTEGER NOT NULL);
INSERT INTO ask_user_schema VALUES (0);
CREATE TABLE questions (
    seq         BIGSERIAL NOT NULL UNIQUE,
    id          TEXT PRIMARY KEY,
    ask_key     TEXT NOT NULL UNIQUE,
    input       TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    source_name TEXT,
    source_cwd  TEXT,
    source_pid  BIGINT,
    asked_at    BIGINT NOT NULL,
    expires_at  BIGINT,
    gone_at     BIGINT,
    gone_reason TEXT,
    outcome     TEXT CHECK (outcome IN
                  ('answered','declined','cancelled','dismissed','timed_out','asker_gone')),
    face        TEXT CHECK (face IN ('page','cli','asker','inbox')),
    document    TEXT,
    decided_at  BIGINT,
    CHECK ((outcome IS NULL) = (face IS NULL)
       AND (outcome IS NULL) = (document IS NULL)
       AND (outcome IS NULL) = (decided_at IS NULL))
);
CREATE INDEX questions_pending ON questions (asked_at, seq) WHERE outcome IS NULL;
CREATE TABLE events (
    seq      BIGSERIAL PRIMARY KEY,
    question TEXT NOT NULL REFERENCES questions (id),
    at       BIGINT NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('asked','asker_left','asker_back','decided')),
    detail   TEXT
);
CREATE INDEX events_question ON events (question);
CREATE FUNCTION ask_user_outcome_written_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.outcome IS NOT NULL AND (NEW.outcome, NEW.face, NEW.document, NEW.decided_at)
        IS DISTINCT FROM (OLD.outcome, OLD.face, OLD.document, OLD.decided_at) THEN
        RAISE EXCEPTION 'an outcome is written once';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER outcome_written_once BEFORE UPDATE ON questions
    FOR EACH ROW EXECUTE FUNCTION ask_user_outcome_written_once();
CREATE FUNCTION ask_user_events_never_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are never rewritten';
END $$;
CREATE TRIGGER events_never_rewritten BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION ask_user_events_never_rewritten();
",
    // 2: who decided (a person's name, from a named token).
    "
ALTER TABLE questions ADD COLUMN decided_by TEXT;
CREATE OR REPLACE FUNCTION ask_user_outcome_written_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.outcome IS NOT NULL
        AND (NEW.outcome, NEW.face, NEW.document, NEW.decided_at, NEW.decided_by)
        IS DISTINCT FROM (OLD.outcome, OLD.face, OLD.document, OLD.decided_at, OLD.decided_by) THEN
        RAISE EXCEPTION 'an outcome is written once';
    END IF;
    RETURN NEW;
END $$;
",
    // 3: who asked (an asker token's name).
    "
ALTER TABLE questions ADD COLUMN asked_by TEXT;
CREATE FUNCTION ask_user_asker_written_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.asked_by IS DISTINCT FROM OLD.asked_by THEN
        RAISE EXCEPTION 'who asked is written once';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER asker_written_once BEFORE UPDATE ON questions
    FOR EACH ROW EXECUTE FUNCTION ask_user_asker_written_once();
",
    // 4: named tokens (`inbox token add`): the SHA-256 of each, never the token.
    "
CREATE TABLE ask_user_tokens (
    name     TEXT PRIMARY KEY,
    role     TEXT NOT NULL CHECK (role IN ('person','asker')),
    digest   BYTEA NOT NULL UNIQUE CHECK (length(digest) = 32),
    added_at BIGINT NOT NULL
);
",
    // 5: the key of one-question links (one row), and the faces link, ntfy
    // and matrix.
    "
CREATE TABLE ask_user_link_key (
    only_one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_one),
    key      BYTEA NOT NULL CHECK (length(key) = 32)
);
ALTER TABLE questions DROP CONSTRAINT questions_face_check;
ALTER TABLE questions ADD CONSTRAINT questions_face_check
    CHECK (face IN ('page','cli','asker','inbox','link','ntfy','matrix'));
",
    // 6: the votes of questions that need approvals: one per person
    // (a later vote replaces theirs), kept after the outcome.
    "
CREATE TABLE votes (
    question TEXT NOT NULL REFERENCES questions (id),
    voter    TEXT NOT NULL,
    face     TEXT NOT NULL,
    answers  TEXT NOT NULL,
    at       BIGINT NOT NULL,
    PRIMARY KEY (question, voter)
);
",
    // 7: the groups of a person token (`--group`), space-separated
    // (a group name has no spaces: `tokens::check_name`); '' for none.
    "
ALTER TABLE ask_user_tokens ADD COLUMN member_of TEXT NOT NULL DEFAULT '';
",
    // 8: standing answers (`inbox rule`), each person's away
    // switch, and the face rule.
    "
CREATE TABLE ask_user_rules (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    rule       TEXT NOT NULL,
    added_at   BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE TABLE ask_user_away (
    person TEXT PRIMARY KEY,
    since  BIGINT NOT NULL
);
ALTER TABLE questions DROP CONSTRAINT questions_face_check;
ALTER TABLE questions ADD CONSTRAINT questions_face_check
    CHECK (face IN ('page','cli','asker','inbox','link','ntfy','matrix','rule'));
",
    // 9: the escalation steps fired (the policy's `[[escalate]]`), one
    // row per question and step: the first replica's insert wins.
    "
CREATE TABLE escalations (
    question TEXT NOT NULL REFERENCES questions (id),
    step     INTEGER NOT NULL,
    after_ms BIGINT NOT NULL,
    notify   TEXT NOT NULL,
    at       BIGINT NOT NULL,
    PRIMARY KEY (question, step)
);
",
];

/// The advisory lock that migrations hold ("ask_" in ASCII).
const MIGRATION_LOCK: i64 = 0x6173_6b5f;

pub(super) fn migrate(client: &mut Client, target: i64) -> Result<()> {
    let mut tx = client.transaction().map_err(pg)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(pg)?;
    let exists: bool = tx
        .query_one("SELECT to_regclass('ask_user_schema') IS NOT NULL", &[])
        .map_err(pg)?
        .get(0);
    let found: i64 = if exists {
        let version: i32 = tx
            .query_one("SELECT version FROM ask_user_schema", &[])
            .map_err(pg)?
            .get(0);
        i64::from(version)
    } else {
        0
    };
    if found > SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            found,
            known: SCHEMA_VERSION,
        });
    }
    for (version, step) in (1..).zip(MIGRATIONS) {
        if version > found && version <= target {
            tx.batch_execute(step).map_err(pg)?;
            let version = i32::try_from(version).unwrap_or(i32::MAX);
            tx.execute("UPDATE ask_user_schema SET version = $1", &[&version])
                .map_err(pg)?;
        }
    }
    tx.commit().map_err(pg)
}
