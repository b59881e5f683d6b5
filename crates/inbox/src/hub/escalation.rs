//! The escalation ladder (the policy's `[[escalate]]`): while a
//! question is pending, each step whose `after` has passed since the ask
//! fires once, across every replica and restart. Firing is a row in the
//! store's `escalations` (key: question and step; [`Store::escalate`]): the
//! replica whose insert wins notifies, the others only learn the row (for
//! the card). A step only notifies: the question stays open, and whoever
//! may answer it still can.
//!
//! The ladder is the policy in force when a step comes due: a question
//! asked before a reload follows the new ladder from then on, and a step
//! already fired for it (by number) is not fired again.

use std::sync::Arc;

use serde::Serialize;

use super::{Hub, Open, rfc3339, store_error};
use crate::contact::Kind;
use crate::policy::Step;
use crate::store::{self, Escalated, Escalation, Millis};
use ask_user_core::error::AskError;

/// How often the inbox looks for steps that came due.
pub const TICK: std::time::Duration = std::time::Duration::from_millis(250);

/// A fired step as a card (`Listed.escalations`) and history show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    pub step: u32,
    /// The step's `after`, as the policy writes it (`10m`).
    pub after: String,
    /// Who it notified: a person or a group.
    pub notify: String,
    /// When it fired, RFC 3339.
    pub at: String,
}

impl Shown {
    pub fn of(escalation: &Escalation) -> Shown {
        Shown {
            step: escalation.step,
            after: after_text(escalation.after),
            notify: escalation.notify.clone(),
            at: rfc3339(escalation.at),
        }
    }
}

/// `after` in milliseconds as the policy writes it: the largest whole unit.
pub fn after_text(ms: Millis) -> String {
    let secs = ms / 1000;
    if secs > 0 && secs % 3600 == 0 {
        format!("{}h", secs / 3600)
    } else if secs > 0 && secs % 60 == 0 {
        format!("{}m", secs / 60)
    } else {
        format!("{secs}s")
    }
}

/// The steps of `ladder` (1-based numbers) due at `now` for a question
/// asked at `asked_at`, leaving out those already `fired`.
pub fn due(ladder: &[Step], asked_at: Millis, now: Millis, fired: &[u32]) -> Vec<u32> {
    let waited = now.saturating_sub(asked_at);
    (1..)
        .zip(ladder)
        .filter(|(number, step)| super::millis(step.after) <= waited && !fired.contains(number))
        .map(|(number, _)| number)
        .collect()
}

/// A step this replica fired: the router notifies its people.
#[derive(Debug, Clone)]
pub struct Fired {
    pub step: usize,
    pub notify: String,
    pub via: Option<Kind>,
    /// The question's [`super::Listed`] JSON, with this step on it.
    pub listed: Arc<str>,
}

impl Hub {
    /// Fires every step of `ladder` that came due at `now` (wall clock) for
    /// a pending question; returns the steps this replica fired (won), for
    /// their notifications. Blocking: store calls.
    pub fn escalate_due(&self, ladder: &[Step], now: Millis) -> Vec<Fired> {
        if ladder.is_empty() {
            return Vec::new();
        }
        let due: Vec<(String, Vec<u32>)> = self
            .state()
            .open
            .iter()
            .filter_map(|(id, open)| {
                let fired: Vec<u32> = open.escalations.iter().map(|e| e.step).collect();
                let steps = due(ladder, open.asked_at, now, &fired);
                (!steps.is_empty()).then(|| (id.clone(), steps))
            })
            .collect();
        let mut fired = Vec::new();
        for (id, steps) in due {
            for number in steps {
                let step = &ladder[number as usize - 1];
                let escalation = Escalation {
                    question: id.clone(),
                    step: number,
                    after: super::millis(step.after),
                    notify: step.notify.clone(),
                    at: now,
                };
                match self.fire(&escalation) {
                    Ok(Some(listed)) => fired.push(Fired {
                        step: number as usize,
                        notify: step.notify.clone(),
                        via: step.via,
                        listed,
                    }),
                    Ok(None) => {}
                    Err(e) => eprintln!(
                        "ask_user inbox: escalation step {number} of question {id} could not be kept ({}); tried again shortly",
                        e.detail().message
                    ),
                }
            }
        }
        fired
    }

