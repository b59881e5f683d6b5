//! What a file is, and whether it keeps the contract.
//!
//! A JSON object whose `tool` is "ask_user" is a document that ask_user
//! printed (no input dialect has a `tool` key): `status: "error"` makes it an
//! error document, an `answered` key an answer document, anything else a
//! prompt document. Every other file is a tool input. Inputs go through the
//! input parser itself; documents are read back strictly with the types that
//! print them (unknown keys are errors), then checked for what types cannot
//! say: option ids 1..N, an `answer_format` that matches the options, one
//! outcome per answer document, a known error code.

use std::collections::HashSet;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::answer::{Answer, AnswerDocument, AnsweredBy};
use crate::error::{AskError, Detail, ErrorDocument};
use crate::input::{
    self, MAX_CONTEXT_CHARS, MAX_DESCRIPTION_CHARS, MAX_HEADER_CHARS, MAX_LABEL_CHARS, MAX_OPTIONS,
    MAX_QUESTION_CHARS, MAX_QUESTIONS, MAX_TITLE_CHARS, MIN_OPTIONS,
};
use crate::model::{Choice, Default, Kind, Question};
use crate::prompt::{
    AnswerFormat, DefaultEcho, PromptDocument, PromptItem, answer_format, answer_instructions,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DocumentKind {
    Input,
    Prompt,
    Answer,
    Error,
    /// An inbox's `--policy` file (a `.toml` file named on the command line).
    Policy,
}

impl DocumentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Input => "input",
            DocumentKind::Prompt => "prompt",
            DocumentKind::Answer => "answer",
            DocumentKind::Error => "error",
            DocumentKind::Policy => "policy",
        }
    }
}

/// The verdict on one file's bytes. `kind` is `None` when the bytes are not
/// a JSON object at all.
#[derive(Debug)]
pub struct Checked {
    pub kind: Option<DocumentKind>,
    pub error: Option<AskError>,
}

type Result<T> = std::result::Result<T, AskError>;

/// Checks an inbox policy file's bytes (`ask_user inbox --policy FILE`):
/// UTF-8, then [`crate::inbox::policy::parse`]; an error names its line and
/// column in the message (the `path` field is for JSON paths, so it is unset).
pub fn check_policy_bytes(bytes: &[u8]) -> Checked {
    if let Err(error) = input::check_size(bytes) {
        return Checked {
            kind: Some(DocumentKind::Policy),
            error: Some(error),
        };
    }
    let error = match std::str::from_utf8(bytes) {
        Err(e) => Some(AskError::InvalidField(Detail::new(format!(
            "the policy file is not UTF-8 (byte {})",
            e.valid_up_to()
        )))),
        Ok(text) => crate::inbox::policy::parse(text)
            .err()
            .map(|e| AskError::InvalidField(Detail::new(format!("policy: {e}")))),
    };
    Checked {
        kind: Some(DocumentKind::Policy),
        error,
    }
}

/// Checks one file's bytes: size limit, BOM, JSON, then the rules of what it is.
pub fn check_bytes(bytes: &[u8]) -> Checked {
    let object = match input::decode(bytes) {
        Ok(object) => object,
        Err(error) => {
            return Checked {
                kind: None,
                error: Some(error),
            };
        }
    };
    let kind = classify(&object);
    let result = match kind {
        DocumentKind::Input => input::parse_object(&object).map(drop),
        DocumentKind::Prompt => read::<PromptDocument>(object, kind).and_then(|d| check_prompt(&d)),
        DocumentKind::Answer => read::<AnswerDocument>(object, kind).and_then(|d| check_answer(&d)),
        DocumentKind::Error => {
            read::<ErrorDocument<'static>>(object, kind).and_then(|d| check_error(&d))
        }
        // `classify` never says policy: policies are TOML, chosen by the
        // file's name before the bytes are read (check_policy_bytes).
        DocumentKind::Policy => Ok(()),
    };
    Checked {
        kind: Some(kind),
        error: result.err(),
    }
}

