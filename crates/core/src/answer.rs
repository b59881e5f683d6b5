//! Replies and the answer document (DESIGN §7).
//!
//! Every face that gets a person's answer (scripted `--reply`, `answer`, the
//! terminal, MCP, the web page) turns it into an [`AnswerDocument`] here.
//! Nothing here ever invents an answer: cancel and timeout carry no answers.

use serde::{Deserialize, Serialize};

use crate::error::{AskError, Detail};
use crate::model::find_choice;
use crate::model::{Kind, Prompt, Question};
use crate::prompt::answer_instructions;
use crate::text::{fold_line, parse_yes_no, yes_no};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerDocument {
    pub tool: String,
    pub version: u32,
    pub status: String,
    pub answered: bool,
    pub cancelled: bool,
    #[serde(rename = "timedOut")]
    pub timed_out: bool,
    /// The call's wait (`mcp --wait`) ended before the person answered, and
    /// the question can still be answered: collect it with `{"resume": id}`
    /// (`inboxId`, `hint`). Never an answer; omitted when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Why a form was cancelled, when the host told us (MCP: "declined").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The question's id in the inbox, when it was asked through the inbox.
    #[serde(rename = "inboxId", default, skip_serializing_if = "Option::is_none")]
    pub inbox_id: Option<String>,
    /// For a question the inbox keeps after its asker gave up: one sentence
    /// telling the model how to collect the answer later (`{"resume": id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub answers: Vec<Answer>,
    /// Who answered: one [`Answerer`], or, for a question that needed
    /// approvals, every vote. Present on every answered document, never on
    /// a cancel, a decline, a timeout or a pending one.
    #[serde(
        rename = "answeredBy",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub answered_by: Option<AnsweredBy>,
}

/// `answeredBy`: who gave the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum AnsweredBy {
    One(Answerer),
    /// A question that needed approvals (`approvals`): each vote, in the
    /// order they were cast.
    Votes(Vec<Vote>),
}

/// By the JSON's shape, an object or a list, so that a bad key or value is
/// named (serde's untagged enums only say that no variant matched).
impl<'de> Deserialize<'de> for AnsweredBy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};

        struct Shape;
        impl<'de> serde::de::Visitor<'de> for Shape {
            type Value = AnsweredBy;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object {kind, name, channel} or a list of votes")
            }

            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                map: M,
            ) -> Result<AnsweredBy, M::Error> {
                Answerer::deserialize(MapAccessDeserializer::new(map)).map(AnsweredBy::One)
            }

            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                seq: S,
            ) -> Result<AnsweredBy, S::Error> {
                Vec::<Vote>::deserialize(SeqAccessDeserializer::new(seq)).map(AnsweredBy::Votes)
            }
        }
        deserializer.deserialize_any(Shape)
    }
}

/// A person, a standing rule or a one-question link that answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answerer {
    pub kind: AnswererKind,
    /// The token's or device's name, the rule's id, or on the local faces
    /// the operating system's user.
    pub name: String,
    /// Where the answer was given.
    pub channel: Channel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswererKind {
    Person,
    Rule,
    Link,
}

/// Where an answer was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The terminal UI or the plain terminal prompt.
    Terminal,
    /// A local web page (`--web`, MCP's URL mode) or the inbox page.
    Page,
    /// `--reply` on the command line, or `ask_user inbox answer`.
    Cli,
    /// An MCP host's form (elicitation).
    Form,
    /// An MCP App's view in the host.
    App,
    /// The inbox on its own (a standing rule).
    Inbox,
    /// A one-question link (`/l/…`), from a notification or a phone.
    Link,
    Matrix,
    Ntfy,
}

impl Answerer {
    /// A person, by `name` (a token's or device's; on a local face the
    /// operating system's user), who answered on `channel`.
    pub fn person(name: impl Into<String>, channel: Channel) -> Self {
        Answerer {
            kind: AnswererKind::Person,
            name: name.into(),
            channel,
        }
    }
}

