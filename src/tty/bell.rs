//! `ask --bell`: when a question is shown on the terminal, ring its bell and
//! ask the terminal for a desktop notification, in the two forms terminals
//! understand: OSC 9 (iTerm2, WezTerm, kitty, Windows Terminal, ConEmu) and
//! OSC 777 (foot, rxvt-unicode, WezTerm, kitty, Ghostty). A terminal that
//! knows neither ignores both (they are whole OSC strings).
//!
//! The text comes from the input, so it is cleaned first: no control byte
//! survives (an input cannot end the sequence early and inject its own),
//! and OSC 777's title has no `;` (its field separator).

use crate::model::Prompt;

/// BEL: the one alert every terminal has (plain mode sends only this).
pub const BEL: &str = "\x07";
/// Longest notification text, in characters.
const MAX_BODY_CHARS: usize = 200;

/// The bytes `--bell` writes for `prompt`: BEL, OSC 9, OSC 777.
pub fn alert(prompt: &Prompt) -> String {
    let title = match &prompt.title {
        Some(title) => crate::sanitize::one_line(title, MAX_BODY_CHARS).replace(';', ","),
        None => "ask_user".to_string(),
    };
    let question = prompt
        .questions
        .first()
        .map(|q| crate::sanitize::one_line(&q.text, MAX_BODY_CHARS))
        .unwrap_or_default();
    // OSC 9's text starts with a letter: ConEmu and Windows Terminal read
    // `9;<digit>;…` as commands of their own (progress bars, …).
    format!("{BEL}\x1b]9;ask_user: {question}{BEL}\x1b]777;notify;{title};{question}{BEL}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(input: &str) -> Prompt {
        crate::input::parse(input.as_bytes()).unwrap()
    }

    #[test]
    fn bell_then_osc_9_then_osc_777() {
        assert_eq!(
            alert(&prompt(
                r#"{"question":"Deploy where?","options":["A","B"]}"#
            )),
            "\x07\x1b]9;ask_user: Deploy where?\x07\x1b]777;notify;ask_user;Deploy where?\x07"
        );
    }

    #[test]
    fn input_cannot_end_the_sequence_or_add_fields() {
        let hostile = r#"{"title":"T;x\u0007\u001b]0;pwned","questions":[{"question":"Q\u0007\u001b]52;c;Zm9v\u0007\u009c\nnext"}]}"#;
        let bytes = alert(&prompt(hostile));
        assert_eq!(
            bytes,
            "\x07\x1b]9;ask_user: Q next\x07\x1b]777;notify;T,x;Q next\x07"
        );
        assert_eq!(bytes.matches('\x1b').count(), 2);
        assert_eq!(bytes.matches('\x07').count(), 3);
    }
}
