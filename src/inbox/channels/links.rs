//! The hub's one-question links for the channels ([`super::Links`]).

use std::sync::Arc;

use super::Links;
use crate::inbox::hub::Hub;

/// The hub's links.
pub struct HubLinks(pub Arc<Hub>);

impl Links for HubLinks {
    fn link(&self, _id: &str) -> Option<String> {
        None
    }

    fn choice(&self, _id: &str, _option_id: &str) -> Option<String> {
        None
    }
}
