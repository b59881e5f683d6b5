use serde_json::{Value, json};

use super::*;
use crate::answer::{Answer, AnswerDocument, Unanswered};

fn ask_event(input: Value) -> Value {
    json!({"session_id": "s", "cwd": "/tmp/p", "hook_event_name": "PreToolUse",
           "tool_name": "AskUserQuestion", "tool_input": input, "tool_use_id": "toolu_1"})
}

fn two_questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "SQLite", "description": "one file"},
                     {"label": "Postgres", "description": "a server"}]},
        {"question": "Which extras?", "header": "Extras", "multiSelect": true,
         "options": [{"label": "Redis", "description": "r"}, {"label": "Kafka", "description": "k"},
                     {"label": "S3", "description": "s"}]}]})
}

fn answer(id: &str, values: &[&str], ids: &[&str]) -> Answer {
    Answer {
        question_id: id.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
        option_ids: Some(ids.iter().map(|v| v.to_string()).collect()),
        custom_text: None,
        note: None,
    }
}

fn asked(event: &Value) -> (HookQuestion, Prompt) {
    let question = read(event).unwrap();
    let prompt = crate::input::parse_object(&question.input).unwrap();
    (question, prompt)
}

#[test]
fn the_ask_tool_input_is_asked_as_it_is() {
    let (question, prompt) = asked(&ask_event(two_questions()));
    assert_eq!(Value::Object(question.input), two_questions());
    assert_eq!(prompt.questions.len(), 2);
    assert_eq!(prompt.questions[1].kind, Kind::MultiSelect);
    assert!(
        prompt.questions[0].allow_other,
        "Claude Code always offers Other"
    );
}

#[test]
fn answers_go_back_keyed_by_question_text_with_lists_for_multi_selects_and_notes_as_annotations() {
    let event = ask_event(two_questions());
    let (question, prompt) = asked(&event);
    let mut first = answer("q1", &["use DuckDB"], &[]);
    first.custom_text = Some("use DuckDB".into());
    first.note = Some("keep SQLite for tests".into());
    let document =
        AnswerDocument::answered(vec![first, answer("q2", &["Redis", "S3"], &["1", "3"])]);
    let output = reply(&question, &Outcome::Answered(&document, &prompt)).unwrap();
    let mut updated = two_questions();
    updated["answers"] = json!({"Which database?": "use DuckDB", "Which extras?": ["Redis", "S3"]});
    updated["annotations"] = json!({"Which database?": {"notes": "keep SQLite for tests"}});
    assert_eq!(
        output,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "allow", "updatedInput": updated}})
    );
}

