//! Who answered a question in the inbox (`answeredBy`): one
//! mapping from the face that decided it and the named token or device
//! behind it, shared by every way an answer reaches the hub.

use crate::store::Face;
use ask_user_core::answer::{Answerer, AnswererKind, Channel};

/// The answerer of a question answered through `face` by `named` (a person
/// token's or a paired device's name, a Matrix user; `None` when the
/// inbox's own token or an unsigned capability answered). `inbox_user` is
/// the operating system's user running the inbox: whoever holds its own
/// token is that person.
pub fn answerer(face: Face, named: Option<&str>, inbox_user: &str) -> Answerer {
    let channel = channel(face);
    match (named, face) {
        // A standing answer: `named` is the rule's id.
        (named, Face::Rule) => Answerer {
            kind: AnswererKind::Rule,
            name: named.unwrap_or("rule").to_string(),
            channel,
        },
        (Some(name), _) => Answerer {
            kind: AnswererKind::Person,
            name: name.to_string(),
            channel,
        },
        // A capability alone (a link from a notification, an ntfy button)
        // names no person: whoever had the link answered.
        (None, Face::Link | Face::Ntfy) => Answerer {
            kind: AnswererKind::Link,
            name: face.as_str().to_string(),
            channel,
        },
        (None, _) => Answerer {
            kind: AnswererKind::Person,
            name: inbox_user.to_string(),
            channel,
        },
    }
}

/// The channel of an answer given through `face`.
pub fn channel(face: Face) -> Channel {
    match face {
        Face::Page => Channel::Page,
        Face::Cli => Channel::Cli,
        // The asker's own terminal answered while it waited on the inbox.
        Face::Asker => Channel::Terminal,
        // A rule answers in the inbox itself, as the ask arrives.
        Face::Inbox | Face::Rule => Channel::Inbox,
        Face::Link => Channel::Link,
        Face::Ntfy => Channel::Ntfy,
        Face::Matrix => Channel::Matrix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn as_json(answerer: Answerer) -> String {
        serde_json::to_string(&answerer).unwrap()
    }

    #[test]
    fn a_named_token_is_a_person_on_its_faces_channel() {
        assert_eq!(
            as_json(answerer(Face::Page, Some("ada"), "root")),
            r#"{"kind":"person","name":"ada","channel":"page"}"#
        );
        assert_eq!(
            as_json(answerer(Face::Link, Some("ada's phone"), "root")),
            r#"{"kind":"person","name":"ada's phone","channel":"link"}"#
        );
        assert_eq!(
            as_json(answerer(Face::Matrix, Some("@ada:example.org"), "root")),
            r#"{"kind":"person","name":"@ada:example.org","channel":"matrix"}"#
        );
    }

    #[test]
    fn a_bare_capability_is_a_link_and_the_inbox_token_is_the_inbox_user() {
        assert_eq!(
            as_json(answerer(Face::Link, None, "root")),
            r#"{"kind":"link","name":"link","channel":"link"}"#
        );
        assert_eq!(
            as_json(answerer(Face::Ntfy, None, "root")),
            r#"{"kind":"link","name":"ntfy","channel":"ntfy"}"#
        );
        assert_eq!(
            as_json(answerer(Face::Cli, None, "grace")),
            r#"{"kind":"person","name":"grace","channel":"cli"}"#
        );
        assert_eq!(
            as_json(answerer(Face::Asker, None, "grace")),
            r#"{"kind":"person","name":"grace","channel":"terminal"}"#
        );
    }

    #[test]
    fn a_rule_is_named_by_its_id_in_the_inbox() {
        assert_eq!(
            as_json(answerer(Face::Rule, Some("rule-ab12cd34"), "root")),
            r#"{"kind":"rule","name":"rule-ab12cd34","channel":"inbox"}"#
        );
    }
}
