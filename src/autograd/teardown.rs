//! Freeing graphs without recursion. A node owns the nodes behind it (its edges), the tensors
//! it saved (which own their own `grad_fn`s) and its hooks; letting Rust drop those in place
//! would nest one stack frame chain per node, and a graph a million nodes deep (`y = y + 1` in a
//! loop, a running total kept across a training run) would overflow the native stack. Instead a
//! node being freed hands what it owns to `release`, which queues it on the heap; the outermost
//! release on the thread drains the queue one part at a time, so any depth of graph is freed
//! in a bounded number of frames. Tensors need no such step: a tensor owns nothing deeper
//! than its `grad_fn` (and `.grad`, whose own `grad_fn` is again a node), and `AccumulateGrad`
//! owns only its leaf, so every path of ownership reaches a node within a few frames.

use std::any::Any;
use std::cell::{Cell, RefCell};

thread_local! {
    static PENDING: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
    static DRAINING: Cell<bool> = const { Cell::new(false) };
}

/// Resets the draining flag even when a drop unwinds, so later releases still drain.
struct Draining;

impl Drop for Draining {
    fn drop(&mut self) {
        let _ = DRAINING.try_with(|d| d.set(false));
    }
}

/// Drops `part` (what a node being freed owned) without nesting: queued while another release
/// on this thread is draining, drained here otherwise.
pub(crate) fn release<T: 'static>(part: T) {
    let part: Box<dyn Any> = Box::new(part);
    // While the thread is being torn down its queue may be gone: drop in place then.
    let Ok(draining) = DRAINING.try_with(Cell::get) else {
        return;
    };
    if PENDING.try_with(|p| p.borrow_mut().push(part)).is_err() {
        return;
    }
    if draining {
        return;
    }
    DRAINING.with(|d| d.set(true));
    let _reset = Draining;
    // Popped outside the borrow: dropping a part may queue more parts.
    while let Some(next) = PENDING.with(|p| p.borrow_mut().pop()) {
        drop(next);
    }
    // A long chain leaves a large, empty queue behind: give the memory back.
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if p.capacity() > 1024 {
            *p = Vec::new();
        }
    });
}
