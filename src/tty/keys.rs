//! Bytes from a raw-mode terminal into keys.
//!
//! Our own decoder rather than console's `read_key_raw`, because that one
//! reads Ctrl-J (LF) as Enter, and a text field needs Ctrl-J (and Alt-Enter,
//! ESC CR) to insert a newline: both become `Key::Char('\n')`. Everything
//! else decodes as console did (the widgets keep console's `Key`), plus the
//! SS3 arrows of application cursor mode and modified CSI arrows.

use console::Key;

/// What the front of `bytes` holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A key and how many bytes it took.
    Key(Key, usize),
    /// The start of a sequence whose rest has not arrived yet.
    Incomplete,
}

/// Decodes one key from the front of `bytes` (not empty). With `more_may_come`
/// false, a lone ESC or a cut sequence is decoded as it stands.
pub fn decode(bytes: &[u8], more_may_come: bool) -> Decoded {
    let first = bytes[0];
    let key = |key, len| Decoded::Key(key, len);
    match first {
        0x1b => decode_escape(bytes, more_may_come),
        b'\r' => key(Key::Enter, 1),
        b'\n' => key(Key::Char('\n'), 1),
        0x7f | 0x08 => key(Key::Backspace, 1),
        b'\t' => key(Key::Tab, 1),
        0x01 => key(Key::Home, 1),
        0x05 => key(Key::End, 1),
        0x03 => key(Key::CtrlC, 1),
        0x00..=0x7f => key(Key::Char(char::from(first)), 1),
        _ => decode_utf8(bytes, more_may_come),
    }
}

fn decode_utf8(bytes: &[u8], more_may_come: bool) -> Decoded {
    let len = match bytes[0] {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return Decoded::Key(Key::Unknown, 1),
    };
    if bytes.len() < len {
        return if more_may_come {
            Decoded::Incomplete
        } else {
            Decoded::Key(Key::Unknown, bytes.len())
        };
    }
    match std::str::from_utf8(&bytes[..len]) {
        Ok(text) => Decoded::Key(Key::Char(text.chars().next().unwrap_or('\u{fffd}')), len),
        Err(_) => Decoded::Key(Key::Unknown, 1),
    }
}

fn decode_escape(bytes: &[u8], more_may_come: bool) -> Decoded {
    let cut = |len: usize| {
        if more_may_come {
            Decoded::Incomplete
        } else if len == 1 {
            Decoded::Key(Key::Escape, 1)
        } else {
            let rest = bytes[1..len].iter().map(|&b| char::from(b)).collect();
            Decoded::Key(Key::UnknownEscSeq(rest), len)
        }
    };
    let Some(&second) = bytes.get(1) else {
        return cut(1);
    };
    match second {
        // Alt-Enter: a newline in a text field.
        b'\r' | b'\n' => Decoded::Key(Key::Char('\n'), 2),
        b'[' => decode_csi(bytes, more_may_come),
        b'O' => match bytes.get(2) {
            None => cut(2),
            Some(&last) => Decoded::Key(arrow(last, &[b'O', last]), 3),
        },
        _ => Decoded::Key(Key::UnknownEscSeq(vec![char::from(second)]), 2),
    }
}

/// `ESC [ params final`: the final byte is in 0x40..=0x7e.
fn decode_csi(bytes: &[u8], more_may_come: bool) -> Decoded {
    let Some(end) = bytes[2..].iter().position(|b| (0x40..=0x7e).contains(b)) else {
        // Never wait forever on a broken sequence: 16 bytes is longer than
        // any key's.
        return if more_may_come && bytes.len() < 16 {
            Decoded::Incomplete
        } else {
            let rest = bytes[1..].iter().map(|&b| char::from(b)).collect();
            Decoded::Key(Key::UnknownEscSeq(rest), bytes.len())
        };
    };
    let len = end + 3;
    let params = &bytes[2..len - 1];
    let last = bytes[len - 1];
    let key = if last == b'~' {
        // "3~", and with a modifier "3;5~".
        let number = params.split(|&b| b == b';').next().unwrap_or(&[]);
        match number {
            b"1" | b"7" => Key::Home,
            b"2" => Key::Insert,
            b"3" => Key::Del,
            b"4" | b"8" => Key::End,
            b"5" => Key::PageUp,
            b"6" => Key::PageDown,
            _ => unknown(&bytes[1..len]),
        }
    } else {
        arrow(last, &bytes[1..len])
    };
    Decoded::Key(key, len)
}

/// The final byte of an arrow-like sequence (its modifiers are ignored).
fn arrow(last: u8, sequence: &[u8]) -> Key {
    match last {
        b'A' => Key::ArrowUp,
        b'B' => Key::ArrowDown,
        b'C' => Key::ArrowRight,
        b'D' => Key::ArrowLeft,
        b'H' => Key::Home,
        b'F' => Key::End,
        b'Z' => Key::BackTab,
        _ => unknown(sequence),
    }
}

