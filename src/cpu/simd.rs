//! The one SIMD layer: plain loops run inside `vectorized` are compiled for the best instruction
//! set the CPU has (AVX-512, else AVX2, else the baseline), chosen once at run time through pulp.

use std::mem::MaybeUninit;
use std::sync::OnceLock;

fn arch() -> pulp::Arch {
    static ARCH: OnceLock<pulp::Arch> = OnceLock::new();
    *ARCH.get_or_init(pulp::Arch::new)
}

/// Runs `f` with the widest available vector instructions enabled, so LLVM vectorises its loops.
/// Mark the closure `#[inline(always)]`: a closure LLVM declines to inline into pulp's
/// target-feature function compiles for the baseline instruction set, where `mul_add` is a
/// call to a software `fmaf` (softmax over float32 ran at 24 ns an element that way).
#[inline(always)]
pub fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    arch().dispatch(f)
}

/// Runs a `WithSimd` loop compiled for the widest available instructions: the way to vectorise
/// a kernel-specific loop (see the note below on closures).
#[inline(always)]
pub fn dispatch<W: pulp::WithSimd>(w: W) -> W::Output {
    arch().dispatch(w)
}

/// The AVX-512 instruction set when the CPU has it, for the few kernels written with its
/// intrinsics (pulp's safe wrappers) because no plain loop vectorises them (a running sum
/// along a row); None elsewhere, where those kernels keep their plain loops.
#[cfg(target_arch = "x86_64")]
pub fn avx512() -> Option<pulp::x86::V4> {
    match arch() {
        pulp::Arch::V4(simd) => Some(simd),
        _ => None,
    }
}

/// The instruction set `vectorized` uses: "avx512", "avx2" or "scalar".
pub fn simd_level() -> &'static str {
    match arch() {
        pulp::Arch::V4(_) => "avx512",
        pulp::Arch::V3(_) => "avx2",
        _ => "scalar",
    }
}

// The loops below are `WithSimd` impls with `#[inline(always)]` bodies rather than closures
// passed to `vectorized`: LLVM may decline to inline a closure into pulp's target-feature
// function, and then the loop silently compiles for the baseline instruction set.

/// `out[i] = f(x[i])` over equal-length slices; `out` may be uninitialised.
#[inline(always)]
pub fn map_slice<T: Copy, U>(x: &[T], out: &mut [MaybeUninit<U>], f: &impl Fn(T) -> U) {
    struct Op<'a, T, U, F> {
        x: &'a [T],
        out: &'a mut [MaybeUninit<U>],
        f: &'a F,
    }
    impl<T: Copy, U, F: Fn(T) -> U> pulp::WithSimd for Op<'_, T, U, F> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _: S) {
            for (o, &x) in self.out.iter_mut().zip(self.x) {
                o.write((self.f)(x));
            }
        }
    }
    arch().dispatch(Op { x, out, f })
}

/// `map_slice` with a kernel chosen per block of `SPLIT_BLOCK` elements: `fast` where every
/// element of the block passes `ok`, else `slow` (exp without its subnormal path where no result
/// is subnormal). The test is one vectorised pass over a block already in L1.
#[inline(always)]
pub fn map_slice_split<T: Copy, U>(
    x: &[T],
    out: &mut [MaybeUninit<U>],
    ok: &impl Fn(T) -> bool,
    fast: &impl Fn(T) -> U,
    slow: &impl Fn(T) -> U,
) {
    struct Op<'a, T, U, K, F, S> {
        x: &'a [T],
        out: &'a mut [MaybeUninit<U>],
        ok: &'a K,
        fast: &'a F,
        slow: &'a S,
    }
    impl<T: Copy, U, K: Fn(T) -> bool, F: Fn(T) -> U, S: Fn(T) -> U> pulp::WithSimd for Op<'_, T, U, K, F, S> {
        type Output = ();
        #[inline(always)]
        fn with_simd<Sd: pulp::Simd>(self, _: Sd) {
            let n = self.out.len();
            let mut start = 0;
            while start < n {
                let end = (start + SPLIT_BLOCK).min(n);
                let (x, out) = (&self.x[start..end], &mut self.out[start..end]);
                if all_pass(x, self.ok) {
                    for i in 0..x.len() {
                        out[i].write((self.fast)(x[i]));
                    }
                } else {
                    for i in 0..x.len() {
                        out[i].write((self.slow)(x[i]));
                    }
                }
                start = end;
            }
        }
    }
    arch().dispatch(Op { x, out, ok, fast, slow })
}

/// `x[i] = f(x[i])` in place (the in-place unary ops).
#[inline(always)]
pub fn map_slice_in_place<T: Copy>(x: &mut [T], f: &impl Fn(T) -> T) {
    struct Op<'a, T, F> {
        x: &'a mut [T],
        f: &'a F,
    }
    impl<T: Copy, F: Fn(T) -> T> pulp::WithSimd for Op<'_, T, F> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _: S) {
            for v in self.x.iter_mut() {
                *v = (self.f)(*v);
            }
        }
    }
    arch().dispatch(Op { x, f })
}

