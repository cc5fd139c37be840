//! Softmax, log-softmax, layer norm and batch norm as fused kernels, forward and backward: one
//! or two passes over each row or channel instead of a chain of elementwise ops and reductions.
//!
//! Every reduction runs in a fixed order that does not depend on the thread count (row and
//! channel sums on one thread each, cross-row sums over fixed blocks added in order), so the
//! results are the same bits on one thread or many.

use std::mem::MaybeUninit;

use super::buffer::{assume_written, assume_written_mut, filled, uninit, written_output};
use super::math::FloatMath;
use super::parallel;
use crate::error::Result;

/// Independent accumulators per row reduction, so the loops vectorise.
const LANES: usize = 8;

/// Rows of a layer norm per block of its weight and bias gradients (fixed: reproducible sums).
const ROW_BLOCK: usize = 64;

/// The float types the kernels run in (half precision is computed in f32 by the caller).
pub trait NormFloat: FloatMath + PartialOrd + Send + Sync + Default {
    fn ln_(self) -> Self;
    fn rsqrt_(self) -> Self;
    /// `exp_` of an argument in [-87, 0] (every result normal): the cheaper kernel there.
    fn exp_normal_(self) -> Self;
}

macro_rules! norm_float {
    ($($t:ty => $exp_normal:expr),*) => {$(
        impl NormFloat for $t {
            #[inline(always)]
            fn ln_(self) -> Self {
                self.ln()
            }
            #[inline(always)]
            fn rsqrt_(self) -> Self {
                1.0 / self.sqrt()
            }
            #[inline(always)]
            fn exp_normal_(self) -> Self {
                $exp_normal(self)
            }
        }
    )*};
}

norm_float!(f32 => super::math::exp_f32_normal, f64 => f64::exp);

