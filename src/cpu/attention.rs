//! Fused, tiled scaled dot-product attention (flash attention) on the host, forward and backward.
//!
//! The forward pass walks the keys in blocks for each block of queries, keeping per query row the
//! running maximum and sum of the exponentials (online softmax) and the running output: no
//! `L x S` score matrix exists, only one `BLOCK_Q x BLOCK_K` tile per task. It saves the output
//! and each row's logsumexp; the backward pass recomputes each tile's probabilities from the
//! logsumexp, as flash attention does. Block products go through `gemm` (one thread per task;
//! the tasks, (batch*head, query block) pairs forward and batch*head backward, run in parallel).

use std::sync::Mutex;

use super::buffer::filled;
use super::cast::dense_slice;
use super::matmul::{gemm_into_scaled, MatMut, MatRef};
use super::norm::{row_max, sum1, NormFloat};
use super::parallel;
use crate::backend::{Array, AttnGrads};
use crate::dtype::DType;
use crate::error::Result;
pub use crate::ops::attention_dims::AttnDims;
use gemm::Parallelism;

/// Query rows per tile: a task's share of the work and the height of its block products.
const BLOCK_Q: usize = 64;
/// Key columns per tile: long enough for gemm to run at speed, short enough that the tile
/// (`BLOCK_Q x BLOCK_K`) stays in L1/L2 with its query and key blocks.
const BLOCK_K: usize = 128;

/// An additive float mask read in place: element `(b, i, j)` at `data[at[b] + i * rs + j * cs]`
/// (strides of zero where it broadcasts).
pub struct MaskRef<'a, T> {
    pub data: &'a [T],
    pub at: Vec<usize>,
    pub rs: usize,
    pub cs: usize,
}

/// The score tile of query rows `q0..q0 + rows` against key columns `k0..k0 + cols` of pair `b`:
/// `scale * q kᵀ + mask`, `-inf` past the causal diagonal. `tile` is row-major `rows x cols`.
#[allow(clippy::too_many_arguments)]
fn scores<T: NormFloat>(
    tile: &mut [T],
    d: &AttnDims,
    q: &[T],
    k: &[T],
    mask: Option<&MaskRef<'_, T>>,
    b: usize,
    (q0, rows): (usize, usize),
    (k0, cols): (usize, usize),
) {
    let qm = MatRef { offset: (b * d.l + q0) * d.e, rs: d.e, cs: 1 };
    // kᵀ: element (p, j) is k[j][p].
    let km = MatRef { offset: (d.kv_of(b) * d.s + k0) * d.e, rs: 1, cs: d.e };
    // SAFETY: the row and column ranges lie inside the (batch, L or S, E) operands.
    unsafe {
        gemm_into_scaled(
            MatMut::new(&mut tile[..rows * cols], cols),
            rows,
            cols,
            d.e,
            q,
            qm,
            k,
            km,
            false,
            T::from(d.scale),
            Parallelism::None,
        )
    };
    if let Some(m) = mask {
        for i in 0..rows {
            let base = m.at[b] + (q0 + i) * m.rs + k0 * m.cs;
            let row = &mut tile[i * cols..(i + 1) * cols];
            if m.cs == 1 {
                for (t, &v) in row.iter_mut().zip(&m.data[base..base + cols]) {
                    *t = t.add(v);
                }
            } else {
                for (j, t) in row.iter_mut().enumerate() {
                    *t = t.add(m.data[base + j * m.cs]);
                }
            }
        }
    }
    if d.causal && k0 + cols > q0 + 1 {
        let minus_inf = T::from(f64::NEG_INFINITY);
        for i in 0..rows {
            // Row q0 + i sees columns up to q0 + i.
            let first_hidden = (q0 + i + 1).saturating_sub(k0).min(cols);
            tile[i * cols + first_hidden..(i + 1) * cols].fill(minus_inf);
        }
    }
}

/// `x` cut into `n` chunks of `len` elements (`n` empty ones when `len` is 0).
fn split_n<T>(x: &mut [T], n: usize, len: usize) -> Vec<&mut [T]> {
    if len == 0 {
        return (0..n).map(|_| &mut [][..]).collect();
    }
    x.chunks_mut(len).collect()
}

