//! Running sums and products along one dim, written in the input's shape: rows scanned in
//! place when the dim is last, and whole rows added at a time when it is not (dim 0 of a
//! matrix), instead of copying each lane out and moving the dim back after. `reverse` runs from
//! the end of each lane: cumsum's gradient, without flipping the gradient twice.
//!
//! Float32 accumulates in float64, as PyTorch's CPU does; every lane is accumulated in order on
//! one thread, so the results do not depend on the thread count. Float32 sums along contiguous
//! rows take `scan_f32`'s AVX-512 prefix sums where the CPU has them.

use std::mem::MaybeUninit;

use crate::backend::Array;
use crate::cpu::cast::dense_slice;
use crate::cpu::num::Arith;
use crate::cpu::parallel::for_each_chunk_weighted;
use crate::cpu::simd::vectorized;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};

/// cumsum (cumprod when `product`) of a float32, float64 or int64 array along `dim`, in x's
/// shape; from the end of each lane when `reverse`.
pub fn scan(x: &Array, dim: usize, product: bool, reverse: bool) -> Result<Array> {
    let shape = x.shape();
    let (outer, len, inner) = (shape[..dim].iter().product::<usize>(), shape[dim], shape[dim + 1..].iter().product::<usize>());
    let name = if product { "cumprod" } else { "cumsum" };
    let dims = Dims { outer, len, inner, product, reverse };
    #[cfg(target_arch = "x86_64")]
    if x.dtype() == DType::F32 && !product && inner == 1 {
        if let Some(simd) = crate::cpu::simd::avx512() {
            return Array::from_vec(dense_slice::<f32, _>(x, name, |s| super::scan_f32::sum_rows(simd, s, len, reverse))??, shape);
        }
    }
    match x.dtype() {
        DType::F32 => Array::from_vec(dense_slice::<f32, _>(x, name, |s| run(s, dims, |v: f32| v as f64, |a: f64| a as f32))??, shape),
        DType::F64 => Array::from_vec(dense_slice::<f64, _>(x, name, |s| run(s, dims, |v: f64| v, |a: f64| a))??, shape),
        DType::I64 => Array::from_vec(dense_slice::<i64, _>(x, name, |s| run(s, dims, |v: i64| v, |a: i64| a))??, shape),
        dt => Err(Error::Runtime(format!("{name}: scan of {} (float32, float64 or int64 expected)", dt.title_name()))),
    }
}

#[derive(Clone, Copy)]
struct Dims {
    outer: usize,
    len: usize,
    inner: usize,
    product: bool,
    reverse: bool,
}

fn run<T: Element, A: Arith + Send + Sync>(
    x: &[T],
    d: Dims,
    widen: impl Fn(T) -> A + Sync,
    narrow: impl Fn(A) -> T + Sync,
) -> Result<Vec<T>> {
    // Sum or product chosen here, once: decided inside the loop, the flag was reloaded from
    // memory at every element (the output stores may alias it), and cumsum along rows ran at
    // half PyTorch's speed.
    if d.product {
        scan_with(x, d, A::one(), |a: A, v: T| a.mul(widen(v)), narrow)
    } else {
        scan_with(x, d, A::zero(), |a: A, v: T| a.add(widen(v)), narrow)
    }
}

