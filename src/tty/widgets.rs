//! One small widget per question kind: a state machine fed with keys that
//! ends in an [`answer::Choice`](crate::answer::Choice) or a cancel, and that
//! draws itself as rows. No terminal here, so each widget is tested directly.

use console::Key;

use crate::answer::Choice;
use crate::model::{Default, Kind, Question};
use crate::sanitize;

use super::render::{Line, Paint, Span, wrap};

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Continue,
    Done(Choice),
    Cancel,
}

/// A widget's rows: blocks (one per selectable row, with its description)
/// and the block holding the cursor, so a tall list can be scrolled to it.
pub struct Body {
    pub blocks: Vec<Vec<Line>>,
    pub cursor_block: usize,
    pub hint: Line,
}

pub enum Widget<'q> {
    Select(Select<'q>),
    Text(TextInput<'q>),
    Confirm(Confirm<'q>),
}

impl<'q> Widget<'q> {
    pub fn new(question: &'q Question) -> Self {
        match question.kind {
            Kind::SingleSelect | Kind::MultiSelect => Widget::Select(Select::new(question)),
            Kind::Text => Widget::Text(TextInput::new(question)),
            Kind::Confirm => Widget::Confirm(Confirm::new(question)),
        }
    }

    pub fn handle(&mut self, key: Key) -> Step {
        if matches!(key, Key::Escape | Key::CtrlC) {
            return Step::Cancel;
        }
        match self {
            Widget::Select(w) => w.handle(key),
            Widget::Text(w) => w.handle(key),
            Widget::Confirm(w) => w.handle(key),
        }
    }

    pub fn body(&self, paint: Paint, width: usize) -> Body {
        match self {
            Widget::Select(w) => w.body(paint, width),
            Widget::Text(w) => w.body(paint),
            Widget::Confirm(w) => w.body(paint),
        }
    }
}

/// A one-line text editor with a cursor, drawn with a reverse-video block.
#[derive(Debug, Default, Clone)]
pub struct LineEditor {
    chars: Vec<char>,
    cursor: usize,
}

impl LineEditor {
    pub fn text(&self) -> String {
        self.chars.iter().collect::<String>().trim().to_string()
    }

    /// Applies an editing key; false when the key is not an editing key.
    pub fn edit(&mut self, key: &Key) -> bool {
        match key {
            Key::Char('\u{15}') => {
                // Ctrl-U: clear the line.
                self.chars.clear();
                self.cursor = 0;
            }
            Key::Char('\u{17}') => {
                // Ctrl-W: delete the word before the cursor.
                let mut start = self.cursor;
                while start > 0 && self.chars[start - 1] == ' ' {
                    start -= 1;
                }
                while start > 0 && self.chars[start - 1] != ' ' {
                    start -= 1;
                }
                self.chars.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Char(c) if !sanitize::is_unsafe(*c) && *c != '\n' => {
                let c = if *c == '\t' { ' ' } else { *c };
                self.chars.insert(self.cursor, c);
                self.cursor += 1;
            }
            Key::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.chars.remove(self.cursor);
            }
            Key::Del if self.cursor < self.chars.len() => {
                self.chars.remove(self.cursor);
            }
            Key::ArrowLeft => self.cursor = self.cursor.saturating_sub(1),
            Key::ArrowRight => self.cursor = (self.cursor + 1).min(self.chars.len()),
            Key::Home => self.cursor = 0,
            Key::End => self.cursor = self.chars.len(),
            Key::Backspace | Key::Del => {}
            _ => return false,
        }
        true
    }

    /// The text with a block cursor; the placeholder (dim) while empty.
    pub fn spans(&self, paint: Paint, placeholder: Option<&str>, focused: bool) -> Vec<Span> {
        let before: String = self.chars[..self.cursor].iter().collect();
        let at: String = self
            .chars
            .get(self.cursor)
            .map_or(" ".to_string(), |c| c.to_string());
        let after: String = self
            .chars
            .get(self.cursor + 1..)
            .unwrap_or(&[])
            .iter()
            .collect();
        let mut spans = vec![Span::plain(&before)];
        if focused {
            spans.push(paint.reverse(&at));
        } else if self.cursor < self.chars.len() {
            spans.push(Span::plain(&at));
        }
        spans.push(Span::plain(&after));
        if self.chars.is_empty()
            && let Some(placeholder) = placeholder
        {
            spans.push(paint.dim(placeholder));
        }
        spans
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Option(usize),
    Other,
    Skip,
}

/// Single and multi select, with an optional "Other" row that is edited in
/// place and, for a single select that may be skipped, a "Skip" row.
pub struct Select<'q> {
    question: &'q Question,
    multi: bool,
    rows: Vec<Row>,
    cursor: usize,
    checked: Vec<bool>,
    other: LineEditor,
    warning: Option<&'static str>,
}

impl<'q> Select<'q> {
    fn new(question: &'q Question) -> Self {
        let multi = question.kind == Kind::MultiSelect;
        let mut rows: Vec<Row> = (0..question.options.len()).map(Row::Option).collect();
        if question.allow_other {
            rows.push(Row::Other);
        }
        if !multi && !question.required {
            rows.push(Row::Skip);
        }
        let mut checked = vec![false; question.options.len()];
        if multi && let Some(Default::Options(ids)) = &question.default {
            for (i, option) in question.options.iter().enumerate() {
                checked[i] = ids.contains(&option.id);
            }
        }
        Select {
            question,
            multi,
            rows,
            cursor: question.preselected_index().unwrap_or(0),
            checked,
            other: LineEditor::default(),
            warning: None,
        }
    }

    fn handle(&mut self, key: Key) -> Step {
        self.warning = None;
        let row = self.rows[self.cursor];
        let n = self.rows.len();
        match key {
            Key::ArrowUp | Key::BackTab => self.cursor = (self.cursor + n - 1) % n,
            Key::ArrowDown | Key::Tab => self.cursor = (self.cursor + 1) % n,
            Key::PageUp => self.cursor = 0,
            Key::PageDown => self.cursor = n - 1,
            Key::Enter => return self.submit(),
            // On the Other row every other key edits its text.
            key if row == Row::Other => {
                self.other.edit(&key);
            }
            Key::Char('k') => self.cursor = (self.cursor + n - 1) % n,
            Key::Char('j') => self.cursor = (self.cursor + 1) % n,
            Key::Home => self.cursor = 0,
            Key::End => self.cursor = n - 1,
            Key::Char('q') => return Step::Cancel,
            Key::Char(' ') if self.multi => self.toggle(),
            Key::Char(' ') => return self.submit(),
            Key::Char(c @ '1'..='9') => {
                let index = c as usize - '1' as usize;
                if index < self.question.options.len() {
                    self.cursor = index;
                    if self.multi {
                        self.toggle();
                    }
                }
            }
            _ => {}
        }
        Step::Continue
    }

    fn toggle(&mut self) {
        if let Row::Option(i) = self.rows[self.cursor] {
            self.checked[i] = !self.checked[i];
        }
    }

    fn submit(&mut self) -> Step {
        let other = Some(self.other.text()).filter(|t| !t.is_empty());
        if !self.multi {
            return match self.rows[self.cursor] {
                Row::Option(i) => Step::Done(Choice::Options {
                    indices: vec![i],
                    other: None,
                }),
                Row::Other if other.is_some() => Step::Done(Choice::Options {
                    indices: Vec::new(),
                    other,
                }),
                Row::Other => {
                    self.warning = Some("Type your answer, or choose an option");
                    Step::Continue
                }
                Row::Skip => Step::Done(Choice::Skipped),
            };
        }
        let indices: Vec<usize> = (0..self.checked.len())
            .filter(|&i| self.checked[i])
            .collect();
        if indices.is_empty() && other.is_none() {
            if self.question.required {
                self.warning = Some("Choose at least one option (Space toggles)");
                return Step::Continue;
            }
            return Step::Done(Choice::Skipped);
        }
        Step::Done(Choice::Options { indices, other })
    }

    fn body(&self, paint: Paint, width: usize) -> Body {
        let mut blocks = Vec::with_capacity(self.rows.len());
        for (r, row) in self.rows.iter().enumerate() {
            let here = r == self.cursor;
            let mut line: Line = vec![if here {
                paint.accent("❯ ")
            } else {
                Span::plain("  ")
            }];
            let mut block = Vec::new();
            match *row {
                Row::Option(i) => {
                    let option = &self.question.options[i];
                    if self.multi {
                        line.push(if self.checked[i] {
                            paint.good("◉ ")
                        } else {
                            Span::plain("◯ ")
                        });
                    }
                    line.push(paint.dim(&format!("{}. ", option.id)));
                    line.push(if here {
                        paint.accent(&option.label)
                    } else {
                        Span::plain(&option.label)
                    });
                    if option.recommended && !option.label.to_lowercase().ends_with("(recommended)")
                    {
                        line.push(paint.dim(" (recommended)"));
                    }
                    block.push(line);
                    if let Some(description) = &option.description {
                        let indent = if self.multi { 7 } else { 5 };
                        let rows = wrap(description, width.saturating_sub(indent + 1));
                        let shown = rows.len().min(3);
                        for (k, text) in rows.iter().take(shown).enumerate() {
                            let more = k + 1 == shown && rows.len() > shown;
                            let text = if more {
                                format!("{text}…")
                            } else {
                                text.clone()
                            };
                            block.push(vec![Span::plain(&" ".repeat(indent)), paint.dim(&text)]);
                        }
                    }
                }
                Row::Other => {
                    if self.multi {
                        line.push(if self.other.text().is_empty() {
                            Span::plain("◯ ")
                        } else {
                            paint.good("◉ ")
                        });
                    }
                    if here {
                        line.push(paint.accent("Other: "));
                        line.extend(self.other.spans(paint, Some("type your answer"), true));
                    } else if self.other.text().is_empty() {
                        line.push(Span::plain("Other…"));
                    } else {
                        line.push(Span::plain("Other: "));
                        line.extend(self.other.spans(paint, None, false));
                    }
                    block.push(line);
                }
                Row::Skip => {
                    line.push(if here {
                        paint.accent("Skip this question")
                    } else {
                        paint.dim("Skip this question")
                    });
                    block.push(line);
                }
            }
            blocks.push(block);
        }
        let keys = match (self.multi, self.rows[self.cursor] == Row::Other) {
            (false, false) => "↑/↓ move · Enter choose · Esc cancel",
            (true, false) => "↑/↓ move · Space toggle · Enter confirm · Esc cancel",
            (_, true) => "type your answer · ↑/↓ move · Enter confirm · Esc cancel",
        };
        Body {
            blocks,
            cursor_block: self.cursor,
            hint: hint(paint, self.warning, keys),
        }
    }
}

fn hint(paint: Paint, warning: Option<&str>, keys: &str) -> Line {
    match warning {
        Some(warning) => vec![Span::plain("  "), paint.warn(warning)],
        None => vec![Span::plain("  "), paint.dim(keys)],
    }
}

pub struct TextInput<'q> {
    question: &'q Question,
    editor: LineEditor,
    warning: Option<&'static str>,
}

impl<'q> TextInput<'q> {
    fn new(question: &'q Question) -> Self {
        TextInput {
            question,
            editor: LineEditor::default(),
            warning: None,
        }
    }

    fn default_text(&self) -> Option<&str> {
        match &self.question.default {
            Some(Default::Text(text)) => Some(text),
            _ => None,
        }
    }

    fn handle(&mut self, key: Key) -> Step {
        self.warning = None;
        if key != Key::Enter {
            self.editor.edit(&key);
            return Step::Continue;
        }
        let text = self.editor.text();
        if !text.is_empty() {
            return Step::Done(Choice::Text(text));
        }
        if let Some(default) = self.default_text() {
            return Step::Done(Choice::Text(default.to_string()));
        }
        if !self.question.required {
            return Step::Done(Choice::Skipped);
        }
        self.warning = Some("An answer is required");
        Step::Continue
    }

    fn body(&self, paint: Paint) -> Body {
        let placeholder = self.question.placeholder.as_deref().or(self.default_text());
        let mut line = vec![paint.accent("› ")];
        line.extend(self.editor.spans(paint, placeholder, true));
        let keys = match (self.default_text(), self.question.required) {
            (Some(default), _) => format!(
                "Enter submit (empty keeps the default: {}) · Esc cancel",
                crate::text::fold_line(default)
            ),
            (None, false) => "Enter submit (empty skips) · Esc cancel".to_string(),
            (None, true) => "Enter submit · Esc cancel".to_string(),
        };
        Body {
            blocks: vec![vec![line]],
            cursor_block: 0,
            hint: hint(paint, self.warning, &keys),
        }
    }
}

pub struct Confirm<'q> {
    question: &'q Question,
    selected: Option<bool>,
    warning: Option<&'static str>,
}

