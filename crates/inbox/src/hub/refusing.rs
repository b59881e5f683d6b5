//! A store that refuses writes in a way that does not heal by itself (a full
//! disk, a read-only store): the error every caller gets, and the line the
//! inbox says on stderr, once a minute at most, so that whoever runs it
//! learns why its askers are refused without a flood of one line per ask.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::store::{self, Refusal};
use ask_user_core::error::{AskError, Detail};

/// How often, at most, the inbox says that its store refuses writes.
const SAY_EVERY: Duration = Duration::from_secs(60);

/// When the inbox last said so. One for the process, not one per hub: an
/// inbox is one process with one store and one stderr, and the store's
/// errors reach [`refused`] from every path of the hub, which need no hub
/// at hand to report them.
static SAID: Mutex<OncePer> = Mutex::new(OncePer::new(SAY_EVERY));

/// A limiter: yes the first time, then yes again only once `every` has
/// passed since the last yes.
#[derive(Debug)]
pub(super) struct OncePer {
    every: Duration,
    last: Option<Instant>,
}

impl OncePer {
    pub(super) const fn new(every: Duration) -> OncePer {
        OncePer { every, last: None }
    }

    /// Whether to say it at `now` (which counts as said when it is).
    pub(super) fn due(&mut self, now: Instant) -> bool {
        let due = self
            .last
            .is_none_or(|last| now.saturating_duration_since(last) >= self.every);
        if due {
            self.last = Some(now);
        }
        due
    }
}

/// The error for `err`, a refusal: `STORE_ERROR`, final (507 over HTTP:
/// an asker exits with it at once instead of retrying). Says so on stderr
/// when that is due.
pub(super) fn refused(refusal: Refusal, err: &store::Error) -> AskError {
    let remedy = remedy(refusal, err);
    let due = SAID
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .due(Instant::now());
    if due {
        eprintln!("{}", log_line(refusal, err, remedy));
    }
    AskError::store_refusing(Detail::new(format!(
        "the inbox's store refuses writes: {} ({err}); {remedy}, then try again (every question stored before is kept)",
        refusal.as_str()
    )))
}

/// What to do about it, for the store that refuses.
fn remedy(refusal: Refusal, err: &store::Error) -> &'static str {
    let postgres = matches!(err, store::Error::PostgresRefusing(..));
    match (refusal, postgres) {
        (Refusal::DiskFull, false) => "free space on the disk of the inbox's store file",
        (Refusal::DiskFull, true) => "free space on the PostgreSQL server's disk",
        (Refusal::ReadOnly, false) => "make the inbox's store file and its folder writable",
        (Refusal::ReadOnly, true) => "point the inbox at a writable (primary) database",
    }
}

/// The inbox's stderr line.
fn log_line(refusal: Refusal, err: &store::Error, remedy: &str) -> String {
    format!(
        "ask_user inbox: the store refuses writes: {} ({err}); new questions and answers get STORE_ERROR until someone acts ({remedy}); every question stored before is kept",
        refusal.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limiter_says_it_once_a_minute_at_most() {
        let mut limiter = OncePer::new(SAY_EVERY);
        let start = Instant::now();
        let at = |secs: u64| start + Duration::from_secs(secs);
        // The first time at once; not again within the minute, however often.
        assert!(limiter.due(start));
        for secs in [0, 1, 30, 59] {
            assert!(!limiter.due(at(secs)), "{secs} s");
        }
        // A minute after the last time said, once more; then a minute after that.
        assert!(limiter.due(at(60)));
        assert!(!limiter.due(at(61)));
        assert!(!limiter.due(at(119)));
        assert!(limiter.due(at(125)));
        assert!(!limiter.due(at(184)));
        assert!(limiter.due(at(185)));
        // A clock read out of order (an earlier instant) never says it again.
        assert!(!limiter.due(at(100)));
    }

    fn full_sqlite() -> store::Error {
        store::Error::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            Some("database or disk is full".into()),
        ))
    }

    #[test]
    fn a_refusal_is_final_and_says_why_and_what_to_do() {
        let err = full_sqlite();
        assert_eq!(err.refusal(), Some(Refusal::DiskFull));
        let refused = refused(Refusal::DiskFull, &err);
        assert!(
            matches!(refused, AskError::StoreError { lasting: true, .. }),
            "{refused:?}"
        );
        assert_eq!(refused.code(), "STORE_ERROR");
        assert_eq!(
            refused.message(),
            "the inbox's store refuses writes: disk full (SQLite: database or disk is full); free space on the disk of the inbox's store file, then try again (every question stored before is kept)"
        );
        assert_eq!(
            log_line(Refusal::DiskFull, &err, remedy(Refusal::DiskFull, &err)),
            "ask_user inbox: the store refuses writes: disk full (SQLite: database or disk is full); new questions and answers get STORE_ERROR until someone acts (free space on the disk of the inbox's store file); every question stored before is kept"
        );
    }

    #[test]
    fn only_a_full_disk_or_a_read_only_store_is_a_refusal() {
        let sqlite = |code| {
            store::Error::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(code),
                None,
            ))
        };
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_READONLY).refusal(),
            Some(Refusal::ReadOnly)
        );
        // A busy or locked file, an I/O error, a lost connection: these may pass.
        for code in [
            rusqlite::ffi::SQLITE_BUSY,
            rusqlite::ffi::SQLITE_LOCKED,
            rusqlite::ffi::SQLITE_IOERR,
        ] {
            assert_eq!(sqlite(code).refusal(), None, "{code}");
        }
        assert_eq!(
            store::Error::Postgres("connection refused".into()).refusal(),
            None
        );
        let standby = store::Error::PostgresRefusing(
            Refusal::ReadOnly,
            "cannot execute INSERT in a read-only transaction (25006)".into(),
        );
        assert_eq!(standby.refusal(), Some(Refusal::ReadOnly));
        for (refusal, err, says) in [
            (
                Refusal::DiskFull,
                store::Error::PostgresRefusing(Refusal::DiskFull, "no space (53100)".into()),
                "free space on the PostgreSQL server's disk",
            ),
            (
                Refusal::ReadOnly,
                standby,
                "point the inbox at a writable (primary) database",
            ),
            (
                Refusal::ReadOnly,
                sqlite(rusqlite::ffi::SQLITE_READONLY),
                "make the inbox's store file and its folder writable",
            ),
        ] {
            assert_eq!(remedy(refusal, &err), says);
            let message = refused(refusal, &err).to_string();
            assert!(message.contains(says), "{message}");
            assert!(message.contains(refusal.as_str()), "{message}");
        }
    }
}
