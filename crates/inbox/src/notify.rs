//! `inbox --notify CMD` (or `ASK_USER_NOTIFY_CMD`): a bridge to ntfy, Slack,
//! a phone. For each new question the inbox runs CMD the way git runs
//! `core.editor` and ssh runs `ProxyCommand`: `/bin/sh -c CMD` (on Windows
//! `cmd /d /s /c "CMD"`: [`ask_user_platform::shell`]), so quoting, pipes and
//! `$VARIABLES` work as typed. Its stdin is the question's prompt
//! document (one JSON line, as `ask_user prompt` prints it); its environment
//! has `ASK_USER_INBOX_ID`, `ASK_USER_QUESTION` (one line of plain text: the
//! title or the first question) and `ASK_USER_ASKER` (the source's name, when
//! known); its stdout and stderr go to the inbox's stderr.
//!
//! The command cannot change anything: it runs beside the inbox, never in
//! its way (the question is stored, listed and answerable before it starts,
//! and nothing waits for it). It gets a time limit, after which its whole
//! process group (on Windows, its job object) is killed; a command that fails, cannot start or is killed
//! is logged on stderr, and the inbox goes on.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, broadcast};

use super::hub::Change;
use super::store::Source;
use ask_user_platform::shell::{self, Group};

/// Commands running at once; more wait for a turn (200 askers arriving at
/// once must not become 200 processes).
const AT_ONCE: usize = 4;
/// Longest `ASK_USER_QUESTION`, in characters.
const MAX_QUESTION_CHARS: usize = 200;

#[derive(Debug, Clone)]
pub struct Notify {
    /// Run by `/bin/sh -c` (Windows: `cmd /d /s /c`).
    pub command: String,
    pub time_limit: Duration,
}

/// Runs the command for every question asked from now on, until `changes` ends.
pub async fn announce(notify: Notify, mut changes: broadcast::Receiver<Change>) {
    let notify = Arc::new(notify);
    let turns = Arc::new(Semaphore::new(AT_ONCE));
    loop {
        match changes.recv().await {
            Ok(Change::Asked(listed) | Change::Heard(listed)) => {
                let notify = Arc::clone(&notify);
                let turns = Arc::clone(&turns);
                tokio::spawn(async move {
                    let Ok(_turn) = turns.acquire().await else {
                        return;
                    };
                    if let Some(question) = Announced::read(&listed) {
                        notify.run(&question).await;
                    }
                });
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(missed)) => eprintln!(
                "ask_user inbox: --notify missed {missed} changes (too many questions at once); their commands did not run"
            ),
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// What the command hears about a new question (from its listing).
#[derive(Debug, PartialEq, Eq)]
pub struct Announced {
    pub inbox_id: String,
    /// The prompt document, one line of JSON.
    pub document: String,
    /// `ASK_USER_QUESTION`.
    pub question: String,
    pub asker: Option<String>,
}

impl Announced {
    /// From a question's [`super::hub::Listed`] JSON.
    pub fn read(listed: &str) -> Option<Announced> {
        #[derive(Deserialize)]
        struct Listed<'a> {
            #[serde(rename = "inboxId")]
            inbox_id: String,
            source: Source,
            #[serde(borrow)]
            document: &'a RawValue,
        }
        #[derive(Deserialize)]
        struct Document {
            title: Option<String>,
            prompt: Option<Item>,
            prompts: Option<Vec<Item>>,
        }
        #[derive(Deserialize)]
        struct Item {
            question: String,
        }
        let listed: Listed = serde_json::from_str(listed).ok()?;
        let document: Document = serde_json::from_str(listed.document.get()).ok()?;
        let first = document
            .prompt
            .or_else(|| document.prompts.and_then(|items| items.into_iter().next()));
        let question = document
            .title
            .or(first.map(|item| item.question))
            .unwrap_or_default();
        Some(Announced {
            inbox_id: listed.inbox_id,
            document: listed.document.get().to_string(),
            question: one_line(&question),
            asker: listed.source.name.map(|name| one_line(&name)),
        })
    }
}

/// Text for an environment variable: no controls, one line, at most
/// [`MAX_QUESTION_CHARS`]. On Windows also without cmd's metacharacters
/// ([`cmd_inert`]): cmd expands `%ASK_USER_QUESTION%` before it parses the
/// line, so an `&` in an agent's question would run as a command in a CMD
/// that names the variable, as docs/inbox-channels.md warns not to.
fn one_line(text: &str) -> String {
    let line = ask_user_core::sanitize::one_line(text, MAX_QUESTION_CHARS);
    if cfg!(windows) {
        cmd_inert(&line)
    } else {
        line
    }
}

/// `text` with each character that cmd gives a meaning to after `%VAR%`
/// expansion (`& | < > ^ " ( ) %`, and `!` under delayed expansion) made a
/// space: a value expanded into a command line stays text wherever it lands.
fn cmd_inert(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' | '|' | '<' | '>' | '^' | '"' | '(' | ')' | '%' | '!' => ' ',
            c => c,
        })
        .collect()
}