fn classify(object: &Map<String, Value>) -> DocumentKind {
    if object.get("tool").and_then(Value::as_str) != Some(crate::TOOL_NAME) {
        DocumentKind::Input
    } else if object.get("status").and_then(Value::as_str) == Some("error") {
        DocumentKind::Error
    } else if object.contains_key("answered") {
        DocumentKind::Answer
    } else {
        DocumentKind::Prompt
    }
}

/// Strict deserialization, with the path of the first field that does not fit.
fn read<T: DeserializeOwned>(object: Map<String, Value>, kind: DocumentKind) -> Result<T> {
    let document = Value::Object(object);
    // serde reads null as an absent Option; documents omit absent values instead.
    if let Some(path) = first_null(&document, String::new()) {
        return Err(field_error(
            format!("{path} is null; ask_user omits an absent value, so remove the key",),
            path,
        ));
    }
    serde_path_to_error::deserialize(document).map_err(|err| {
        let at = err.path().to_string();
        let inner = err.into_inner().to_string();
        // serde names the field in backticks: "missing field `x`", "unknown field `x`, …".
        let field = ["missing field `", "unknown field `"]
            .iter()
            .find_map(|prefix| inner.strip_prefix(prefix))
            .and_then(|rest| rest.split('`').next());
        let path = match (field, at.as_str()) {
            (Some(field), ".") => field.to_string(),
            (Some(field), at) if !at.ends_with(field) => format!("{at}.{field}"),
            (_, at) => at.to_string(),
        };
        let remedy = if inner.starts_with("unknown field") {
            "; remove it"
        } else if inner.starts_with("missing field") {
            "; add it"
        } else {
            ""
        };
        let kind = kind.as_str();
        field_error(
            format!("not a valid {kind} document: {inner}{remedy}"),
            if path == "." { String::new() } else { path },
        )
    })
}

/// The path of the first null in a document, if any.
fn first_null(value: &Value, path: String) -> Option<String> {
    match value {
        Value::Null => Some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| first_null(item, format!("{path}[{i}]"))),
        Value::Object(map) => map
            .iter()
            .find_map(|(key, item)| first_null(item, join(&path, key))),
        _ => None,
    }
}

fn field_error(message: impl Into<String>, path: impl Into<String>) -> AskError {
    let path = path.into();
    if path.is_empty() {
        AskError::InvalidField(Detail::new(message))
    } else {
        AskError::InvalidField(Detail::at(message, path))
    }
}

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

fn check_envelope(tool: &str, version: u32, status: &str, wanted_status: &str) -> Result<()> {
    if tool != crate::TOOL_NAME {
        return Err(field_error(
            format!("tool must be \"{}\"", crate::TOOL_NAME),
            "tool",
        ));
    }
    if version != crate::DOC_VERSION {
        return Err(field_error(
            format!(
                "version must be {} (the only document version)",
                crate::DOC_VERSION
            ),
            "version",
        ));
    }
    if status != wanted_status {
        return Err(field_error(
            format!("status must be \"{wanted_status}\" in this document"),
            "status",
        ));
    }
    Ok(())
}

/// A text that must be there, non-empty, and at most `max` characters.
fn check_text(text: &str, max: usize, path: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Err(field_error(format!("{path} must not be empty"), path));
    }
    let count = text.chars().count();
    if count > max {
        return Err(field_error(
            format!("{path} must be at most {max} characters (it has {count})"),
            path,
        ));
    }
    Ok(())
}

fn check_optional_text(text: Option<&str>, max: usize, path: &str) -> Result<()> {
    text.map_or(Ok(()), |text| check_text(text, max, path))
}

