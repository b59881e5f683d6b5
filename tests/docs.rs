//! Docs that run: every ```` ```console ```` block of the Markdown files at
//! the root (README.md, CONTRIBUTING.md, …) and under docs/ is a transcript,
//! and this test replays it. trycmd does this for clap and cargo, but it
//! cannot feed stdin from Markdown, and our examples pipe JSON in; this is
//! the same idea in a page of code.
//!
//! A block is one bash session: its `$ COMMAND` lines run one after the
//! other (so `cd`, variables and background jobs carry over, as in the
//! reader's shell) in the block's scratch folder, which is also `HOME` (so `setup` and the inbox's state stay
//! there), with this build's `ask_user` first on `PATH` and `fixtures/` and
//! `schemas/` linked in. Lines after a `$` line that start with `> ` continue
//! its command (bash's own prompt for a heredoc or an open quote). The lines
//! up to the next `$` line are what the terminal shows: stdout and stderr
//! together, compared line by line. In them `[..]` stands for any text within
//! a line and a line of `...` for any number of lines, as in trycmd. The
//! scratch folder's path reads as `/home/me` (and the user, `USER`, is `me`) and the binary's folder as
//! `/usr/local/bin`, so outputs that name them stay readable. A command must
//! exit 0: a transcript shows another exit code as `echo "exit $?"` does.
//!
//! A block that cannot run here (a host's GUI, a browser, a download, a
//! person at a terminal) says so where a reader sees it, in its title:
//! ```` ```console title="not run here: REASON" ````. Such blocks are listed
//! with their file and line on every run, never skipped silently.
#![cfg(unix)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_ask_user");
/// How a block says it is not run, and why (in its fence's info string).
const NOT_RUN: &str = "title=\"not run here: ";
/// No documented block takes long; one that hangs fails instead.
const BLOCK_SECONDS: &str = "30";

/// One fenced block: where it starts, its info string and its lines (the
/// fence's own indentation removed).
struct Block {
    file: String,
    line: usize,
    info: String,
    lines: Vec<String>,
}

/// One `$` line of a block with the output it shows.
struct Step {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// Every Markdown file the docs test reads: the root's, and docs/ with its
/// subfolders.
fn markdown_files() -> Vec<PathBuf> {
    fn markdown_in(folder: &Path, deep: bool, files: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(folder)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", folder.display()));
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            } else if deep && path.is_dir() {
                markdown_in(&path, deep, files);
            }
        }
    }
    let mut files = Vec::new();
    markdown_in(Path::new(ROOT), false, &mut files);
    markdown_in(&Path::new(ROOT).join("docs"), true, &mut files);
    files.sort();
    files
}

fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
    let file = path
        .strip_prefix(ROOT)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut found = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        let indent = raw.len() - trimmed.len();
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let block = Block {
                        file: file.clone(),
                        line: i + 1,
                        info: info.trim().to_owned(),
                        lines: Vec::new(),
                    };
                    open = Some((indent, block));
                }
            }
            Some((fence, mut block)) => {
                if trimmed == "```" {
                    found.push(block);
                } else {
                    let cut = raw.len() - raw.trim_start().len();
                    block.lines.push(raw[cut.min(fence)..].to_owned());
                    open = Some((fence, block));
                }
            }
        }
    }
    if let Some((_, block)) = open {
        panic!(
            "{}:{}: a code block that never closes",
            block.file, block.line
        );
    }
    found
        .into_iter()
        .filter(|b| b.info.split([' ', ',', '{']).next() == Some("console"))
        .collect()
}

/// Why a block is not run, when its title says so.
fn not_run_reason(block: &Block) -> Option<&str> {
    let start = block.info.find(NOT_RUN)? + NOT_RUN.len();
    let rest = &block.info[start..];
    Some(rest[..rest.find('"').unwrap_or(rest.len())].trim())
}

