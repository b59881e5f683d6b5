//! Plain mode (`ask --ui plain`, `ASK_USER_UI=plain`, `TERM=dumb`): the
//! questions as lines of text, for screen readers, dumb terminals and pipes.
//!
//! Nothing here moves the cursor, redraws or colours: not one escape
//! sequence is written. Each question is printed once, with its numbered
//! options and one line saying what to type; the person types a line in the
//! terminal's own line editing (canonical mode, which screen readers follow),
//! and the line is read by the same rules as `ask_user answer`. Ctrl-C
//! (SIGINT, from the terminal's ISIG; on Windows the console's Ctrl-C
//! event), SIGTERM, SIGHUP, SIGQUIT and end of input cancel; the deadline
//! is the whole form's, as in the full UI. How lines are waited for is the
//! system's ([`super::sys::LineInput`]).

use std::io::{self, Write};
use std::time::Instant;

use super::sys::{Chunk, LineInput, lost};
use super::{Noted, Outcome, Terminal, document_for};
use crate::answer::{AnswerDocument, Choice, MAX_NOTE_CHARS, parse_reply};
use crate::error::AskError;
use crate::model::{Default, Kind, Prompt, Question};
use crate::sanitize::for_terminal;
use crate::text::fold_line;

/// Where plain mode reads lines and writes text: the terminal, or, when
/// there is none, stdin and stderr (a pipe pair, as a screen reader's shell
/// or an editor's may give).
pub struct LineChannel {
    /// Held for its settings, restored when the channel is dropped.
    terminal: Option<Terminal>,
    input: LineInput,
    output: Box<dyn Write>,
    /// Bytes read past the line handed out (a pipe can carry several lines).
    pending: Vec<u8>,
    ended: bool,
}

/// What waiting for a line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LineEvent {
    Line(String),
    /// End of input (Ctrl-D on an empty line, or the pipe closed).
    Ended,
    TimedOut,
    /// Ctrl-C, or a signal that ends the run.
    Interrupted,
}

impl LineChannel {
    /// The controlling terminal in canonical mode; without one, stdin and
    /// stderr, unless the input is read from stdin (then `NO_TTY`).
    pub fn open(input_from_stdin: bool) -> Result<Self, AskError> {
        match Terminal::open() {
            Ok(mut terminal) => {
                terminal.enter_lines()?;
                let input = terminal.line_input()?;
                let output = terminal.writer()?;
                Ok(Self::new(Some(terminal), input, output))
            }
            Err(_) if !input_from_stdin => {
                Ok(Self::new(None, LineInput::stdin()?, Box::new(io::stderr())))
            }
            Err(err) => Err(err),
        }
    }

    fn new(terminal: Option<Terminal>, input: LineInput, output: Box<dyn Write>) -> Self {
        LineChannel {
            terminal,
            input,
            output,
            pending: Vec::new(),
            ended: false,
        }
    }

    /// `ask --ui plain --bell`: BEL alone (no escape sequence, as ever in
    /// plain mode), and only on a terminal, never into a pipe.
    pub fn ring(&mut self) -> Result<(), AskError> {
        if self.terminal.is_some() {
            self.say(super::bell::BEL)?;
        }
        Ok(())
    }

    fn say(&mut self, text: &str) -> Result<(), AskError> {
        self.output
            .write_all(text.as_bytes())
            .and_then(|()| self.output.flush())
            .map_err(|e| lost(&e))
    }

    /// Waits for one line until `deadline` (forever without one).
    fn read_line(&mut self, deadline: Option<Instant>) -> Result<LineEvent, AskError> {
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return Ok(LineEvent::Line(
                    String::from_utf8_lossy(&line[..end]).into_owned(),
                ));
            }
            if self.ended {
                // A last line without a newline still counts; then the end.
                if self.pending.is_empty() {
                    return Ok(LineEvent::Ended);
                }
                let line = std::mem::take(&mut self.pending);
                return Ok(LineEvent::Line(String::from_utf8_lossy(&line).into_owned()));
            }
            let left = match deadline {
                None => None,
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(LineEvent::TimedOut);
                    }
                    Some(left)
                }
            };
            match self
                .input
                .wait(left, &mut self.pending)
                .map_err(|e| lost(&e))?
            {
                Chunk::Data | Chunk::Nothing => {}
                Chunk::Ended => self.ended = true,
                Chunk::Interrupted => return Ok(LineEvent::Interrupted),
            }
        }
    }

    /// Ends the current line on screen and drops what was typed and not
    /// read, so a half-typed line does not reach the shell.
    fn abandon_line(&mut self) {
        let _ = self.say("\n");
        if let Some(terminal) = &mut self.terminal {
            terminal.discard_input();
        }
    }
}

