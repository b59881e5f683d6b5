//! Gemini CLI's hook (measured against Gemini CLI 0.61.0; the findings are in
//! docs/hosts.md):
//!
//! - `BeforeTool` on its own `ask_user` tool (settings matcher `^ask_user$`:
//!   the matcher is an unanchored regular expression, and plain `ask_user`
//!   would also match an MCP tool such as `mcp_ask_user_ask_user`). Its
//!   `tool_input` is `{questions: [{question, header, type: choice|text|yesno,
//!   options: [{label, description}], multiSelect, placeholder}]}`, 1 to 4
//!   questions; `choice` always offers "Other".
//! - A `BeforeTool` hook cannot hand the tool a result: it can only let the
//!   tool run (and then Gemini CLI's own dialog asks) or deny it with a
//!   reason, which the model reads as the call's error
//!   `Tool execution blocked: REASON`. So the answer goes back as a denial
//!   whose reason says it is the person's answer and ends with the answer in
//!   the tool's own result shape, `{"answers":{"0":"Postgres"}}` (keyed by
//!   the question's position; a multi select's labels joined with ", ", a
//!   yes/no as "Yes"/"No", as Gemini CLI's dialog does). Nobody answering is
//!   a denial that says so, with `{"answers":{}}`: never an option.

use serde_json::{Map, Value, json};

use super::{HookQuestion, Mapper, NoAnswer, Outcome, Unfit};
use crate::answer::{Answer, AnswerDocument};
use crate::input::{MAX_HEADER_CHARS, Object};
use crate::model::{Kind, Prompt};
use crate::text::fold_line;

pub static MAPPER: Mapper = Mapper { read, reply };

/// Gemini CLI's own ask tool.
pub const ASK_TOOL: &str = "ask_user";
/// The hook event that runs before a tool.
pub const EVENT: &str = "BeforeTool";

fn read(event: &Value) -> Result<HookQuestion, Unfit> {
    let name = text_field(event, "hook_event_name");
    if name != EVENT {
        return Err(Unfit(format!(
            "Gemini CLI's {name:?} event is not one ask_user answers: hook {EVENT} with the matcher ^{ASK_TOOL}$"
        )));
    }
    let tool = text_field(event, "tool_name");
    if tool != ASK_TOOL {
        return Err(Unfit(format!(
            "the tool {tool:?} is not Gemini CLI's {ASK_TOOL}: set the {EVENT} hook's matcher to ^{ASK_TOOL}$"
        )));
    }
    let questions = tool_questions(event, ASK_TOOL)?;
    let items = questions
        .iter()
        .enumerate()
        .map(|(index, item)| question(index, item))
        .collect::<Result<Vec<_>, _>>()?;
    let mut input = Map::new();
    input.insert("questions".into(), Value::Array(items));
    Ok(HookQuestion {
        input,
        event: event.clone(),
    })
}

/// A string field of the event, or "" when it has none.
pub(super) fn text_field<'a>(event: &'a Value, key: &str) -> &'a str {
    event.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `tool_input.questions` of the host's call of `tool`.
pub(super) fn tool_questions<'a>(event: &'a Value, tool: &str) -> Result<&'a [Value], Unfit> {
    match event.pointer("/tool_input/questions") {
        Some(Value::Array(questions)) => Ok(questions),
        _ => Err(Unfit(format!(
            "the {tool} call has no tool_input.questions array"
        ))),
    }
}