fn steps(block: &Block) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    for (i, line) in block.lines.iter().enumerate() {
        let at = block.line + 1 + i;
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                line: at,
                command: command.to_owned(),
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            match line.strip_prefix("> ").or((line == ">").then_some("")) {
                Some(more) if step.expected.is_empty() => {
                    step.command.push('\n');
                    step.command.push_str(more);
                }
                _ => step.expected.push(line.clone()),
            }
        } else {
            return Err(format!(
                "{}:{at}: a console block starts with a command (`$ …`), not {line:?}",
                block.file
            ));
        }
    }
    if steps.is_empty() {
        return Err(format!(
            "{}:{}: a console block without a `$` command; use ```text for output alone",
            block.file, block.line
        ));
    }
    Ok(steps)
}

/// Does one documented line match one real line? `[..]` is any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Do the documented lines match the real ones? A line `...` is any lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            !actual.is_empty() && line_matches(first, actual[0]) && lines_match(rest, &actual[1..])
        }
    }
}

/// Marks the end of each step's output in a block's run (a byte no
/// documented output holds).
const STEP_END: &str = "\u{1e}ask_user-docs-step";

/// Runs one block as one shell session in its own scratch folder (so `cd`,
/// variables and background jobs carry from one `$` line to the next, as in
/// the reader's shell); the failures it found.
fn run_block(block: &Block, steps: &[Step]) -> Vec<String> {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    std::fs::create_dir(&home).unwrap();
    for shared in ["fixtures", "schemas"] {
        std::os::unix::fs::symlink(Path::new(ROOT).join(shared), home.join(shared)).unwrap();
    }
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    // Each command, then a line that ends its output with its exit status.
    let mut script = String::new();
    for step in steps {
        let _ = writeln!(
            script,
            "{}\nprintf '\\n{STEP_END} %s\\n' \"$?\"",
            step.command
        );
    }
    let output = scratch.path().join("output");
    let file = std::fs::File::create(&output).unwrap();
    // The output goes to a file, not a pipe: a command may leave a process
    // running in the background, which would hold a pipe open. setsid: a
    // session of its own, without the terminal `cargo test` may run in (so
    // `ask` meets no terminal, as in CI), and a process group to end after.
    let child = Command::new("setsid")
        .args(["--wait", "timeout", BLOCK_SECONDS, "bash", "-c", &script])
        .current_dir(&home)
        .env_clear()
        .env("PATH", &path)
        .env("HOME", &home)
        // `answeredBy.name` on the local faces is the user: the reader's "me".
        .env("USER", "me")
        .env("LOGNAME", "me")
        .env("LANG", "C.UTF-8")
        .env("TMPDIR", scratch.path())
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            return vec![format!(
                "{}:{}: cannot run setsid: {e}",
                block.file, block.line
            )];
        }
    };
    let group = child.id();
    let status = child.wait().unwrap();
    // Whatever the block left running in the background ends with it.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{group}")])
        .stderr(Stdio::null())
        .status();
    let text = std::fs::read_to_string(&output)
        .unwrap_or_else(|e| format!("(output not UTF-8: {e})"))
        .replace(&home.to_string_lossy().into_owned(), "/home/me")
        .replace(&bin_dir.to_string_lossy().into_owned(), "/usr/local/bin");
    let mut failures = Vec::new();
    let mut rest = text.as_str();
    for step in steps {
        let heading = format!(
            "{}:{}: `{}`",
            block.file,
            step.line,
            step.command.replace('\n', "\n> ")
        );
        let marker = format!("\n{STEP_END} ");
        let Some(at) = rest.find(&marker) else {
            failures.push(format!(
                "{heading}\n  did not finish (the block ran {BLOCK_SECONDS} s or bash stopped: {status}); it printed:\n{}",
                indent(rest)
            ));
            break;
        };
        let shown = &rest[..at];
        let after = &rest[at + marker.len()..];
        let (code, next) = after.split_once('\n').unwrap_or((after, ""));
        rest = next;
        let actual: Vec<&str> = match shown.strip_suffix('\n').unwrap_or(shown) {
            "" => Vec::new(),
            lines => lines.split('\n').collect(),
        };
        let shown_ok = lines_match(&step.expected, &actual);
        if code != "0" || !shown_ok {
            let mut report = heading;
            if code != "0" {
                let _ = write!(
                    report,
                    "\n  exited with {code} (a transcript shows another exit code with `; echo \"exit $?\"`)"
                );
            }
            if !shown_ok {
                let _ = write!(
                    report,
                    "\n  the docs show:\n{}\n  it printed:\n{}",
                    indent(&step.expected.join("\n")),
                    indent(&actual.join("\n"))
                );
            }
            failures.push(report);
        }
    }
    failures
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Printed where `cargo test` shows it even for a passing test (libtest
/// captures `println!`, not a direct write to the process's stderr).
fn say(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

#[test]
fn every_console_block_runs_as_documented() {
    let mut ran = 0;
    let mut commands = 0;
    let mut not_run = Vec::new();
    let mut failures = Vec::new();
    for file in markdown_files() {
        for block in blocks(&file) {
            if let Some(reason) = not_run_reason(&block) {
                if reason.is_empty() {
                    failures.push(format!(
                        "{}:{}: a block not run here says why in its title",
                        block.file, block.line
                    ));
                }
                not_run.push(format!("  {}:{}: {reason}", block.file, block.line));
                continue;
            }
            match steps(&block) {
                Ok(steps) => {
                    ran += 1;
                    commands += steps.len();
                    failures.extend(run_block(&block, &steps));
                }
                Err(e) => failures.push(e),
            }
        }
    }
    let mut summary = format!(
        "docs: {ran} console blocks run ({commands} commands); {} not run here:\n",
        not_run.len()
    );
    for line in &not_run {
        summary.push_str(line);
        summary.push('\n');
    }
    say(&summary);
    assert!(ran > 0, "no console block found: is the parser broken?");
    assert!(
        failures.is_empty(),
        "{} documented command(s) differ from what they print:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_matcher_reads_wildcards_as_documented() {
    assert!(line_matches("a [..] c", "a b c"));
    assert!(line_matches("[..]", ""));
    assert!(line_matches("x[..]", "xyz"));
    assert!(!line_matches("a [..] c", "a b d"));
    assert!(!line_matches("abc", "abcd"));
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &lines(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(lines_match(&lines(&["a", "..."]), &["a"]));
    assert!(!lines_match(&lines(&["a"]), &["a", "b"]));
    assert!(!lines_match(&lines(&["a", "...", "e"]), &["a", "b"]));
}

/// The README's picture of the terminal face is the recording
/// scripts/screenshots makes (docs/terminal.cast rendered by svg-term-cli):
/// an animated SVG under 2 MB, whose frames come from the real binary.
#[test]
fn the_readme_shows_the_terminal_recording() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("](docs/terminal.svg)"), "README.md");
    let svg = std::fs::read_to_string(root.join("docs/terminal.svg")).unwrap();
    assert!(svg.len() < 2 * 1024 * 1024, "{} bytes", svg.len());
    assert!(
        svg.starts_with("<svg") && svg.contains("@keyframes"),
        "an animated SVG"
    );
    // What the recording shows: the form, then the answer document.
    for shown in ["database?", "SQLite", "choose", "questionId"] {
        assert!(svg.contains(shown), "{shown} in docs/terminal.svg");
    }
    let cast = std::fs::read_to_string(root.join("docs/terminal.cast")).unwrap();
    let header: serde_json::Value = serde_json::from_str(cast.lines().next().unwrap()).unwrap();
    assert_eq!(
        (header["width"].as_u64(), header["height"].as_u64()),
        (Some(80), Some(24))
    );
}
