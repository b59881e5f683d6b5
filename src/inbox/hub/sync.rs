//! Memory agreeing with the store: a question another replica asked,
//! decided or marked (PostgreSQL's notices), or everything after the
//! listening connection was lost; and who may touch a question.

use super::*;

impl Hub {
    /// Brings question `id` up to the store after another replica changed
    /// it (PostgreSQL's NOTIFY): asked there, it is listed here; decided
    /// there, its waiters here get the outcome; its "asker gone" mark follows.
    pub fn refresh(&self, id: &str) -> Result<(), AskError> {
        let mut store = self.pool.of(id);
        if let Some(stored) = store.get(id).map_err(store_error)? {
            self.reconcile(&mut **store, &mut self.state(), stored);
        }
        Ok(())
    }

    /// Brings every question up to the store: after the replica may have
    /// missed changes (its listening connection was lost).
    pub fn resync(&self) -> Result<(), AskError> {
        // Every connection held: no question changes while memory catches up.
        let mut all = self.pool.all();
        let store = &mut **all[0];
        let pending = store.pending().map_err(store_error)?;
        let mut closed: Vec<String> = self.state().open.keys().cloned().collect();
        closed.retain(|id| !pending.iter().any(|stored| stored.id == *id));
        let mut decided = Vec::with_capacity(closed.len());
        for id in closed {
            if let Some(stored) = store.get(&id).map_err(store_error)? {
                decided.push(stored);
            }
        }
        let mut state = self.state();
        for stored in pending.into_iter().chain(decided) {
            self.reconcile(store, &mut state, stored);
        }
        Ok(())
    }

    /// A named asker may touch its own questions only: another's (pending
    /// or decided) is unknown to it, so that it learns nothing of it.
    pub(super) fn check_asker(
        &self,
        store: &mut dyn Store,
        id: &str,
        asker: Option<&str>,
    ) -> Result<(), AskError> {
        let Some(asker) = asker else {
            return Ok(());
        };
        let held = self.state().open.get(id).map(|open| open.asked_by.clone());
        let owner = match held {
            Some(owner) => owner,
            None => store
                .get(id)
                .map_err(store_error)?
                .and_then(|stored| stored.question.asked_by),
        };
        if owner.as_deref() == Some(asker) {
            Ok(())
        } else {
            Err(unknown_question(id))
        }
    }

    /// A question this replica does not hold, from the store when it is
    /// pending there (asked on another replica, and its notice not here yet).
    /// `store`: question `id`'s connection, held by the caller.
    pub(super) fn load(&self, store: &mut dyn Store, id: &str) -> Result<(), AskError> {
        if self.state().open.contains_key(id) || !store::is_id(id) {
            return Ok(());
        }
        if let Some(stored) = store.get(id).map_err(store_error)? {
            self.reconcile(store, &mut self.state(), stored);
        }
        Ok(())
    }

    /// Makes memory agree with `stored`, telling waiters and pages.
    /// `store`: the question's connection, held by the caller (the lock
    /// order holds: a slot, then memory); it is read under the memory lock
    /// only for a question that needs approvals (its votes, for the card).
    pub(super) fn reconcile(&self, store: &mut dyn Store, state: &mut State, stored: Stored) {
        let id = stored.id.clone();
        match (stored.decision, state.open.get_mut(&id)) {
            (Some(decision), Some(_)) => {
                state.closed(&id);
                let mut announced = true;
                if let Some(open) = state.open.remove(&id) {
                    open.outcome
                        .send_replace(Some(Arc::from(decision.document.as_str())));
                    announced = open.announced;
                }
                let _ = self.changes.send(Change::Closed {
                    id,
                    outcome: decision.outcome,
                    face: decision.face,
                    announced,
                });
            }
            (Some(_), None) => state.closed(&id),
            (None, Some(open)) => {
                // A vote through another replica: the card's count follows.
                if open.ballot.is_some() {
                    let ballot = votes::stored_ballot(store, &id, &open.prompt);
                    if let Ok(ballot) = ballot
                        && ballot != open.ballot
                    {
                        open.ballot = ballot;
                        if let Ok(listed) = self.listed(&id, open) {
                            let _ = self.changes.send(Change::Updated(listed));
                        }
                    }
                }
                if open.gone != stored.gone {
                    let present = stored.gone.is_none();
                    open.gone = stored.gone;
                    let _ = self.changes.send(Change::Presence { id, present });
                }
            }
            (None, None) => {
                let pending = Stored {
                    decision: None,
                    ..stored
                };
                let Some(mut open) = Open::from_stored(&pending, None) else {
                    return;
                };
                open.ballot = votes::stored_ballot(store, &id, &open.prompt).unwrap_or(None);
                open.escalations = escalation::stored(store, std::slice::from_ref(&id))
                    .ok()
                    .and_then(|mut fired| fired.remove(&id))
                    .unwrap_or_default();
                if let Ok(listed) = self.listed(&id, &open) {
                    // This replica's own ask, whose notice came before the
                    // ask put it in memory, is still its own to announce.
                    let own = state.asking_keys.contains_key(&pending.question.ask_key);
                    open.announced = own;
                    state.open.insert(id, open);
                    let _ = self.changes.send(if own {
                        Change::Asked(listed)
                    } else {
                        Change::Heard(listed)
                    });
                }
            }
        }
    }
}
