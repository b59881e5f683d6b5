//! The policy file an inbox runs with (`ask_user inbox --policy FILE`): read
//! at start, where a bad file stops the start with its line and column, and
//! read again whenever it changes while the inbox runs ([`PolicyFile::poll`],
//! about once a second: its modification time and length, no file watcher).
//! A bad edit keeps the last good policy in force and is said once on
//! stderr, so that a person fixing a typo is not left with no ladder, and
//! stderr is not filled while they fix it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::channels::{self, Channel, Env};
use crate::contact::Spec;
use crate::policy::{Policy, PolicyError, parse};
use ask_user_core::error::{AskError, Detail};

/// How often the inbox looks whether the file changed.
pub const POLL_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// A policy with each person's contacts ready to deliver (their secrets
/// read, as for `--notify-to`).
pub struct Loaded {
    pub policy: Policy,
    /// Each person's contacts, in the file's order, with the spec each came from.
    pub contacts: Vec<(String, Vec<(Spec, Channel)>)>,
}

impl Loaded {
    /// A policy whose contacts need no secret read (tests).
    #[doc(hidden)]
    pub fn resolve(policy: Policy, env: Env<'_>) -> Result<Loaded, String> {
        let mut contacts = Vec::with_capacity(policy.people.len());
        for (name, specs) in &policy.people {
            let mut resolved = Vec::with_capacity(specs.len());
            for (index, spec) in specs.iter().enumerate() {
                let channel = channels::resolve_one(spec, env).map_err(|why| {
                    format!(
                        "people.{name}.notify[{}] ({}=…): {why}",
                        index + 1,
                        spec.kind.as_str()
                    )
                })?;
                resolved.push((spec.clone(), channel));
            }
            contacts.push((name.clone(), resolved));
        }
        Ok(Loaded { policy, contacts })
    }

    /// "2 people, 3 escalation steps": for the lines on stderr.
    pub fn summary(&self) -> String {
        let people = self.policy.people.len();
        let steps = self.policy.escalate.len();
        format!(
            "{people} {}, {steps} escalation {}",
            if people == 1 { "person" } else { "people" },
            if steps == 1 { "step" } else { "steps" }
        )
    }
}

/// What makes a version of the file: a change of either is a new version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    let meta = std::fs::metadata(path)?;
    Ok(Stamp {
        modified: meta.modified().ok(),
        len: meta.len(),
    })
}

/// Why a version of the file is not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It cannot be read (gone, not UTF-8, no permission).
    Unreadable(String),
    /// Not a policy: where and what.
    Invalid(PolicyError),
    /// A contact whose secret is missing or wrong.
    Contact(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Unreadable(why) => write!(f, "cannot be read ({why})"),
            Refused::Invalid(e) => write!(f, "{e}"),
            Refused::Contact(why) => f.write_str(why),
        }
    }
}

/// What [`PolicyFile::poll`] found.
pub enum Reload {
    /// The same version as last time (or a refused version already said).
    Unchanged,
    /// A new good version: it is in force from now on.
    Loaded(Box<Loaded>),
    /// A new version that is refused (said once): the last good one stays.
    Refused(Refused),
}

/// The file, and which version of it was last looked at.
pub struct PolicyFile {
    path: PathBuf,
    seen: Option<Stamp>,
}

