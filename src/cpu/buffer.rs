//! The one place tensor-sized host buffers are allocated, fallibly.
//!
//! Rust's global allocator aborts the process when a block cannot be had, and `vec![x; n]` /
//! `Vec::with_capacity(n)` panic with "capacity overflow" when `n` elements exceed `isize::MAX`
//! bytes. A size chosen by user input (a huge shape, an expanded tensor, a reduction over an empty
//! dim of a huge tensor) or refused by the OS (an address-space limit) must instead come back as
//! PyTorch's allocator error, so every buffer whose length follows a tensor's element count goes
//! through `with_capacity` here (`try_reserve_exact` underneath) and small fixed-size bookkeeping
//! alone uses the infallible forms.

use std::mem::MaybeUninit;
use std::sync::Mutex;

use crate::error::{Error, Result};

/// PyTorch's CPU allocator error for a request of `bytes`.
pub fn alloc_error(bytes: usize) -> Error {
    Error::Runtime(format!("DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes."))
}

/// An empty vector with room for `n` elements, or the allocator error when the memory cannot be
/// had.
pub fn with_capacity<T>(n: usize) -> Result<Vec<T>> {
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    if exceeds_the_machine(bytes) {
        return Err(alloc_error(bytes));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| alloc_error(bytes))?;
    Ok(v)
}

/// Requests from this size on are compared with the machine's memory before they are made.
const CHECKED_FROM_BYTES: usize = 1 << 30;

/// Whether `bytes` is more than the machine's memory and swap together. Where Linux overcommits
/// without limit (`vm.overcommit_memory = 1`, as on some GPU hosts) such a request is granted and
/// the zero fill that follows gets the process killed; refused here it is the allocator error
/// under every overcommit setting, as under Linux's default one.
fn exceeds_the_machine(bytes: usize) -> bool {
    bytes >= CHECKED_FROM_BYTES && memory_and_swap_bytes().is_some_and(|total| bytes > total)
}

fn memory_and_swap_bytes() -> Option<usize> {
    static TOTAL: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *TOTAL.get_or_init(read_memory_and_swap_bytes)
}

#[cfg(target_os = "linux")]
fn read_memory_and_swap_bytes() -> Option<usize> {
    // SAFETY: sysinfo fills the zeroed struct it is given and touches nothing else.
    let info = unsafe {
        let mut info: libc::sysinfo = std::mem::zeroed();
        if libc::sysinfo(&mut info) != 0 {
            return None;
        }
        info
    };
    let units = (info.totalram as usize).checked_add(info.totalswap as usize)?;
    units.checked_mul((info.mem_unit as usize).max(1))
}

#[cfg(not(target_os = "linux"))]
fn read_memory_and_swap_bytes() -> Option<usize> {
    None
}

/// `n` copies of `value`.
pub fn filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>> {
    let mut v = with_capacity(n)?;
    // In the SIMD layer: compiled for the baseline, the fill stored 16 bytes at a time (8 MB of
    // int64 zeros took 150 us, PyTorch's 93).
    crate::cpu::simd::vectorized(
        #[inline(always)]
        || v.resize(n, value),
    );
    Ok(v)
}

/// The items of `items`, which yields `n` of them (more only reallocate, fewer only waste room).
pub fn collect_n<T>(n: usize, items: impl IntoIterator<Item = T>) -> Result<Vec<T>> {
    let mut v = with_capacity(n)?;
    v.extend(items);
    Ok(v)
}

/// A copy of `s`.
pub fn copied<T: Clone>(s: &[T]) -> Result<Vec<T>> {
    collect_n(s.len(), s.iter().cloned())
}

/// A new vector of `n` elements, every one of which `fill` must write. It skips the zero fill: a
/// kernel that writes every element first would otherwise pay for one extra pass over memory, as
/// much as a cheap elementwise op.
pub fn written_output<U>(n: usize, fill: impl FnOnce(&mut [MaybeUninit<U>])) -> Result<Vec<U>> {
    try_written_output(n, |out| {
        fill(out);
        Ok(())
    })
}

