//! How a question ends without an answer: its asker leaves (a timeout,
//! a cancel, a client that gave up), or the sweep finds it gone for longer
//! than the grace or retention time.

use super::*;

/// Why an asker leaves its question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Leaving {
    /// Its own time ran out.
    Timeout,
    /// It was cancelled (Ctrl-C, a signal, `inbox cancel`).
    Cancelled,
    /// Its client gave up on the call (an MCP `notifications/cancelled`,
    /// often a host's own tool timeout): the question is kept, as for a timeout.
    Away,
    /// Its call's wait (`mcp --wait`) ended first: the question is kept, as
    /// for a timeout, and the asker gets a pending document. Not [`Away`]:
    /// that one says `cancelled`, which would tell the model the person
    /// cancelled, while here nobody has done anything yet.
    ///
    /// [`Away`]: Leaving::Away
    Pending,
}

impl Leaving {
    pub fn as_str(self) -> &'static str {
        match self {
            Leaving::Timeout => "timeout",
            Leaving::Cancelled => "cancelled",
            Leaving::Away => "away",
            Leaving::Pending => "pending",
        }
    }
}

impl Hub {
    /// The asker leaves (`why`) without an answer. Cancelled, the question
    /// ends cancelled. On a timeout, a client's give-up or a wait's end
    /// (pending) it stays open,
    /// marked "asker gone", for the retention time (collect later), and the
    /// asker gets a timed-out (or cancelled) document whose `hint` says how
    /// to resume. A question that already has an outcome returns its
    /// document (an answer that beat the asker's timeout still reaches it).
    pub fn leave(&self, id: &str, why: Leaving) -> Result<Arc<str>, AskError> {
        self.leave_as(id, why, None)
    }

    /// [`Hub::leave`] by a named asker: its own questions only.
    pub fn leave_as(
        &self,
        id: &str,
        why: Leaving,
        asker: Option<&str>,
    ) -> Result<Arc<str>, AskError> {
        let mut store = self.pool.of(id);
        self.load(&mut **store, id)?;
        self.check_asker(&mut **store, id, asker)?;
        if !self.state().open.contains_key(id) {
            return match decision(&mut **store, id)? {
                Some(decision) => Ok(decision.document.into()),
                None => Err(unknown_question(id)),
            };
        }
        let how = match why {
            Leaving::Cancelled => {
                let document = AnswerDocument::unanswered(Unanswered::Cancelled);
                return self.close(
                    &mut **store,
                    id,
                    Outcome::Cancelled,
                    Face::Asker,
                    document,
                    None,
                );
            }
            Leaving::Timeout => Unanswered::TimedOut,
            Leaving::Away => Unanswered::Cancelled,
            Leaving::Pending => Unanswered::Pending,
        };
        self.mark_gone(&mut **store, id, why.as_str(), store::now_ms())?;
        let hint = resume_hint(id, Some(self.retention));
        let document = match how {
            Unanswered::Pending => AnswerDocument::pending(id, hint),
            how => {
                let mut document = AnswerDocument::unanswered(how).with_inbox_id(id);
                document.hint = Some(hint);
                document
            }
        };
        Ok(ask_user_core::document_line(&document).into())
    }

    /// Marks a pending question "asker gone" (once; the first reason stays)
    /// and tells the pages.
    /// `store`: question `id`'s connection, held by the caller.
    pub(super) fn mark_gone(
        &self,
        store: &mut dyn Store,
        id: &str,
        reason: &str,
        at: Millis,
    ) -> Result<(), AskError> {
        match self.state().open.get(id) {
            Some(open) if open.gone.is_none() => {}
            _ => return Ok(()),
        }
        store.mark_gone(id, reason, at).map_err(store_error)?;
        let mut state = self.state();
        if let Some(open) = state.open.get_mut(id) {
            open.gone = Some((at, reason.to_string()));
            self.metrics.asker_gone(open.face, reason);
        }
        let _ = self.changes.send(Change::Presence {
            id: id.to_string(),
            present: false,
        });
        Ok(())
    }

    /// Marks "asker gone" every question whose asker has been away longer
    /// than the grace time (killed, or its connection lost for good), and
    /// ends every question kept longer than the retention time after its
    /// asker left: `timed_out` when it left by its timeout, else
    /// `asker_gone`. `now` and `wall` are the same moment on the monotonic
    /// and the wall clock. Returns the ids it ended.
    pub fn sweep(&self, now: Instant, wall: Millis) -> Vec<String> {
        let state = self.state();
        let absent: Vec<String> = state
            .open
            .iter()
            .filter(|(_, open)| {
                open.gone.is_none()
                    && open
                        .absent_since
                        .is_some_and(|since| now.saturating_duration_since(since) >= self.grace)
            })
            .map(|(id, _)| id.clone())
            .collect();
        drop(state);
        for id in absent {
            let _ = self.mark_gone(&mut **self.pool.of(&id), &id, "disconnected", wall);
        }
        let state = self.state();
        let retention = millis(self.retention);
        let expired: Vec<(String, Outcome)> = state
            .open
            .iter()
            .filter_map(|(id, open)| {
                let (since, reason) = open.gone.as_ref()?;
                (since.saturating_add(retention) <= wall).then(|| {
                    let outcome = if reason == Leaving::Timeout.as_str() {
                        Outcome::TimedOut
                    } else {
                        Outcome::AskerGone
                    };
                    (id.clone(), outcome)
                })
            })
            .collect();
        drop(state);
        expired
            .into_iter()
            .filter(|(id, outcome)| {
                let document = if *outcome == Outcome::TimedOut {
                    AnswerDocument::unanswered(Unanswered::TimedOut)
                } else {
                    let mut document = AnswerDocument::unanswered(Unanswered::Cancelled);
                    document.reason = Some("asker gone".into());
                    document
                };
                let mut store = self.pool.of(id);
                self.close(&mut **store, id, *outcome, Face::Inbox, document, None)
                    .is_ok()
            })
            .map(|(id, _)| id)
            .collect()
    }
}
