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

use crate::server::guard::Holder;

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

#[cfg(test)]
mod tests {
    use super::*;

    const T1: &str = "5f0c9a1e8b7d4c3f2a1b0e9d8c7b6a59";
    const T2: &str = "0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a";

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
