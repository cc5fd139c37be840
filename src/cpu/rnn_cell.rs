//! The pointwise part of the LSTM and GRU cells, forward and backward, each one pass over the
//! rows of a time step: the gate pre-activations arrive as the input's projection `gx` and the
//! state's `gh` (both with their biases), as two row-major (rows, gates * hidden) blocks; the
//! gates are summed, activated and combined here, instead of the dozen elementwise ops (each with
//! its own pass and its own autograd node) of the composite cell.
//!
//! Gate order is PyTorch's: LSTM (input, forget, cell, output), GRU (reset, update, new), the
//! GRU's new gate tanh(gx_n + r * gh_n) with the reset gate scaling the state's projection and its
//! bias. The additions and products round in the element type in the composite's order, and the
//! activations are the unary ops' own (`VecMath`), so results match the composite cell.

use std::mem::MaybeUninit;
use std::ops::{Add, Mul, Sub};

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};

use super::buffer::{assume_written, uninit};
use super::cast::dense_slice;
use super::math::FloatMath;
use super::vecmath::VecMath;

/// float32 and float64, the types the cells compute in.
pub trait CellFloat: VecMath + FloatMath + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Default + Send + Sync {}
impl CellFloat for f32 {}
impl CellFloat for f64 {}

/// Per row of an LSTM step the forward pass keeps its four activated gates and tanh(c'), which
/// is all its backward needs besides c.
pub const LSTM_SAVED: usize = 5;
/// Per row of a GRU step: r, z, n and the state's projection of the new gate gh_n.
pub const GRU_SAVED: usize = 4;

/// One LSTM step: `(h', c', saved)` from `gx`, `gh` (rows x 4H) and `c` (rows x H); `saved` (rows
/// x 5H, see `LSTM_SAVED`) is empty unless `keep`.
pub fn lstm_forward<T: CellFloat>(gx: &[T], gh: &[T], c: &[T], hidden: usize, keep: bool) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let rows = c.len().checked_div(hidden).unwrap_or(0);
    let mut h_out = uninit::<T>(rows * hidden)?;
    let mut c_out = uninit::<T>(rows * hidden)?;
    let mut saved = uninit::<T>(if keep { rows * hidden * LSTM_SAVED } else { 0 })?;
    // Without `keep` each row's activations go to one scratch row.
    let mut scratch = uninit::<T>(if keep { 0 } else { hidden * LSTM_SAVED })?;
    let h = hidden;
    super::simd::vectorized(
        #[inline(always)]
        || {
            for r in 0..rows {
                // Every slice has exactly `h` elements, so the loop below has no bounds checks
                // and vectorises.
                let (x, g) = (&gx[r * 4 * h..][..4 * h], &gh[r * 4 * h..][..4 * h]);
                let (xi, xf, xg, xo) = (&x[..h], &x[h..2 * h], &x[2 * h..3 * h], &x[3 * h..4 * h]);
                let (gi, gf, gg, go) = (&g[..h], &g[h..2 * h], &g[2 * h..3 * h], &g[3 * h..4 * h]);
                let c = &c[r * h..][..h];
                let (ho, co) = (&mut h_out[r * h..][..h], &mut c_out[r * h..][..h]);
                let s = if keep { &mut saved[r * h * LSTM_SAVED..][..h * LSTM_SAVED] } else { &mut scratch[..h * LSTM_SAVED] };
                let (si, rest) = s.split_at_mut(h);
                let (sf, rest) = rest.split_at_mut(h);
                let (sg, rest) = rest.split_at_mut(h);
                let (so, st) = rest.split_at_mut(h);
                let (si, sf, sg, so, st) = (&mut si[..h], &mut sf[..h], &mut sg[..h], &mut so[..h], &mut st[..h]);
                for j in 0..h {
                    let (i, f) = ((xi[j] + gi[j]).v_sigmoid(), (xf[j] + gf[j]).v_sigmoid());
                    let (gv, o) = ((xg[j] + gg[j]).v_tanh(), (xo[j] + go[j]).v_sigmoid());
                    let cn = f * c[j] + i * gv;
                    let tc = cn.v_tanh();
                    (si[j], sf[j], sg[j], so[j], st[j]) =
                        (MaybeUninit::new(i), MaybeUninit::new(f), MaybeUninit::new(gv), MaybeUninit::new(o), MaybeUninit::new(tc));
                    co[j] = MaybeUninit::new(cn);
                    ho[j] = MaybeUninit::new(o * tc);
                }
            }
        },
    );
    // SAFETY: the loops wrote every element of each row of every output.
    Ok(unsafe { (assume_written(h_out), assume_written(c_out), assume_written(saved)) })
}

