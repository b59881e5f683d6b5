//! Standing answers (`ask_user inbox rule add|list|remove`): a
//! person says "while I am away, answer this kind of question with X".
//!
//! A rule matches a new question on its source (the host's name), its
//! folder (the asker's working directory, or one under it) and its text
//! (a case-insensitive substring, or a regular expression), and gives
//! replies as `inbox answer --reply` does. It ends at its expiry, and may be
//! limited to while its owner is away. Rules are off unless a person adds
//! one: with none kept, an ask costs a look at an empty list.
//!
//! What a rule never does: answer a question marked `"human": true`, or one
//! that needs approvals (a rule is not a person's vote), or a question asked
//! before it was added (it answers as questions arrive). Its answer says
//! `answeredBy: {kind: "rule", name: ID, channel: "inbox"}`, and history
//! records face `rule` and the rule's id as `decidedBy`.
//!
//! The commands work on the store, as `inbox token` does: every replica
//! reads the rules again within seconds (PostgreSQL: at once, by a notice),
//! and re-reads a matching rule from the store before it answers, so that a
//! removed rule answers nothing more.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::store::{self, Millis, Source, StoredRule};
use ask_user_core::error::{AskError, Detail};
use ask_user_core::model::Prompt;

mod applying;
pub use applying::Rules;

/// The longest pattern, source, folder or reply a rule keeps.
const MAX_FIELD_CHARS: usize = 1000;
/// The most replies (one per question) a rule gives.
const MAX_REPLIES: usize = 20;
/// The compiled size a regular expression may take (regex-lite's own
/// limit is far larger): a pattern is typed by a person, but checked as if not.
const MAX_REGEX_BYTES: usize = 1 << 20;

/// What a rule matches and what it answers: the JSON kept in the store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rule {
    /// The source's name (`claude-code`, `amp`), exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The asker's folder: this one or one under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// A piece of the question's text (title, questions, contexts), any case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A regular expression the question's text matches (regex-lite syntax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// The replies, one per question, as `inbox answer --reply` takes them.
    pub replies: Vec<String>,
    /// Only while its owner is away.
    #[serde(default)]
    pub while_away: bool,
}

/// A rule as `inbox rule list` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub id: String,
    pub owner: String,
    #[serde(flatten)]
    pub rule: Rule,
    pub added_at: String,
    pub expires_at: String,
}

/// A rule the inbox holds: its stored form, parsed and compiled.
#[derive(Debug, Clone)]
pub struct Standing {
    pub id: String,
    pub owner: String,
    pub rule: Rule,
    pub expires_at: Millis,
    regex: Option<regex_lite::Regex>,
}

impl Standing {
    /// From the store; `None` for a row that no longer parses (written by
    /// a newer version, or by hand): it answers nothing.
    pub fn from_stored(stored: &StoredRule) -> Option<Standing> {
        let rule: Rule = serde_json::from_str(&stored.rule).ok()?;
        let regex = match &rule.regex {
            Some(pattern) => Some(compile(pattern).ok()?),
            None => None,
        };
        Some(Standing {
            id: stored.id.clone(),
            owner: stored.owner.clone(),
            rule,
            expires_at: stored.expires_at,
            regex,
        })
    }

    /// Whether it answers a question from `source` reading `text` at `now`
    /// (its owner's being away is the caller's to know).
    pub fn matches(&self, source: &Source, text: &str, now: Millis) -> bool {
        let rule = &self.rule;
        now < self.expires_at
            && rule
                .source
                .as_ref()
                .is_none_or(|wanted| source.name.as_deref() == Some(wanted.as_str()))
            && rule.folder.as_ref().is_none_or(|folder| {
                source
                    .cwd
                    .as_deref()
                    .is_some_and(|cwd| is_within(cwd, folder))
            })
            && rule
                .text
                .as_ref()
                .is_none_or(|piece| text.to_lowercase().contains(&piece.to_lowercase()))
            && self.regex.as_ref().is_none_or(|regex| regex.is_match(text))
    }
}

/// Whether `cwd` is `folder` or inside it (by path components: `/work/a`
/// is not inside `/work/ab`).
fn is_within(cwd: &str, folder: &str) -> bool {
    Path::new(cwd).starts_with(Path::new(folder))
}