/// Σ f(a[i], b[i]) with LANES accumulators merged in a fixed tree.
#[inline(always)]
fn sum2<T: NormFloat>(a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> T {
    let mut acc = [T::default(); LANES];
    let (ac, at) = a.as_chunks::<LANES>();
    let (bc, bt) = b[..a.len()].as_chunks::<LANES>();
    for (ca, cb) in ac.iter().zip(bc) {
        for k in 0..LANES {
            acc[k] = acc[k].add(f(ca[k], cb[k]));
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            acc[j] = acc[j].add(acc[j + width]);
        }
    }
    at.iter().zip(bt).fold(acc[0], |s, (&x, &y)| s.add(f(x, y)))
}

#[inline(always)]
pub(crate) fn sum1<T: NormFloat>(a: &[T], f: impl Fn(T) -> T) -> T {
    sum2(a, a, |x, _| f(x))
}

/// Accumulators of a row's maximum: two or more whole vectors, whose chains of compares and
/// blends overlap (with LANES, one vector of float32, the maximum took as long as softmax's
/// exponentials).
const MAX_LANES: usize = 32;

#[inline(always)]
pub(crate) fn row_max<T: NormFloat>(x: &[T]) -> T {
    let mut acc = [x[0]; MAX_LANES];
    let (chunks, tail) = x.as_chunks::<MAX_LANES>();
    for c in chunks {
        for k in 0..MAX_LANES {
            acc[k] = acc[k].max_nan(c[k]);
        }
    }
    // The tail as one more chunk padded with x[0], then halving the accumulators: whole-vector
    // steps (a fold over the 32 was one chain of dependent scalar steps per row, most of flash
    // attention's softmax at 64 keys).
    if !tail.is_empty() {
        let mut last = [x[0]; MAX_LANES];
        last[..tail.len()].copy_from_slice(tail);
        for k in 0..MAX_LANES {
            acc[k] = acc[k].max_nan(last[k]);
        }
    }
    for width in [16, 8, 4, 2, 1] {
        for k in 0..width {
            acc[k] = acc[k].max_nan(acc[k + width]);
        }
    }
    acc[0]
}

/// The row's maximum (NaN when it holds one) and minimum, in one pass.
#[inline(always)]
fn row_range<T: NormFloat>(x: &[T]) -> (T, T) {
    let (mut hi, mut lo) = ([x[0]; MAX_LANES], [x[0]; MAX_LANES]);
    let (chunks, tail) = x.as_chunks::<MAX_LANES>();
    for c in chunks {
        for k in 0..MAX_LANES {
            hi[k] = hi[k].max_nan(c[k]);
            lo[k] = lo[k].min_nan(c[k]);
        }
    }
    let hi = tail.iter().fold(hi.iter().fold(hi[0], |m, &v| m.max_nan(v)), |m, &v| m.max_nan(v));
    let lo = tail.iter().fold(lo.iter().fold(lo[0], |m, &v| m.min_nan(v)), |m, &v| m.min_nan(v));
    (hi, lo)
}

/// Lanes of the fused exponential-and-sum pass: one float32 vector of AVX-512 (eight lanes
/// vectorised at half its width, and the exponentials are the softmax's cost).
const EXP_LANES: usize = 16;

/// `e(x[i] - m)` written to `out` when STORE (else `out` is unused) and summed in float64 over
/// EXP_LANES accumulators merged in a fixed tree: the exponentials and their sum in one pass.
/// The float64 sum leaves float32 softmax the error of its exponentials and final scaling
/// alone: summed in float32, the rounding of a thousand-element row's sum reached 6.4 ulp at
/// the output, past PyTorch's 5.4.
#[inline(always)]
fn exp_sum<T: NormFloat, const STORE: bool>(x: &[T], out: &mut [MaybeUninit<T>], m: T, e: impl Fn(T) -> T) -> T {
    let mut acc = [0.0f64; EXP_LANES];
    let (chunks, tail) = x.as_chunks::<EXP_LANES>();
    for (c, xc) in chunks.iter().enumerate() {
        let mut v = [T::default(); EXP_LANES];
        for k in 0..EXP_LANES {
            v[k] = e(xc[k].sub(m));
            acc[k] += v[k].f();
        }
        if STORE {
            let o = &mut out[c * EXP_LANES..][..EXP_LANES];
            for k in 0..EXP_LANES {
                o[k].write(v[k]);
            }
        }
    }
    let mut width = EXP_LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            acc[j] += acc[j + width];
        }
    }
    let (mut s, start) = (acc[0], chunks.len() * EXP_LANES);
    for (k, &v) in tail.iter().enumerate() {
        let v = e(v.sub(m));
        if STORE {
            out[start + k].write(v);
        }
        s += v.f();
    }
    T::from(s)
}

/// The shape of a softmax: `outer` blocks of `len` steps along the dim, each `inner` apart.
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

impl Lanes {
    fn block(&self) -> usize {
        self.len * self.inner
    }
}

/// Runs `f(start, out_block)` over whole blocks of `out`, in parallel when large. Each block is
/// computed the same way whichever thread runs it.
fn for_blocks<T: Send>(out: &mut [T], block: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    parallel::for_each_chunk_weighted(out, block, 4, |start, chunk| {
        for (i, b) in chunk.chunks_mut(block.max(1)).enumerate() {
            f(start + i * block, b)
        }
    })
}

/// softmax (or log_softmax when `log`) of the contiguous `x` along the lanes of `l`.
pub fn softmax<T: NormFloat>(x: &[T], l: Lanes, log: bool) -> Result<Vec<T>> {
    if l.len == 0 {
        return filled(x.len(), T::default());
    }
    // Every block is written whole (its first pass writes each element): no zero fill first.
    written_output(x.len(), |out| {
        for_blocks(out, l.block(), |start, o| {
            let x = &x[start..start + o.len()];
            super::simd::vectorized(
                #[inline(always)]
                || softmax_block(x, o, l, log),
            )
        })
    })
}

