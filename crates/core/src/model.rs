//! The normalized model (DESIGN §3): what every dialect becomes and every face reads.

use serde::{Deserialize, Serialize};

use crate::text::fold_line;

/// A whole form: one or more questions asked together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub title: Option<String>,
    /// Form-wide context (a single question's own context lives on the question).
    pub context: Option<String>,
    pub timeout_ms: Option<u64>,
    pub questions: Vec<Question>,
    /// Who it is for and how it is decided, in a team inbox (`to`,
    /// `approvals`, `human`); empty for most questions.
    pub routing: Routing,
}

/// Who a question is for and how it is decided in an inbox.
/// Only the inbox reads it; the local faces ignore it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routing {
    /// `to`: a person's name or a group. An unknown name is accepted and
    /// reaches nobody until someone of that name exists (askers cannot probe).
    pub to: Option<String>,
    /// `approvals`: how many persons must give the same answer.
    pub approvals: Option<Approvals>,
    /// `"human": true`: never answered by a standing rule.
    pub human: bool,
}

/// `approvals: {count, from, veto}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approvals {
    /// Distinct persons who must give the same answer (1 to [`MAX_APPROVALS`]).
    pub count: u32,
    /// A person's name or a group whose members may vote; `None`: any person.
    pub from: Option<String>,
    /// An option (label or number, as a reply names it) of the first
    /// question that ends the question at once when anyone allowed picks it.
    pub veto: Option<String>,
}

/// The most approvals an ask may require.
pub const MAX_APPROVALS: u32 = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The given id, or `q1`, `q2`, … by position.
    pub id: String,
    /// Whether `id` came from the input (only then is it echoed for a single question).
    pub id_given: bool,
    pub header: Option<String>,
    pub text: String,
    pub context: Option<String>,
    pub kind: Kind,
    pub options: Vec<Choice>,
    pub allow_other: bool,
    pub required: bool,
    pub default: Option<Default>,
    pub placeholder: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    SingleSelect,
    MultiSelect,
    Text,
    Confirm,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SingleSelect => "single_select",
            Kind::MultiSelect => "multi_select",
            Kind::Text => "text",
            Kind::Confirm => "confirm",
        }
    }

    pub fn is_select(self) -> bool {
        matches!(self, Kind::SingleSelect | Kind::MultiSelect)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// "1", "2", … by position: the number a person types.
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    pub recommended: bool,
}

/// A normalized default: option ids for selects, a boolean for confirm, text for text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Default {
    /// Option ids; one for single_select, any number for multi_select.
    Options(Vec<String>),
    Confirm(bool),
    Text(String),
}

impl Question {
    /// The option whose id is `id`, if any.
    pub fn option(&self, id: &str) -> Option<&Choice> {
        self.options.iter().find(|c| c.id == id)
    }

    /// Index of the option pre-selected in a UI: the default, else the first recommended one.
    pub fn preselected_index(&self) -> Option<usize> {
        if let Some(Default::Options(ids)) = &self.default
            && let Some(first) = ids.first()
        {
            return self.options.iter().position(|c| &c.id == first);
        }
        self.options.iter().position(|c| c.recommended)
    }
}

/// An option named by its label (exact, then ignoring case) or its 1-based number.
pub fn find_choice<'a>(options: &'a [Choice], text: &str) -> Option<&'a Choice> {
    let text = fold_line(text);
    options
        .iter()
        .find(|c| c.label == text)
        .or_else(|| {
            let lower = text.to_lowercase();
            options.iter().find(|c| c.label.to_lowercase() == lower)
        })
        .or_else(|| {
            // Digits only: "+2" names no position (usize's parser would take it).
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let n: usize = text.parse().ok()?;
            options.get(n.checked_sub(1)?)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::input::first_question as question;

    #[test]
    fn kind_names_are_the_documents_names() {
        for kind in [
            Kind::SingleSelect,
            Kind::MultiSelect,
            Kind::Text,
            Kind::Confirm,
        ] {
            let serialized = serde_json::to_string(&kind).unwrap();
            assert_eq!(serialized, format!("\"{}\"", kind.as_str()));
        }
        assert_eq!(Kind::MultiSelect.as_str(), "multi_select");
    }

    #[test]
    fn an_option_is_found_by_its_id_only() {
        let q = question(r#"{"question":"Pick","options":["2","1","c"]}"#);
        assert_eq!(q.option("1").map(|c| c.label.as_str()), Some("2"));
        assert_eq!(q.option("3").map(|c| c.label.as_str()), Some("c"));
        assert_eq!(q.option("c"), None);
        assert_eq!(q.option("4"), None);
    }

    #[test]
    fn the_preselected_option_is_the_default_else_the_first_recommended() {
        let q = question(
            r#"{"question":"Pick","options":["a",{"label":"b","recommended":true},"c"],"default":"c"}"#,
        );
        assert_eq!(q.preselected_index(), Some(2));
        let q = question(
            r#"{"question":"Pick","options":["a",{"label":"b","recommended":true},"c (Recommended)"]}"#,
        );
        assert_eq!(q.preselected_index(), Some(1));
        let q = question(r#"{"question":"Pick","options":["a","b"]}"#);
        assert_eq!(q.preselected_index(), None);
    }

    #[test]
    fn a_choice_is_found_by_label_then_case_then_number() {
        let q = question(r#"{"question":"Pick","options":["Beta","beta two","2"]}"#);
        let find = |text: &str| find_choice(&q.options, text).map(|c| c.id.as_str());
        assert_eq!(find("Beta"), Some("1"));
        assert_eq!(find("  BETA   TWO "), Some("2"));
        // A label that is a number wins over the position it names.
        assert_eq!(find("2"), Some("3"));
        assert_eq!(find("1"), Some("1"));
        assert_eq!(find("0"), None);
        assert_eq!(find("4"), None);
        assert_eq!(find("gamma"), None);
    }
}