fn check_prompt(doc: &PromptDocument) -> Result<()> {
    check_envelope(&doc.tool, doc.version, &doc.status, "ok")?;
    check_optional_text(doc.title.as_deref(), MAX_TITLE_CHARS, "title")?;
    check_optional_text(doc.context.as_deref(), MAX_CONTEXT_CHARS, "context")?;
    check_text(&doc.rendered_markdown, usize::MAX, "rendered_markdown")?;
    match (&doc.prompt, &doc.prompts) {
        (Some(_), Some(_)) => Err(field_error(
            "a prompt document has prompt (one question) or prompts (several), not both",
            "prompts",
        )),
        (None, None) => Err(field_error(
            "a prompt document needs prompt (one question) or prompts (several)",
            "prompt",
        )),
        (Some(item), None) => {
            if doc.context.is_some() {
                return Err(field_error(
                    "with one question the context belongs inside prompt; move it there",
                    "context",
                ));
            }
            check_item(item, "prompt").map(drop)
        }
        (None, Some(items)) => {
            if !(2..=MAX_QUESTIONS).contains(&items.len()) {
                return Err(field_error(
                    format!(
                        "prompts must have 2 to {MAX_QUESTIONS} items (it has {}); one question goes in prompt",
                        items.len()
                    ),
                    "prompts",
                ));
            }
            let mut ids = HashSet::new();
            for (index, item) in items.iter().enumerate() {
                let base = format!("prompts[{index}]");
                let id = item.id.as_deref().ok_or_else(|| {
                    field_error(
                        "each item of prompts needs its id",
                        join(&base, "id").as_str(),
                    )
                })?;
                if !ids.insert(id) {
                    return Err(field_error(
                        format!(
                            "question id \"{id}\" is used twice; give each question its own id"
                        ),
                        join(&base, "id"),
                    ));
                }
                check_item(item, &base)?;
            }
            Ok(())
        }
    }
}

/// Checks one prompt item and returns the question it describes.
fn check_item(item: &PromptItem, base: &str) -> Result<Question> {
    if let Some(id) = &item.id {
        check_text(id, usize::MAX, &join(base, "id"))?;
    }
    check_optional_text(
        item.header.as_deref(),
        MAX_HEADER_CHARS,
        &join(base, "header"),
    )?;
    check_text(&item.question, MAX_QUESTION_CHARS, &join(base, "question"))?;
    check_optional_text(
        item.context.as_deref(),
        MAX_CONTEXT_CHARS,
        &join(base, "context"),
    )?;
    check_optional_text(
        item.placeholder.as_deref(),
        usize::MAX,
        &join(base, "placeholder"),
    )?;
    if item.required == Some(true) {
        return Err(field_error(
            "required appears only as false (a question that may be skipped); remove it",
            join(base, "required"),
        ));
    }
    let options = check_options(item, base)?;
    let allow_other = match item.answer_format {
        AnswerFormat::Integer { allow_other, .. } | AnswerFormat::Array { allow_other, .. } => {
            allow_other
        }
        AnswerFormat::String { .. } | AnswerFormat::Boolean => false,
    };
    let default = item
        .default
        .as_ref()
        .map(|echo| check_default(item.kind, echo, &options, &join(base, "default")))
        .transpose()?;
    let question = Question {
        id: item.id.clone().unwrap_or_default(),
        id_given: item.id.is_some(),
        header: item.header.clone(),
        text: item.question.clone(),
        context: item.context.clone(),
        kind: item.kind,
        options,
        allow_other,
        required: item.required.is_none(),
        default,
        placeholder: item.placeholder.clone(),
    };
    // The same functions that print answer_format and answer_instructions say what they must be.
    let expected = answer_format(&question);
    if item.answer_format != expected {
        let n = question.options.len();
        let what = if question.kind.is_select() {
            format!("a {} question with {n} options", question.kind.as_str())
        } else {
            format!("a {} question", question.kind.as_str())
        };
        return Err(field_error(
            format!(
                "answer_format does not match {what}; it must be {}",
                crate::document_line(&expected)
            ),
            join(base, "answer_format"),
        ));
    }
    let instructions = answer_instructions(&question);
    if item.answer_instructions != instructions {
        return Err(field_error(
            format!("answer_instructions must be \"{instructions}\" for this question"),
            join(base, "answer_instructions"),
        ));
    }
    Ok(question)
}

