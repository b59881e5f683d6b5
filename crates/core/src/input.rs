//! Input (DESIGN §2): bytes → JSON → dialect → normalized [`Prompt`].
//!
//! Tolerant of every dialect the seeds use, strict about limits: every rule
//! broken is its own coded error with the path of the field that broke it.

use std::io::Read;

use serde_json::{Map, Value};

mod routing;

use routing::routing;

use crate::error::{AskError, Detail};
use crate::model::{Choice, Default, Kind, Prompt, Question, find_choice};
use crate::text::{fold_line, parse_yes_no};

/// Largest accepted input, in bytes (exactly this many is accepted).
pub const MAX_INPUT_BYTES: usize = 262_144;
pub const MAX_QUESTIONS: usize = 10;
pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 20;
pub const MAX_QUESTION_CHARS: usize = 1000;
pub const MAX_TITLE_CHARS: usize = 100;
pub const MAX_HEADER_CHARS: usize = 12;
pub const MAX_CONTEXT_CHARS: usize = 4000;
pub const MAX_LABEL_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
pub const MIN_TIMEOUT_MS: u64 = 10_000;
pub const MAX_TIMEOUT_MS: u64 = 1_800_000;

pub type Object = Map<String, Value>;
type Result<T> = std::result::Result<T, AskError>;

/// Reads at most one byte past the limit, so a huge or endless stream costs
/// neither memory nor time before it is rejected.
pub fn read_limited(reader: impl Read) -> Result<Vec<u8>> {
    // Room for a typical input up front: one read fills it and the next sees
    // the end, where an empty Vec costs several small probing reads per file.
    let mut bytes = Vec::with_capacity(16 * 1024);
    reader
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            AskError::ReadError(Detail::new(format!(
                "the input could not be read ({e}); pass a readable file or pipe JSON on stdin"
            )))
        })?;
    check_size(&bytes)?;
    Ok(bytes)
}

pub fn check_size(bytes: &[u8]) -> Result<()> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(AskError::InputTooLarge(Detail::new(format!(
            "the input is larger than {MAX_INPUT_BYTES} bytes; send a shorter question"
        ))));
    }
    Ok(())
}

/// Raw bytes → a JSON object: size limit, BOM, white space, one double-encoding unwrap.
pub fn decode(bytes: &[u8]) -> Result<Object> {
    check_size(bytes)?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let bytes = bytes.trim_ascii();
    if bytes.is_empty() {
        return Err(AskError::InvalidJson(
            Detail::new("the input is empty; send one JSON object").with_parse_error("empty input"),
        ));
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        AskError::InvalidJson(
            Detail::new("the input is not valid JSON; send one JSON object")
                .with_parse_error(e.to_string()),
        )
    })?;
    into_object(value)
}

/// A JSON value → an object; a string holding a JSON object is unwrapped once.
pub fn into_object(value: Value) -> Result<Object> {
    match value {
        Value::Object(map) => Ok(map),
        Value::String(text) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(not_an_object("a string")),
        },
        other => Err(not_an_object(json_type(&other))),
    }
}

fn not_an_object(found: &str) -> AskError {
    AskError::InvalidInput(Detail::new(format!(
        "the input must be a JSON object with a question, not {found}"
    )))
}

/// Bytes → model: the whole input path.
pub fn parse(bytes: &[u8]) -> Result<Prompt> {
    parse_object(&decode(bytes)?)
}

/// What a face that asks is asked to do (DESIGN §10).
// One is built per call and moved once: its size costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// A new question: the model, and the decoded input (forwarded as it is
    /// to the inbox, which parses it again).
    Ask { prompt: Prompt, input: Object },
    /// `{"resume": "<inboxId>"}`: the outcome of a question asked through
    /// the inbox before, or a wait for it.
    Resume(String),
}

/// Bytes → a new question or a resume.
pub fn parse_request(bytes: &[u8]) -> Result<Request> {
    request_from_object(decode(bytes)?)
}

/// A decoded object → a new question or a resume.
pub fn request_from_object(obj: Object) -> Result<Request> {
    match present(&obj, "resume") {
        None => parse_object(&obj).map(|prompt| Request::Ask { prompt, input: obj }),
        Some(Value::String(id)) => {
            if let Some(key) = ["question", "questions", "prompt"]
                .into_iter()
                .find(|k| present(&obj, k).is_some())
            {
                return Err(AskError::InvalidInput(Detail::at(
                    format!("give either resume or a {key}, not both"),
                    "resume",
                )));
            }
            let id = id.trim();
            if id.is_empty() {
                return Err(AskError::InvalidField(Detail::at(
                    "resume must be the inboxId of a question asked through the inbox, not empty",
                    "resume",
                )));
            }
            Ok(Request::Resume(id.to_string()))
        }
        Some(other) => Err(AskError::InvalidField(Detail::at(
            format!(
                "resume must be a string (the inboxId of a question asked through the inbox), not {}",
                json_type(other)
            ),
            "resume",
        ))),
    }
}