/// One vote on a question that needed approvals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vote {
    pub kind: AnswererKind,
    pub name: String,
    pub channel: Channel,
    /// When it was cast (RFC 3339, UTC).
    #[serde(rename = "votedAt")]
    pub voted_at: String,
    /// Whether this vote was the veto that ended the question.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub veto: bool,
    /// What this person answered.
    pub answers: Vec<Answer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    #[serde(rename = "questionId")]
    pub question_id: String,
    pub values: Vec<String>,
    /// Chosen option ids; select kinds only.
    #[serde(rename = "optionIds", default, skip_serializing_if = "Option::is_none")]
    pub option_ids: Option<Vec<String>>,
    #[serde(
        rename = "customText",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub custom_text: Option<String>,
    /// A remark the person added to their choice; kept beside it, never instead of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The longest note, in characters (as long as a question may be).
pub const MAX_NOTE_CHARS: usize = 1000;

impl Answer {
    /// This answer with the person's note for question `index` of `total`
    /// beside it: trimmed, and none when empty. A note longer than
    /// [`MAX_NOTE_CHARS`] is INVALID_REPLY at `questions[index]`.
    pub fn noted(
        mut self,
        note: Option<&str>,
        index: usize,
        total: usize,
    ) -> Result<Self, AskError> {
        self.note = checked_note(note, index, total)?;
        Ok(self)
    }
}

/// A note as kept: trimmed, none when empty, INVALID_REPLY when too long.
pub fn checked_note(
    note: Option<&str>,
    index: usize,
    total: usize,
) -> Result<Option<String>, AskError> {
    let Some(note) = note.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    let length = note.chars().count();
    if length > MAX_NOTE_CHARS {
        return Err(AskError::InvalidReply(Detail::at(
            format!(
                "the note on {} is {length} characters; a note is at most {MAX_NOTE_CHARS}",
                which_question(index, total)
            ),
            format!("questions[{index}]"),
        )));
    }
    Ok(Some(note.to_string()))
}

fn which_question(index: usize, total: usize) -> String {
    if total == 1 {
        String::from("the question")
    } else {
        format!("question {} of {total}", index + 1)
    }
}

/// How a form ended without answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    Cancelled,
    Declined,
    TimedOut,
    /// Not answered yet, still answerable: the call's wait ended first.
    Pending,
}

impl AnswerDocument {
    pub fn answered(answers: Vec<Answer>) -> Self {
        Self::envelope(true, false, false, None, answers)
    }

    pub fn unanswered(how: Unanswered) -> Self {
        match how {
            Unanswered::Cancelled => Self::envelope(false, true, false, None, Vec::new()),
            Unanswered::Declined => {
                Self::envelope(false, true, false, Some("declined".into()), Vec::new())
            }
            Unanswered::TimedOut => Self::envelope(false, false, true, None, Vec::new()),
            Unanswered::Pending => AnswerDocument {
                pending: true,
                ..Self::envelope(false, false, false, None, Vec::new())
            },
        }
    }

    fn envelope(
        answered: bool,
        cancelled: bool,
        timed_out: bool,
        reason: Option<String>,
        answers: Vec<Answer>,
    ) -> Self {
        AnswerDocument {
            tool: crate::TOOL_NAME.into(),
            version: crate::DOC_VERSION,
            status: "ok".into(),
            answered,
            cancelled,
            timed_out,
            pending: false,
            reason,
            inbox_id: None,
            hint: None,
            answers,
            answered_by: None,
        }
    }

    /// A pending document (see [`AnswerDocument::pending`]): question `id`
    /// is still open, and `hint` tells the model how to collect it.
    pub fn pending(id: impl Into<String>, hint: String) -> Self {
        let mut document = Self::unanswered(Unanswered::Pending).with_inbox_id(id);
        document.hint = Some(hint);
        document
    }

    /// The same document, saying who answered it; only an answered
    /// document says so (a cancel, a decline, a timeout has nobody).
    pub fn answered_by(mut self, by: AnsweredBy) -> Self {
        if self.answered {
            self.answered_by = Some(by);
        }
        self
    }

    /// The same document, answered by the person `name` on `channel`;
    /// unchanged when it is not an answer.
    pub fn answered_by_person(self, name: impl Into<String>, channel: Channel) -> Self {
        self.answered_by(AnsweredBy::One(Answerer::person(name, channel)))
    }