impl<'q> Confirm<'q> {
    fn new(question: &'q Question) -> Self {
        let selected = match question.default {
            Some(Default::Confirm(yes)) => Some(yes),
            _ => None,
        };
        Confirm {
            question,
            selected,
            warning: None,
        }
    }

    fn handle(&mut self, key: Key) -> Step {
        self.warning = None;
        match key {
            Key::Char('y' | 'Y') => return Step::Done(Choice::Confirm(true)),
            Key::Char('n' | 'N') => return Step::Done(Choice::Confirm(false)),
            Key::Char('q') => return Step::Cancel,
            Key::ArrowLeft | Key::ArrowUp | Key::Char('h' | 'k') => self.selected = Some(true),
            Key::ArrowRight | Key::ArrowDown | Key::Char('l' | 'j') => self.selected = Some(false),
            Key::Tab | Key::BackTab => self.selected = Some(!self.selected.unwrap_or(false)),
            Key::Enter => {
                return match self.selected {
                    Some(yes) => Step::Done(Choice::Confirm(yes)),
                    None if !self.question.required => Step::Done(Choice::Skipped),
                    None => {
                        self.warning = Some("Press y or n");
                        Step::Continue
                    }
                };
            }
            _ => {}
        }
        Step::Continue
    }

    fn body(&self, paint: Paint) -> Body {
        let choice = |label: &str, on: bool| {
            if on {
                paint.reverse(&format!(" {label} "))
            } else {
                Span::plain(&format!(" {label} "))
            }
        };
        let line = vec![
            paint.accent("› "),
            choice("Yes", self.selected == Some(true)),
            Span::plain(" / "),
            choice("No", self.selected == Some(false)),
        ];
        Body {
            blocks: vec![vec![line]],
            cursor_block: 0,
            hint: hint(paint, self.warning, "y/n · ←/→ then Enter · Esc cancel"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse;

    fn question(json: &str) -> Question {
        parse(json.as_bytes()).unwrap().questions.remove(0)
    }

    fn run(question: &Question, keys: Vec<Key>) -> Step {
        let mut widget = Widget::new(question);
        let mut last = Step::Continue;
        for key in keys {
            last = widget.handle(key);
        }
        last
    }

    #[test]
    fn single_select_starts_on_the_recommended_option_and_wraps() {
        let q = question(r#"{"question":"x","options":["a",{"label":"b","recommended":true}]}"#);
        assert_eq!(
            run(&q, vec![Key::Enter]),
            Step::Done(Choice::Options {
                indices: vec![1],
                other: None
            })
        );
        assert_eq!(
            run(&q, vec![Key::ArrowDown, Key::Enter]),
            Step::Done(Choice::Options {
                indices: vec![0],
                other: None
            })
        );
    }

    #[test]
    fn other_row_edits_text_and_q_is_a_letter_there() {
        let q = question(r#"{"question":"x","options":["a","b"],"allow_other":true}"#);
        let mut keys = vec![Key::ArrowUp];
        keys.extend("q j".chars().map(Key::Char));
        keys.push(Key::Enter);
        assert_eq!(
            run(&q, keys),
            Step::Done(Choice::Options {
                indices: vec![],
                other: Some("q j".into())
            })
        );
        assert_eq!(run(&q, vec![Key::ArrowUp, Key::Enter]), Step::Continue);
    }

    #[test]
    fn a_skippable_single_select_has_a_skip_row() {
        let q =
            question(r#"{"questions":[{"question":"x","options":["a","b"],"required":false}]}"#);
        assert_eq!(
            run(&q, vec![Key::End, Key::Enter]),
            Step::Done(Choice::Skipped)
        );
    }

    #[test]
    fn multi_select_defaults_are_checked_and_digits_toggle() {
        let q = question(
            r#"{"question":"x","multi_select":true,"options":["a","b","c"],"default":["a"]}"#,
        );
        assert_eq!(
            run(&q, vec![Key::Char('3'), Key::Enter]),
            Step::Done(Choice::Options {
                indices: vec![0, 2],
                other: None
            })
        );
        assert_eq!(run(&q, vec![Key::Char('1'), Key::Enter]), Step::Continue);
    }

    #[test]
    fn escape_and_ctrl_c_cancel_everywhere_and_q_outside_text() {
        for json in [
            r#"{"question":"x","options":["a","b"]}"#,
            r#"{"prompt":"x","type":"text"}"#,
            r#"{"prompt":"x","type":"confirm"}"#,
        ] {
            let q = question(json);
            assert_eq!(run(&q, vec![Key::Escape]), Step::Cancel);
            assert_eq!(run(&q, vec![Key::CtrlC]), Step::Cancel);
            let q_key = run(&q, vec![Key::Char('q')]);
            if q.kind == Kind::Text {
                assert_eq!(q_key, Step::Continue);
            } else {
                assert_eq!(q_key, Step::Cancel);
            }
        }
    }

    #[test]
    fn text_editing_keys() {
        let q = question(r#"{"prompt":"x","type":"text"}"#);
        let mut keys: Vec<Key> = "hello big world".chars().map(Key::Char).collect();
        keys.push(Key::Char('\u{17}'));
        keys.extend([Key::Home, Key::Del, Key::Char('H'), Key::End, Key::Enter]);
        assert_eq!(run(&q, keys), Step::Done(Choice::Text("Hello big".into())));
        let keys = vec![
            Key::Char('a'),
            Key::Char('\u{15}'),
            Key::Char('\u{1b}'),
            Key::Enter,
        ];
        assert_eq!(run(&q, keys), Step::Continue);
    }

    #[test]
    fn confirm_without_default_needs_a_choice() {
        let q = question(r#"{"prompt":"x","type":"confirm"}"#);
        assert_eq!(run(&q, vec![Key::Enter]), Step::Continue);
        assert_eq!(
            run(&q, vec![Key::ArrowRight, Key::Enter]),
            Step::Done(Choice::Confirm(false))
        );
        assert_eq!(
            run(&q, vec![Key::Char('Y')]),
            Step::Done(Choice::Confirm(true))
        );
    }
}
