//! How a channel is addressed: its kind and its target, as `--notify-to
//! KIND=URL` and a policy's contacts write them. It sits below the channels
//! that deliver (`channels`) and the policy and escalation ladder that name
//! them (`policy`, the hub's escalation), so that neither has to import the
//! other to name a kind.

/// The kinds, as `--notify-to` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ntfy,
    Slack,
    Webhook,
    Email,
    Matrix,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Ntfy,
        Kind::Slack,
        Kind::Webhook,
        Kind::Email,
        Kind::Matrix,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Ntfy => "ntfy",
            Kind::Slack => "slack",
            Kind::Webhook => "webhook",
            Kind::Email => "email",
            Kind::Matrix => "matrix",
        }
    }
}

/// One `--notify-to KIND=URL`, as written (checked for its form only; the
/// channels read the secrets when they resolve it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub kind: Kind,
    pub target: String,
}

impl Spec {
    /// `KIND=URL` (clap's value parser).
    pub fn parse(text: &str) -> Result<Spec, String> {
        let kinds = Kind::ALL.map(Kind::as_str).join(", ");
        let (kind, target) = text
            .split_once('=')
            .ok_or_else(|| format!("expected KIND=URL (KIND: {kinds})"))?;
        let kind = Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind)
            .ok_or_else(|| format!("unknown kind {kind:?} (KIND: {kinds})"))?;
        if target.is_empty() {
            return Err(format!("{}= needs a URL", kind.as_str()));
        }
        Ok(Spec {
            kind,
            target: target.to_string(),
        })
    }
}
