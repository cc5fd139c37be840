//! Whether ops record the graph: a thread-local flag with an RAII guard; and inference mode,
//! whose tensors may not be saved for backward nor updated in place outside it.

use std::cell::{Cell, RefCell};

use crate::error::Error;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
    static INFERENCE: Cell<bool> = const { Cell::new(false) };
    /// An error found while recording an op (which cannot fail), raised when the op returns.
    static PENDING: RefCell<Option<Error>> = const { RefCell::new(None) };
}

/// Whether inference mode is on: tensors made now are inference tensors.
pub fn is_inference_mode() -> bool {
    INFERENCE.with(|e| e.get())
}

/// Sets inference mode (grad mode is set apart), returning the previous setting.
pub fn set_inference_mode(on: bool) -> bool {
    INFERENCE.with(|e| e.replace(on))
}

/// Keeps `e` to be raised when the current op returns (the first one kept wins).
pub(crate) fn defer_error(e: Error) {
    PENDING.with(|p| {
        p.borrow_mut().get_or_insert(e);
    });
}

/// The error deferred by the op that just ran, if any (and forgets it).
pub fn take_deferred_error() -> Option<Error> {
    PENDING.with(|p| p.borrow_mut().take())
}

pub fn is_enabled() -> bool {
    ENABLED.with(|e| e.get())
}

/// Sets grad mode for this thread until the guard drops, then restores the previous mode.
pub struct GradMode {
    previous: bool,
}

impl GradMode {
    pub fn set(enabled: bool) -> GradMode {
        let previous = ENABLED.with(|e| e.replace(enabled));
        GradMode { previous }
    }

    /// Recording off: what kernels composed of other ops run under.
    pub fn disabled() -> GradMode {
        GradMode::set(false)
    }
}

impl Drop for GradMode {
    fn drop(&mut self) {
        ENABLED.with(|e| e.set(self.previous));
    }
}

/// Sets the mode without a guard (for Python's `set_grad_enabled` used as a function).
pub fn set_enabled(enabled: bool) -> bool {
    ENABLED.with(|e| e.replace(enabled))
}
