//! Running core ops from Python: the GIL released around big kernels, and the error an op
//! deferred while it recorded its node.

use pyo3::prelude::*;

/// Runs a kernel without the GIL when it is big enough for that to matter.
pub fn run<T: Send + AfterOp>(py: Python<'_>, work: usize, f: impl FnOnce() -> T + Send) -> T {
    crate::autograd::grad_mode::take_deferred_error();
    let out = if work >= 1 << 15 { py.detach(f) } else { f() };
    out.after_op()
}

/// What an op run through `run` returns: an error deferred while it recorded its node (an
/// inference tensor saved for backward) replaces its result.
pub trait AfterOp {
    fn after_op(self) -> Self;
}

impl<T> AfterOp for crate::Result<T> {
    fn after_op(self) -> Self {
        match crate::autograd::grad_mode::take_deferred_error() {
            Some(e) => Err(e),
            None => self,
        }
    }
}
