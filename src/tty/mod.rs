//! The terminal face (`ask_user ask`): asks each question on the controlling
//! terminal and turns what the person did into an answer document.
//!
//! Built on console's key reader with small widgets of our own (not
//! dialoguer's prompts): dialoguer cannot cancel text input with Esc, leaves
//! the cursor hidden on Ctrl-C, has no per-option descriptions and no
//! timeout. Here one loop holds the terminal (`/dev/tty`; on Windows the
//! console) in raw mode for the whole form and waits on it with the time
//! left, so Esc, q and Ctrl-C cancel everywhere, a timeout never picks a
//! default, and the terminal is restored on every exit. What differs by
//! system is in [`sys`]; everything else here is the same on all of them.

pub mod bell;
mod keys;
mod plain;
mod render;
mod sys;
mod terminal;
mod widgets;

use std::io::Write;
use std::time::{Duration, Instant};

pub use plain::{LineChannel, ask_plain};
pub use terminal::Terminal;

use crate::answer::{Answer, AnswerDocument, Channel, Choice, MAX_NOTE_CHARS, Unanswered};
use crate::error::AskError;
use crate::model::{Prompt, Question};
use console::Key;
use render::{Line, Paint, Span, fit, wrap};
use terminal::Event;
use widgets::{Body, Hint, LineEditor, Step, Widget};

/// How a form on the terminal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// One choice per question, in order, each with the note given with it.
    Answered(Vec<Noted>),
    Cancelled,
    TimedOut,
}

/// One question's choice and the person's note on it (trimmed, at most
/// [`MAX_NOTE_CHARS`]; none when empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted {
    pub choice: Choice,
    pub note: Option<String>,
}

impl Noted {
    fn into_answer(self, question: &Question) -> Answer {
        let mut answer = self.choice.into_answer(question);
        answer.note = self.note;
        answer
    }
}

/// The key that opens (and closes) the note line of the current question:
/// Ctrl-N, which no widget uses and which text fields do not type.
const NOTE_KEY: Key = Key::Char('\u{e}');

/// Whether a form offers a note on each answer (Ctrl-N). The answer forms
/// do; setup's host picker does not, since its answer is only which hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notes {
    Offered,
    Off,
}

/// Asks every question of `prompt` on `terminal` within `timeout` (the whole
/// form's), restores the terminal, writes a summary to stderr, and returns the
/// answer document. Cancelled and timed-out documents carry no answers.
pub fn ask(
    terminal: Terminal,
    prompt: &Prompt,
    timeout: Option<Duration>,
) -> Result<AnswerDocument, AskError> {
    ask_with(terminal, prompt, timeout, Notes::Offered)
}

/// [`ask`], with or without the note line.
pub fn ask_with(
    mut terminal: Terminal,
    prompt: &Prompt,
    timeout: Option<Duration>,
    notes: Notes,
) -> Result<AnswerDocument, AskError> {
    let outcome = run_form(&mut terminal, prompt, timeout, notes);
    // Restore the terminal before anything else is written.
    drop(terminal);
    Ok(document_for(outcome?, prompt))
}

/// The answer document for how a form ended; a summary or a note on stderr.
fn document_for(outcome: Outcome, prompt: &Prompt) -> AnswerDocument {
    match outcome {
        Outcome::Answered(given) => {
            let answers: Vec<Answer> = given
                .into_iter()
                .zip(&prompt.questions)
                .map(|(noted, question)| noted.into_answer(question))
                .collect();
            summarize(prompt, &answers);
            AnswerDocument::answered(answers)
                .answered_by_person(ask_user_platform::user::name(), Channel::Terminal)
        }
        Outcome::Cancelled => {
            note("✗ Cancelled");
            AnswerDocument::unanswered(Unanswered::Cancelled)
        }
        Outcome::TimedOut => {
            note("✗ Timed out: no answer was given in time");
            AnswerDocument::unanswered(Unanswered::TimedOut)
        }
    }
}

