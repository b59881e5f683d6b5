//! The prompt document (DESIGN §4): what `execute` and `prompt` print.
//!
//! Field order in these structs is the documented key order of the JSON.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use crate::error::{AskError, Detail};
use crate::input::{MAX_QUESTIONS, check_unique_ids, decode, parse_object};
use crate::markdown::{bold_lines, escape_block, escape_inline};
use crate::model::{Choice, Default, Kind, Prompt, Question};
use crate::text::{fold_line, parse_yes_no, yes_no};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptDocument {
    pub tool: String,
    pub version: u32,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Form-wide context; only with several questions (one question carries it inside `prompt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<PromptItem>>,
    pub rendered_markdown: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptItem {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<OptionItem>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultEcho>,
    /// Present (as `false`) only when the question may be skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    pub answer_instructions: String,
    pub answer_format: AnswerFormat,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionItem {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recommended: bool,
}

/// A default as echoed: one option id, "yes"/"no" or text; a list of ids for multi_select.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DefaultEcho {
    One(String),
    Many(Vec<String>),
}

/// What a valid reply looks like, by kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum AnswerFormat {
    Integer {
        min: usize,
        max: usize,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        allow_other: bool,
    },
    Array {
        items: IntegerRange,
        min_items: usize,
        max_items: usize,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        allow_other: bool,
    },
    String {
        min_length: usize,
    },
    Boolean,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegerRange {
    #[serde(rename = "type")]
    pub kind: String,
    pub min: usize,
    pub max: usize,
}

impl PromptDocument {
    pub fn new(prompt: &Prompt) -> Self {
        let single = prompt.questions.len() == 1;
        let (item, items) = if single {
            let question = &prompt.questions[0];
            let mut item = PromptItem::new(question, question.id_given);
            // With one question, the item's own context wins over a form-wide one.
            item.context = question.context.clone().or_else(|| prompt.context.clone());
            (Some(item), None)
        } else {
            let items = prompt
                .questions
                .iter()
                .map(|q| PromptItem::new(q, true))
                .collect();
            (None, Some(items))
        };
        PromptDocument {
            tool: crate::TOOL_NAME.into(),
            version: crate::DOC_VERSION,
            status: "ok".into(),
            title: prompt.title.clone(),
            context: if single { None } else { prompt.context.clone() },
            prompt: item,
            prompts: items,
            rendered_markdown: render_markdown(prompt),
        }
    }
}

impl PromptItem {
    pub fn new(question: &Question, with_id: bool) -> Self {
        PromptItem {
            id: with_id.then(|| question.id.clone()),
            header: question.header.clone(),
            question: question.text.clone(),
            context: question.context.clone(),
            kind: question.kind,
            options: question
                .kind
                .is_select()
                .then(|| question.options.iter().map(OptionItem::from).collect()),
            placeholder: question.placeholder.clone(),
            default: question
                .default
                .as_ref()
                .map(|d| default_echo(question.kind, d)),
            required: (!question.required).then_some(false),
            answer_instructions: answer_instructions(question),
            answer_format: answer_format(question),
        }
    }
}

impl From<&Choice> for OptionItem {
    fn from(choice: &Choice) -> Self {
        OptionItem {
            id: choice.id.clone(),
            label: choice.label.clone(),
            description: choice.description.clone(),
            recommended: choice.recommended,
        }
    }
}

fn default_echo(kind: Kind, default: &Default) -> DefaultEcho {
    match default {
        Default::Options(ids) if kind == Kind::MultiSelect => DefaultEcho::Many(ids.clone()),
        Default::Options(ids) => DefaultEcho::One(ids.first().cloned().unwrap_or_default()),
        Default::Confirm(yes) => DefaultEcho::One(yes_no(*yes).into()),
        Default::Text(text) => DefaultEcho::One(text.clone()),
    }
}

pub fn answer_format(question: &Question) -> AnswerFormat {
    let n = question.options.len();
    match question.kind {
        Kind::SingleSelect => AnswerFormat::Integer {
            min: 1,
            max: n,
            allow_other: question.allow_other,
        },
        Kind::MultiSelect => AnswerFormat::Array {
            items: IntegerRange {
                kind: "integer".into(),
                min: 1,
                max: n,
            },
            min_items: usize::from(question.required),
            max_items: n,
            allow_other: question.allow_other,
        },
        Kind::Text => AnswerFormat::String {
            min_length: usize::from(question.required),
        },
        Kind::Confirm => AnswerFormat::Boolean,
    }
}

/// One plain sentence a model can repeat to a person.
pub fn answer_instructions(question: &Question) -> String {
    let n = question.options.len();
    let mut sentence = match question.kind {
        Kind::SingleSelect => format!("Reply with the option number (1-{n})"),
        Kind::MultiSelect => {
            format!("Reply with one or more option numbers (1-{n}), separated by commas")
        }
        Kind::Text => "Reply with your answer as text".to_string(),
        Kind::Confirm => "Reply yes or no".to_string(),
    };
    if question.allow_other {
        sentence.push_str(", or answer in your own words");
    }
    if !question.required {
        sentence.push_str(", or reply with nothing to skip this question");
    }
    sentence.push('.');
    sentence
}

/// What a person reads. Every piece of user text is escaped (see `markdown`).
pub fn render_markdown(prompt: &Prompt) -> String {
    let mut blocks: Vec<String> = Vec::new();
    if let Some(title) = &prompt.title {
        blocks.push(format!("## {}", escape_inline(title)));
    }
    let single = prompt.questions.len() == 1;
    if !single && let Some(context) = &prompt.context {
        blocks.push(escape_block(context));
    }
    let total = prompt.questions.len();
    for (index, question) in prompt.questions.iter().enumerate() {
        if !single {
            let mut heading = format!("### Question {} of {total}", index + 1);
            if let Some(header) = &question.header {
                heading.push_str(&format!(": {}", escape_inline(header)));
            }
            blocks.push(heading);
        } else if let Some(header) = &question.header {
            blocks.push(format!("_{}_", escape_inline(header)));
        }
        blocks.push(bold_lines(&question.text));
        let context = match (&question.context, single) {
            (Some(own), _) => Some(own),
            (None, true) => prompt.context.as_ref(),
            (None, false) => None,
        };
        if let Some(context) = context {
            blocks.push(escape_block(context));
        }
        if let Some(body) = question_body(question) {
            blocks.push(body);
        }
        blocks.push(format!("_{}_", answer_instructions(question)));
    }
    blocks.join("\n\n")
}

fn question_body(question: &Question) -> Option<String> {
    let mut lines = Vec::new();
    match question.kind {
        Kind::SingleSelect | Kind::MultiSelect => {
            let defaults = match &question.default {
                Some(Default::Options(ids)) => ids.as_slice(),
                _ => &[],
            };
            for choice in &question.options {
                let mut line = format!("{}. **{}**", choice.id, escape_inline(&choice.label));
                if let Some(description) = &choice.description {
                    // Descriptions keep their lines in JSON; here they join one list item.
                    line.push_str(" — ");
                    line.push_str(&escape_inline(&fold_line(description)));
                }
                let mut marks = Vec::new();
                if choice.recommended && !choice.label.to_lowercase().ends_with("(recommended)") {
                    marks.push("recommended");
                }
                if defaults.contains(&choice.id) {
                    marks.push("default");
                }
                if !marks.is_empty() {
                    line.push_str(&format!(" _({})_", marks.join(", ")));
                }
                lines.push(line);
            }
            if question.allow_other {
                lines.push("- _Other: answer in your own words_".to_string());
            }
        }
        Kind::Text => {
            if let Some(placeholder) = &question.placeholder {
                lines.push(format!(
                    "Hint: _{}_",
                    escape_inline(&fold_line(placeholder))
                ));
            }
            if let Some(Default::Text(text)) = &question.default {
                lines.push(format!("Default: {}", escape_inline(&fold_line(text))));
            }
        }
        Kind::Confirm => {
            let options = match question.default {
                Some(Default::Confirm(true)) => "**Yes** (default) / No",
                Some(Default::Confirm(false)) => "Yes / **No** (default)",
                _ => "Yes / No",
            };
            lines.push(options.to_string());
        }
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

impl PromptItem {
    /// Back into the model, for `answer`: the question as the person was shown it.
    /// `index` names the question when the document gave it no id.
    pub fn to_question(&self, index: usize) -> Question {
        let allow_other = matches!(
            self.answer_format,
            AnswerFormat::Integer {
                allow_other: true,
                ..
            } | AnswerFormat::Array {
                allow_other: true,
                ..
            }
        );
        let options: Vec<Choice> = self
            .options
            .iter()
            .flatten()
            .map(|o| Choice {
                id: o.id.clone(),
                label: o.label.clone(),
                description: o.description.clone(),
                recommended: o.recommended,
            })
            .collect();
        let default = self
            .default
            .as_ref()
            .and_then(|echo| match (self.kind, echo) {
                (Kind::Confirm, DefaultEcho::One(text)) => parse_yes_no(text).map(Default::Confirm),
                (Kind::Text, DefaultEcho::One(text)) => Some(Default::Text(text.clone())),
                (_, DefaultEcho::One(id)) => Some(Default::Options(vec![id.clone()])),
                (_, DefaultEcho::Many(ids)) => Some(Default::Options(ids.clone())),
            });
        Question {
            id: self.id.clone().unwrap_or_else(|| format!("q{}", index + 1)),
            id_given: self.id.is_some(),
            header: self.header.clone(),
            text: self.question.clone(),
            context: self.context.clone(),
            kind: self.kind,
            options,
            allow_other,
            required: self.required.unwrap_or(true),
            default,
            placeholder: self.placeholder.clone(),
        }
    }
}

/// A tool input or a prompt document (as `execute` prints it) → model, for
/// `answer`. A prompt document is told apart by `"tool":"ask_user"` with a
/// `prompt` object or a `prompts` array (a user_ask input's `prompt` is a string).
pub fn parse_input_or_prompt(bytes: &[u8]) -> Result<Prompt, AskError> {
    let obj = decode(bytes)?;
    let is_document = obj.get("tool").and_then(Value::as_str) == Some(crate::TOOL_NAME)
        && (obj.get("prompt").is_some_and(Value::is_object)
            || obj.get("prompts").is_some_and(Value::is_array));
    if is_document {
        prompt_document(obj)
    } else {
        parse_object(&obj)
    }
}

/// The parts of a prompt document that the questions are rebuilt from.
#[derive(serde::Deserialize)]
struct PromptDocumentIn {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    context: Option<String>,
    #[serde(default)]
    prompt: Option<PromptItem>,
    #[serde(default)]
    prompts: Option<Vec<PromptItem>>,
}

fn prompt_document(obj: crate::input::Object) -> Result<Prompt, AskError> {
    let document: PromptDocumentIn = serde_json::from_value(Value::Object(obj)).map_err(|e| {
        AskError::InvalidInput(
            Detail::new(
                "the prompt document is not as ask_user printed it; pass it unchanged, or pass the tool input",
            )
            .with_parse_error(e.to_string()),
        )
    })?;
    let (items, base) = match (document.prompt, document.prompts) {
        (Some(_), Some(_)) => {
            return Err(AskError::InvalidInput(Detail::at(
                "a prompt document has either prompt or prompts, not both",
                "prompts",
            )));
        }
        (Some(item), None) => (vec![item], None),
        (None, Some(items)) => (items, Some("prompts")),
        (None, None) => {
            return Err(AskError::InvalidInput(Detail::at(
                "a prompt document needs a prompt object or a prompts array",
                "prompt",
            )));
        }
    };
    if items.is_empty() || items.len() > MAX_QUESTIONS {
        return Err(AskError::InvalidQuestions(Detail::at(
            format!("prompts must have 1 to {MAX_QUESTIONS} items"),
            "prompts",
        )));
    }
    let mut questions = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let question = item.to_question(index);
        if question.kind.is_select() && question.options.is_empty() {
            let path = match base {
                Some(base) => format!("{base}[{index}].options"),
                None => "prompt.options".into(),
            };
            return Err(AskError::MissingOptions(Detail::at(
                format!("a {} prompt needs its options", question.kind.as_str()),
                path,
            )));
        }
        questions.push(question);
    }
    check_unique_ids(&questions)?;
    Ok(Prompt {
        title: document.title,
        context: document.context,
        timeout_ms: None,
        questions,
        routing: crate::model::Routing::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A prompt document with `n` text questions in `prompts`.
    fn prompts(n: usize) -> String {
        let items: Vec<String> = (1..=n)
            .map(|i| {
                format!(
                    r#"{{"id":"q{i}","question":"Q{i}?","kind":"text","answer_instructions":"Reply with your answer as text.","answer_format":{{"type":"string","min_length":1}}}}"#
                )
            })
            .collect();
        format!(
            r#"{{"tool":"ask_user","version":1,"status":"ok","prompts":[{}],"rendered_markdown":""}}"#,
            items.join(",")
        )
    }

    #[test]
    fn a_prompt_document_has_1_to_10_prompts() {
        for n in [1, 2, 10] {
            let prompt = parse_input_or_prompt(prompts(n).as_bytes()).unwrap();
            assert_eq!(prompt.questions.len(), n);
            assert!(prompt.questions.iter().all(|q| q.kind == Kind::Text));
        }
        for n in [0, 11] {
            let err = parse_input_or_prompt(prompts(n).as_bytes()).unwrap_err();
            assert_eq!(err.code(), "INVALID_QUESTIONS", "{n}");
            assert_eq!(err.path(), Some("prompts"));
        }
    }

    #[test]
    fn a_prompt_document_needs_prompt_or_prompts_but_not_both() {
        let one = r#"{"question":"Q?","kind":"text","answer_instructions":"x","answer_format":{"type":"string","min_length":1}}"#;
        let both = format!(r#"{{"tool":"ask_user","prompt":{one},"prompts":[{one},{one}]}}"#);
        let err = prompt_document(crate::input::decode(both.as_bytes()).unwrap()).unwrap_err();
        assert_eq!((err.code(), err.path()), ("INVALID_INPUT", Some("prompts")));
        let neither = r#"{"tool":"ask_user","title":"T"}"#;
        let err = prompt_document(crate::input::decode(neither.as_bytes()).unwrap()).unwrap_err();
        assert_eq!((err.code(), err.path()), ("INVALID_INPUT", Some("prompt")));
    }

    #[test]
    fn only_a_select_needs_options() {
        let doc = |kind: &str| {
            format!(
                r#"{{"tool":"ask_user","prompts":[{{"question":"A?","kind":"text","answer_instructions":"x","answer_format":{{"type":"string","min_length":1}}}},{{"question":"B?","kind":"{kind}","answer_instructions":"x","answer_format":{{"type":"boolean"}}}}]}}"#
            )
        };
        assert!(parse_input_or_prompt(doc("confirm").as_bytes()).is_ok());
        let err = parse_input_or_prompt(doc("multi_select").as_bytes()).unwrap_err();
        assert_eq!(
            (err.code(), err.path()),
            ("MISSING_OPTIONS", Some("prompts[1].options"))
        );
    }

    #[test]
    fn a_document_is_told_from_an_input_by_tool_and_a_prompt_object() {
        // Another tool's name, or a user_ask input's string prompt: an input.
        let other_tool =
            r#"{"tool":"other","prompt":{"question":"x"},"question":"Pick","options":["a","b"]}"#;
        let prompt = parse_input_or_prompt(other_tool.as_bytes()).unwrap();
        assert_eq!(prompt.questions[0].text, "Pick");
        let user_ask = r#"{"tool":"ask_user","prompt":"Proceed?","type":"confirm"}"#;
        let prompt = parse_input_or_prompt(user_ask.as_bytes()).unwrap();
        assert_eq!(prompt.questions[0].kind, Kind::Confirm);
        // prompts must be an array to make a document.
        let not_array = r#"{"tool":"ask_user","prompts":{"question":"x"},"question":"Pick","options":["a","b"]}"#;
        let prompt = parse_input_or_prompt(not_array.as_bytes()).unwrap();
        assert_eq!(prompt.questions[0].text, "Pick");
    }
}
