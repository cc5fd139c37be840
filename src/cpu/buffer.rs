//! Fresh kernel outputs that skip the zero fill: a kernel that writes every element first
//! would otherwise pay for one extra pass over memory, as much as a cheap elementwise op.

use std::mem::MaybeUninit;

/// A new vector of `n` elements, every one of which `fill` must write.
pub fn written_output<U>(n: usize, fill: impl FnOnce(&mut [MaybeUninit<U>])) -> Vec<U> {
    let mut out: Vec<MaybeUninit<U>> = Vec::with_capacity(n);
    // SAFETY: MaybeUninit needs no initialisation.
    unsafe { out.set_len(n) };
    if n > 0 {
        fill(&mut out);
    }
    let mut out = std::mem::ManuallyDrop::new(out);
    // SAFETY: `fill` wrote all `n` elements (each caller's contract), and MaybeUninit<U> has
    // U's layout, so the allocation is a valid Vec<U> of the same capacity.
    unsafe { Vec::from_raw_parts(out.as_mut_ptr() as *mut U, n, out.capacity()) }
}
