//! Where things are: the home folder, the default state folder, a binary's
//! own path, programs on `PATH`, and the program that opens a URL.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub use imp::*;

/// A variable's value, when it is set and not empty.
fn var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// The home folder, from [`HOME_VAR`] only.
pub fn home() -> Option<PathBuf> {
    var(HOME_VAR)
}

/// Starts the system's opener on `url`; having none is not an error.
pub fn open_in_browser(url: &str) {
    let (opener, args) = opener(url);
    let child = std::process::Command::new(opener)
        .args(args)
        .stdin(std::process::Stdio::null())
        // stdout carries the answer document: the opener must not write there.
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match child {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(_) => eprintln!("ask_user: no browser opener ({opener}) found; open the URL yourself"),
    }
}

#[cfg(unix)]
mod imp {
    use super::*;

    /// The variable that names the home folder. HOME only: the user
    /// database's fallback (getpwuid) would link glibc's NSS into the static
    /// binary (90 KiB) for a case that a message handles.
    pub const HOME_VAR: &str = "HOME";

    /// What the state folder falls back to, for messages.
    pub const STATE_VAR: &str = "HOME";

    /// The state folder when `ASK_USER_STATE_DIR` is not set:
    /// `$XDG_STATE_HOME/ask_user`, else `~/.local/state/ask_user`.
    pub fn default_state_dir() -> Option<PathBuf> {
        if let Some(dir) = var("XDG_STATE_HOME") {
            return Some(dir.join("ask_user"));
        }
        home().map(|home| home.join(".local/state/ask_user"))
    }

    /// `path`, absolute, without links.
    pub fn canonical(path: &Path) -> std::io::Result<PathBuf> {
        path.canonicalize()
    }

    /// Whether `folder` holds the program `name`: an executable file.
    pub fn has_program(folder: &Path, name: &str) -> bool {
        use std::os::unix::fs::PermissionsExt;
        folder
            .join(name)
            .metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    }

    /// The program that opens `url` in the browser, and its arguments.
    pub fn opener(url: &str) -> (&'static str, Vec<&OsStr>) {
        let program = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        (program, vec![OsStr::new(url)])
    }
}

#[cfg(windows)]
mod imp {
    use super::*;

    /// The variable that names the profile folder, where the hosts keep
    /// their dot-folders (`%USERPROFILE%\.codex`, `.cursor`, …).
    pub const HOME_VAR: &str = "USERPROFILE";

    /// What the state folder falls back to, for messages.
    pub const STATE_VAR: &str = "LOCALAPPDATA";

    /// The state folder when `ASK_USER_STATE_DIR` is not set:
    /// `%LOCALAPPDATA%\ask_user` (local, not roaming: the store and the
    /// lock belong to this machine).
    pub fn default_state_dir() -> Option<PathBuf> {
        var(STATE_VAR).map(|dir| dir.join("ask_user"))
    }

    /// `path`, absolute, without links, and without the `\\?\` prefix that
    /// `canonicalize` adds (a config file and the people reading it expect
    /// `C:\…`). A path that only the prefixed form can name (past
    /// `MAX_PATH`) keeps it.
    pub fn canonical(path: &Path) -> std::io::Result<PathBuf> {
        path.canonicalize().map(|path| plain(&path))
    }

    /// `\\?\C:\x` → `C:\x`, `\\?\UNC\host\share\x` → `\\host\share\x`.
    pub(crate) fn plain(path: &Path) -> PathBuf {
        let Some(text) = path.to_str() else {
            return path.to_path_buf();
        };
        let plain = if let Some(rest) = text.strip_prefix(r"\\?\UNC\") {
            format!(r"\\{rest}")
        } else if let Some(rest) = text.strip_prefix(r"\\?\") {
            rest.to_string()
        } else {
            return path.to_path_buf();
        };
        // Win32 limits a plain path to MAX_PATH (260) characters.
        if plain.encode_utf16().count() < 260 {
            PathBuf::from(plain)
        } else {
            path.to_path_buf()
        }
    }

    /// Whether `folder` holds the program `name`: `name` with one of the
    /// extensions `PATHEXT` lists (npm installs `claude.cmd`, VS Code
    /// `code.cmd`), or as given when it already has one.
    pub fn has_program(folder: &Path, name: &str) -> bool {
        if Path::new(name).extension().is_some() {
            return folder.join(name).is_file();
        }
        let extensions = std::env::var("PATHEXT")
            .ok()
            .filter(|value| !value.is_empty())
            .unwrap_or_else(|| ".COM;.EXE;.BAT;.CMD".into());
        extensions
            .split(';')
            .filter(|ext| !ext.is_empty())
            .any(|ext| {
                let file = format!("{name}{}", ext.to_ascii_lowercase());
                folder.join(file).is_file()
            })
    }

    /// The program that opens `url` in the browser: the URL protocol
    /// handler through rundll32, which takes the URL as one argument (no
    /// shell, so `&` in the URL's query stays text; `cmd /C start` would
    /// split there).
    pub fn opener(url: &str) -> (&'static str, Vec<&OsStr>) {
        (
            "rundll32.exe",
            vec![OsStr::new("url.dll,FileProtocolHandler"), OsStr::new(url)],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_by_their_platform_name() {
        let dir = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            for (name, mode) in [("tool", 0o755), ("data", 0o644)] {
                let path = dir.path().join(name);
                std::fs::write(&path, "").unwrap();
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            }
        }
        #[cfg(windows)]
        for name in ["tool.cmd", "data"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert!(has_program(dir.path(), "tool"));
        assert!(!has_program(dir.path(), "data"));
        assert!(!has_program(dir.path(), "missing"));
    }

    #[test]
    fn a_canonical_path_is_absolute() {
        let dir = tempfile::tempdir().unwrap();
        let path = canonical(dir.path()).unwrap();
        assert!(path.is_absolute(), "{}", path.display());
        assert!(!path.to_string_lossy().starts_with(r"\\?\"));
    }

    #[cfg(windows)]
    #[test]
    fn the_verbatim_prefix_goes() {
        assert_eq!(plain(Path::new(r"\\?\C:\a\b")), PathBuf::from(r"C:\a\b"));
        assert_eq!(
            plain(Path::new(r"\\?\UNC\host\share\x")),
            PathBuf::from(r"\\host\share\x")
        );
        assert_eq!(plain(Path::new(r"C:\a")), PathBuf::from(r"C:\a"));
        let long = format!(r"\\?\C:\{}", "x".repeat(300));
        assert_eq!(plain(Path::new(&long)), PathBuf::from(&long));
    }
}
