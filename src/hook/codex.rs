//! Codex's hook (measured against Codex 0.169.0; the findings are in
//! docs/hosts.md):
//!
//! - `PreToolUse` on its own `request_user_input` tool (matcher
//!   `request_user_input`). Its `tool_input` is `{questions: [{id, header,
//!   question, options: [{label, description}], isOther, isSecret}]}`; a
//!   question without options is answered in free text.
//! - A `PreToolUse` hook cannot hand the tool a result: `updatedInput` only
//!   changes what the tool then asks in Codex's own UI. It can deny the call
//!   with `permissionDecisionReason`, which the model reads as the call's
//!   output `Tool call blocked by PreToolUse hook: REASON. Tool:
//!   request_user_input`. So the answer goes back as a denial whose reason
//!   says it is the person's answer and ends with the answer in the tool's
//!   own result shape, `{"answers":{"ID":{"answers":["Postgres"]}}}` (a note
//!   as one more entry `user_note: …`, as Codex's own UI adds it). Nobody
//!   answering is a denial that says so, with `{"answers":{}}`.
//! - A secret question (`isSecret`) stays in Codex's own UI, which hides
//!   what the person types; the inbox shows answers in the clear.

use serde_json::{Map, Value, json};

use super::gemini::{
    ANSWERED, fitting_header, position, terminal_line, text_field, tool_questions, unanswered,
};
use super::{HookQuestion, Mapper, Outcome, Unfit};
use crate::answer::AnswerDocument;
use crate::input::Object;
use crate::model::Prompt;

pub static MAPPER: Mapper = Mapper { read, reply };

/// Codex's own ask tool.
pub const ASK_TOOL: &str = "request_user_input";
/// The hook event that runs before a tool.
pub const EVENT: &str = "PreToolUse";

