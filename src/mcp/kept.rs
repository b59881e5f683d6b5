//! Questions this `mcp` process keeps answerable after the call that asked
//! them returned (`mcp --wait`, no inbox): each one's answer page runs in a
//! background task on the server's runtime, and its outcome is kept for a
//! later `{"resume": id}` on the same server.
//!
//! A kept page lives until it is answered or cancelled on the page, its
//! question's own time limit passes (then the kept outcome is timed out),
//! [`Kept::close`] ends it, or the process exits (the host stops the
//! server): the runtime drops the task, which closes the page's port. At
//! most [`MAX_KEPT`] questions are kept; the oldest goes first.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::log;
use crate::answer::{AnswerDocument, Unanswered};
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::web::{WebOptions, WebSession};

/// How many questions one process keeps (open or decided); past it, the
/// oldest is closed and forgotten.
pub const MAX_KEPT: usize = 64;

/// Questions this mcp process keeps answerable after a call returned.
#[derive(Clone, Default)]
pub struct Kept {
    entries: Arc<Mutex<VecDeque<Entry>>>,
}

/// A kept question's answer page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptPage {
    /// The id a later `{"resume": id}` names: 128 random bits, in hex.
    pub id: String,
    /// The page's address, its token included.
    pub url: String,
}

/// What a wait on a kept question saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waited {
    /// The question's outcome: an answer, a cancel (or decline), or a timeout.
    Done(AnswerDocument),
    /// Still open when the wait ended.
    Open,
}

type Outcome = Arc<watch::Sender<Option<AnswerDocument>>>;

struct Entry {
    id: String,
    /// Set once: the first outcome wins.
    outcome: Outcome,
    page: AbortHandle,
}

impl Entry {
    /// Ends the page (its port closes) with `document` unless an outcome came first.
    fn close(&self, document: AnswerDocument) {
        decide(&self.outcome, document);
        self.page.abort();
    }
}

/// A kept page's or question's id: 128 random bits, so that no other client
/// can guess one to collect its answer.
fn new_id() -> Result<String, AskError> {
    ask_user_server::guard::random_hex(16).map_err(|e| {
        AskError::InternalError(Detail::new(format!(
            "the system random source failed ({e}); no id could be made"
        )))
    })
}

/// Keeps `document` unless an outcome is already there.
fn decide(outcome: &Outcome, document: AnswerDocument) {
    outcome.send_if_modified(|kept| {
        if kept.is_some() {
            return false;
        }
        *kept = Some(document);
        true
    });
}

impl Kept {
    /// Serves the prompt's answer page (crate::web::WebSession) in a background task until it
    /// is answered or cancelled on the page, or web.timeout passes (then the kept outcome is timed out).
    /// Must be called inside the server's tokio runtime.
    pub fn start_page(&self, prompt: &Prompt, web: &WebOptions) -> Result<KeptPage, AskError> {
        self.keep(WebSession::start(prompt, web)?)
    }

    /// Keeps a page the caller started, as [`Kept::start_page`] does. (Added
    /// for URL-mode elicitation, src/mcp/url.rs: its page offers Decline.)
    pub fn keep(&self, session: WebSession) -> Result<KeptPage, AskError> {
        let id = new_id()?;
        let url = session.url();
        let outcome: Outcome = Arc::new(watch::channel(None).0);
        let task = {
            let outcome = Arc::clone(&outcome);
            async move {
                let document = match session.run().await {
                    Ok(ended) => ended.document,
                    Err(err) => {
                        log(format_args!("a kept answer page stopped: {err}"));
                        AnswerDocument::unanswered(Unanswered::Cancelled)
                    }
                };
                decide(&outcome, document);
            }
        };
        self.admit(Entry {
            id: id.clone(),
            outcome,
            page: tokio::spawn(task).abort_handle(),
        });
        Ok(KeptPage { id, url })
    }