/// A decoded object → model, whichever dialect it is written in.
pub fn parse_object(obj: &Object) -> Result<Prompt> {
    let questions = present(obj, "questions");
    let top_question = ["question", "prompt"]
        .into_iter()
        .find(|k| present(obj, k).is_some());

    if let (Some(_), Some(key)) = (questions, top_question) {
        return Err(AskError::InvalidInput(Detail::at(
            format!("give either a questions array or a top-level {key}, not both"),
            key,
        )));
    }

    let title = optional_text(obj, "title", "", MAX_TITLE_CHARS, Fold::OneLine)?;
    let timeout_ms = timeout(obj)?;

    match questions {
        Some(list) => {
            let context = optional_text(obj, "context", "", MAX_CONTEXT_CHARS, Fold::KeepLines)?;
            let items = question_items(list)?;
            let mut parsed = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                parsed.push(parse_question(
                    item,
                    &format!("questions[{index}]"),
                    index,
                    false,
                )?);
            }
            check_unique_ids(&parsed)?;
            let routing = routing(obj, &parsed[0])?;
            Ok(Prompt {
                title,
                context,
                timeout_ms,
                questions: parsed,
                routing,
            })
        }
        None if top_question.is_some() => {
            let question = parse_question(obj, "", 0, true)?;
            let routing = routing(obj, &question)?;
            Ok(Prompt {
                title,
                context: None,
                timeout_ms,
                questions: vec![question],
                routing,
            })
        }
        None => Err(AskError::MissingQuestion(Detail::at(
            "the input has no question; add a \"question\" string (or a \"questions\" array)",
            "question",
        ))),
    }
}

fn question_items(list: &Value) -> Result<Vec<&Object>> {
    let bad = |path: String, message: String| AskError::InvalidQuestions(Detail::at(message, path));
    let Value::Array(items) = list else {
        return Err(bad(
            "questions".into(),
            format!(
                "questions must be an array of 1 to {MAX_QUESTIONS} question objects, not {}",
                json_type(list)
            ),
        ));
    };
    if items.is_empty() || items.len() > MAX_QUESTIONS {
        return Err(bad(
            "questions".into(),
            format!(
                "questions must have 1 to {MAX_QUESTIONS} items (it has {})",
                items.len()
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(map) => Ok(map),
            other => Err(bad(
                format!("questions[{i}]"),
                format!(
                    "each item of questions must be an object with a question, not {}",
                    json_type(other)
                ),
            )),
        })
        .collect()
}

pub(crate) fn check_unique_ids(questions: &[Question]) -> Result<()> {
    for (later, question) in questions.iter().enumerate() {
        if let Some(first) = questions[..later].iter().position(|q| q.id == question.id) {
            return Err(AskError::InvalidQuestions(Detail::at(
                format!(
                    "question id \"{}\" is used by questions[{first}] too; give each question its own id",
                    question.id
                ),
                format!("questions[{later}].id"),
            )));
        }
    }
    Ok(())
}

fn timeout(obj: &Object) -> Result<Option<u64>> {
    let Some(value) = present(obj, "timeout") else {
        return Ok(None);
    };
    match value.as_u64() {
        Some(ms) if (MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&ms) => Ok(Some(ms)),
        _ => Err(AskError::InvalidField(Detail::at(
            format!(
                "timeout must be a whole number of milliseconds from {MIN_TIMEOUT_MS} to {MAX_TIMEOUT_MS}"
            ),
            "timeout",
        ))),
    }
}

/// One question, from a `questions` item or from the top-level object.
fn parse_question(obj: &Object, base: &str, index: usize, top_level: bool) -> Result<Question> {
    let text_key = if present(obj, "question").is_none() && present(obj, "prompt").is_some() {
        "prompt"
    } else {
        "question"
    };
    let text_path = join(base, text_key);
    let text = match present(obj, text_key) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            return Err(AskError::MissingQuestion(Detail::at(
                format!("{text_key} must be a non-empty string"),
                text_path,
            )));
        }
    };
    check_length(&text, MAX_QUESTION_CHARS, &text_path, text_key)?;

    // Only items of `questions` can be Claude-dialect items.
    let claude = !top_level && (obj.contains_key("header") || obj.contains_key("multiSelect"));

    let header = optional_text(obj, "header", base, MAX_HEADER_CHARS, Fold::OneLine)?;
    let context = optional_text(obj, "context", base, MAX_CONTEXT_CHARS, Fold::KeepLines)?;
    let given_id = question_id(obj, base)?;
    let placeholder = optional_text(obj, "placeholder", base, usize::MAX, Fold::KeepLines)?;

    let explicit_kind = explicit_kind(obj, base)?;
    let multi = first_bool(obj, &["multiSelect", "multi_select", "multiple"], base)?;
    let options_value = present(obj, "options");
    let kind = match explicit_kind {
        Some(Kind::SingleSelect) if multi == Some(true) => Kind::MultiSelect,
        Some(kind) => kind,
        None if multi == Some(true) => Kind::MultiSelect,
        None if options_value.is_some() => Kind::SingleSelect,
        None if top_level => return Err(missing_options(base)),
        None => Kind::Text,
    };

    let options_path = join(base, "options");
    let options = match options_value {
        None if kind.is_select() => return Err(missing_options(base)),
        None => Vec::new(),
        Some(value) => {
            let items = option_items(value, &options_path)?;
            if !kind.is_select() {
                if !items.is_empty() {
                    return Err(AskError::InvalidOptions(Detail::at(
                        format!(
                            "options are only for select questions; remove them or make this question a select (it is {})",
                            kind.as_str()
                        ),
                        options_path,
                    )));
                }
                Vec::new()
            } else {
                parse_choices(&items, &options_path)?
            }
        }
    };

    let allow_other = first_bool(obj, &["allow_other", "allowOther", "custom"], base)?
        .unwrap_or(claude)
        && kind.is_select();
    let required = first_bool(obj, &["required"], base)?.unwrap_or(true);
    let default = parse_default(obj, base, kind, &options)?;

    Ok(Question {
        id: given_id
            .clone()
            .unwrap_or_else(|| format!("q{}", index + 1)),
        id_given: given_id.is_some(),
        header,
        text,
        context,
        kind,
        options,
        allow_other,
        required,
        default,
        placeholder,
    })
}

