//! What one-question links need from the hub ([`crate::inbox::links`],
//! [`crate::inbox::link_routes`]): one question's state, and nothing of any
//! other.

use super::{Hub, millis, store_error};
use crate::error::AskError;
use crate::inbox::store::{self, Millis, Outcome};
use crate::model::Kind;

/// One question as its link sees it.
#[derive(Debug)]
pub enum LinkTarget {
    /// Pending: its prompt document (one line of JSON), its deadline, and
    /// the option ids when it is one single-select question (what an
    /// action button may choose from).
    Open {
        document: String,
        expires_at: Option<Millis>,
        single_choice: Option<Vec<String>>,
    },
    /// Decided, with its outcome.
    Closed(Outcome),
    /// No such question (a link signed by this inbox names one that was
    /// asked once, so only a store emptied by hand gets here).
    Unknown,
}

impl Hub {
    /// Question `id`, as its link sees it: from memory, else the store (a
    /// replica that has not heard of it yet), never from the capability
    /// alone: a closed question's link opens nothing.
    pub fn link_target(&self, id: &str) -> Result<LinkTarget, AskError> {
        let mut state = self.state();
        self.load(&mut state, id)?;
        if let Some(open) = state.open.get(id) {
            let questions = &open.prompt.questions;
            let single_choice = match questions.as_slice() {
                [only] if only.kind == Kind::SingleSelect => {
                    Some(only.options.iter().map(|o| o.id.clone()).collect())
                }
                _ => None,
            };
            return Ok(LinkTarget::Open {
                document: open.document.clone(),
                expires_at: open.expires_at,
                single_choice,
            });
        }
        Ok(
            match state
                .store
                .get(id)
                .map_err(store_error)?
                .map(|s| s.decision)
            {
                Some(Some(decision)) => LinkTarget::Closed(decision.outcome),
                // Pending in the store yet not loaded: an input that no
                // longer parses; nothing a link can show.
                Some(None) | None => LinkTarget::Unknown,
            },
        )
    }

    /// When a link made now for a question without a deadline expires.
    pub(crate) fn retention_end(&self) -> Millis {
        store::now_ms().saturating_add(millis(self.retention))
    }
}
