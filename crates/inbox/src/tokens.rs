//! `ask_user inbox --tokens FILE`: named tokens, each with a role, beside the
//! inbox's own token (which keeps every right, as before).
//!
//! One token a line, `ROLE NAME TOKEN`:
//!
//! ```text
//! # who              token (at least 32 characters; `openssl rand -hex 16`)
//! person Ada         5f0c9a1e8b7d4c3f2a1b0e9d8c7b6a59
//! asker  ci-runner   0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a
//! ```
//!
//! - `person`: lists, answers, declines, dismisses, cancels and reads
//!   history; history records the name of the person who decided;
//! - `asker`: asks, and waits for, resumes or leaves its own questions only.
//!
//! Blank lines and lines starting with `#` are skipped. The file must not be
//! readable by other users (Unix: no group or other bits), like an SSH key.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use super::store::{self, Store, StoredToken, TokenRole};
use ask_user_core::error::AskError;
use ask_user_server::guard::{Holder, digest};

/// The shortest token taken: 128 bits as hex.
pub const MIN_TOKEN_CHARS: usize = 32;
const MAX_TOKEN_CHARS: usize = 512;
const MAX_NAME_CHARS: usize = 64;

/// The named tokens of `path`, or why the file cannot be used (one
/// sentence, naming the file and the line).
pub fn read(path: &Path, own_token: &str) -> Result<Vec<(String, Holder)>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("the tokens file {shown} cannot be read ({e})"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| format!("the tokens file {shown} cannot be read ({e})"))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(format!(
                "the tokens file {shown} is readable by others (mode {:o}); make it private: chmod 600 {shown}",
                mode & 0o777
            ));
        }
    }
    parse(&text).map_err(|(line, why)| format!("the tokens file {shown}, line {line}: {why}")).and_then(
        |holders| {
            if holders.iter().any(|(token, _)| token == own_token) {
                Err(format!(
                    "the tokens file {shown} holds the inbox's own token; give each person and asker a token of their own"
                ))
            } else {
                Ok(holders)
            }
        },
    )
}

/// The file's lines as (token, holder); an error is (line number, why).
pub fn parse(text: &str) -> Result<Vec<(String, Holder)>, (usize, String)> {
    let mut holders = Vec::new();
    let mut seen = HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [role, name, token] = fields[..] else {
            return Err((
                number,
                format!(
                    "expected ROLE NAME TOKEN (3 fields), found {}",
                    fields.len()
                ),
            ));
        };
        if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err((
                number,
                format!("a name is 1 to {MAX_NAME_CHARS} visible characters"),
            ));
        }
        if token.len() < MIN_TOKEN_CHARS
            || token.len() > MAX_TOKEN_CHARS
            || !token.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err((
                number,
                format!(
                    "a token is {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} visible ASCII characters (make one with `openssl rand -hex 16`)"
                ),
            ));
        }
        let holder = match role {
            "person" => Holder::Person(name.to_string()),
            "asker" => Holder::Asker(name.to_string()),
            other => {
                return Err((
                    number,
                    format!("the role is person or asker, not {other:?}"),
                ));
            }
        };
        if !seen.insert(token.to_string()) {
            return Err((number, "this token is on an earlier line too".into()));
        }
        holders.push((token.to_string(), holder));
    }
    Ok(holders)
}

/// What the row of a pairing code waiting for its phone has after the
/// device's name (`inbox pair` keeps the code among the tokens).
pub const PENDING_SUFFIX: &str = " pairing";

/// Whether a stored token's row is a pairing code waiting for its phone
/// (never a token: the guard and `token list` skip it).
pub fn is_pending(name: &str) -> bool {
    name.ends_with(PENDING_SUFFIX)
}

/// A stored token as the guard takes it; `None` for a digest of another
/// length (the schema allows none).
pub fn as_digest(token: StoredToken) -> Option<([u8; 32], Holder)> {
    // A pairing code waiting for its phone is no token (crates/inbox/src/pair.rs).
    if is_pending(&token.name) {
        return None;
    }
    let digest: [u8; 32] = token.digest.as_slice().try_into().ok()?;
    let holder = match token.role {
        TokenRole::Person => Holder::Person(token.name),
        TokenRole::Asker => Holder::Asker(token.name),
    };
    Some((digest, holder))
}