    /// The same document, for a question asked through the inbox.
    pub fn with_inbox_id(mut self, id: impl Into<String>) -> Self {
        self.inbox_id = Some(id.into());
        self
    }
}

/// What a person chose for one question, before it becomes an [`Answer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Option indices (0-based) and an optional Other text, for select kinds.
    Options {
        indices: Vec<usize>,
        other: Option<String>,
    },
    Text(String),
    Confirm(bool),
    /// A question that is not required, left empty.
    Skipped,
}

impl Choice {
    /// The answer this choice makes for `question`. Indices out of range are dropped.
    pub fn into_answer(self, question: &Question) -> Answer {
        let id = question.id.clone();
        let select = question.kind.is_select();
        match self {
            Choice::Options { mut indices, other } => {
                indices.sort_unstable();
                indices.dedup();
                let chosen: Vec<_> = indices
                    .iter()
                    .filter_map(|&i| question.options.get(i))
                    .collect();
                let mut values: Vec<String> = chosen.iter().map(|c| c.label.clone()).collect();
                values.extend(other.iter().cloned());
                Answer {
                    question_id: id,
                    values,
                    option_ids: Some(chosen.iter().map(|c| c.id.clone()).collect()),
                    custom_text: other,
                    note: None,
                }
            }
            Choice::Text(text) => Answer {
                question_id: id,
                values: vec![text],
                option_ids: None,
                custom_text: None,
                note: None,
            },
            Choice::Confirm(yes) => Answer {
                question_id: id,
                values: vec![yes_no(yes).into()],
                option_ids: None,
                custom_text: None,
                note: None,
            },
            Choice::Skipped => Answer {
                question_id: id,
                values: Vec::new(),
                option_ids: select.then(Vec::new),
                custom_text: None,
                note: None,
            },
        }
    }
}

