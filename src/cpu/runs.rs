//! Copies of contiguous runs of elements at memory speed whatever their alignment.
//!
//! The C library's memcpy copies runs of a few KiB and more with `rep movsb`, which on AMD Zen 4
//! slows down about thirteenfold when destination and source lie at different offsets within
//! 64 bytes: 1024 rows of 1021 float32, each shifted by three elements (a `roll`), took 1.23 ms
//! through memcpy and 0.09 ms through 64-byte vector moves. Such runs take the vector moves here.

use std::mem::MaybeUninit;

/// Runs of at least this many bytes whose ends are misaligned against each other take the
/// vector moves (shorter ones memcpy copies with vector moves of its own).
#[cfg(target_arch = "x86_64")]
const VECTOR_MOVES_FROM: usize = 1024;

/// `to = from`, element for element.
pub fn copy_run<T: Copy>(from: &[T], to: &mut [MaybeUninit<T>]) {
    assert_eq!(from.len(), to.len(), "copy_run: runs of different lengths");
    let (src, dst) = (from.as_ptr() as *const u8, to.as_mut_ptr() as *mut u8);
    #[cfg(target_arch = "x86_64")]
    {
        let bytes = std::mem::size_of_val(from);
        if bytes >= VECTOR_MOVES_FROM && !(dst as usize).wrapping_sub(src as usize).is_multiple_of(64) {
            if let Some(simd) = crate::cpu::simd::avx512() {
                // SAFETY: `from` and `to` are `bytes` long; `to` is a `&mut`, so they do not overlap.
                return unsafe { vector_moves(simd, src, dst, bytes) };
            }
        }
    }
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, std::mem::size_of_val(from)) }
}

/// `bytes` bytes from `src` to `dst` by unaligned 64-byte loads and stores, the last partial
/// vector by memcpy.
///
/// # Safety
/// `src` readable and `dst` writable for `bytes` bytes, not overlapping.
#[cfg(target_arch = "x86_64")]
unsafe fn vector_moves(simd: pulp::x86::V4, src: *const u8, dst: *mut u8, bytes: usize) {
    simd.vectorize(
        #[inline(always)]
        move || {
            let f = simd.avx512f;
            let (src, dst) = (src as *const f32, dst as *mut f32);
            let whole = bytes / 64;
            for i in 0..whole {
                // SAFETY: vector i lies within the first `whole * 64 <= bytes` bytes.
                unsafe { f._mm512_storeu_ps(dst.add(16 * i), f._mm512_loadu_ps(src.add(16 * i))) };
            }
            // SAFETY: the rest, `bytes % 64` bytes from `whole * 64` on.
            unsafe { std::ptr::copy_nonoverlapping((src as *const u8).add(whole * 64), (dst as *mut u8).add(whole * 64), bytes % 64) };
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_copy_exactly_at_every_offset_and_length() {
        // Lengths around the vector moves' threshold and tail, destinations at every offset
        // within 64 bytes of the source's, for 1-, 4- and 8-byte elements.
        let src: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 251) as u8).collect();
        for len in [0, 1, 63, 64, 1023, 1024, 1025, 2047, 3000] {
            for shift in 0..64 {
                let mut dst = vec![MaybeUninit::new(0u8); len + 64];
                copy_run(&src[..len], &mut dst[shift..shift + len]);
                let got: Vec<u8> = dst[shift..shift + len].iter().map(|v| unsafe { v.assume_init() }).collect();
                assert_eq!(got, &src[..len], "{len} bytes at offset {shift}");
            }
        }
        let wide: Vec<f64> = (0..700).map(|i| i as f64 * 0.5).collect();
        let mut out = vec![MaybeUninit::new(0f64); 701];
        copy_run(&wide, &mut out[1..]);
        assert!(out[1..].iter().zip(&wide).all(|(o, w)| unsafe { o.assume_init() } == *w));
        let ints: Vec<i32> = (0..1000).collect();
        let mut out = vec![MaybeUninit::new(0i32); 1003];
        copy_run(&ints, &mut out[3..]);
        assert!(out[3..].iter().zip(&ints).all(|(o, w)| unsafe { o.assume_init() } == *w));
    }
}