/// `ask_user inbox token add ROLE NAME`: what it prints, once.
#[derive(Debug, Serialize)]
pub struct Added {
    pub name: String,
    pub role: TokenRole,
    /// The token: shown this once; the store keeps its SHA-256 only.
    pub token: String,
}

/// `ask_user inbox token list`: one line per token (never the token).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub name: String,
    pub role: TokenRole,
    /// A person token's groups, sorted (empty for none and for askers).
    pub groups: Vec<String>,
    pub added_at: String,
}

/// Bytes of randomness in a token made by `token add` (256 bits).
const ADDED_TOKEN_BYTES: usize = 32;

/// Checks a name as the tokens file does.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(format!(
            "{name:?} is not a token name: 1 to {MAX_NAME_CHARS} visible characters, no spaces"
        ));
    }
    Ok(())
}

/// Checks `--group`: person tokens only (an asker is addressed by nobody),
/// each group named like a token.
pub fn check_groups(role: TokenRole, groups: &[String]) -> Result<(), String> {
    if role == TokenRole::Asker && !groups.is_empty() {
        return Err("--group is for person tokens only (an asker is never addressed)".into());
    }
    for group in groups {
        check_name(group).map_err(|_| {
            format!(
                "{group:?} is not a group name: 1 to {MAX_NAME_CHARS} visible characters, no spaces"
            )
        })?;
    }
    Ok(())
}

