//! `--notify-to matrix=https://HOMESERVER/ROOM_ID`: the seam wt-m fills
//! (/work/notes/phone-contract.md). Until its channel lands, a matrix
//! target is refused when the inbox starts.

use std::sync::Arc;

use super::{DeliveryError, Env, Notice};
use crate::inbox::hub::Hub;

#[derive(Debug)]
pub struct MatrixTarget {
    _private: (),
}

impl MatrixTarget {
    /// The part after `matrix=`; `env` reads `ASK_USER_MATRIX_TOKEN`.
    pub fn parse(_spec: &str, _env: Env<'_>) -> Result<MatrixTarget, String> {
        Err("the Matrix channel is not in this build yet".into())
    }
}

/// One delivery attempt of one notice.
pub async fn deliver(_target: &MatrixTarget, _notice: &Notice) -> Result<(), DeliveryError> {
    Err(DeliveryError::Permanent(
        "the Matrix channel is not in this build yet".into(),
    ))
}

/// Reads replies for the inbox's lifetime.
pub async fn listen(_target: Arc<MatrixTarget>, _hub: Arc<Hub>) {}