fn unknown(sequence: &[u8]) -> Key {
    Key::UnknownEscSeq(sequence.iter().map(|&b| char::from(b)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bytes: &[u8]) -> (Key, usize) {
        match decode(bytes, false) {
            Decoded::Key(key, len) => (key, len),
            Decoded::Incomplete => panic!("incomplete: {bytes:?}"),
        }
    }

    #[test]
    fn enter_is_cr_and_ctrl_j_or_alt_enter_is_a_newline() {
        assert_eq!(key(b"\r"), (Key::Enter, 1));
        assert_eq!(key(b"\nx"), (Key::Char('\n'), 1));
        assert_eq!(key(b"\x1b\r"), (Key::Char('\n'), 2));
        assert_eq!(key(b"\x1b\n"), (Key::Char('\n'), 2));
    }

    #[test]
    fn control_bytes() {
        assert_eq!(key(b"\x03"), (Key::CtrlC, 1));
        assert_eq!(key(b"\x7f"), (Key::Backspace, 1));
        assert_eq!(key(b"\x08"), (Key::Backspace, 1));
        assert_eq!(key(b"\t"), (Key::Tab, 1));
        assert_eq!(key(b"\x01"), (Key::Home, 1));
        assert_eq!(key(b"\x05"), (Key::End, 1));
        assert_eq!(key(b"\x15"), (Key::Char('\u{15}'), 1));
        assert_eq!(key(b"q"), (Key::Char('q'), 1));
    }

    #[test]
    fn csi_ss3_and_tilde_sequences() {
        assert_eq!(key(b"\x1b[A"), (Key::ArrowUp, 3));
        assert_eq!(key(b"\x1b[B"), (Key::ArrowDown, 3));
        assert_eq!(key(b"\x1b[C"), (Key::ArrowRight, 3));
        assert_eq!(key(b"\x1b[D"), (Key::ArrowLeft, 3));
        assert_eq!(key(b"\x1bOA"), (Key::ArrowUp, 3));
        assert_eq!(key(b"\x1b[1;5B"), (Key::ArrowDown, 6));
        assert_eq!(key(b"\x1b[H"), (Key::Home, 3));
        assert_eq!(key(b"\x1b[F"), (Key::End, 3));
        assert_eq!(key(b"\x1b[Z"), (Key::BackTab, 3));
        assert_eq!(key(b"\x1b[1~"), (Key::Home, 4));
        assert_eq!(key(b"\x1b[7~"), (Key::Home, 4));
        assert_eq!(key(b"\x1b[2~"), (Key::Insert, 4));
        assert_eq!(key(b"\x1b[3~"), (Key::Del, 4));
        assert_eq!(key(b"\x1b[3;5~"), (Key::Del, 6));
        assert_eq!(key(b"\x1b[4~"), (Key::End, 4));
        assert_eq!(key(b"\x1b[8~"), (Key::End, 4));
        assert_eq!(key(b"\x1b[5~"), (Key::PageUp, 4));
        assert_eq!(key(b"\x1b[6~"), (Key::PageDown, 4));
        assert_eq!(
            key(b"\x1b[9~"),
            (Key::UnknownEscSeq(vec!['[', '9', '~']), 4)
        );
        assert_eq!(key(b"\x1b[Q"), (Key::UnknownEscSeq(vec!['[', 'Q']), 3));
        assert_eq!(key(b"\x1bx"), (Key::UnknownEscSeq(vec!['x']), 2));
    }

    #[test]
    fn a_lone_escape_waits_for_more_only_while_more_may_come() {
        assert_eq!(decode(b"\x1b", true), Decoded::Incomplete);
        assert_eq!(key(b"\x1b"), (Key::Escape, 1));
        assert_eq!(decode(b"\x1b[", true), Decoded::Incomplete);
        assert_eq!(decode(b"\x1b[1;", true), Decoded::Incomplete);
        assert_eq!(decode(b"\x1bO", true), Decoded::Incomplete);
        assert_eq!(
            key(b"\x1b[1;"),
            (Key::UnknownEscSeq(vec!['[', '1', ';']), 4)
        );
        assert_eq!(key(b"\x1bO"), (Key::UnknownEscSeq(vec!['O']), 2));
        let endless = [b"\x1b[".as_slice(), &[b'1'; 20]].concat();
        assert!(matches!(decode(&endless, true), Decoded::Key(_, 22)));
        assert_eq!(decode(&endless[..15], true), Decoded::Incomplete);
        assert!(matches!(decode(&endless[..16], true), Decoded::Key(_, 16)));
    }

    #[test]
    fn utf8_characters_whole_or_waited_for() {
        assert_eq!(key("é".as_bytes()), (Key::Char('é'), 2));
        assert_eq!(key("文".as_bytes()), (Key::Char('文'), 3));
        assert_eq!(key("🦀".as_bytes()), (Key::Char('🦀'), 4));
        assert_eq!(decode(&"文".as_bytes()[..2], true), Decoded::Incomplete);
        assert_eq!(key(&"文".as_bytes()[..2]), (Key::Unknown, 2));
        assert_eq!(key(b"\xff"), (Key::Unknown, 1));
        assert_eq!(key(b"\xc3("), (Key::Unknown, 1));
    }
}
