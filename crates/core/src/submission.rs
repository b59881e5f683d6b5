//! What the page posts, and how it becomes an answer document: structured
//! choices mapped onto [`answer::Choice`], validated against the question the
//! same way every face is (an answer that does not fit is INVALID_REPLY).

use serde::{Deserialize, Serialize};

use crate::answer::{self, AnswerDocument, Choice};
use crate::error::{AskError, Detail};
use crate::model::{Kind, Prompt, Question};

/// `{"answers":[…]}`, one entry per question in order. (Serialize: the same
/// body, for a client that posts it on the person's behalf.)
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    pub answers: Vec<PostedAnswer>,
}

/// One question's answer as the page sends it; which fields count depends on the kind:
/// `optionIds` and `other` for selects, `text` for text, `confirm` for confirm.
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PostedAnswer {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub option_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<bool>,
    /// The person's note on this answer (any kind; empty is none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The answer document for a submission, or the INVALID_REPLY of the first
/// question it does not answer.
pub fn resolve(prompt: &Prompt, submission: Submission) -> Result<AnswerDocument, AskError> {
    let total = prompt.questions.len();
    if submission.answers.len() != total {
        return Err(AskError::InvalidReply(Detail::new(format!(
            "the page sent {} answers for {total} questions; reload the page and answer again",
            submission.answers.len()
        ))));
    }
    let answers = prompt
        .questions
        .iter()
        .zip(submission.answers)
        .enumerate()
        .map(|(index, (question, mut posted))| {
            let note = posted.note.take();
            choice(question, posted)
                .map(|choice| choice.into_answer(question))
                .ok_or_else(|| answer::invalid_reply(question, index, total))?
                .noted(note.as_deref(), index, total)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(AnswerDocument::answered(answers))
}

/// The choice a posted answer makes, or `None` when it does not answer `question`.
fn choice(question: &Question, posted: PostedAnswer) -> Option<Choice> {
    let skipped = || (!question.required).then_some(Choice::Skipped);
    match question.kind {
        Kind::SingleSelect | Kind::MultiSelect => {
            if posted.text.is_some() || posted.confirm.is_some() {
                return None;
            }
            let indices = posted
                .option_ids
                .iter()
                .map(|id| question.options.iter().position(|c| &c.id == id))
                .collect::<Option<Vec<_>>>()?;
            let other = posted
                .other
                .map(|text| text.trim().to_string())
                .filter(|text| !text.is_empty());
            if other.is_some() && !question.allow_other {
                return None;
            }
            let picked = indices.len() + usize::from(other.is_some());
            match picked {
                0 => skipped(),
                1 => Some(Choice::Options { indices, other }),
                _ if question.kind == Kind::MultiSelect => Some(Choice::Options { indices, other }),
                _ => None,
            }
        }
        Kind::Text => {
            if !posted.option_ids.is_empty() || posted.other.is_some() || posted.confirm.is_some() {
                return None;
            }
            // The shared reply parser: trimming and the required rule as in every face.
            answer::parse_reply(question, posted.text.as_deref().unwrap_or_default())
        }
        Kind::Confirm => {
            if !posted.option_ids.is_empty() || posted.other.is_some() || posted.text.is_some() {
                return None;
            }
            posted.confirm.map(Choice::Confirm).or_else(skipped)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(input: &str) -> Prompt {
        crate::input::parse(input.as_bytes()).unwrap()
    }

    fn submit(prompt: &Prompt, body: &str) -> Result<AnswerDocument, AskError> {
        resolve(prompt, serde_json::from_str(body).unwrap())
    }

    const FORM: &str = r#"{"questions":[
        {"question":"DB?","options":["PostgreSQL","SQLite"]},
        {"question":"Extras?","type":"multi-select","options":["Redis","Kafka"],"allow_other":true},
        {"question":"Name?"},
        {"question":"Ship?","type":"confirm","required":false}]}"#;

    #[test]
    fn maps_every_kind() {
        let p = prompt(FORM);
        let doc = submit(
            &p,
            r#"{"answers":[{"optionIds":["2"]},{"optionIds":["2","1"],"other":" NATS "},{"text":" ada "},{"confirm":true}]}"#,
        )
        .unwrap();
        let line = serde_json::to_string(&doc.answers).unwrap();
        assert_eq!(
            line,
            r#"[{"questionId":"q1","values":["SQLite"],"optionIds":["2"]},{"questionId":"q2","values":["Redis","Kafka","NATS"],"optionIds":["1","2"],"customText":"NATS"},{"questionId":"q3","values":["ada"]},{"questionId":"q4","values":["yes"]}]"#
        );
    }

    #[test]
    fn a_serialized_submission_reads_back_the_same() {
        let p = prompt(FORM);
        let body = r#"{"answers":[{"optionIds":["2"]},{"optionIds":["2","1"],"other":" NATS "},{"text":" ada ","note":"n"},{"confirm":true}]}"#;
        let posted: Submission = serde_json::from_str(body).unwrap();
        let again = serde_json::to_string(&posted).unwrap();
        assert_eq!(again, body);
        assert_eq!(submit(&p, &again).unwrap(), submit(&p, body).unwrap());
    }

    #[test]
    fn skips_only_what_is_not_required() {
        let p = prompt(FORM);
        let doc = submit(
            &p,
            r#"{"answers":[{"optionIds":["1"]},{"other":"x"},{"text":"a"},{}]}"#,
        )
        .unwrap();
        assert_eq!(doc.answers[3].values, Vec::<String>::new());
        let err = submit(&p, r#"{"answers":[{},{"other":"x"},{"text":"a"},{}]}"#).unwrap_err();
        assert_eq!(err.code(), "INVALID_REPLY");
        assert_eq!(err.path(), Some("questions[0]"));
        let err = submit(
            &p,
            r#"{"answers":[{"optionIds":["1"]},{"other":"x"},{"text":"  "},{}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.path(), Some("questions[2]"));
    }

    #[test]
    fn a_note_is_kept_beside_the_choice_and_refused_when_too_long() {
        let p = prompt(FORM);
        let doc = submit(
            &p,
            r#"{"answers":[{"optionIds":["1"],"note":" but keep SQLite for tests "},{"other":"x","note":""},{"text":"a"},{"note":"ask me later"}]}"#,
        )
        .unwrap();
        let line = serde_json::to_string(&doc.answers).unwrap();
        assert_eq!(
            line,
            r#"[{"questionId":"q1","values":["PostgreSQL"],"optionIds":["1"],"note":"but keep SQLite for tests"},{"questionId":"q2","values":["x"],"optionIds":[],"customText":"x"},{"questionId":"q3","values":["a"]},{"questionId":"q4","values":[],"note":"ask me later"}]"#
        );
        let long = "n".repeat(answer::MAX_NOTE_CHARS + 1);
        let body = format!(
            r#"{{"answers":[{{"optionIds":["1"]}},{{"other":"x"}},{{"text":"a","note":"{long}"}},{{}}]}}"#
        );
        let err = submit(&p, &body).unwrap_err();
        assert_eq!(err.code(), "INVALID_REPLY");
        assert_eq!(err.path(), Some("questions[2]"));
        assert_eq!(
            err.message(),
            "the note on question 3 of 4 is 1001 characters; a note is at most 1000"
        );
        // A note never stands in for an answer a question needs.
        let err = submit(
            &p,
            r#"{"answers":[{"note":"either"},{"other":"x"},{"text":"a"},{}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.path(), Some("questions[0]"));
    }

    #[test]
    fn rejects_what_does_not_fit() {
        let p = prompt(FORM);
        for (body, index) in [
            (
                r#"{"answers":[{"optionIds":["3"]},{"other":"x"},{"text":"a"},{}]}"#,
                0,
            ),
            (
                r#"{"answers":[{"optionIds":["1","2"]},{"other":"x"},{"text":"a"},{}]}"#,
                0,
            ),
            (
                r#"{"answers":[{"optionIds":["1"],"other":"no Other here"},{"other":"x"},{"text":"a"},{}]}"#,
                0,
            ),
            (
                r#"{"answers":[{"text":"1"},{"other":"x"},{"text":"a"},{}]}"#,
                0,
            ),
            (
                r#"{"answers":[{"optionIds":["1"]},{"other":"x"},{"confirm":true},{}]}"#,
                2,
            ),
        ] {
            let err = submit(&p, body).unwrap_err();
            assert_eq!(err.code(), "INVALID_REPLY", "{body}");
            assert_eq!(err.path(), Some(format!("questions[{index}]").as_str()));
        }
        let err = submit(&p, r#"{"answers":[{"optionIds":["1"]}]}"#).unwrap_err();
        assert_eq!(err.code(), "INVALID_REPLY");
        assert!(err.message().contains("1 answers for 4 questions"));
    }

    /// Each kind takes only its own fields: one more, of another kind, is refused
    /// even when the rest is a valid answer.
    #[test]
    fn a_field_of_another_kind_is_refused() {
        let p = prompt(FORM);
        let valid = [
            r#"{"optionIds":["1"]}"#,
            r#"{"other":"x"}"#,
            r#"{"text":"a"}"#,
            r#"{"confirm":true}"#,
        ];
        let foreign = [
            (0, r#"{"optionIds":["1"],"text":"x"}"#),
            (0, r#"{"optionIds":["1"],"confirm":true}"#),
            (2, r#"{"text":"a","optionIds":["1"]}"#),
            (2, r#"{"text":"a","other":"x"}"#),
            (2, r#"{"text":"a","confirm":true}"#),
            (3, r#"{"confirm":true,"optionIds":["1"]}"#),
            (3, r#"{"confirm":true,"other":"x"}"#),
            (3, r#"{"confirm":true,"text":"x"}"#),
        ];
        for (index, answer) in foreign {
            let mut answers = valid;
            answers[index] = answer;
            let body = format!(r#"{{"answers":[{}]}}"#, answers.join(","));
            let err = submit(&p, &body).unwrap_err();
            assert_eq!(
                err.path(),
                Some(format!("questions[{index}]").as_str()),
                "{body}"
            );
        }
        let all_valid = format!(r#"{{"answers":[{}]}}"#, valid.join(","));
        assert!(submit(&p, &all_valid).is_ok());
    }

    #[test]
    fn selects_that_are_not_required_may_be_left_empty() {
        let p = prompt(
            r#"{"questions":[
            {"question":"DB?","options":["PostgreSQL","SQLite"],"required":false},
            {"question":"Extras?","type":"multi-select","options":["Redis","Kafka"],"required":false}]}"#,
        );
        let doc = submit(&p, r#"{"answers":[{"other":"  "},{}]}"#).unwrap();
        let line = serde_json::to_string(&doc.answers).unwrap();
        assert_eq!(
            line,
            r#"[{"questionId":"q1","values":[],"optionIds":[]},{"questionId":"q2","values":[],"optionIds":[]}]"#
        );
    }
}