#[inline(always)]
fn softmax_block<T: NormFloat>(x: &[T], out: &mut [MaybeUninit<T>], l: Lanes, log: bool) {
    if l.inner == 1 {
        // The minimum rides along the maximum's pass: a row that spans under 87 (nearly every
        // one) takes the exponential without clamps or subnormal scaling (`exp_normal_`).
        let (m, lo) = row_range(x);
        let normal = lo.sub(m) >= T::from(-87.0);
        if log {
            // Only the sum is needed: the exponentials are not stored.
            let s = if normal { exp_sum::<T, false>(x, out, m, T::exp_normal_) } else { exp_sum::<T, false>(x, out, m, T::exp_) };
            // x - max - log(sum): the shift applied before the logarithm, as PyTorch does.
            let ls = s.ln_();
            for (o, &v) in out.iter_mut().zip(x) {
                o.write(v.sub(m).sub(ls));
            }
        } else {
            let s = if normal { exp_sum::<T, true>(x, out, m, T::exp_normal_) } else { exp_sum::<T, true>(x, out, m, T::exp_) };
            // SAFETY: exp_sum wrote the whole block (`out` is as long as `x`).
            let out = unsafe { assume_written_mut(out) };
            let r = T::from(1.0).div(s);
            for o in out.iter_mut() {
                *o = o.mul(r);
            }
        }
        return;
    }
    let n = l.inner;
    let mut m = x[..n].to_vec();
    for row in x.chunks_exact(n).skip(1) {
        for (a, &v) in m.iter_mut().zip(row) {
            *a = a.max_nan(v);
        }
    }
    // Zipped rows, no indexing: the loops vectorise (indexed, the bounds checks kept the
    // exponentials scalar and softmax along dim 0 ran at under half PyTorch's speed).
    let mut s = vec![T::default(); n];
    for (orow, xrow) in out.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
        for ((o, &v), (acc, &mv)) in orow.iter_mut().zip(xrow).zip(s.iter_mut().zip(&m)) {
            let e = v.sub(mv).exp_();
            *o = MaybeUninit::new(e);
            *acc = acc.add(e);
        }
    }
    // SAFETY: the block is whole rows of `n` (`len * inner` elements), all written above.
    let out = unsafe { assume_written_mut(out) };
    if log {
        // m + log(sum): subtracted at once, the shift applied before the logarithm as above.
        let ls: Vec<T> = s.iter().map(|&v| v.ln_()).collect();
        for (orow, xrow) in out.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
            for ((o, &v), (&mv, &l)) in orow.iter_mut().zip(xrow).zip(m.iter().zip(&ls)) {
                *o = v.sub(mv).sub(l);
            }
        }
    } else {
        let r: Vec<T> = s.iter().map(|&v| T::from(1.0).div(v)).collect();
        for orow in out.chunks_exact_mut(n) {
            for (o, &rv) in orow.iter_mut().zip(&r) {
                *o = o.mul(rv);
            }
        }
    }
}

/// The input gradient of softmax (log_softmax when `log`) from its output `y` and the output
/// gradient `g`, both contiguous: `y * (g - Σ g y)`, or `g - exp(y) Σ g`.
pub fn softmax_backward<T: NormFloat>(y: &[T], g: &[T], l: Lanes, log: bool) -> Result<Vec<T>> {
    if l.len == 0 {
        return filled(y.len(), T::default());
    }
    // Every element of every block is written once: no zero fill first.
    written_output(y.len(), |out| {
        for_blocks(out, l.block(), |start, o| {
            let (y, g) = (&y[start..start + o.len()], &g[start..start + o.len()]);
            super::simd::vectorized(
                #[inline(always)]
                || softmax_backward_block(y, g, o, l, log),
            )
        })
    })
}

