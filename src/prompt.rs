//! The prompt document (DESIGN §4): what `execute` and `prompt` print.
//!
//! Field order in these structs is the documented key order of the JSON.

use serde::{Deserialize, Serialize};

use crate::markdown::{bold_lines, escape_block, escape_inline};
use crate::model::{Choice, Default, Kind, Prompt, Question};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[serde(tag = "type", rename_all = "lowercase")]
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

pub fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
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
                    line.push_str(&escape_inline(&crate::input::fold_line(description)));
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
                    "e.g. _{}_",
                    escape_inline(&crate::input::fold_line(placeholder))
                ));
            }
            if let Some(Default::Text(text)) = &question.default {
                lines.push(format!(
                    "Default: {}",
                    escape_inline(&crate::input::fold_line(text))
                ));
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