fn scan_with<T: Element, A: Arith + Send + Sync>(
    x: &[T],
    d: Dims,
    start: A,
    fold: impl Fn(A, T) -> A + Sync,
    narrow: impl Fn(A) -> T + Sync,
) -> Result<Vec<T>> {
    let block = d.len * d.inner;
    if block == 0 || d.outer == 0 {
        return crate::cpu::buffer::filled(x.len(), T::zero());
    }
    // Every element is written below (each lane whole), so the output skips the zero fill.
    crate::cpu::buffer::written_output(x.len(), |out| {
        for_each_chunk_weighted(out, block, 1, |first, chunk| {
            let mut done = 0;
            // Rows a multiple of 4 KiB apart put all the lanes' input and output lines in one
            // L1 set, which sixteen streams overflow: there one lane at a time runs faster
            // (1024-wide float32 rows: 1.1 ms a row at a time, 1.9 ms in groups of 8, on a
            // standalone copy of these loops).
            let aliased = (block * std::mem::size_of::<T>()).is_multiple_of(4096);
            if d.inner == 1 && !aliased {
                // LANES lanes scanned side by side: each lane's running value still takes its
                // elements in order (the same results), but LANES independent chains of adds or
                // multiplies overlap, where one lane at a time waited out each one's latency
                // (cumsum along rows ran at 0.6x PyTorch).
                const LANES: usize = 8;
                for (g, o) in chunk.chunks_exact_mut(block * LANES).enumerate() {
                    let xg = &x[first + g * block * LANES..][..block * LANES];
                    // The lanes as their own slices, so that the loop indexes each by its step
                    // alone (indexed from the group's start, it kept recomputing offsets and
                    // reloading captured values between the stores).
                    let rows: [&[T]; LANES] = std::array::from_fn(|l| &xg[l * block..][..block]);
                    let mut out_rows = o.chunks_exact_mut(block);
                    let outs: [&mut [MaybeUninit<T>]; LANES] = std::array::from_fn(|_| out_rows.next().unwrap_or_default());
                    if d.reverse {
                        scan_group(rows, outs, (0..block).rev(), start, &fold, &narrow);
                    } else {
                        scan_group(rows, outs, 0..block, start, &fold, &narrow);
                    }
                    done += LANES;
                }
            }
            for (b, o) in chunk.chunks_mut(block).enumerate().skip(done) {
                let xb = &x[first + b * block..][..block];
                if d.inner == 1 {
                    if d.reverse {
                        scan_group([xb], [o], (0..block).rev(), start, &fold, &narrow);
                    } else {
                        scan_group([xb], [o], 0..block, start, &fold, &narrow);
                    }
                    continue;
                }
                // Whole rows of `inner` at a time: each column keeps its own running value.
                let mut acc = vec![start; d.inner];
                for i in 0..d.len {
                    let j = (if d.reverse { d.len - 1 - i } else { i }) * d.inner;
                    let (orow, xrow) = (&mut o[j..j + d.inner], &xb[j..j + d.inner]);
                    vectorized(
                        #[inline(always)]
                        || {
                            for ((o, &v), a) in orow.iter_mut().zip(xrow).zip(acc.iter_mut()) {
                                *a = fold(*a, v);
                                o.write(narrow(*a));
                            }
                        },
                    );
                }
            }
        })
    })
}

/// Scans `L` lanes of one length side by side, stepping through `order` (forward or reverse).
#[inline(always)]
fn scan_group<T: Copy, A: Copy, const L: usize>(
    rows: [&[T]; L],
    outs: [&mut [MaybeUninit<T>]; L],
    order: impl Iterator<Item = usize>,
    start: A,
    fold: &impl Fn(A, T) -> A,
    narrow: &impl Fn(A) -> T,
) {
    let mut acc = [start; L];
    for j in order {
        for l in 0..L {
            acc[l] = fold(acc[l], rows[l][j]);
            outs[l][j].write(narrow(acc[l]));
        }
    }
}

