//! Claude Code's hooks (measured against Claude Code 2.1.330):
//!
//! - `PreToolUse` on `AskUserQuestion`: its `tool_input` is ask_user's
//!   Claude dialect (DESIGN §2) as it is. The answer goes back as Claude
//!   Code's own UI gives it: `permissionDecision: "allow"` with
//!   `updatedInput` = the tool's input plus `answers`, keyed by the question's
//!   text; a single select's value is the chosen label (or the Other text),
//!   a multi select's a list of labels (Claude Code joins them with ", ");
//!   a note goes in `annotations.{question}.notes`. No answer is `answers: {}`,
//!   which the model reads as "The user did not answer the questions."
//! - `Elicitation` (another MCP server's form): `requested_schema`'s flat
//!   properties become questions, the person's answer goes back as
//!   `action: "accept"` with `content`; a timeout or cancel is `"cancel"`, a
//!   decline `"decline"`.

use serde_json::{Map, Value, json};

use super::{HookQuestion, Mapper, NoAnswer, Outcome, Unfit};
use crate::answer::AnswerDocument;
use crate::input::Object;
use crate::model::{Kind, Prompt};

pub static MAPPER: Mapper = Mapper { read, reply };

/// Claude Code's own ask tool.
pub const ASK_TOOL: &str = "AskUserQuestion";

fn read(event: &Value) -> Result<HookQuestion, Unfit> {
    let input = match event_name(event)? {
        "PreToolUse" => ask_tool_input(event)?,
        "Elicitation" => elicitation_input(event)?,
        other => {
            return Err(Unfit(format!(
                "Claude Code's {other:?} event is not one ask_user answers: hook PreToolUse (matcher {ASK_TOOL}) or Elicitation"
            )));
        }
    };
    Ok(HookQuestion {
        input,
        event: event.clone(),
    })
}

fn event_name(event: &Value) -> Result<&str, Unfit> {
    event
        .get("hook_event_name")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Unfit(
                "the hook's input has no hook_event_name: is this Claude Code's hook event?".into(),
            )
        })
}

/// `AskUserQuestion`'s input: ask_user reads its dialect as it is.
fn ask_tool_input(event: &Value) -> Result<Object, Unfit> {
    let tool = event.get("tool_name").and_then(Value::as_str).unwrap_or("");
    if tool != ASK_TOOL {
        return Err(Unfit(format!(
            "the tool {tool:?} is not one ask_user answers: match the PreToolUse hook on {ASK_TOOL}"
        )));
    }
    match event.get("tool_input") {
        Some(Value::Object(input)) => Ok(input.clone()),
        _ => Err(Unfit(format!(
            "the {ASK_TOOL} call has no tool_input object"
        ))),
    }
}

/// One property of a form's schema, as a question.
fn elicitation_input(event: &Value) -> Result<Object, Unfit> {
    let mode = event.get("mode").and_then(Value::as_str).unwrap_or("form");
    if mode != "form" {
        return Err(Unfit(format!(
            "an elicitation in {mode:?} mode is not a form ask_user can ask"
        )));
    }
    let schema = event.get("requested_schema").unwrap_or(&Value::Null);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Err(Unfit(
            "the form's requested_schema has no properties to ask".into(),
        ));
    };
    if properties.is_empty() {
        return Err(Unfit(
            "the form's requested_schema has no properties to ask".into(),
        ));
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let message = event
        .get("message")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|m| !m.is_empty());
    let mut questions = Vec::new();
    for (name, property) in properties {
        let mut question = field_question(name, property)?;
        question.insert("id".into(), json!(name));
        question.insert("required".into(), json!(required.contains(&name.as_str())));
        questions.push(Value::Object(question));
    }
    let mut input = Map::new();
    if let Some(message) = message {
        input.insert("context".into(), json!(message));
    }
    input.insert("questions".into(), Value::Array(questions));
    Ok(input)
}

/// A schema property's choices: `(value, label)` pairs, from `enum`
/// (labels from `enumNames` when given) or `oneOf`/`anyOf` of `{const, title}`.
fn choices(schema: &Value) -> Option<Vec<(Value, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, value)| {
                    let label = names
                        .and_then(|names| names.get(i))
                        .and_then(Value::as_str)
                        .map_or_else(|| value_text(value), str::to_string);
                    (value.clone(), label)
                })
                .collect(),
        );
    }
    let list = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    list.iter()
        .map(|item| {
            let value = item.get("const")?.clone();
            let label = item
                .get("title")
                .and_then(Value::as_str)
                .map_or_else(|| value_text(&value), str::to_string);
            Some((value, label))
        })
        .collect()
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn field_question(name: &str, property: &Value) -> Result<Object, Unfit> {
    let text = ["title", "description"]
        .iter()
        .find_map(|key| property.get(*key).and_then(Value::as_str))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(name);
    let mut question = Map::new();
    question.insert("question".into(), json!(text));
    if property.get("title").is_some()
        && let Some(description) = property.get("description").and_then(Value::as_str)
    {
        question.insert("context".into(), json!(description));
    }
    let kind = property.get("type").and_then(Value::as_str).unwrap_or("");
    let unsupported = || {
        Unfit(format!(
            "the form's field {name:?} is not one ask_user can ask (a string, number, boolean, a choice of values or a list of them)"
        ))
    };
    if let Some(options) = choices(property) {
        question.insert("type".into(), json!("select"));
        question.insert(
            "options".into(),
            Value::Array(options.into_iter().map(|(_, label)| json!(label)).collect()),
        );
        return Ok(question);
    }
    match kind {
        "boolean" => {
            question.insert("type".into(), json!("confirm"));
        }
        "string" | "number" | "integer" => {
            question.insert("type".into(), json!("text"));
            if kind != "string" {
                question.insert("placeholder".into(), json!(format!("a {kind}")));
            }
        }
        "array" => {
            let items = property.get("items").unwrap_or(&Value::Null);
            let options = choices(items).ok_or_else(unsupported)?;
            question.insert("type".into(), json!("multi_select"));
            question.insert(
                "options".into(),
                Value::Array(options.into_iter().map(|(_, label)| json!(label)).collect()),
            );
        }
        _ => return Err(unsupported()),
    }
    Ok(question)
}