/// Runs `f(i)` for `i` in `0..tasks`, on the kernel threads when `work` multiply-adds are worth it.
fn tasks(work: usize, n: usize, f: impl Fn(usize) + Sync) {
    if parallel::worth_splitting(work) && n > 1 {
        parallel::run_tasks(n, f)
    } else {
        (0..n).for_each(f)
    }
}

/// The forward pass: `(out, lse)`, `out` row-major `(batch, L, Ev)` and `lse` `(batch, L)`.
/// `q` is `(batch, L, E)`, `k` / `v` `(batch / group, S, E or Ev)`, all contiguous. A row that
/// sees no key (every score `-inf`) gets a zero output, as PyTorch gives, and a logsumexp of
/// `+inf`, which makes its recomputed probabilities zero in the backward pass.
pub fn forward<T: NormFloat>(q: &[T], k: &[T], v: &[T], mask: Option<&MaskRef<'_, T>>, d: &AttnDims) -> Result<(Vec<T>, Vec<T>)> {
    let mut out = filled(d.batch * d.l * d.ev, T::default())?;
    let mut lse = filled(d.batch * d.l, T::default())?;
    if out.is_empty() {
        // No output: the logsumexp is never read (every gradient is zero).
        return Ok((out, lse));
    }
    let blocks = d.l.div_ceil(BLOCK_Q);
    // One task per (pair, query block): the blocks of a pair are consecutive rows.
    let work: Vec<Mutex<(&mut [T], &mut [T])>> = out
        .chunks_mut(d.l * d.ev)
        .zip(lse.chunks_mut(d.l))
        .flat_map(|(o, s)| o.chunks_mut(BLOCK_Q * d.ev).zip(s.chunks_mut(BLOCK_Q)))
        .map(Mutex::new)
        .collect();
    tasks(d.batch * d.l * d.s * (d.e + d.ev), work.len(), |t| {
        let (o, s) = &mut *work[t].lock().unwrap_or_else(|e| e.into_inner());
        let (b, blk) = (t / blocks, t % blocks);
        super::simd::vectorized(
            #[inline(always)]
            || forward_block(q, k, v, mask, d, b, blk * BLOCK_Q, o, s),
        )
    });
    Ok((out, lse))
}

/// One query block's output rows `o` and logsumexps `lse` (see `forward`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn forward_block<T: NormFloat>(
    q: &[T],
    k: &[T],
    v: &[T],
    mask: Option<&MaskRef<'_, T>>,
    d: &AttnDims,
    b: usize,
    q0: usize,
    o: &mut [T],
    lse: &mut [T],
) {
    let rows = lse.len();
    let minus_inf = T::from(f64::NEG_INFINITY);
    let (zero, one) = (T::from(0.0), T::from(1.0));
    let mut tile = vec![zero; rows * BLOCK_K];
    let mut max = vec![minus_inf; rows];
    let mut sum = vec![zero; rows];
    o.fill(zero);
    let k_end = d.key_end(q0, rows);
    for k0 in (0..k_end).step_by(BLOCK_K) {
        let cols = BLOCK_K.min(k_end - k0);
        scores(&mut tile, d, q, k, mask, b, (q0, rows), (k0, cols));
        for i in 0..rows {
            let row = &mut tile[i * cols..(i + 1) * cols];
            // Lane-wise max and sum (fixed order), so the loops vectorise.
            let m = row_max(row).max_nan(max[i]);
            if m == minus_inf {
                // Nothing seen yet in this row: no weight from this tile.
                row.fill(zero);
                continue;
            }
            for x in row.iter_mut() {
                *x = x.sub(m).exp_();
            }
            let s = sum1(row, |x| x);
            if max[i] == minus_inf {
                // The row's first weights: nothing gathered to rescale.
                sum[i] = s;
                max[i] = m;
                continue;
            }
            // Rescale what the row gathered so far to the new maximum.
            let shrink = max[i].sub(m).exp_();
            if shrink != one {
                for x in &mut o[i * d.ev..(i + 1) * d.ev] {
                    *x = x.mul(shrink);
                }
            }
            sum[i] = sum[i].mul(shrink).add(s);
            max[i] = m;
        }
        let pm = MatRef { offset: 0, rs: cols, cs: 1 };
        let vm = MatRef { offset: (d.kv_of(b) * d.s + k0) * d.ev, rs: d.ev, cs: 1 };
        // SAFETY: the tile holds rows x cols; the value rows k0..k0 + cols lie inside `v`.
        unsafe { gemm_into_scaled(MatMut::new(o, d.ev), rows, d.ev, cols, &tile, pm, v, vm, true, one, Parallelism::None) };
    }
    for i in 0..rows {
        let row = &mut o[i * d.ev..(i + 1) * d.ev];
        if sum[i] == zero {
            row.fill(zero);
            lse[i] = T::from(f64::INFINITY);
            continue;
        }
        let r = one.div(sum[i]);
        for x in row.iter_mut() {
            *x = x.mul(r);
        }
        lse[i] = max[i].add(sum[i].ln_());
    }
}