/// The key loop: one widget per question, one deadline for the whole form.
pub fn run_form(
    terminal: &mut Terminal,
    prompt: &Prompt,
    timeout: Option<Duration>,
    notes: Notes,
) -> Result<Outcome, AskError> {
    let paint = Paint::from_env();
    terminal.enter_raw()?;
    let deadline = timeout.map(|t| Instant::now() + t);
    let (columns, _) = terminal.size();
    let width = columns.saturating_sub(1).max(10);
    let mut heading = Vec::new();
    if let Some(title) = &prompt.title {
        heading.push(fit(&[paint.bold(title)], width));
    }
    if prompt.questions.len() > 1 {
        for row in prompt.context.iter().flat_map(|c| wrap(c, width)) {
            heading.push(fit(&[paint.dim(&row)], width));
        }
    }
    if !heading.is_empty() {
        terminal.print_static(&heading)?;
    }
    let mut choices = Vec::with_capacity(prompt.questions.len());
    // "✓ Header: answer" for each answered question, shown above the current one.
    let mut trail: Vec<String> = Vec::new();
    for (index, question) in prompt.questions.iter().enumerate() {
        let mut widget = Widget::new(question);
        let mut note = NoteLine::default();
        loop {
            let (columns, rows) = terminal.size();
            let shown = Shown {
                prompt,
                index,
                trail: &trail,
                note: (notes == Notes::Offered).then_some(&note),
                paint,
            };
            if !terminal.has_pending_keys() {
                terminal.draw(&frame(&shown, &widget, columns, rows))?;
            }
            let key = match terminal.next_event(deadline)? {
                Event::TimedOut => {
                    terminal.clear()?;
                    return Ok(Outcome::TimedOut);
                }
                Event::Key(key) => key,
                Event::Resized => continue,
                Event::Stopped => {
                    terminal.clear()?;
                    return Ok(Outcome::Cancelled);
                }
            };
            let step = if goes_to_note(notes, &note, &key) {
                note.handle(key)
            } else {
                widget.handle(key)
            };
            match step {
                Step::Continue => {}
                Step::Cancel => {
                    terminal.clear()?;
                    return Ok(Outcome::Cancelled);
                }
                Step::Done(choice) => {
                    let noted = Noted {
                        choice,
                        note: note.text(),
                    };
                    trail.push(trail_line(question, &noted.clone().into_answer(question)));
                    choices.push(noted);
                    break;
                }
            }
        }
    }
    terminal.clear()?;
    Ok(Outcome::Answered(choices))
}

/// Whether `key` goes to the note line rather than the widget: while it is
/// open, and Ctrl-N to open it. Without notes every key goes to the widget
/// (which ignores Ctrl-N).
fn goes_to_note(notes: Notes, note: &NoteLine, key: &Key) -> bool {
    notes == Notes::Offered && (note.open || *key == NOTE_KEY)
}

/// The current question's note: a line opened with Ctrl-N beside the
/// widget. While it is open, keys edit it; Enter or Ctrl-N go back to the
/// choice, keeping the note; Esc and Ctrl-C cancel, as everywhere.
#[derive(Default)]
struct NoteLine {
    editor: LineEditor,
    open: bool,
    full: bool,
}

impl NoteLine {
    fn handle(&mut self, key: Key) -> Step {
        self.full = false;
        match key {
            Key::Escape | Key::CtrlC => return Step::Cancel,
            NOTE_KEY => self.open = !self.open,
            Key::Enter | Key::Char('\n') => self.open = false,
            Key::Char(_) if self.editor.text().chars().count() >= MAX_NOTE_CHARS => {
                self.full = true;
            }
            key => {
                self.editor.edit(&key);
            }
        }
        Step::Continue
    }

    fn text(&self) -> Option<String> {
        Some(self.editor.text()).filter(|t| !t.is_empty())
    }

    /// The note's rows below the widget (while open or when written), and
    /// while it is open the keys that work in it instead of the widget's.
    fn add_to(&self, body: &mut Body, paint: Paint, width: usize) {
        if !self.open {
            if let Some(text) = self.text() {
                let mut rows = wrap(&format!("Note: {text}"), width.saturating_sub(2));
                rows.truncate(3);
                body.blocks.push(
                    rows.iter()
                        .map(|row| vec![Span::plain("  "), paint.dim(row)])
                        .collect(),
                );
            }
            body.hints.push(Hint::new("Ctrl-N", "note"));
            return;
        }
        let field = self.editor.rows(
            paint,
            Some("a remark to go with your answer"),
            true,
            width.saturating_sub(8),
        );
        let mut block: Vec<Line> = Vec::new();
        for (k, row) in field.rows.into_iter().enumerate() {
            let mut line = vec![if k == 0 {
                paint.accent("  Note: ")
            } else {
                Span::plain("        ")
            }];
            line.extend(row);
            block.push(line);
        }
        body.cursor_block = body.blocks.len();
        body.blocks.push(block);
        body.hints = vec![
            Hint::new("Enter/Ctrl-N", "back to the answer"),
            Hint::new("Ctrl-U/Ctrl-W", "delete line/word"),
        ];
        body.warning = self.full.then_some("A note is at most 1000 characters");
    }
}

