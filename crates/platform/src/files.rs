//! Files and folders that only their owner reads: the state folder and what
//! is in it (the token, `inbox.json`, the store), and the config files that
//! `setup` creates.
//!
//! - Unix: folders 0700, files 0600, a rewritten file keeps its mode and
//!   owner; a rename reaches the disk when its folder is synced.
//! - Windows: there are no mode bits. A file or folder created under the
//!   user's profile (`%LOCALAPPDATA%`, `%APPDATA%`, `%USERPROFILE%`)
//!   inherits the profile's access list, which grants the user, SYSTEM and
//!   the administrators only: private already, so nothing is set. A
//!   replacement file inherits its folder's list as the file it replaces
//!   did. Folders cannot be opened to be synced; NTFS journals the rename.
//!
//! The lock that keeps one inbox per state folder is `File::try_lock`
//! (std): `flock(LOCK_EX | LOCK_NB)` on Linux and macOS, as before, and
//! `LockFileEx` on Windows; both are held by the open file and released
//! when it is closed or the process ends.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

pub use imp::*;

#[cfg(unix)]
mod imp {
    use super::*;
    use std::fs::{DirBuilder, Permissions};
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};

    /// Mode of a private file (std opens every file close-on-exec already).
    const PRIVATE_FILE: u32 = 0o600;
    const PRIVATE_FOLDER: u32 = 0o700;

    /// Creates `path` and its missing parents, private to the user (0700).
    pub fn create_private_dir_all(path: &Path) -> io::Result<()> {
        DirBuilder::new()
            .recursive(true)
            .mode(PRIVATE_FOLDER)
            .create(path)
    }

    /// A file these options create is private (0600).
    pub fn private(options: &mut OpenOptions) -> &mut OpenOptions {
        options.mode(PRIVATE_FILE)
    }

    /// Makes an open file private again: one left by an earlier run may
    /// have wider bits.
    pub fn make_private(file: &File) -> io::Result<()> {
        file.set_permissions(Permissions::from_mode(PRIVATE_FILE))
    }

    /// Gives `file`, about to replace a file with metadata `existing`, that
    /// file's mode and owner; private (0600) when there was none.
    pub fn keep_mode_and_owner(file: &File, existing: Option<&Metadata>) -> io::Result<()> {
        let mode = existing.map_or(PRIVATE_FILE, |meta| meta.permissions().mode());
        file.set_permissions(Permissions::from_mode(mode))?;
        if let Some(meta) = existing {
            // Root editing someone's file leaves it theirs; others cannot chown and need not.
            let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
        }
        Ok(())
    }

    /// Flushes `dir`'s entries (a rename into it) to disk.
    pub fn sync_dir(dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }

    /// Whether reading `path` failed because it is a folder (EISDIR).
    pub fn is_a_directory(error: &io::Error, _path: &Path) -> bool {
        error.kind() == io::ErrorKind::IsADirectory
    }
}

#[cfg(windows)]
mod imp {
    use super::*;

    /// Creates `path` and its missing parents; they inherit the profile's
    /// access list (see the module's doc).
    pub fn create_private_dir_all(path: &Path) -> io::Result<()> {
        std::fs::DirBuilder::new().recursive(true).create(path)
    }

    /// Nothing to add: the file inherits its folder's access list.
    pub fn private(options: &mut OpenOptions) -> &mut OpenOptions {
        options
    }

    /// Nothing to narrow: there are no mode bits.
    pub fn make_private(_file: &File) -> io::Result<()> {
        Ok(())
    }

    /// The replacement inherits the folder's access list, as the file it
    /// replaces did; a read-only file is refused before this is reached.
    pub fn keep_mode_and_owner(_file: &File, _existing: Option<&Metadata>) -> io::Result<()> {
        Ok(())
    }

    /// A folder cannot be opened as a file to be flushed; NTFS journals the
    /// rename itself.
    pub fn sync_dir(_dir: &Path) -> io::Result<()> {
        Ok(())
    }

    /// Whether reading `path` failed because it is a folder: Windows says
    /// "access denied" when a folder is opened as a file.
    pub fn is_a_directory(error: &io::Error, path: &Path) -> bool {
        error.kind() == io::ErrorKind::PermissionDenied && path.is_dir()
    }
}

/// Whether `free` holds within about five seconds. A lock goes when the last
/// copy of its descriptor closes, and a child that another test in this
/// process starts holds a copy of every descriptor until its exec closes
/// them: a window that qemu-user widens until a lock test was seen to fail.
#[cfg(any(test, feature = "test-support"))]
pub fn comes_free(mut free: impl FnMut() -> bool) -> bool {
    (0..100).any(|_| {
        let now = free();
        if !now {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        now
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_file_is_written_read_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a/b");
        create_private_dir_all(&folder).unwrap();
        create_private_dir_all(&folder).unwrap();
        let path = folder.join("f");
        let mut options = OpenOptions::new();
        let file = private(options.write(true).create(true))
            .open(&path)
            .unwrap();
        make_private(&file).unwrap();
        keep_mode_and_owner(&file, None).unwrap();
        drop(file);
        sync_dir(&folder).unwrap();
        assert!(path.is_file());
        let error = std::fs::read(&folder).unwrap_err();
        assert!(is_a_directory(&error, &folder), "{error}");
        let error = std::fs::read(folder.join("missing")).unwrap_err();
        assert!(!is_a_directory(&error, &folder), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn unix_modes_are_0700_and_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("d");
        create_private_dir_all(&folder).unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&folder), 0o700);
        let path = folder.join("f");
        let mut options = OpenOptions::new();
        private(options.write(true).create(true))
            .open(&path)
            .unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn a_lock_is_held_by_the_open_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let open = || {
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .unwrap()
        };
        let first = open();
        first.try_lock().unwrap();
        assert!(matches!(
            open().try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(first);
        assert!(comes_free(|| open().try_lock().is_ok()));
    }

    #[cfg(unix)]
    #[test]
    fn make_private_narrows_a_wider_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "left by an earlier run").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        make_private(&File::open(&path).unwrap()).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn syncing_a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = sync_dir(&dir.path().join("missing")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }
}
