//! 2-D max pooling: the maximum of each window and where in its plane it was found.

use crate::backend::Array;
use crate::cpu::buffer::{filled, FirstError};
use crate::cpu::cast::dense_slice;
use crate::cpu::parallel::{for_each_exact_chunk_pair, get_num_threads, worth_splitting};
use crate::cpu::simd::dispatch;
use crate::dtype::Element;
use crate::error::Result;
use crate::ops::pool_geometry::PoolGeom;
use std::hint::select_unpredictable;

/// The maxima (contiguous `planes x oh x ow`) and their flat positions within each input plane.
/// NaN wins over any number, as in PyTorch.
pub fn max_pool2d<T: Element>(x: &[T], g: &PoolGeom) -> Result<(Vec<T>, Vec<i64>)> {
    let [h, w] = g.in_size;
    let out_plane = g.out_size[0] * g.out_size[1];
    let mut values = filled(g.planes * out_plane, T::zero())?;
    let mut indices = filled(g.planes * out_plane, 0i64)?;
    // The input rows and columns of every window, computed once for all planes.
    let rows: Vec<Vec<usize>> = (0..g.out_size[0]).map(|o| g.taps(0, o).collect()).collect();
    let cols: Vec<Vec<usize>> = (0..g.out_size[1]).map(|o| g.taps(1, o).collect()).collect();
    // Without padding or dilation, and with every window inside the input (ceil mode can end
    // one past it), each window row is one contiguous run of the input row.
    let fits = |a: usize| g.out_size[a] == 0 || (g.out_size[a] - 1) * g.stride[a] + g.kernel[a] <= g.in_size[a];
    let dense = g.padding == [0, 0] && g.dilation == [1, 1] && fits(0) && fits(1);
    let [kh, kw] = g.kernel;
    let [sy, sx] = g.stride;
    let [oh, ow] = g.out_size;
    let window_scan = |src: &[T], vals: &mut [T], idx: &mut [i64]| {
        for (oy, ys) in rows.iter().enumerate() {
            for (ox, xs) in cols.iter().enumerate() {
                // Callers check `windows_overlap_input`, so every window has a first tap.
                let mut at = ys[0] * w + xs[0];
                let mut best = src[at];
                for &iy in ys {
                    for &ix in xs {
                        let v = src[iy * w + ix];
                        let wins = challenges(v, best);
                        best = select_unpredictable(wins, v, best);
                        at = select_unpredictable(wins, iy * w + ix, at);
                    }
                }
                vals[oy * ow + ox] = best;
                idx[oy * ow + ox] = at as i64;
            }
        }
    };
    // Planes `p0..` whose maxima go to `vals` and `idx`.
    let planes = |p0: usize, vals: &mut [T], idx: &mut [i64]| {
        let src = &x[p0 * h * w..][..vals.len() / out_plane * h * w];
        if dense {
            // A constant stride (the usual 2, or 1) lets the strided loads vectorise.
            let (kernel, stride) = ([kh, kw], [sy, sx]);
            return match sx {
                1 => dispatch(DensePlanes::<T, 1> { src, h, w, oh, ow, kernel, stride, best: vals, at: idx }),
                2 => dispatch(DensePlanes::<T, 2> { src, h, w, oh, ow, kernel, stride, best: vals, at: idx }),
                _ => dispatch(DensePlanes::<T, 0> { src, h, w, oh, ow, kernel, stride, best: vals, at: idx }),
            };
        }
        for ((src, vals), idx) in src.chunks_exact(h * w).zip(vals.chunks_exact_mut(out_plane)).zip(idx.chunks_exact_mut(out_plane)) {
            window_scan(src, vals, idx);
        }
        Ok(())
    };
    if out_plane == 0 {
        return Ok((values, indices));
    }
    let work = values.len() * g.kernel[0] * g.kernel[1];
    if worth_splitting(work) {
        // A few tasks per thread, each of whole planes.
        let chunk = g.planes.div_ceil(4 * get_num_threads()) * out_plane;
        let failed = FirstError::default();
        for_each_exact_chunk_pair(&mut values, chunk, &mut indices, chunk, |i, v, idx| {
            if let Err(e) = planes(i * chunk / out_plane, v, idx) {
                failed.set(e);
            }
        });
        failed.or_ok((values, indices))
    } else {
        planes(0, &mut values, &mut indices)?;
        Ok((values, indices))
    }
}