/// The gradients of `forward`: `(dq, dk, dv, dmask)`, `dk` / `dv` over the key/value pairs
/// (summed over the query heads of a group) and `dmask`, the gradient of the scores
/// `(batch, L, S)`, only when `want_mask` (a float mask that requires grad: its gradient has
/// that size anyway).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn backward<T: NormFloat>(
    q: &[T],
    k: &[T],
    v: &[T],
    mask: Option<&MaskRef<'_, T>>,
    out: &[T],
    lse: &[T],
    g: &[T],
    d: &AttnDims,
    want_mask: bool,
) -> Result<(Vec<T>, Vec<T>, Vec<T>, Option<Vec<T>>)> {
    let zero = T::from(0.0);
    let mut dq = filled(d.batch * d.l * d.e, zero)?;
    if d.ev == 0 {
        // No output: every gradient is zero (and `forward` left the logsumexp unset).
        let kv = d.batch / d.group;
        return Ok((dq, filled(kv * d.s * d.e, zero)?, vec![], want_mask.then(|| filled(d.batch * d.l * d.s, zero)).transpose()?));
    }
    // Per query pair; summed over each group below.
    let mut dk = filled(d.batch * d.s * d.e, zero)?;
    let mut dv = filled(d.batch * d.s * d.ev, zero)?;
    let mut dmask = if want_mask { filled(d.batch * d.l * d.s, zero)? } else { vec![] };
    let (n, e, ev, l, s) = (d.batch, d.e, d.ev, d.l, d.s);
    let work: Vec<Mutex<_>> = split_n(&mut dq, n, l * e)
        .into_iter()
        .zip(split_n(&mut dk, n, s * e))
        .zip(split_n(&mut dv, n, s * ev))
        .zip(split_n(&mut dmask, n, if want_mask { l * s } else { 0 }))
        .map(|(((dq, dk), dv), dm)| Mutex::new((dq, dk, dv, dm)))
        .collect();
    tasks(n * l * s * (2 * e + 2 * ev), work.len(), |b| {
        let (dq, dk, dv, dm) = &mut *work[b].lock().unwrap_or_else(|e| e.into_inner());
        super::simd::vectorized(
            #[inline(always)]
            || backward_pair(q, k, v, mask, out, lse, g, d, b, dq, dk, dv, dm),
        )
    });
    drop(work);
    if d.group > 1 {
        let kv_pairs = d.batch / d.group;
        let (mut dk_sum, mut dv_sum) = (filled(kv_pairs * d.s * d.e, zero)?, filled(kv_pairs * d.s * d.ev, zero)?);
        for b in 0..d.batch {
            let kv = d.kv_of(b);
            for (sum, part, w) in [(&mut dk_sum, &dk, d.e), (&mut dv_sum, &dv, d.ev)] {
                let len = d.s * w;
                for (x, &y) in sum[kv * len..(kv + 1) * len].iter_mut().zip(&part[b * len..(b + 1) * len]) {
                    *x = x.add(y);
                }
            }
        }
        dk = dk_sum;
        dv = dv_sum;
    }
    Ok((dq, dk, dv, want_mask.then_some(dmask)))
}

