//! Away (DESIGN §16): whether the person is at the keyboard or away from it.
//!
//! At the keyboard, `ask_user hook HOST` steps aside and the host's own UI
//! asks; away, the hook asks through ask_user (the inbox and the person's
//! notifications). The state is one small file, `away.json`, in the state
//! folder (the same folder as `inbox.json`), written private and whole. No
//! file means at the keyboard: a person is never taken for away by default.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::state::{StateDir, write_private};
use ask_user_core::error::{AskError, Detail};

/// The file, in the state folder.
pub const AWAY_FILE: &str = "away.json";

/// `away.json`, and what `ask_user away status` prints. Keys in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Away {
    pub away: bool,
    /// When the state was last set, in milliseconds since the Unix epoch
    /// (absent: never set).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub since: Option<u64>,
}

impl Away {
    /// At the keyboard, never set: what no file means.
    pub const AT_KEYBOARD: Away = Away {
        away: false,
        since: None,
    };
}

/// Why the state could not be read or written.
#[derive(Debug)]
pub enum AwayError {
    /// No state folder can be named (no `ASK_USER_STATE_DIR`, no home).
    NoFolder,
    /// The file exists but is not an away state.
    Malformed(PathBuf, String),
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for AwayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AwayError::NoFolder => write!(
                f,
                "no state folder is known for the away state: set ASK_USER_STATE_DIR"
            ),
            AwayError::Malformed(path, why) => write!(
                f,
                "{} is not an away state ({why}); run `ask_user away on` or `ask_user away off` to write it anew",
                path.display()
            ),
            AwayError::Io(path, err) => write!(f, "cannot use {} ({err})", path.display()),
        }
    }
}

/// The away file of the folder the environment names.
pub fn located_file() -> Result<PathBuf, AwayError> {
    StateDir::locate()
        .map(|dir| dir.join(AWAY_FILE))
        .ok_or(AwayError::NoFolder)
}

/// The state kept in the folder the environment names.
pub fn read() -> Result<Away, AwayError> {
    read_file(&located_file()?)
}

/// Sets the state in the folder the environment names (creating the folder).
pub fn write(away: bool) -> Result<Away, AwayError> {
    let file = located_file()?;
    write_file(&file, away, now_ms())
}

/// The state in `path`: at the keyboard when there is no file.
pub fn read_file(path: &Path) -> Result<Away, AwayError> {
    match fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(text.trim())
            .map_err(|e| AwayError::Malformed(path.to_path_buf(), e.to_string())),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(Away::AT_KEYBOARD),
        Err(err) => Err(AwayError::Io(path.to_path_buf(), err)),
    }
}

/// Writes `away` to `path` (0600, whole), creating its folder (0700).
pub fn write_file(path: &Path, away: bool, since_ms: u64) -> Result<Away, AwayError> {
    let state = Away {
        away,
        since: Some(since_ms),
    };
    if let Some(dir) = path.parent() {
        StateDir::create(dir.to_path_buf()).map_err(|e| AwayError::Io(dir.to_path_buf(), e))?;
    }
    let mut line = ask_user_core::document_line(&state);
    line.push('\n');
    write_private(path, line.as_bytes()).map_err(|e| AwayError::Io(path.to_path_buf(), e))?;
    Ok(state)
}

/// What `ask_user away on|off|status` prints: the state in the documents'
/// envelope. Keys in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AwayDocument {
    pub tool: &'static str,
    pub version: u32,
    pub status: &'static str,
    pub away: bool,
    /// When the state was last set (ms since the Unix epoch); absent: never set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
}

impl From<Away> for AwayDocument {
    fn from(state: Away) -> Self {
        AwayDocument {
            tool: ask_user_core::TOOL_NAME,
            version: ask_user_core::DOC_VERSION,
            status: "ok",
            away: state.away,
            since: state.since,
        }
    }
}

/// `ask_user away`: sets the state (`Some`) or reads it (`None`), and
/// returns its document. No state folder or a malformed file is
/// CONFIG_ERROR; a file that cannot be read READ_ERROR, written WRITE_ERROR.
pub fn command(set: Option<bool>) -> Result<AwayDocument, AskError> {
    let state = match set {
        Some(away) => write(away),
        None => read(),
    };
    state.map(AwayDocument::from).map_err(|err| {
        let detail = Detail::new(err.to_string());
        match err {
            AwayError::NoFolder | AwayError::Malformed(..) => AskError::ConfigError(detail),
            AwayError::Io(..) if set.is_some() => AskError::WriteError(detail),
            AwayError::Io(..) => AskError::ReadError(detail),
        }
    })
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ask_user-away-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn no_file_is_at_the_keyboard() {
        let dir = scratch("none");
        assert_eq!(read_file(&dir.join(AWAY_FILE)).unwrap(), Away::AT_KEYBOARD);
    }

    #[test]
    fn a_written_state_reads_back_and_off_overwrites_on() {
        let dir = scratch("roundtrip");
        let file = dir.join("nested").join(AWAY_FILE);
        let on = write_file(&file, true, 1_000).unwrap();
        assert_eq!(
            on,
            Away {
                away: true,
                since: Some(1_000)
            }
        );
        assert_eq!(read_file(&file).unwrap(), on);
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "{\"away\":true,\"since\":1000}\n"
        );
        write_file(&file, false, 2_000).unwrap();
        assert_eq!(
            read_file(&file).unwrap(),
            Away {
                away: false,
                since: Some(2_000)
            }
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_it() {
        let dir = scratch("malformed");
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join(AWAY_FILE);
        fs::write(&file, "yes please").unwrap();
        let err = read_file(&file).unwrap_err();
        assert!(matches!(err, AwayError::Malformed(..)));
        let message = err.to_string();
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert!(message.contains("ask_user away on"), "{message}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
