//! The store in a PostgreSQL database, for an inbox past one machine.
//!
//! The `postgres` client is synchronous and runs a tokio runtime of its own,
//! which cannot run inside the inbox's runtime; so one thread owns the
//! connection and the store's calls are jobs sent to it, each answered
//! before the call returns (as SQLite's are). A lost connection is opened
//! again by the next call; the call that found it lost fails.
//!
//! Every write is one transaction at PostgreSQL's default isolation (read
//! committed) with `synchronous_commit` as the server has it (on, by
//! default): a commit returns once it is durable. The first writer wins by a
//! conditional `UPDATE … WHERE outcome IS NULL`: a second writer waits on the
//! row's lock, then finds the outcome written and changes nothing. Schema
//! migrations take an advisory lock, so replicas that start together migrate
//! once.

use std::time::Duration;

use postgres::Row;
use postgres::types::Type;

use super::tls::MakeRustls;

mod listen;
mod schema;
mod session;

pub use listen::{BATCH, LISTENER_NAME, Notice, listen};
pub use session::PostgresStore;
use session::{Prepared as _, Session, Tx};

use super::{
    Decided, Decision, Error, Escalated, Escalation, Event, Face, Millis, NewQuestion, NewVote,
    RULES_CHANGED, Result, Source, Store, Stored, StoredRule, StoredToken, TOKENS_CHANGED, Tally,
    TokenRole, Voted, new_id,
};

/// How often an ask tries again when its statement stored nothing and found
/// nothing (a taken id, a racing retry): twice is already rare; never for
/// ever, whatever the database answers.
const ASK_TRIES: usize = 8;

/// How long opening a connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long sent data may go unacknowledged before the connection counts
/// as lost (TCP_USER_TIMEOUT, where the system has it).
const LOST_AFTER: Duration = Duration::from_secs(15);