/// The gradients of one (batch, head) pair `b`, its query blocks in turn.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn backward_pair<T: NormFloat>(
    q: &[T],
    k: &[T],
    v: &[T],
    mask: Option<&MaskRef<'_, T>>,
    out: &[T],
    lse: &[T],
    g: &[T],
    d: &AttnDims,
    b: usize,
    dq: &mut [T],
    dk: &mut [T],
    dv: &mut [T],
    dmask: &mut [T],
) {
    let zero = T::from(0.0);
    let scale = T::from(d.scale);
    let mut p = vec![zero; BLOCK_Q * BLOCK_K];
    let mut dp = vec![zero; BLOCK_Q * BLOCK_K];
    let mut rowdot = [zero; BLOCK_Q];
    let kv = d.kv_of(b);
    for q0 in (0..d.l).step_by(BLOCK_Q) {
        let rows = BLOCK_Q.min(d.l - q0);
        // D_i = Σ_e dO[i, e] O[i, e]: the softmax backward's row term, from the saved output.
        for (i, r) in rowdot[..rows].iter_mut().enumerate() {
            let at = (b * d.l + q0 + i) * d.ev;
            *r = g[at..at + d.ev].iter().zip(&out[at..at + d.ev]).fold(zero, |s, (&x, &y)| s.add(x.mul(y)));
        }
        let gm = MatRef { offset: (b * d.l + q0) * d.ev, rs: d.ev, cs: 1 };
        let k_end = d.key_end(q0, rows);
        for k0 in (0..k_end).step_by(BLOCK_K) {
            let cols = BLOCK_K.min(k_end - k0);
            scores(&mut p, d, q, k, mask, b, (q0, rows), (k0, cols));
            for i in 0..rows {
                let l = lse[b * d.l + q0 + i];
                for x in &mut p[i * cols..(i + 1) * cols] {
                    *x = x.sub(l).exp_();
                }
            }
            let pm = MatRef { offset: 0, rs: cols, cs: 1 };
            let pt = MatRef { offset: 0, rs: 1, cs: cols };
            // SAFETY (all products below): the tiles hold rows x cols, the operand ranges lie
            // inside their (batch, rows, width) arrays, and the destinations are this pair's.
            unsafe {
                // dV_j += Pᵀ dO
                gemm_into_scaled(
                    MatMut::new(&mut dv[k0 * d.ev..], d.ev),
                    cols,
                    d.ev,
                    rows,
                    &p,
                    pt,
                    g,
                    gm,
                    true,
                    T::from(1.0),
                    Parallelism::None,
                );
                // dP = dO Vᵀ
                let vt = MatRef { offset: (kv * d.s + k0) * d.ev, rs: 1, cs: d.ev };
                gemm_into_scaled(
                    MatMut::new(&mut dp[..rows * cols], cols),
                    rows,
                    cols,
                    d.ev,
                    g,
                    gm,
                    v,
                    vt,
                    false,
                    T::from(1.0),
                    Parallelism::None,
                );
            }
            // dS = P ∘ (dP - D): the gradient of the scores (before the scale).
            for i in 0..rows {
                let r = rowdot[i];
                for (x, &y) in dp[i * cols..(i + 1) * cols].iter_mut().zip(&p[i * cols..(i + 1) * cols]) {
                    *x = y.mul(x.sub(r));
                }
                if !dmask.is_empty() {
                    let at = (q0 + i) * d.s + k0;
                    dmask[at..at + cols].copy_from_slice(&dp[i * cols..(i + 1) * cols]);
                }
            }
            let qm = MatRef { offset: (b * d.l + q0) * d.e, rs: d.e, cs: 1 };
            let km = MatRef { offset: (kv * d.s + k0) * d.e, rs: d.e, cs: 1 };
            let dst = MatRef { offset: 0, rs: 1, cs: cols };
            unsafe {
                // dQ_i += scale dS K
                gemm_into_scaled(MatMut::new(&mut dq[q0 * d.e..], d.e), rows, d.e, cols, &dp, pm, k, km, true, scale, Parallelism::None);
                // dK_j += scale dSᵀ Q
                gemm_into_scaled(MatMut::new(&mut dk[k0 * d.e..], d.e), cols, d.e, rows, &dp, dst, q, qm, true, scale, Parallelism::None);
            }
        }
    }
}

