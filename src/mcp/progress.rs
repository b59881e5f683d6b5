//! What a waiting call tells the client while the person thinks: progress
//! notifications (when the call carried a progress token) and, for the answer
//! page, a log notice with its address.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use tokio::time::{Instant, Interval};

/// A waiting call reports progress about ten times over its timeout, 1 to 15 s
/// apart; every 15 s without a timeout.
fn heartbeat_every(timeout: Option<Duration>) -> Duration {
    let most = Duration::from_secs(15);
    timeout.map_or(most, |timeout| {
        (timeout / 10).clamp(Duration::from_secs(1), most)
    })
}

/// Progress for one waiting call. Clients that reset their own timeout on
/// progress keep the call alive while the person thinks.
pub struct Waiting {
    token: Option<ProgressToken>,
    started: Instant,
    timeout: Option<Duration>,
    heartbeat: Interval,
}

impl Waiting {
    pub fn new(context: &RequestContext<RoleServer>, timeout: Option<Duration>) -> Self {
        let started = Instant::now();
        let every = heartbeat_every(timeout);
        Waiting {
            token: context.meta.get_progress_token(),
            started,
            timeout,
            heartbeat: tokio::time::interval_at(started + every, every),
        }
    }

    /// The next heartbeat; never, when the client asked for no progress.
    pub async fn tick(&mut self) {
        if self.token.is_some() {
            self.heartbeat.tick().await;
        } else {
            std::future::pending::<()>().await;
        }
    }

    /// Sends one progress notification: seconds waited out of the timeout
    /// (no total without one), with `message` after the time waited.
    pub async fn report(&self, context: &RequestContext<RoleServer>, message: &str) {
        let Some(token) = self.token.clone() else {
            return;
        };
        let waited = self.started.elapsed().as_secs();
        let mut progress = ProgressNotificationParam::new(token, waited as f64);
        progress.total = self.timeout.map(|timeout| timeout.as_secs() as f64);
        progress.message = Some(format!("waiting for the person ({waited} s){message}"));
        let _ = context.peer.notify_progress(progress).await;
    }
}