/// The LSTM step's backward: `(d gates, d c)` from the saved activations, `c`, and the
/// gradients of h' and c' (zeros where one got none). `d gates` (rows x 4H) is the gradient of
/// both `gx` and `gh`.
pub fn lstm_backward<T: CellFloat>(saved: &[T], c: &[T], dh: &[T], dc: &[T], hidden: usize) -> Result<(Vec<T>, Vec<T>)> {
    let rows = c.len().checked_div(hidden).unwrap_or(0);
    let mut dgates = uninit::<T>(rows * 4 * hidden)?;
    let mut dc_prev = uninit::<T>(rows * hidden)?;
    let one = T::from(1.0);
    super::simd::vectorized(
        #[inline(always)]
        || {
            for r in 0..rows {
                let s = &saved[r * hidden * LSTM_SAVED..][..hidden * LSTM_SAVED];
                let (si, sf, sg, so, st) = (
                    &s[..hidden],
                    &s[hidden..2 * hidden],
                    &s[2 * hidden..3 * hidden],
                    &s[3 * hidden..4 * hidden],
                    &s[4 * hidden..5 * hidden],
                );
                let (c, dh, dc) = (&c[r * hidden..][..hidden], &dh[r * hidden..][..hidden], &dc[r * hidden..][..hidden]);
                let dg = &mut dgates[r * 4 * hidden..][..4 * hidden];
                let (di, rest) = dg.split_at_mut(hidden);
                let (df, rest) = rest.split_at_mut(hidden);
                let (dgg, do_) = rest.split_at_mut(hidden);
                let (di, df, dgg, do_) = (&mut di[..hidden], &mut df[..hidden], &mut dgg[..hidden], &mut do_[..hidden]);
                let dcp = &mut dc_prev[r * hidden..][..hidden];
                for j in 0..hidden {
                    let (i, f, g, o, tc) = (si[j], sf[j], sg[j], so[j], st[j]);
                    let dct = dc[j] + dh[j] * o * (one - tc * tc);
                    di[j] = MaybeUninit::new(dct * g * i * (one - i));
                    df[j] = MaybeUninit::new(dct * c[j] * f * (one - f));
                    dgg[j] = MaybeUninit::new(dct * i * (one - g * g));
                    do_[j] = MaybeUninit::new(dh[j] * tc * o * (one - o));
                    dcp[j] = MaybeUninit::new(dct * f);
                }
            }
        },
    );
    // SAFETY: the loops wrote every element of each row of both outputs.
    Ok(unsafe { (assume_written(dgates), assume_written(dc_prev)) })
}