#[inline(always)]
fn softmax_backward_block<T: NormFloat>(y: &[T], g: &[T], out: &mut [MaybeUninit<T>], l: Lanes, log: bool) {
    if l.inner == 1 {
        if log {
            let s = sum1(g, |v| v);
            for ((o, &yv), &gv) in out.iter_mut().zip(y).zip(g) {
                *o = MaybeUninit::new(gv.sub(yv.exp_().mul(s)));
            }
        } else {
            let dot = sum2(g, y, |a, b| a.mul(b));
            for ((o, &yv), &gv) in out.iter_mut().zip(y).zip(g) {
                *o = MaybeUninit::new(yv.mul(gv.sub(dot)));
            }
        }
        return;
    }
    // Zipped rows and `log` decided outside the loops, which then vectorise (see softmax_block).
    let n = l.inner;
    let mut s = vec![T::default(); n];
    for (yrow, grow) in y.chunks_exact(n).zip(g.chunks_exact(n)) {
        if log {
            for (acc, &gv) in s.iter_mut().zip(grow) {
                *acc = acc.add(gv);
            }
        } else {
            for (acc, (&gv, &yv)) in s.iter_mut().zip(grow.iter().zip(yrow)) {
                *acc = acc.add(gv.mul(yv));
            }
        }
    }
    for ((orow, yrow), grow) in out.chunks_exact_mut(n).zip(y.chunks_exact(n)).zip(g.chunks_exact(n)) {
        let rows = orow.iter_mut().zip(yrow.iter().zip(grow)).zip(&s);
        if log {
            for ((o, (&yv, &gv)), &sv) in rows {
                *o = MaybeUninit::new(gv.sub(yv.exp_().mul(sv)));
            }
        } else {
            for ((o, (&yv, &gv)), &sv) in rows {
                *o = MaybeUninit::new(yv.mul(gv.sub(sv)));
            }
        }
    }
}

/// The shift of a logsumexp: the lane's max, or 0 where that is infinite (which would give
/// inf - inf), as PyTorch shifts.
#[inline(always)]
fn lse_shift<T: NormFloat>(m: T) -> T {
    if m.f().is_infinite() {
        T::from(0.0)
    } else {
        m
    }
}

/// `log(Σ exp(x))` along the lanes of `l` of the contiguous `x` (`outer * inner` results, in
/// row-major order of the kept dims), shifted by each lane's max: the max, the sum of shifted
/// exponentials and the logarithm in two passes over the lane, no exponentials written out.
pub fn logsumexp<T: NormFloat>(x: &[T], l: Lanes) -> Result<Vec<T>> {
    let mut out = filled(l.outer * l.inner, T::default())?;
    if out.is_empty() || l.len == 0 {
        return Ok(out);
    }
    let block = l.inner.max(1);
    let failed = super::buffer::FirstError::default();
    parallel::for_each_chunk_weighted(&mut out, block, l.len, |start, chunk| {
        // A lane's shifted exponentials, written out in L1 and summed after: written as a plain
        // loop they vectorise at the full register width, where folded straight into a sum of a
        // few accumulators they ran four lanes wide.
        let mut scratch = match filled(if block == 1 { l.len } else { 0 }, T::default()) {
            Ok(v) => v,
            Err(e) => return failed.set(e),
        };
        for (i, o) in chunk.chunks_mut(block).enumerate() {
            let at = (start / block + i) * l.block();
            let x = &x[at..at + l.block()];
            if block == 1 {
                o[0] = lane_logsumexp(x, &mut scratch);
                continue;
            }
            super::simd::vectorized(
                #[inline(always)]
                || logsumexp_block(x, o, l.inner),
            )
        }
    });
    failed.or_ok(out)
}

/// logsumexp of one contiguous lane, through `scratch` (as long as the lane).
fn lane_logsumexp<T: NormFloat>(x: &[T], scratch: &mut [T]) -> T {
    use super::simd::fold_slice;
    let m = lse_shift(fold_slice::<T, T, 32>(x, x[0], &|a, v| a.max_nan(v), &|a, b| a.max_nan(b)));
    super::simd::vectorized(
        #[inline(always)]
        || {
            for (e, &v) in scratch.iter_mut().zip(x) {
                *e = v.sub(m).exp_();
            }
        },
    );
    fold_slice::<T, T, 32>(scratch, T::default(), &|a, v| a.add(v), &|a, b| a.add(b)).ln_().add(m)
}

