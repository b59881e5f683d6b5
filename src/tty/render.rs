//! Building frame lines: styles, display width, wrapping and truncation.
//!
//! Every piece of input text passes through [`crate::sanitize`] before it is
//! styled here, so the only escape sequences in a frame are the ones below.

use unicode_width::UnicodeWidthChar;

use crate::sanitize;

/// The styles a frame uses. Colour is dropped under `NO_COLOR` or `TERM=dumb`;
/// bold, dim and reverse stay (they carry the cursor and the selection).
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    pub color: bool,
}

impl Paint {
    pub fn from_env() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|v| v == "dumb");
        Paint {
            color: !no_color && !dumb,
        }
    }

    pub fn bold(self, text: &str) -> Span {
        Span::styled("1", text)
    }

    pub fn dim(self, text: &str) -> Span {
        Span::styled("2", text)
    }

    pub fn reverse(self, text: &str) -> Span {
        Span::styled("7", text)
    }

    /// The highlighted row and the prompt marks.
    pub fn accent(self, text: &str) -> Span {
        Span::styled(if self.color { "1;36" } else { "1" }, text)
    }

    pub fn good(self, text: &str) -> Span {
        Span::styled(if self.color { "32" } else { "" }, text)
    }

    pub fn warn(self, text: &str) -> Span {
        Span::styled(if self.color { "33" } else { "1" }, text)
    }
}

/// A run of text with one SGR style ("" for none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    sgr: &'static str,
    text: String,
}

impl Span {
    pub fn plain(text: &str) -> Span {
        Span::styled("", text)
    }

    /// The text as it will be shown (sanitized).
    pub fn text(&self) -> &str {
        &self.text
    }

    fn styled(sgr: &'static str, text: &str) -> Span {
        // Tabs have no fixed width; a space keeps the width count exact.
        let text = sanitize::for_terminal(text).replace(['\t', '\n'], " ");
        Span { sgr, text }
    }
}

/// One screen row.
pub type Line = Vec<Span>;

/// The row as terminal bytes, cut to `width` columns (with "…" when cut).
pub fn fit(line: &[Span], width: usize) -> String {
    let total: usize = line.iter().map(|s| text_width(&s.text)).sum();
    let budget = if total > width {
        width.saturating_sub(1)
    } else {
        width
    };
    let mut out = String::new();
    let mut used = 0;
    for span in line {
        let mut piece = String::new();
        for c in span.text.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > budget {
                break;
            }
            used += w;
            piece.push(c);
        }
        if !piece.is_empty() {
            if span.sgr.is_empty() {
                out.push_str(&piece);
            } else {
                out.push_str(&format!("\x1b[{}m{piece}\x1b[0m", span.sgr));
            }
        }
        if used >= budget && total > width {
            break;
        }
    }
    if total > width && width > 0 {
        out.push('…');
    }
    out
}

pub fn text_width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Sanitized `text` broken into rows of at most `width` columns, at spaces
/// where it can be; the text's own newlines are kept.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let clean = sanitize::for_terminal(text).replace('\t', " ");
    let mut rows = Vec::new();
    for paragraph in clean.split('\n') {
        let mut row = String::new();
        let mut row_width = 0;
        for word in paragraph.split(' ') {
            let word_width = text_width(word);
            let gap = usize::from(!row.is_empty());
            if row_width + gap + word_width <= width {
                if gap == 1 {
                    row.push(' ');
                }
                row.push_str(word);
                row_width += gap + word_width;
                continue;
            }
            if !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                row_width = 0;
            }
            // A word longer than a row is cut where the row ends.
            for c in word.chars() {
                let w = c.width().unwrap_or(0);
                if row_width + w > width {
                    rows.push(std::mem::take(&mut row));
                    row_width = 0;
                }
                row.push(c);
                row_width += w;
            }
        }
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_with_an_ellipsis_and_counts_wide_characters() {
        assert_eq!(fit(&[Span::plain("abcdef")], 4), "abc…");
        assert_eq!(fit(&[Span::plain("文档文档")], 5), "文档…");
        assert_eq!(fit(&[Span::plain("abc")], 3), "abc");
        // Nothing after the cut, not even a zero-width mark at the start of
        // a later span (it would come with that span's style).
        let cut = [Span::plain("abcdef"), Span::styled("1", "\u{301}x")];
        assert_eq!(fit(&cut, 4), "abc…");
        // A row that fits is kept whole, a zero-width mark at its end too.
        let whole = [Span::plain("abc"), Span::styled("1", "\u{301}")];
        assert_eq!(fit(&whole, 3), "abc\x1b[1m\u{301}\x1b[0m");
        // No room at all: not even the ellipsis.
        assert_eq!(fit(&[Span::plain("abc")], 0), "");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_keeps_newlines() {
        assert_eq!(wrap("one two three", 9), ["one two", "three"]);
        assert_eq!(wrap("a\nb", 20), ["a", "b"]);
        assert_eq!(wrap("abcdefghijkl", 8), ["abcdefgh", "ijkl"]);
    }

    #[test]
    fn spans_are_sanitized() {
        let line = fit(&[Span::plain("a\x1b]0;x\x07b")], 20);
        assert_eq!(line, "ab");
    }
}
