//! Standing answers in the hub ([`super`]): the rules and
//! who is away, read from the store every few seconds (and at once on a
//! PostgreSQL notice), and the one place a rule answers: a new question,
//! before it is listed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock};

use super::{Standing, question_text};
use crate::hub::{AskError, Hub, Open, store_error};
use crate::store::{self, Face, Millis, Outcome, Store};
use ask_user_core::answer::resolve_replies;

/// What the hub knows of the rules: a copy of the store's, refreshed by
/// [`Hub::reload_rules`].
#[derive(Default)]
pub struct Rules {
    standing: RwLock<Vec<Standing>>,
    /// Who is away (the store's switches), since when.
    away: RwLock<HashMap<String, Millis>>,
    /// `away.json` in the inbox's state folder (`ask_user away on`, the
    /// page's switch under the inbox's own token): the away state of the
    /// user running the inbox.
    away_file: OnceLock<PathBuf>,
}

impl Hub {
    /// Reads the rules and the away switches from the store again.
    pub fn reload_rules(&self) -> Result<(), AskError> {
        let (stored, away) = {
            let mut store = self.pool.any();
            (
                store.rules().map_err(store_error)?,
                store.away().map_err(store_error)?,
            )
        };
        let standing: Vec<Standing> = stored.iter().filter_map(Standing::from_stored).collect();
        *self
            .rules
            .standing
            .write()
            .unwrap_or_else(|e| e.into_inner()) = standing;
        *self.rules.away.write().unwrap_or_else(|e| e.into_inner()) = away.into_iter().collect();
        Ok(())
    }

    /// Where the inbox's own away switch is kept (set once, by `serve`).
    pub fn set_away_file(&self, file: PathBuf) {
        let _ = self.rules.away_file.set(file);
    }

    /// `person`'s away switch in the store: since when, if away.
    pub fn person_away(&self, person: &str) -> Result<Option<Millis>, AskError> {
        let away = self.pool.any().away().map_err(store_error)?;
        Ok(away
            .into_iter()
            .find(|(name, _)| name == person)
            .map(|(_, since)| since))
    }

    /// Sets `person` away (or back), then reads the rules' view again.
    pub fn set_person_away(&self, person: &str, away: bool) -> Result<Option<Millis>, AskError> {
        self.pool
            .any()
            .set_away(person, away.then(store::now_ms))
            .map_err(store_error)?;
        self.reload_rules()?;
        self.person_away(person)
    }

    /// Whether `owner` is away: their switch in the store, or, for the user
    /// running the inbox, its own away file too.
    fn is_away(&self, owner: &str) -> bool {
        if self
            .rules
            .away
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(owner)
        {
            return true;
        }
        owner == self.inbox_user
            && self
                .rules
                .away_file
                .get()
                .and_then(|file| crate::away::read_file(file).ok())
                .is_some_and(|state| state.away)
    }

    /// The first standing rule that answers new question `id`: its answer
    /// is written as the question's outcome (face rule, by the rule's id),
    /// and the document returned. `None` when no rule answers it: none
    /// matches, the question is marked human or needs approvals, or a
    /// matching rule's replies do not fit it (said on stderr) or it was
    /// removed meanwhile (each rule is read from the store again before it
    /// answers).
    pub(in crate::hub) fn answer_by_rule(&self, id: &str, open: &Open) -> Option<Arc<str>> {
        let routing = &open.prompt.routing;
        if routing.human || routing.approvals.is_some() {
            return None;
        }
        let candidates: Vec<Standing> = {
            let standing = self
                .rules
                .standing
                .read()
                .unwrap_or_else(|e| e.into_inner());
            if standing.is_empty() {
                return None;
            }
            let text = question_text(&open.prompt);
            let now = store::now_ms();
            standing
                .iter()
                .filter(|rule| rule.matches(&open.source, &text, now))
                .cloned()
                .collect()
        };
        let mut store = self.pool.of(id);
        for rule in candidates {
            if rule.rule.while_away && !self.is_away(&rule.owner) {
                continue;
            }
            let notes = vec![None; rule.rule.replies.len()];
            let document = match resolve_replies(&open.prompt, &rule.rule.replies, &notes) {
                Ok(document) => document,
                Err(error) => {
                    eprintln!(
                        "ask_user inbox: rule {} matches question {id} but its replies do not fit it ({}); the question waits for a person",
                        rule.id,
                        error.detail().message
                    );
                    continue;
                }
            };
            if !still_kept(&mut **store, &rule.id) {
                continue;
            }
            let decided = self.close(
                &mut **store,
                id,
                Outcome::Answered,
                Face::Rule,
                document,
                Some(&rule.id),
            );
            return decided.ok();
        }
        None
    }
}

/// Whether rule `id` is in the store now (a removal on another replica, or
/// by `inbox rule remove`, wins over this replica's copy).
fn still_kept(store: &mut dyn Store, id: &str) -> bool {
    store
        .rules()
        .is_ok_and(|rules| rules.iter().any(|rule| rule.id == id))
}
