//! Terminal-safe text (DESIGN §9).
//!
//! Text from the input is drawn on a person's terminal, so a label must not be
//! able to retitle the window, clear the screen, move the cursor, hide text or
//! reorder it. Escape sequences (CSI, OSC, DCS and the other string
//! sequences, in their 7-bit `ESC x` and 8-bit C1 forms) are removed whole, so
//! their payload never shows up as fake text; every other C0 and C1 control,
//! DEL, the bidi controls and the invisible format characters are removed
//! too. Newline and tab are kept. fd's `sanitize.rs` lists the same characters.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// 8-bit String Terminator.
const ST: char = '\u{9c}';

/// `text` with every terminal control removed; borrowed when nothing had to go.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // Two-character sequences (ESC 7, ESC c, ESC M, …); a bare ESC at the end.
                Some(_) | None => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` for a one-line message (a desktop notification, an environment
/// variable): no controls, whitespace runs and newlines as one space, at most
/// `max_chars` characters (the last one `…` when cut).
pub fn one_line(text: &str, max_chars: usize) -> String {
    let clean = for_terminal(text);
    let line = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max_chars {
        return line;
    }
    let mut cut: String = line.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// True for characters that must not reach a terminal as they are.
pub fn is_unsafe(c: char) -> bool {
    if c == '\n' || c == '\t' {
        return false;
    }
    // is_control: C0, DEL and C1.
    c.is_control()
        || matches!(c,
            '\u{00AD}'                  // soft hyphen (invisible)
            | '\u{061C}'                // Arabic letter mark
            | '\u{180E}'                // Mongolian vowel separator
            | '\u{200B}'..='\u{200F}'   // zero-width characters, LRM, RLM
            | '\u{2028}' | '\u{2029}'   // line and paragraph separators
            | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'   // word joiner, bidi isolates, invisible operators
            | '\u{FEFF}'                // zero-width no-break space (BOM)
            | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotation
            | '\u{E0000}'..='\u{E007F}' // tag characters
        )
}

/// Control Sequence: parameter and intermediate bytes up to a final byte in `@`..=`~`.
fn skip_csi(chars: &mut impl Iterator<Item = char>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) || !(' '..='?').contains(&c) {
            // A final byte ends it; anything else that cannot be inside one ends it too
            // (dropped with it: it is either the final byte or garbage).
            return;
        }
    }
}

/// OSC, DCS, SOS, PM, APC: everything up to BEL, ST or `ESC \` (or the end).
fn skip_string(chars: &mut std::iter::Peekable<impl Iterator<Item = char>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | ST => return,
            ESC => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(text: &str) -> String {
        for_terminal(text).into_owned()
    }

    #[test]
    fn keeps_ordinary_text_borrowed() {
        for text in [
            "PostgreSQL",
            "résumé",
            "文档",
            "🦀 crab",
            "a\tb",
            "two\nlines",
            "❤\u{FE0F}",
        ] {
            assert!(matches!(for_terminal(text), Cow::Borrowed(_)), "{text:?}");
        }
    }

    #[test]
    fn removes_osc_title_and_clear_screen() {
        assert_eq!(clean("a\x1b]0;pwned\x07b\x1b[2Jc"), "abc");
        assert_eq!(
            clean("x\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\"),
            "xlink"
        );
    }

    #[test]
    fn removes_csi_with_parameters_and_cursor_moves() {
        assert_eq!(clean("\x1b[31;1mred\x1b[0m"), "red");
        assert_eq!(clean("a\x1b[10;20Hb\x1b[?25lc\x1b[Ad"), "abcd");
    }

    #[test]
    fn removes_dcs_and_other_strings_up_to_the_terminator() {
        assert_eq!(clean("a\x1bPq#0;2;0;0;0\x1b\\b"), "ab");
        assert_eq!(clean("a\x1b_apc\x07b\x1b^pm\x1b\\c"), "abc");
    }

    #[test]
    fn removes_c1_forms() {
        assert_eq!(clean("a\u{9b}2Jb"), "ab");
        assert_eq!(clean("a\u{9d}0;pwned\u{9c}b"), "ab");
        assert_eq!(clean("a\u{85}b"), "ab");
    }

    #[test]
    fn removes_two_character_escapes_and_lone_esc() {
        assert_eq!(clean("a\x1bcb\x1b7c\x1b"), "abc");
    }

    #[test]
    fn removes_c0_controls_and_del_but_keeps_newline_and_tab() {
        assert_eq!(clean("a\rb\x08c\x07d\x00e\x7ff\ng\th"), "abcdef\ng\th");
    }

    #[test]
    fn removes_bidi_and_zero_width() {
        assert_eq!(clean("safe\u{202E}gnp.exe\u{202C}"), "safegnp.exe");
        assert_eq!(
            clean("a\u{200B}b\u{2066}c\u{2069}\u{FEFF}d\u{200D}e"),
            "abcde"
        );
    }

    #[test]
    fn unterminated_sequences_end_the_text() {
        assert_eq!(clean("a\x1b]0;never ends"), "a");
        assert_eq!(clean("a\x1b[12"), "a");
    }

    #[test]
    fn one_line_is_clean_single_and_short() {
        assert_eq!(
            one_line("  Deploy\n\twhere?\x1b]0;x\x07 ", 40),
            "Deploy where?"
        );
        assert_eq!(one_line("abcdef", 6), "abcdef");
        assert_eq!(one_line("abcdefg", 6), "abcde…");
        assert_eq!(one_line("", 6), "");
    }

    #[test]
    fn output_is_always_safe() {
        let hostile = "\x1b\x1b[\x1b]\u{9b}\u{9d}\x1b[1;2;3;\x7f\u{202e}x";
        assert!(!clean(hostile).chars().any(is_unsafe));
    }
}