/// One of Gemini CLI's questions in ask_user's own terms (DESIGN §2); the
/// input code checks the rest (options, lengths) as for any question.
fn question(index: usize, item: &Value) -> Result<Value, Unfit> {
    let Some(item) = item.as_object() else {
        return Err(Unfit(format!(
            "question {} of the {ASK_TOOL} call is not an object",
            index + 1
        )));
    };
    let mut out = Object::new();
    out.insert(
        "question".into(),
        item.get("question").cloned().unwrap_or(Value::Null),
    );
    if let Some(header) = fitting_header(item.get("header")) {
        out.insert("header".into(), header);
    }
    match item.get("type").and_then(Value::as_str).unwrap_or("choice") {
        "choice" => {
            out.insert("type".into(), json!("choice"));
            out.insert(
                "options".into(),
                item.get("options").cloned().unwrap_or(Value::Null),
            );
            if item.get("multiSelect") == Some(&Value::Bool(true)) {
                out.insert("multiSelect".into(), json!(true));
            }
            // Gemini CLI's dialog always offers "Other" for a choice.
            out.insert("allow_other".into(), json!(true));
        }
        "text" => {
            out.insert("type".into(), json!("text"));
            if let Some(placeholder) = item.get("placeholder").filter(|p| p.is_string()) {
                out.insert("placeholder".into(), placeholder.clone());
            }
        }
        "yesno" => {
            out.insert("type".into(), json!("confirm"));
        }
        other => {
            return Err(Unfit(format!(
                "question {} of the {ASK_TOOL} call has the type {other:?}; Gemini CLI's are choice, text and yesno",
                index + 1
            )));
        }
    }
    Ok(Value::Object(out))
}

/// The host's header when it fits ask_user's (at most 12 characters). A
/// longer one (Gemini CLI 0.61.0 sets no limit; Codex's are free text) is
/// left out: it is a short tag beside the question, whose own text still
/// says everything, and leaving it out beats sending the question back to
/// the host's terminal while the person is away.
pub(super) fn fitting_header(header: Option<&Value>) -> Option<Value> {
    match header? {
        Value::String(text) if fold_line(text).chars().count() > MAX_HEADER_CHARS => None,
        // Anything else as it is: the input code reads a blank header as none.
        other => Some(other.clone()),
    }
}

/// The position of `answer`'s question in `prompt` (the host's own order).
pub(super) fn position(prompt: &Prompt, answer: &Answer) -> Option<usize> {
    prompt
        .questions
        .iter()
        .position(|question| question.id == answer.question_id)
}

/// What the reason says before the answer: the host calls it a block, so
/// the reason says first that it is the person's answer.
pub(super) const ANSWERED: &str =
    "The person answered in the ask_user inbox (this is their answer, not a refusal)";

/// What the reason says when nobody answered: never an option.
pub(super) fn unanswered(how: NoAnswer) -> &'static str {
    match how {
        NoAnswer::TimedOut => {
            "Nobody answered: the question timed out in the ask_user inbox, and no option was chosen"
        }
        NoAnswer::Cancelled => {
            "Nobody answered: the question was cancelled in the ask_user inbox, and no option was chosen"
        }
        NoAnswer::Declined => {
            "Nobody answered: the person declined the question in the ask_user inbox"
        }
    }
}

/// One line for the person's terminal (Gemini CLI shows `systemMessage`).
pub(super) fn terminal_line(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Answered(..) => "ask_user: answered in the inbox",
        Outcome::NoAnswer(NoAnswer::TimedOut) => "ask_user: nobody answered in the inbox in time",
        Outcome::NoAnswer(_) => "ask_user: not answered in the inbox",
    }
}

fn reply(_question: &HookQuestion, outcome: &Outcome) -> Option<Value> {
    let reason = match outcome {
        Outcome::Answered(document, prompt) => {
            format!(
                "{ANSWERED}: {}",
                json!({"answers": answers(document, prompt)})
            )
        }
        Outcome::NoAnswer(how) => format!("{}: {}", unanswered(*how), json!({"answers": {}})),
    };
    Some(json!({
        "decision": "deny",
        "reason": reason,
        "systemMessage": terminal_line(outcome),
    }))
}