fn missing_options(base: &str) -> AskError {
    AskError::MissingOptions(Detail::at(
        format!(
            "options is required for a select question: give {MIN_OPTIONS} to {MAX_OPTIONS} choices"
        ),
        join(base, "options"),
    ))
}

fn question_id(obj: &Object, base: &str) -> Result<Option<String>> {
    match present(obj, "id") {
        None => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(fold_line(s))),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(AskError::InvalidField(Detail::at(
            "id must be a non-empty string",
            join(base, "id"),
        ))),
    }
}

fn explicit_kind(obj: &Object, base: &str) -> Result<Option<Kind>> {
    let Some((key, value)) = ["type", "kind"]
        .into_iter()
        .find_map(|k| present(obj, k).map(|v| (k, v)))
    else {
        return Ok(None);
    };
    let unknown = || {
        AskError::InvalidField(Detail::at(
            format!(
                "{key} must be one of text, select, choice, single_select, multi-select, multi_select, confirm, yesno"
            ),
            join(base, key),
        ))
    };
    let name = value.as_str().ok_or_else(unknown)?;
    let kind = match name.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "text" => Kind::Text,
        "select" | "choice" | "single_select" => Kind::SingleSelect,
        "multi_select" => Kind::MultiSelect,
        "confirm" | "yesno" => Kind::Confirm,
        _ => return Err(unknown()),
    };
    Ok(Some(kind))
}

/// The options as a list of raw items: an array, or a string holding one as JSON.
fn option_items(value: &Value, path: &str) -> Result<Vec<Value>> {
    let array = match value {
        Value::Array(items) => return Ok(items.clone()),
        Value::String(text) => serde_json::from_str::<Value>(text.trim()).map_err(|e| {
            AskError::InvalidOptionsJson(
                Detail::at(
                    "options is a string but not a JSON array; send options as an array of strings or {label, description} objects",
                    path,
                )
                .with_parse_error(e.to_string()),
            )
        })?,
        other => other.clone(),
    };
    match array {
        Value::Array(items) => Ok(items),
        other => Err(AskError::InvalidOptions(Detail::at(
            format!(
                "options must be an array of strings or {{label, description}} objects, not {}",
                json_type(&other)
            ),
            path,
        ))),
    }
}