/// cumprod's input gradient along `dim` from the incoming gradient `g`, the input `x` and the
/// result `y` (one float dtype and shape): `grad_k = y_(k-1) * H_k` with the exclusive prefix
/// product `y_(k-1)` (1 at the lane's start) and `H_k = g_k + x_(k+1) * H_(k+1)`, the sum over
/// `j >= k` of `g_j` times the product of `x` over `k < i <= j`, built from the lane's end. No
/// division: inputs holding zeros get PyTorch's finite gradient (`sum(g * y) / x` gave 0/0 =
/// NaN there), and one pass replaces that formula's three. Accumulates in float64.
pub fn cumprod_backward(g: &Array, x: &Array, y: &Array, dim: usize) -> Result<Array> {
    let shape = x.shape();
    let (outer, len, inner) = (shape[..dim].iter().product::<usize>(), shape[dim], shape[dim + 1..].iter().product::<usize>());
    fn go<T: Element>(
        g: &Array,
        x: &Array,
        y: &Array,
        dims: (usize, usize, usize),
        widen: impl Fn(T) -> f64 + Sync + Copy,
        narrow: impl Fn(f64) -> T + Sync + Copy,
    ) -> Result<Vec<T>> {
        const NAME: &str = "cumprod_backward";
        dense_slice::<T, _>(g, NAME, |g| {
            dense_slice::<T, _>(x, NAME, |x| dense_slice::<T, _>(y, NAME, |y| backward_lanes(g, x, y, dims, widen, narrow)))
        })???
    }
    let dims = (outer, len, inner);
    match x.dtype() {
        DType::F32 => Array::from_vec(go::<f32>(g, x, y, dims, |v: f32| v as f64, |a: f64| a as f32)?, shape),
        DType::F64 => Array::from_vec(go::<f64>(g, x, y, dims, |v: f64| v, |a: f64| a)?, shape),
        dt => Err(Error::Runtime(format!("cumprod_backward: {} is not float32 or float64", dt.title_name()))),
    }
}