fn check_options(item: &PromptItem, base: &str) -> Result<Vec<Choice>> {
    let path = join(base, "options");
    let kind = item.kind.as_str();
    let Some(options) = &item.options else {
        return if item.kind.is_select() {
            Err(field_error(
                format!("a {kind} question needs options"),
                path,
            ))
        } else {
            Ok(Vec::new())
        };
    };
    if !item.kind.is_select() {
        return Err(field_error(
            format!("a {kind} question has no options; remove them"),
            path,
        ));
    }
    if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&options.len()) {
        return Err(field_error(
            format!(
                "options must have {MIN_OPTIONS} to {MAX_OPTIONS} items (it has {})",
                options.len()
            ),
            path,
        ));
    }
    let mut labels = HashSet::new();
    let mut choices = Vec::with_capacity(options.len());
    for (index, option) in options.iter().enumerate() {
        let at = format!("{path}[{index}]");
        let id = (index + 1).to_string();
        if option.id != id {
            return Err(field_error(
                format!(
                    "option ids are 1, 2, … by position; this one must be \"{id}\", not \"{}\"",
                    option.id
                ),
                join(&at, "id"),
            ));
        }
        check_text(&option.label, MAX_LABEL_CHARS, &join(&at, "label"))?;
        if !labels.insert(option.label.to_lowercase()) {
            return Err(field_error(
                format!(
                    "option label \"{}\" repeats an earlier one (ignoring case); make each label unique",
                    option.label
                ),
                join(&at, "label"),
            ));
        }
        check_optional_text(
            option.description.as_deref(),
            MAX_DESCRIPTION_CHARS,
            &join(&at, "description"),
        )?;
        choices.push(Choice {
            id,
            label: option.label.clone(),
            description: option.description.clone(),
            recommended: option.recommended,
        });
    }
    Ok(choices)
}

/// The echoed default, back as the model's: option ids, yes/no, or text.
fn check_default(
    kind: Kind,
    echo: &DefaultEcho,
    options: &[Choice],
    path: &str,
) -> Result<Default> {
    let option_id = |id: &String| {
        if options.iter().any(|c| &c.id == id) {
            Ok(id.clone())
        } else {
            Err(field_error(
                format!(
                    "default must be an option id from 1 to {}, not \"{id}\"",
                    options.len()
                ),
                path,
            ))
        }
    };
    match (kind, echo) {
        (Kind::SingleSelect, DefaultEcho::One(id)) => Ok(Default::Options(vec![option_id(id)?])),
        (Kind::MultiSelect, DefaultEcho::Many(ids)) => {
            let ids = ids.iter().map(option_id).collect::<Result<Vec<_>>>()?;
            let ascending = ids
                .windows(2)
                .all(|pair| pair[0].parse::<usize>().ok() < pair[1].parse::<usize>().ok());
            if ids.is_empty() || !ascending {
                return Err(field_error(
                    "default must list distinct option ids in option order",
                    path,
                ));
            }
            Ok(Default::Options(ids))
        }
        (Kind::Confirm, DefaultEcho::One(yes_no)) if yes_no == "yes" || yes_no == "no" => {
            Ok(Default::Confirm(yes_no == "yes"))
        }
        (Kind::Text, DefaultEcho::One(text)) if !text.trim().is_empty() => {
            Ok(Default::Text(text.clone()))
        }
        (kind, _) => Err(field_error(
            match kind {
                Kind::SingleSelect => "default must be one option id, such as \"1\"",
                Kind::MultiSelect => "default must be a list of option ids, such as [\"1\"]",
                Kind::Confirm => "default must be \"yes\" or \"no\"",
                Kind::Text => "default must be non-empty text",
            },
            path,
        )),
    }
}

