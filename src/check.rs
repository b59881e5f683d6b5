//! The CI face (DESIGN §1): `ask_user check PATH...` validates files and
//! folders of tool inputs and documents with the same code the other faces
//! use, and reports every file that breaks a rule.
//!
//! Walking: folders are searched recursively for `*.json`, in name order so
//! that reports are stable. Entries whose name starts with `.` are skipped and
//! symbolic links to folders are not followed (no loops, no `.git`), as `fd`
//! does; a path named on the command line is always checked. A `*.json` entry
//! that is not a regular file (a FIFO, a socket, a device) is reported, never
//! opened: opening a FIFO would block the run. A path named on the command
//! line that does not exist is reported as missing, not as a file checked.

pub mod documents;
pub mod report;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{AskError, Detail};

pub use documents::{Checked, DocumentKind, check_bytes, check_policy_bytes};
pub use report::{Format, render};

/// One checked file: where it is, what it was taken for, and what is wrong with it.
#[derive(Debug)]
pub struct FileReport {
    /// As given on the command line, joined with the names found below it; `-` for stdin.
    pub path: String,
    pub kind: Option<DocumentKind>,
    pub error: Option<AskError>,
    /// A path named on the command line that does not exist: nothing was
    /// checked there (its `error` says so).
    pub missing: bool,
}

impl FileReport {
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }
}

/// What one path on the command line expands to.
enum Target {
    Stdin,
    File(PathBuf),
    /// Found while walking, but cannot be read as a file.
    Unreadable(PathBuf, AskError),
    /// Named on the command line, and not there.
    Missing(PathBuf, AskError),
}

/// Checks every file that `paths` name or contain, in order.
pub fn check_paths(paths: &[PathBuf]) -> Vec<FileReport> {
    let mut targets = Vec::new();
    for path in paths {
        expand(path, &mut targets);
    }
    check_in_parallel(targets)
}

/// Below this many files one thread is quicker than starting more.
const FILES_PER_THREAD: usize = 256;

/// One thread per [`FILES_PER_THREAD`] files, at least one, at most `cores`.
fn thread_count(files: usize, cores: usize) -> usize {
    cores.min(files / FILES_PER_THREAD).max(1)
}

/// Checks the targets on up to one thread per core, in contiguous chunks, so
/// that the reports come back in walking order.
fn check_in_parallel(targets: Vec<Target>) -> Vec<FileReport> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = thread_count(targets.len(), cores);
    if threads == 1 {
        return targets.into_iter().map(check_target).collect();
    }
    let chunk_len = targets.len().div_ceil(threads);
    let mut chunks: Vec<Vec<Target>> = Vec::with_capacity(threads);
    let mut rest = targets.into_iter().peekable();
    while rest.peek().is_some() {
        chunks.push(rest.by_ref().take(chunk_len).collect());
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(|| chunk.into_iter().map(check_target).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            // A worker that panicked re-raises here, where the panic hook reports it.
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
            .collect()
    })
}

fn expand(path: &Path, targets: &mut Vec<Target>) {
    if path.as_os_str() == "-" {
        targets.push(Target::Stdin);
    } else if path.is_dir() {
        walk(path, targets);
    } else if let Err(e) = fs::symlink_metadata(path)
        && matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    {
        // Nothing by that name (`nonexist/`, or `file.json/x`): say so, rather
        // than count it as a file that could not be read. A dangling link is
        // there, and is read (and reported) as a file.
        let shown = slashed(path);
        let error = AskError::ReadError(Detail::at(
            format!("{shown} does not exist; name a file or folder that exists, or - for stdin"),
            shown,
        ));
        targets.push(Target::Missing(path.to_path_buf(), error));
    } else {
        // A file named on the command line is checked whatever its name or
        // type (`check <(cmd)` reads a pipe); reading reports what is wrong.
        targets.push(Target::File(path.to_path_buf()));
    }
}

fn walk(dir: &Path, targets: &mut Vec<Target>) {
    let entries = match fs::read_dir(dir).and_then(|list| list.collect::<io::Result<Vec<_>>>()) {
        Ok(entries) => entries,
        Err(e) => {
            targets.push(Target::Unreadable(
                dir.to_path_buf(),
                unreadable(dir, &format!("the folder cannot be listed ({e})")),
            ));
            return;
        }
    };
    let mut entries: Vec<_> = entries
        .into_iter()
        .filter(|entry| !entry.file_name().as_encoded_bytes().starts_with(b"."))
        .collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        // Names under "." are reported as `sub/x.json`, not `./sub/x.json`:
        // GitHub matches annotation paths against the repository's own.
        let path = if dir == Path::new(".") {
            PathBuf::from(entry.file_name())
        } else {
            entry.path()
        };
        let Ok(own_type) = entry.file_type() else {
            continue;
        };
        if own_type.is_dir() {
            walk(&path, targets);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        if own_type.is_file() {
            targets.push(Target::File(path));
            continue;
        }
        // Follows a symbolic link; a dangling one is left to the reader, which reports it.
        match fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {} // a linked folder: not followed
            Ok(meta) if !meta.is_file() => {
                let error = unreadable(
                    &path,
                    "it is not a regular file (a FIFO, socket or device); check regular files only",
                );
                targets.push(Target::Unreadable(path, error));
            }
            _ => targets.push(Target::File(path)),
        }
    }
}

/// A path as reports show it: `/` between its parts on every system, so a
/// report, and GitHub's annotation paths, read the same on Windows.
fn slashed(path: &Path) -> String {
    let shown = path.display().to_string();
    if cfg!(windows) {
        shown.replace('\\', "/")
    } else {
        shown
    }
}

fn unreadable(path: &Path, reason: &str) -> AskError {
    AskError::ReadError(Detail::at(
        format!("cannot read {}: {reason}", slashed(path)),
        slashed(path),
    ))
}

fn check_target(target: Target) -> FileReport {
    // A `.toml` file named on the command line is an inbox policy file
    // (folders are walked for `*.json` only, so walks are unchanged).
    let policy = matches!(&target, Target::File(path)
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")));
    let (path, bytes, missing) = match target {
        Target::Stdin => (
            "-".to_string(),
            crate::read_source(Some(Path::new("-"))),
            false,
        ),
        Target::File(path) => {
            let bytes = crate::read_source(Some(&path));
            (slashed(&path), bytes, false)
        }
        Target::Unreadable(path, error) => (slashed(&path), Err(error), false),
        Target::Missing(path, error) => (slashed(&path), Err(error), true),
    };
    let checked = match bytes {
        Ok(bytes) if policy => check_policy_bytes(&bytes),
        Ok(bytes) => check_bytes(&bytes),
        Err(error) => Checked {
            kind: None,
            error: Some(error),
        },
    };
    FileReport {
        path,
        kind: checked.kind,
        error: checked.error,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_per_256_files_at_least_one_at_most_a_core_each() {
        let cases = [
            (0, 4, 1),
            (255, 4, 1),
            (256, 4, 1),
            (511, 4, 1),
            (512, 4, 2),
            (1024, 4, 4),
            (100_000, 4, 4),
            (100_000, 1, 1),
        ];
        for (files, cores, threads) in cases {
            assert_eq!(
                thread_count(files, cores),
                threads,
                "{files} files, {cores} cores"
            );
        }
    }
}
