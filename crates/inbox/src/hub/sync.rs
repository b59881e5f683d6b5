//! Memory agreeing with the store: a question another replica asked,
//! decided or marked (PostgreSQL's notices), or everything after the
//! listening connection was lost; and who may touch a question.

use super::*;

impl Hub {
    /// Brings question `id` up to the store after another replica changed
    /// it (PostgreSQL's NOTIFY): asked there, it is listed here; decided
    /// there, its waiters here get the outcome; its "asker gone" mark follows.
    pub fn refresh(&self, id: &str) -> Result<(), AskError> {
        self.refresh_all(&[id.to_string()])
    }

    /// [`Hub::refresh`] for every question of the notices that arrived
    /// together: one read per connection of the pool for all of its
    /// questions, and one for the fired escalation steps of those new here,
    /// where each question took one read, and each new one two. Every
    /// replica hears every change, its own included, so at a few hundred
    /// asks a second these reads were most of the store's statements. An id
    /// named twice is read once (the row as it is now covers both). The
    /// first error is returned after every connection's share was tried.
    pub fn refresh_all(&self, ids: &[String]) -> Result<(), AskError> {
        let mut groups: Vec<Vec<String>> = vec![Vec::new(); self.pool.len()];
        let mut seen = HashSet::new();
        for id in ids {
            if seen.insert(id.as_str()) {
                groups[self.pool.index(id)].push(id.clone());
            }
        }
        let mut failed = None;
        for group in groups.iter().filter(|group| !group.is_empty()) {
            if let Err(e) = self.refresh_group(group) {
                failed.get_or_insert(e);
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// Questions `ids`, all of one connection of the pool, held throughout
    /// (as [`Hub::refresh`] holds a question's): none of this replica's
    /// writes on them is half done while memory follows the store.
    fn refresh_group(&self, ids: &[String]) -> Result<(), AskError> {
        let mut slot = self.pool.of(&ids[0]);
        let store = &mut **slot;
        let found = store.get_many(ids).map_err(store_error)?;
        let new: Vec<String> = {
            let state = self.state();
            found
                .iter()
                .filter(|stored| stored.decision.is_none() && !state.open.contains_key(&stored.id))
                .map(|stored| stored.id.clone())
                .collect()
        };
        // Read unless none is new; on an error each new one reads its own.
        let mut fired: HashMap<String, Vec<store::Escalation>> = if new.is_empty() {
            HashMap::new()
        } else {
            match escalation::stored(store, &new) {
                Ok(mut fired) => new
                    .into_iter()
                    .map(|id| {
                        let steps = fired.remove(&id).unwrap_or_default();
                        (id, steps)
                    })
                    .collect(),
                Err(_) => HashMap::new(),
            }
        };
        for stored in found {
            let steps = fired.remove(&stored.id);
            // Memory is locked per question, as one refresh locked it: a
            // batch holding it throughout would stall every ask here.
            self.reconcile_with(store, &mut self.state(), stored, steps);
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
        self.reconcile_with(store, state, stored, None);
    }

    /// [`Hub::reconcile`], given the escalation steps already fired for a
    /// question new here (read with others'); `None`: read them here.
    fn reconcile_with(
        &self,
        store: &mut dyn Store,
        state: &mut State,
        stored: Stored,
        fired: Option<Vec<store::Escalation>>,
    ) {
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
                open.escalations = match fired {
                    Some(fired) => fired,
                    None => escalation::stored(store, std::slice::from_ref(&id))
                        .ok()
                        .and_then(|mut fired| fired.remove(&id))
                        .unwrap_or_default(),
                };
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
