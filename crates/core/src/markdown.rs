//! Markdown escaping (DESIGN §9): user text in `rendered_markdown` can never
//! change the document's structure — no headings, lists, links, HTML or fences.

/// Characters that start or end an inline construct (emphasis, code, links,
/// HTML, entities, tables, strike-through) or a line construct (`#`).
const INLINE_SPECIALS: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~', '&'];

/// Escapes one line of text for use inside a markdown line.
pub fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if INLINE_SPECIALS.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes one line that will stand at the start of a markdown line: also
/// defuses list markers, setext underlines and indented code.
pub fn escape_line_start(line: &str) -> String {
    let line = line.trim_start();
    let escaped = escape_inline(line);
    let first = escaped.chars().next();
    if matches!(first, Some('-' | '+' | '=')) {
        return format!("\\{escaped}");
    }
    // "1." or "1)" would start an ordered list.
    let digits = escaped.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(marker @ ('.' | ')')) = escaped[digits..].chars().next()
    {
        return format!("{}\\{marker}{}", &escaped[..digits], &escaped[digits + 1..]);
    }
    escaped
}

/// Escapes text that keeps its line breaks; each line is made safe on its own.
/// Blank lines are kept, so paragraphs stay paragraphs.
pub fn escape_block(text: &str) -> String {
    text.lines()
        .map(|line| escape_line_start(line.trim_end()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Bold text over one or more lines (blank lines dropped: bold cannot span them).
pub fn bold_lines(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("**{}**", escape_inline(l)))
        .collect::<Vec<_>>()
        .join("  \n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_specials_are_escaped() {
        assert_eq!(escape_inline("a*b_[c](d)<e>"), r"a\*b\_\[c\](d)\<e\>");
        assert_eq!(escape_inline("```"), r"\`\`\`");
    }

    #[test]
    fn line_starts_cannot_open_blocks() {
        assert_eq!(escape_line_start("# Title"), r"\# Title");
        assert_eq!(escape_line_start("- item"), r"\- item");
        assert_eq!(escape_line_start("12. item"), r"12\. item");
        assert_eq!(escape_line_start("3) item"), r"3\) item");
        assert_eq!(escape_line_start("    code"), "code");
        assert_eq!(escape_line_start("==="), r"\===");
        assert_eq!(escape_line_start("2024 was"), "2024 was");
    }

    #[test]
    fn only_what_would_open_a_block_is_escaped() {
        // A "." or ")" without digits before it starts no list.
        assert_eq!(escape_line_start(".hidden file"), ".hidden file");
        assert_eq!(escape_line_start(") aside"), ") aside");
        assert_eq!(escape_line_start("v1. beta"), "v1. beta");
    }

    #[test]
    fn blocks_keep_lines() {
        assert_eq!(escape_block("a\n\n# b"), "a\n\n\\# b");
    }
}
