//! One small widget per question kind: a state machine fed with keys that
//! ends in an [`answer::Choice`](crate::answer::Choice) or a cancel, and that
//! draws itself as rows. No terminal here, so each widget is tested directly.

use console::Key;

use crate::answer::Choice;
use crate::model::{Default, Kind, Question};
use crate::sanitize;

use unicode_width::UnicodeWidthChar;

use super::render::{Line, Paint, Span, text_width, wrap};

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Continue,
    Done(Choice),
    Cancel,
}

/// One key (or keys) and what it does, as the hint row shows it. Widgets
/// list their own; the form adds the ones that work everywhere (cancel), so
/// a new key is one more `Hint` in one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub keys: String,
    pub action: String,
}

impl Hint {
    pub fn new(keys: impl Into<String>, action: impl Into<String>) -> Self {
        Hint {
            keys: keys.into(),
            action: action.into(),
        }
    }
}

/// A widget's rows: blocks (one per selectable row with its description,
/// or one per row of a text field) and the block holding the cursor, so a
/// tall list or field can be scrolled to it; then its keys, or a warning
/// that stands in for them until the next key.
pub struct Body {
    pub blocks: Vec<Vec<Line>>,
    pub cursor_block: usize,
    pub hints: Vec<Hint>,
    pub warning: Option<&'static str>,
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
            Widget::Text(w) => w.body(paint, width),
            Widget::Confirm(w) => w.body(paint),
        }
    }
}

/// A text editor with a cursor, drawn with a reverse-video block. It holds
/// several lines: Ctrl-J or Alt-Enter (`Key::Char('\n')`) starts a new one.
#[derive(Debug, Default, Clone)]
pub struct LineEditor {
    chars: Vec<char>,
    cursor: usize,
}

/// An editor drawn as rows: the rows and the one the cursor is on.
pub struct EditorRows {
    pub rows: Vec<Line>,
    pub cursor_row: usize,
}

impl LineEditor {
    /// The text, trimmed at both ends; inner newlines are kept.
    pub fn text(&self) -> String {
        self.chars.iter().collect::<String>().trim().to_string()
    }