/// Asks every question of `prompt` as plain lines on `channel` within
/// `timeout` (the whole form's), restores the terminal, writes a summary to
/// stderr, and returns the answer document.
pub fn ask_plain(
    mut channel: LineChannel,
    prompt: &Prompt,
    timeout: Option<std::time::Duration>,
) -> Result<AnswerDocument, AskError> {
    let outcome = run_plain(&mut channel, prompt, timeout);
    drop(channel);
    Ok(document_for(outcome?, prompt))
}

fn run_plain(
    channel: &mut LineChannel,
    prompt: &Prompt,
    timeout: Option<std::time::Duration>,
) -> Result<Outcome, AskError> {
    let deadline = timeout.map(|t| Instant::now() + t);
    channel.say(&form_heading(prompt))?;
    let mut choices = Vec::with_capacity(prompt.questions.len());
    for index in 0..prompt.questions.len() {
        let question = &prompt.questions[index];
        if index > 0 {
            channel.say("\n")?;
        }
        channel.say(&question_text(prompt, index))?;
        channel.say(ANSWER_PROMPT)?;
        let mut note = None;
        let choice = loop {
            let reply = match channel.read_line(deadline)? {
                LineEvent::Line(reply) => reply,
                LineEvent::TimedOut => {
                    channel.abandon_line();
                    return Ok(Outcome::TimedOut);
                }
                LineEvent::Ended | LineEvent::Interrupted => {
                    channel.abandon_line();
                    return Ok(Outcome::Cancelled);
                }
            };
            if let Some(text) = note_line(&reply) {
                channel.say(&take_note(text, &mut note))?;
                channel.say(ANSWER_PROMPT)?;
                continue;
            }
            match read_reply(question, &reply) {
                Ok(choice) => break choice,
                Err(again) => {
                    channel.say(&again)?;
                    channel.say(ANSWER_PROMPT)?;
                }
            }
        };
        choices.push(Noted { choice, note });
    }
    Ok(Outcome::Answered(choices))
}

/// What a line typed as a note starts with: `/note but keep SQLite`.
pub const NOTE_COMMAND: &str = "/note";