#[inline(always)]
fn logsumexp_block<T: NormFloat>(x: &[T], out: &mut [T], n: usize) {
    // Along a dim with `n` lanes side by side: whole rows at a time, each lane's max, then its
    // sum, accumulated in `out` (zipped rows: the loops vectorise, see softmax_block).
    let mut m = x[..n].to_vec();
    for row in x.chunks_exact(n).skip(1) {
        for (a, &v) in m.iter_mut().zip(row) {
            *a = a.max_nan(v);
        }
    }
    m.iter_mut().for_each(|a| *a = lse_shift(*a));
    out.fill(T::default());
    for row in x.chunks_exact(n) {
        for ((acc, &v), &mv) in out.iter_mut().zip(row).zip(&m) {
            *acc = acc.add(v.sub(mv).exp_());
        }
    }
    for (o, &mv) in out.iter_mut().zip(&m) {
        *o = o.ln_().add(mv);
    }
}

/// Mean and `1 / sqrt(biased variance + eps)` of `x`, in two passes (no cancellation).
#[inline(always)]
fn moments<T: NormFloat>(x: &[T], eps: f64) -> (T, T) {
    let n = T::from(x.len() as f64);
    let mean = sum1(x, |v| v).div(n);
    let var = sum1(x, |v| {
        let d = v.sub(mean);
        d.mul(d)
    })
    .div(n);
    (mean, var.add(T::from(eps)).rsqrt_())
}

/// Layer norm of the contiguous `x` as rows of `cols`: the normalized rows scaled by `weight`
/// and shifted by `bias` (each `cols` long, when given), with each row's mean and reciprocal
/// standard deviation.
pub fn layer_norm<T: NormFloat>(
    x: &[T],
    cols: usize,
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: f64,
) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let rows = x.len().checked_div(cols).unwrap_or(0);
    // Every row of `out` and every row's stats are written below: no zero fill first.
    let mut out = uninit::<T>(x.len())?;
    let mut stats = uninit::<(T, T)>(rows)?;
    if cols > 0 {
        parallel::for_each_exact_chunk_pair(&mut out, cols * 16, &mut stats, 16, |i, o, st| {
            let x = &x[i * cols * 16..][..o.len()];
            super::simd::vectorized(
                #[inline(always)]
                || {
                    for ((orow, xrow), s) in o.chunks_exact_mut(cols).zip(x.chunks_exact(cols)).zip(st.iter_mut()) {
                        let (mean, rstd) = moments(xrow, eps);
                        *s = MaybeUninit::new((mean, rstd));
                        match (weight, bias) {
                            (Some(w), Some(b)) => {
                                for (((o, &v), &w), &b) in orow.iter_mut().zip(xrow).zip(w).zip(b) {
                                    *o = MaybeUninit::new(v.sub(mean).mul(rstd).mul(w).add(b));
                                }
                            }
                            (Some(w), None) => {
                                for ((o, &v), &w) in orow.iter_mut().zip(xrow).zip(w) {
                                    *o = MaybeUninit::new(v.sub(mean).mul(rstd).mul(w));
                                }
                            }
                            (None, Some(b)) => {
                                for ((o, &v), &b) in orow.iter_mut().zip(xrow).zip(b) {
                                    *o = MaybeUninit::new(v.sub(mean).mul(rstd).add(b));
                                }
                            }
                            (None, None) => {
                                for (o, &v) in orow.iter_mut().zip(xrow) {
                                    *o = MaybeUninit::new(v.sub(mean).mul(rstd));
                                }
                            }
                        }
                    }
                },
            )
        });
    }
    // SAFETY: with `cols > 0` the chunks above cover all of `out` and `stats` (`rows * cols` and
    // `rows` elements, 16 rows a chunk) and write every element; with `cols == 0` both are empty
    // (`x` is, and `rows` is 0).
    let (out, stats) = unsafe { (assume_written(out), assume_written(stats)) };
    let (mean, rstd) = stats.into_iter().unzip();
    Ok((out, mean, rstd))
}