/// The text a rule's `text` and `regex` read: the title, and each
/// question's header, text and context, one per line.
pub fn question_text(prompt: &Prompt) -> String {
    let mut lines: Vec<&str> = Vec::new();
    lines.extend(prompt.title.as_deref());
    lines.extend(prompt.context.as_deref());
    for question in &prompt.questions {
        lines.extend(question.header.as_deref());
        lines.push(&question.text);
        lines.extend(question.context.as_deref());
    }
    lines.join("\n")
}

fn compile(pattern: &str) -> Result<regex_lite::Regex, String> {
    regex_lite::RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_BYTES)
        .build()
        .map_err(|e| e.to_string())
}

/// `ask_user inbox rule …`, on the store `location` names (`None`: the
/// state folder's SQLite file).
#[derive(Debug, Clone)]
pub enum Command {
    Add {
        owner: Option<String>,
        rule: Rule,
        /// How long it stands, from now.
        lasts: std::time::Duration,
    },
    List,
    Remove {
        id: String,
    },
}

/// Why a `rule` command did nothing.
#[derive(Debug)]
pub enum Refused {
    /// A usage error (exit 2): a bad field, an unknown id.
    Usage(String),
    /// The store could not be opened or written (an error document, exit 1).
    Failed(AskError),
}

/// Checks a rule as `rule add` keeps it.
pub fn check(rule: &Rule) -> Result<(), String> {
    if rule.source.is_none() && rule.folder.is_none() && rule.text.is_none() && rule.regex.is_none()
    {
        return Err(
            "a rule needs at least one of --source, --folder, --text or --regex: a rule that matches every question would answer them all".into(),
        );
    }
    if rule.replies.is_empty() {
        return Err("a rule needs --reply (one per question, as inbox answer takes them)".into());
    }
    if rule.replies.len() > MAX_REPLIES {
        return Err(format!("a rule gives at most {MAX_REPLIES} replies"));
    }
    let fields = [
        ("--source", rule.source.as_deref()),
        ("--folder", rule.folder.as_deref()),
        ("--text", rule.text.as_deref()),
        ("--regex", rule.regex.as_deref()),
    ];
    for (flag, value) in fields
        .into_iter()
        .filter_map(|(flag, value)| value.map(|value| (flag, value)))
        .chain(rule.replies.iter().map(|reply| ("--reply", reply.as_str())))
    {
        if value.chars().count() > MAX_FIELD_CHARS {
            return Err(format!(
                "{flag} is longer than {MAX_FIELD_CHARS} characters"
            ));
        }
        if flag != "--reply" && value.trim().is_empty() {
            return Err(format!("{flag} cannot be empty"));
        }
    }
    if let Some(pattern) = &rule.regex {
        compile(pattern)
            .map_err(|e| format!("--regex {pattern:?} is not a regular expression: {e}"))?;
    }
    Ok(())
}

/// Runs `command`: the JSON lines it prints.
pub fn run(location: Option<store::Location>, command: Command) -> Result<Vec<String>, Refused> {
    match &command {
        Command::Add { owner, rule, .. } => {
            if let Some(owner) = owner {
                crate::tokens::check_name(owner)
                    .map_err(|e| Refused::Usage(format!("--owner: {e}")))?;
            }
            check(rule).map_err(Refused::Usage)?;
        }
        Command::Remove { id } if !is_rule_id(id) => {
            return Err(Refused::Usage(format!(
                "{id:?} is not a rule id (rule- and 8 letters or digits: ask_user inbox rule list shows them)"
            )));
        }
        _ => {}
    }
    let (mut store, location) = crate::open_store(location).map_err(Refused::Failed)?;
    let failed = |e: store::Error| {
        Refused::Failed(AskError::store_error(Detail::new(format!(
            "the inbox's store {} failed ({e})",
            location.describe()
        ))))
    };
    match command {
        Command::Add { owner, rule, lasts } => {
            let now = store::now_ms();
            let lasts = Millis::try_from(lasts.as_millis()).unwrap_or(Millis::MAX);
            let stored = StoredRule {
                id: format!("rule-{}", store::fresh_id().map_err(failed)?),
                owner: owner.unwrap_or_else(ask_user_platform::user::name),
                rule: serde_json::to_string(&rule).expect("a rule is JSON"),
                added_at: now,
                expires_at: now.saturating_add(lasts),
            };
            if !store.add_rule(&stored).map_err(failed)? {
                // 40 random bits: a clash is a broken random source.
                return Err(Refused::Failed(AskError::InternalError(Detail::new(
                    "a new rule's id is taken; add it again",
                ))));
            }
            Ok(vec![ask_user_core::document_line(&listed(&stored, rule))])
        }
        Command::List => Ok(store
            .rules()
            .map_err(failed)?
            .iter()
            .filter_map(|stored| {
                let rule = serde_json::from_str(&stored.rule).ok()?;
                Some(ask_user_core::document_line(&listed(stored, rule)))
            })
            .collect()),
        Command::Remove { id } => {
            if store.remove_rule(&id).map_err(failed)? {
                Ok(Vec::new())
            } else {
                Err(Refused::Usage(format!(
                    "no rule {id:?} is kept (ask_user inbox rule list shows them)"
                )))
            }
        }
    }
}

