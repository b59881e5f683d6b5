//! Coded errors (DESIGN §5): one variant per code (`STORE_ERROR` has two,
//! which the inbox answers with different HTTP statuses), each carrying the message
//! a model reads, the field path when there is one, and a parser's own message
//! when a parser failed.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Where and why an error happened. `message` is one sentence saying what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detail {
    pub message: String,
    pub path: Option<String>,
    pub parse_error: Option<String>,
}

impl Detail {
    pub fn new(message: impl Into<String>) -> Self {
        Detail {
            message: message.into(),
            path: None,
            parse_error: None,
        }
    }

    pub fn at(message: impl Into<String>, path: impl Into<String>) -> Self {
        Detail {
            message: message.into(),
            path: Some(path.into()),
            parse_error: None,
        }
    }

    pub fn with_parse_error(mut self, parse_error: impl Into<String>) -> Self {
        self.parse_error = Some(parse_error.into());
        self
    }
}

impl std::fmt::Display for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    #[error("{0}")]
    InvalidJson(Detail),
    #[error("{0}")]
    InvalidInput(Detail),
    #[error("{0}")]
    InputTooLarge(Detail),
    #[error("{0}")]
    MissingQuestion(Detail),
    #[error("{0}")]
    MissingOptions(Detail),
    #[error("{0}")]
    InvalidOptionsJson(Detail),
    #[error("{0}")]
    InvalidOptions(Detail),
    #[error("{0}")]
    InvalidQuestions(Detail),
    #[error("{0}")]
    InvalidField(Detail),
    #[error("{0}")]
    UnknownAction(Detail),
    #[error("{0}")]
    NoTty(Detail),
    #[error("{0}")]
    NoElicitation(Detail),
    #[error("{0}")]
    InvalidReply(Detail),
    #[error("{0}")]
    ReadError(Detail),
    #[error("{0}")]
    ConfigError(Detail),
    #[error("{0}")]
    WriteError(Detail),
    /// `setup` run from a binary in the system's temporary folder, which a
    /// host could not start again after the folder is emptied.
    #[error("{0}")]
    TemporaryBinary(Detail),
    #[error("{0}")]
    WebError(Detail),
    #[error("{0}")]
    NoInbox(Detail),
    /// The inbox refused the token this ask_user sent (401): not the running
    /// inbox's, removed, or absent. Retrying cannot fix it.
    #[error("{0}")]
    TokenRefused(Detail),
    /// The inbox's store cannot be opened, does not answer (a PostgreSQL
    /// outage, a refused TLS handshake: over HTTP 503, and askers wait and
    /// retry within their own timeout), or refuses writes until somebody
    /// acts (`lasting`: a full disk, a read-only store: over HTTP 507, final,
    /// since an asker that waited would wait in silence for nothing). One
    /// code either way: the document is the same, the status is the inbox's.
    #[error("{detail}")]
    StoreError { detail: Detail, lasting: bool },
    #[error("{0}")]
    UnknownQuestion(Detail),
    #[error("{0}")]
    AlreadyAnswered(Detail),
    /// The inbox and this ask_user do not understand each other's requests:
    /// they are different versions.
    #[error("{0}")]
    VersionMismatch(Detail),
    /// A token whose role does not allow the request (`--tokens`).
    #[error("{0}")]
    Forbidden(Detail),
    /// `inbox pair` on an inbox that a phone cannot reach (loopback only,
    /// no `--public-url`).
    #[error("{0}")]
    NotReachable(Detail),
    #[error("{0}")]
    InternalError(Detail),
}

