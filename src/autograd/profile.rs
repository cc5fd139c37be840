//! The backward pass as the profiler sees it: while a profiler records, the engine times each
//! node it evaluates, and the profiler takes the (node, start, end) records after each backward
//! call, as PyTorch's `autograd::engine::evaluate_function: <node>` events. Off, it costs one
//! relaxed load per node.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

static RECORDING: AtomicBool = AtomicBool::new(false);
/// Where the records' nanoseconds count from: the moment recording began.
static ANCHOR: Mutex<Option<Instant>> = Mutex::new(None);

thread_local! {
    // Each thread's own: a backward pass runs on the thread that called it, and the profiler
    // takes a call's records on that thread right after it.
    static RECORDS: RefCell<Vec<NodeRecord>> = const { RefCell::new(Vec::new()) };
}

/// One evaluated node: its name and when its evaluation began and ended, in nanoseconds since
/// recording began.
pub struct NodeRecord {
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// Starts (from now: the records count from this moment) or stops timing nodes.
pub fn set_recording(on: bool) {
    *ANCHOR.lock().unwrap_or_else(|e| e.into_inner()) = on.then(Instant::now);
    RECORDING.store(on, Ordering::Relaxed);
}

/// The records this thread made since it last took them.
pub fn take_records() -> Vec<NodeRecord> {
    RECORDS.with(|r| std::mem::take(&mut *r.borrow_mut()))
}

fn since(anchor: Instant) -> u64 {
    u64::try_from(anchor.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Runs `evaluate`, timing it as node `name` while recording.
pub(crate) fn timed<R>(name: impl FnOnce() -> String, evaluate: impl FnOnce() -> R) -> R {
    if !RECORDING.load(Ordering::Relaxed) {
        return evaluate();
    }
    let Some(anchor) = *ANCHOR.lock().unwrap_or_else(|e| e.into_inner()) else {
        return evaluate();
    };
    let start_ns = since(anchor);
    let out = evaluate();
    let end_ns = since(anchor);
    RECORDS.with(|r| r.borrow_mut().push(NodeRecord { name: name(), start_ns, end_ns }));
    out
}