fn check_answer(doc: &AnswerDocument) -> Result<()> {
    check_envelope(&doc.tool, doc.version, &doc.status, "ok")?;
    let outcomes = [doc.answered, doc.cancelled, doc.timed_out];
    let set = outcomes.iter().filter(|&&set| set).count();
    if doc.pending {
        // `mcp --wait`: nothing decided yet, and the way back is named.
        if set != 0 {
            return Err(field_error(
                "a pending document has answered, cancelled and timedOut all false",
                "pending",
            ));
        }
        if doc.inbox_id.is_none() || doc.hint.is_none() {
            return Err(field_error(
                "a pending document carries the inboxId to resume and its hint",
                "pending",
            ));
        }
    } else if set != 1 {
        return Err(field_error(
            "exactly one of answered, cancelled and timedOut must be true",
            "answered",
        ));
    }
    if let Some(reason) = &doc.reason {
        if !doc.cancelled {
            return Err(field_error(
                "reason is given only for a cancelled form; remove it",
                "reason",
            ));
        }
        check_text(reason, usize::MAX, "reason")?;
    }
    check_optional_text(doc.hint.as_deref(), usize::MAX, "hint")?;
    // A pending question kept by an mcp server itself has that server's id: 32 hex digits.
    let kept_id =
        |id: &str| id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if let Some(id) = &doc.inbox_id
        && !crate::inbox::store::is_id(id)
        && !(doc.pending && kept_id(id))
    {
        return Err(field_error(
            "inboxId is the inbox's 8-character question id (0-9 and lowercase letters but i, l, o, u); pass it as the inbox gave it",
            "inboxId",
        ));
    }
    if !doc.answered && !doc.answers.is_empty() {
        return Err(field_error(
            "a cancelled or timed-out form carries no answers; answers must be []",
            "answers",
        ));
    }
    if doc.answered && !(1..=MAX_QUESTIONS).contains(&doc.answers.len()) {
        return Err(field_error(
            format!(
                "an answered form has 1 to {MAX_QUESTIONS} answers (it has {})",
                doc.answers.len()
            ),
            "answers",
        ));
    }
    let mut ids = HashSet::new();
    for (index, answer) in doc.answers.iter().enumerate() {
        let base = format!("answers[{index}]");
        if !ids.insert(answer.question_id.as_str()) {
            return Err(field_error(
                format!(
                    "question id \"{}\" is answered twice; one answer per question",
                    answer.question_id
                ),
                join(&base, "questionId"),
            ));
        }
        check_one_answer(answer, &base)?;
    }
    check_answered_by(doc)
}

/// `answeredBy`: on every answer, never on anything else.
fn check_answered_by(doc: &AnswerDocument) -> Result<()> {
    match (&doc.answered_by, doc.answered) {
        (None, false) => Ok(()),
        (Some(_), false) => Err(field_error(
            "answeredBy is given only for an answered form (nobody answered a cancel, a decline, a timeout or a pending question); remove it",
            "answeredBy",
        )),
        (None, true) => Err(field_error(
            "an answered form says who answered it: answeredBy is required",
            "answeredBy",
        )),
        (Some(AnsweredBy::One(by)), true) => {
            check_text(&by.name, MAX_NAME_CHARS, "answeredBy.name")
        }
        (Some(AnsweredBy::Votes(votes)), true) => {
            if votes.is_empty() {
                return Err(field_error(
                    "answeredBy lists the votes of an answer that needed approvals: at least one",
                    "answeredBy",
                ));
            }
            for (index, vote) in votes.iter().enumerate() {
                let base = format!("answeredBy[{index}]");
                check_text(&vote.name, MAX_NAME_CHARS, &join(&base, "name"))?;
                check_text(&vote.voted_at, usize::MAX, &join(&base, "votedAt"))?;
                for (at, answer) in vote.answers.iter().enumerate() {
                    check_one_answer(answer, &format!("{base}.answers[{at}]"))?;
                }
            }
            Ok(())
        }
    }
}

/// The longest name in `answeredBy` (a token's, a device's, a Matrix
/// user's, a rule's id, or the operating system's user).
const MAX_NAME_CHARS: usize = 256;