impl AskError {
    /// Every code, in the documented order (docs/documents.md, schema).
    pub const CODES: [&'static str; 27] = [
        "INVALID_JSON",
        "INVALID_INPUT",
        "INPUT_TOO_LARGE",
        "MISSING_QUESTION",
        "MISSING_OPTIONS",
        "INVALID_OPTIONS_JSON",
        "INVALID_OPTIONS",
        "INVALID_QUESTIONS",
        "INVALID_FIELD",
        "UNKNOWN_ACTION",
        "NO_TTY",
        "NO_ELICITATION",
        "INVALID_REPLY",
        "READ_ERROR",
        "CONFIG_ERROR",
        "WRITE_ERROR",
        "TEMPORARY_BINARY",
        "WEB_ERROR",
        "NO_INBOX",
        "TOKEN_REFUSED",
        "STORE_ERROR",
        "UNKNOWN_QUESTION",
        "ALREADY_ANSWERED",
        "VERSION_MISMATCH",
        "FORBIDDEN",
        "NOT_REACHABLE",
        "INTERNAL_ERROR",
    ];

    pub fn code(&self) -> &'static str {
        match self {
            AskError::InvalidJson(_) => "INVALID_JSON",
            AskError::InvalidInput(_) => "INVALID_INPUT",
            AskError::InputTooLarge(_) => "INPUT_TOO_LARGE",
            AskError::MissingQuestion(_) => "MISSING_QUESTION",
            AskError::MissingOptions(_) => "MISSING_OPTIONS",
            AskError::InvalidOptionsJson(_) => "INVALID_OPTIONS_JSON",
            AskError::InvalidOptions(_) => "INVALID_OPTIONS",
            AskError::InvalidQuestions(_) => "INVALID_QUESTIONS",
            AskError::InvalidField(_) => "INVALID_FIELD",
            AskError::UnknownAction(_) => "UNKNOWN_ACTION",
            AskError::NoTty(_) => "NO_TTY",
            AskError::NoElicitation(_) => "NO_ELICITATION",
            AskError::InvalidReply(_) => "INVALID_REPLY",
            AskError::ReadError(_) => "READ_ERROR",
            AskError::ConfigError(_) => "CONFIG_ERROR",
            AskError::WriteError(_) => "WRITE_ERROR",
            AskError::TemporaryBinary(_) => "TEMPORARY_BINARY",
            AskError::WebError(_) => "WEB_ERROR",
            AskError::NoInbox(_) => "NO_INBOX",
            AskError::TokenRefused(_) => "TOKEN_REFUSED",
            AskError::StoreError { .. } => "STORE_ERROR",
            AskError::UnknownQuestion(_) => "UNKNOWN_QUESTION",
            AskError::AlreadyAnswered(_) => "ALREADY_ANSWERED",
            AskError::VersionMismatch(_) => "VERSION_MISMATCH",
            AskError::Forbidden(_) => "FORBIDDEN",
            AskError::NotReachable(_) => "NOT_REACHABLE",
            AskError::InternalError(_) => "INTERNAL_ERROR",
        }
    }

    /// The error an error document with `code` stands for (a document read
    /// back from another process); `None` for a code this binary does not know.
    pub fn from_code(code: &str, detail: Detail) -> Option<AskError> {
        let make: fn(Detail) -> AskError = match code {
            "INVALID_JSON" => AskError::InvalidJson,
            "INVALID_INPUT" => AskError::InvalidInput,
            "INPUT_TOO_LARGE" => AskError::InputTooLarge,
            "MISSING_QUESTION" => AskError::MissingQuestion,
            "MISSING_OPTIONS" => AskError::MissingOptions,
            "INVALID_OPTIONS_JSON" => AskError::InvalidOptionsJson,
            "INVALID_OPTIONS" => AskError::InvalidOptions,
            "INVALID_QUESTIONS" => AskError::InvalidQuestions,
            "INVALID_FIELD" => AskError::InvalidField,
            "UNKNOWN_ACTION" => AskError::UnknownAction,
            "NO_TTY" => AskError::NoTty,
            "NO_ELICITATION" => AskError::NoElicitation,
            "INVALID_REPLY" => AskError::InvalidReply,
            "READ_ERROR" => AskError::ReadError,
            "CONFIG_ERROR" => AskError::ConfigError,
            "WRITE_ERROR" => AskError::WriteError,
            "TEMPORARY_BINARY" => AskError::TemporaryBinary,
            "WEB_ERROR" => AskError::WebError,
            "NO_INBOX" => AskError::NoInbox,
            "TOKEN_REFUSED" => AskError::TokenRefused,
            "STORE_ERROR" => AskError::store_error,
            "UNKNOWN_QUESTION" => AskError::UnknownQuestion,
            "ALREADY_ANSWERED" => AskError::AlreadyAnswered,
            "VERSION_MISMATCH" => AskError::VersionMismatch,
            "FORBIDDEN" => AskError::Forbidden,
            "NOT_REACHABLE" => AskError::NotReachable,
            "INTERNAL_ERROR" => AskError::InternalError,
            _ => return None,
        };
        Some(make(detail))
    }

    /// `STORE_ERROR` for a store that cannot be opened or does not answer.
    pub fn store_error(detail: Detail) -> Self {
        AskError::StoreError {
            detail,
            lasting: false,
        }
    }

    /// `STORE_ERROR` for a store that refuses writes until somebody acts.
    pub fn store_refusing(detail: Detail) -> Self {
        AskError::StoreError {
            detail,
            lasting: true,
        }
    }

    pub fn detail(&self) -> &Detail {
        match self {
            AskError::InvalidJson(d)
            | AskError::InvalidInput(d)
            | AskError::InputTooLarge(d)
            | AskError::MissingQuestion(d)
            | AskError::MissingOptions(d)
            | AskError::InvalidOptionsJson(d)
            | AskError::InvalidOptions(d)
            | AskError::InvalidQuestions(d)
            | AskError::InvalidField(d)
            | AskError::UnknownAction(d)
            | AskError::NoTty(d)
            | AskError::NoElicitation(d)
            | AskError::InvalidReply(d)
            | AskError::ReadError(d)
            | AskError::ConfigError(d)
            | AskError::WriteError(d)
            | AskError::TemporaryBinary(d)
            | AskError::WebError(d)
            | AskError::NoInbox(d)
            | AskError::TokenRefused(d)
            | AskError::StoreError { detail: d, .. }
            | AskError::UnknownQuestion(d)
            | AskError::AlreadyAnswered(d)
            | AskError::VersionMismatch(d)
            | AskError::Forbidden(d)
            | AskError::NotReachable(d)
            | AskError::InternalError(d) => d,
        }
    }

    pub fn message(&self) -> &str {
        &self.detail().message
    }

    pub fn path(&self) -> Option<&str> {
        self.detail().path.as_deref()
    }

    /// The error document (§5) for this error.
    pub fn document(&self) -> ErrorDocument<'_> {
        let detail = self.detail();
        ErrorDocument {
            tool: Cow::Borrowed(crate::TOOL_NAME),
            version: crate::DOC_VERSION,
            status: Cow::Borrowed("error"),
            error: ErrorBody {
                code: Cow::Borrowed(self.code()),
                message: Cow::Borrowed(&detail.message),
                path: detail.path.as_deref().map(Cow::Borrowed),
                parse_error: detail.parse_error.as_deref().map(Cow::Borrowed),
            },
        }
    }
}

/// `{"tool","version","status":"error","error":{…}}`, keys in documented order.
/// Borrowed when printed; owned when read back (`check` reads error documents).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorDocument<'a> {
    pub tool: Cow<'a, str>,
    pub version: u32,
    pub status: Cow<'a, str>,
    pub error: ErrorBody<'a>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody<'a> {
    pub code: Cow<'a, str>,
    pub message: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Cow<'a, str>>,
    #[serde(
        rename = "parseError",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub parse_error: Option<Cow<'a, str>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_as_itself() {
        for code in AskError::CODES {
            let err = AskError::from_code(code, Detail::at("m", "p")).unwrap();
            assert_eq!(err.code(), code);
            assert_eq!(err.detail(), &Detail::at("m", "p"));
        }
        assert_eq!(AskError::from_code("NOT_A_CODE", Detail::new("m")), None);
    }
}