impl PolicyFile {
    /// Reads the file at start: a file that cannot be read is READ_ERROR, a
    /// bad one INVALID_FIELD naming its line and column (or the contact).
    pub fn open(path: &Path, env: Env<'_>) -> Result<(PolicyFile, Loaded), AskError> {
        let shown = path.display();
        let seen = stamp(path).ok();
        let loaded = load(path, env).map_err(|refused| match refused {
            Refused::Unreadable(why) => AskError::ReadError(Detail::new(format!(
                "cannot read the policy file {shown} ({why}); --policy names a TOML file (docs/inbox-routing.md, Escalation)"
            ))),
            refused => AskError::InvalidField(Detail::new(format!(
                "the policy file {shown}: {refused}"
            ))),
        })?;
        Ok((
            PolicyFile {
                path: path.to_path_buf(),
                seen,
            },
            loaded,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Looks whether the file changed since the last look, and reads it if so.
    pub fn poll(&mut self, env: Env<'_>) -> Reload {
        let now = stamp(&self.path).ok();
        if now == self.seen {
            return Reload::Unchanged;
        }
        self.seen = now;
        match load(&self.path, env) {
            Ok(loaded) => Reload::Loaded(Box::new(loaded)),
            Err(refused) => Reload::Refused(refused),
        }
    }
}

/// Polls `file` every [`POLL_EVERY`] for ever, handing each new good
/// version to `apply`; each new version is said on stderr (a refused one
/// with why, once).
pub async fn watch(mut file: PolicyFile, mut apply: impl FnMut(Loaded)) {
    let env = |name: &str| std::env::var(name).ok();
    let mut every = tokio::time::interval(POLL_EVERY);
    loop {
        every.tick().await;
        let shown = file.path().display().to_string();
        match file.poll(&env) {
            Reload::Unchanged => {}
            Reload::Loaded(loaded) => {
                eprintln!(
                    "ask_user inbox: policy {shown} reloaded ({})",
                    loaded.summary()
                );
                apply(*loaded);
            }
            Reload::Refused(refused) => eprintln!(
                "ask_user inbox: policy {shown}: {refused}; the last good policy stays in force"
            ),
        }
    }
}

fn load(path: &Path, env: Env<'_>) -> Result<Loaded, Refused> {
    let bytes = std::fs::read(path).map_err(|e| Refused::Unreadable(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Refused::Unreadable(format!(
            "not UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let policy = parse(&text).map_err(Refused::Invalid)?;
    Loaded::resolve(policy, env).map_err(Refused::Contact)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn write(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
    }

    const ONE_STEP: &str = "[[escalate]]\nafter = \"1s\"\nnotify = \"ops\"\n";
    const TWO_STEPS: &str = "[[escalate]]\nafter = \"1s\"\nnotify = \"ops\"\n[[escalate]]\nafter = \"2s\"\nnotify = \"ada\"\n";

    #[test]
    fn a_file_is_read_again_only_when_it_changed_and_a_bad_edit_is_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        write(&path, ONE_STEP);
        let (mut file, loaded) = PolicyFile::open(&path, &no_env).unwrap();
        assert_eq!(loaded.policy.escalate.len(), 1);
        assert_eq!(loaded.summary(), "0 people, 1 escalation step");
        assert!(matches!(file.poll(&no_env), Reload::Unchanged));

        write(&path, TWO_STEPS);
        let Reload::Loaded(loaded) = file.poll(&no_env) else {
            panic!("the new version is read");
        };
        assert_eq!(loaded.policy.escalate.len(), 2);
        assert!(matches!(file.poll(&no_env), Reload::Unchanged));

        write(&path, "[[escalate]]\nafter = \"soon\"\nnotify = \"ops\"\n");
        let Reload::Refused(Refused::Invalid(e)) = file.poll(&no_env) else {
            panic!("a bad edit is refused");
        };
        assert_eq!((e.line, e.column), (2, 9));
        // Said once: the same bad version is not refused again.
        assert!(matches!(file.poll(&no_env), Reload::Unchanged));

        std::fs::remove_file(&path).unwrap();
        let Reload::Refused(Refused::Unreadable(_)) = file.poll(&no_env) else {
            panic!("a removed file is refused");
        };
        assert!(matches!(file.poll(&no_env), Reload::Unchanged));
        write(&path, ONE_STEP);
        assert!(matches!(file.poll(&no_env), Reload::Loaded(_)));
    }

    #[test]
    fn a_bad_file_at_start_is_an_error_with_its_code() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        let Err(AskError::ReadError(detail)) = PolicyFile::open(&path, &no_env) else {
            panic!("a missing file cannot be read");
        };
        assert!(
            detail
                .message
                .starts_with(&format!("cannot read the policy file {}", path.display())),
            "{detail}"
        );
        assert!(
            detail
                .message
                .ends_with("--policy names a TOML file (docs/inbox-routing.md, Escalation)"),
            "{detail}"
        );
        write(&path, "[people.ada]\nnotify = [\"pager=1\"]\n");
        let Err(AskError::InvalidField(detail)) = PolicyFile::open(&path, &no_env) else {
            panic!("a bad file is refused");
        };
        assert!(
            detail.message.starts_with(&format!(
                "the policy file {}: line 2, column 11: people.ada.notify: unknown kind \"pager\"",
                path.display()
            )),
            "{detail}"
        );
        // A webhook contact needs its secret, as --notify-to does.
        write(
            &path,
            "[people.ada]\nnotify = [\"webhook=http://127.0.0.1:9/h\"]\n",
        );
        let Err(AskError::InvalidField(detail)) = PolicyFile::open(&path, &no_env) else {
            panic!("a contact without its secret is refused");
        };
        assert!(
            detail.message.contains(
                "people.ada.notify[1] (webhook=…): a webhook is signed: set ASK_USER_WEBHOOK_SECRET"
            ),
            "{detail}"
        );
        std::fs::write(&path, b"notify = \xff").unwrap();
        let Err(AskError::ReadError(detail)) = PolicyFile::open(&path, &no_env) else {
            panic!("not UTF-8");
        };
        assert!(detail.message.contains("not UTF-8 at byte 9"), "{detail}");
    }
}