/// What a frame shows besides the widget: where the form stands.
struct Shown<'a> {
    prompt: &'a Prompt,
    index: usize,
    /// One line per answered question.
    trail: &'a [String],
    /// The note line, when the form offers notes.
    note: Option<&'a NoteLine>,
    paint: Paint,
}

/// One screen of a question: the trail of answered questions, where it
/// stands, the question, its context, the widget's rows (scrolled to the
/// cursor when they do not fit) and the keys.
fn frame(shown: &Shown, widget: &Widget, columns: usize, rows: usize) -> Vec<String> {
    let Shown {
        prompt,
        index,
        trail,
        note,
        paint,
    } = *shown;
    let question = &prompt.questions[index];
    let width = columns.saturating_sub(1).max(10);
    let trail: Vec<Line> = trail
        .iter()
        .map(|line| vec![paint.good("✓ "), Span::plain(line.trim_start_matches("✓ "))])
        .collect();
    let mut head: Vec<Line> = Vec::new();
    let total = prompt.questions.len();
    if total > 1 {
        head.push(vec![
            paint.dim(&format!("Question {} of {total}", index + 1)),
        ]);
    }
    for (k, row) in wrap(&question.text, width.saturating_sub(2))
        .iter()
        .enumerate()
    {
        let mut line = vec![if k == 0 {
            paint.accent("? ")
        } else {
            Span::plain("  ")
        }];
        if k == 0
            && let Some(header) = &question.header
        {
            line.push(paint.accent(&format!("[{header}] ")));
        }
        line.push(paint.bold(row));
        head.push(line);
    }
    let context = question.context.as_ref().or(if total == 1 {
        prompt.context.as_ref()
    } else {
        None
    });
    for row in context
        .iter()
        .flat_map(|c| wrap(c, width.saturating_sub(2)))
    {
        head.push(vec![Span::plain("  "), paint.dim(&row)]);
    }
    let mut body = widget.body(paint, width);
    // Keys that work on every question.
    if let Some(note) = note {
        note.add_to(&mut body, paint, width);
    }
    body.hints.push(Hint::new("Esc", "cancel"));
    let hint = hint_rows(&body, paint, width);
    fit_height(trail, head, body, hint, rows.saturating_sub(1).max(4))
        .iter()
        .map(|line| fit(line, width))
        .collect()
}

/// The hint rows: the warning, else every key as "key action", joined by
/// " · " and wrapped onto more rows when they do not fit on one.
fn hint_rows(body: &Body, paint: Paint, width: usize) -> Vec<Line> {
    if let Some(warning) = body.warning {
        return vec![vec![Span::plain("  "), paint.warn(warning)]];
    }
    let room = width.saturating_sub(2);
    let mut rows: Vec<String> = Vec::new();
    for hint in &body.hints {
        let item = format!("{} {}", hint.keys, hint.action);
        match rows.last_mut() {
            Some(row) if render::text_width(row) + 3 + render::text_width(&item) <= room => {
                row.push_str(" · ");
                row.push_str(&item);
            }
            _ => rows.push(item),
        }
    }
    rows.iter()
        .map(|row| vec![Span::plain("  "), paint.dim(row)])
        .collect()
}