impl Store for PostgresStore {
    /// One statement, committed on its own: the retry's lookup, the
    /// insert, its event and the notice (two round trips, where a
    /// transaction of four statements took ten).
    fn ask(&mut self, question: &NewQuestion) -> Result<(String, bool)> {
        let question = question.clone();
        self.call(move |client: &mut Session| {
            let pid = question.source.pid.map(i64::from);
            for _ in 0..ASK_TRIES {
                // No row: a taken id, or a concurrent retry's key stored
                // after this statement's snapshot; neither was written, and
                // the loop asks again (then finding the retry's question).
                let id = new_id()?;
                let row = client
                    .query_opt(
                        "WITH found AS (
                             SELECT id FROM questions WHERE ask_key = $2
                         ), inserted AS (
                             INSERT INTO questions (id, ask_key, input, prompt, source_name,
                                 source_cwd, source_pid, asked_at, expires_at, asked_by)
                             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
                             WHERE NOT EXISTS (SELECT 1 FROM found)
                             ON CONFLICT DO NOTHING
                             RETURNING id
                         ), logged AS (
                             INSERT INTO events (question, at, kind)
                             SELECT id, $8, 'asked' FROM inserted
                         )
                         SELECT id, true, pg_notify($11, id)::text FROM inserted
                         UNION ALL
                         SELECT id, false, NULL FROM found",
                        &[
                            &id,
                            &question.ask_key,
                            &question.input,
                            &question.prompt,
                            &question.source.name,
                            &question.source.cwd,
                            &pid,
                            &question.asked_at,
                            &question.expires_at,
                            &question.asked_by,
                            &CHANNEL,
                        ],
                    )
                    .map_err(pg)?;
                if let Some(row) = row {
                    return Ok((row.get(0), row.get(1)));
                }
            }
            Err(Error::Postgres(format!(
                "the ask was neither stored nor found after {ASK_TRIES} tries"
            )))
        })
    }

    fn get(&mut self, id: &str) -> Result<Option<Stored>> {
        let id = id.to_string();
        self.call(move |client: &mut Session| {
            let row = client
                .query_opt(
                    &format!("SELECT {COLUMNS} FROM questions WHERE id = $1"),
                    &[&id],
                )
                .map_err(pg)?;
            row.as_ref().map(read_row).transpose()
        })
    }

    /// One statement, however many ids (in the order stored, so that a
    /// burst of questions heard from another replica is listed in order).
    fn get_many(&mut self, ids: &[String]) -> Result<Vec<Stored>> {
        let ids = ids.to_vec();
        self.call(move |client: &mut Session| {
            let rows = client
                .query_each_time(
                    &format!("SELECT {COLUMNS} FROM questions WHERE id = ANY($1) ORDER BY seq"),
                    &[(&ids, Type::TEXT_ARRAY)],
                )
                .map_err(pg)?;
            rows.iter().map(read_row).collect()
        })
    }

    fn pending(&mut self) -> Result<Vec<Stored>> {
        self.call(|client: &mut Session| {
            let rows = client
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM questions WHERE outcome IS NULL
                         ORDER BY asked_at, seq"
                    ),
                    &[],
                )
                .map_err(pg)?;
            rows.iter().map(read_row).collect()
        })
    }

    fn history(&mut self, limit: Option<usize>) -> Result<Vec<Stored>> {
        // LIMIT NULL is no limit.
        let limit = limit.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        self.call(move |client: &mut Session| {
            let rows = client
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM questions WHERE outcome IS NOT NULL
                         ORDER BY decided_at DESC, seq DESC LIMIT $1"
                    ),
                    &[&limit],
                )
                .map_err(pg)?;
            rows.iter().map(read_row).collect()
        })
    }

    fn decide(&mut self, id: &str, decision: &Decision) -> Result<Decided> {
        let (id, decision) = (id.to_string(), decision.clone());
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let changed = tx
                .execute(
                    "UPDATE questions SET outcome = $2, face = $3, document = $4,
                         decided_at = $5, decided_by = $6, gone_at = NULL, gone_reason = NULL
                     WHERE id = $1 AND outcome IS NULL",
                    &[
                        &id,
                        &decision.outcome.as_str(),
                        &decision.face.as_str(),
                        &decision.document,
                        &decision.at,
                        &decision.by,
                    ],
                )
                .map_err(pg)?;
            if changed == 1 {
                log_event(
                    &mut tx,
                    &id,
                    decision.at,
                    "decided",
                    Some(&decision.detail()),
                )?;
                notify(&mut tx, &id)?;
                tx.commit().map_err(pg)?;
                return Ok(Decided::Now);
            }
            // Read committed: this statement sees the winner's commit.
            let row = tx
                .query_opt(
                    &format!("SELECT {COLUMNS} FROM questions WHERE id = $1"),
                    &[&id],
                )
                .map_err(pg)?;
            Ok(match row.as_ref().map(read_row).transpose()? {
                // This very decision, committed by a first try whose reply
                // the lost connection swallowed (see `call`).
                Some(Stored {
                    decision: Some(found),
                    ..
                }) if found == decision => Decided::Now,
                Some(Stored {
                    decision: Some(found),
                    ..
                }) => Decided::Already(found),
                _ => Decided::Unknown,
            })
        })
    }

    fn mark_gone(&mut self, id: &str, reason: &str, at: Millis) -> Result<bool> {
        let (id, reason) = (id.to_string(), reason.to_string());
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let changed = tx
                .execute(
                    "UPDATE questions SET gone_at = $2, gone_reason = $3
                     WHERE id = $1 AND outcome IS NULL AND gone_at IS NULL",
                    &[&id, &at, &reason],
                )
                .map_err(pg)?;
            if changed == 1 {
                log_event(&mut tx, &id, at, "asker_left", Some(&reason))?;
                notify(&mut tx, &id)?;
            }
            tx.commit().map_err(pg)?;
            Ok(changed == 1)
        })
    }

    fn mark_back(&mut self, id: &str, at: Millis) -> Result<bool> {
        let id = id.to_string();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let changed = tx
                .execute(
                    "UPDATE questions SET gone_at = NULL, gone_reason = NULL
                     WHERE id = $1 AND outcome IS NULL AND gone_at IS NOT NULL",
                    &[&id],
                )
                .map_err(pg)?;
            if changed == 1 {
                log_event(&mut tx, &id, at, "asker_back", None)?;
                notify(&mut tx, &id)?;
            }
            tx.commit().map_err(pg)?;
            Ok(changed == 1)
        })
    }

    fn events(&mut self, id: &str) -> Result<Vec<Event>> {
        let id = id.to_string();
        self.call(move |client: &mut Session| {
            let rows = client
                .query(
                    "SELECT at, kind, detail FROM events WHERE question = $1 ORDER BY seq",
                    &[&id],
                )
                .map_err(pg)?;
            Ok(rows
                .iter()
                .map(|row| Event {
                    at: row.get(0),
                    kind: row.get(1),
                    detail: row.get(2),
                })
                .collect())
        })
    }

    fn schema_version(&mut self) -> Result<i64> {
        self.call(|client: &mut Session| {
            let version: i32 = client
                .query_one("SELECT version FROM ask_user_schema", &[])
                .map_err(pg)?
                .get(0);
            Ok(i64::from(version))
        })
    }

    /// The listening connections ([`listen`]) open on this database, by
    /// their application name: one per running replica. `pg_stat_activity`
    /// shows every session's database and application name to every role
    /// (the fields it hides from other roles are others).
    fn replicas(&mut self) -> Result<u64> {
        self.call(|client: &mut Session| {
            let count: i64 = client
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity
                     WHERE datname = current_database() AND application_name = $1",
                    &[&LISTENER_NAME],
                )
                .map_err(pg)?
                .get(0);
            Ok(u64::try_from(count).unwrap_or(0))
        })
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn tokens(&mut self) -> Result<Vec<StoredToken>> {
        self.call(|client: &mut Session| {
            let rows = client
                .query(
                    "SELECT name, role, digest, added_at, member_of FROM ask_user_tokens ORDER BY name",
                    &[],
                )
                .map_err(pg)?;
            rows.iter()
                .map(|row| {
                    let role: String = row.get(1);
                    Ok(StoredToken {
                        name: row.get(0),
                        role: TokenRole::parse(&role)
                            .ok_or_else(|| Error::Corrupt(format!("a token of role {role:?}")))?,
                        digest: row.get(2),
                        added_at: row.get(3),
                        groups: super::split_groups(row.get(4)),
                    })
                })
                .collect()
        })
    }

    /// Every replica hears of it ([`TOKENS_CHANGED`]) and reads the tokens again.
    fn add_token(&mut self, token: &StoredToken) -> Result<bool> {
        let token = token.clone();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let added = tx
                .execute(
                    "INSERT INTO ask_user_tokens (name, role, digest, added_at, member_of)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING",
                    &[
                        &token.name,
                        &token.role.as_str(),
                        &token.digest,
                        &token.added_at,
                        &super::join_groups(&token.groups),
                    ],
                )
                .map_err(pg)?;
            notify(&mut tx, TOKENS_CHANGED)?;
            tx.commit().map_err(pg)?;
            Ok(added == 1)
        })
    }

    fn remove_token(&mut self, name: &str) -> Result<bool> {
        let name = name.to_string();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let removed = tx
                .execute("DELETE FROM ask_user_tokens WHERE name = $1", &[&name])
                .map_err(pg)?;
            notify(&mut tx, TOKENS_CHANGED)?;
            tx.commit().map_err(pg)?;
            Ok(removed == 1)
        })
    }

    /// Replicas starting together race to insert; the conflict rule keeps
    /// the first, and each reads back the one stored.
    fn link_key(&mut self) -> Result<[u8; super::LINK_KEY_LEN]> {
        let fresh = super::new_link_key()?;
        self.call(move |client: &mut Session| {
            client
                .execute(
                    "INSERT INTO ask_user_link_key (key) VALUES ($1) ON CONFLICT DO NOTHING",
                    &[&&fresh[..]],
                )
                .map_err(pg)?;
            let key: Vec<u8> = client
                .query_one("SELECT key FROM ask_user_link_key", &[])
                .map_err(pg)?
                .get(0);
            super::stored_link_key(&key)
        })
    }

    /// The question's row is locked (`FOR UPDATE`) before the vote goes
    /// in: a vote through another replica waits for this transaction, then
    /// sees this vote (or this outcome), so that each vote is counted once
    /// and only the deciding one writes the outcome.
    fn vote(&mut self, id: &str, vote: &NewVote, tally: Tally) -> Result<Voted> {
        let (id, vote) = (id.to_string(), vote.clone());
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let row = tx
                .query_opt(
                    &format!("SELECT {COLUMNS} FROM questions WHERE id = $1 FOR UPDATE"),
                    &[&id],
                )
                .map_err(pg)?;
            match row.as_ref().map(read_row).transpose()? {
                None => return Ok(Voted::Unknown),
                Some(Stored {
                    decision: Some(decision),
                    ..
                }) => {
                    // This very vote, which decided it in a first try whose
                    // reply the lost connection swallowed (see `call`).
                    let again = decision.by.as_deref() == Some(vote.voter.as_str())
                        && read_votes(&mut tx, &id)?.contains(&vote);
                    return Ok(if again {
                        Voted::Decided(decision)
                    } else {
                        Voted::Already(decision)
                    });
                }
                Some(_) => {}
            }
            tx.execute(
                "INSERT INTO votes (question, voter, face, answers, at) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (question, voter) DO UPDATE
                     SET face = excluded.face, answers = excluded.answers, at = excluded.at",
                &[
                    &id,
                    &vote.voter,
                    &vote.face.as_str(),
                    &vote.answers,
                    &vote.at,
                ],
            )
            .map_err(pg)?;
            let votes = read_votes(&mut tx, &id)?;
            let Some(decision) = tally(&votes) else {
                notify(&mut tx, &id)?;
                tx.commit().map_err(pg)?;
                return Ok(Voted::Counted(votes));
            };
            tx.execute(
                "UPDATE questions SET outcome = $2, face = $3, document = $4,
                     decided_at = $5, decided_by = $6, gone_at = NULL, gone_reason = NULL
                 WHERE id = $1 AND outcome IS NULL",
                &[
                    &id,
                    &decision.outcome.as_str(),
                    &decision.face.as_str(),
                    &decision.document,
                    &decision.at,
                    &decision.by,
                ],
            )
            .map_err(pg)?;
            log_event(
                &mut tx,
                &id,
                decision.at,
                "decided",
                Some(&decision.detail()),
            )?;
            notify(&mut tx, &id)?;
            tx.commit().map_err(pg)?;
            Ok(Voted::Decided(decision))
        })
    }

    fn votes(&mut self, id: &str) -> Result<Vec<NewVote>> {
        let id = id.to_string();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            read_votes(&mut tx, &id)
        })
    }

    fn rules(&mut self) -> Result<Vec<StoredRule>> {
        self.call(|client: &mut Session| {
            let rows = client
                .query(
                    "SELECT id, owner, rule, added_at, expires_at FROM ask_user_rules
                     ORDER BY added_at, id",
                    &[],
                )
                .map_err(pg)?;
            Ok(rows
                .iter()
                .map(|row| StoredRule {
                    id: row.get(0),
                    owner: row.get(1),
                    rule: row.get(2),
                    added_at: row.get(3),
                    expires_at: row.get(4),
                })
                .collect())
        })
    }

    /// Every replica hears of it ([`RULES_CHANGED`]) and reads the rules again.
    fn add_rule(&mut self, rule: &StoredRule) -> Result<bool> {
        let rule = rule.clone();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let added = tx
                .execute(
                    "INSERT INTO ask_user_rules (id, owner, rule, added_at, expires_at)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING",
                    &[
                        &rule.id,
                        &rule.owner,
                        &rule.rule,
                        &rule.added_at,
                        &rule.expires_at,
                    ],
                )
                .map_err(pg)?;
            notify(&mut tx, RULES_CHANGED)?;
            tx.commit().map_err(pg)?;
            Ok(added == 1)
        })
    }

    fn remove_rule(&mut self, id: &str) -> Result<bool> {
        let id = id.to_string();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let removed = tx
                .execute("DELETE FROM ask_user_rules WHERE id = $1", &[&id])
                .map_err(pg)?;
            notify(&mut tx, RULES_CHANGED)?;
            tx.commit().map_err(pg)?;
            Ok(removed == 1)
        })
    }

    fn away(&mut self) -> Result<Vec<(String, Millis)>> {
        self.call(|client: &mut Session| {
            let rows = client
                .query(
                    "SELECT person, since FROM ask_user_away ORDER BY person",
                    &[],
                )
                .map_err(pg)?;
            Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
        })
    }

    fn set_away(&mut self, person: &str, since: Option<Millis>) -> Result<()> {
        let person = person.to_string();
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            match since {
                Some(since) => tx.execute(
                    "INSERT INTO ask_user_away (person, since) VALUES ($1, $2)
                     ON CONFLICT (person) DO NOTHING",
                    &[&person, &since],
                ),
                None => tx.execute("DELETE FROM ask_user_away WHERE person = $1", &[&person]),
            }
            .map_err(pg)?;
            notify(&mut tx, RULES_CHANGED)?;
            tx.commit().map_err(pg)?;
            Ok(())
        })
    }

    /// The question's row is locked (`FOR UPDATE`) first: an outcome being
    /// written through another replica is either before (nothing kept) or
    /// after; two replicas firing the same step race on the key, and the
    /// second's insert does nothing.
    fn escalate(&mut self, escalation: &Escalation) -> Result<Escalated> {
        let escalation = escalation.clone();
        let step = i32::try_from(escalation.step)
            .map_err(|_| Error::Corrupt(format!("an escalation step {}", escalation.step)))?;
        self.call(move |client: &mut Session| {
            let mut tx = client.transaction().map_err(pg)?;
            let pending: Option<bool> = tx
                .query_opt(
                    "SELECT outcome IS NULL FROM questions WHERE id = $1 FOR UPDATE",
                    &[&escalation.question],
                )
                .map_err(pg)?
                .map(|row| row.get(0));
            if pending != Some(true) {
                return Ok(Escalated::Closed);
            }
            let inserted = tx
                .execute(
                    "INSERT INTO escalations (question, step, after_ms, notify, at)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (question, step) DO NOTHING",
                    &[
                        &escalation.question,
                        &step,
                        &escalation.after,
                        &escalation.notify,
                        &escalation.at,
                    ],
                )
                .map_err(pg)?;
            tx.commit().map_err(pg)?;
            Ok(if inserted == 1 {
                Escalated::Fired
            } else {
                Escalated::Already
            })
        })
    }

    fn escalations(&mut self, ids: &[String]) -> Result<Vec<Escalation>> {
        let ids = ids.to_vec();
        self.call(move |client: &mut Session| {
            let rows = client
                .query_each_time(
                    "SELECT question, step, after_ms, notify, at FROM escalations
                     WHERE question = ANY($1) ORDER BY question, step",
                    &[(&ids, Type::TEXT_ARRAY)],
                )
                .map_err(pg)?;
            rows.iter()
                .map(|row| {
                    let step: i32 = row.get(1);
                    Ok(Escalation {
                        question: row.get(0),
                        step: u32::try_from(step)
                            .map_err(|_| Error::Corrupt(format!("an escalation step {step}")))?,
                        after: row.get(2),
                        notify: row.get(3),
                        at: row.get(4),
                    })
                })
                .collect()
        })
    }
}