fn backward_lanes<T: Element>(
    g: &[T],
    x: &[T],
    y: &[T],
    (outer, len, inner): (usize, usize, usize),
    widen: impl Fn(T) -> f64 + Sync + Copy,
    narrow: impl Fn(f64) -> T + Sync + Copy,
) -> Result<Vec<T>> {
    let mut out = crate::cpu::buffer::filled(x.len(), T::zero())?;
    let block = len * inner;
    if block == 0 || outer == 0 {
        return Ok(out);
    }
    for_each_chunk_weighted(&mut out, block, 2, |first, chunk| {
        let mut done = 0;
        if inner == 1 {
            // Eight lanes side by side, as in `run`: their chains of multiply-adds overlap. The
            // lanes' rows lie `block` apart, for a power-of-two row all in one cache set: walked
            // a step at a time, 8 rows of 4 arrays are 32 lines that an 8-way L1 (AMD Zen 4)
            // cannot hold, and 1024x1024 float32 took 15 ms. So TILE steps of each row are read
            // into registers' reach (and the results written back) a whole line at a time.
            const LANES: usize = 8;
            const TILE: usize = 16;
            for (grp, o) in chunk.chunks_exact_mut(block * LANES).enumerate() {
                let at = first + grp * block * LANES;
                let (gg, xg, yg) = (&g[at..][..block * LANES], &x[at..][..block * LANES], &y[at..][..block * LANES]);
                let mut h = [0.0f64; LANES];
                let mut hi = len;
                while hi > 0 {
                    let lo = hi.saturating_sub(TILE);
                    // Steps lo..hi of each lane: g, the next step's x and the previous step's y
                    // (each read only where the recurrence uses it).
                    let (mut gt, mut xt, mut yt, mut ot) =
                        ([[0.0f64; LANES]; TILE], [[0.0f64; LANES]; TILE], [[0.0f64; LANES]; TILE], [[0.0f64; LANES]; TILE]);
                    for l in 0..LANES {
                        let r = l * block;
                        for k in lo..hi {
                            gt[k - lo][l] = widen(gg[r + k]);
                            if k + 1 < len {
                                xt[k - lo][l] = widen(xg[r + k + 1]);
                            }
                            if k > 0 {
                                yt[k - lo][l] = widen(yg[r + k - 1]);
                            }
                        }
                    }
                    for k in (lo..hi).rev() {
                        let t = k - lo;
                        for (l, h) in h.iter_mut().enumerate() {
                            *h = if k + 1 < len { gt[t][l] + xt[t][l] * *h } else { gt[t][l] };
                            ot[t][l] = if k == 0 { *h } else { yt[t][l] * *h };
                        }
                    }
                    for l in 0..LANES {
                        for k in lo..hi {
                            o[l * block + k] = narrow(ot[k - lo][l]);
                        }
                    }
                    hi = lo;
                }
                done += LANES;
            }
        }
        for (b, o) in chunk.chunks_mut(block).enumerate().skip(done) {
            let at = first + b * block;
            let (gb, xb, yb) = (&g[at..at + block], &x[at..at + block], &y[at..at + block]);
            if inner == 1 {
                let mut h = 0.0;
                for k in (0..len).rev() {
                    h = if k + 1 < len { widen(gb[k]) + widen(xb[k + 1]) * h } else { widen(gb[k]) };
                    o[k] = narrow(if k == 0 { h } else { widen(yb[k - 1]) * h });
                }
                continue;
            }
            // Whole rows of `inner` at a time, each column its own lane.
            let mut h = vec![0.0f64; inner];
            for k in (0..len).rev() {
                let row = k * inner;
                let (orow, grow) = (&mut o[row..row + inner], &gb[row..row + inner]);
                let next = if k + 1 < len { Some(&xb[row + inner..row + 2 * inner]) } else { None };
                let prev = if k > 0 { Some(&yb[row - inner..row]) } else { None };
                vectorized(
                    #[inline(always)]
                    || {
                        for c in 0..inner {
                            let hc = match next {
                                Some(xn) => widen(grow[c]) + widen(xn[c]) * h[c],
                                None => widen(grow[c]),
                            };
                            h[c] = hc;
                            orow[c] = narrow(match prev {
                                Some(yp) => widen(yp[c]) * hc,
                                None => hc,
                            });
                        }
                    },
                );
            }
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(a: &Array) -> Vec<f64> {
        a.with_slice::<f64, _>("t", |s, _| s.to_vec()).unwrap()
    }

    #[test]
    fn along_rows_and_columns_both_ways() {
        let x = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        assert_eq!(values(&scan(&x, 1, false, false).unwrap()), [1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
        assert_eq!(values(&scan(&x, 1, false, true).unwrap()), [6.0, 5.0, 3.0, 15.0, 11.0, 6.0]);
        assert_eq!(values(&scan(&x, 0, false, false).unwrap()), [1.0, 2.0, 3.0, 5.0, 7.0, 9.0]);
        assert_eq!(values(&scan(&x, 0, false, true).unwrap()), [5.0, 7.0, 9.0, 4.0, 5.0, 6.0]);
        assert_eq!(values(&scan(&x, 1, true, false).unwrap()), [1.0, 2.0, 6.0, 4.0, 20.0, 120.0]);
    }

    #[test]
    fn cumprod_gradient_through_zeros() {
        // x = [2, 0, 3, 0, 5], g = 1: grad_k = sum over j >= k of the product of x over i <= j, i != k.
        let x = Array::from_vec(vec![2.0f64, 0.0, 3.0, 0.0, 5.0], &[5]).unwrap();
        let y = scan(&x, 0, true, false).unwrap();
        let g = Array::from_vec(vec![1.0f64; 5], &[5]).unwrap();
        assert_eq!(values(&cumprod_backward(&g, &x, &y, 0).unwrap()), [1.0, 2.0 + 6.0, 0.0, 0.0, 0.0]);
        // Along dim 0 of a [5, 2] matrix: the same lane in column 0, a lane without zeros in
        // column 1 (x = 1, 2, 3, 4, 5, where grad_k = sum over j >= k of j! / k).
        let m = Array::from_vec(vec![2.0f64, 1.0, 0.0, 2.0, 3.0, 3.0, 0.0, 4.0, 5.0, 5.0], &[5, 2]).unwrap();
        let ym = scan(&m, 0, true, false).unwrap();
        let gm = Array::from_vec(vec![1.0f64; 10], &[5, 2]).unwrap();
        let want = [1.0, 153.0, 8.0, 76.0, 0.0, 50.0, 0.0, 36.0, 0.0, 24.0];
        assert_eq!(values(&cumprod_backward(&gm, &m, &ym, 0).unwrap()), want);
    }
}