    /// Waits up to `wait` (None: until the outcome) for kept question `id`; None when this process keeps no such id.
    pub async fn wait(&self, id: &str, wait: Option<Duration>) -> Option<Waited> {
        let mut outcome = self.find(id)?.subscribe();
        let decided = async {
            match outcome.wait_for(Option::is_some).await {
                Ok(document) => document.clone(),
                // The sender lives in the entry and the task: only a
                // forgotten, aborted page gets here, and it was closed
                // with an outcome first. Say cancelled all the same.
                Err(_) => None,
            }
        };
        let document = match wait {
            Some(wait) => match tokio::time::timeout(wait, decided).await {
                Ok(document) => document,
                Err(_) => return Some(Waited::Open),
            },
            None => decided.await,
        };
        Some(Waited::Done(document.unwrap_or_else(|| {
            AnswerDocument::unanswered(Unanswered::Cancelled)
        })))
    }

    /// The outcome of kept question `id` now, without waiting: `Some(Open)`
    /// while its page is up.
    pub fn peek(&self, id: &str) -> Option<Waited> {
        let outcome = self.find(id)?;
        let kept = outcome.borrow().clone();
        Some(kept.map_or(Waited::Open, Waited::Done))
    }

    /// Ends kept question `id` as cancelled (its page closes at once)
    /// unless it has an outcome already; false when no such id is kept.
    pub fn close(&self, id: &str) -> bool {
        let entries = self.entries();
        match entries.iter().find(|entry| entry.id == id) {
            Some(entry) => {
                entry.close(AnswerDocument::unanswered(Unanswered::Cancelled));
                true
            }
            None => false,
        }
    }

    // --- Added for MCP Apps (src/mcp/app.rs): a question with no page. ---

    /// Keeps a question that has no page of its own: the person answers it
    /// in an MCP App's form, whose submit settles it ([`Kept::settle`]).
    /// `timeout` passes (`None`: never) and the kept outcome is timed out.
    /// Must be called inside the server's tokio runtime.
    pub fn keep_question(&self, timeout: Option<Duration>) -> Result<String, AskError> {
        let id = new_id()?;
        let outcome: Outcome = Arc::new(watch::channel(None).0);
        let task = {
            let outcome = Arc::clone(&outcome);
            async move {
                match timeout {
                    Some(timeout) => tokio::time::sleep(timeout).await,
                    None => std::future::pending().await,
                }
                decide(&outcome, AnswerDocument::unanswered(Unanswered::TimedOut));
            }
        };
        self.admit(Entry {
            id: id.clone(),
            outcome,
            page: tokio::spawn(task).abort_handle(),
        });
        Ok(id)
    }

    /// Settles kept question `id` with `document` unless it has an outcome
    /// already: `Some(true)` when this one decided it, `Some(false)` when an
    /// outcome came first, `None` when no such id is kept.
    pub fn settle(&self, id: &str, document: AnswerDocument) -> Option<bool> {
        let entries = self.entries();
        let entry = entries.iter().find(|entry| entry.id == id)?;
        let mut document = Some(document);
        let won = entry.outcome.send_if_modified(|kept| {
            if kept.is_some() {
                return false;
            }
            *kept = document.take();
            true
        });
        if won {
            // Its time limit no longer matters.
            entry.page.abort();
        }
        Some(won)
    }

    // --- End of the MCP Apps additions. ---

    /// How many questions are kept (open or decided): for the tests of the cap.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries().len()
    }

    fn find(&self, id: &str) -> Option<Outcome> {
        self.entries()
            .iter()
            .find(|entry| entry.id == id)
            .map(|entry| Arc::clone(&entry.outcome))
    }

    /// Adds `entry`, first closing the oldest (as cancelled) while
    /// [`MAX_KEPT`] are kept: memory stays bounded whatever a client asks.
    fn admit(&self, entry: Entry) {
        let mut entries = self.entries();
        while entries.len() >= MAX_KEPT {
            if let Some(oldest) = entries.pop_front() {
                oldest.close(AnswerDocument::unanswered(Unanswered::Cancelled));
            }
        }
        entries.push_back(entry);
    }

    fn entries(&self) -> MutexGuard<'_, VecDeque<Entry>> {
        // A panic while holding the lock leaves the list whole: keep using it.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The one sentence a pending document from a kept page gives the model.