/// The votes on question `id`, in the order cast (ties: by name).
fn read_votes(tx: &mut Tx<'_>, id: &str) -> Result<Vec<NewVote>> {
    let rows = tx
        .query(
            "SELECT voter, face, answers, at FROM votes WHERE question = $1 ORDER BY at, voter",
            &[&id],
        )
        .map_err(pg)?;
    rows.iter()
        .map(|row| {
            let face: String = row.get(1);
            Ok(NewVote {
                voter: row.get(0),
                face: Face::parse(&face)
                    .ok_or_else(|| Error::Corrupt(format!("an unknown face {face:?}")))?,
                answers: row.get(2),
                at: row.get(3),
            })
        })
        .collect()
}

const COLUMNS: &str = "id, ask_key, input, prompt, source_name, source_cwd, source_pid, \
     asked_at, expires_at, gone_at, gone_reason, outcome, face, document, decided_at, decided_by, \
     asked_by";

fn read_row(row: &Row) -> Result<Stored> {
    let column = |e: postgres::Error| Error::Corrupt(format!("a row it cannot read ({e})"));
    let pid: Option<i64> = row.try_get(6).map_err(column)?;
    let pid = pid
        .map(|pid| u32::try_from(pid).map_err(|_| Error::Corrupt(format!("a pid of {pid}"))))
        .transpose()?;
    let gone_at: Option<Millis> = row.try_get(9).map_err(column)?;
    let gone_reason: Option<String> = row.try_get(10).map_err(column)?;
    Ok(Stored {
        id: row.try_get(0).map_err(column)?,
        question: NewQuestion {
            ask_key: row.try_get(1).map_err(column)?,
            input: row.try_get(2).map_err(column)?,
            prompt: row.try_get(3).map_err(column)?,
            source: Source {
                name: row.try_get(4).map_err(column)?,
                cwd: row.try_get(5).map_err(column)?,
                pid,
            },
            asked_at: row.try_get(7).map_err(column)?,
            expires_at: row.try_get(8).map_err(column)?,
            asked_by: row.try_get(16).map_err(column)?,
        },
        gone: gone_at.map(|at| (at, gone_reason.unwrap_or_default())),
        decision: Decision::from_columns(
            row.try_get(11).map_err(column)?,
            row.try_get(12).map_err(column)?,
            row.try_get(13).map_err(column)?,
            row.try_get(14).map_err(column)?,
            row.try_get(15).map_err(column)?,
        )?,
    })
}