/// `Backend::max_pool2d` on the host, for every dtype: the maxima (of `out_shape`) and their
/// positions, from the input made dense.
pub fn max_pool2d_op(x: &Array, g: &PoolGeom, out_shape: &[usize]) -> Result<(Array, Array)> {
    crate::with_dtype!(x.dtype(), T => {
        let (values, positions) = dense_slice::<T, _>(x, "max_pool2d", |s| max_pool2d(s, g))??;
        Ok((Array::from_vec(values, out_shape)?, Array::from_vec(positions, out_shape)?))
    })
}

/// The maxima of the windows of consecutive `h x w` planes when they all lie inside them, under
/// one SIMD dispatch: a plane's rows are short (a dozen windows), so a dispatch per row and tap
/// would cost more than the comparisons. Taps go in each window's row-major order, as a
/// window-at-a-time scan would take them, but each tap is applied to a whole row of `ow`
/// windows at once: that loop vectorises, where one window alone is a serial chain of selects.
/// `S` is the column stride when known at compile time (0: read it from `stride`).
struct DensePlanes<'a, T, const S: usize> {
    src: &'a [T],
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    kernel: [usize; 2],
    stride: [usize; 2],
    best: &'a mut [T],
    at: &'a mut [i64],
}

impl<T: Element, const S: usize> pulp::WithSimd for DensePlanes<'_, T, S> {
    /// Fails only for the scratch of the 2x2 case.
    type Output = Result<()>;
    #[inline(always)]
    fn with_simd<Sd: pulp::Simd>(self, _: Sd) -> Result<()> {
        let ([kh, kw], [sy, sx]) = (self.kernel, self.stride);
        let stride = if S == 0 { sx } else { S };
        let ow = self.ow;
        if ow == 0 {
            return Ok(());
        }
        let out_plane = self.oh * ow;
        let planes =
            self.src.chunks_exact(self.h * self.w).zip(self.best.chunks_exact_mut(out_plane).zip(self.at.chunks_exact_mut(out_plane)));
        if S == 2 && (kh, kw, sy) == (2, 2, 2) {
            // Scratch for the pairs of one plane, shared by the planes.
            let mut pairs = (filled(2 * out_plane, T::zero())?, filled(2 * out_plane, 0i64)?);
            for (src, (best, at)) in planes {
                pool_2x2(src, self.w, ow, best, at, &mut pairs);
            }
            return Ok(());
        }
        for (src, (best, at)) in planes {
            for (oy, (best, at)) in best.chunks_exact_mut(ow).zip(at.chunks_exact_mut(ow)).enumerate() {
                for ky in 0..kh {
                    for kx in 0..kw {
                        let tap = oy * sy * self.w + ky * self.w + kx;
                        tap_pass(&src[tap..][..(ow - 1) * stride + 1], tap, stride, ky == 0 && kx == 0, best, at);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether `v` takes over from the running maximum `m`: a greater value, or a NaN (it beats
/// everything); the first NaN stays. Non-short-circuit `|`/`&` keep it branch-free.
#[inline(always)]
#[allow(clippy::eq_op)] // `x != x` is the NaN test an `Element` of any dtype has
fn challenges<T: Element>(v: T, m: T) -> bool {
    ((v > m) | (v != v)) & (m == m)
}

/// 2x2 windows with stride 2, the usual pooling, over one plane `w` wide (the windows of `ow`
/// columns all inside it), in two passes whose loops are long enough to vectorise (a window
/// row is only a dozen windows): the maximum of each horizontal pair of every used row, then
/// of each vertical pair of those. Pairs before rows is a window's row-major order, so ties
/// and NaNs resolve as a scan of each window would.
#[inline(always)]
fn pool_2x2<T: Element>(src: &[T], w: usize, ow: usize, best: &mut [T], at: &mut [i64], (hv, hi): &mut (Vec<T>, Vec<i64>)) {
    let oh = best.len() / ow;
    let pairs = 2 * oh * ow;
    // Pairs `k0..` of `row` (whose first element is input position `first`) into `hv`/`hi`.
    let mut pairs_of = |row: &[T], first: usize, k0: usize| {
        let n = row.len() / 2;
        let (hv, hi) = (&mut hv[k0..][..n], &mut hi[k0..][..n]);
        for k in 0..n {
            let (a, b) = (row[2 * k], row[2 * k + 1]);
            let wins = challenges(b, a);
            hv[k] = select_unpredictable(wins, b, a);
            hi[k] = (first + 2 * k + wins as usize) as i64;
        }
    };
    if w == 2 * ow {
        // Rows hold whole pairs: the used rows are one run of pairs.
        pairs_of(&src[..2 * pairs], 0, 0);
    } else {
        for r in 0..2 * oh {
            pairs_of(&src[r * w..][..2 * ow], r * w, r * ow);
        }
    }
    let (hv, hi) = (&hv[..pairs], &hi[..pairs]);
    for (oy, (best, at)) in best.chunks_exact_mut(ow).zip(at.chunks_exact_mut(ow)).enumerate() {
        let (upper, lower) = (&hv[2 * oy * ow..][..ow], &hv[(2 * oy + 1) * ow..][..ow]);
        let (upper_at, lower_at) = (&hi[2 * oy * ow..][..ow], &hi[(2 * oy + 1) * ow..][..ow]);
        for ox in 0..ow {
            let wins = challenges(lower[ox], upper[ox]);
            best[ox] = select_unpredictable(wins, lower[ox], upper[ox]);
            at[ox] = select_unpredictable(wins, lower_at[ox], upper_at[ox]);
        }
    }
}

/// One tap of a row of windows: `row[ox * stride]` (input position `tap + ox * stride`)
/// challenges window `ox`'s maximum, or starts it for the `first` tap. `row` is sliced to
/// exactly the elements read, so the loop needs no bounds checks.
#[inline(always)]
fn tap_pass<T: Element>(row: &[T], tap: usize, stride: usize, first: bool, best: &mut [T], at: &mut [i64]) {
    let n = best.len().min(at.len());
    let (best, at) = (&mut best[..n], &mut at[..n]);
    if first {
        for (ox, (b, a)) in best.iter_mut().zip(at.iter_mut()).enumerate() {
            *b = row[ox * stride];
            *a = (tap + ox * stride) as i64;
        }
        return;
    }
    for ox in 0..n {
        let v = row[ox * stride];
        let b = best[ox];
        let wins = challenges(v, b);
        best[ox] = select_unpredictable(wins, v, b);
        at[ox] = select_unpredictable(wins, (tap + ox * stride) as i64, at[ox]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_window_maxima_and_their_positions() {
        // one 3x4 plane, 2x2 windows, stride 2
        let x = [1.0f32, 5.0, 2.0, 0.0, 3.0, 4.0, 9.0, 8.0, 7.0, 6.0, 1.0, 1.0];
        let g =
            PoolGeom { planes: 1, in_size: [3, 4], out_size: [1, 2], kernel: [2, 2], stride: [2, 2], padding: [0, 0], dilation: [1, 1] };
        let (v, i) = max_pool2d(&x, &g).unwrap();
        assert_eq!(v, vec![5.0, 9.0]);
        assert_eq!(i, vec![1, 6]);
    }

    /// Dense windows of several strides and sizes (ties and a NaN included) against a direct
    /// scan of each window.
    #[test]
    fn dense_rows_match_a_window_scan() {
        // Even widths let 2x2 pooling pair a plane's rows as one run; odd ones do not.
        for (h, w) in [(7, 9), (6, 27), (6, 26), (5, 8)] {
            let mut x: Vec<f32> = (0..2 * h * w).map(|i| ((i * 37) % 11) as f32).collect();
            x[20] = f32::NAN;
            x[h * w + 7] = f32::NAN;
            for (k, s) in [([2, 2], [2, 2]), ([3, 2], [1, 1]), ([2, 3], [1, 3]), ([3, 3], [2, 1])] {
                let out = [(h - k[0]) / s[0] + 1, (w - k[1]) / s[1] + 1];
                let g = PoolGeom { planes: 2, in_size: [h, w], out_size: out, kernel: k, stride: s, padding: [0, 0], dilation: [1, 1] };
                let (v, idx) = max_pool2d(&x, &g).unwrap();
                for p in 0..2 {
                    for oy in 0..out[0] {
                        for ox in 0..out[1] {
                            let mut at = (oy * s[0]) * w + ox * s[1];
                            for ky in 0..k[0] {
                                for kx in 0..k[1] {
                                    let i = (oy * s[0] + ky) * w + ox * s[1] + kx;
                                    let (cand, best) = (x[p * h * w + i], x[p * h * w + at]);
                                    if !best.is_nan() && (cand > best || cand.is_nan()) {
                                        at = i;
                                    }
                                }
                            }
                            let o = (p * out[0] + oy) * out[1] + ox;
                            assert_eq!(idx[o], at as i64, "kernel {k:?} stride {s:?} at {o}");
                            assert_eq!(v[o].to_bits(), x[p * h * w + at].to_bits());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn nan_wins() {
        let x = [1.0f64, f64::NAN, 3.0, 2.0];
        let g =
            PoolGeom { planes: 1, in_size: [2, 2], out_size: [1, 1], kernel: [2, 2], stride: [2, 2], padding: [0, 0], dilation: [1, 1] };
        let (v, i) = max_pool2d(&x, &g).unwrap();
        assert!(v[0].is_nan());
        assert_eq!(i, vec![1]);
    }
}