/// At most `max` rows: the hints always, the cursor's block always, then as
/// much of the list around it and of the question above it as fits, and
/// last the trail's most recent lines.
fn fit_height(
    mut trail: Vec<Line>,
    mut head: Vec<Line>,
    body: Body,
    hint: Vec<Line>,
    max: usize,
) -> Vec<Line> {
    let Body {
        blocks,
        cursor_block,
        ..
    } = body;
    let max = max.saturating_sub(hint.len()).max(1);
    let list_rows: usize = blocks.iter().map(Vec::len).sum();
    let mut lines = Vec::with_capacity(max + hint.len());
    if head.len() + list_rows <= max {
        let room = max - head.len() - list_rows;
        trail.drain(..trail.len().saturating_sub(room));
        lines.extend(trail);
        lines.extend(head);
        lines.extend(blocks.into_iter().flatten());
        lines.extend(hint);
        return lines;
    }
    // The list gets what the question leaves, but at least half the screen.
    let list_budget = max.saturating_sub(head.len()).max(max / 2).min(list_rows);
    head.truncate(max.saturating_sub(list_budget));
    let cursor = cursor_block.min(blocks.len().saturating_sub(1));
    let (mut first, mut last) = (cursor, cursor);
    let mut used = blocks.get(cursor).map_or(0, Vec::len);
    loop {
        let mut grew = false;
        if last + 1 < blocks.len() && used + blocks[last + 1].len() <= list_budget {
            last += 1;
            used += blocks[last].len();
            grew = true;
        }
        if first > 0 && used + blocks[first - 1].len() <= list_budget {
            first -= 1;
            used += blocks[first].len();
            grew = true;
        }
        if !grew {
            break;
        }
    }
    lines.extend(head);
    let mut shown: Vec<Line> = blocks[first..=last].iter().flatten().cloned().collect();
    shown.truncate(list_budget.max(1));
    lines.extend(shown);
    lines.extend(hint);
    lines
}

/// "✓ Header: answer" (the header, else the question cut to 60 characters),
/// on one line: seed 001's summary line, also the form's trail.
fn trail_line(question: &Question, answer: &Answer) -> String {
    let name = question
        .header
        .clone()
        .unwrap_or_else(|| shorten(&crate::text::fold_line(&question.text), 60));
    let value = if answer.values.is_empty() {
        "(skipped)".to_string()
    } else {
        answer.values.join(", ")
    };
    let mut line = format!("✓ {name}: {}", crate::text::fold_line(&value));
    if let Some(note) = &answer.note {
        line.push_str(&format!(" · note: {}", crate::text::fold_line(note)));
    }
    line
}

/// One line per question on stderr, seed 001's "✓ Database: PostgreSQL".
fn summarize(prompt: &Prompt, answers: &[Answer]) {
    let mut text = String::new();
    for (question, answer) in prompt.questions.iter().zip(answers) {
        text.push_str(&crate::sanitize::for_terminal(&trail_line(
            question, answer,
        )));
        text.push('\n');
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max - 1).chain(['…']).collect()
    }
}