fn log_event(
    tx: &mut Tx<'_>,
    id: &str,
    at: Millis,
    kind: &str,
    detail: Option<&str>,
) -> Result<()> {
    tx.execute(
        "INSERT INTO events (question, at, kind, detail) VALUES ($1, $2, $3, $4)",
        &[&id, &at, &kind, &detail],
    )
    .map(drop)
    .map_err(pg)
}

/// The channel on which every write names the question it changed; the
/// notice is delivered when (and only if) the transaction commits.
const CHANNEL: &str = "ask_user";

fn notify(tx: &mut Tx<'_>, id: &str) -> Result<()> {
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &id])
        .map(drop)
        .map_err(pg)
}

/// The connection's settings from `url`, and its TLS (`sslmode`,
/// `sslrootcert`: [`super::tls`]).
fn config(url: &str) -> Result<(postgres::Config, MakeRustls)> {
    let split = super::tls::split(url).map_err(Error::Postgres)?;
    let mut config: postgres::Config = split
        .rest
        .parse()
        .map_err(|e| Error::Postgres(format!("{} is not a PostgreSQL URL ({e})", describe(url))))?;
    let tls = super::tls::connector(&split, &mut config).map_err(Error::Postgres)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("ask_user inbox");
    }
    // A database that vanishes without closing the connection (a cut
    // network) is noticed within seconds: no call waits on it for ever while
    // the inbox holds its lock, and the listener reconnects.
    config.keepalives(true);
    config.keepalives_idle(Duration::from_secs(10));
    config.keepalives_interval(Duration::from_secs(5));
    config.tcp_user_timeout(LOST_AFTER);
    if config.get_options().is_none() {
        // The server ends a statement that runs this long (a lock held by a
        // stuck session): one slow call, never a stuck inbox.
        config.options("-c statement_timeout=15000");
    }
    Ok((config, tls))
}

