//! The thread that owns one connection, and the statements prepared on it.
//!
//! Every statement the store runs is prepared once per connection and kept
//! (by its text; the texts are the store's own constants, so the cache is
//! bounded by the code). A `&str` query through the `postgres` client costs
//! two round trips, a prepare and an execute, and PostgreSQL parses and plans
//! it anew each time; a kept statement is one round trip, and the server
//! plans it once (parsing and planning were most of the server's time per
//! ask). A new connection starts with no statement.
//!
//! The exception: a statement that takes a list of ids ([`Prepared::query_each_time`]).
//! A kept statement's plan becomes generic after a few calls, made for a list
//! of unknown length on the table as it was then: on a new store's small
//! table, a scan of the whole table, kept while the table grows (it would
//! read every question to find a few). Planned on each call with its values,
//! it finds them by the index once the table is large; still one round trip.

use std::collections::HashMap;
use std::sync::mpsc;
use std::thread;

use postgres::types::{ToSql, Type};
use postgres::{Client, Error as PgError, GenericClient, Row, Statement, Transaction};

use super::super::tls::MakeRustls;
use super::{Error, Result, config, pg, schema};

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// The handle the inbox holds: jobs go to the thread that owns the connection.
pub struct PostgresStore {
    jobs: mpsc::Sender<Job>,
}

/// The connection thread's state.
struct Connection {
    config: postgres::Config,
    tls: MakeRustls,
    session: Option<Session>,
}

impl Connection {
    /// The open session, connecting first when there is none or it was lost.
    fn session(&mut self) -> Result<&mut Session> {
        let session = match self.session.take() {
            Some(session) if !session.client.is_closed() => session,
            _ => Session {
                client: self.config.connect(self.tls.clone()).map_err(pg)?,
                prepared: Statements::default(),
            },
        };
        Ok(self.session.insert(session))
    }
}

impl PostgresStore {
    /// Connects to `url` and migrates its schema up to `version`.
    pub(in crate::store) fn open_at(url: &str, version: i64) -> Result<PostgresStore> {
        let (config, tls) = config(url)?;
        let (jobs, inbox) = mpsc::channel::<Job>();
        thread::Builder::new()
            .name("ask_user store".into())
            .spawn(move || {
                let mut connection = Connection {
                    config,
                    tls,
                    session: None,
                };
                // Ends when the store is dropped (its sender with it).
                for job in inbox {
                    job(&mut connection);
                }
            })
            .map_err(|e| Error::Postgres(format!("no thread for the connection ({e})")))?;
        let store = PostgresStore { jobs };
        store.call(move |session| schema::migrate(&mut session.client, version))?;
        Ok(store)
    }

    /// Runs `work` on the connection's thread and waits for its result.
    /// When the connection turns out to be lost (the server restarted since
    /// the last call), `work` runs once more on a new one: each `work` is
    /// one transaction, and safe to repeat (see [`PostgresStore::decide`]).
    /// So it does when the session refused a write as read-only: a session
    /// keeps the `default_transaction_read_only` it started with, so one
    /// opened while the database was read-only (a standby, or a database set
    /// so) refuses writes after the database takes them again; a new session
    /// is asked, and refuses too only while the database still does.
    pub(super) fn call<T: Send + 'static>(
        &self,
        work: impl Fn(&mut Session) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (reply, result) = mpsc::sync_channel(1);
        let job: Job = Box::new(move |connection| {
            let mut outcome = connection.session().and_then(&work);
            let read_only = matches!(
                outcome,
                Err(Error::PostgresRefusing(super::super::Refusal::ReadOnly, _))
            );
            if read_only
                || outcome.is_err()
                    && connection
                        .session
                        .as_ref()
                        .is_some_and(|session| session.client.is_closed())
            {
                connection.session = None;
                outcome = connection.session().and_then(&work);
            }
            if outcome.is_err() {
                // After an error the connection may be half-way through a
                // transaction, or hold a statement the server has dropped:
                // the next call starts from a fresh one.
                connection.session = None;
            }
            let _ = reply.send(outcome);
        });
        let gone = || Error::Postgres("the store's connection thread stopped".into());
        self.jobs.send(job).map_err(|_| gone())?;
        result.recv().map_err(|_| gone())?
    }
}

/// The statements prepared on one connection, by their text.
#[derive(Default)]
pub(super) struct Statements(HashMap<String, Statement>);

impl Statements {
    /// `sql` prepared on `client`: kept from an earlier call, or prepared now
    /// (inside a transaction too: a prepared statement outlives it, whether
    /// it commits or not).
    fn get(
        &mut self,
        client: &mut impl GenericClient,
        sql: &str,
    ) -> std::result::Result<Statement, PgError> {
        if let Some(statement) = self.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(sql)?;
        self.0.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

type Params<'p> = &'p [&'p (dyn ToSql + Sync)];

/// Runs statements through the connection's kept ones: the same calls as
/// the `postgres` client's, on a [`Session`] or a [`Tx`].
pub(super) trait Prepared {
    type Client: GenericClient;

    /// The client (or transaction) and the connection's statements.
    fn parts(&mut self) -> (&mut Self::Client, &mut Statements);

    fn query(&mut self, sql: &str, params: Params<'_>) -> std::result::Result<Vec<Row>, PgError> {
        let (client, statements) = self.parts();
        let statement = statements.get(client, sql)?;
        client.query(&statement, params)
    }

    fn query_opt(
        &mut self,
        sql: &str,
        params: Params<'_>,
    ) -> std::result::Result<Option<Row>, PgError> {
        let (client, statements) = self.parts();
        let statement = statements.get(client, sql)?;
        client.query_opt(&statement, params)
    }

    fn query_one(&mut self, sql: &str, params: Params<'_>) -> std::result::Result<Row, PgError> {
        let (client, statements) = self.parts();
        let statement = statements.get(client, sql)?;
        client.query_one(&statement, params)
    }

    /// `sql` planned for these values, and not kept (see the module's note):
    /// each parameter with its type, sent with the statement in one round trip.
    fn query_each_time(
        &mut self,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> std::result::Result<Vec<Row>, PgError> {
        self.parts().0.query_typed(sql, params)
    }

    fn execute(&mut self, sql: &str, params: Params<'_>) -> std::result::Result<u64, PgError> {
        let (client, statements) = self.parts();
        let statement = statements.get(client, sql)?;
        client.execute(&statement, params)
    }
}

/// An open connection and the statements prepared on it.
pub(super) struct Session {
    client: Client,
    prepared: Statements,
}

impl Session {
    /// A transaction that runs its statements through the kept ones.
    pub(super) fn transaction(&mut self) -> std::result::Result<Tx<'_>, PgError> {
        Ok(Tx {
            tx: self.client.transaction()?,
            prepared: &mut self.prepared,
        })
    }
}

impl Prepared for Session {
    type Client = Client;

    fn parts(&mut self) -> (&mut Client, &mut Statements) {
        (&mut self.client, &mut self.prepared)
    }
}

/// A transaction on a [`Session`].
pub(super) struct Tx<'a> {
    tx: Transaction<'a>,
    prepared: &'a mut Statements,
}

impl Tx<'_> {
    pub(super) fn commit(self) -> std::result::Result<(), PgError> {
        self.tx.commit()
    }
}

impl<'a> Prepared for Tx<'a> {
    type Client = Transaction<'a>;

    fn parts(&mut self) -> (&mut Transaction<'a>, &mut Statements) {
        (&mut self.tx, &mut *self.prepared)
    }
}
