//! A lingering close: when a connection ends, this server stops writing,
//! then reads and discards what the client still sends, for a bounded time,
//! before it closes the socket.
//!
//! Why: a socket closed with unread bytes in it is reset, and on Windows the
//! reset discards the data the client had not yet read. A client whose
//! request head was too large (the 431) or whose body was refused (413, 401
//! before the body) would then see "connection reset" instead of the
//! refusal. Linux delivers the refusal anyway; Windows did not (found under
//! wine: `server::tests::heads_must_be_small_and_timely`).
//!
//! The wait is bounded by [`LINGER_TIME`] and [`LINGER_BYTES`], and the
//! connection keeps its slot meanwhile, so a client that keeps sending can
//! hold a slot no longer than that, and eviction still ends it at once.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The longest a closing connection is drained.
pub const LINGER_TIME: Duration = Duration::from_secs(1);

/// The most a closing connection's drain reads (then it closes anyway).
pub const LINGER_BYTES: usize = 64 * 1024;

/// The connection's socket, shared between hyper (which serves it) and the
/// lingering close after hyper is done with it.
#[derive(Clone)]
pub struct SharedStream(pub Arc<TcpStream>);

impl AsyncRead for SharedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            ready!(self.0.poll_read_ready(cx))?;
            match self.0.try_read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                // Readiness was stale: try_read cleared it; wait again.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for SharedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.0.poll_write_ready(cx))?;
            match self.0.try_write(data) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                done => return Poll::Ready(done),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Writes go straight to the socket: nothing is buffered here.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(stop_writing(&self.0))
    }
}

fn stop_writing(stream: &TcpStream) -> io::Result<()> {
    socket2::SockRef::from(stream).shutdown(std::net::Shutdown::Write)
}