/// The answers as Gemini CLI's dialog gives them: by position, one string
/// each; a question left empty is left out.
fn answers(document: &AnswerDocument, prompt: &Prompt) -> Map<String, Value> {
    let mut answers = Map::new();
    for answer in &document.answers {
        let Some(index) = position(prompt, answer) else {
            continue;
        };
        if answer.values.is_empty() {
            continue;
        }
        let mut text = match prompt.questions[index].kind {
            Kind::Confirm if answer.values[0] == "yes" => String::from("Yes"),
            Kind::Confirm => String::from("No"),
            _ => answer.values.join(", "),
        };
        if let Some(note) = &answer.note {
            text.push_str(&format!(" (note: {note})"));
        }
        answers.insert(index.to_string(), json!(text));
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Answer, AnswerDocument};

    /// Gemini CLI 0.61.0's BeforeTool stdin for an ask_user call (measured;
    /// session fields shortened).
    fn event(questions: Value) -> Value {
        json!({"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/work/project",
               "hook_event_name": "BeforeTool", "timestamp": "2026-11-28T04:09:49.796Z",
               "tool_name": "ask_user", "tool_input": {"questions": questions}})
    }

    fn database() -> Value {
        json!([{"header": "Database", "question": "Which database should we use?",
                "type": "choice", "options": [{"label": "SQLite", "description": "file"},
                                              {"label": "Postgres", "description": "server"}]}])
    }

    fn read_prompt(event: &Value) -> (HookQuestion, Prompt) {
        let question = read(event).unwrap();
        let prompt = crate::input::parse_object(&question.input).unwrap();
        (question, prompt)
    }

    fn answered(values: &[&str], question_id: &str) -> Answer {
        Answer {
            question_id: question_id.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
            option_ids: None,
            custom_text: None,
            note: None,
        }
    }

    #[test]
    fn a_choice_is_a_single_select_with_other_and_its_header() {
        let (question, prompt) = read_prompt(&event(database()));
        assert_eq!(
            question.input,
            json!({"questions": [{"question": "Which database should we use?",
                   "header": "Database", "type": "choice", "allow_other": true,
                   "options": [{"label": "SQLite", "description": "file"},
                               {"label": "Postgres", "description": "server"}]}]})
            .as_object()
            .unwrap()
            .clone()
        );
        let asked = &prompt.questions[0];
        assert_eq!(asked.kind, Kind::SingleSelect);
        assert!(asked.allow_other);
        assert_eq!(asked.header.as_deref(), Some("Database"));
        assert_eq!(asked.options[1].label, "Postgres");
        assert_eq!(asked.options[1].description.as_deref(), Some("server"));
    }

    #[test]
    fn multi_select_text_and_yesno_map_to_their_kinds() {
        let (_, prompt) = read_prompt(&event(json!([
            {"header": "Features", "question": "Which features?", "type": "choice",
             "multiSelect": true, "options": [{"label": "Auth", "description": ""},
                                              {"label": "Search", "description": ""}]},
            {"header": "Name", "question": "The project's name?", "type": "text",
             "placeholder": "my-app"},
            {"header": "Deploy", "question": "Deploy now?", "type": "yesno"},
            {"header": "Plain", "question": "No type means choice", "options": ["A", "B"]}
        ])));
        let kinds: Vec<Kind> = prompt.questions.iter().map(|q| q.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::MultiSelect,
                Kind::Text,
                Kind::Confirm,
                Kind::SingleSelect
            ]
        );
        assert_eq!(prompt.questions[1].placeholder.as_deref(), Some("my-app"));
        assert!(!prompt.questions[1].allow_other);
        assert!(!prompt.questions[2].allow_other);
    }

    #[test]
    fn a_header_longer_than_twelve_characters_is_left_out() {
        let (_, prompt) = read_prompt(&event(json!([
            {"header": "Project Setup", "question": "Which one?", "type": "choice",
             "options": ["A", "B"]},
            {"header": "Project Name", "question": "Its name?", "type": "text"},
            {"header": "  ", "question": "Blank?", "type": "text"}
        ])));
        assert_eq!(prompt.questions[0].header, None);
        assert_eq!(prompt.questions[1].header.as_deref(), Some("Project Name"));
        assert_eq!(prompt.questions[2].header, None);
    }

    #[test]
    fn another_event_another_tool_or_no_questions_is_unfit_with_the_setting_to_fix() {
        let mut other_event = event(database());
        other_event["hook_event_name"] = json!("AfterTool");
        let Err(Unfit(line)) = read(&other_event) else {
            panic!()
        };
        assert!(line.contains("\"AfterTool\" event"), "{line}");
        assert!(line.contains("BeforeTool"), "{line}");

        let mut our_own = event(database());
        our_own["tool_name"] = json!("mcp_ask_user_ask_user");
        let Err(Unfit(line)) = read(&our_own) else {
            panic!()
        };
        assert!(line.contains("\"mcp_ask_user_ask_user\""), "{line}");
        assert!(line.contains("^ask_user$"), "{line}");

        let Err(Unfit(line)) = read(&json!({"hook_event_name": "BeforeTool",
                                            "tool_name": "ask_user", "tool_input": {}}))
        else {
            panic!()
        };
        assert_eq!(line, "the ask_user call has no tool_input.questions array");

        let Err(Unfit(line)) = read(&event(json!(["not an object"]))) else {
            panic!()
        };
        assert_eq!(line, "question 1 of the ask_user call is not an object");

        let Err(Unfit(line)) = read(&event(json!([{"question": "Q?", "type": "date"}]))) else {
            panic!()
        };
        assert!(line.contains("the type \"date\""), "{line}");
    }

    #[test]
    fn a_choice_without_options_reaches_the_input_code_and_fails_there() {
        let question = read(&event(json!([{"header": "Db", "question": "Which?",
                                            "type": "choice", "options": []}])))
        .unwrap();
        let err = crate::input::parse_object(&question.input).unwrap_err();
        assert_eq!(err.code(), "INVALID_OPTIONS");
    }

    #[test]
    fn an_answer_is_a_denial_whose_reason_carries_the_dialogs_answers_by_position() {
        let (question, prompt) = read_prompt(&event(json!([
            {"header": "Database", "question": "Which database?", "type": "choice",
             "options": [{"label": "SQLite", "description": ""},
                         {"label": "Postgres", "description": ""}]},
            {"header": "Features", "question": "Which features?", "type": "choice",
             "multiSelect": true, "options": ["Auth", "Search", "Billing"]},
            {"header": "Deploy", "question": "Deploy now?", "type": "yesno"},
            {"header": "Name", "question": "Its name?", "type": "text"},
            {"header": "Tests", "question": "Run the tests?", "type": "yesno"}
        ])));
        let mut postgres = answered(&["Postgres"], "q1");
        postgres.note = Some("the managed one".into());
        let document = AnswerDocument::answered(vec![
            postgres,
            answered(&["Auth", "Search", "a custom one"], "q2"),
            answered(&["no"], "q3"),
            answered(&["my-app"], "q4"),
            answered(&["yes"], "q5"),
        ]);
        let output = reply(&question, &Outcome::Answered(&document, &prompt)).unwrap();
        let expected = json!({"answers": {"0": "Postgres (note: the managed one)",
                                          "1": "Auth, Search, a custom one",
                                          "2": "No", "3": "my-app", "4": "Yes"}});
        assert_eq!(
            output,
            json!({"decision": "deny",
                   "reason": format!("{ANSWERED}: {expected}"),
                   "systemMessage": "ask_user: answered in the inbox"})
        );
    }

    #[test]
    fn a_question_left_empty_is_left_out() {
        let (question, prompt) = read_prompt(&event(database()));
        let document = AnswerDocument::answered(vec![answered(&[], "q1")]);
        let output = reply(&question, &Outcome::Answered(&document, &prompt)).unwrap();
        assert_eq!(
            output["reason"],
            format!("{ANSWERED}: {{\"answers\":{{}}}}")
        );
    }

    #[test]
    fn nobody_answering_is_a_denial_that_says_so_and_never_an_option() {
        let (question, _) = read_prompt(&event(database()));
        let cases = [
            (
                NoAnswer::TimedOut,
                "Nobody answered: the question timed out in the ask_user inbox, and no option was chosen: {\"answers\":{}}",
                "ask_user: nobody answered in the inbox in time",
            ),
            (
                NoAnswer::Cancelled,
                "Nobody answered: the question was cancelled in the ask_user inbox, and no option was chosen: {\"answers\":{}}",
                "ask_user: not answered in the inbox",
            ),
            (
                NoAnswer::Declined,
                "Nobody answered: the person declined the question in the ask_user inbox: {\"answers\":{}}",
                "ask_user: not answered in the inbox",
            ),
        ];
        for (how, reason, line) in cases {
            let output = reply(&question, &Outcome::NoAnswer(how)).unwrap();
            assert_eq!(
                output,
                json!({"decision": "deny", "reason": reason, "systemMessage": line})
            );
            assert!(!output.to_string().contains("SQLite"));
            assert!(!output.to_string().contains("Postgres"));
        }
    }
}