/// One GRU step: `(h', saved)` from `gx`, `gh` (rows x 3H) and `h` (rows x H); `saved` (rows x
/// 4H, see `GRU_SAVED`) is empty unless `keep`.
pub fn gru_forward<T: CellFloat>(gx: &[T], gh: &[T], h: &[T], hidden: usize, keep: bool) -> Result<(Vec<T>, Vec<T>)> {
    let rows = h.len().checked_div(hidden).unwrap_or(0);
    let mut h_out = uninit::<T>(rows * hidden)?;
    let mut saved = uninit::<T>(if keep { rows * hidden * GRU_SAVED } else { 0 })?;
    let mut scratch = uninit::<T>(if keep { 0 } else { hidden * GRU_SAVED })?;
    let n_ = hidden;
    super::simd::vectorized(
        #[inline(always)]
        || {
            for r in 0..rows {
                // Every slice has exactly `n_` elements: no bounds checks, the loop vectorises.
                let (x, g) = (&gx[r * 3 * n_..][..3 * n_], &gh[r * 3 * n_..][..3 * n_]);
                let (xr, xz, xn) = (&x[..n_], &x[n_..2 * n_], &x[2 * n_..3 * n_]);
                let (gr, gz, gn) = (&g[..n_], &g[n_..2 * n_], &g[2 * n_..3 * n_]);
                let (h, ho) = (&h[r * n_..][..n_], &mut h_out[r * n_..][..n_]);
                let s = if keep { &mut saved[r * n_ * GRU_SAVED..][..n_ * GRU_SAVED] } else { &mut scratch[..n_ * GRU_SAVED] };
                let (sr, rest) = s.split_at_mut(n_);
                let (sz, rest) = rest.split_at_mut(n_);
                let (sn, sh) = rest.split_at_mut(n_);
                let (sr, sz, sn, sh) = (&mut sr[..n_], &mut sz[..n_], &mut sn[..n_], &mut sh[..n_]);
                for j in 0..n_ {
                    let rg = (xr[j] + gr[j]).v_sigmoid();
                    let z = (xz[j] + gz[j]).v_sigmoid();
                    let hn = gn[j];
                    let n = (xn[j] + rg * hn).v_tanh();
                    (sr[j], sz[j], sn[j], sh[j]) = (MaybeUninit::new(rg), MaybeUninit::new(z), MaybeUninit::new(n), MaybeUninit::new(hn));
                    ho[j] = MaybeUninit::new(n + z * (h[j] - n));
                }
            }
        },
    );
    // SAFETY: the loops wrote every element of each row of both outputs.
    Ok(unsafe { (assume_written(h_out), assume_written(saved)) })
}

/// The GRU step's backward: `(d gx, d gh, d h)` from the saved gates, `h` and the gradient of h'.
pub fn gru_backward<T: CellFloat>(saved: &[T], h: &[T], dy: &[T], hidden: usize) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let rows = h.len().checked_div(hidden).unwrap_or(0);
    let mut dgx = uninit::<T>(rows * 3 * hidden)?;
    let mut dgh = uninit::<T>(rows * 3 * hidden)?;
    let mut dh = uninit::<T>(rows * hidden)?;
    let one = T::from(1.0);
    super::simd::vectorized(
        #[inline(always)]
        || {
            for r in 0..rows {
                let s = &saved[r * hidden * GRU_SAVED..][..hidden * GRU_SAVED];
                let (sr, sz, sn, sh) = (&s[..hidden], &s[hidden..2 * hidden], &s[2 * hidden..3 * hidden], &s[3 * hidden..4 * hidden]);
                let (h, dy) = (&h[r * hidden..][..hidden], &dy[r * hidden..][..hidden]);
                let (xr, rest) = dgx[r * 3 * hidden..][..3 * hidden].split_at_mut(hidden);
                let (xz, xn) = rest.split_at_mut(hidden);
                let (hr, rest) = dgh[r * 3 * hidden..][..3 * hidden].split_at_mut(hidden);
                let (hz, hn_) = rest.split_at_mut(hidden);
                let (xr, xz, xn) = (&mut xr[..hidden], &mut xz[..hidden], &mut xn[..hidden]);
                let (hr, hz, hn_) = (&mut hr[..hidden], &mut hz[..hidden], &mut hn_[..hidden]);
                let dhp = &mut dh[r * hidden..][..hidden];
                for j in 0..hidden {
                    let (rg, z, n, hn) = (sr[j], sz[j], sn[j], sh[j]);
                    let dn = dy[j] * (one - z) * (one - n * n);
                    let dr = dn * hn * rg * (one - rg);
                    let dz = dy[j] * (h[j] - n) * z * (one - z);
                    (xr[j], xz[j], xn[j]) = (MaybeUninit::new(dr), MaybeUninit::new(dz), MaybeUninit::new(dn));
                    (hr[j], hz[j], hn_[j]) = (MaybeUninit::new(dr), MaybeUninit::new(dz), MaybeUninit::new(dn * rg));
                    dhp[j] = MaybeUninit::new(dy[j] * z);
                }
            }
        },
    );
    // SAFETY: the loops wrote every element of each row of every output.
    Ok(unsafe { (assume_written(dgx), assume_written(dgh), assume_written(dh)) })
}

// ---- the same over Arrays (float32 or float64 operands of one dtype, made dense) ----------

