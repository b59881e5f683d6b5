//! What one-question links need from the hub ([`crate::links`],
//! [`crate::link_routes`]): one question's state, and nothing of any
//! other.

use super::{Hub, millis, store_error};
use crate::store::{self, Millis, Outcome};
use ask_user_core::error::AskError;
use ask_user_core::model::Kind;

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
        let mut store = self.pool.of(id);
        self.load(&mut **store, id)?;
        let state = self.state();
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
        drop(state);
        Ok(
            match store.get(id).map_err(store_error)?.map(|s| s.decision) {
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::value::RawValue;

    use super::*;
    use crate::hub::{Action, AskRequest};
    use crate::store::{Face, Source, SqliteStore};

    const SELECT: &str = r#"{"question":"Deploy where?","options":["Staging","Production"]}"#;
    const HOUR: Duration = Duration::from_secs(3600);

    fn hub() -> (tempfile::TempDir, Arc<Hub>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Box::new(SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap());
        (dir, Arc::new(Hub::new(store, HOUR, HOUR).unwrap()))
    }

    fn ask(hub: &Hub, key: &str, expires_at: Option<Millis>) -> String {
        let request = AskRequest {
            key: key.into(),
            input: RawValue::from_string(SELECT.into()).unwrap(),
            source: Source::default(),
            expires_at,
            face: None,
        };
        hub.ask(&request).unwrap().inbox_id
    }

    fn now() -> u64 {
        u64::try_from(store::now_ms()).unwrap()
    }

    #[test]
    fn a_link_is_made_under_the_base_until_the_deadline_else_the_retention() {
        let (_dir, hub) = hub();
        let deadline = store::now_ms() + 60_000;
        let timed = ask(&hub, "timed", Some(deadline));
        assert_eq!(hub.link_for(&timed), None, "no base yet");
        hub.set_link_base("https://inbox.example:8443".into());
        hub.set_link_base("https://ignored.example".into());
        let link = hub.link_for(&timed).unwrap();
        let capability = link
            .strip_prefix("https://inbox.example:8443/l/")
            .unwrap_or_else(|| panic!("{link}"));
        let opened = hub.link_key().open(capability, now()).unwrap();
        assert_eq!(opened, (timed.clone(), u64::try_from(deadline).unwrap()));
        // Without a deadline: the retention time from now.
        let open_ended = ask(&hub, "open", None);
        let expiry = hub.link_expiry(&open_ended).unwrap();
        let hour = u64::try_from(HOUR.as_millis()).unwrap();
        assert!(expiry.abs_diff(now() + hour) < 5_000, "{expiry}");
        // Not a link for what is not pending.
        assert_eq!(hub.link_for("zzzzzzzz"), None);
        hub.decide(&timed, Action::Cancel, Face::Cli).unwrap();
        assert_eq!(hub.link_for(&timed), None);
        assert!(matches!(
            hub.link_target(&timed).unwrap(),
            LinkTarget::Closed(Outcome::Cancelled)
        ));
        assert!(matches!(
            hub.link_target("zzzzzzzz").unwrap(),
            LinkTarget::Unknown
        ));
        match hub.link_target(&open_ended).unwrap() {
            LinkTarget::Open { single_choice, .. } => {
                assert_eq!(single_choice, Some(vec!["1".into(), "2".into()]));
            }
            other => panic!("{other:?}"),
        }
    }

    /// Only one single-select question has buttons to choose from: one
    /// multi-select question, or two single selects, has none.
    #[test]
    fn only_one_single_select_question_has_a_single_choice() {
        let (_dir, hub) = hub();
        for (key, input, choice) in [
            ("one", SELECT, Some(vec!["1".to_string(), "2".to_string()])),
            (
                "multi",
                r#"{"question":"Which?","type":"multi-select","options":["a","b"]}"#,
                None,
            ),
            (
                "two",
                r#"{"questions":[{"question":"A?","options":["a","b"]},{"question":"B?","options":["c","d"]}]}"#,
                None,
            ),
        ] {
            let request = AskRequest {
                key: key.into(),
                input: RawValue::from_string(input.into()).unwrap(),
                source: Source::default(),
                expires_at: None,
                face: None,
            };
            let id = hub.ask(&request).unwrap().inbox_id;
            match hub.link_target(&id).unwrap() {
                LinkTarget::Open { single_choice, .. } => {
                    assert_eq!(single_choice, choice, "{key}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn the_key_survives_a_restart_on_the_same_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        let first = Hub::new(Box::new(SqliteStore::open(&path).unwrap()), HOUR, HOUR).unwrap();
        let capability = first.link_key().issue("abcdefgh", now() + 1000);
        drop(first);
        let second = Hub::new(Box::new(SqliteStore::open(&path).unwrap()), HOUR, HOUR).unwrap();
        assert_eq!(
            second.link_key().verify(&capability, now()),
            Ok("abcdefgh".into())
        );
    }
}
