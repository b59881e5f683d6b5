//! Work that waits (the store, a file) runs off the server's one thread,
//! through one job type.

/// Runs `work` on tokio's blocking threads and gives its result; `None` when
/// it panicked (a release build ends the process first).
///
/// Every caller's closure is boxed into the same job type, so tokio's
/// blocking-task machinery is built once for the whole binary: handing each
/// caller's own closure to `spawn_blocking` built a copy per call site, a
/// few KB each, in a binary that has little room under its 10 MiB limit.
pub async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    run(Box::new(move || {
        let _ = sender.send(work());
    }))
    .await;
    receiver.await.ok()
}

async fn run(job: Box<dyn FnOnce() + Send>) {
    let _ = tokio::task::spawn_blocking(job).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_runs_on_another_thread_and_its_result_comes_back() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let here = std::thread::current().id();
        let (there, result) = runtime.block_on(async {
            blocking(move || (std::thread::current().id(), 6 * 7))
                .await
                .unwrap()
        });
        assert_ne!(there, here);
        assert_eq!(result, 42);
    }

    #[test]
    fn a_panic_in_the_work_is_none() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let result: Option<u8> = runtime.block_on(blocking(|| panic!("in the work")));
        assert_eq!(result, None);
    }
}