#[test]
fn no_answer_to_the_ask_tool_is_empty_answers_never_an_option() {
    let (question, _) = asked(&ask_event(two_questions()));
    for how in [NoAnswer::TimedOut, NoAnswer::Cancelled, NoAnswer::Declined] {
        let output = reply(&question, &Outcome::NoAnswer(how)).unwrap();
        let mut updated = two_questions();
        updated["answers"] = json!({});
        assert_eq!(output["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(output["hookSpecificOutput"]["updatedInput"], updated);
    }
}

#[test]
fn other_tools_events_and_broken_inputs_are_unfit() {
    let mut other = ask_event(two_questions());
    other["tool_name"] = json!("Bash");
    assert!(
        read(&other)
            .unwrap_err()
            .0
            .contains("\"Bash\" is not one ask_user answers")
    );
    let stop = json!({"hook_event_name": "Stop"});
    assert!(
        read(&stop)
            .unwrap_err()
            .0
            .contains("\"Stop\" event is not one")
    );
    assert!(
        read(&json!({}))
            .unwrap_err()
            .0
            .contains("no hook_event_name")
    );
    let mut no_input = ask_event(json!(null));
    no_input.as_object_mut().unwrap().remove("tool_input");
    assert!(read(&no_input).unwrap_err().0.contains("no tool_input"));
}

fn form(schema: Value) -> Value {
    json!({"hook_event_name": "Elicitation", "mcp_server_name": "other", "mode": "form",
           "message": "Set up the project", "requested_schema": schema})
}

fn every_field() -> Value {
    json!({"type": "object", "properties": {
        "db": {"type": "string", "title": "Database", "oneOf": [
            {"const": "sqlite", "title": "SQLite"}, {"const": "pg", "title": "Postgres"}]},
        "region": {"type": "string", "enum": ["eu", "us"], "enumNames": ["Europe", "America"]},
        "extras": {"type": "array", "title": "Extras", "items": {"enum": ["redis", "s3"]}},
        "tests": {"type": "boolean", "title": "Run the tests?"},
        "name": {"type": "string", "title": "Name", "description": "the project's name"},
        "workers": {"type": "integer", "title": "Workers"}},
        "required": ["db", "name"]})
}

#[test]
fn a_forms_flat_properties_become_questions() {
    let (question, prompt) = asked(&form(every_field()));
    let kinds: Vec<(&str, Kind, bool)> = prompt
        .questions
        .iter()
        .map(|q| (q.id.as_str(), q.kind, q.required))
        .collect();
    assert_eq!(
        kinds,
        [
            ("db", Kind::SingleSelect, true),
            ("region", Kind::SingleSelect, false),
            ("extras", Kind::MultiSelect, false),
            ("tests", Kind::Confirm, false),
            ("name", Kind::Text, true),
            ("workers", Kind::Text, false),
        ]
    );
    let labels: Vec<&str> = prompt.questions[1]
        .options
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(labels, ["Europe", "America"]);
    assert_eq!(question.input["context"], "Set up the project");
    assert_eq!(
        prompt.questions[4].context.as_deref(),
        Some("the project's name")
    );
}

#[test]
fn a_forms_answer_goes_back_in_each_propertys_type() {
    let (question, prompt) = asked(&form(every_field()));
    let document = AnswerDocument::answered(vec![
        answer("db", &["Postgres"], &["2"]),
        answer("region", &[], &[]),
        answer("extras", &["redis", "s3"], &["1", "2"]),
        Answer {
            option_ids: None,
            ..answer("tests", &["no"], &[])
        },
        Answer {
            option_ids: None,
            ..answer("name", &["demo"], &[])
        },
        Answer {
            option_ids: None,
            ..answer("workers", &["4"], &[])
        },
    ]);
    let output = reply(&question, &Outcome::Answered(&document, &prompt)).unwrap();
    assert_eq!(
        output,
        json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
               "content": {"db": "pg", "extras": ["redis", "s3"], "tests": false,
                           "name": "demo", "workers": 4}}})
    );
}

#[test]
fn no_answer_to_a_form_is_cancel_and_a_decline_decline() {
    let (question, _) = asked(&form(every_field()));
    let action =
        |how| reply(&question, &Outcome::NoAnswer(how)).unwrap()["hookSpecificOutput"].clone();
    assert_eq!(
        action(NoAnswer::TimedOut),
        json!({"hookEventName": "Elicitation", "action": "cancel"})
    );
    assert_eq!(
        action(NoAnswer::Cancelled),
        json!({"hookEventName": "Elicitation", "action": "cancel"})
    );
    assert_eq!(
        action(NoAnswer::Declined),
        json!({"hookEventName": "Elicitation", "action": "decline"})
    );
    let _ = AnswerDocument::unanswered(Unanswered::Cancelled);
}

#[test]
fn unsupported_forms_are_unfit() {
    let nested = json!({"type": "object", "properties": {"where": {"type": "object"}}});
    assert!(
        read(&form(nested))
            .unwrap_err()
            .0
            .contains("field \"where\" is not one")
    );
    let empty = json!({"type": "object", "properties": {}});
    assert!(read(&form(empty)).unwrap_err().0.contains("no properties"));
    let mut url = form(every_field());
    url["mode"] = json!("url");
    assert!(read(&url).unwrap_err().0.contains("\"url\" mode"));
}
