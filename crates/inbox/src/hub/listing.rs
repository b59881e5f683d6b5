//! What the inbox shows: a pending question as `inbox list` and the page
//! receive it, and a decided one as `inbox history` prints it.

use super::*;

/// A pending question as `inbox list` prints it and the page receives it.
#[derive(Debug, Serialize)]
pub struct Listed<'a> {
    #[serde(rename = "inboxId")]
    pub inbox_id: &'a str,
    pub source: &'a Source,
    #[serde(rename = "askedAt")]
    pub asked_at: String,
    #[serde(rename = "expiresAt", skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Set while the question waits without its asker (collect later).
    #[serde(rename = "askerGone", skip_serializing_if = "Option::is_none")]
    pub asker_gone: Option<Gone>,
    /// The question's prompt document, as `ask_user prompt` prints it.
    pub document: &'a RawValue,
    /// For a question that needs approvals: how many agree so far, and who voted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvals: Option<&'a votes::Ballot>,
    /// Who it is addressed to (the input's `to`: a person or a group).
    /// The page lists it under "For you" for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<&'a str>,
    /// The escalation steps fired for it (`--policy`), in step order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<escalation::Shown>,
}

/// The "asker gone" mark of a pending question.
#[derive(Debug, Serialize)]
pub struct Gone {
    /// When the asker left.
    pub since: String,
    /// Why: `timeout` (its own time ran out), `away` (its client gave up on
    /// the call), or `disconnected` (killed, or its connection lost for good).
    pub reason: String,
    /// When the inbox stops keeping the question (`timed_out` or `asker_gone`).
    #[serde(rename = "keptUntil")]
    pub kept_until: String,
}

/// A decided question as `inbox history` prints it and the page's History shows it.
#[derive(Debug, Serialize)]
pub struct HistoryEntry<'a> {
    #[serde(rename = "inboxId")]
    pub inbox_id: &'a str,
    pub source: &'a Source,
    #[serde(rename = "askedAt")]
    pub asked_at: String,
    pub outcome: &'static str,
    /// Which face decided it: `page`, `cli`, `asker`, `inbox`, `link`, `ntfy`, `matrix` or `rule`.
    pub face: &'static str,
    /// The person who decided it, by the name of their token (`--tokens`),
    /// or the standing rule, by its id; absent when the inbox's own token
    /// (or no person) decided.
    #[serde(rename = "decidedBy", skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<&'a str>,
    #[serde(rename = "decidedAt")]
    pub decided_at: String,
    /// Its prompt document.
    pub question: &'a RawValue,
    /// The answer document its asker got (or gets on resume).
    pub answer: &'a RawValue,
    /// The escalation steps fired while it was pending (`--policy`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<escalation::Shown>,
}

impl Hub {
    /// Every pending question, oldest first, as [`Listed`] JSON.
    pub fn list(&self) -> Vec<Arc<str>> {
        self.listed_in_order(&self.state())
    }

    /// The pending questions now, and every change after them.
    pub fn subscribe(&self) -> (Vec<Arc<str>>, broadcast::Receiver<Change>) {
        // Under the lock, so that no change falls between the two.
        let state = self.state();
        (self.listed_in_order(&state), self.changes.subscribe())
    }

    /// The decided questions, the most recently decided first (at most
    /// `limit`), as [`HistoryEntry`] JSON lines.
    pub fn history(&self, limit: Option<usize>) -> Result<Vec<String>, AskError> {
        let mut store = self.pool.any();
        let stored = store.history(limit).map_err(store_error)?;
        let ids: Vec<String> = stored.iter().map(|item| item.id.clone()).collect();
        let mut fired = escalation::stored(&mut **store, &ids)?;
        drop(store);
        let mut lines = Vec::with_capacity(stored.len());
        for item in &stored {
            let Some(decision) = &item.decision else {
                continue;
            };
            lines.push(ask_user_core::document_line(&HistoryEntry {
                inbox_id: &item.id,
                source: &item.question.source,
                asked_at: rfc3339(item.question.asked_at),
                outcome: decision.outcome.as_str(),
                face: decision.face.as_str(),
                decided_by: decision.by.as_deref(),
                decided_at: rfc3339(decision.at),
                question: stored_json(&item.question.prompt)?,
                answer: stored_json(&decision.document)?,
                escalations: fired
                    .remove(&item.id)
                    .unwrap_or_default()
                    .iter()
                    .map(escalation::Shown::of)
                    .collect(),
            }));
        }
        Ok(lines)
    }

    pub(super) fn listed_in_order(&self, state: &State) -> Vec<Arc<str>> {
        let mut open: Vec<(&String, &Open)> = state.open.iter().collect();
        open.sort_by(|(a_id, a), (b_id, b)| a.asked_at.cmp(&b.asked_at).then(a_id.cmp(b_id)));
        open.into_iter()
            .filter_map(|(id, open)| self.listed(id, open).ok())
            .collect()
    }

    /// A pending question as [`Listed`] JSON.
    pub(super) fn listed(&self, id: &str, open: &Open) -> Result<Arc<str>, AskError> {
        let document = stored_json(&open.document)?;
        let listed = Listed {
            inbox_id: id,
            source: &open.source,
            asked_at: rfc3339(open.asked_at),
            expires_at: open.expires_at.map(rfc3339),
            asker_gone: open.gone.as_ref().map(|(since, reason)| Gone {
                since: rfc3339(*since),
                reason: reason.clone(),
                kept_until: rfc3339(since.saturating_add(millis(self.retention))),
            }),
            document,
            approvals: open.ballot.as_ref(),
            to: open.prompt.routing.to.as_deref(),
            escalations: escalation::shown(open),
        };
        Ok(ask_user_core::document_line(&listed).into())
    }
}
