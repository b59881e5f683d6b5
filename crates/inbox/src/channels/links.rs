//! The hub's one-question links for the channels ([`super::Links`]): the
//! question's capability (`Hub::link_for`), and for ntfy's buttons the
//! signed choose URL of one option, good as long as the link.

use std::sync::Arc;

use super::{Links, QuestionLinks};
use crate::hub::Hub;
use crate::links::{choice_url, link_url};

/// The hub's links.
pub struct HubLinks(pub Arc<Hub>);

impl Links for HubLinks {
    fn links(&self, id: &str, option_ids: &[&str]) -> Option<QuestionLinks> {
        let hub = &self.0;
        let base = hub.link_base()?;
        // One expiry for the link and every button: each choice's signature
        // covers the capability's, so a second reading of the clock (a
        // question without a deadline expires the retention time from now)
        // would give buttons that open another capability than the link.
        let expires = hub.link_expiry(id)?;
        let key = hub.link_key();
        let capability = key.issue(id, expires);
        let choices = option_ids
            .iter()
            .map(|option_id| {
                let signature = key.sign_choice(id, option_id, expires);
                choice_url(base, &capability, option_id, &signature)
            })
            .collect();
        Some(QuestionLinks {
            link: link_url(base, &capability),
            choices,
        })
    }
}