/// The note a line gives (`/note TEXT`, any case), or `None` when the line
/// is an answer.
fn note_line(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let head = line.get(..NOTE_COMMAND.len())?;
    let rest = &line[NOTE_COMMAND.len()..];
    (head.eq_ignore_ascii_case(NOTE_COMMAND) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
        .then(|| rest.trim())
}

/// Keeps `text` as the question's note (an empty one takes the note back),
/// and the line that says so; a note too long is refused and the one
/// before is kept.
fn take_note(text: &str, note: &mut Option<String>) -> String {
    let length = text.chars().count();
    if length > MAX_NOTE_CHARS {
        return format!(
            "That note has {length} characters; a note is at most {MAX_NOTE_CHARS}. Type /note and a shorter one.\n"
        );
    }
    if text.is_empty() {
        *note = None;
        return "No note. Now type your answer.\n".to_string();
    }
    *note = Some(text.to_string());
    format!(
        "Note kept: {}. Now type your answer.\n",
        fold_line(&for_terminal(text))
    )
}

/// What stands before the typed answer.
pub const ANSWER_PROMPT: &str = "Answer: ";

/// The title and, for several questions, the form's context.
fn form_heading(prompt: &Prompt) -> String {
    let mut text = String::new();
    if let Some(title) = &prompt.title {
        push_lines(&mut text, "", title);
    }
    if prompt.questions.len() > 1
        && let Some(context) = &prompt.context
    {
        push_lines(&mut text, "", context);
    }
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

/// One question as it is printed: where it stands, the question, its
/// context, the numbered options with their descriptions, and what to type.
pub fn question_text(prompt: &Prompt, index: usize) -> String {
    let question = &prompt.questions[index];
    let total = prompt.questions.len();
    let mut text = String::new();
    let header = question
        .header
        .as_deref()
        .map(|h| for_terminal(h).into_owned());
    match (total > 1, header) {
        (true, Some(header)) => {
            text.push_str(&format!("Question {} of {total}: {header}\n", index + 1))
        }
        (true, None) => text.push_str(&format!("Question {} of {total}\n", index + 1)),
        (false, Some(header)) => text.push_str(&format!("{header}\n")),
        (false, None) => {}
    }
    push_lines(&mut text, "", &question.text);
    let context = question.context.as_ref().or(if total == 1 {
        prompt.context.as_ref()
    } else {
        None
    });
    if let Some(context) = context {
        push_lines(&mut text, "", context);
    }
    for option in &question.options {
        let mut line = format!("{}. {}", option.id, for_terminal(&option.label));
        if option.recommended && !option.label.to_lowercase().ends_with("(recommended)") {
            line.push_str(" (recommended)");
        }
        text.push_str(&line);
        text.push('\n');
        if let Some(description) = &option.description {
            push_lines(&mut text, "   ", description);
        }
    }
    text.push_str(&instruction(question));
    // The full UI lists its note key; a typed line is the only key here.
    text.push(' ');
    text.push_str(NOTE_HINT);
    text.push('\n');
    text
}

/// How to add a note in plain mode, after each question's instruction.
pub const NOTE_HINT: &str = "A line /note TEXT adds a note to the answer.";

/// Each line of `body`, cleaned for the terminal, after `indent`.
fn push_lines(text: &mut String, indent: &str, body: &str) {
    for line in for_terminal(body).replace('\t', " ").split('\n') {
        text.push_str(indent);
        text.push_str(line);
        text.push('\n');
    }
}

/// One line saying exactly what to type, and what Enter alone does.
pub fn instruction(question: &Question) -> String {
    let n = question.options.len();
    let other = question.allow_other;
    let mut line = match question.kind {
        Kind::SingleSelect if other => format!(
            "Type a number from 1 to {n}, an option's name, or your own answer, then press Enter."
        ),
        Kind::SingleSelect => {
            format!("Type a number from 1 to {n} or an option's name, then press Enter.")
        }
        Kind::MultiSelect if other => format!(
            "Type one or more numbers from 1 to {n}, separated by commas, or your own answer, then press Enter."
        ),
        Kind::MultiSelect => format!(
            "Type one or more numbers from 1 to {n}, separated by commas, then press Enter."
        ),
        Kind::Confirm => "Type yes or no, then press Enter.".to_string(),
        Kind::Text => "Type your answer on one line, then press Enter.".to_string(),
    };
    let alone = match enter_alone(question) {
        Some(Choice::Options { indices, .. }) => {
            let labels: Vec<String> = indices
                .iter()
                .map(|&i| fold_line(&for_terminal(&question.options[i].label)))
                .collect();
            Some(format!("Enter alone chooses {}.", labels.join(" and ")))
        }
        Some(Choice::Confirm(yes)) => {
            Some(format!("Enter alone answers {}.", crate::text::yes_no(yes)))
        }
        Some(Choice::Text(text)) => Some(format!(
            "Enter alone keeps the default: {}.",
            fold_line(&for_terminal(&text))
        )),
        Some(Choice::Skipped) => Some("Enter alone skips this question.".to_string()),
        None => None,
    };
    if let Some(alone) = alone {
        line.push(' ');
        line.push_str(&alone);
    }
    line
}

/// What an empty line answers: what Enter does in the full UI before any
/// key moves (the default, else for a single select the recommended
/// option), else a skip when the question is not required.
fn enter_alone(question: &Question) -> Option<Choice> {
    let chosen = match (&question.kind, &question.default) {
        (Kind::SingleSelect, _) => question.preselected_index().map(|i| vec![i]),
        (Kind::MultiSelect, Some(Default::Options(ids))) => Some(
            question
                .options
                .iter()
                .enumerate()
                .filter(|(_, option)| ids.contains(&option.id))
                .map(|(i, _)| i)
                .collect(),
        ),
        (Kind::Confirm, Some(Default::Confirm(yes))) => return Some(Choice::Confirm(*yes)),
        (Kind::Text, Some(Default::Text(text))) => return Some(Choice::Text(text.clone())),
        _ => None,
    };
    match chosen {
        Some(indices) if !indices.is_empty() => Some(Choice::Options {
            indices,
            other: None,
        }),
        _ => (!question.required).then_some(Choice::Skipped),
    }
}

/// A typed line as an answer, or the text that asks again.
fn read_reply(question: &Question, reply: &str) -> Result<Choice, String> {
    let reply = reply.trim();
    let choice = if reply.is_empty() {
        enter_alone(question)
    } else {
        parse_reply(question, reply)
    };
    choice.ok_or_else(|| {
        let said = if reply.is_empty() {
            "An answer is needed.".to_string()
        } else {
            format!(
                "\"{}\" does not answer this question.",
                fold_line(&for_terminal(reply))
            )
        };
        format!("{said} {}\n", instruction(question))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(json: &str) -> Prompt {
        crate::input::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_note_line_starts_with_slash_note_and_a_space() {
        assert_eq!(note_line("/note keep it "), Some("keep it"));
        assert_eq!(note_line("  /NOTE\tkeep it"), Some("keep it"));
        assert_eq!(note_line("/note"), Some(""));
        assert_eq!(note_line("/notes"), None);
        assert_eq!(note_line("/no"), None);
        assert_eq!(note_line("2 /note x"), None);
        assert_eq!(note_line("/é"), None);
        let mut note = None;
        assert_eq!(
            take_note("keep it", &mut note),
            "Note kept: keep it. Now type your answer.\n"
        );
        assert_eq!(note.as_deref(), Some("keep it"));
        let fits = "n".repeat(MAX_NOTE_CHARS);
        assert!(take_note(&fits, &mut note).starts_with("Note kept: nnn"));
        assert_eq!(note.as_deref(), Some(fits.as_str()));
        take_note("keep it", &mut note);
        let long = "n".repeat(MAX_NOTE_CHARS + 1);
        assert!(take_note(&long, &mut note).starts_with("That note has 1001 characters"));
        assert_eq!(note.as_deref(), Some("keep it"), "the earlier note stays");
        assert_eq!(take_note("", &mut note), "No note. Now type your answer.\n");
        assert_eq!(note, None);
    }

    #[test]
    fn a_question_reads_as_numbered_lines_and_one_instruction() {
        let p = prompt(
            r#"{"question":"Which database?","options":[
              {"label":"PostgreSQL","description":"relational, mature","recommended":true},
              {"label":"SQLite","description":"embedded,\nsingle file"},"Redis"]}"#,
        );
        assert_eq!(
            question_text(&p, 0),
            "Which database?\n\
             1. PostgreSQL (recommended)\n   relational, mature\n\
             2. SQLite\n   embedded,\n   single file\n\
             3. Redis\n\
             Type a number from 1 to 3 or an option's name, then press Enter. \
             Enter alone chooses PostgreSQL. A line /note TEXT adds a note to the answer.\n"
        );
    }

    #[test]
    fn several_questions_say_where_they_stand() {
        let p = prompt(
            r#"{"title":"Setup","context":"for the app","questions":[
              {"question":"Name?","header":"Name","type":"text","default":"demo"},
              {"question":"Go?","type":"confirm","context":"really"}]}"#,
        );
        assert_eq!(form_heading(&p), "Setup\nfor the app\n\n");
        assert_eq!(
            question_text(&p, 0),
            "Question 1 of 2: Name\nName?\n\
             Type your answer on one line, then press Enter. Enter alone keeps the default: demo. \
             A line /note TEXT adds a note to the answer.\n"
        );
        assert_eq!(
            question_text(&p, 1),
            "Question 2 of 2\nGo?\nreally\nType yes or no, then press Enter. \
             A line /note TEXT adds a note to the answer.\n"
        );
        let single = prompt(
            r#"{"context":"once","questions":[{"question":"Go?","header":"Go","type":"confirm"}]}"#,
        );
        assert_eq!(
            form_heading(&single),
            "",
            "a single question's context is its own"
        );
        assert_eq!(question_text(&single, 0).matches("once").count(), 1);
        assert!(question_text(&single, 0).starts_with("Go\nGo?\n"));
    }

    #[test]
    fn instructions_by_kind_and_what_enter_alone_does() {
        let q = |json: &str| prompt(json).questions.remove(0);
        assert_eq!(
            instruction(&q(
                r#"{"question":"x","options":["a","b"],"allow_other":true}"#
            )),
            "Type a number from 1 to 2, an option's name, or your own answer, then press Enter."
        );
        assert_eq!(
            instruction(&q(
                r#"{"question":"x","multi_select":true,"options":["a","b","c"],"default":["a","c"]}"#
            )),
            "Type one or more numbers from 1 to 3, separated by commas, then press Enter. \
             Enter alone chooses a and c."
        );
        assert_eq!(
            instruction(&q(
                r#"{"question":"x","multi_select":true,"allow_other":true,"options":["a","b"]}"#
            )),
            "Type one or more numbers from 1 to 2, separated by commas, or your own answer, then press Enter."
        );
        assert_eq!(
            instruction(&q(r#"{"prompt":"x","type":"confirm","default":"no"}"#)),
            "Type yes or no, then press Enter. Enter alone answers no."
        );
        assert_eq!(
            instruction(&q(
                r#"{"questions":[{"question":"x","type":"text","required":false}]}"#
            )),
            "Type your answer on one line, then press Enter. Enter alone skips this question."
        );
        assert_eq!(
            instruction(&q(
                r#"{"questions":[{"question":"x","multi_select":true,"options":["a","b"],"required":false}]}"#
            )),
            "Type one or more numbers from 1 to 2, separated by commas, then press Enter. \
             Enter alone skips this question."
        );
    }

    #[test]
    fn an_empty_default_list_is_no_default() {
        let q = prompt(
            r#"{"questions":[{"question":"x","type":"multi-select","options":["a","b"],"default":[]}]}"#,
        )
        .questions
        .remove(0);
        assert_eq!(enter_alone(&q), None);
        assert_eq!(
            read_reply(&q, "").unwrap_err().split('.').next(),
            Some("An answer is needed")
        );
    }

    #[test]
    fn replies_follow_the_answer_rules_and_empty_lines_what_enter_alone_says() {
        let q = prompt(r#"{"question":"x","options":["a",{"label":"b","recommended":true}]}"#)
            .questions
            .remove(0);
        let one = |i| Choice::Options {
            indices: vec![i],
            other: None,
        };
        assert_eq!(read_reply(&q, " 1 "), Ok(one(0)));
        assert_eq!(read_reply(&q, "B"), Ok(one(1)));
        assert_eq!(read_reply(&q, ""), Ok(one(1)));
        assert_eq!(
            read_reply(&q, "zzz\u{1b}[2J"),
            Err("\"zzz\" does not answer this question. \
                 Type a number from 1 to 2 or an option's name, then press Enter. \
                 Enter alone chooses b.\n"
                .to_string())
        );
        let text = prompt(r#"{"prompt":"x","type":"text"}"#)
            .questions
            .remove(0);
        assert_eq!(
            read_reply(&text, "  "),
            Err("An answer is needed. Type your answer on one line, then press Enter.\n".into())
        );
        let confirm = prompt(r#"{"prompt":"x","type":"confirm","default":"yes"}"#)
            .questions
            .remove(0);
        assert_eq!(read_reply(&confirm, ""), Ok(Choice::Confirm(true)));
        assert_eq!(read_reply(&confirm, "n"), Ok(Choice::Confirm(false)));
    }

    #[test]
    fn nothing_printed_holds_an_escape_byte() {
        let p = prompt(
            r#"{"title":"t\u001b]0;x\u0007","questions":[{"question":"q\u001b[2J","header":"h\u001b[1m",
               "options":[{"label":"a\u001b[31m","description":"d\u009b2J"},"b"],"default":"a\u001b[31m"}]}"#,
        );
        let text = form_heading(&p) + &question_text(&p, 0);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{9b}'),
            "{text:?}"
        );
    }
}
