//! Reading and writing a host's config file without ever leaving it half
//! written: a temporary file in the same folder, synced, then renamed over
//! the old one (rename is atomic within a file system; on Windows std renames
//! with replace-existing semantics). The file keeps its permissions and owner
//! (Unix; on Windows it inherits its folder's access list, as the old one
//! did: [`ask_user_platform::files`]); a symbolic link (dotfiles kept in a repository)
//! stays a link and its target is written; the first change keeps a copy of
//! the file as it was, `FILE.ask_user.bak`, which later runs never replace.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{AskError, Detail};
use ask_user_platform::files;

/// The file's text; `None` when there is no file (nor folder) yet.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, AskError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        // A file where a folder should be is reported when writing.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(AskError::ReadError(Detail::at(
            format!(
                "cannot read {}: {}; make it a readable file, or move it away",
                path.display(),
                if files::is_a_directory(&e, path) {
                    "it is a directory".to_string()
                } else {
                    reason(&e)
                }
            ),
            path.display().to_string(),
        ))),
    }
}

/// `FILE.ask_user.bak`, beside the file as the host names it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".ask_user.bak");
    path.with_file_name(name)
}

/// Replaces the file at `path` (or creates it, with its folders) with
/// `text`. Returns the backup when this run made it.
pub fn write(path: &Path, text: &str) -> Result<Option<PathBuf>, AskError> {
    let failed = |e: &io::Error| write_error(path, &reason(e));
    // A link is followed, so that the link itself stays.
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| failed(&e))?
        }
        _ => path.to_path_buf(),
    };
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            None
        }
        Err(e) => return Err(failed(&e)),
    };
    if existing
        .as_ref()
        .is_some_and(|meta| meta.permissions().readonly())
    {
        return Err(write_error(
            path,
            "it is read-only; make it writable (chmod u+w) or add the entry by hand",
        ));
    }
    let folder = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(|e| {
        write_error(
            path,
            &format!(
                "its folder {} cannot be created ({})",
                folder.display(),
                reason(&e)
            ),
        )
    })?;
    let backup = backup_path(path);
    let made_backup = match &existing {
        Some(_) if fs::symlink_metadata(&backup).is_err() => {
            fs::copy(&target, &backup).map_err(|e| {
                write_error(
                    path,
                    &format!(
                        "its backup {} cannot be written ({})",
                        backup.display(),
                        reason(&e)
                    ),
                )
            })?;
            Some(backup)
        }
        _ => None,
    };
    replace(&target, text.as_bytes(), existing.as_ref()).map_err(|e| failed(&e))?;
    Ok(made_backup)
}