fn check_dtype(arrays: &[&Array], op: &str) -> Result<DType> {
    let dtype = arrays[0].dtype();
    if !matches!(dtype, DType::F32 | DType::F64) || arrays.iter().any(|a| a.dtype() != dtype) {
        return Err(Error::Runtime(format!("{op}: expected float32 or float64 operands of one dtype")));
    }
    Ok(dtype)
}

/// `lstm_forward` over arrays: `(h', c', saved)`, each (rows, H) but `saved` (rows, 5H).
pub fn lstm_forward_op(gx: &Array, gh: &Array, c: &Array, keep: bool) -> Result<(Array, Array, Array)> {
    let (rows, hidden) = (c.shape()[0], c.shape()[1]);
    macro_rules! run {
        ($t:ty) => {{
            let (h, cn, s) = dense_slice::<$t, _>(gx, "lstm_cell", |x| {
                dense_slice::<$t, _>(gh, "lstm_cell", |g| dense_slice::<$t, _>(c, "lstm_cell", |c| lstm_forward(x, g, c, hidden, keep)))
            })????;
            let saved_rows = if keep { rows } else { 0 };
            (
                Array::from_vec(h, &[rows, hidden])?,
                Array::from_vec(cn, &[rows, hidden])?,
                Array::from_vec(s, &[saved_rows, LSTM_SAVED * hidden])?,
            )
        }};
    }
    Ok(match check_dtype(&[gx, gh, c], "lstm_cell")? {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// `lstm_backward` over arrays: `(d gates, d c)`.
pub fn lstm_backward_op(saved: &Array, c: &Array, dh: &Array, dc: &Array) -> Result<(Array, Array)> {
    let (rows, hidden) = (c.shape()[0], c.shape()[1]);
    macro_rules! run {
        ($t:ty) => {{
            let (dg, dcp) = dense_slice::<$t, _>(saved, "lstm_cell_backward", |s| {
                dense_slice::<$t, _>(c, "lstm_cell_backward", |c| {
                    dense_slice::<$t, _>(dh, "lstm_cell_backward", |dh| {
                        dense_slice::<$t, _>(dc, "lstm_cell_backward", |dc| lstm_backward(s, c, dh, dc, hidden))
                    })
                })
            })?????;
            (Array::from_vec(dg, &[rows, 4 * hidden])?, Array::from_vec(dcp, &[rows, hidden])?)
        }};
    }
    Ok(match check_dtype(&[saved, c, dh, dc], "lstm_cell_backward")? {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// `gru_forward` over arrays: `(h', saved)`.
pub fn gru_forward_op(gx: &Array, gh: &Array, h: &Array, keep: bool) -> Result<(Array, Array)> {
    let (rows, hidden) = (h.shape()[0], h.shape()[1]);
    macro_rules! run {
        ($t:ty) => {{
            let (hn, s) = dense_slice::<$t, _>(gx, "gru_cell", |x| {
                dense_slice::<$t, _>(gh, "gru_cell", |g| dense_slice::<$t, _>(h, "gru_cell", |h| gru_forward(x, g, h, hidden, keep)))
            })????;
            let saved_rows = if keep { rows } else { 0 };
            (Array::from_vec(hn, &[rows, hidden])?, Array::from_vec(s, &[saved_rows, GRU_SAVED * hidden])?)
        }};
    }
    Ok(match check_dtype(&[gx, gh, h], "gru_cell")? {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}

/// `gru_backward` over arrays: `(d gx, d gh, d h)`.
pub fn gru_backward_op(saved: &Array, h: &Array, dy: &Array) -> Result<(Array, Array, Array)> {
    let (rows, hidden) = (h.shape()[0], h.shape()[1]);
    macro_rules! run {
        ($t:ty) => {{
            let (dx, dg, dh) = dense_slice::<$t, _>(saved, "gru_cell_backward", |s| {
                dense_slice::<$t, _>(h, "gru_cell_backward", |h| {
                    dense_slice::<$t, _>(dy, "gru_cell_backward", |dy| gru_backward(s, h, dy, hidden))
                })
            })????;
            let gates = [rows, 3 * hidden];
            (Array::from_vec(dx, &gates)?, Array::from_vec(dg, &gates)?, Array::from_vec(dh, &[rows, hidden])?)
        }};
    }
    Ok(match check_dtype(&[saved, h, dy], "gru_cell_backward")? {
        DType::F64 => run!(f64),
        _ => run!(f32),
    })
}