fn listed(stored: &StoredRule, rule: Rule) -> Listed {
    Listed {
        id: stored.id.clone(),
        owner: stored.owner.clone(),
        rule,
        added_at: crate::store::rfc3339(stored.added_at),
        expires_at: crate::store::rfc3339(stored.expires_at),
    }
}

/// `rule-` and a store id.
pub fn is_rule_id(text: &str) -> bool {
    text.strip_prefix("rule-").is_some_and(store::is_id)
}

/// `ask_user inbox away on|off|status`: a person's away switch in the
/// store, which their `--while-away` rules follow.
pub fn away(
    location: Option<store::Location>,
    person: Option<String>,
    set: Option<bool>,
) -> Result<Vec<String>, Refused> {
    if let Some(person) = &person {
        crate::tokens::check_name(person).map_err(|e| Refused::Usage(format!("--person: {e}")))?;
    }
    let person = person.unwrap_or_else(ask_user_platform::user::name);
    let (mut store, location) = crate::open_store(location).map_err(Refused::Failed)?;
    let failed = |e: store::Error| {
        Refused::Failed(AskError::store_error(Detail::new(format!(
            "the inbox's store {} failed ({e})",
            location.describe()
        ))))
    };
    if let Some(away) = set {
        store
            .set_away(&person, away.then(store::now_ms))
            .map_err(failed)?;
    }
    let since = store
        .away()
        .map_err(failed)?
        .into_iter()
        .find(|(name, _)| *name == person)
        .map(|(_, since)| since);
    Ok(vec![ask_user_core::document_line(&PersonAway {
        person,
        away: since.is_some(),
        since: since.map(crate::store::rfc3339),
    })])
}

/// What `inbox away` prints.
#[derive(Debug, Serialize)]
pub struct PersonAway {
    pub person: String,
    pub away: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(rule: Rule, expires_at: Millis) -> Standing {
        Standing::from_stored(&StoredRule {
            id: "rule-abcdefgh".into(),
            owner: "ada".into(),
            rule: serde_json::to_string(&rule).unwrap(),
            added_at: 0,
            expires_at,
        })
        .unwrap()
    }

    fn source(name: Option<&str>, cwd: Option<&str>) -> Source {
        Source {
            name: name.map(str::to_string),
            cwd: cwd.map(str::to_string),
            pid: None,
        }
    }

    fn replies() -> Vec<String> {
        vec!["yes".into()]
    }

    #[test]
    fn each_given_field_must_match_and_the_rest_match_anything() {
        let rule = standing(
            Rule {
                source: Some("claude-code".into()),
                folder: Some("/work/app".into()),
                text: Some("Run THE tests".into()),
                replies: replies(),
                ..Rule::default()
            },
            100,
        );
        let here = source(Some("claude-code"), Some("/work/app/src"));
        assert!(rule.matches(&here, "Shall I run the tests now?", 99));
        assert!(
            !rule.matches(&here, "Shall I run the tests now?", 100),
            "expired"
        );
        assert!(!rule.matches(&here, "Shall I deploy?", 0), "text");
        let other_host = source(Some("amp"), Some("/work/app"));
        assert!(!rule.matches(&other_host, "run the tests", 0), "source");
        let no_host = source(None, Some("/work/app"));
        assert!(!rule.matches(&no_host, "run the tests", 0), "no source");
        let sibling = source(Some("claude-code"), Some("/work/apple"));
        assert!(!rule.matches(&sibling, "run the tests", 0), "folder prefix");
        let no_folder = source(Some("claude-code"), None);
        assert!(!rule.matches(&no_folder, "run the tests", 0), "no folder");
        let anything = standing(
            Rule {
                text: Some("tests".into()),
                replies: replies(),
                ..Rule::default()
            },
            100,
        );
        assert!(anything.matches(&source(None, None), "tests", 0));
    }

