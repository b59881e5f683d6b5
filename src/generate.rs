//! What is generated from the clap definitions in `cli.rs`, so that it never
//! drifts from `--help`: shell completion scripts (`ask_user completions
//! SHELL`) and man pages (the hidden `ask_user man DIR`, which
//! `scripts/dist` runs for the release archive).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use ask_user::error::{AskError, Detail};

use crate::cli::Cli;

/// The name completions and pages are written for.
const NAME: &str = "ask_user";

/// Writes `shell`'s completion script to `out`. A closed stdout (`| head`)
/// ends quietly, as every other document does.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    let mut command = without_hidden_commands(Cli::command());
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, NAME, &mut script);
    let _ = out.write_all(&script).and_then(|()| out.flush());
}

/// `command` without its hidden subcommands (`man`): clap_complete offers a
/// hidden subcommand as readily as the others. Clap cannot take a
/// subcommand out, so this is the command again with its arguments and the
/// subcommands `--help` lists; a completion script reads nothing else of
/// it. (Only the top level has a hidden subcommand.)
fn without_hidden_commands(full: clap::Command) -> clap::Command {
    let mut command = clap::Command::new(NAME)
        .bin_name(NAME)
        .disable_help_subcommand(full.is_disable_help_subcommand_set())
        .args(full.get_arguments().cloned())
        .subcommands(
            full.get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .cloned(),
        );
    if let Some(about) = full.get_about() {
        command = command.about(about.clone());
    }
    if let Some(long_about) = full.get_long_about() {
        command = command.long_about(long_about.clone());
    }
    if full.get_version().is_some() {
        command = command.version(env!("CARGO_PKG_VERSION"));
    }
    command
}

/// Writes `ask_user.1` and one page per command that `--help` lists
/// (`ask_user-COMMAND.1`, and `ask_user-inbox-VERB.1` for the inbox's verbs)
/// into `dir`; returns the pages written, in the order written. The pages
/// carry no date, so a release build gives the same bytes every time.
pub fn man_pages(dir: &Path) -> Result<Vec<PathBuf>, AskError> {
    let write_error = |path: &Path, e: std::io::Error| {
        AskError::WriteError(Detail::new(format!(
            "cannot write the man page {} ({e}); give a folder you can write to",
            path.display()
        )))
    };
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, e))?;
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let mut written = Vec::new();
    // After `build`, each command's display name is its page's name
    // (`ask_user-inbox-list`) and its bin name the words one types.
    let mut pending = vec![command];
    while let Some(command) = pending.pop() {
        pending.extend(
            command
                .get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .cloned(),
        );
        let name = command
            .get_display_name()
            .unwrap_or(command.get_name())
            .to_string();
        let page = clap_mangen::Man::new(command)
            .title(name.to_uppercase())
            .source(format!("{NAME} {}", env!("CARGO_PKG_VERSION")))
            .manual("ask_user manual");
        let mut bytes = Vec::new();
        page.render(&mut bytes).map_err(|e| write_error(dir, e))?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, ascii_roff(&String::from_utf8_lossy(&bytes)))
            .map_err(|e| write_error(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// `roff` with every character past ASCII written as groff's `\[uXXXX]`
/// escape: groff reads a page as Latin-1 unless told otherwise (`-k`), and
/// the help texts have arrows, dashes and ellipses.
fn ascii_roff(roff: &str) -> String {
    use std::fmt::Write as _;
    let mut ascii = String::with_capacity(roff.len());
    for c in roff.chars() {
        if c.is_ascii() {
            ascii.push(c);
        } else {
            let _ = write!(ascii, "\\[u{:04X}]", u32::from(c));
        }
    }
    ascii
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_ascii_with_groff_escapes_for_the_rest() {
        assert_eq!(
            ascii_roff("a ↑/↓ — … é"),
            "a \\[u2191]/\\[u2193] \\[u2014] \\[u2026] \\[u00E9]"
        );
        assert_eq!(ascii_roff("plain\n"), "plain\n");
        assert_eq!(ascii_roff("😀"), "\\[u1F600]");
    }
}