/// Makes a token for `name` and keeps its digest in `store`; `Ok(None)`
/// when the name is taken.
pub fn add(
    store: &mut dyn Store,
    role: TokenRole,
    name: &str,
    groups: &[String],
) -> Result<Option<Added>, store::Error> {
    let mut bytes = [0u8; ADDED_TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(store::Error::Random)?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let stored = StoredToken {
        name: name.to_string(),
        role,
        digest: digest(&token).to_vec(),
        added_at: store::now_ms(),
        groups: groups.to_vec(),
    };
    Ok(store.add_token(&stored)?.then(|| Added {
        name: name.to_string(),
        role,
        token,
    }))
}

/// `ask_user inbox token …`, on the store `location` names (`None`: the
/// state folder's SQLite file).
#[derive(Debug, Clone)]
pub enum Command {
    Add {
        role: TokenRole,
        name: String,
        /// `--group` (person tokens only).
        groups: Vec<String>,
    },
    List,
    Remove {
        name: String,
    },
}

/// Why a `token` command did nothing.
#[derive(Debug)]
pub enum Refused {
    /// A usage error (exit 2): a bad or taken name, an unknown one.
    Usage(String),
    /// The store could not be opened or written (an error document, exit 1).
    Failed(AskError),
}

/// Runs `command`: the JSON lines it prints.
pub fn run(location: Option<store::Location>, command: Command) -> Result<Vec<String>, Refused> {
    if let Command::Add { name, .. } | Command::Remove { name } = &command {
        check_name(name).map_err(Refused::Usage)?;
    }
    if let Command::Add { role, groups, .. } = &command {
        check_groups(*role, groups).map_err(Refused::Usage)?;
    }
    let (mut store, location) = super::open_store(location).map_err(Refused::Failed)?;
    let failed = |e: store::Error| {
        Refused::Failed(AskError::store_error(ask_user_core::error::Detail::new(
            format!("the inbox's store {} failed ({e})", location.describe()),
        )))
    };
    match command {
        Command::Add { role, name, groups } => {
            match add(&mut *store, role, &name, &groups).map_err(failed)? {
                Some(added) => Ok(vec![ask_user_core::document_line(&added)]),
                None => Err(Refused::Usage(format!(
                    "a token named {name:?} is kept already; remove it first (ask_user inbox token remove {name})"
                ))),
            }
        }
        Command::List => Ok(list(&mut *store)
            .map_err(failed)?
            .iter()
            .map(ask_user_core::document_line)
            .collect()),
        Command::Remove { name } => {
            if store.remove_token(&name).map_err(failed)? {
                Ok(Vec::new())
            } else {
                Err(Refused::Usage(format!(
                    "no token named {name:?} is kept (ask_user inbox token list shows them)"
                )))
            }
        }
    }
}

/// The stored tokens, by name, as `token list` prints them.
pub fn list(store: &mut dyn Store) -> Result<Vec<Listed>, store::Error> {
    Ok(store
        .tokens()?
        .into_iter()
        .filter(|token| !is_pending(&token.name))
        .map(|token| Listed {
            name: token.name,
            role: token.role,
            groups: token.groups,
            added_at: super::store::rfc3339(token.added_at),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: &str = "5f0c9a1e8b7d4c3f2a1b0e9d8c7b6a59";
    const T2: &str = "0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a";

    #[test]
    fn a_pairing_code_waiting_for_its_phone_is_never_a_token() {
        let pending = StoredToken {
            name: "phone-1 pairing".into(),
            role: TokenRole::Person,
            digest: digest(T1).to_vec(),
            added_at: 0,
            groups: Vec::new(),
        };
        assert_eq!(as_digest(pending), None);
        let paired = StoredToken {
            name: "phone-1".into(),
            role: TokenRole::Person,
            digest: digest(T1).to_vec(),
            added_at: 0,
            groups: Vec::new(),
        };
        assert_eq!(
            as_digest(paired),
            Some((digest(T1), Holder::Person("phone-1".into())))
        );
    }

    #[test]
    fn a_kept_token_s_name_is_1_to_64_visible_characters_without_spaces() {
        assert_eq!(check_name(&"a".repeat(64)), Ok(()));
        assert_eq!(check_name("ci-runner"), Ok(()));
        for bad in [String::new(), "a".repeat(65), "a b".into(), "a\tb".into()] {
            let error = check_name(&bad).unwrap_err();
            assert!(
                error.ends_with("1 to 64 visible characters, no spaces"),
                "{error}"
            );
        }
    }

    #[test]
    fn lines_are_role_name_token_and_comments_are_skipped() {
        let text = format!("# team\n\nperson Ada {T1}\n  asker   ci-runner\t{T2}  \n");
        assert_eq!(
            parse(&text).unwrap(),
            [
                (T1.to_string(), Holder::Person("Ada".into())),
                (T2.to_string(), Holder::Asker("ci-runner".into())),
            ]
        );
        assert_eq!(parse("").unwrap(), []);
    }

    #[test]
    fn every_bad_line_is_named_with_its_reason() {
        let cases = [
            ("person Ada".to_string(), "3 fields), found 2"),
            (format!("person Ada Lovelace {T1}"), "found 4"),
            (format!("admin Ada {T1}"), "person or asker, not \"admin\""),
            ("person Ada short".to_string(), "32 to 512 visible ASCII"),
            (format!("person Ada {}", "é".repeat(32)), "visible ASCII"),
            (format!("person {} {T1}", "a".repeat(65)), "1 to 64"),
            (format!("person Ada {T1}\nasker Bob {T1}"), "earlier line"),
        ];
        for (text, why) in cases {
            let (line, message) = parse(&text).unwrap_err();
            assert!(message.contains(why), "{text}: {message}");
            assert_eq!(line, text.lines().count(), "{text}");
        }
        let long = format!("asker A {}", "a".repeat(513));
        assert!(parse(&long).unwrap_err().1.contains("32 to 512"));
        assert!(parse(&format!("asker A {}", "a".repeat(512))).is_ok());
        assert!(parse(&format!("asker A {}", "a".repeat(31))).is_err());
        assert!(parse(&format!("asker {} {T1}", "a".repeat(64))).is_ok());
    }

    #[test]
    fn the_file_is_private_and_holds_no_copy_of_the_inbox_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, format!("person Ada {T1}\n")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
            let err = read(&path, T2).unwrap_err();
            assert!(err.contains("readable by others (mode 640)"), "{err}");
            assert!(err.contains("chmod 600"), "{err}");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(read(&path, T2).unwrap().len(), 1);
        let err = read(&path, T1).unwrap_err();
        assert!(err.contains("holds the inbox's own token"), "{err}");
        std::fs::write(&path, "person Ada\n").unwrap();
        let err = read(&path, T2).unwrap_err();
        assert!(err.contains("line 1: expected ROLE NAME TOKEN"), "{err}");
        let err = read(&dir.path().join("none"), T2).unwrap_err();
        assert!(err.contains("cannot be read"), "{err}");
    }
}
