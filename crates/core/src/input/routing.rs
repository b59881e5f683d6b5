//! The team fields of an ask: `to`, `approvals` and `human`.
//! Only the inbox acts on them; every face accepts them.

use serde_json::Value;

use super::{Fold, Object, Result, first_bool, join, json_type, optional_text, present};
use crate::error::{AskError, Detail};
use crate::model::{Approvals, MAX_APPROVALS, Question, Routing, find_choice};

/// Longest `to` and `approvals.from`: a person's or a group's name.
pub const MAX_NAME_CHARS: usize = 100;
/// Longest `approvals.veto` (an option's label or number).
const MAX_VETO_CHARS: usize = super::MAX_LABEL_CHARS;

/// The routing fields of a top-level object; `first` is its first question
/// (a veto names one of its options).
pub(super) fn routing(obj: &Object, first: &Question) -> Result<Routing> {
    let approvals = approvals(obj)?;
    if let Some(veto) = approvals.as_ref().and_then(|a| a.veto.as_deref()) {
        check_veto(veto, first)?;
    }
    Ok(Routing {
        to: optional_text(obj, "to", "", MAX_NAME_CHARS, Fold::OneLine)?,
        approvals,
        human: first_bool(obj, &["human"], "")?.unwrap_or(false),
    })
}

/// A veto names an option of the first question, by label or number, as a
/// reply would: caught when the ask is made, not when someone votes.
fn check_veto(veto: &str, first: &Question) -> Result<()> {
    if find_choice(&first.options, veto).is_some() {
        return Ok(());
    }
    let labels: Vec<&str> = first.options.iter().map(|c| c.label.as_str()).collect();
    let message = if labels.is_empty() {
        format!("approvals.veto {veto:?} names an option, and the first question has none")
    } else {
        format!(
            "approvals.veto {veto:?} is not an option of the first question; name one of {} (its label or number)",
            labels
                .iter()
                .map(|l| format!("{l:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Err(AskError::InvalidField(Detail::at(
        message,
        "approvals.veto",
    )))
}

fn approvals(obj: &Object) -> Result<Option<Approvals>> {
    let Some(value) = present(obj, "approvals") else {
        return Ok(None);
    };
    let Value::Object(fields) = value else {
        return Err(AskError::InvalidField(Detail::at(
            format!(
                "approvals must be an object like {{\"count\": 2, \"from\": \"reviewers\"}}, not {}",
                json_type(value)
            ),
            "approvals",
        )));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !["count", "from", "veto"].contains(&k.as_str()))
    {
        return Err(AskError::InvalidField(Detail::at(
            format!("approvals takes count, from and veto, not {unknown:?}"),
            join("approvals", unknown),
        )));
    }
    let count = match present(fields, "count").map(Value::as_u64) {
        Some(Some(n)) if (1..=u64::from(MAX_APPROVALS)).contains(&n) => n as u32,
        _ => {
            return Err(AskError::InvalidField(Detail::at(
                format!("approvals.count must be a whole number from 1 to {MAX_APPROVALS}"),
                "approvals.count",
            )));
        }
    };
    Ok(Some(Approvals {
        count,
        from: optional_text(fields, "from", "approvals", MAX_NAME_CHARS, Fold::OneLine)?,
        veto: optional_text(fields, "veto", "approvals", MAX_VETO_CHARS, Fold::OneLine)?,
    }))
}

#[cfg(test)]
mod tests {
    use crate::input::parse;

    #[test]
    fn routing_fields_are_read_and_absent_ones_are_empty() {
        let prompt = parse(
            br#"{"question":"Ship?","options":["Yes","No"],"to":" reviewers ","human":true,
            "approvals":{"count":2,"from":"reviewers","veto":"No"}}"#,
        )
        .unwrap();
        assert_eq!(prompt.routing.to.as_deref(), Some("reviewers"));
        assert!(prompt.routing.human);
        let approvals = prompt.routing.approvals.unwrap();
        assert_eq!(approvals.count, 2);
        assert_eq!(approvals.from.as_deref(), Some("reviewers"));
        assert_eq!(approvals.veto.as_deref(), Some("No"));
        let plain = parse(br#"{"question":"Ship?","options":["Yes","No"]}"#).unwrap();
        for (input, names) in [
            (&br#"{"question":"Ship?","options":["Yes","No"],"approvals":{"count":2,"veto":"Maybe"}}"#[..], "\"Yes\", \"No\""),
            (&br#"{"question":"Ship?","options":["Yes","No"],"approvals":{"count":2,"veto":"3"}}"#[..], "\"Yes\", \"No\""),
            (&br#"{"question":"Why?","type":"text","approvals":{"count":2,"veto":"No"}}"#[..], "none"),
        ] {
            let err = parse(input).unwrap_err();
            assert_eq!(err.code(), "INVALID_FIELD");
            assert_eq!(err.detail().path.as_deref(), Some("approvals.veto"));
            assert!(err.to_string().contains(names), "{err}");
        }
        // By number, as a reply names it.
        let by_number = parse(
            br#"{"question":"Ship?","options":["Yes","No"],"approvals":{"count":2,"veto":"2"}}"#,
        );
        assert!(by_number.is_ok());
        assert_eq!(plain.routing, crate::model::Routing::default());
    }

    #[test]
    fn bad_routing_fields_are_invalid_field_at_their_path() {
        for (input, path) in [
            (r#"{"question":"q","options":["a","b"],"to":3}"#, "to"),
            (
                r#"{"question":"q","options":["a","b"],"human":"yes"}"#,
                "human",
            ),
            (
                r#"{"question":"q","options":["a","b"],"approvals":2}"#,
                "approvals",
            ),
            (
                r#"{"question":"q","options":["a","b"],"approvals":{"count":0}}"#,
                "approvals.count",
            ),
            (
                r#"{"question":"q","options":["a","b"],"approvals":{"count":21}}"#,
                "approvals.count",
            ),
            (
                r#"{"question":"q","options":["a","b"],"approvals":{}}"#,
                "approvals.count",
            ),
            (
                r#"{"question":"q","options":["a","b"],"approvals":{"count":2,"form":"x"}}"#,
                "approvals.form",
            ),
            (
                r#"{"question":"q","options":["a","b"],"approvals":{"count":2,"from":[]}}"#,
                "approvals.from",
            ),
        ] {
            let err = parse(input.as_bytes()).unwrap_err();
            assert_eq!(err.code(), "INVALID_FIELD", "{input}");
            assert_eq!(err.detail().path.as_deref(), Some(path), "{input}");
        }
    }
}