/// A layer norm's gradients for `x`, the weight and the bias (each when asked for).
type LayerNormGrads<T> = (Option<Vec<T>>, Option<Vec<T>>, Option<Vec<T>>);

/// A batch norm's gradients for `x` (when asked for), the weight and the bias.
type BatchNormGrads<T> = (Option<Vec<T>>, Vec<T>, Vec<T>);

/// Gradients of a layer norm: of `x` (when `want_x`), and the column sums of `g * xhat` and of
/// `g` (the weight's and the bias's gradients, when `want_w` / `want_b`).
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_backward<T: NormFloat>(
    x: &[T],
    g: &[T],
    cols: usize,
    weight: Option<&[T]>,
    mean: &[T],
    rstd: &[T],
    want_x: bool,
    want_w: bool,
    want_b: bool,
) -> Result<LayerNormGrads<T>> {
    let rows = mean.len();
    let dx = want_x.then(|| {
        let inv_n = T::from(1.0 / cols as f64);
        // Each row is written whole by its first pass, then read back: no zero fill first.
        written_output(x.len(), |dx| {
            for_blocks(dx, cols, |start, d| {
                let r = start / cols;
                let (xrow, grow) = (&x[start..start + cols], &g[start..start + cols]);
                let (m, rs) = (mean[r], rstd[r]);
                super::simd::vectorized(
                    #[inline(always)]
                    || {
                        // dxhat = g * w; dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)).
                        // The weight decided outside a zipped loop: indexed, with the Option looked at
                        // per element, the loop stayed scalar (LayerNorm's backward at 0.6x PyTorch).
                        match weight {
                            Some(w) => {
                                for ((o, &gv), &wv) in d.iter_mut().zip(grow).zip(w) {
                                    *o = MaybeUninit::new(gv.mul(wv));
                                }
                            }
                            None => {
                                for (o, &gv) in d.iter_mut().zip(grow) {
                                    *o = MaybeUninit::new(gv);
                                }
                            }
                        }
                        // SAFETY: the row (`cols` elements, as `grow`) was written just above.
                        let d = unsafe { assume_written_mut(d) };
                        let a = sum1(d, |v| v).mul(inv_n);
                        let b = sum2(d, xrow, |dh, v| dh.mul(v.sub(m).mul(rs))).mul(inv_n);
                        for (o, &v) in d.iter_mut().zip(xrow) {
                            *o = rs.mul(o.sub(a).sub(v.sub(m).mul(rs).mul(b)));
                        }
                    },
                )
            })
        })
    });
    let dx = dx.transpose()?;
    if !want_w && !want_b {
        return Ok((dx, None, None));
    }
    // The weight's and the bias's column sums in one pass over `x` and `g` (the same additions,
    // in the same order, as one pass each: the bits do not change).
    let partials = parallel::map_blocks(rows, ROW_BLOCK, |rr| {
        let (mut acc_w, mut acc_b) = (vec![T::default(); if want_w { cols } else { 0 }], vec![T::default(); if want_b { cols } else { 0 }]);
        super::simd::vectorized(
            #[inline(always)]
            || {
                for r in rr {
                    let (xrow, grow) = (&x[r * cols..][..cols], &g[r * cols..][..cols]);
                    let (m, rs) = (mean[r], rstd[r]);
                    for ((a, &gv), &v) in acc_w.iter_mut().zip(grow).zip(xrow) {
                        *a = a.add(gv.mul(v.sub(m).mul(rs)));
                    }
                    for (a, &gv) in acc_b.iter_mut().zip(grow) {
                        *a = a.add(gv);
                    }
                }
            },
        );
        (acc_w, acc_b)
    });
    let (mut total_w, mut total_b) = (vec![T::default(); cols], vec![T::default(); cols]);
    for (pw, pb) in partials {
        for (t, v) in total_w.iter_mut().zip(pw) {
            *t = t.add(v);
        }
        for (t, v) in total_b.iter_mut().zip(pb) {
            *t = t.add(v);
        }
    }
    Ok((dx, want_w.then_some(total_w), want_b.then_some(total_b)))
}