/// Writes `bytes` to a temporary file beside `target` and renames it over
/// `target`; the temporary file is removed when anything fails.
fn replace(target: &Path, bytes: &[u8], existing: Option<&fs::Metadata>) -> io::Result<()> {
    let mut name = std::ffi::OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".ask_user-{}.tmp", std::process::id()));
    let temporary = target.with_file_name(name);
    let result = (|| {
        // Left over from a run that was killed: it is ours to replace.
        let _ = fs::remove_file(&temporary);
        // A config file that setup creates may later hold tokens (a
        // server's `env`), so only its owner reads it, as Claude Code does.
        let mut file =
            files::private(OpenOptions::new().write(true).create_new(true)).open(&temporary)?;
        file.write_all(bytes)?;
        files::keep_mode_and_owner(&file, existing)?;
        file.sync_all()?;
        // Closed before the rename: Windows renames no open file over another.
        drop(file);
        fs::rename(&temporary, target)?;
        if let Some(folder) = target.parent() {
            // The rename itself reaches the disk with the folder.
            let _ = files::sync_dir(folder);
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

fn write_error(path: &Path, reason: &str) -> AskError {
    AskError::WriteError(Detail::at(
        format!("cannot write {}: {reason}", path.display()),
        path.display().to_string(),
    ))
}

/// The system's reason in words; the rest as the system says it
/// ("Read-only file system (os error 30)").
fn reason(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::PermissionDenied => "permission was denied".to_string(),
        // Making a folder where a file is: EEXIST for the last part, ENOTDIR above.
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => {
            "a part of its path is a file, not a folder".to_string()
        }
        io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Symbolic links need a privilege on Windows, and modes are Unix's.
    #[cfg(unix)]
    #[test]
    fn mode_backup_and_link_survive_a_write() {
        use std::fs::Permissions;
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let real = folder.path().join("real.json");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, Permissions::from_mode(0o640)).unwrap();
        let link = folder.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();

        let backup = write(&link, "new").unwrap();
        assert_eq!(
            backup.as_deref(),
            Some(folder.path().join("link.json.ask_user.bak").as_path())
        );
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_to_string(backup.unwrap()).unwrap(), "old");

        // The backup holds the first state for good.
        assert_eq!(write(&link, "newer").unwrap(), None);
        assert_eq!(
            fs::read_to_string(folder.path().join("link.json.ask_user.bak")).unwrap(),
            "old"
        );
        let leftovers: Vec<_> = fs::read_dir(folder.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|name| name.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_new_file_gets_its_folders_and_an_owner_only_mode_and_no_backup() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("a/b/c.json");
        assert_eq!(read(&path).unwrap(), None);
        assert_eq!(write(&path, "{}\n").unwrap(), None);
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        assert!(!backup_path(&path).exists());
    }

    #[test]
    fn a_directory_is_a_read_error_and_a_file_in_the_way_a_write_error() {
        let folder = tempfile::tempdir().unwrap();
        let error = read(folder.path()).unwrap_err();
        assert_eq!(error.code(), "READ_ERROR");
        assert!(error.message().contains("it is a directory"), "{error}");
        let blocker = folder.path().join("file");
        fs::write(&blocker, "").unwrap();
        let path = blocker.join("x.json");
        assert_eq!(read(&path).unwrap(), None);
        let error = write(&path, "{}").unwrap_err();
        assert_eq!(error.code(), "WRITE_ERROR");
        assert!(
            error.message().contains("a part of its path is a file"),
            "{error}"
        );
    }

    // A directory where the file should be (its backup already made, so the
    // rename is what fails) is said in words; a link loop on the way is the
    // system's own reason, not "its folder cannot be created": the file was
    // never found missing. Symbolic links need a privilege on Windows.
    #[cfg(unix)]
    #[test]
    fn a_directory_in_the_files_place_and_a_link_loop_on_its_way_are_said() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("config.json");
        fs::create_dir(&path).unwrap();
        fs::write(backup_path(&path), "old").unwrap();
        let error = write(&path, "{}").unwrap_err();
        assert_eq!(error.code(), "WRITE_ERROR");
        assert_eq!(
            error.message(),
            format!("cannot write {}: it is a directory", path.display())
        );

        let looped = folder.path().join("loop");
        std::os::unix::fs::symlink(&looped, &looped).unwrap();
        let path = looped.join("config.json");
        let error = write(&path, "{}").unwrap_err();
        assert_eq!(error.code(), "WRITE_ERROR");
        assert!(
            error
                .message()
                .starts_with(&format!("cannot write {}: ", path.display()))
                && error.message().contains("symbolic links"),
            "{error}"
        );
    }

    #[test]
    fn a_write_replaces_the_file_and_keeps_the_first_backup() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("config.json");
        fs::write(&path, "old").unwrap();
        let backup = write(&path, "new").unwrap();
        assert_eq!(backup.as_deref(), Some(backup_path(&path).as_path()));
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(write(&path, "newer").unwrap(), None);
        assert_eq!(fs::read_to_string(&path).unwrap(), "newer");
        assert_eq!(fs::read_to_string(backup_path(&path)).unwrap(), "old");
        let leftovers: Vec<_> = fs::read_dir(folder.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|name| name.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