pub fn resume_hint(id: &str) -> String {
    format!(
        "Nobody answered yet, but the question's answer page stays open in this MCP server: to collect the person's answer, call this tool again with the input {{\"resume\": \"{id}\"}} instead of a question (it waits a while if there is no answer yet). Do not ask the question again."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> Prompt {
        crate::input::parse(br#"{"question":"Ship it?","options":["yes","no"]}"#)
            .expect("a valid input")
    }

    fn web(timeout: Option<Duration>) -> WebOptions {
        WebOptions {
            port: None,
            open_browser: false,
            timeout,
            interrupt: None,
        }
    }

    #[tokio::test]
    async fn an_unknown_id_is_none() {
        let kept = Kept::default();
        assert_eq!(kept.wait("nope", Some(Duration::ZERO)).await, None);
        assert_eq!(kept.peek("nope"), None);
        assert!(!kept.close("nope"));
    }

    #[tokio::test]
    async fn a_page_is_kept_open_past_the_wait_and_closed_on_request() {
        let kept = Kept::default();
        let page = kept.start_page(&prompt(), &web(None)).unwrap();
        assert_eq!(page.id.len(), 32);
        assert!(page.id.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(page.url.starts_with("http://127.0.0.1:"));
        let waited = kept.wait(&page.id, Some(Duration::from_millis(50))).await;
        assert_eq!(waited, Some(Waited::Open));
        assert_eq!(kept.peek(&page.id), Some(Waited::Open));
        assert!(kept.close(&page.id));
        let Some(Waited::Done(document)) = kept.wait(&page.id, None).await else {
            panic!("a closed page has an outcome");
        };
        assert!(document.cancelled && !document.answered);
    }

    #[tokio::test]
    async fn a_page_past_its_time_limit_keeps_a_timed_out_outcome() {
        let kept = Kept::default();
        let page = kept
            .start_page(&prompt(), &web(Some(Duration::from_millis(100))))
            .unwrap();
        let waited = kept.wait(&page.id, Some(Duration::from_secs(30))).await;
        let Some(Waited::Done(document)) = waited else {
            panic!("the time limit decides: {waited:?}");
        };
        assert!(document.timed_out && !document.pending);
        // Kept: a second look gets the same outcome.
        assert_eq!(kept.peek(&page.id), Some(Waited::Done(document)));
    }

    #[tokio::test]
    async fn an_outcome_there_wins_over_a_wait_that_ends_at_once() {
        let kept = Kept::default();
        let page = kept.start_page(&prompt(), &web(None)).unwrap();
        assert!(kept.close(&page.id));
        let waited = kept.wait(&page.id, Some(Duration::ZERO)).await;
        assert!(
            matches!(waited, Some(Waited::Done(ref d)) if d.cancelled),
            "{waited:?}"
        );
    }

    #[tokio::test]
    async fn the_first_outcome_wins() {
        let kept = Kept::default();
        let page = kept
            .start_page(&prompt(), &web(Some(Duration::from_millis(50))))
            .unwrap();
        let Some(Waited::Done(first)) = kept.wait(&page.id, None).await else {
            panic!("an outcome");
        };
        assert!(kept.close(&page.id));
        assert_eq!(kept.peek(&page.id), Some(Waited::Done(first)));
    }

    #[tokio::test]
    async fn the_oldest_is_forgotten_past_the_bound() {
        let kept = Kept::default();
        let first = kept.start_page(&prompt(), &web(None)).unwrap();
        for _ in 0..MAX_KEPT {
            kept.start_page(&prompt(), &web(None)).unwrap();
        }
        assert_eq!(kept.len(), MAX_KEPT);
        assert_eq!(kept.peek(&first.id), None);
    }

    #[test]
    fn the_hint_names_the_resume_input() {
        assert!(resume_hint("abc").contains(r#"{"resume": "abc"}"#));
    }
}
