//! The hub's words: its error details, times as people and RFC 3339 read
//! them, and the checks of an ask's own fields.

use super::*;

pub(super) fn stored_json(text: &str) -> Result<&RawValue, AskError> {
    serde_json::from_str(text).map_err(|e| {
        AskError::InternalError(Detail::new(format!("a stored document is not JSON ({e})")))
    })
}

pub(super) fn millis(duration: Duration) -> Millis {
    Millis::try_from(duration.as_millis()).unwrap_or(Millis::MAX)
}

/// A duration as people write it: `24 h`, `90 min`, `5 s`.
pub fn human(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 3600 && secs.is_multiple_of(3600) {
        format!("{} h", secs / 3600)
    } else if secs >= 60 && secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

/// The one sentence a timed-out document gives the model: how to collect
/// the answer later. `kept`: the inbox's retention, when known.
pub fn resume_hint(id: &str, kept: Option<Duration>) -> String {
    let how_long = kept
        .map(|kept| format!(" for {}", human(kept)))
        .unwrap_or_default();
    format!(
        "Nobody answered yet, but the question stays open in the inbox{how_long}: to collect the person's answer later, call this tool again with the input {{\"resume\": \"{id}\"}} instead of a question (it waits if there is no answer yet)."
    )
}

pub(super) fn check_request(request: &AskRequest) -> Result<(), AskError> {
    let bad = |message: String, path: &str| Err(AskError::InvalidField(Detail::at(message, path)));
    let key = &request.key;
    if key.is_empty()
        || key.chars().count() > MAX_KEY_CHARS
        || !key.chars().all(|c| c.is_ascii_graphic())
    {
        return bad(
            format!("key must be 1 to {MAX_KEY_CHARS} visible ASCII characters"),
            "key",
        );
    }
    if let Some(name) = &request.source.name
        && name.chars().count() > MAX_NAME_CHARS
    {
        return bad(
            format!("source.name must be at most {MAX_NAME_CHARS} characters"),
            "source.name",
        );
    }
    if let Some(cwd) = &request.source.cwd
        && cwd.chars().count() > MAX_CWD_CHARS
    {
        return bad(
            format!("source.cwd must be at most {MAX_CWD_CHARS} characters"),
            "source.cwd",
        );
    }
    Ok(())
}

pub(super) fn decision(store: &mut dyn Store, id: &str) -> Result<Option<Decision>, AskError> {
    Ok(store
        .get(id)
        .map_err(store_error)?
        .and_then(|stored| stored.decision))
}

pub fn unknown_question(id: &str) -> AskError {
    AskError::UnknownQuestion(Detail::new(format!(
        "the inbox has no question {id:?}; list the pending ones with `ask_user inbox list`"
    )))
}

pub(super) fn already_decided(id: &str, decision: &Decision) -> AskError {
    let how = match (decision.outcome, decision.face) {
        (Outcome::Answered, Face::Page) => "answered in the page",
        (Outcome::Answered, Face::Cli) => "answered from a terminal (inbox answer)",
        (Outcome::Answered, Face::Link) => "answered through its one-question link",
        (Outcome::Answered, Face::Ntfy) => "answered from an ntfy notification",
        (Outcome::Answered, Face::Matrix) => "answered in a Matrix room",
        (Outcome::Answered, Face::Rule) => "answered by a standing rule (ask_user inbox rule list)",
        (Outcome::Answered, _) => "answered by its asker",
        (Outcome::Declined, _) => "declined in the page",
        (Outcome::Cancelled, Face::Cli) => "cancelled from a terminal (inbox cancel)",
        (Outcome::Cancelled, _) => "cancelled by its asker",
        (Outcome::Dismissed, _) => "dismissed in the page",
        (Outcome::TimedOut, _) => "timed out",
        (Outcome::AskerGone, _) => "withdrawn: its asker went away",
    };
    AskError::AlreadyAnswered(Detail::new(format!(
        "question {id} is already closed: {how}; nothing was changed"
    )))
}

/// A store's error as the error its caller gets: a refusal that will not
/// heal by itself is final ([`super::refusing`]); anything else may pass
/// (an outage), and askers retry it.
pub(super) fn store_error(err: store::Error) -> AskError {
    if let Some(refusal) = err.refusal() {
        return super::refusing::refused(refusal, &err);
    }
    let check = match err {
        store::Error::Postgres(_) => "check that PostgreSQL is up and reachable",
        _ => "check the state folder's disk and permissions",
    };
    AskError::store_error(Detail::new(format!(
        "the inbox's store failed ({err}); {check}"
    )))
}
