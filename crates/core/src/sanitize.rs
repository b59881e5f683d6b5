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
        let cleaned = clean(hostile);
        assert!(!cleaned.chars().any(promised), "{cleaned:?}");
    }

    // ---- The promise, class by class, against an oracle written out here ----
    //
    // `PROMISED` is the module's documented list as data, independent of
    // `is_unsafe`: each class is checked on its own, every code point of it.

    /// Every class of character the module promises to remove, by name.
    const PROMISED: &[(&str, char, char)] = &[
        ("C0 controls before tab", '\u{0}', '\u{8}'),
        ("C0 controls after newline", '\u{B}', '\u{1F}'),
        ("DEL", '\u{7F}', '\u{7F}'),
        ("C1 controls", '\u{80}', '\u{9F}'),
        ("soft hyphen", '\u{AD}', '\u{AD}'),
        ("Arabic letter mark", '\u{61C}', '\u{61C}'),
        ("Mongolian vowel separator", '\u{180E}', '\u{180E}'),
        (
            "zero-width space, joiners, LRM, RLM",
            '\u{200B}',
            '\u{200F}',
        ),
        ("line and paragraph separators", '\u{2028}', '\u{2029}'),
        ("bidi embeddings and overrides", '\u{202A}', '\u{202E}'),
        (
            "word joiner and invisible operators",
            '\u{2060}',
            '\u{2064}',
        ),
        ("bidi isolates", '\u{2066}', '\u{2069}'),
        ("deprecated format characters", '\u{206A}', '\u{206F}'),
        ("zero-width no-break space", '\u{FEFF}', '\u{FEFF}'),
        ("interlinear annotation", '\u{FFF9}', '\u{FFFB}'),
        ("tag characters", '\u{E0000}', '\u{E007F}'),
    ];

    /// ESC and the 8-bit introducers start a sequence: they take what follows
    /// with them, so they are checked with sequences below, not one by one.
    const INTRODUCERS: [char; 7] = [
        '\u{1B}', '\u{90}', '\u{98}', '\u{9B}', '\u{9D}', '\u{9E}', '\u{9F}',
    ];

    /// The oracle: in `PROMISED`, or the reserved code point between the
    /// invisible operators and the isolates (U+2065, removed with its block).
    fn promised(c: char) -> bool {
        c == '\u{2065}'
            || PROMISED
                .iter()
                .any(|&(_, first, last)| (first..=last).contains(&c))
    }

    #[test]
    fn each_promised_class_is_removed_code_point_by_code_point() {
        for &(class, first, last) in PROMISED {
            for c in (first..=last).filter(|c| !INTRODUCERS.contains(c)) {
                assert_eq!(
                    clean(&format!("a{c}b")),
                    "ab",
                    "{class}: U+{:04X} was kept",
                    u32::from(c)
                );
                assert!(is_unsafe(c), "{class}: is_unsafe(U+{:04X})", u32::from(c));
            }
        }
    }

    #[test]
    fn the_neighbours_of_each_class_are_kept() {
        let mut kept = vec!['\n', '\t', ' ', '~', '\u{A0}'];
        for &(_, first, last) in PROMISED {
            kept.extend(u32::from(first).checked_sub(1).and_then(char::from_u32));
            kept.extend(char::from_u32(u32::from(last) + 1));
        }
        for c in kept.into_iter().filter(|&c| !promised(c)) {
            let text = format!("a{c}b");
            assert_eq!(clean(&text), text, "U+{:04X} was removed", u32::from(c));
            assert!(!is_unsafe(c), "is_unsafe(U+{:04X})", u32::from(c));
        }
    }

    /// Every Unicode scalar value: removed exactly when the oracle says so.
    #[test]
    fn every_code_point_is_removed_exactly_when_promised() {
        let mut wrong = Vec::new();
        for c in ('\u{0}'..=char::MAX).filter(|c| !INTRODUCERS.contains(c)) {
            let mut text = String::from("a");
            text.push(c);
            let removed = clean(&text) == "a";
            if removed != promised(c) || is_unsafe(c) != promised(c) {
                wrong.push(format!("U+{:04X}", u32::from(c)));
            }
        }
        assert!(wrong.is_empty(), "disagree with the promise: {wrong:?}");
    }

    /// The string sequences in both forms, with each terminator: nothing of
    /// the payload is left, and the text after the terminator is.
    #[test]
    fn string_sequences_are_removed_whole_in_7_and_8_bit_forms() {
        let introducers = [
            ("OSC", "\x1b]", '\u{9D}'),
            ("DCS", "\x1bP", '\u{90}'),
            ("SOS", "\x1bX", '\u{98}'),
            ("PM", "\x1b^", '\u{9E}'),
            ("APC", "\x1b_", '\u{9F}'),
        ];
        for (name, seven, eight) in introducers {
            for start in [seven.to_string(), eight.to_string()] {
                for end in ["\x07", "\u{9C}", "\x1b\\"] {
                    let text = format!("a{start}0;payload[1m{end}b");
                    assert_eq!(clean(&text), "ab", "{name} {start:?}…{end:?}");
                }
                // Unterminated: it runs to the end of the text.
                assert_eq!(clean(&format!("a{start}payload")), "a", "{name}");
            }
        }
    }

    #[test]
    fn control_sequences_are_removed_whole_in_7_and_8_bit_forms() {
        for start in ["\x1b[", "\u{9B}"] {
            // Every final byte, with parameter and intermediate bytes before it.
            for last in '\u{40}'..='\u{7E}' {
                let text = format!("a{start}?1;2 !{last}b");
                assert_eq!(clean(&text), "ab", "{start:?} final {last:?}");
            }
            // A byte that cannot be inside one ends it and goes with it.
            assert_eq!(clean(&format!("a{start}1\u{7}b")), "ab");
            assert_eq!(clean(&format!("a{start}1éb")), "ab");
        }
    }

    #[test]
    fn two_character_escapes_take_only_their_one_character() {
        for second in ['7', '8', 'c', 'M', 'D', '=', '>', '\\'] {
            assert_eq!(clean(&format!("a\x1b{second}bc")), "abc", "ESC {second:?}");
        }
    }
}
