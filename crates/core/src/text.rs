//! Small text rules shared by every face: folding to one line, yes/no.
//! The lowest layer: it depends on nothing else in the crate.

/// Trim and fold inner runs of white space (newlines included) to one space.
pub fn fold_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// yes/no/y/n/true/false, ignoring case and surrounding space.
pub fn parse_yes_no(text: &str) -> Option<bool> {
    match text.trim().to_lowercase().as_str() {
        "yes" | "y" | "true" => Some(true),
        "no" | "n" | "false" => Some(false),
        _ => None,
    }
}

/// How a confirm answer is written in documents.
pub fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}
