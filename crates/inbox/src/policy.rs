//! An inbox's policy file (`ask_user inbox --policy FILE`): who
//! is reached how (`[people.NAME] notify = ["KIND=URL", …]`, the same forms
//! as `--notify-to`) and the escalation ladder (`[[escalate]] after, notify,
//! via`). Parsed with toml_edit (already in the tree for Codex's config), so
//! every error names its line and column: a person edits this file by hand
//! while the inbox runs, and a bad edit must say where it went wrong.
//!
//! Only the form is checked here; secrets in the targets are read when the
//! channels are resolved, as for `--notify-to`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use toml_edit::{Document, Item, TableLike, Value};

use crate::contact::{Kind, Spec};

/// The longest `after`: a week. Longer is a typo (and would overflow nothing,
/// but a step nobody will ever see is better refused).
pub const MAX_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// A parsed policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Each person's contacts, by name (the token's name).
    pub people: BTreeMap<String, Vec<Spec>>,
    /// The ladder, in the file's order; each `after` is later than the last.
    pub escalate: Vec<Step>,
}

/// One `[[escalate]]` step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Since the ask, while unanswered.
    pub after: Duration,
    /// A person or a group (matched like a question's `to`).
    pub notify: String,
    /// Only that kind of the reached people's contacts.
    pub via: Option<Kind>,
}

/// A policy file's error: where (1-based line and column) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for PolicyError {}

type Result<T> = std::result::Result<T, PolicyError>;

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

struct Source<'a> {
    text: &'a str,
}

impl Source<'_> {
    fn error(&self, span: Option<std::ops::Range<usize>>, message: String) -> PolicyError {
        let (line, column) = position(self.text, span.map_or(0, |s| s.start));
        PolicyError {
            line,
            column,
            message,
        }
    }

    fn item_error(&self, item: &Item, message: String) -> PolicyError {
        self.error(item.span(), message)
    }
}

/// Parses a policy file's text.
pub fn parse(text: &str) -> Result<Policy> {
    let source = Source { text };
    let document = Document::parse(text).map_err(|e| {
        let message = e.message().trim().to_string();
        source.error(e.span(), format!("not TOML: {message}"))
    })?;
    let root = document.as_table();
    let mut policy = Policy::default();
    for (key, item) in root.iter() {
        match key {
            "people" => policy.people = people(&source, item)?,
            "escalate" => policy.escalate = ladder(&source, item)?,
            other => {
                let span = root.key(other).and_then(|k| k.span());
                return Err(source.error(
                    span,
                    format!("unknown key {other:?} (expected people, escalate)"),
                ));
            }
        }
    }
    Ok(policy)
}

fn people(source: &Source<'_>, item: &Item) -> Result<BTreeMap<String, Vec<Spec>>> {
    let table = item
        .as_table_like()
        .ok_or_else(|| source.item_error(item, "people must be a table of [people.NAME]".into()))?;
    let mut people = BTreeMap::new();
    for (name, person) in table.iter() {
        if name.trim().is_empty() {
            return Err(source.item_error(person, "a person's name cannot be empty".into()));
        }
        let person_table = person
            .as_table_like()
            .ok_or_else(|| source.item_error(person, format!("people.{name} must be a table")))?;
        let mut contacts = Vec::new();
        for (key, value) in person_table.iter() {
            if key != "notify" {
                return Err(key_error(
                    source,
                    person_table,
                    key,
                    &format!("people.{name}"),
                    "notify",
                ));
            }
            let array = value.as_array().ok_or_else(|| {
                source.item_error(
                    value,
                    format!("people.{name}.notify must be an array of \"KIND=URL\" strings"),
                )
            })?;
            for entry in array.iter() {
                contacts.push(spec(source, entry, &format!("people.{name}.notify"))?);
            }
        }
        people.insert(name.to_string(), contacts);
    }
    Ok(people)
}

fn spec(source: &Source<'_>, value: &Value, path: &str) -> Result<Spec> {
    let text = value.as_str().ok_or_else(|| {
        source.error(
            value.span(),
            format!("{path}: each entry must be a \"KIND=URL\" string"),
        )
    })?;
    Spec::parse(text).map_err(|reason| source.error(value.span(), format!("{path}: {reason}")))
}

fn key_error(
    source: &Source<'_>,
    table: &dyn TableLike,
    key: &str,
    path: &str,
    expected: &str,
) -> PolicyError {
    let span = table.key(key).and_then(|k| k.span());
    source.error(
        span,
        format!("unknown key {key:?} in {path} (expected {expected})"),
    )
}