fn parse_choices(items: &[Value], path: &str) -> Result<Vec<Choice>> {
    if items.len() < MIN_OPTIONS {
        return Err(AskError::InvalidOptions(Detail::at(
            format!("options must have at least {MIN_OPTIONS} items"),
            path,
        )));
    }
    if items.len() > MAX_OPTIONS {
        return Err(AskError::InvalidOptions(Detail::at(
            format!(
                "options must have at most {MAX_OPTIONS} items (it has {}); keep the choices few",
                items.len()
            ),
            path,
        )));
    }
    let mut choices: Vec<Choice> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        let choice = parse_choice(item, &item_path, i)?;
        let lower = choice.label.to_lowercase();
        if let Some(first) = choices.iter().position(|c| c.label.to_lowercase() == lower) {
            return Err(AskError::InvalidOptions(Detail::at(
                format!(
                    "option label \"{}\" repeats option {} (labels are compared ignoring case); make each label unique",
                    choice.label,
                    first + 1
                ),
                label_path(item, &item_path),
            )));
        }
        choices.push(choice);
    }
    Ok(choices)
}

const LABEL_KEYS: [&str; 5] = ["label", "title", "name", "value", "text"];
const DESCRIPTION_KEYS: [&str; 4] = ["description", "desc", "detail", "hint"];

fn label_path(item: &Value, item_path: &str) -> String {
    match item {
        Value::Object(obj) => {
            let key = LABEL_KEYS
                .into_iter()
                .find(|k| present(obj, k).is_some())
                .unwrap_or("label");
            format!("{item_path}.{key}")
        }
        _ => item_path.to_string(),
    }
}

fn parse_choice(item: &Value, item_path: &str, index: usize) -> Result<Choice> {
    let not_an_option = |found: &str| {
        AskError::InvalidOptions(Detail::at(
            format!("each option must be a string or an object with a label, not {found}"),
            item_path,
        ))
    };
    let (raw_label, description, recommended) = match item {
        Value::String(s) => (s.clone(), None, false),
        Value::Number(n) => (n.to_string(), None, false),
        Value::Object(obj) => {
            let label = LABEL_KEYS
                .into_iter()
                .find_map(|k| present(obj, k))
                .ok_or_else(|| not_an_option("an object without a label"))?;
            let label = scalar_text(label).ok_or_else(|| {
                AskError::InvalidOptions(Detail::at(
                    "an option label must be a string",
                    label_path(item, item_path),
                ))
            })?;
            let description = match DESCRIPTION_KEYS
                .into_iter()
                .find_map(|k| present(obj, k).map(|v| (k, v)))
            {
                None => None,
                Some((key, value)) => {
                    let text = scalar_text(value).ok_or_else(|| {
                        AskError::InvalidOptions(Detail::at(
                            "an option description must be a string",
                            format!("{item_path}.{key}"),
                        ))
                    })?;
                    let text = text.trim().to_string();
                    check_option_length(
                        &text,
                        MAX_DESCRIPTION_CHARS,
                        &format!("{item_path}.{key}"),
                        "option description",
                    )?;
                    (!text.is_empty()).then_some(text)
                }
            };
            let recommended = match present(obj, "recommended") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(AskError::InvalidOptions(Detail::at(
                        "recommended must be true or false",
                        format!("{item_path}.recommended"),
                    )));
                }
            };
            (label, description, recommended)
        }
        other => return Err(not_an_option(json_type(other))),
    };
    let label = fold_line(&raw_label);
    let path = label_path(item, item_path);
    if label.is_empty() {
        return Err(AskError::InvalidOptions(Detail::at(
            "option labels must not be empty",
            path,
        )));
    }
    check_option_length(&label, MAX_LABEL_CHARS, &path, "option label")?;
    let recommended = recommended || label.to_lowercase().ends_with("(recommended)");
    Ok(Choice {
        id: (index + 1).to_string(),
        label,
        description,
        recommended,
    })
}

fn check_option_length(text: &str, max: usize, path: &str, what: &str) -> Result<()> {
    let count = text.chars().count();
    if count > max {
        return Err(AskError::InvalidOptions(Detail::at(
            format!("{what} must be at most {max} characters (it has {count})"),
            path,
        )));
    }
    Ok(())
}