    /// Keeps `escalation` (first writer wins); `Some(listed)` when this
    /// call fired it. Either way, the card shows the steps the store has.
    fn fire(&self, escalation: &Escalation) -> Result<Option<Arc<str>>, AskError> {
        let id = &escalation.question;
        let mut slot = self.pool.of(id);
        let store = &mut **slot;
        let outcome = store.escalate(escalation).map_err(store_error)?;
        let kept = match outcome {
            Escalated::Fired => None,
            Escalated::Already => Some(
                store
                    .escalations(std::slice::from_ref(id))
                    .map_err(store_error)?,
            ),
            // Its outcome reaches memory by its own way (a notice, a refresh).
            Escalated::Closed => return Ok(None),
        };
        let mut state = self.state();
        let Some(open) = state.open.get_mut(id.as_str()) else {
            return Ok(None);
        };
        match kept {
            None => {
                open.escalations.retain(|e| e.step != escalation.step);
                open.escalations.push(escalation.clone());
                open.escalations.sort_by_key(|e| e.step);
            }
            Some(kept) => open.escalations = kept,
        }
        let listed = self.listed(id, open)?;
        let _ = self
            .changes
            .send(super::Change::Updated(Arc::clone(&listed)));
        if outcome == Escalated::Fired {
            self.metrics.escalated();
            Ok(Some(listed))
        } else {
            Ok(None)
        }
    }
}

/// The steps fired for each of `ids` (grouped for [`Open`] and history).
pub(super) fn stored(
    store: &mut dyn store::Store,
    ids: &[String],
) -> Result<std::collections::HashMap<String, Vec<Escalation>>, AskError> {
    let mut by_question: std::collections::HashMap<String, Vec<Escalation>> =
        std::collections::HashMap::new();
    if ids.is_empty() {
        return Ok(by_question);
    }
    for escalation in store.escalations(ids).map_err(store_error)? {
        by_question
            .entry(escalation.question.clone())
            .or_default()
            .push(escalation);
    }
    Ok(by_question)
}