/// A PostgreSQL error as a store error, with the server's own message when
/// there is one (the client's Display says only "db error").
fn pg(e: postgres::Error) -> Error {
    use postgres::error::SqlState;
    use std::error::Error as _;
    if let Some(db) = e.as_db_error() {
        let refusal = match db.code() {
            c if *c == SqlState::DISK_FULL => Some(super::Refusal::DiskFull),
            c if *c == SqlState::READ_ONLY_SQL_TRANSACTION => Some(super::Refusal::ReadOnly),
            _ => None,
        };
        if let Some(refusal) = refusal {
            let said = format!("{} ({})", db.message(), db.code().code());
            return Error::PostgresRefusing(refusal, said);
        }
    }
    Error::Postgres(match (e.as_db_error(), e.source()) {
        (Some(db), _) => format!("{} ({})", db.message(), db.code().code()),
        // "error connecting to server: Connection refused (os error 111)"
        (None, Some(source)) => format!("{e}: {source}"),
        (None, None) => e.to_string(),
    })
}

/// A connection string for messages: host, port and database, never the
/// user's password.
pub fn describe(url: &str) -> String {
    let url = super::tls::without_tls_keys(url);
    let Ok(config) = url.parse::<postgres::Config>() else {
        return "the PostgreSQL store".into();
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            postgres::config::Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let port = config
        .get_ports()
        .first()
        .map_or(String::new(), |port| format!(":{port}"));
    let database = config.get_dbname().unwrap_or("(the user's database)");
    format!("postgres://{}{port}/{database}", hosts.join(","))
}

#[cfg(test)]
mod tests {
    use super::super::SCHEMA_VERSION;
    use super::*;

    #[test]
    fn a_described_url_keeps_no_password() {
        assert_eq!(
            describe("postgres://ask:s3cret@db.example:5433/inbox"),
            "postgres://db.example:5433/inbox"
        );
        assert_eq!(describe("postgres://db/x"), "postgres://db:5432/x");
        assert_eq!(describe("not a url ://"), "the PostgreSQL store");
    }

    #[test]
    fn a_store_that_cannot_be_reached_is_an_error_that_names_it() {
        // Port 1 on loopback: refused at once.
        let err = PostgresStore::open_at("postgres://ask@127.0.0.1:1/inbox", SCHEMA_VERSION)
            .err()
            .expect("refused");
        let text = err.to_string();
        assert!(
            text.starts_with("PostgreSQL: error connecting to server: ")
                && text.contains("refused"),
            "{text}"
        );
        let err = PostgresStore::open_at("postgres://db:port/x", SCHEMA_VERSION)
            .err()
            .expect("not a URL");
        assert!(err.to_string().contains("is not a PostgreSQL URL"), "{err}");
    }
}