/// How one run ended.
#[derive(Debug)]
pub enum Ran {
    Done(ExitStatus),
    /// It could not be started.
    NotStarted(std::io::Error),
    /// Waiting for it failed (the system lost track of it).
    Lost(std::io::Error),
    /// It ran past the time limit and was killed.
    TooSlow,
}

impl Notify {
    /// Runs the command for `question`, and logs anything but success.
    pub async fn run(&self, question: &Announced) -> Ran {
        let ran = self.spawn_and_wait(question).await;
        let id = &question.inbox_id;
        match &ran {
            Ran::Done(status) if status.success() => {}
            Ran::Done(status) => {
                eprintln!("ask_user inbox: --notify command failed for question {id} ({status})");
            }
            Ran::NotStarted(e) => eprintln!(
                "ask_user inbox: --notify command could not start for question {id} ({}: {e})",
                shell::SHELL
            ),
            Ran::Lost(e) => eprintln!(
                "ask_user inbox: --notify command for question {id} could not be waited for ({e})"
            ),
            Ran::TooSlow => eprintln!(
                "ask_user inbox: --notify command for question {id} ran longer than {} s and was killed",
                self.time_limit.as_secs_f64()
            ),
        }
        ran
    }

    async fn spawn_and_wait(&self, question: &Announced) -> Ran {
        // Its output goes where the inbox's own messages go.
        let (out, err) = match (shell::stderr_for_child(), shell::stderr_for_child()) {
            (Ok(out), Ok(err)) => (out, err),
            (Err(e), _) | (_, Err(e)) => return Ran::NotStarted(e),
        };
        // A group of its own: the time limit ends everything it started.
        let mut command = shell::shell_command(&self.command);
        command
            .env("ASK_USER_INBOX_ID", &question.inbox_id)
            .env("ASK_USER_QUESTION", &question.question)
            .stdin(Stdio::piped())
            .stdout(out)
            .stderr(err)
            .kill_on_drop(true);
        match &question.asker {
            Some(asker) => command.env("ASK_USER_ASKER", asker),
            None => command.env_remove("ASK_USER_ASKER"),
        };
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => return Ran::NotStarted(e),
        };
        // Without a group (a job object Windows would not make), the time
        // limit ends the shell alone.
        let group = Group::of(&child).ok();
        let stdin = child.stdin.take();
        let document = format!("{}\n", question.document);
        let finished = async {
            let write = async {
                // A command that does not read its stdin is fine.
                if let Some(mut stdin) = stdin {
                    let _ = stdin.write_all(document.as_bytes()).await;
                }
            };
            let ((), status) = tokio::join!(write, child.wait());
            status
        };
        match tokio::time::timeout(self.time_limit, finished).await {
            Ok(Ok(status)) => {
                if let Some(group) = group {
                    group.release();
                }
                Ran::Done(status)
            }
            Ok(Err(e)) => Ran::Lost(e),
            Err(_) => {
                match &group {
                    Some(group) => group.kill(),
                    None => {
                        let _ = child.start_kill();
                    }
                }
                let _ = child.wait().await;
                Ran::TooSlow
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(document: &str, name: Option<&str>) -> String {
        let source = match name {
            Some(name) => format!(r#"{{"name":{}}}"#, serde_json::to_string(name).unwrap()),
            None => "{}".into(),
        };
        format!(r#"{{"inboxId":"ab12cd34","source":{source},"askedAt":"x","document":{document}}}"#)
    }

    #[test]
    fn the_title_else_the_first_question_on_one_clean_line() {
        let one =
            r#"{"tool":"ask_user","prompt":{"question":"Deploy\nwhere?\u001b]0;pwned\u0007"}}"#;
        let read = Announced::read(&listed(one, Some("claude\u{1b}[2J code"))).unwrap();
        assert_eq!(read.inbox_id, "ab12cd34");
        assert_eq!(read.document, one);
        assert_eq!(read.question, "Deploy where?");
        assert_eq!(read.asker.as_deref(), Some("claude code"));
        let several = r#"{"prompts":[{"question":"First"},{"question":"Second"}]}"#;
        let read = Announced::read(&listed(several, None)).unwrap();
        assert_eq!((read.question.as_str(), read.asker), ("First", None));
        let titled = r#"{"title":"Release","prompts":[{"question":"First"}]}"#;
        assert_eq!(
            Announced::read(&listed(titled, None)).unwrap().question,
            "Release"
        );
        let long = format!(r#"{{"prompt":{{"question":"{}"}}}}"#, "x".repeat(300));
        let question = Announced::read(&listed(&long, None)).unwrap().question;
        assert_eq!(question.chars().count(), MAX_QUESTION_CHARS);
        assert!(question.ends_with('…'));
        assert_eq!(Announced::read("{}"), None);
    }

    #[test]
    fn cmd_metacharacters_become_spaces_and_the_rest_stays() {
        assert_eq!(
            cmd_inert(r#"Ship? & del /q * | x < y > z ^ "q" (a) %PATH% !v!"#),
            "Ship?   del /q *   x   y   z    q   a   PATH   v "
        );
        assert_eq!(
            cmd_inert("Déployer où ? ok: 1, 2; [x] {y}"),
            "Déployer où ? ok: 1, 2; [x] {y}"
        );
        // What a notify command gets: inert on Windows only, where cmd
        // expands %VAR% before it parses; sh's "$VAR" needs nothing.
        let hostile = r#"{"prompt":{"question":"Go? & calc.exe > out"}}"#;
        let read = Announced::read(&listed(hostile, Some("a|b"))).unwrap();
        if cfg!(windows) {
            assert_eq!(read.question, "Go?   calc.exe   out");
            assert_eq!(read.asker.as_deref(), Some("a b"));
        } else {
            assert_eq!(read.question, "Go? & calc.exe > out");
            assert_eq!(read.asker.as_deref(), Some("a|b"));
        }
        // The document on stdin is the prompt document, as it is.
        assert_eq!(read.document, hostile);
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    fn announced() -> Announced {
        Announced {
            inbox_id: "ab12cd34".into(),
            document: r#"{"prompt":{"question":"Q?"}}"#.into(),
            question: "Q?".into(),
            asker: Some("codex".into()),
        }
    }

    // The commands below are sh; the Windows ones, in cmd, follow.
    #[cfg(unix)]
    #[test]
    fn the_command_gets_the_document_and_the_variables() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let notify = Notify {
            command: format!(
                r#"{{ cat; printf '%s|%s|%s' "$ASK_USER_INBOX_ID" "$ASK_USER_QUESTION" "$ASK_USER_ASKER"; }} > '{}'"#,
                out.display()
            ),
            time_limit: Duration::from_secs(60),
        };
        let ran = runtime().block_on(notify.run(&announced()));
        assert!(
            matches!(ran, Ran::Done(status) if status.success()),
            "{ran:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "{\"prompt\":{\"question\":\"Q?\"}}\nab12cd34|Q?|codex"
        );
    }

    #[cfg(unix)]
    #[test]
    fn failures_and_slowness_are_reported() {
        let failing = Notify {
            command: "exit 3".into(),
            time_limit: Duration::from_secs(60),
        };
        let ran = runtime().block_on(failing.run(&announced()));
        assert!(
            matches!(ran, Ran::Done(status) if status.code() == Some(3)),
            "{ran:?}"
        );
        let slow = Notify {
            command: "sleep 600".into(),
            time_limit: Duration::from_millis(100),
        };
        assert!(matches!(
            runtime().block_on(slow.run(&announced())),
            Ran::TooSlow
        ));
        // A command the system refuses to start (no argv can carry a NUL).
        let unstartable = Notify {
            command: "true\0".into(),
            time_limit: Duration::from_secs(60),
        };
        assert!(matches!(
            runtime().block_on(unstartable.run(&announced())),
            Ran::NotStarted(e) if e.kind() == std::io::ErrorKind::InvalidInput
        ));
    }

    #[cfg(windows)]
    #[test]
    fn cmd_gets_the_document_and_the_variables() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let notify = Notify {
            command: format!(
                r#"(sort & echo %ASK_USER_INBOX_ID%^|%ASK_USER_QUESTION%^|%ASK_USER_ASKER%) > "{}""#,
                out.display()
            ),
            time_limit: Duration::from_secs(60),
        };
        let ran = runtime().block_on(notify.run(&announced()));
        assert!(
            matches!(ran, Ran::Done(status) if status.success()),
            "{ran:?}"
        );
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(
            written.contains("{\"prompt\":{\"question\":\"Q?\"}}")
                && written.contains("ab12cd34|Q?|codex"),
            "{written:?}"
        );
    }

    /// A question read as the inbox reads it, with `& … >` in it, echoed by
    /// a CMD that names it with %…% (what the docs warn against): only
    /// text, and no second command writes a file.
    #[cfg(windows)]
    #[test]
    fn a_hostile_question_in_percent_variables_runs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let pwned = dir.path().join("pwned");
        let question = format!(
            r#"{{"prompt":{{"question":"Go? & echo x > {}"}}}}"#,
            pwned.display().to_string().replace('\\', "\\\\")
        );
        let announced = Announced::read(&listed(&question, None)).unwrap();
        let notify = Notify {
            command: format!(r#"echo %ASK_USER_QUESTION% > "{}""#, out.display()),
            time_limit: Duration::from_secs(60),
        };
        let ran = runtime().block_on(notify.run(&announced));
        assert!(
            matches!(ran, Ran::Done(status) if status.success()),
            "{ran:?}"
        );
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(written.contains("Go?   echo x"), "{written:?}");
        assert!(!pwned.exists(), "the question ran as a command");
    }

    #[cfg(windows)]
    #[test]
    fn cmd_failures_and_slowness_are_reported() {
        let failing = Notify {
            command: "exit 3".into(),
            time_limit: Duration::from_secs(60),
        };
        let ran = runtime().block_on(failing.run(&announced()));
        assert!(
            matches!(ran, Ran::Done(status) if status.code() == Some(3)),
            "{ran:?}"
        );
        // An endless loop in a second cmd: the job ends both.
        let slow = Notify {
            command: "cmd /d /c \"for /l %i in (1,0,2) do rem\"".into(),
            time_limit: Duration::from_millis(300),
        };
        assert!(matches!(
            runtime().block_on(slow.run(&announced())),
            Ran::TooSlow
        ));
    }
}
