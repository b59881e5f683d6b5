//! Child processes and ports: an exit with a hang guard, a closed port.

use std::net::TcpStream;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// Polls `child` every `poll` until it exits; `None` once `limit` has passed.
pub fn exit_within(child: &mut Child, limit: Duration, poll: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if started.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(poll);
    }
}

/// Whether nothing listens on 127.0.0.1:`port`.
pub fn port_is_closed(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_err()
}