fn ladder(source: &Source<'_>, item: &Item) -> Result<Vec<Step>> {
    let steps = item.as_array_of_tables().ok_or_else(|| {
        source.item_error(
            item,
            "escalate must be written as [[escalate]] tables".into(),
        )
    })?;
    let mut ladder: Vec<Step> = Vec::new();
    for (index, table) in steps.iter().enumerate() {
        let path = format!("escalate[{}]", index + 1);
        let whole = table.span();
        for (key, _) in table.iter() {
            if !matches!(key, "after" | "notify" | "via") {
                return Err(key_error(source, table, key, &path, "after, notify, via"));
            }
        }
        let string = |key: &str| -> Result<Option<(String, Option<std::ops::Range<usize>>)>> {
            match table.get(key) {
                None => Ok(None),
                Some(item) => match item.as_str() {
                    Some(text) => Ok(Some((text.to_string(), item.span()))),
                    None => Err(source.item_error(item, format!("{path}.{key} must be a string"))),
                },
            }
        };
        let (after_text, after_span) = string("after")?.ok_or_else(|| {
            source.error(
                whole.clone(),
                format!("{path} needs after (\"30s\", \"10m\", \"2h\")"),
            )
        })?;
        let after = parse_after(&after_text).map_err(|reason| {
            source.error(after_span.clone(), format!("{path}.after: {reason}"))
        })?;
        if let Some(last) = ladder.last()
            && after <= last.after
        {
            return Err(source.error(
                after_span,
                format!("{path}.after must be later than the step before it"),
            ));
        }
        let (notify, notify_span) = string("notify")?.ok_or_else(|| {
            source.error(
                whole.clone(),
                format!("{path} needs notify (a person or a group)"),
            )
        })?;
        if notify.trim().is_empty() {
            return Err(source.error(notify_span, format!("{path}.notify cannot be empty")));
        }
        let via = match string("via")? {
            None => None,
            Some((via, span)) => Some(
                Kind::ALL
                    .into_iter()
                    .find(|kind| kind.as_str() == via)
                    .ok_or_else(|| {
                        let kinds = Kind::ALL.map(Kind::as_str).join(", ");
                        source.error(
                            span,
                            format!("{path}.via: unknown kind {via:?} (KIND: {kinds})"),
                        )
                    })?,
            ),
        };
        ladder.push(Step { after, notify, via });
    }
    Ok(ladder)
}

