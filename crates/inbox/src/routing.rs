//! Addressing: who a question's `to` reaches.
//!
//! `to` names one person (a person token's name) or one group (given to
//! person tokens with `inbox token add person NAME --group G`). Addressing
//! routes a question (the page lists it under "For you", notifications go to
//! the people it reaches); it does not restrict who may answer.

use serde::Serialize;

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

#[cfg(test)]
mod tests {
    use super::reaches;

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