/// Stops writing (the client reads everything sent, then end of file), then
/// reads and discards until the client closes, [`LINGER_BYTES`] were read or
/// [`LINGER_TIME`] passed. The socket closes when the last handle is dropped.
pub async fn linger(stream: &TcpStream) {
    // Already shut down (hyper's own graceful close) or gone: fine either way.
    let _ = stop_writing(stream);
    let drain = async {
        let mut scratch = [0u8; 4096];
        let mut read = 0;
        while read < LINGER_BYTES {
            if stream.readable().await.is_err() {
                return;
            }
            match stream.try_read(&mut scratch) {
                Ok(0) => return,
                Ok(n) => read += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER_TIME, drain).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Instant;

    /// A connected pair: the client (blocking) and the server's end.
    async fn pair() -> (std::net::TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (client, server)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A write larger than the socket's buffers waits for the client to read
    /// (the WouldBlock arm) instead of failing, and every byte arrives.
    #[test]
    fn a_write_past_the_socket_buffer_waits_for_the_reader() {
        use tokio::io::AsyncWriteExt;
        runtime().block_on(async {
            let (client, server) = pair().await;
            let reader = std::thread::spawn(move || {
                use std::io::Read;
                let mut client = client;
                // Let the buffers fill before the first read.
                std::thread::sleep(Duration::from_millis(200));
                let mut received = Vec::new();
                client.read_to_end(&mut received).unwrap();
                received.len()
            });
            let mut shared = SharedStream(Arc::new(server));
            let payload = vec![b'z'; 8 * 1024 * 1024];
            shared.write_all(&payload).await.unwrap();
            shared.shutdown().await.unwrap();
            drop(shared);
            assert_eq!(reader.join().unwrap(), payload.len());
        });
    }

    /// A write to a client that is gone fails, and does not spin: only
    /// WouldBlock is waited out. (The writer has a thread of its own: a
    /// spinning poll would never give a timer in its runtime a turn.)
    #[test]
    fn a_write_to_a_closed_client_fails() {
        use tokio::io::AsyncWriteExt;
        let (done, outcome) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            runtime().block_on(async {
                let (client, server) = pair().await;
                drop(client);
                let mut shared = SharedStream(Arc::new(server));
                let chunk = [b'w'; 64 * 1024];
                loop {
                    if let Err(e) = shared.write_all(&chunk).await {
                        let _ = done.send(e.kind());
                        return;
                    }
                }
            })
        });
        let kind = outcome
            .recv_timeout(Duration::from_secs(10))
            .expect("writes to a closed client must fail, not spin");
        assert_ne!(kind, io::ErrorKind::WouldBlock);
    }

    /// Shutting the shared stream down ends the client's reading: it sees
    /// end of file, not a connection that stays open.
    #[test]
    fn shutdown_ends_the_clients_reading() {
        use std::io::Read;
        use tokio::io::AsyncWriteExt;
        runtime().block_on(async {
            let (mut client, server) = pair().await;
            let mut shared = SharedStream(Arc::new(server));
            shared.write_all(b"last words").await.unwrap();
            shared.shutdown().await.unwrap();
            client
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut received = Vec::new();
            client.read_to_end(&mut received).unwrap();
            assert_eq!(received, b"last words");
            drop(shared);
        });
    }

    /// A client that sends less than LINGER_BYTES and stays connected is
    /// drained until LINGER_TIME: the drain does not stop after a first read.
    #[test]
    fn a_client_that_sends_a_little_and_stays_is_drained_for_the_whole_time() {
        runtime().block_on(async {
            let (mut client, server) = pair().await;
            client.write_all(&[b'x'; 16 * 1024]).unwrap();
            let started = Instant::now();
            linger(&server).await;
            let took = started.elapsed();
            assert!(took >= LINGER_TIME - Duration::from_millis(50), "{took:?}");
            drop(client);
        });
    }

    /// A client that has sent exactly LINGER_BYTES and stays connected is
    /// done with: the drain stops on the last of those bytes and does not
    /// wait for another.
    #[test]
    fn linger_bytes_read_end_the_drain_at_once() {
        runtime().block_on(async {
            let (mut client, server) = pair().await;
            client.write_all(&vec![b'x'; LINGER_BYTES]).unwrap();
            let started = Instant::now();
            linger(&server).await;
            let took = started.elapsed();
            assert!(took < LINGER_TIME / 2, "{took:?}");
            drop(client);
        });
    }

    /// A client that resets the connection ends the drain at once (the
    /// reset is a read error, or end of file once reported).
    #[test]
    fn a_reset_client_ends_the_drain_at_once() {
        runtime().block_on(async {
            let (mut client, server) = pair().await;
            client.write_all(b"a little").unwrap();
            socket2::SockRef::from(&client)
                .set_linger(Some(Duration::ZERO))
                .unwrap();
            drop(client); // closed with linger 0: a reset
            let started = Instant::now();
            linger(&server).await;
            let took = started.elapsed();
            assert!(took < LINGER_TIME / 2, "{took:?}");
        });
    }

    /// A client that closes ends the drain at once, and one that keeps
    /// sending is cut off after LINGER_BYTES, both well before LINGER_TIME.
    #[test]
    fn a_closed_client_or_linger_bytes_end_the_drain_early() {
        runtime().block_on(async {
            let (mut client, server) = pair().await;
            client.write_all(b"a little").unwrap();
            drop(client);
            let started = Instant::now();
            linger(&server).await;
            assert!(started.elapsed() < LINGER_TIME, "{:?}", started.elapsed());

            let (client, server) = pair().await;
            let sender = std::thread::spawn(move || {
                let mut client = client;
                // Far more than LINGER_BYTES; fails once the server closes.
                let chunk = [b'y'; 16 * 1024];
                for _ in 0..64 {
                    if client.write_all(&chunk).is_err() {
                        break;
                    }
                }
                client
            });
            let started = Instant::now();
            linger(&server).await;
            assert!(started.elapsed() < LINGER_TIME, "{:?}", started.elapsed());
            drop(server);
            drop(sender.join().unwrap());
        });
    }
}