/// The form's time limit: `--timeout` wins over the input's `timeout`, and
/// `--timeout 0` means no limit.
pub fn form_timeout(flag: Option<Duration>, prompt: &Prompt) -> Option<Duration> {
    match flag {
        Some(limit) if limit.is_zero() => None,
        Some(limit) => Some(limit),
        None => prompt.timeout_ms.map(Duration::from_millis),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(json: &str) -> Prompt {
        crate::input::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn the_flag_overrides_the_input_timeout_and_zero_means_none() {
        let p = prompt(r#"{"question":"x","options":["a","b"],"timeout":20000}"#);
        assert_eq!(form_timeout(None, &p), Some(Duration::from_secs(20)));
        let half = Duration::from_millis(500);
        assert_eq!(form_timeout(Some(half), &p), Some(half));
        assert_eq!(form_timeout(Some(Duration::ZERO), &p), None);
    }

    /// A frame's line without its SGR sequences.
    fn unstyled(line: &str) -> String {
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find("\x1b[") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            rest = after.find('m').map_or("", |end| &after[end + 1..]);
        }
        out.push_str(rest);
        out
    }

    fn type_into(note: &mut NoteLine, text: &str) {
        for c in text.chars() {
            assert_eq!(note.handle(Key::Char(c)), Step::Continue);
        }
    }

    #[test]
    fn the_note_line_opens_edits_closes_and_is_drawn_below_the_choice() {
        let p = prompt(r#"{"question":"Deploy?","type":"confirm"}"#);
        let widget = Widget::new(&p.questions[0]);
        let paint = Paint { color: false };
        let drawn = |note: &NoteLine| {
            let shown = Shown {
                prompt: &p,
                index: 0,
                trail: &[],
                note: Some(note),
                paint,
            };
            frame(&shown, &widget, 80, 20)
                .iter()
                .map(|l| unstyled(l))
                .collect::<Vec<_>>()
        };
        let mut note = NoteLine::default();
        let lines = drawn(&note);
        assert!(
            lines.last().unwrap().contains("Ctrl-N note · Esc cancel"),
            "{lines:?}"
        );
        assert_eq!(note.handle(NOTE_KEY), Step::Continue);
        assert!(note.open);
        type_into(&mut note, "  not on a friday ");
        let lines = drawn(&note);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("  Note:") && l.contains("not on a friday")),
            "{lines:?}"
        );
        assert!(
            lines
                .last()
                .unwrap()
                .contains("Enter/Ctrl-N back to the answer"),
            "{lines:?}"
        );
        assert_eq!(note.handle(Key::Enter), Step::Continue);
        assert!(!note.open);
        assert_eq!(note.text().as_deref(), Some("not on a friday"));
        let lines = drawn(&note);
        assert!(
            lines.iter().any(|l| l == "  Note: not on a friday"),
            "{lines:?}"
        );
        // Ctrl-N closes it too, and Esc or Ctrl-C in it cancel the form.
        note.handle(NOTE_KEY);
        assert_eq!(note.handle(NOTE_KEY), Step::Continue);
        assert!(!note.open);
        note.handle(NOTE_KEY);
        assert_eq!(note.handle(Key::Escape), Step::Cancel);
        assert_eq!(note.handle(Key::CtrlC), Step::Cancel);
        // Emptied, it is no note.
        let mut empty = NoteLine::default();
        empty.handle(NOTE_KEY);
        type_into(&mut empty, "   ");
        assert_eq!(empty.text(), None);
    }

    /// setup's picker (`Notes::Off`): no "Ctrl-N note" among the keys, and
    /// Ctrl-N never opens the note line; the answer forms offer both.
    #[test]
    fn a_form_without_notes_neither_offers_nor_takes_them() {
        let p = prompt(r#"{"question":"Hosts?","type":"multi-select","options":["a","b"]}"#);
        let widget = Widget::new(&p.questions[0]);
        let paint = Paint { color: false };
        let note = NoteLine::default();
        let keys = |note: Option<&NoteLine>| {
            let shown = Shown {
                prompt: &p,
                index: 0,
                trail: &[],
                note,
                paint,
            };
            let lines = frame(&shown, &widget, 80, 24);
            unstyled(lines.last().unwrap())
        };
        let without = keys(None);
        assert!(!without.contains("Ctrl-N"), "{without}");
        assert!(without.ends_with("Esc cancel"), "{without}");
        assert!(keys(Some(&note)).contains("Ctrl-N note · Esc cancel"));

        assert!(!goes_to_note(Notes::Off, &note, &NOTE_KEY));
        assert!(goes_to_note(Notes::Offered, &note, &NOTE_KEY));
        assert!(!goes_to_note(Notes::Offered, &note, &Key::Char('x')));
        let mut open = NoteLine::default();
        open.handle(NOTE_KEY);
        assert!(goes_to_note(Notes::Offered, &open, &Key::Char('x')));
        assert!(!goes_to_note(Notes::Off, &open, &Key::Char('x')));
        // The multi-select itself takes Ctrl-N as nothing.
        let mut widget = Widget::new(&p.questions[0]);
        assert_eq!(widget.handle(NOTE_KEY), Step::Continue);
    }

    #[test]
    fn a_full_note_takes_no_more_characters_and_says_so() {
        let p = prompt(r#"{"question":"Deploy?","type":"confirm"}"#);
        let widget = Widget::new(&p.questions[0]);
        let mut note = NoteLine::default();
        note.handle(NOTE_KEY);
        type_into(&mut note, &"n".repeat(MAX_NOTE_CHARS));
        assert!(!note.full);
        note.handle(Key::Char('x'));
        assert!(note.full);
        assert_eq!(note.text().unwrap().chars().count(), MAX_NOTE_CHARS);
        let shown = Shown {
            prompt: &p,
            index: 0,
            trail: &[],
            note: Some(&note),
            paint: Paint { color: false },
        };
        let lines = frame(&shown, &widget, 60, 20);
        assert_eq!(
            unstyled(lines.last().unwrap()),
            "  A note is at most 1000 characters",
            "{lines:?}"
        );
        // Deleting is still possible, and the warning goes with the next key.
        note.handle(Key::Backspace);
        assert!(!note.full);
        assert_eq!(note.text().unwrap().chars().count(), MAX_NOTE_CHARS - 1);
    }

    #[test]
    fn the_trail_line_carries_the_note() {
        let p = prompt(r#"{"question":"x","header":"Db","options":["a","b"]}"#);
        let noted = Noted {
            choice: Choice::Options {
                indices: vec![0],
                other: None,
            },
            note: Some("keep\nit".into()),
        };
        let answer = noted.into_answer(&p.questions[0]);
        assert_eq!(answer.values, ["a"]);
        assert_eq!(
            trail_line(&p.questions[0], &answer),
            "✓ Db: a · note: keep it"
        );
    }

    #[test]
    fn a_tall_list_fits_the_screen_and_keeps_the_cursor() {
        let options: Vec<String> = (1..=20).map(|i| format!("\"option {i}\"")).collect();
        let p = prompt(&format!(
            r#"{{"question":"x","options":[{}],"default":"18"}}"#,
            options.join(",")
        ));
        let widget = Widget::new(&p.questions[0]);
        let shown = Shown {
            prompt: &p,
            index: 0,
            trail: &[],
            note: Some(&NoteLine::default()),
            paint: Paint { color: false },
        };
        let lines = frame(&shown, &widget, 40, 10);
        assert!(lines.len() <= 9, "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("❯") && l.contains("option 18")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .all(|l| render::text_width(&crate::sanitize::for_terminal(l)) < 40)
        );
    }

    #[test]
    fn every_kinds_keys_fit_on_one_row_at_80_columns() {
        // The widest list: 20 options (digits "1-9"), Other, and a note key.
        let options: Vec<String> = (1..=20).map(|i| format!("\"option {i}\"")).collect();
        let options = options.join(",");
        for input in [
            format!(r#"{{"question":"x","options":[{options}],"allow_other":true}}"#),
            format!(
                r#"{{"question":"x","options":[{options}],"multi_select":true,"allow_other":true}}"#
            ),
            r#"{"question":"x","type":"confirm"}"#.to_string(),
            r#"{"question":"x","type":"text"}"#.to_string(),
        ] {
            let p = prompt(&input);
            let widget = Widget::new(&p.questions[0]);
            let shown = Shown {
                prompt: &p,
                index: 0,
                trail: &[],
                note: Some(&NoteLine::default()),
                paint: Paint { color: false },
            };
            let lines: Vec<String> = frame(&shown, &widget, 80, 40)
                .iter()
                .map(|l| unstyled(l))
                .collect();
            let last = lines.last().unwrap();
            assert!(
                last.contains("Enter") && last.ends_with("Esc cancel"),
                "{input}: {lines:#?}"
            );
        }
    }

    fn texts(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(Span::text).collect())
            .collect()
    }

    #[test]
    fn hints_wrap_onto_rows_and_a_warning_stands_in_for_them() {
        let paint = Paint { color: false };
        let mut body = Body {
            blocks: Vec::new(),
            cursor_block: 0,
            hints: vec![
                Hint::new("↑/↓", "move"),
                Hint::new("Enter", "choose"),
                Hint::new("Esc", "cancel"),
            ],
            warning: None,
        };
        assert_eq!(
            texts(&hint_rows(&body, paint, 80)),
            ["  ↑/↓ move · Enter choose · Esc cancel"]
        );
        assert_eq!(
            texts(&hint_rows(&body, paint, 26)),
            ["  ↑/↓ move · Enter choose", "  Esc cancel"]
        );
        assert_eq!(
            texts(&hint_rows(&body, paint, 24)),
            ["  ↑/↓ move", "  Enter choose", "  Esc cancel"]
        );
        body.warning = Some("Press y or n");
        assert_eq!(texts(&hint_rows(&body, paint, 80)), ["  Press y or n"]);
    }

    fn line(text: &str) -> Line {
        vec![Span::plain(text)]
    }

    #[test]
    fn the_trail_gets_what_the_question_leaves_newest_first() {
        let trail = vec![line("t1"), line("t2"), line("t3")];
        let body = || Body {
            blocks: vec![vec![line("o1")], vec![line("o2")]],
            cursor_block: 0,
            hints: Vec::new(),
            warning: None,
        };
        let hint = vec![line("h")];
        let fitted = |max| {
            texts(&fit_height(
                trail.clone(),
                vec![line("q")],
                body(),
                hint.clone(),
                max,
            ))
        };
        assert_eq!(fitted(7), ["t1", "t2", "t3", "q", "o1", "o2", "h"]);
        assert_eq!(fitted(6), ["t2", "t3", "q", "o1", "o2", "h"]);
        assert_eq!(fitted(4), ["q", "o1", "o2", "h"]);
        // The list gets at least half of what is left.
        assert_eq!(fitted(3), ["q", "o1", "h"]);
    }

    /// When the list does not fit, the cursor's block is shown with the
    /// blocks after it, then before it, as far as the list's budget goes; a
    /// long question keeps no more than half the rows from the list.
    #[test]
    fn a_long_list_is_shown_around_the_cursor_and_gets_half_the_rows() {
        let body = |cursor_block| Body {
            blocks: (1..=10).map(|n| vec![line(&format!("o{n}"))]).collect(),
            cursor_block,
            hints: Vec::new(),
            warning: None,
        };
        let fitted = |head: Vec<Line>, cursor, max| {
            texts(&fit_height(
                Vec::new(),
                head,
                body(cursor),
                vec![line("h")],
                max,
            ))
        };
        let q = || vec![line("q")];
        // 5 rows for the list: from the cursor downwards first.
        assert_eq!(fitted(q(), 0, 7), ["q", "o1", "o2", "o3", "o4", "o5", "h"]);
        // At the end, the blocks before it fill the budget.
        assert_eq!(fitted(q(), 9, 7), ["q", "o6", "o7", "o8", "o9", "o10", "h"]);
        // In the middle: after, then before, in turn.
        assert_eq!(fitted(q(), 4, 7), ["q", "o3", "o4", "o5", "o6", "o7", "h"]);
        // Blocks are shown whole or not at all: two blocks of two rows
        // leave one of the 5 rows empty rather than show half an option.
        let described = Body {
            blocks: (1..=10)
                .map(|n| vec![line(&format!("o{n}")), line(&format!("d{n}"))])
                .collect(),
            cursor_block: 4,
            hints: Vec::new(),
            warning: None,
        };
        assert_eq!(
            texts(&fit_height(Vec::new(), q(), described, vec![line("h")], 7)),
            ["q", "o5", "d5", "o6", "d6", "h"]
        );
        // Blocks of different heights: each is measured by its own rows.
        let uneven = |blocks: &[&[&str]], max| {
            let body = Body {
                blocks: blocks
                    .iter()
                    .map(|rows| rows.iter().map(|row| line(row)).collect())
                    .collect(),
                cursor_block: 2,
                hints: Vec::new(),
                warning: None,
            };
            texts(&fit_height(Vec::new(), q(), body, vec![line("h")], max))
        };
        let (a, b, c): (&[&str], &[&str], &[&str]) = (&["a"], &["b"], &["c1", "c2", "c3"]);
        assert_eq!(
            uneven(&[a, b, c, &["d"]], 6),
            ["q", "c1", "c2", "c3", "d", "h"]
        );
        assert_eq!(uneven(&[a, b, c], 6), ["q", "b", "c1", "c2", "c3", "h"]);
        assert_eq!(
            uneven(&[a, b, c, &["d1", "d2", "d3"]], 8),
            ["q", "c1", "c2", "c3", "d1", "d2", "d3", "h"]
        );
        // A question of 10 rows leaves the list half of the 12 rows.
        let head: Vec<Line> = (1..=10).map(|n| line(&format!("q{n}"))).collect();
        assert_eq!(
            fitted(head, 0, 13),
            [
                "q1", "q2", "q3", "q4", "q5", "q6", "o1", "o2", "o3", "o4", "o5", "o6", "h"
            ]
        );
    }

    #[test]
    fn the_trail_line_names_the_header_or_the_shortened_question() {
        let p = prompt(&format!(
            r#"{{"questions":[{{"question":"x","header":"Db","options":["a","b"]}},
              {{"question":"{}","type":"text","required":false}}]}}"#,
            "long ".repeat(20)
        ));
        let choice = Choice::Options {
            indices: vec![1],
            other: Some("c\nd".into()),
        };
        let answer = choice.into_answer(&p.questions[0]);
        assert_eq!(trail_line(&p.questions[0], &answer), "✓ Db: b, c d");
        let skipped = Choice::Skipped.into_answer(&p.questions[1]);
        let line = trail_line(&p.questions[1], &skipped);
        assert!(line.ends_with("…: (skipped)"), "{line}");
        assert_eq!(line.chars().count(), 2 + 60 + 11);
    }
}
