//! Addressing: who a question's `to` reaches, and the people it reaches
//! ([`Hub::people_for`]), from the person tokens kept in the store.
//!
//! `to` names one person (a person token's name) or one group (given to
//! person tokens with `inbox token add person NAME --group G`). Addressing
//! routes a question (the page lists it under "For you", notifications go to
//! the people it reaches); it does not restrict who may answer.
//!
//! The people are cached: refreshed with the guard's
//! digests ([`super::Hub::reload_tokens`], every few seconds and at once
//! on a replica's TOKENS_CHANGED), so that no ask or notification reads the
//! store for names.

use std::sync::Mutex;

use serde::Serialize;

use super::Hub;
use crate::store::{StoredToken, TokenRole};
use ask_user_server::guard::Holder;

/// `GET /api/me`: who the page's token is, so that the page can list the
/// questions addressed to them first. A person token gets its own name and
/// groups; the inbox's own token no name. An asker token never reaches it
/// (FORBIDDEN: it may learn no names or groups).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Me {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub groups: Vec<String>,
}

/// True when `to` is `name` or one of `groups`. Exact, case-sensitive
/// comparison, like token names.
pub fn reaches(to: &str, name: &str, groups: &[String]) -> bool {
    to == name || groups.iter().any(|group| group == to)
}

/// The person tokens' names and groups, as last read from the store.
#[derive(Default)]
pub(super) struct People(Mutex<Vec<Person>>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Person {
    name: String,
    groups: Vec<String>,
}

impl People {
    fn replace(&self, people: Vec<Person>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = people;
    }

    fn reached_by(&self, to: &str) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|person| reaches(to, &person.name, &person.groups))
            .map(|person| person.name.clone())
            .collect()
    }

    fn groups_of(&self, name: &str) -> Option<Vec<String>> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|person| person.name == name)
            .map(|person| person.groups.clone())
    }
}

impl Hub {
    /// Names of the person tokens reached by `to` (their name or one of
    /// their groups), from the cache: empty for a `to` that reaches nobody.
    pub fn people_for(&self, to: &str) -> Vec<String> {
        self.people.reached_by(to)
    }

    /// The groups of person token `name` (cached); `None` when no stored
    /// person token has that name (e.g. a person of a `--tokens` file).
    pub fn groups_of(&self, name: &str) -> Option<Vec<String>> {
        self.people.groups_of(name)
    }

    /// `GET /api/me` for `holder`: a person's name and groups (groups from
    /// the cache: none for a person of a `--tokens` file); the inbox's own
    /// token has no name. Askers never get here (routes' `forbidden`); were
    /// one to, it would learn nothing.
    pub fn me(&self, holder: &Holder) -> Me {
        match holder {
            Holder::Person(name) => Me {
                name: Some(name.clone()),
                groups: self.groups_of(name).unwrap_or_default(),
            },
            _ => Me {
                name: None,
                groups: Vec::new(),
            },
        }
    }

    /// Refreshes the cache from the store's tokens (askers and pairing
    /// codes waiting for their phone are no people).
    pub fn set_people(&self, tokens: &[StoredToken]) {
        self.people.replace(
            tokens
                .iter()
                .filter(|token| {
                    token.role == TokenRole::Person && !crate::tokens::is_pending(&token.name)
                })
                .map(|token| Person {
                    name: token.name.clone(),
                    groups: token.groups.clone(),
                })
                .collect(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{People, Person, reaches};

    fn person(name: &str, groups: &[&str]) -> Person {
        Person {
            name: name.into(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
        }
    }

    #[test]
    fn to_reaches_people_by_name_or_group() {
        let people = People::default();
        people.replace(vec![
            person("ada", &["ops", "db"]),
            person("bob", &["ops"]),
            person("eve", &[]),
        ]);
        assert_eq!(people.reached_by("ops"), ["ada", "bob"]);
        assert_eq!(people.reached_by("db"), ["ada"]);
        assert_eq!(people.reached_by("eve"), ["eve"]);
        assert!(people.reached_by("nobody").is_empty());
        assert_eq!(people.groups_of("bob"), Some(vec!["ops".to_string()]));
        assert_eq!(people.groups_of("nobody"), None);
    }

    #[test]
    fn to_reaches_the_name_or_a_group_only() {
        let groups = vec!["ops".to_string(), "db".to_string()];
        assert!(reaches("ada", "ada", &groups));
        assert!(reaches("ops", "ada", &groups));
        assert!(reaches("db", "ada", &groups));
        assert!(!reaches("Ada", "ada", &groups));
        assert!(!reaches("op", "ada", &groups));
        assert!(!reaches("grace", "ada", &[]));
        assert!(!reaches("", "ada", &groups));
    }
}