fn reply(question: &HookQuestion, outcome: &Outcome) -> Option<Value> {
    match question
        .event
        .get("hook_event_name")
        .and_then(Value::as_str)
    {
        Some("Elicitation") => Some(elicitation_reply(question, outcome)),
        _ => Some(ask_tool_reply(question, outcome)),
    }
}

/// `allow` with the tool's input and the person's `answers`, as Claude
/// Code's own UI answers the tool; no answer is `answers: {}`.
fn ask_tool_reply(question: &HookQuestion, outcome: &Outcome) -> Value {
    let mut updated = question
        .event
        .get("tool_input")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut answers = Map::new();
    let mut annotations = Map::new();
    if let Outcome::Answered(document, prompt) = outcome {
        let texts = question_texts(&updated);
        for (index, asked) in prompt.questions.iter().enumerate() {
            let Some(answer) = document.answers.iter().find(|a| a.question_id == asked.id) else {
                continue;
            };
            // The key is the question as the tool's input wrote it.
            let key = texts
                .get(index)
                .cloned()
                .unwrap_or_else(|| asked.text.clone());
            let value = match (asked.kind, answer.values.as_slice()) {
                (_, []) => continue,
                (Kind::MultiSelect, values) => json!(values),
                (_, [one, ..]) => json!(one),
            };
            answers.insert(key.clone(), value);
            if let Some(note) = &answer.note {
                annotations.insert(key, json!({"notes": note}));
            }
        }
    }
    updated.insert("answers".into(), Value::Object(answers));
    if !annotations.is_empty() {
        updated.insert("annotations".into(), Value::Object(annotations));
    }
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": updated,
    }})
}

fn question_texts(input: &Object) -> Vec<String> {
    input
        .get("questions")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    item.get("question")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn elicitation_reply(question: &HookQuestion, outcome: &Outcome) -> Value {
    let (action, content) = match outcome {
        Outcome::Answered(document, prompt) => {
            ("accept", Some(content(question, document, prompt)))
        }
        Outcome::NoAnswer(NoAnswer::Declined) => ("decline", None),
        Outcome::NoAnswer(NoAnswer::TimedOut | NoAnswer::Cancelled) => ("cancel", None),
    };
    let mut output = json!({"hookEventName": "Elicitation", "action": action});
    if let Some(content) = content {
        output["content"] = Value::Object(content);
    }
    json!({ "hookSpecificOutput": output })
}

/// The form's content: each answered property in its schema's type.
fn content(question: &HookQuestion, document: &AnswerDocument, prompt: &Prompt) -> Object {
    let properties = question
        .event
        .pointer("/requested_schema/properties")
        .and_then(Value::as_object);
    let mut content = Map::new();
    for asked in &prompt.questions {
        let Some(answer) = document.answers.iter().find(|a| a.question_id == asked.id) else {
            continue;
        };
        let property = properties
            .and_then(|p| p.get(&asked.id))
            .unwrap_or(&Value::Null);
        if let Some(value) = property_value(property, asked.kind, answer) {
            content.insert(asked.id.clone(), value);
        }
    }
    content
}

/// One answer as its property's value; `None` for a skipped one.
fn property_value(property: &Value, kind: Kind, answer: &crate::answer::Answer) -> Option<Value> {
    let chosen = |schema: &Value| -> Vec<Value> {
        let values = choices(schema).unwrap_or_default();
        answer
            .option_ids
            .iter()
            .flatten()
            .filter_map(|id| id.parse::<usize>().ok())
            .filter_map(|n| {
                values
                    .get(n.checked_sub(1)?)
                    .map(|(value, _)| value.clone())
            })
            .collect()
    };
    match kind {
        Kind::SingleSelect => chosen(property).into_iter().next(),
        Kind::MultiSelect => {
            let items = property.get("items").unwrap_or(&Value::Null);
            Some(Value::Array(chosen(items)))
        }
        Kind::Confirm => answer.values.first().map(|v| json!(v == "yes")),
        Kind::Text => {
            let text = answer.values.first()?;
            match property.get("type").and_then(Value::as_str) {
                Some("integer") => text.trim().parse::<i64>().ok().map(|n| json!(n)),
                Some("number") => text.trim().parse::<f64>().ok().map(|n| json!(n)),
                _ => Some(json!(text)),
            }
        }
    }
}

#[cfg(test)]
mod tests;