fn read(event: &Value) -> Result<HookQuestion, Unfit> {
    let name = text_field(event, "hook_event_name");
    if name != EVENT {
        return Err(Unfit(format!(
            "Codex's {name:?} event is not one ask_user answers: hook {EVENT} with the matcher {ASK_TOOL}"
        )));
    }
    let tool = text_field(event, "tool_name");
    if tool != ASK_TOOL {
        return Err(Unfit(format!(
            "the tool {tool:?} is not Codex's {ASK_TOOL}: set the {EVENT} hook's matcher to {ASK_TOOL}"
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

/// One of Codex's questions in ask_user's own terms (DESIGN §2): a single
/// select when it has options (with "Other" when `isOther`), else text.
fn question(index: usize, item: &Value) -> Result<Value, Unfit> {
    let Some(item) = item.as_object() else {
        return Err(Unfit(format!(
            "question {} of the {ASK_TOOL} call is not an object",
            index + 1
        )));
    };
    if item.get("isSecret") == Some(&Value::Bool(true)) {
        return Err(Unfit(format!(
            "question {} of the {ASK_TOOL} call is secret (isSecret): Codex's own UI asks it, hiding what the person types",
            index + 1
        )));
    }
    let mut out = Object::new();
    for key in ["id", "question"] {
        if let Some(value) = item.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    if let Some(header) = fitting_header(item.get("header")) {
        out.insert("header".into(), header);
    }
    let has_options = item
        .get("options")
        .and_then(Value::as_array)
        .is_some_and(|options| !options.is_empty());
    if has_options {
        out.insert("type".into(), json!("choice"));
        out.insert("options".into(), item["options"].clone());
        let other = item.get("isOther") == Some(&Value::Bool(true));
        out.insert("allow_other".into(), json!(other));
    } else {
        out.insert("type".into(), json!("text"));
    }
    Ok(Value::Object(out))
}

fn reply(question: &HookQuestion, outcome: &Outcome) -> Option<Value> {
    let reason = match outcome {
        Outcome::Answered(document, prompt) => {
            let answers = answers(question, document, prompt);
            format!("{ANSWERED}: {}", json!({"answers": answers}))
        }
        Outcome::NoAnswer(how) => format!("{}: {}", unanswered(*how), json!({"answers": {}})),
    };
    Some(json!({
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        },
        "systemMessage": terminal_line(outcome),
    }))
}

/// The answers as Codex's own UI gives them: by the host's question id,
/// each a list of strings; a question left empty is left out.
fn answers(
    question: &HookQuestion,
    document: &AnswerDocument,
    prompt: &Prompt,
) -> Map<String, Value> {
    let host_questions = tool_questions(&question.event, ASK_TOOL).unwrap_or_default();
    let mut answers = Map::new();
    for answer in &document.answers {
        let Some(index) = position(prompt, answer) else {
            continue;
        };
        if answer.values.is_empty() {
            continue;
        }
        // The host's own id; ask_user's (the same, or q1, q2, … when none).
        let id = host_questions
            .get(index)
            .and_then(|q| q.get("id"))
            .and_then(Value::as_str)
            .unwrap_or(&answer.question_id);
        let mut values = answer.values.clone();
        if let Some(note) = &answer.note {
            values.push(format!("user_note: {note}"));
        }
        answers.insert(id.to_string(), json!({"answers": values}));
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;
    use crate::hook::NoAnswer;
    use crate::model::Kind;

    /// Codex 0.169.0's PreToolUse stdin for a request_user_input call
    /// (measured; session fields shortened).
    fn event(questions: Value) -> Value {
        json!({"session_id": "s", "turn_id": "t", "transcript_path": "/r.jsonl",
               "cwd": "/work/project", "hook_event_name": "PreToolUse", "model": "gpt",
               "permission_mode": "default", "tool_name": "request_user_input",
               "tool_input": {"questions": questions}, "tool_use_id": "call_1"})
    }

    fn database() -> Value {
        json!([{"id": "db", "header": "Database", "question": "Which database should we use?",
                "options": [{"label": "SQLite", "description": "file"},
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
    fn options_are_a_single_select_keeping_the_id_and_other_only_when_offered() {
        let (question, prompt) = read_prompt(&event(database()));
        assert_eq!(
            Value::Object(question.input),
            json!({"questions": [{"id": "db", "question": "Which database should we use?",
                   "header": "Database", "type": "choice", "allow_other": false,
                   "options": [{"label": "SQLite", "description": "file"},
                               {"label": "Postgres", "description": "server"}]}]})
        );
        let asked = &prompt.questions[0];
        assert_eq!((asked.id.as_str(), asked.kind), ("db", Kind::SingleSelect));
        assert!(!asked.allow_other);

        let mut other = database();
        other[0]["isOther"] = json!(true);
        let (_, prompt) = read_prompt(&event(other));
        assert!(prompt.questions[0].allow_other);
    }

    #[test]
    fn a_question_without_options_is_text() {
        for options in [json!(null), json!([])] {
            let (_, prompt) = read_prompt(&event(json!([
                {"id": "name", "header": "Name", "question": "The project's name?",
                 "options": options}
            ])));
            assert_eq!(prompt.questions[0].kind, Kind::Text);
        }
        let (_, prompt) = read_prompt(&event(json!([{"id": "n", "question": "Name?"}])));
        assert_eq!(prompt.questions[0].kind, Kind::Text);
    }

    #[test]
    fn a_secret_question_stays_in_codexs_own_ui() {
        let mut secret = database();
        secret[0]["isSecret"] = json!(true);
        let Err(Unfit(line)) = read(&event(secret)) else {
            panic!()
        };
        assert_eq!(
            line,
            "question 1 of the request_user_input call is secret (isSecret): Codex's own UI asks it, hiding what the person types"
        );
    }

    #[test]
    fn another_event_or_tool_or_no_questions_is_unfit_with_the_setting_to_fix() {
        let mut other_event = event(database());
        other_event["hook_event_name"] = json!("PostToolUse");
        let Err(Unfit(line)) = read(&other_event) else {
            panic!()
        };
        assert_eq!(
            line,
            "Codex's \"PostToolUse\" event is not one ask_user answers: hook PreToolUse with the matcher request_user_input"
        );
        let mut shell = event(database());
        shell["tool_name"] = json!("exec_command");
        let Err(Unfit(line)) = read(&shell) else {
            panic!()
        };
        assert_eq!(
            line,
            "the tool \"exec_command\" is not Codex's request_user_input: set the PreToolUse hook's matcher to request_user_input"
        );
        let Err(Unfit(line)) = read(&json!({"hook_event_name": "PreToolUse",
                                            "tool_name": "request_user_input"}))
        else {
            panic!()
        };
        assert_eq!(
            line,
            "the request_user_input call has no tool_input.questions array"
        );
        let Err(Unfit(line)) = read(&event(json!([7]))) else {
            panic!()
        };
        assert_eq!(
            line,
            "question 1 of the request_user_input call is not an object"
        );
    }

    #[test]
    fn an_answer_is_a_denial_whose_reason_carries_codexs_answers_by_id() {
        let (question, prompt) = read_prompt(&event(json!([
            {"id": "db", "header": "Database", "question": "Which database?", "isOther": true,
             "options": [{"label": "SQLite", "description": ""},
                         {"label": "Postgres", "description": ""}]},
            {"id": "name", "header": "Name", "question": "Its name?"},
            {"id": "skip", "question": "Anything else?"}
        ])));
        let mut postgres = answered(&["Postgres"], "db");
        postgres.note = Some("the managed one".into());
        let document = AnswerDocument::answered(vec![
            postgres,
            answered(&["my-app"], "name"),
            answered(&[], "skip"),
        ]);
        let output = reply(&question, &Outcome::Answered(&document, &prompt)).unwrap();
        let expected = json!({"answers": {
            "db": {"answers": ["Postgres", "user_note: the managed one"]},
            "name": {"answers": ["my-app"]}}});
        assert_eq!(
            output,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                          "permissionDecision": "deny",
                                          "permissionDecisionReason": format!("{ANSWERED}: {expected}")},
                   "systemMessage": "ask_user: answered in the inbox"})
        );
    }

    #[test]
    fn nobody_answering_is_a_denial_that_says_so_and_never_an_option() {
        let (question, _) = read_prompt(&event(database()));
        for how in [NoAnswer::TimedOut, NoAnswer::Cancelled, NoAnswer::Declined] {
            let output = reply(&question, &Outcome::NoAnswer(how)).unwrap();
            let reason = output["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap();
            assert_eq!(reason, format!("{}: {{\"answers\":{{}}}}", unanswered(how)));
            assert!(reason.starts_with("Nobody answered"), "{reason}");
            assert_eq!(output["hookSpecificOutput"]["permissionDecision"], "deny");
            assert!(!output.to_string().contains("Postgres"));
        }
    }
}
