//! Waiting on wgpu's futures without an executor.

use std::future::Future;

/// Runs a future that wgpu's native backends complete without waiting (adapter and device
/// requests, error scopes): polled with a no-op waker until ready, so no executor crate is needed.
pub(super) fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
