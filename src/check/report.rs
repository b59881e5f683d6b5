//! How `check` reports: text lines, one JSON document, or GitHub Actions
//! annotations. Findings go to stdout; the summary line (text and github) goes
//! to stderr, so stdout holds exactly the list of failures.

use serde::Serialize;

use super::{DocumentKind, FileReport};
use crate::error::ErrorBody;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `path: CODE: message (at field.path)` per invalid file.
    Text,
    /// One JSON document listing every file with its status.
    Json,
    /// GitHub Actions `::error file=…::` workflow commands.
    Github,
}

/// What to print: `stdout` is the report, `stderr` the summary for people.
#[derive(Debug, Default)]
pub struct Rendered {
    pub stdout: String,
    pub stderr: String,
}

/// Renders the reports. With `quiet`, only failures are printed: no summary,
/// and the JSON document lists only invalid files (its counts stay whole).
pub fn render(reports: &[FileReport], format: Format, quiet: bool) -> Rendered {
    let mut rendered = Rendered::default();
    match format {
        Format::Text => {
            for report in reports.iter().filter(|r| !r.is_valid()) {
                rendered.stdout.push_str(&text_line(report));
                rendered.stdout.push('\n');
            }
        }
        Format::Github => {
            for report in reports.iter().filter(|r| !r.is_valid()) {
                rendered.stdout.push_str(&github_line(report));
                rendered.stdout.push('\n');
            }
        }
        Format::Json => {
            rendered.stdout = crate::document_line(&JsonReport::new(reports, quiet));
            rendered.stdout.push('\n');
        }
    }
    if !quiet && format != Format::Json {
        rendered.stderr = summary(reports);
        rendered.stderr.push('\n');
    }
    rendered
}

/// The files checked (valid, invalid) and the named paths that do not exist.
fn tally(reports: &[FileReport]) -> Counts {
    let missing = reports.iter().filter(|r| r.missing).count();
    let invalid = reports
        .iter()
        .filter(|r| !r.missing && !r.is_valid())
        .count();
    let files = reports.len() - missing;
    Counts {
        files,
        valid: files - invalid,
        invalid,
        missing,
    }
}

/// One line for people: what was checked, then the paths that do not exist
/// (a missing path is not a file checked).
pub fn summary(reports: &[FileReport]) -> String {
    let Counts {
        files,
        invalid,
        missing,
        ..
    } = tally(reports);
    let checked = match (files, invalid) {
        (0, _) if missing > 0 => "no files checked".to_string(),
        (0, _) => "no JSON files found".to_string(),
        (_, 0) => format!("{files} {} valid", plural(files)),
        _ => format!(
            "{files} {} checked, {} valid, {invalid} invalid",
            plural(files),
            files - invalid
        ),
    };
    match missing {
        0 => format!("ask_user check: {checked}"),
        1 => format!("ask_user check: {checked}; 1 path does not exist"),
        _ => format!("ask_user check: {checked}; {missing} paths do not exist"),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "file" } else { "files" }
}

/// The error's message, the parser's own message if any, and the field path
/// when it names a field rather than the file itself (a READ_ERROR's path is the file).
fn message_and_field(report: &FileReport) -> Option<String> {
    let error = report.error.as_ref()?;
    let mut text = error.message().to_string();
    if let Some(parse_error) = &error.detail().parse_error {
        text.push_str(&format!(" ({parse_error})"));
    }
    if let Some(path) = error.path().filter(|p| *p != report.path) {
        text.push_str(&format!(" (at {path})"));
    }
    Some(text)
}

/// One line per file, whatever the file name or message holds: control,
/// bidi and zero-width characters (which a label or a file name may carry to
/// a terminal) are shown as `\u{…}` escapes (DESIGN §9).
fn text_line(report: &FileReport) -> String {
    let code = report.error.as_ref().map_or("", |e| e.code());
    let message = message_and_field(report).unwrap_or_default();
    visible(&format!("{}: {code}: {message}", report.path), false)
}

/// Escapes what a terminal or a log viewer would act on or hide; keeps CR and
/// LF when `keep_line_breaks` (the GitHub format encodes them itself).
pub fn visible(text: &str, keep_line_breaks: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let hidden = matches!(c,
            '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2028}' | '\u{2029}'
            | '\u{2066}'..='\u{2069}' | '\u{FEFF}');
        let line_break = matches!(c, '\n' | '\r');
        if (c.is_control() && !(keep_line_breaks && line_break)) || hidden {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// `::error file=PATH,title=ask_user CODE::MESSAGE`, escaped as GitHub's
/// toolkit does: `%`, CR and LF in the message; also `:` and `,` in properties.
fn github_line(report: &FileReport) -> String {
    let code = report.error.as_ref().map_or("", |e| e.code());
    let message = message_and_field(report).unwrap_or_default();
    format!(
        "::error file={},title={}::{}",
        escape_property(&visible(&report.path, true)),
        escape_property(&format!("ask_user {code}")),
        escape_data(&visible(&message, true))
    )
}

pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `--format json`: `{"tool","version","status":"ok","valid","counts","files"}`.
/// `status` is "ok" because the report itself is sound; `valid` is the verdict.
#[derive(Serialize)]
struct JsonReport<'a> {
    tool: &'static str,
    version: u32,
    status: &'static str,
    valid: bool,
    counts: Counts,
    files: Vec<JsonFile<'a>>,
}

#[derive(Serialize)]
struct Counts {
    files: usize,
    valid: usize,
    invalid: usize,
    /// Paths named on the command line that do not exist (not in `files`).
    missing: usize,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    status: FileStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<DocumentKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorBody<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum FileStatus {
    Valid,
    Invalid,
    /// A path named on the command line that does not exist.
    Missing,
}

impl<'a> JsonReport<'a> {
    fn new(reports: &'a [FileReport], quiet: bool) -> Self {
        let counts = tally(reports);
        JsonReport {
            tool: crate::TOOL_NAME,
            version: crate::DOC_VERSION,
            status: "ok",
            valid: counts.invalid == 0 && counts.missing == 0,
            counts,
            files: reports
                .iter()
                .filter(|r| !quiet || !r.is_valid())
                .map(|r| JsonFile {
                    path: &r.path,
                    status: if r.missing {
                        FileStatus::Missing
                    } else if r.is_valid() {
                        FileStatus::Valid
                    } else {
                        FileStatus::Invalid
                    },
                    kind: r.kind,
                    error: r.error.as_ref().map(|e| e.document().error),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_escaping_follows_the_toolkit() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }

    #[test]
    fn controls_bidi_and_zero_width_become_visible() {
        assert_eq!(
            visible("a\u{1b}[31mb\u{202e}c\u{200b}d\te\nf", false),
            r"a\u{1b}[31mb\u{202e}c\u{200b}d\u{9}e\u{a}f"
        );
        assert_eq!(visible("a\r\nb\u{7f}", true), "a\r\nb\\u{7f}");
    }
}