/// `"30s"`, `"10m"`, `"2h"`: a whole number and one unit, 1 s to a week.
pub fn parse_after(text: &str) -> std::result::Result<Duration, String> {
    let wanted =
        || format!("expected a number and s, m or h (\"30s\", \"10m\", \"2h\"), got {text:?}");
    let unit = text.chars().last().ok_or_else(wanted)?;
    let seconds_per = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        _ => return Err(wanted()),
    };
    let digits = &text[..text.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(wanted());
    }
    let count: u64 = digits.parse().map_err(|_| wanted())?;
    let after = Duration::from_secs(count.saturating_mul(seconds_per));
    if after.is_zero() {
        return Err("must be at least 1s".into());
    }
    if after > MAX_AFTER {
        return Err("must be at most a week (168h)".into());
    }
    Ok(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[people.ada]
notify = ["email=ada@example.com", "ntfy=https://ntfy.sh/ada-7f3"]   # same forms as --notify-to
[people.grace]
notify = ["webhook=http://127.0.0.1:9/hook"]

[[escalate]]
after = "10m"
notify = "oncall"

[[escalate]]
after = "30m"
notify = "ada"
via = "email"
"#;

    fn error(text: &str) -> PolicyError {
        parse(text).expect_err("should be refused")
    }

    #[test]
    fn the_documented_shape_parses() {
        let policy = parse(GOOD).unwrap();
        assert_eq!(policy.people.len(), 2);
        assert_eq!(policy.people["ada"][0].kind, Kind::Email);
        assert_eq!(policy.people["ada"][1].target, "https://ntfy.sh/ada-7f3");
        assert_eq!(policy.people["grace"][0].kind, Kind::Webhook);
        assert_eq!(
            policy.escalate,
            vec![
                Step {
                    after: Duration::from_secs(600),
                    notify: "oncall".into(),
                    via: None
                },
                Step {
                    after: Duration::from_secs(1800),
                    notify: "ada".into(),
                    via: Some(Kind::Email)
                },
            ]
        );
    }

    #[test]
    fn an_empty_file_is_an_empty_policy() {
        assert_eq!(parse("").unwrap(), Policy::default());
        assert_eq!(parse("# nothing yet\n").unwrap(), Policy::default());
    }

    #[test]
    fn not_toml_names_line_and_column() {
        let e = error("[people.ada]\nnotify = [\"email=a@b\"\n");
        assert_eq!((e.line, e.column), (2, 22), "{e}");
        assert_eq!(e.message, "not TOML: unclosed array, expected `]`");
    }

    #[test]
    fn unknown_keys_are_named_where_they_are() {
        let e = error("[people.ada]\nnotify = []\n\n[peeple.grace]\n");
        assert_eq!((e.line, e.column), (4, 2), "{e}");
        assert!(e.message.contains("unknown key \"peeple\""), "{e}");

        let e = error("[people.ada]\nnotfy = []\n");
        assert_eq!((e.line, e.column), (2, 1), "{e}");
        assert_eq!(
            e.message,
            "unknown key \"notfy\" in people.ada (expected notify)"
        );

        let e = error("[[escalate]]\nafter = \"1m\"\nnotify = \"ada\"\nwhen = 3\n");
        assert_eq!((e.line, e.column), (4, 1), "{e}");
        assert_eq!(
            e.message,
            "unknown key \"when\" in escalate[1] (expected after, notify, via)"
        );
    }

    #[test]
    fn a_bad_contact_says_which_and_where() {
        let e = error("[people.ada]\nnotify = [\"email=a@b\", \"pager=123\"]\n");
        assert_eq!((e.line, e.column), (2, 24), "{e}");
        assert!(
            e.message
                .starts_with("people.ada.notify: unknown kind \"pager\" (KIND: ntfy, slack"),
            "{e}"
        );
        let e = error("[people.ada]\nnotify = \"email=a@b\"\n");
        assert_eq!(
            e.message,
            "people.ada.notify must be an array of \"KIND=URL\" strings"
        );
        let e = error("[people.ada]\nnotify = [3]\n");
        assert_eq!(
            e.message,
            "people.ada.notify: each entry must be a \"KIND=URL\" string"
        );
        let e = error("[people.ada]\nnotify = [\"email=\"]\n");
        assert_eq!(e.message, "people.ada.notify: email= needs a URL");
    }

    #[test]
    fn a_bad_step_says_which_and_where() {
        let e = error("[[escalate]]\nafter = \"10 minutes\"\nnotify = \"ada\"\n");
        assert_eq!((e.line, e.column), (2, 9), "{e}");
        assert!(
            e.message
                .starts_with("escalate[1].after: expected a number"),
            "{e}"
        );

        let e = error("[[escalate]]\nnotify = \"ada\"\n");
        assert_eq!(
            e.message,
            "escalate[1] needs after (\"30s\", \"10m\", \"2h\")"
        );
        let e = error("[[escalate]]\nafter = \"1m\"\n");
        assert_eq!(e.message, "escalate[1] needs notify (a person or a group)");
        let e = error("[[escalate]]\nafter = \"1m\"\nnotify = \" \"\n");
        assert_eq!(e.message, "escalate[1].notify cannot be empty");
        let e = error("[[escalate]]\nafter = 60\nnotify = \"ada\"\n");
        assert_eq!(e.message, "escalate[1].after must be a string");
        let e = error("[[escalate]]\nafter = \"1m\"\nnotify = \"ada\"\nvia = \"pager\"\n");
        assert_eq!((e.line, e.column), (4, 7), "{e}");
        assert!(
            e.message
                .starts_with("escalate[1].via: unknown kind \"pager\""),
            "{e}"
        );
        let e = error("escalate = 3\n");
        assert_eq!(e.message, "escalate must be written as [[escalate]] tables");
        let e = error("people = 3\n");
        assert_eq!(e.message, "people must be a table of [people.NAME]");
    }

    #[test]
    fn the_ladder_must_climb() {
        let e = error(
            "[[escalate]]\nafter = \"2m\"\nnotify = \"a\"\n[[escalate]]\nafter = \"120s\"\nnotify = \"b\"\n",
        );
        assert_eq!((e.line, e.column), (5, 9), "{e}");
        assert_eq!(
            e.message,
            "escalate[2].after must be later than the step before it"
        );
    }

    #[test]
    fn after_is_seconds_minutes_or_hours() {
        assert_eq!(parse_after("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_after("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_after("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_after("168h"), Ok(MAX_AFTER));
        for bad in ["", "s", "10", "1.5m", "-1s", "+1s", "1d", "1 m", "١s"] {
            assert!(parse_after(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_after("0s"), Err("must be at least 1s".into()));
        assert_eq!(
            parse_after("169h"),
            Err("must be at most a week (168h)".into())
        );
        // No overflow on absurd numbers: refused, not wrapped.
        assert!(parse_after("99999999999999999999h").is_err());
        assert!(parse_after("18446744073709551615h").is_err());
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        assert_eq!(position("é = 1\nab", 7), (2, 1));
        assert_eq!(position("ééx", 4), (1, 3));
    }
}