/// `written_output` for a `fill` that can fail part way (a scratch buffer it could not have):
/// then its error comes back and the partly written buffer is freed unread.
pub fn try_written_output<U>(n: usize, fill: impl FnOnce(&mut [MaybeUninit<U>]) -> Result<()>) -> Result<Vec<U>> {
    let mut out = uninit(n)?;
    if n > 0 {
        fill(&mut out)?;
    }
    // SAFETY: `fill` wrote all `n` elements (each caller's contract).
    Ok(unsafe { assume_written(out) })
}

/// `n` elements not yet written, for a kernel with several outputs that writes every element
/// of each (one output alone goes through `written_output`); `assume_written` then gives the
/// result.
pub fn uninit<U>(n: usize) -> Result<Vec<MaybeUninit<U>>> {
    let mut out: Vec<MaybeUninit<U>> = with_capacity(n)?;
    // SAFETY: MaybeUninit needs no initialisation.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// The vector `v` once every element of it has been written.
///
/// # Safety
/// Every element of `v` must have been written.
pub unsafe fn assume_written<U>(v: Vec<MaybeUninit<U>>) -> Vec<U> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: MaybeUninit<U> has U's layout, so the allocation is a valid Vec<U> of the same
    // capacity, and the caller vouches for the elements.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut U, v.len(), v.capacity()) }
}

/// The slice `s` once every element of it has been written: for a kernel that writes a block
/// in a first pass and then reads it back.
///
/// # Safety
/// Every element of `s` must have been written.
pub unsafe fn assume_written_mut<U>(s: &mut [MaybeUninit<U>]) -> &mut [U] {
    // SAFETY: as `assume_written`.
    unsafe { &mut *(s as *mut [MaybeUninit<U>] as *mut [U]) }
}

/// The first allocation failure among the tasks of a parallel kernel, which cannot return it
/// from inside the task: each task that fails records it and stops, and the kernel returns it
/// once all tasks are done.
#[derive(Default)]
pub struct FirstError(Mutex<Option<Error>>);

impl FirstError {
    pub fn set(&self, e: Error) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(e);
    }

    /// `Ok(value)` when no task failed.
    pub fn or_ok<T>(self, value: T) -> Result<T> {
        match self.0.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        let e = with_capacity::<f32>(1 << 61).unwrap_err().to_string();
        assert!(e.contains("you tried to allocate 9223372036854775808 bytes"), "{e}");
        // Past usize: the byte count saturates rather than wrapping to a small number.
        let e = filled(usize::MAX, 0u64).unwrap_err().to_string();
        assert!(e.contains(&usize::MAX.to_string()), "{e}");
        assert!(written_output::<f64>(1 << 60, |_| unreachable!()).is_err());
    }

    #[test]
    fn more_than_the_machine_has_is_refused_before_it_is_asked_for() {
        let Some(total) = memory_and_swap_bytes() else { return };
        // A request the address space could grant, so that only the check refuses it.
        let bytes = total.saturating_add(1 << 30).max(CHECKED_FROM_BYTES);
        let e = with_capacity::<u8>(bytes).unwrap_err().to_string();
        assert!(e.contains(&format!("you tried to allocate {bytes} bytes")), "{e}");
        assert!(with_capacity::<u8>(1 << 20).is_ok());
    }

    #[test]
    fn buffers_hold_what_they_were_given() {
        assert_eq!(filled(3, 7i32).unwrap(), vec![7, 7, 7]);
        assert_eq!(collect_n(4, 0..4).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(copied(&[1.5f32, 2.5]).unwrap(), vec![1.5, 2.5]);
        let w = written_output(3, |o| o.iter_mut().enumerate().for_each(|(i, v)| _ = v.write(i * 2))).unwrap();
        assert_eq!(w, vec![0, 2, 4]);
    }
}