/// Reads `mask` (an additive float mask viewed at `(batch dims..., L, S)`, strides of zero where
/// it broadcasts) in place, each (batch, head) pair's start found from the leading strides.
fn with_mask<T: NormFloat, R>(mask: Option<&Array>, d: &AttnDims, f: impl FnOnce(Option<&MaskRef<'_, T>>) -> R) -> Result<R> {
    let Some(m) = mask else { return Ok(f(None)) };
    m.with_slice::<T, _>("scaled_dot_product_attention", |data, layout| {
        let n = layout.shape.len();
        let lead = &layout.shape[..n - 2];
        let at = (0..d.batch)
            .map(|mut b| {
                let mut off = layout.offset;
                for (dim, &size) in lead.iter().enumerate().rev() {
                    off += (b % size) * layout.strides[dim];
                    b /= size;
                }
                off
            })
            .collect();
        f(Some(&MaskRef { data, at, rs: layout.strides[n - 2], cs: layout.strides[n - 1] }))
    })
}

/// `(out, lse)` of the fused attention over contiguous-made float32 / float64 operands (see
/// `forward`), shaped `(batch, L, Ev)` and `(batch, L)`.
pub fn attention_op(q: &Array, k: &Array, v: &Array, mask: Option<&Array>, d: &AttnDims) -> Result<(Array, Array)> {
    macro_rules! run {
        ($t:ty) => {{
            let (o, l) = dense_slice::<$t, _>(q, "scaled_dot_product_attention", |q| {
                dense_slice::<$t, _>(k, "scaled_dot_product_attention", |k| {
                    dense_slice::<$t, _>(v, "scaled_dot_product_attention", |v| with_mask::<$t, _>(mask, d, |m| forward(q, k, v, m, d)))
                })
            })?????;
            (Array::from_vec(o, &[d.batch, d.l, d.ev])?, Array::from_vec(l, &[d.batch, d.l])?)
        }};
    }
    Ok(match q.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// The gradients of `attention_op` from the output gradient `g`, the output and its logsumexp.
#[allow(clippy::too_many_arguments)]
pub fn attention_backward_op(
    q: &Array,
    k: &Array,
    v: &Array,
    mask: Option<&Array>,
    (out, lse, g): (&Array, &Array, &Array),
    d: &AttnDims,
    want_mask: bool,
) -> Result<AttnGrads> {
    const OP: &str = "scaled_dot_product_attention_backward";
    macro_rules! run {
        ($t:ty) => {{
            let (dq, dk, dv, dm) = dense_slice::<$t, _>(q, OP, |q| {
                dense_slice::<$t, _>(k, OP, |k| {
                    dense_slice::<$t, _>(v, OP, |v| {
                        dense_slice::<$t, _>(out, OP, |o| {
                            dense_slice::<$t, _>(lse, OP, |l| {
                                dense_slice::<$t, _>(g, OP, |g| {
                                    with_mask::<$t, _>(mask, d, |m| backward(q, k, v, m, o, l, g, d, want_mask))
                                })
                            })
                        })
                    })
                })
            })????????;
            let kv = d.batch / d.group;
            (
                Array::from_vec(dq, &[d.batch, d.l, d.e])?,
                Array::from_vec(dk, &[kv, d.s, d.e])?,
                Array::from_vec(dv, &[kv, d.s, d.ev])?,
                dm.map(|m| Array::from_vec(m, &[d.batch, d.l, d.s])).transpose()?,
            )
        }};
    }
    Ok(match q.dtype() {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}
