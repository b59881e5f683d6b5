//! The hub's one-question links for the channels ([`super::Links`]): the
//! question's capability (`Hub::link_for`), and for ntfy's buttons the
//! signed choose URL of one option, good as long as the link.

use std::sync::Arc;

use super::Links;
use crate::inbox::hub::Hub;
use crate::inbox::links::choice_url;

/// The hub's links.
pub struct HubLinks(pub Arc<Hub>);

impl Links for HubLinks {
    fn link(&self, id: &str) -> Option<String> {
        self.0.link_for(id)
    }

    fn choice(&self, id: &str, option_id: &str) -> Option<String> {
        let hub = &self.0;
        let base = hub.link_base()?;
        // One expiry for both: the signature covers the capability's.
        let expires = hub.link_expiry(id)?;
        let key = hub.link_key();
        let capability = key.issue(id, expires);
        let signature = key.sign_choice(id, option_id, expires);
        Some(choice_url(base, &capability, option_id, &signature))
    }
}