fn parse_default(
    obj: &Object,
    base: &str,
    kind: Kind,
    options: &[Choice],
) -> Result<Option<Default>> {
    let Some(value) = present(obj, "default") else {
        return Ok(None);
    };
    let path = join(base, "default");
    let invalid = |message: String| AskError::InvalidField(Detail::at(message, path.clone()));
    match kind {
        Kind::SingleSelect | Kind::MultiSelect => {
            let wanted: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                single => vec![single],
            };
            if kind == Kind::SingleSelect && wanted.len() != 1 {
                return Err(invalid(
                    "default must be one option label or number for a single select".into(),
                ));
            }
            let mut ids = Vec::with_capacity(wanted.len());
            for item in wanted {
                let choice = scalar_text(item)
                    .and_then(|text| find_choice(options, &text))
                    .ok_or_else(|| {
                        invalid(format!(
                            "default must name an option by its label or its number (1-{})",
                            options.len()
                        ))
                    })?;
                if !ids.contains(&choice.id) {
                    ids.push(choice.id.clone());
                }
            }
            // Echo in option order, whatever order the input listed them in.
            ids.sort_by_key(|id| id.parse::<usize>().unwrap_or(usize::MAX));
            Ok((!ids.is_empty()).then_some(Default::Options(ids)))
        }
        Kind::Confirm => {
            let yes = match value {
                Value::Bool(b) => Some(*b),
                Value::String(s) => parse_yes_no(s),
                _ => None,
            };
            yes.map(|b| Some(Default::Confirm(b))).ok_or_else(|| {
                invalid(
                    "default must be yes or no (or true or false) for a confirm question".into(),
                )
            })
        }
        Kind::Text => {
            let text = scalar_text(value)
                .ok_or_else(|| invalid("default must be a string for a text question".into()))?;
            let text = text.trim();
            Ok((!text.is_empty()).then(|| Default::Text(text.to_string())))
        }
    }
}

#[derive(Clone, Copy)]
enum Fold {
    OneLine,
    KeepLines,
}

/// An optional string field: null, empty and white space count as absent.
fn optional_text(
    obj: &Object,
    key: &str,
    base: &str,
    max: usize,
    fold: Fold,
) -> Result<Option<String>> {
    let path = join(base, key);
    let text = match present(obj, key) {
        None => return Ok(None),
        Some(Value::String(s)) => match fold {
            Fold::OneLine => fold_line(s),
            Fold::KeepLines => s.trim().to_string(),
        },
        Some(other) => {
            return Err(AskError::InvalidField(Detail::at(
                format!("{key} must be a string, not {}", json_type(other)),
                path,
            )));
        }
    };
    if text.is_empty() {
        return Ok(None);
    }
    check_length(&text, max, &path, key)?;
    Ok(Some(text))
}

fn check_length(text: &str, max: usize, path: &str, key: &str) -> Result<()> {
    let count = text.chars().count();
    if count > max {
        return Err(AskError::InvalidField(Detail::at(
            format!("{key} must be at most {max} characters (it has {count}); shorten it"),
            path,
        )));
    }
    Ok(())
}

/// The first of `keys` present, which must be a boolean.
fn first_bool(obj: &Object, keys: &[&str], base: &str) -> Result<Option<bool>> {
    let Some((key, value)) = keys.iter().find_map(|k| present(obj, k).map(|v| (*k, v))) else {
        return Ok(None);
    };
    match value {
        Value::Bool(b) => Ok(Some(*b)),
        other => Err(AskError::InvalidField(Detail::at(
            format!("{key} must be true or false, not {}", json_type(other)),
            join(base, key),
        ))),
    }
}

/// A key's value, with `null` counting as absent.
fn present<'a>(obj: &'a Object, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// Strings as they are, numbers as their text; nothing else.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// For unit tests: the first question of an input that must be valid.
#[cfg(test)]
pub(crate) fn first_question(input: &str) -> Question {
    parse(input.as_bytes())
        .expect("a valid input")
        .questions
        .remove(0)
}

pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resume_is_told_apart_from_a_question() {
        assert_eq!(
            parse_request(br#"{"resume":" 7hq2k9mc "}"#),
            Ok(Request::Resume("7hq2k9mc".into()))
        );
        let asked = parse_request(br#""{\"question\":\"Go?\",\"options\":[\"a\",\"b\"]}""#);
        let Ok(Request::Ask { prompt, input }) = asked else {
            panic!("{asked:?}");
        };
        assert_eq!(prompt.questions[0].text, "Go?");
        assert_eq!(input["question"], "Go?", "the decoded (unwrapped) object");
        // `resume: null` counts as absent.
        assert!(matches!(
            parse_request(br#"{"resume":null,"question":"Go?","options":["a","b"]}"#),
            Ok(Request::Ask { .. })
        ));
        for (bytes, code) in [
            (&br#"{"resume":""}"#[..], "INVALID_FIELD"),
            (br#"{"resume":7}"#, "INVALID_FIELD"),
            (br#"{"resume":"x","question":"Go?"}"#, "INVALID_INPUT"),
        ] {
            let err = parse_request(bytes).unwrap_err();
            assert_eq!((err.code(), err.path()), (code, Some("resume")));
        }
    }
}
