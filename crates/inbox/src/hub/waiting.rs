//! An asker waiting for its question's outcome: at once when it has one,
//! else a [`Waiter`] that counts as the asker being present.

use super::*;

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
    pub(super) fn expired(&self, decision: &Decision, now: Millis) -> bool {
        decision.face == Face::Inbox || decision.at.saturating_add(millis(self.retention)) <= now
    }

    pub(super) fn expired_question(&self, id: &str) -> AskError {
        AskError::UnknownQuestion(Detail::new(format!(
            "question {id} has expired: the inbox keeps a question {} after its asker left or it was answered; ask it again",
            human(self.retention)
        )))
    }

    /// A wait connection closed.
    pub(super) fn waiter_left(&self, id: &str) {
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
}