    fn line_start(&self) -> usize {
        self.chars[..self.cursor]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.chars[self.cursor..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(self.chars.len(), |i| self.cursor + i)
    }

    /// Moves to the line above (`up`) or below, keeping the column where it can.
    fn move_line(&mut self, up: bool) {
        let start = self.line_start();
        let column = self.cursor - start;
        if up {
            if start == 0 {
                return;
            }
            let above_end = start - 1;
            let above_start = self.chars[..above_end]
                .iter()
                .rposition(|&c| c == '\n')
                .map_or(0, |i| i + 1);
            self.cursor = (above_start + column).min(above_end);
        } else {
            let end = self.line_end();
            if end == self.chars.len() {
                return;
            }
            let below_start = end + 1;
            let below_end = self.chars[below_start..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(self.chars.len(), |i| below_start + i);
            self.cursor = (below_start + column).min(below_end);
        }
    }

    /// Applies an editing key; false when the key is not an editing key.
    pub fn edit(&mut self, key: &Key) -> bool {
        match key {
            Key::Char('\u{15}') => {
                // Ctrl-U: delete from the start of the line to the cursor.
                let start = self.line_start();
                self.chars.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Char('\u{17}') => {
                // Ctrl-W: delete the word before the cursor.
                let mut start = self.cursor;
                while start > 0 && self.chars[start - 1] == ' ' {
                    start -= 1;
                }
                while start > 0 && !matches!(self.chars[start - 1], ' ' | '\n') {
                    start -= 1;
                }
                self.chars.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Char(c) if *c == '\n' || !sanitize::is_unsafe(*c) => {
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
            Key::Home => self.cursor = self.line_start(),
            Key::End => self.cursor = self.line_end(),
            Key::Backspace | Key::Del => {}
            _ => return false,
        }
        true
    }

    /// The text as rows of at most `width` columns, each line of the text
    /// wrapped where it reaches the width, with a block cursor when
    /// `focused`; the placeholder (dim) while empty.
    pub fn rows(
        &self,
        paint: Paint,
        placeholder: Option<&str>,
        focused: bool,
        width: usize,
    ) -> EditorRows {
        let width = width.max(2);
        let mut rows: Vec<Line> = Vec::new();
        let mut row: Line = Vec::new();
        let mut run = String::new();
        let mut used = 0;
        let mut cursor_row = 0;
        let flush = |row: &mut Line, run: &mut String| {
            if !run.is_empty() {
                row.push(Span::plain(run));
                run.clear();
            }
        };
        for (i, &c) in self.chars.iter().chain(std::iter::once(&' ')).enumerate() {
            let end = i == self.chars.len();
            let here = i == self.cursor;
            let newline = c == '\n';
            let w = if newline {
                usize::from(here && focused)
            } else {
                UnicodeWidthChar::width(c).unwrap_or(0)
            };
            if used + w > width {
                flush(&mut row, &mut run);
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            if here {
                cursor_row = rows.len();
            }
            let shown = if newline { ' ' } else { c };
            if here && focused {
                flush(&mut row, &mut run);
                row.push(paint.reverse(&shown.to_string()));
            } else if !end && !newline {
                run.push(shown);
            }
            used += w;
            if newline {
                flush(&mut row, &mut run);
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
        }
        flush(&mut row, &mut run);
        if self.chars.is_empty()
            && let Some(placeholder) = placeholder
        {
            row.push(paint.dim(placeholder));
        }
        rows.push(row);
        EditorRows { rows, cursor_row }
    }

    /// Whether the text holds more than one line.
    pub fn is_multiline(&self) -> bool {
        self.chars.contains(&'\n')
    }
}

/// The keys of a text field (text questions and Other).
fn field_hints(submit: Hint) -> Vec<Hint> {
    vec![
        submit,
        Hint::new("Ctrl-J", "new line"),
        Hint::new("Ctrl-U/W", "delete"),
    ]
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
            // On the Other row every other key edits its text (Ctrl-J: a new line).
            key if row == Row::Other => {
                self.other.edit(&key);
            }
            Key::Char('k') => self.cursor = (self.cursor + n - 1) % n,
            Key::Char('j') => self.cursor = (self.cursor + 1) % n,
            Key::Home => self.cursor = 0,
            Key::End => self.cursor = n - 1,
            Key::Char('q') => return Step::Cancel,
            // A terminal that sends LF for Enter still chooses.
            Key::Char('\n') => return self.submit(),
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
        let mut cursor_block = 0;
        for (r, row) in self.rows.iter().enumerate() {
            let here = r == self.cursor;
            if here {
                cursor_block = blocks.len();
            }
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
                    if !here && self.other.text().is_empty() {
                        line.push(Span::plain("Other…"));
                        block.push(line);
                    } else {
                        line.push(if here {
                            paint.accent("Other: ")
                        } else {
                            Span::plain("Other: ")
                        });
                        // The field grows a row per line; each row is a block
                        // of its own, so a tall answer scrolls to the cursor.
                        let indent = text_width(&line.iter().map(Span::text).collect::<String>());
                        let placeholder = here.then_some("type your answer");
                        let field = self.other.rows(
                            paint,
                            placeholder,
                            here,
                            width.saturating_sub(indent + 1),
                        );
                        for (k, row) in field.rows.into_iter().enumerate() {
                            let mut shown = if k == 0 {
                                std::mem::take(&mut line)
                            } else {
                                vec![Span::plain(&" ".repeat(indent))]
                            };
                            shown.extend(row);
                            if k == field.cursor_row && here {
                                cursor_block = blocks.len();
                            }
                            blocks.push(vec![shown]);
                        }
                        continue;
                    }
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
        // Options have at least 2; the digit keys reach the first 9.
        let digits = format!("1-{}", self.question.options.len().min(9));
        let hints = match (self.multi, self.rows[self.cursor] == Row::Other) {
            (_, true) => {
                // Other's own field: the delete keys work but are not
                // listed, so that the row fits 80 columns.
                vec![
                    Hint::new("↑/↓", "move"),
                    Hint::new("Enter", "confirm"),
                    Hint::new("Ctrl-J", "new line"),
                ]
            }
            // Home/End work too but are not listed: with the note and
            // cancel keys the row must fit 80 columns (docs/terminal.md
            // lists every key).
            (false, false) => vec![
                Hint::new("↑/↓", "move"),
                Hint::new(&digits, "go to"),
                Hint::new("Enter", "choose"),
            ],
            (true, false) => vec![
                Hint::new("↑/↓", "move"),
                Hint::new(format!("Space/{digits}"), "toggle"),
                Hint::new("Enter", "confirm"),
            ],
        };
        Body {
            blocks,
            cursor_block,
            hints,
            warning: self.warning,
        }
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
        match key {
            Key::Enter => {}
            Key::ArrowUp => {
                self.editor.move_line(true);
                return Step::Continue;
            }
            Key::ArrowDown => {
                self.editor.move_line(false);
                return Step::Continue;
            }
            key => {
                self.editor.edit(&key);
                return Step::Continue;
            }
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

    fn body(&self, paint: Paint, width: usize) -> Body {
        let placeholder = self.question.placeholder.as_deref().or(self.default_text());
        // Each row of the field is a block, so a tall answer scrolls to the cursor.
        let field = self
            .editor
            .rows(paint, placeholder, true, width.saturating_sub(3));
        let blocks = field
            .rows
            .into_iter()
            .enumerate()
            .map(|(k, row)| {
                let mut line = vec![if k == 0 {
                    paint.accent("› ")
                } else {
                    Span::plain("  ")
                }];
                line.extend(row);
                vec![line]
            })
            .collect();
        let submit = match (self.default_text(), self.question.required) {
            (Some(default), _) => format!(
                "submit (empty keeps the default: {})",
                crate::text::fold_line(default)
            ),
            (None, false) => "submit (empty skips)".to_string(),
            (None, true) => "submit".to_string(),
        };
        let mut hints = field_hints(Hint::new("Enter", submit));
        if self.editor.is_multiline() {
            hints.push(Hint::new("↑/↓", "line"));
        }
        Body {
            blocks,
            cursor_block: field.cursor_row,
            hints,
            warning: self.warning,
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
            // A terminal that sends LF for Enter still confirms.
            Key::Enter | Key::Char('\n') => {
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
        // The choice is marked with ❯ as well as inverse video, so it shows
        // without colour and on any background.
        let choice = |label: &str, on: bool| {
            if on {
                vec![paint.accent("❯ "), paint.reverse(label), Span::plain("  ")]
            } else {
                vec![Span::plain("  "), Span::plain(label), Span::plain("  ")]
            }
        };
        let mut line = choice("Yes", self.selected == Some(true));
        line.extend(choice("No", self.selected == Some(false)));
        Body {
            blocks: vec![vec![line]],
            cursor_block: 0,
            hints: vec![
                Hint::new("y/n", "answer"),
                Hint::new("←/→", "move"),
                Hint::new("Enter", "confirm"),
            ],
            warning: self.warning,
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
    fn page_keys_home_end_and_space_move_and_choose_in_a_single_select() {
        let q =
            question(r#"{"question":"x","options":["a",{"label":"b","recommended":true},"c"]}"#);
        let chose = |index| {
            Step::Done(Choice::Options {
                indices: vec![index],
                other: None,
            })
        };
        assert_eq!(run(&q, vec![Key::PageDown, Key::Enter]), chose(2));
        assert_eq!(run(&q, vec![Key::PageUp, Key::Enter]), chose(0));
        assert_eq!(run(&q, vec![Key::End, Key::Enter]), chose(2));
        assert_eq!(run(&q, vec![Key::Home, Key::Enter]), chose(0));
        assert_eq!(run(&q, vec![Key::Char('j'), Key::Enter]), chose(2));
        assert_eq!(run(&q, vec![Key::Char('k'), Key::Enter]), chose(0));
        // Space chooses the row it is on, as Enter does.
        assert_eq!(run(&q, vec![Key::Char(' ')]), chose(1));
        assert_eq!(run(&q, vec![Key::Char('3')]), Step::Continue);
        assert_eq!(run(&q, vec![Key::Char('3'), Key::Char(' ')]), chose(2));
        // A number past the last option moves nothing.
        assert_eq!(run(&q, vec![Key::Char('4'), Key::Enter]), chose(1));
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
        // Unless the question may be skipped: then Enter skips it.
        let optional = question(r#"{"prompt":"x","type":"confirm","required":false}"#);
        assert_eq!(
            run(&optional, vec![Key::Enter]),
            Step::Done(Choice::Skipped)
        );
        assert_eq!(
            run(&q, vec![Key::ArrowRight, Key::Enter]),
            Step::Done(Choice::Confirm(false))
        );
        assert_eq!(
            run(&q, vec![Key::Char('Y')]),
            Step::Done(Choice::Confirm(true))
        );
    }

    /// Every way to move picks its side; Tab and Shift-Tab swap (from no
    /// choice, Tab picks Yes).
    #[test]
    fn confirm_moves_with_arrows_letters_and_tab() {
        let q = question(r#"{"prompt":"x","type":"confirm"}"#);
        for yes in [Key::ArrowLeft, Key::ArrowUp, Key::Char('h'), Key::Char('k')] {
            assert_eq!(
                run(&q, vec![Key::ArrowRight, yes.clone(), Key::Enter]),
                Step::Done(Choice::Confirm(true)),
                "{yes:?}"
            );
        }
        for no in [Key::ArrowDown, Key::Char('l'), Key::Char('j')] {
            assert_eq!(
                run(&q, vec![Key::ArrowLeft, no.clone(), Key::Enter]),
                Step::Done(Choice::Confirm(false)),
                "{no:?}"
            );
        }
        for (keys, yes) in [
            (vec![Key::Tab], true),
            (vec![Key::Tab, Key::Tab], false),
            (vec![Key::Tab, Key::BackTab], false),
            (vec![Key::ArrowRight, Key::BackTab], true),
        ] {
            let mut keys = keys;
            keys.push(Key::Enter);
            assert_eq!(
                run(&q, keys.clone()),
                Step::Done(Choice::Confirm(yes)),
                "{keys:?}"
            );
        }
    }

    /// A long Other answer wraps inside the window with a column left for
    /// the cursor, and the block with the cursor's row is the one a tall
    /// body scrolls to.
    #[test]
    fn a_long_other_answer_wraps_inside_the_window_and_scrolls_to_its_cursor() {
        let paint = Paint { color: false };
        let q = question(r#"{"question":"x","options":["a","b"],"allow_other":true}"#);
        let mut widget = Widget::new(&q);
        widget.handle(Key::ArrowUp);
        for _ in 0..60 {
            widget.handle(Key::Char('x'));
        }
        let body = widget.body(paint, 20);
        let rows: Vec<String> = body.blocks.iter().flatten().map(row_text).collect();
        assert!(rows.len() >= 6, "{rows:?}");
        for row in &rows {
            assert!(text_width(row) < 20, "{row:?} of {rows:?}");
        }
        let field = body
            .blocks
            .iter()
            .position(|block| row_text(&block[0]).contains("Other: "))
            .unwrap_or_else(|| panic!("{rows:?}"));
        assert!(body.blocks.len() - field >= 4, "{rows:?}");
        // The cursor after the text: the field's last row.
        assert_eq!(body.cursor_block, body.blocks.len() - 1, "{rows:?}");
        // Home: the field's first row.
        widget.handle(Key::Home);
        assert_eq!(widget.body(paint, 20).cursor_block, field, "{rows:?}");
    }

    fn keys_of(body: &Body) -> Vec<String> {
        body.hints
            .iter()
            .map(|h| format!("{} {}", h.keys, h.action))
            .collect()
    }

    #[test]
    fn options_show_recommended_once_and_descriptions_in_three_rows_at_most() {
        let paint = Paint { color: false };
        let q = question(
            r#"{"question":"x","options":["a",
                {"label":"b","recommended":true},
                {"label":"c (Recommended)","recommended":true},
                {"label":"d","description":"one two three four five six seven eight nine ten eleven"},
                {"label":"e","description":"one two three x"}]}"#,
        );
        let body = Widget::new(&q).body(paint, 20);
        let blocks: Vec<Vec<String>> = body
            .blocks
            .iter()
            .map(|block| block.iter().map(row_text).collect())
            .collect();
        assert_eq!(
            blocks,
            [
                vec!["  1. a"],
                vec!["❯ 2. b (recommended)"],
                vec!["  3. c (Recommended)"],
                vec![
                    "  4. d",
                    "     one two three",
                    "     four five six",
                    "     seven eight…",
                ],
                vec!["  5. e", "     one two three", "     x"],
            ]
        );
    }

    #[test]
    fn every_widget_lists_its_keys() {
        let paint = Paint { color: false };
        let select = question(r#"{"question":"x","options":["a","b","c"],"allow_other":true}"#);
        let mut widget = Widget::new(&select);
        assert_eq!(
            keys_of(&widget.body(paint, 80)),
            ["↑/↓ move", "1-3 go to", "Enter choose"]
        );
        widget.handle(Key::ArrowUp);
        assert_eq!(
            keys_of(&widget.body(paint, 80)),
            ["↑/↓ move", "Enter confirm", "Ctrl-J new line"]
        );
        let multi = question(r#"{"question":"x","multi_select":true,"options":["a","b"]}"#);
        assert_eq!(
            keys_of(&Widget::new(&multi).body(paint, 80)),
            ["↑/↓ move", "Space/1-2 toggle", "Enter confirm"]
        );
        let text = question(r#"{"prompt":"x","type":"text","default":"d"}"#);
        let mut widget = Widget::new(&text);
        assert_eq!(
            keys_of(&widget.body(paint, 80))[0],
            "Enter submit (empty keeps the default: d)"
        );
        widget.handle(Key::Char('\n'));
        assert!(keys_of(&widget.body(paint, 80)).contains(&"↑/↓ line".to_string()));
        let confirm = question(r#"{"prompt":"x","type":"confirm"}"#);
        assert_eq!(
            keys_of(&Widget::new(&confirm).body(paint, 80)),
            ["y/n answer", "←/→ move", "Enter confirm"]
        );
    }

    fn typed(editor: &mut LineEditor, keys: &[Key]) {
        for key in keys {
            editor.edit(key);
        }
    }

    fn chars(text: &str) -> Vec<Key> {
        text.chars().map(Key::Char).collect()
    }

    #[test]
    fn the_editor_holds_lines_and_edits_within_them() {
        let mut editor = LineEditor::default();
        typed(&mut editor, &chars("one two\nthree four"));
        assert!(editor.is_multiline());
        // Ctrl-W stops at the line break; Ctrl-U clears to the line's start.
        typed(&mut editor, &[Key::Char('\u{17}')]);
        assert_eq!(editor.text(), "one two\nthree");
        typed(&mut editor, &[Key::Char('\u{17}'), Key::Char('\u{17}')]);
        assert_eq!(editor.text(), "one two");
        typed(&mut editor, &chars("ab"));
        typed(&mut editor, &[Key::Char('\u{15}')]);
        assert_eq!(editor.text(), "one two");
        assert_eq!(editor.cursor, 8);
        // Home and End go to the ends of the current line.
        typed(&mut editor, &chars("xyz"));
        typed(&mut editor, &[Key::Home, Key::Char('>')]);
        assert_eq!(editor.text(), "one two\n>xyz");
        typed(&mut editor, &[Key::End, Key::Char('<')]);
        assert_eq!(editor.text(), "one two\n>xyz<");
        // Up and down keep the column where they can.
        editor.move_line(true);
        assert_eq!(editor.cursor, 5);
        editor.move_line(true);
        assert_eq!(editor.cursor, 5, "no line above");
        editor.move_line(false);
        assert_eq!(editor.cursor, 13);
        editor.move_line(false);
        assert_eq!(editor.cursor, 13, "no line below");
        typed(
            &mut editor,
            &[Key::ArrowLeft, Key::ArrowLeft, Key::ArrowLeft],
        );
        editor.move_line(true);
        assert_eq!(editor.cursor, 2);
        // A tab is a space; other controls are not text.
        typed(&mut editor, &[Key::Char('\t'), Key::Char('\u{7}')]);
        assert_eq!(editor.text(), "on e two\n>xyz<");
        // Up from the third line lands in the second, at the same column.
        let mut three = LineEditor::default();
        typed(&mut three, &chars("ab\ncd\nef"));
        three.move_line(true);
        assert_eq!(three.cursor, 5);
        three.move_line(true);
        assert_eq!(three.cursor, 2);
        three.move_line(false);
        three.move_line(false);
        assert_eq!(three.cursor, 8);
        // Down keeps the column, or stops at the end of a shorter line.
        let mut short = LineEditor::default();
        typed(&mut short, &chars("abc\nd\nef"));
        short.cursor = 0;
        short.move_line(false);
        assert_eq!(short.cursor, 4);
        short.cursor = 3;
        short.move_line(false);
        assert_eq!(short.cursor, 5);
        short.move_line(false);
        assert_eq!(short.cursor, 7);
        // End on a line with another below stops at its own end.
        typed(&mut editor, &[Key::End, Key::Char('!')]);
        assert_eq!(editor.text(), "on e two!\n>xyz<");
    }

    #[test]
    fn arrows_backspace_and_delete_edit_and_stop_at_the_ends() {
        let mut editor = LineEditor::default();
        // At either end, Backspace and Delete are still editing keys: they
        // do nothing, and no other part of the form takes them.
        assert!(editor.edit(&Key::Backspace));
        assert!(editor.edit(&Key::Del));
        typed(&mut editor, &chars("ab"));
        assert!(editor.edit(&Key::Del));
        assert_eq!(editor.text(), "ab");
        typed(&mut editor, &[Key::ArrowLeft, Key::ArrowLeft]);
        assert!(editor.edit(&Key::Backspace));
        assert_eq!((editor.text().as_str(), editor.cursor), ("ab", 0));
        assert!(editor.edit(&Key::ArrowRight));
        typed(&mut editor, &chars("x"));
        assert_eq!(editor.text(), "axb");
        typed(
            &mut editor,
            &[Key::ArrowRight, Key::ArrowRight, Key::Char('!')],
        );
        assert_eq!(editor.text(), "axb!");
        typed(&mut editor, &[Key::ArrowLeft, Key::Del, Key::Backspace]);
        assert_eq!((editor.text().as_str(), editor.cursor), ("ax", 2));
        assert!(!editor.edit(&Key::ArrowUp));
        // Ctrl-W takes the last word and the spaces after it; spaces alone, to the start.
        let mut first = LineEditor::default();
        typed(&mut first, &chars(" one "));
        typed(&mut first, &[Key::Char('\u{17}')]);
        assert_eq!((first.text().as_str(), first.cursor), ("", 1));
        typed(&mut first, &chars("  "));
        typed(&mut first, &[Key::Char('\u{17}')]);
        assert_eq!(first.cursor, 0);
    }

    fn row_text(row: &Line) -> String {
        row.iter().map(Span::text).collect()
    }

    fn texts(drawn: &EditorRows) -> Vec<String> {
        drawn.rows.iter().map(row_text).collect()
    }

    #[test]
    fn the_editor_wraps_its_lines_and_finds_the_cursor_row() {
        let paint = Paint { color: false };
        let mut editor = LineEditor::default();
        typed(&mut editor, &chars("abcdefgh\nij"));
        let drawn = editor.rows(paint, None, true, 5);
        assert_eq!(texts(&drawn), ["abcde", "fgh", "ij "]);
        assert_eq!(drawn.cursor_row, 2);
        typed(&mut editor, &[Key::ArrowUp]);
        editor.move_line(true);
        assert_eq!(editor.rows(paint, None, true, 5).cursor_row, 0);
        // Unfocused: no cursor block; empty: the placeholder.
        let drawn = editor.rows(paint, None, false, 20);
        assert_eq!(texts(&drawn), ["abcdefgh", "ij"]);
        let empty = LineEditor::default().rows(paint, Some("type"), true, 20);
        assert_eq!(row_text(&empty.rows[0]), " type");
        // A line as wide as the window: its line break takes no column unless
        // the cursor is on it.
        let mut full = LineEditor::default();
        typed(&mut full, &chars("abcd\nef"));
        assert_eq!(texts(&full.rows(paint, None, true, 4)), ["abcd", "ef "]);
        full.cursor = 4;
        let drawn = full.rows(paint, None, true, 4);
        assert_eq!(texts(&drawn), ["abcd", " ", "ef"]);
        assert_eq!(drawn.cursor_row, 1);
    }

    #[test]
    fn a_newline_key_chooses_in_a_list_and_breaks_a_line_in_text() {
        let q = question(r#"{"question":"x","options":["a","b"]}"#);
        assert_eq!(
            run(&q, vec![Key::Char('\n')]),
            Step::Done(Choice::Options {
                indices: vec![0],
                other: None
            })
        );
        let c = question(r#"{"prompt":"x","type":"confirm","default":"no"}"#);
        assert_eq!(
            run(&c, vec![Key::Char('\n')]),
            Step::Done(Choice::Confirm(false))
        );
        let t = question(r#"{"prompt":"x","type":"text"}"#);
        let mut keys = chars("a");
        keys.extend([Key::Char('\n'), Key::Char('b'), Key::Enter]);
        assert_eq!(run(&t, keys), Step::Done(Choice::Text("a\nb".into())));
    }
}