/// Resolves one reply per question, in order, into an answered document;
/// `notes[i]`, when there, is the note on question `i`'s reply.
pub fn resolve_replies(
    prompt: &Prompt,
    replies: &[String],
    notes: &[Option<String>],
) -> Result<AnswerDocument, AskError> {
    let n = prompt.questions.len();
    if replies.len() != n {
        return Err(AskError::InvalidReply(Detail::new(format!(
            "{} {} {}, one per question in order, but {} {} given; pass one --reply for each question",
            n,
            if n == 1 {
                "question needs"
            } else {
                "questions need"
            },
            if n == 1 { "a reply" } else { "replies" },
            replies.len(),
            if replies.len() == 1 { "was" } else { "were" },
        ))));
    }
    if notes.len() > n {
        return Err(AskError::InvalidReply(Detail::new(format!(
            "{} notes were given for {n} {}; give at most one note per reply",
            notes.len(),
            if n == 1 { "question" } else { "questions" },
        ))));
    }
    let answers = prompt
        .questions
        .iter()
        .zip(replies)
        .enumerate()
        .map(|(i, (question, reply))| {
            parse_reply(question, reply)
                .map(|choice| choice.into_answer(question))
                .ok_or_else(|| invalid_reply(question, i, n))?
                .noted(notes.get(i).and_then(Option::as_deref), i, n)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(AnswerDocument::answered(answers))
}

/// The INVALID_REPLY error for question `index`: names it and repeats how to answer.
pub fn invalid_reply(question: &Question, index: usize, total: usize) -> AskError {
    let which = which_question(index, total);
    let text = fold_line(&question.text);
    let shown: String = if text.chars().count() > 80 {
        text.chars().take(79).chain(std::iter::once('…')).collect()
    } else {
        text
    };
    AskError::InvalidReply(Detail::at(
        format!(
            "the reply does not answer {which} (\"{shown}\"); ask again: {}",
            answer_instructions(question)
        ),
        format!("questions[{index}]"),
    ))
}

/// Parses a person's reply to one question; `None` when it answers nothing.
pub fn parse_reply(question: &Question, reply: &str) -> Option<Choice> {
    let reply = reply.trim();
    if reply.is_empty() {
        return (!question.required).then_some(Choice::Skipped);
    }
    match question.kind {
        Kind::Text => Some(Choice::Text(reply.to_string())),
        Kind::Confirm => parse_yes_no(reply).map(Choice::Confirm),
        Kind::SingleSelect => {
            let number = option_number(reply);
            if let Some(index) = number.and_then(|n| in_range(question, n)) {
                return Some(single(index, None));
            }
            // A number that names no position may still be a label ("8080").
            if let Some(choice) = find_choice(&question.options, reply) {
                return Some(single(index_of(question, &choice.id), None));
            }
            // A stray number ("9", "-1", "1.5") is a mistake to ask about, never Other text.
            (!is_number(reply) && question.allow_other).then(|| Choice::Options {
                indices: Vec::new(),
                other: Some(reply.to_string()),
            })
        }
        Kind::MultiSelect => parse_multi(question, reply),
    }
}

fn single(index: usize, other: Option<String>) -> Choice {
    Choice::Options {
        indices: vec![index],
        other,
    }
}

fn index_of(question: &Question, id: &str) -> usize {
    question
        .options
        .iter()
        .position(|c| c.id == id)
        .unwrap_or_default()
}

fn in_range(question: &Question, n: usize) -> Option<usize> {
    (1..=question.options.len()).contains(&n).then(|| n - 1)
}

/// A number as people write one in a reply, without its marks: "#2", "2."
/// and "2)" are "2".
fn unmarked(token: &str) -> &str {
    let token = token.trim();
    let token = token.strip_prefix('#').unwrap_or(token);
    token
        .strip_suffix('.')
        .or_else(|| token.strip_suffix(')'))
        .unwrap_or(token)
}

/// "2", "#2", "2." and "2)" name option 2.
fn option_number(token: &str) -> Option<usize> {
    let token = unmarked(token);
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// Whether `token` reads as a number, an option number or not: "2", "#2",
/// "2.", "-1", "+2", "1.5", ".5". Such a reply that names no option is asked
/// again rather than taken as Other text.
fn is_number(token: &str) -> bool {
    let token = unmarked(token);
    let unsigned = token.strip_prefix(['-', '+']).unwrap_or(token);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    !(whole.is_empty() && fraction.is_empty()) && digits(whole) && digits(fraction)
}

fn parse_multi(question: &Question, reply: &str) -> Option<Choice> {
    // "1,3", "1 3", "1 and 3", "#1, #3".
    let tokens: Vec<&str> = reply
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("and") && *t != "&")
        .collect();
    let numbers = (!tokens.is_empty())
        .then(|| {
            tokens
                .iter()
                .map(|t| option_number(t))
                .collect::<Option<Vec<_>>>()
        })
        .flatten();
    if let Some(indices) = numbers.as_ref().and_then(|numbers| {
        numbers
            .iter()
            .map(|&n| in_range(question, n))
            .collect::<Option<Vec<_>>>()
    }) {
        return Some(Choice::Options {
            indices,
            other: None,
        });
    }
    // A whole label, then labels separated by commas ("PostgreSQL, Redis").
    if let Some(choice) = find_choice(&question.options, reply) {
        return Some(single(index_of(question, &choice.id), None));
    }
    let pieces: Vec<&str> = reply
        .split([',', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let by_label = pieces
        .iter()
        .map(|p| find_choice(&question.options, p).map(|c| index_of(question, &c.id)))
        .collect::<Option<Vec<_>>>();
    match by_label {
        Some(indices) if !indices.is_empty() => Some(Choice::Options {
            indices,
            other: None,
        }),
        // Numbers that name no options are a mistake to ask about, never Other text.
        _ => {
            let all_numbers = !tokens.is_empty() && tokens.iter().all(|t| is_number(t));
            (!all_numbers && question.allow_other).then(|| Choice::Options {
                indices: Vec::new(),
                other: Some(reply.to_string()),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::first_question as question;

    #[test]
    fn a_pending_document_says_so_after_timed_out_and_never_answers() {
        let document = AnswerDocument::pending("7hq2k9mc", "call again".into());
        assert_eq!(
            crate::document_line(&document),
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":false,"timedOut":false,"pending":true,"inboxId":"7hq2k9mc","hint":"call again","answers":[]}"#
        );
        // Omitted when false, and read back.
        let timed_out = AnswerDocument::unanswered(Unanswered::TimedOut);
        assert!(!crate::document_line(&timed_out).contains("pending"));
        let line = crate::document_line(&document);
        assert_eq!(
            serde_json::from_str::<AnswerDocument>(&line).unwrap(),
            document
        );
    }

    fn prompt(json: &str) -> Prompt {
        crate::input::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_note_is_trimmed_none_when_empty_and_refused_past_the_limit() {
        assert_eq!(checked_note(None, 0, 1).unwrap(), None);
        assert_eq!(checked_note(Some(" \n "), 0, 1).unwrap(), None);
        assert_eq!(
            checked_note(Some(" keep it \n"), 0, 1).unwrap().as_deref(),
            Some("keep it")
        );
        let fits = "é".repeat(MAX_NOTE_CHARS);
        assert_eq!(checked_note(Some(&fits), 0, 1).unwrap(), Some(fits));
        let err = checked_note(Some(&"é".repeat(MAX_NOTE_CHARS + 1)), 0, 1).unwrap_err();
        assert_eq!(err.code(), "INVALID_REPLY");
        assert_eq!(err.path(), Some("questions[0]"));
        assert_eq!(
            err.message(),
            "the note on the question is 1001 characters; a note is at most 1000"
        );
    }

    #[test]
    fn notes_go_with_their_replies_and_never_outnumber_the_questions() {
        let p = prompt(
            r#"{"questions":[{"question":"DB?","options":["a","b"]},{"question":"Ok?","type":"confirm"}]}"#,
        );
        let replies = ["2".to_string(), "y".to_string()];
        let doc = resolve_replies(&p, &replies, &[None, Some("soon".into())]).unwrap();
        assert_eq!(doc.answers[0].note, None);
        assert_eq!(doc.answers[0].values, ["b"]);
        assert_eq!(doc.answers[1].note.as_deref(), Some("soon"));
        // Fewer notes than replies: the rest have none.
        let doc = resolve_replies(&p, &replies, &[Some("first".into())]).unwrap();
        assert_eq!(doc.answers[0].note.as_deref(), Some("first"));
        assert_eq!(doc.answers[1].note, None);
        let err = resolve_replies(&p, &replies, &[None, None, Some("x".into())]).unwrap_err();
        assert_eq!(err.code(), "INVALID_REPLY");
        assert_eq!(
            err.message(),
            "3 notes were given for 2 questions; give at most one note per reply"
        );
        // A note never stands in for a reply.
        let err = resolve_replies(&p, &["".into(), "y".into()], &[Some("x".into())]).unwrap_err();
        assert_eq!(err.path(), Some("questions[0]"));
    }

    #[test]
    fn invalid_reply_quotes_the_question_up_to_80_characters() {
        let whole = "q".repeat(80);
        let q = question(&format!(r#"{{"question":"{whole}","options":["a","b"]}}"#));
        let err = invalid_reply(&q, 0, 1);
        assert!(err.message().contains(&format!("(\"{whole}\")")), "{err}");
        let long = "q".repeat(81);
        let q = question(&format!(r#"{{"question":"{long}","options":["a","b"]}}"#));
        let err = invalid_reply(&q, 2, 3);
        assert!(
            err.message().starts_with(&format!(
                "the reply does not answer question 3 of 3 (\"{}…\")",
                "q".repeat(79)
            )),
            "{err}"
        );
        assert_eq!(err.path(), Some("questions[2]"));
    }

    #[test]
    fn separators_alone_choose_nothing() {
        let q = question(r#"{"question":"Pick","options":["a","b"],"multi_select":true}"#);
        for reply in [",", ", ;", ";"] {
            assert_eq!(parse_reply(&q, reply), None, "{reply:?}");
        }
    }

    #[test]
    fn only_the_documented_number_forms_name_an_option() {
        for (token, number) in [
            ("2", Some(2)),
            (" #2 ", Some(2)),
            ("2.", Some(2)),
            ("2)", Some(2)),
        ] {
            assert_eq!(option_number(token), number, "{token:?}");
        }
        // A sign, a letter or nothing at all is no option number.
        for token in ["+2", "-2", "2a", "", "#", ".", "#2.)"] {
            assert_eq!(option_number(token), None, "{token:?}");
        }
    }
}