fn check_one_answer(answer: &Answer, base: &str) -> Result<()> {
    check_text(&answer.question_id, usize::MAX, &join(base, "questionId"))?;
    check_optional_text(
        answer.note.as_deref(),
        crate::answer::MAX_NOTE_CHARS,
        &join(base, "note"),
    )?;
    match &answer.option_ids {
        Some(ids) => {
            let numbers = ids
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    id.parse::<usize>()
                        .ok()
                        .filter(|n| (1..=MAX_OPTIONS).contains(n) && n.to_string() == *id)
                        .ok_or_else(|| {
                            field_error(
                                format!("option ids are \"1\" to \"{MAX_OPTIONS}\", not \"{id}\""),
                                format!("{base}.optionIds[{i}]"),
                            )
                        })
                })
                .collect::<Result<Vec<_>>>()?;
            if !numbers.windows(2).all(|pair| pair[0] < pair[1]) {
                return Err(field_error(
                    "optionIds must be distinct and in option order",
                    join(base, "optionIds"),
                ));
            }
            let expected = ids.len() + usize::from(answer.custom_text.is_some());
            if answer.values.len() != expected {
                return Err(field_error(
                    format!(
                        "values must hold one label per option id, then the customText if any ({expected} values, not {})",
                        answer.values.len()
                    ),
                    join(base, "values"),
                ));
            }
            if let Some(custom) = &answer.custom_text {
                check_text(custom, usize::MAX, &join(base, "customText"))?;
                if answer.values.last() != Some(custom) {
                    return Err(field_error(
                        "the customText must also be the last of values",
                        join(base, "values"),
                    ));
                }
            }
        }
        None => {
            if answer.custom_text.is_some() {
                return Err(field_error(
                    "customText belongs to select answers, which carry optionIds",
                    join(base, "customText"),
                ));
            }
            if answer.values.len() > 1 {
                return Err(field_error(
                    "a text or confirm answer has at most one value",
                    join(base, "values"),
                ));
            }
        }
    }
    Ok(())
}

fn check_error(doc: &ErrorDocument) -> Result<()> {
    check_envelope(&doc.tool, doc.version, &doc.status, "error")?;
    let code = doc.error.code.as_ref();
    if !AskError::CODES.contains(&code) {
        return Err(field_error(
            format!(
                "error.code \"{code}\" is not one of {}",
                AskError::CODES.join(", ")
            ),
            "error.code",
        ));
    }
    check_text(&doc.error.message, usize::MAX, "error.message")?;
    if let Some(path) = &doc.error.path {
        check_text(path, usize::MAX, "error.path")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(json: &str) -> (Option<DocumentKind>, Option<(&'static str, Option<String>)>) {
        let checked = check_bytes(json.as_bytes());
        (
            checked.kind,
            checked
                .error
                .map(|e| (e.code(), e.path().map(str::to_string))),
        )
    }

    #[test]
    fn printed_documents_are_valid() {
        for input in [
            r#"{"question":"Pick","options":["a","b"]}"#,
            r#"{"questions":[{"question":"A?","options":["x","y"],"multiSelect":true,"header":"H"},{"question":"B?","type":"confirm","default":"yes","required":false}],"context":"c","title":"T"}"#,
            r#"{"prompt":"Name?","type":"text","default":"Bob"}"#,
        ] {
            let doc = crate::execute(input.as_bytes()).unwrap();
            let line = crate::document_line(&doc);
            assert_eq!(verdict(&line), (Some(DocumentKind::Prompt), None), "{line}");
        }
        let err = crate::execute(b"[]").unwrap_err();
        let line = crate::document_line(&err.document());
        assert_eq!(verdict(&line), (Some(DocumentKind::Error), None));
    }

    #[test]
    fn unknown_and_missing_keys_are_named() {
        let (_, error) = verdict(
            r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"NO_TTY","message":"m","extra":1}}"#,
        );
        assert_eq!(error, Some(("INVALID_FIELD", Some("error.extra".into()))));
        let (_, error) = verdict(r#"{"tool":"ask_user","version":1,"status":"ok"}"#);
        assert_eq!(
            error,
            Some(("INVALID_FIELD", Some("rendered_markdown".into())))
        );
        let (_, error) = verdict(
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":[],"extra":2}]}"#,
        );
        assert_eq!(
            error,
            Some(("INVALID_FIELD", Some("answers[0].extra".into())))
        );
    }

    #[test]
    fn answer_format_must_match_the_options() {
        let doc = crate::execute(br#"{"question":"Pick","options":["a","b","c"]}"#).unwrap();
        let line = crate::document_line(&doc).replace(r#""max":3"#, r#""max":2"#);
        assert_eq!(
            verdict(&line).1,
            Some(("INVALID_FIELD", Some("prompt.answer_format".into())))
        );
        let line = crate::document_line(&doc).replace(r#""type":"integer""#, r#""type":"boolean""#);
        assert_eq!(verdict(&line).1.map(|e| e.0), Some("INVALID_FIELD"));
    }
}
