//! How a replica hears the others' changes: a connection of its own that
//! LISTENs on the channel every write NOTIFYs.

use std::thread;
use std::time::Duration;

use postgres::Client;
use postgres::fallible_iterator::FallibleIterator as _;

use super::super::tls::MakeRustls;
use super::{CHANNEL, Error, Result, config, describe, pg};

/// What a replica hears from the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// These questions changed (asked, decided, their asker left or came
    /// back), in the order the changes committed: every notice that had
    /// arrived by the time the first was handed on, up to [`BATCH`], so
    /// that a replica that falls behind reads the changes back together
    /// rather than one round trip each. Holds [`super::super::TOKENS_CHANGED`]
    /// and [`super::super::RULES_CHANGED`] too.
    Changed(Vec<String>),
    /// The listening connection was (re)opened: changes may have been
    /// missed, and everything is to be read again from the store.
    CatchUp,
    /// The listening connection was lost, or could not be opened.
    Lost,
}

/// The most notices handed on at once: a bound on one read-back's
/// statement, and on how long the first of them waits for the last.
pub const BATCH: usize = 256;

/// The application name of every replica's listening connection, whatever
/// the URL says: [`Store::replicas`] counts the replicas on a database by it.
pub const LISTENER_NAME: &str = "ask_user inbox replica";

/// Listens, on a thread and a connection of its own, for the changes that
/// every replica's writes announce, and hands each to `on`. A lost
/// connection is opened again (backing off up to 2 s), then `on` gets
/// [`Notice::CatchUp`], so that nothing missed meanwhile stays missed.
pub fn listen(url: &str, on: impl Fn(Notice) + Send + 'static) -> Result<()> {
    let (mut config, tls) = config(url)?;
    config.application_name(LISTENER_NAME);
    let name = describe(url);
    thread::Builder::new()
        .name("ask_user listen".into())
        .spawn(move || {
            let mut pause = Duration::from_millis(100);
            let mut said = false;
            loop {
                match listening(&mut config, &tls) {
                    Ok(mut client) => {
                        pause = Duration::from_millis(100);
                        if said {
                            eprintln!("ask_user inbox: listening on {name} again");
                            said = false;
                        }
                        on(Notice::CatchUp);
                        let mut notifications = client.notifications();
                        // Ends when the connection is lost.
                        loop {
                            let first = match notifications.blocking_iter().next() {
                                Ok(Some(first)) => first,
                                _ => break,
                            };
                            let mut batch = vec![first.payload().to_string()];
                            // Those already arrived (never waits): a
                            // read error shows at the blocking call.
                            let mut arrived = notifications.iter();
                            while batch.len() < BATCH {
                                match arrived.next() {
                                    Ok(Some(notice)) => batch.push(notice.payload().into()),
                                    _ => break,
                                }
                            }
                            on(Notice::Changed(batch));
                        }
                        on(Notice::Lost);
                    }
                    Err(e) if !said => {
                        on(Notice::Lost);
                        eprintln!(
                            "ask_user inbox: lost {name} ({e}); other replicas' changes arrive once it is back"
                        );
                        said = true;
                    }
                    Err(_) => {}
                }
                thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(2));
            }
        })
        .map_err(|e| Error::Postgres(format!("no thread to listen ({e})")))?;
    Ok(())
}

fn listening(config: &mut postgres::Config, tls: &MakeRustls) -> Result<Client> {
    let mut client = config.connect(tls.clone()).map_err(pg)?;
    client
        .batch_execute(&format!("LISTEN {CHANNEL}"))
        .map_err(pg)?;
    Ok(client)
}