    #[test]
    fn a_regex_reads_the_whole_text() {
        let rule = standing(
            Rule {
                regex: Some(r"(?i)^deploy to (staging|dev)\b".into()),
                replies: replies(),
                ..Rule::default()
            },
            100,
        );
        let anywhere = source(None, None);
        assert!(rule.matches(&anywhere, "Deploy to staging now?", 0));
        assert!(!rule.matches(&anywhere, "Deploy to production?", 0));
    }

    #[test]
    fn question_text_joins_title_questions_and_contexts() {
        let prompt = ask_user_core::prompt::parse_input_or_prompt(
            br#"{"title":"Release","questions":[{"question":"Tag it?","kind":"confirm","context":"v2"},{"question":"Notes?","kind":"text"}]}"#,
        )
        .unwrap();
        assert_eq!(question_text(&prompt), "Release\nTag it?\nv2\nNotes?");
    }

    #[test]
    fn a_rule_without_a_match_or_a_reply_or_with_a_bad_regex_is_refused() {
        let bare = Rule {
            replies: replies(),
            ..Rule::default()
        };
        assert!(
            check(&bare)
                .unwrap_err()
                .contains("at least one of --source")
        );
        let silent = Rule {
            text: Some("x".into()),
            ..Rule::default()
        };
        assert!(check(&silent).unwrap_err().contains("needs --reply"));
        let bad = Rule {
            regex: Some("(".into()),
            replies: replies(),
            ..Rule::default()
        };
        assert!(
            check(&bad)
                .unwrap_err()
                .contains("is not a regular expression")
        );
        let empty = Rule {
            text: Some(" ".into()),
            replies: replies(),
            ..Rule::default()
        };
        assert_eq!(check(&empty).unwrap_err(), "--text cannot be empty");
        let long = Rule {
            source: Some("x".repeat(MAX_FIELD_CHARS + 1)),
            replies: replies(),
            ..Rule::default()
        };
        assert!(check(&long).unwrap_err().contains("--source is longer"));
        let longest = Rule {
            source: Some("x".repeat(MAX_FIELD_CHARS)),
            replies: replies(),
            ..Rule::default()
        };
        assert_eq!(check(&longest), Ok(()));
        let many = Rule {
            text: Some("x".into()),
            replies: vec!["1".into(); MAX_REPLIES + 1],
            ..Rule::default()
        };
        assert!(check(&many).unwrap_err().contains("at most 20 replies"));
        let fine = Rule {
            text: Some("x".into()),
            replies: vec!["1".into(); MAX_REPLIES],
            ..Rule::default()
        };
        assert_eq!(check(&fine), Ok(()));
    }

    #[test]
    fn a_stored_rule_that_no_longer_parses_answers_nothing() {
        let broken = StoredRule {
            id: "rule-abcdefgh".into(),
            owner: "ada".into(),
            rule: r#"{"replies":["1"],"later":true}"#.into(),
            added_at: 0,
            expires_at: Millis::MAX,
        };
        assert!(Standing::from_stored(&broken).is_none());
        let bad_regex = StoredRule {
            rule: r#"{"replies":["1"],"regex":"("}"#.into(),
            ..broken
        };
        assert!(Standing::from_stored(&bad_regex).is_none());
    }

    #[test]
    fn rule_ids_are_rule_and_a_store_id() {
        assert!(is_rule_id("rule-abcd2345"));
        assert!(!is_rule_id("abcd2345"));
        assert!(!is_rule_id("rule-"));
        assert!(!is_rule_id("rule-ABCD2345!"));
    }
}