/// `map_slice_split` in place.
#[inline(always)]
pub fn map_slice_split_in_place<T: Copy>(x: &mut [T], ok: &impl Fn(T) -> bool, fast: &impl Fn(T) -> T, slow: &impl Fn(T) -> T) {
    struct Op<'a, T, K, F, S> {
        x: &'a mut [T],
        ok: &'a K,
        fast: &'a F,
        slow: &'a S,
    }
    impl<T: Copy, K: Fn(T) -> bool, F: Fn(T) -> T, S: Fn(T) -> T> pulp::WithSimd for Op<'_, T, K, F, S> {
        type Output = ();
        #[inline(always)]
        fn with_simd<Sd: pulp::Simd>(self, _: Sd) {
            for block in self.x.chunks_mut(SPLIT_BLOCK) {
                if all_pass(block, self.ok) {
                    for v in block.iter_mut() {
                        *v = (self.fast)(*v);
                    }
                } else {
                    for v in block.iter_mut() {
                        *v = (self.slow)(*v);
                    }
                }
            }
        }
    }
    arch().dispatch(Op { x, ok, fast, slow })
}

/// Whether every element of `block` passes `ok`: one pass without an early exit, so that it
/// vectorises (inlined into the split maps' SIMD functions).
#[inline(always)]
pub(crate) fn all_pass<T: Copy>(block: &[T], ok: &impl Fn(T) -> bool) -> bool {
    let mut all = true;
    for &v in block {
        all &= ok(v);
    }
    all
}

/// `map_slice_split`'s block: 2 KiB of float32, small against L1 and long against the loop's
/// start-up.
pub(crate) const SPLIT_BLOCK: usize = 512;

/// `out[i] = f(a[i], b[i])` over equal-length slices; `out` may be uninitialised.
#[inline(always)]
pub fn zip_slices<A: Copy, B: Copy, U>(a: &[A], b: &[B], out: &mut [MaybeUninit<U>], f: &impl Fn(A, B) -> U) {
    struct Op<'a, A, B, U, F> {
        a: &'a [A],
        b: &'a [B],
        out: &'a mut [MaybeUninit<U>],
        f: &'a F,
    }
    impl<A: Copy, B: Copy, U, F: Fn(A, B) -> U> pulp::WithSimd for Op<'_, A, B, U, F> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _: S) {
            let n = self.out.len();
            let (a, b) = (&self.a[..n], &self.b[..n]);
            for i in 0..n {
                self.out[i].write((self.f)(a[i], b[i]));
            }
        }
    }
    arch().dispatch(Op { a, b, out, f })
}

/// Folds a slice with `LANES` independent accumulators (so the loop vectorises), merging them
/// in a fixed order.
#[inline(always)]
pub fn fold_slice<T: Copy, A: Copy, const LANES: usize>(x: &[T], init: A, step: &impl Fn(A, T) -> A, merge: &impl Fn(A, A) -> A) -> A {
    struct Op<'a, T, A, S, M, const L: usize> {
        x: &'a [T],
        init: A,
        step: &'a S,
        merge: &'a M,
    }
    impl<T: Copy, A: Copy, S: Fn(A, T) -> A, M: Fn(A, A) -> A, const L: usize> pulp::WithSimd for Op<'_, T, A, S, M, L> {
        type Output = A;
        #[inline(always)]
        fn with_simd<Sd: pulp::Simd>(self, _: Sd) -> A {
            let mut acc = [self.init; L];
            let (chunks, tail) = self.x.as_chunks::<L>();
            // Indexed rather than zipped: in the crate's build a zip's `Zip::new` stayed an
            // out-of-line call per chunk and the accumulators lived on the stack (a float32 sum
            // ran at a third of memory speed), and a NaN-propagating max did not vectorise.
            for c in chunks {
                for j in 0..L {
                    acc[j] = (self.step)(acc[j], c[j]);
                }
            }
            tail.iter().fold(merge_lanes(acc, self.merge), |a, &v| (self.step)(a, v))
        }
    }
    /// The accumulators merged pairwise in a fixed tree. Kept out of the loop's function: mixed
    /// into it, LLVM vectorised the accumulators two lanes at a time instead of whole registers.
    #[inline(never)]
    fn merge_lanes<A: Copy, const L: usize>(mut acc: [A; L], merge: &impl Fn(A, A) -> A) -> A {
        let mut width = L;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                acc[j] = merge(acc[j], acc[j + width]);
            }
        }
        acc[0]
    }
    arch().dispatch(Op::<T, A, _, _, LANES> { x, init, step, merge })
}