/// The card's list ([`Open`]'s steps, shown).
pub(super) fn shown(open: &Open) -> Vec<Shown> {
    open.escalations.iter().map(Shown::of).collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn step(secs: u64, notify: &str) -> Step {
        Step {
            after: Duration::from_secs(secs),
            notify: notify.into(),
            via: None,
        }
    }

    mod hub {
        use std::sync::Arc;
        use std::time::Duration;

        use serde_json::{Value, json};

        use super::step;
        use crate::hub::{Action, AskRequest, Change, Hub};
        use crate::store::{self, Face, SqliteStore};

        const DAY: Duration = Duration::from_secs(86_400);

        fn hub(dir: &tempfile::TempDir) -> Arc<Hub> {
            let store = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
            Arc::new(Hub::new(Box::new(store), DAY, DAY).unwrap())
        }

        fn ask(hub: &Hub, key: &str) -> String {
            let request: AskRequest = serde_json::from_value(json!({
                "key": key,
                "input": {"question": "Roll back?", "options": ["yes", "no"]},
            }))
            .unwrap();
            hub.ask(&request).unwrap().inbox_id
        }

        fn steps(listed: &str) -> Value {
            let listed: Value = serde_json::from_str(listed).unwrap();
            listed
                .get("escalations")
                .map(|all| {
                    all.as_array()
                        .unwrap()
                        .iter()
                        .map(|e| json!([e["step"], e["after"], e["notify"]]))
                        .collect()
                })
                .unwrap_or(json!([]))
        }

        #[test]
        fn a_due_step_fires_once_shows_on_the_card_and_is_counted() {
            let dir = tempfile::tempdir().unwrap();
            let hub = hub(&dir);
            let id = ask(&hub, "k1");
            let ladder = [step(1, "ops"), step(3, "ada")];
            let asked = store::now_ms();
            let mut changes = hub.changes();
            assert!(hub.escalate_due(&ladder, asked - 1_000).is_empty());
            let fired = hub.escalate_due(&ladder, asked + 1_500);
            assert_eq!(fired.len(), 1);
            assert_eq!((fired[0].step, fired[0].notify.as_str()), (1, "ops"));
            assert_eq!(steps(&fired[0].listed), json!([[1, "1s", "ops"]]));
            let Ok(Change::Updated(card)) = changes.try_recv() else {
                panic!("the card is updated");
            };
            assert_eq!(card, fired[0].listed);
            assert_eq!(steps(&hub.list()[0]), json!([[1, "1s", "ops"]]));
            // Not again.
            assert!(hub.escalate_due(&ladder, asked + 2_000).is_empty());
            let fired = hub.escalate_due(&ladder, asked + 3_500);
            assert_eq!(fired.len(), 1);
            assert_eq!(fired[0].step, 2);
            assert_eq!(
                steps(&hub.list()[0]),
                json!([[1, "1s", "ops"], [2, "3s", "ada"]])
            );
            assert!(hub.escalate_due(&ladder, asked + 60_000).is_empty());
            assert!(hub.escalate_due(&[], asked + 60_000).is_empty());
            assert!(hub.render_metrics().contains("\nmcp_escalations_total 2\n"));
            // Answered: history keeps the steps; nothing more fires.
            hub.decide(&id, Action::Replies(vec!["1".into()], vec![]), Face::Cli)
                .unwrap();
            let entry = &hub.history(None).unwrap()[0];
            assert_eq!(steps(entry), json!([[1, "1s", "ops"], [2, "3s", "ada"]]));
            let ladder = [step(1, "ops"), step(3, "ada"), step(5, "bob")];
            assert!(hub.escalate_due(&ladder, asked + 60_000).is_empty());
        }

        #[test]
        fn a_step_another_hub_fired_is_shown_here_not_fired_again_and_kept_over_a_restart() {
            let dir = tempfile::tempdir().unwrap();
            let (first, second) = (hub(&dir), hub(&dir));
            let id = ask(&first, "k1");
            let ladder = [step(1, "ops")];
            let asked = store::now_ms();
            second.refresh(&id).unwrap();
            assert_eq!(first.escalate_due(&ladder, asked + 1_500).len(), 1);
            // The second hub loses the row's race: no notification, but its card shows the step.
            let mut changes = second.changes();
            assert!(second.escalate_due(&ladder, asked + 1_600).is_empty());
            assert!(matches!(changes.try_recv(), Ok(Change::Updated(_))));
            assert_eq!(steps(&second.list()[0]), json!([[1, "1s", "ops"]]));
            assert!(
                second
                    .render_metrics()
                    .contains("\nmcp_escalations_total 0\n")
            );
            // After a restart the step is on the card and is not fired again.
            drop((first, second));
            let restarted = hub(&dir);
            assert_eq!(steps(&restarted.list()[0]), json!([[1, "1s", "ops"]]));
            assert!(restarted.escalate_due(&ladder, asked + 9_000).is_empty());
            // Closed behind this hub's back: nothing fires, nothing breaks.
            let other = hub(&dir);
            other.decide(&id, Action::Cancel, Face::Cli).unwrap();
            let ladder = [step(1, "ops"), step(2, "ada")];
            assert!(restarted.escalate_due(&ladder, asked + 9_000).is_empty());
        }
    }

    #[test]
    fn a_step_is_due_once_its_after_has_passed_and_until_it_fired() {
        let ladder = [step(1, "ops"), step(3, "ada")];
        let asked = 10_000;
        assert!(due(&ladder, asked, asked, &[]).is_empty());
        assert!(due(&ladder, asked, asked + 999, &[]).is_empty());
        assert_eq!(due(&ladder, asked, asked + 1_000, &[]), [1]);
        assert_eq!(due(&ladder, asked, asked + 2_999, &[]), [1]);
        assert!(due(&ladder, asked, asked + 2_999, &[1]).is_empty());
        assert_eq!(due(&ladder, asked, asked + 3_000, &[1]), [2]);
        // Both, after a time with no replica running.
        assert_eq!(due(&ladder, asked, asked + 60_000, &[]), [1, 2]);
        assert!(due(&ladder, asked, asked + 60_000, &[1, 2]).is_empty());
        // A clock behind the ask: nothing.
        assert!(due(&ladder, asked, asked - 5_000, &[]).is_empty());
        assert!(due(&[], asked, asked + 60_000, &[]).is_empty());
    }

    #[test]
    fn after_is_written_as_the_policy_would() {
        assert_eq!(after_text(1_000), "1s");
        assert_eq!(after_text(90_000), "90s");
        assert_eq!(after_text(600_000), "10m");
        assert_eq!(after_text(7_200_000), "2h");
        assert_eq!(after_text(5_400_000), "90m");
        assert_eq!(after_text(0), "0s");
    }

    #[test]
    fn a_fired_step_is_shown_with_its_time() {
        let shown = Shown::of(&Escalation {
            question: "ab12cd34".into(),
            step: 2,
            after: 600_000,
            notify: "oncall".into(),
            at: 1_764_326_520_000,
        });
        assert_eq!(
            serde_json::to_value(&shown).unwrap(),
            serde_json::json!({"step": 2, "after": "10m", "notify": "oncall", "at": "2025-11-28T10:42:00.000Z"})
        );
    }
}
