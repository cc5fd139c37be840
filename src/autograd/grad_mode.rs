//! Whether ops record the graph: a thread-local flag with an RAII guard.

use std::cell::Cell;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
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