/// The shape of a batch norm input: `batch` images of `channels` planes of `plane` elements.
#[derive(Clone, Copy, Debug)]
pub struct Planes {
    pub batch: usize,
    pub channels: usize,
    pub plane: usize,
}

impl Planes {
    fn channel_planes<'a, T>(&self, x: &'a [T], c: usize) -> impl Iterator<Item = &'a [T]> + 'a {
        let (p, stride) = (self.plane, self.channels * self.plane);
        (0..self.batch).map(move |n| &x[n * stride + c * p..][..p])
    }
}

/// Per channel mean and biased variance over the batch and the plane (two passes).
pub fn channel_moments<T: NormFloat>(x: &[T], s: Planes) -> (Vec<T>, Vec<T>) {
    let count = T::from((s.batch * s.plane) as f64);
    parallel::map_tasks_of_work(x.len(), s.channels, |c| {
        super::simd::vectorized(
            #[inline(always)]
            || {
                let mean = s.channel_planes(x, c).fold(T::default(), |a, p| a.add(sum1(p, |v| v))).div(count);
                let var = s
                    .channel_planes(x, c)
                    .fold(T::default(), |a, p| {
                        a.add(sum1(p, |v| {
                            let d = v.sub(mean);
                            d.mul(d)
                        }))
                    })
                    .div(count);
                (mean, var)
            },
        )
    })
    .into_iter()
    .unzip()
}

/// `(x - mean) * rstd * weight + bias` per channel.
pub fn batch_norm<T: NormFloat>(x: &[T], s: Planes, mean: &[T], rstd: &[T], weight: Option<&[T]>, bias: Option<&[T]>) -> Result<Vec<T>> {
    if s.plane == 0 {
        return filled(x.len(), T::default());
    }
    // Every plane is written whole: no zero fill first.
    written_output(x.len(), |out| {
        for_blocks(out, s.plane, |start, o| {
            let c = (start / s.plane) % s.channels;
            let scale = weight.map_or(rstd[c], |w| rstd[c].mul(w[c]));
            let shift = bias.map_or(T::default(), |b| b[c]).sub(mean[c].mul(scale));
            let x = &x[start..start + o.len()];
            super::simd::vectorized(
                #[inline(always)]
                || {
                    for (o, &v) in o.iter_mut().zip(x) {
                        *o = MaybeUninit::new(v.mul(scale).add(shift));
                    }
                },
            )
        })
    })
}

/// Gradients of a batch norm: of `x` (when `want_x`; `training`: through the batch statistics
/// too), and per channel the sums of `g * xhat` and of `g` (weight's and bias's gradients).
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_backward<T: NormFloat>(
    x: &[T],
    g: &[T],
    s: Planes,
    weight: Option<&[T]>,
    mean: &[T],
    rstd: &[T],
    training: bool,
    want_x: bool,
) -> Result<BatchNormGrads<T>> {
    let sums = parallel::map_tasks_of_work(2 * x.len(), s.channels, |c| {
        super::simd::vectorized(
            #[inline(always)]
            || {
                let (m, rs) = (mean[c], rstd[c]);
                s.channel_planes(x, c).zip(s.channel_planes(g, c)).fold((T::default(), T::default()), |(a, b), (xp, gp)| {
                    (a.add(sum2(gp, xp, |gv, v| gv.mul(v.sub(m).mul(rs)))), b.add(sum1(gp, |v| v)))
                })
            },
        )
    });
    let (sum_gx, sum_g): (Vec<T>, Vec<T>) = sums.into_iter().unzip();
    let dx = want_x.then(|| {
        let inv_count = T::from(1.0 / (s.batch * s.plane) as f64);
        if s.plane == 0 {
            return filled(x.len(), T::default());
        }
        // Every plane is written whole: no zero fill first.
        written_output(x.len(), |dx| {
            for_blocks(dx, s.plane, |start, d| {
                let c = (start / s.plane) % s.channels;
                let (m, rs) = (mean[c], rstd[c]);
                let k = weight.map_or(rs, |w| rs.mul(w[c]));
                let (xp, gp) = (&x[start..start + d.len()], &g[start..start + d.len()]);
                super::simd::vectorized(
                    #[inline(always)]
                    || {
                        if training {
                            let (a, b) = (sum_g[c].mul(inv_count), sum_gx[c].mul(inv_count));
                            for ((o, &gv), &v) in d.iter_mut().zip(gp).zip(xp) {
                                *o = MaybeUninit::new(k.mul(gv.sub(a).sub(v.sub(m).mul(rs).mul(b))));
                            }
                        } else {
                            for (o, &gv) in d.iter_mut().zip(gp) {
                                *o = MaybeUninit::new(k.mul(gv));
                            }
                        }
                    },
                )
            })
        })
    });
    Ok((dx.transpose()?, sum_gx, sum_g))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize) -> Vec<f64> {
        (0..n).map(|i| ((i * 7919 % 97) as f64 / 13.0) - 3.0).collect()
    }

    #[test]
    fn softmax_rows_and_columns_agree_with_the_definition() {
        for (outer, len, inner) in [(3, 5, 1), (2, 19, 3), (1, 1, 4), (4, 33, 1)] {
            let x = values(outer * len * inner);
            let l = Lanes { outer, len, inner };
            let (s, ls) = (softmax(&x, l, false).unwrap(), softmax(&x, l, true).unwrap());
            for o in 0..outer {
                for i in 0..inner {
                    let at = |j: usize| o * len * inner + j * inner + i;
                    let total: f64 = (0..len).map(|j| x[at(j)].exp()).sum();
                    for j in 0..len {
                        let want = x[at(j)].exp() / total;
                        assert!((s[at(j)] - want).abs() < 1e-12);
                        assert!((ls[at(j)] - want.ln()).abs() < 1e-12);
                    }
                }
            }
        }
    }

    #[test]
    fn softmax_of_a_row_of_minus_infinity_is_nan() {
        let x = [f32::NEG_INFINITY; 4];
        assert!(softmax(&x, Lanes { outer: 1, len: 4, inner: 1 }, false).unwrap().iter().all(|v| v.is_nan()));
    }

    #[test]
    fn layer_norm_rows_have_zero_mean_and_unit_variance() {
        let x = values(6 * 10);
        let (out, mean, rstd) = layer_norm(&x, 10, None, None, 0.0).unwrap();
        assert_eq!((mean.len(), rstd.len()), (6, 6));
        for row in out.chunks(10) {
            let m: f64 = row.iter().sum::<f64>() / 10.0;
            let v: f64 = row.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / 10.0;
            assert!(m.abs() < 1e-12 && (v - 1.0).abs() < 1e-10);
        }
    }

    #[test]
    fn batch_norm_channels_have_zero_mean_and_unit_variance() {
        let s = Planes { batch: 3, channels: 4, plane: 5 };
        let x = values(60);
        let (mean, var) = channel_moments(&x, s);
        let rstd: Vec<f64> = var.iter().map(|v| 1.0 / v.sqrt()).collect();
        let out = batch_norm(&x, s, &mean, &rstd, None, None).unwrap();
        for c in 0..4 {
            let vals: Vec<f64> = s.channel_planes(&out, c).flatten().copied().collect();
            let m = vals.iter().sum::<f64>() / 15.0;
            let v = vals.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / 15.0;
            assert!(m.abs() < 1e-12 && (v - 1.0).abs() < 1e-10);
        }
    }
}
