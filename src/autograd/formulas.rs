//! Every backward formula, in one match over the recorded op. Formulas are written with tensor
//! ops, so under `create_graph` they record a graph of their own (higher-order gradients).

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp as B, Scalar, Tensor, UnaryOp as U};

use crate::ops::binary::binary_op_table;
use crate::ops::grad::{adds, div, extremum_grads, f, igamma_density, igamma_input_grad, igammac_input_grad, mul, muls, no_derivative, un};
use crate::ops::unary::unary_op_table;
use crate::tensor::arith::div_floor;

use super::is_grad_enabled;
use super::op::{Op, OpNode, Positions};

/// Sums a broadcast gradient back to `shape`.
pub fn sum_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let lead = g.ndim() - shape.len();
    let mut dims: Vec<i64> = (0..lead as i64).collect();
    for (i, &s) in shape.iter().enumerate() {
        if s == 1 && g.shape()[lead + i] != 1 {
            dims.push((lead + i) as i64);
        }
    }
    let summed = if dims.is_empty() { g.clone() } else { g.sum(Some(&dims), true)? };
    summed.reshape(&shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}

/// For each element of `x` along `dim`, the product of the other elements of its lane.
fn products_of_others(x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = dim as usize;
    let n = x.shape()[d] as i64;
    let mut one_shape = x.shape().to_vec();
    one_shape[d] = 1;
    let ones = Tensor::ones(&one_shape, x.dtype())?.to_device(x.device())?;
    let exclusive = |t: &Tensor| Tensor::cat(&[ones.clone(), t.narrow(dim, 0, n - 1)?], dim)?.cumulative(dim, true);
    let before = exclusive(x)?;
    let after = exclusive(&x.flip(&[dim])?)?.flip(&[dim])?;
    mul(&before, &after)
}

/// Re-inserts reduced dims (when `keepdim` dropped them) and broadcasts to `shape`.
fn expand_back(g: &Tensor, shape: &[usize], dims: &[usize], keepdim: bool) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim && !shape.is_empty() {
        let mut sorted = dims.to_vec();
        sorted.sort_unstable();
        for d in sorted {
            g = g.unsqueeze(d as i64)?;
        }
    }
    g.expand(&shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}

/// A tensor of `shape` that is zero except `g` added at the row-major `positions`.
fn embed(g: &Tensor, positions: &Positions, shape: &[usize], dtype: DType) -> Result<Tensor> {
    if !is_grad_enabled() && !g.dtype().is_half() && g.dtype() == dtype {
        match positions {
            Positions::Host(offsets) => return g.put_add_offsets(offsets, shape),
            Positions::Device(at) if at.device() == g.device() => {
                let out = Tensor::zeros_on(shape, dtype, g.device())?;
                out.backend().add_at_positions(out.array(), at.array(), g.contiguous()?.array())?;
                return Ok(out);
            }
            Positions::Device(_) => {}
            Positions::Pooled { at, geom } => {
                // PyTorch's version error names no origin for these indices.
                let at = at.unpack(String::new)?;
                if at.device() == g.device() {
                    return Ok(Tensor::from_array(g.backend().max_pool2d_backward(g.contiguous()?.array(), at.array(), geom, shape)?));
                }
            }
        }
    }
    let n: usize = shape.iter().product();
    // Constants live on the gradient's device, like every tensor of the backward pass.
    let idx = positions.tensor_on(g.device())?;
    let flat = Tensor::zeros_on(&[n], dtype, g.device())?;
    flat.index_add(0, &idx, &g.reshape(&[-1])?, Scalar::Int(1))?.reshape(&shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}

/// The gradient of a view of distinct elements (narrow, slices, select): zeros of the input's
/// `shape` with `g` written through `window`, the view's layout over them: one strided copy
/// where a list of positions would cost a scatter (and the list itself). Under create_graph the
/// write must be differentiable: `embed`'s scatter of those positions.
fn window_backward(g: &Tensor, window: &crate::layout::Layout, shape: &[usize]) -> Result<Tensor> {
    if is_grad_enabled() {
        let positions = Positions::Host(crate::cpu::reduce::element_offsets(window)?);
        return embed(g, &positions, shape, g.dtype());
    }
    let out = Tensor::zeros_on(shape, g.dtype(), g.device())?;
    out.with_layout(window.clone()).copy_raw(g)?;
    Ok(out)
}

/// The gradient of the matrix product `a @ b` for `a`, laid out as `a` was (`a_transposed`:
/// stored transposed): a transposed `a` gets its gradient transposed too, so the gradient that
/// reaches the tensor behind it (and its `.grad`) is contiguous with no copy, as in PyTorch.
fn mm_grad_first(a_transposed: bool, b: &Tensor, g: &Tensor) -> Result<Tensor> {
    if a_transposed {
        b.mm(&g.t()?)?.t()
    } else {
        g.mm(&b.t()?)
    }
}

/// The gradient of `a @ b` for `b`, laid out as `b` was (see `mm_grad_first`): for `linear`'s
/// `w.t()` that makes the weight's gradient contiguous.
fn mm_grad_second(a: &Tensor, b_transposed: bool, g: &Tensor) -> Result<Tensor> {
    if b_transposed {
        g.t()?.mm(a)?.t()
    } else {
        a.t()?.mm(g)
    }
}

fn zeros_like_shape(shape: &[usize], g: &Tensor) -> Result<Tensor> {
    Tensor::zeros_on(shape, g.dtype(), g.device())
}

/// A norm op's input, its weight when given, and the statistics its forward pass kept
/// (mean, rstd).
fn norm_operands(node: &OpNode) -> Result<(Tensor, Option<Tensor>, (Tensor, Tensor))> {
    let (x, w) = (node.input(0)?, node.input(1)?);
    let stats = match (node.buffer(0), node.buffer(1)) {
        (Some(m), Some(r)) => (m, r),
        _ => return Err(super::op::freed()),
    };
    Ok((x, (w.numel() > 0).then_some(w), stats))
}

/// A norm op's gradients as its inputs' (weight and bias shaped and typed as they are).
fn norm_grads(node: &OpNode, g: crate::tensor::norm::NormGrads) -> Result<Vec<Option<Tensor>>> {
    let param = |t: Option<Tensor>, i: usize| -> Result<Option<Tensor>> {
        let meta = &node.inputs[i];
        t.map(|t| t.reshape(&meta.shape.iter().map(|&s| s as i64).collect::<Vec<_>>())?.to_dtype(meta.dtype)).transpose()
    };
    Ok(vec![g.x, param(g.weight, 1)?, param(g.bias, 2)?])
}

/// The gradient of a declared unary op (`ops/unary.rs`) from the incoming gradient and the
/// saved input/output; `from_result`: the node kept its result instead of its input (the
/// in-place form of an op declared `in_place: result`).
macro_rules! define_unary_backward {
    (plain {$($V:ident {
        name: $name:literal, node: $node:literal, ints: $ints:literal, reads: ($ri:literal, $ro:literal), wgpu: $code:tt,
        py: [$($py:ident),*], inplace: [$($ip:ident),*],
        cpu: |$cx:ident| $cpu:expr,
        grad: |$g:ident, $x:ident, $y:ident| $grad:expr,
    })*}
    with_params {$($PV:ident { $($p:ident = $default:expr),* } {
        name: $pname:literal, node: $pnode:literal, reads: ($pri:literal, $pro:literal), wgpu: $pcode:literal,
        py: $ppy:ident, in_place: $keeps:ident, ints: [$($pints:tt)*],
        cpu: |$pcx:ident| $pcpu:expr,
        grad: |$pg:ident, $px:ident, $py_:ident, $from_result:ident| $pgrad:expr,
    })*}) => {
        fn unary_backward(
            op: U,
            g: &Tensor,
            x: &dyn Fn() -> Result<Tensor>,
            y: &dyn Fn() -> Result<Tensor>,
            from_result: bool,
        ) -> Result<Tensor> {
            use crate::ops::grad::*;
            use crate::ops::unary::{SELU_ALPHA, SELU_SCALE};
            use B as BinaryOp;
            use U as UnaryOp;
            Ok(match op {
                $(U::$V => {
                    let ($g, $x, $y) = (g, x, y);
                    $grad
                })*
                $(U::$PV { $($p),* } => {
                    $(let _ = $p;)*
                    let ($pg, $px, $py_, $from_result) = (g, x, y, from_result);
                    $pgrad
                })*
                _ => unreachable!("{} has a gradient of its own", op.name()),
            })
        }
    };
}
unary_op_table!(define_unary_backward);

/// The gradients of a declared binary op (`ops/binary.rs`) at the operands' broadcast shape.
macro_rules! define_binary_backward {
    ($($(#[$doc:meta])* $V:ident {
        name: $name:literal, node: $node:literal, class: $class:ident, wgpu: ($wf:expr, $wi:expr),
        py: [$($py:ident $py_inplace:ident),*], other: $other:ident,
        cpu: |$x:ident, $y:ident| $cpu:expr,
        grad: |$g:ident, $a:ident, $b:ident, $need:ident| $grad:expr,
    })*) => {
        fn binary_backward(
            op: B,
            g: &Tensor,
            a: &dyn Fn() -> Result<Tensor>,
            b: &dyn Fn() -> Result<Tensor>,
            need: &dyn Fn(usize) -> bool,
        ) -> Result<(Option<Tensor>, Option<Tensor>)> {
            use B as BinaryOp;
            use U as UnaryOp;
            Ok(match op {
                $(B::$V => {
                    let ($g, $a, $b, $need) = (g, a, b, need);
                    $grad
                })*
            })
        }
    };
}
binary_op_table!(define_binary_backward);

/// The gradient of `op` for each input, from the output gradients.
pub fn backward(node: &OpNode, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
    let n = node.num_inputs();
    if let Op::Split { dim, sizes, squeezed, .. } = &node.op {
        // One gradient per piece; pieces that got none contribute zeros.
        let Some(like) = grads.iter().flatten().next() else {
            return Ok(vec![None; n]);
        };
        let mut piece_shape = node.inputs[0].shape.clone();
        let parts = grads
            .iter()
            .zip(sizes)
            .map(|(g, &s)| {
                piece_shape[*dim] = s;
                let g = match g {
                    Some(g) if *squeezed => g.unsqueeze(*dim as i64)?,
                    Some(g) => g.clone(),
                    None => zeros_like_shape(&piece_shape, like)?,
                };
                Ok(g)
            })
            .collect::<Result<Vec<_>>>()?;
        return Ok(vec![Some(Tensor::cat(&parts, *dim as i64)?)]);
    }
    if let Op::RnnCell { lstm } = &node.op {
        // Two outputs (an LSTM's h and c), either of which may have no gradient.
        return crate::ops::nn::rnn_cell::backward(node, *lstm, &grads);
    }
    if let Op::LstmLayer { reverse } = &node.op {
        // Three outputs (output, h_n, c_n), any of which may have no gradient.
        return crate::ops::nn::rnn_layer::backward(node, *reverse, &grads);
    }
    if let Op::NotImplemented { forward } = &node.op {
        return Err(crate::error::Error::Runtime(format!("derivative for aten::{forward} is not implemented")));
    }
    let Some(g) = grads.first().cloned().flatten() else {
        return Ok(vec![None; n]);
    };
    let shape = |i: usize| node.inputs[i].shape.clone();
    let need = |i: usize| node.needs_grad(i);
    let mut out: Vec<Option<Tensor>> = vec![None; n];
    match &node.op {
        Op::Binary(op) => {
            // Only what the needed gradients use was saved (see `binary_recorded`).
            let (ga, gb) = binary_backward(*op, &g, &|| node.input(0), &|| node.input(1), &need)?;
            // Only the needed ones summed to their operand's shape: `x + 1.0`'s formula gives
            // the number's gradient too, whose sum over the whole gradient (transposed in
            // `x.t() + 1.0`, read across its rows) cost more than the rest of the backward.
            out[0] = ga.filter(|_| need(0)).map(|t| sum_to(&t, &shape(0))).transpose()?;
            out[1] = gb.filter(|_| need(1)).map(|t| sum_to(&t, &shape(1))).transpose()?;
        }
        Op::Unary(op) => {
            let x = || node.input(0);
            let y = || node.output(0);
            let gx = match *op {
                U::PowScalar(e) => {
                    if e == 0.0 {
                        muls(&g, 0.0)?
                    } else {
                        muls(&mul(&g, &x()?.unary(U::PowScalar(e - 1.0))?)?, e)?
                    }
                }
                U::LogicalNot | U::BitwiseNot => muls(&g, 0.0)?,
                // Every other op's gradient is declared with it in `crate::ops::unary`; an
                // in-place form may have kept the result instead of the input.
                _ => unary_backward(*op, &g, &x, &y, op.inplace_keeps_result() && !node.kept_input(0))?,
            };
            out[0] = Some(gx);
        }
        Op::Where => {
            let c = node.input(0)?;
            if need(1) {
                out[1] = Some(sum_to(&Tensor::where_(&c, Arg::T(&g), Arg::S(f(0.0)))?, &shape(1))?);
            }
            if need(2) {
                out[2] = Some(sum_to(&Tensor::where_(&c, Arg::S(f(0.0)), Arg::T(&g))?, &shape(2))?);
            }
        }
        Op::Sum { dims, keepdim, .. } => out[0] = Some(expand_back(&g, &shape(0), dims, *keepdim)?),
        Op::Prod { dims, keepdim, .. } => {
            let (x, y) = (node.input(0)?, node.output(0)?);
            let gx = expand_back(&g, &shape(0), dims, *keepdim)?;
            // g * y on the reduced shape, then spread: one pass over the input's size, not two.
            let gy = || expand_back(&mul(&g, &y)?, &shape(0), dims, *keepdim);
            let has_zero = {
                let _raw = super::GradMode::disabled();
                x.binary_scalar(B::Eq, f(0.0), false)?.any_true()?
            };
            out[0] = Some(if x.ndim() == 0 {
                gx
            } else if !has_zero {
                div(&gy()?, &x)?
            } else {
                // result / x divides zero by zero: each element's gradient is the product of
                // the others, from exclusive products running from either end (over the
                // flattened input for a full product), as PyTorch computes it.
                let (xs, d) = if dims.len() == 1 { (x.clone(), dims[0] as i64) } else { (x.reshape(&[-1])?, 0) };
                mul(&gx, &products_of_others(&xs, d)?.reshape(&x.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())?)?
            });
        }
        Op::Extremum { dims, keepdim, nan_ties, .. } => {
            let (x, y) = (node.input(0)?, node.output(0)?);
            let y = expand_back(&y, &shape(0), dims, *keepdim)?;
            let mut mask = x.binary(B::Eq, &y)?;
            if *nan_ties {
                let nan = |t: &Tensor| t.binary(B::Ne, t);
                mask = Tensor::where_(&nan(&y)?, Arg::T(&nan(&x)?), Arg::T(&mask))?;
            }
            let mask = mask.to_dtype(g.dtype())?;
            let sd: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            let count = mask.sum(Some(&sd), true)?;
            out[0] = Some(div(&mul(&expand_back(&g, &shape(0), dims, *keepdim)?, &mask)?, &count)?);
        }
        Op::Clamp { min, max } => out[0] = Some(crate::tensor::clamp::clamp_grad(&g, &node.input(0)?, *min, *max)?),
        Op::IndexedExtremum { dim, keepdim, .. } => {
            // The indices carry no history (int64): detached from what `output` attaches.
            let (idx, d) = (node.output(1)?.detach(), *dim as i64);
            let (g, idx) = if *keepdim { (g.clone(), idx) } else { (g.unsqueeze(d)?, idx.unsqueeze(d)?) };
            let zeros = zeros_like_shape(&shape(0), &g)?;
            out[0] = Some(if is_grad_enabled() {
                zeros.scatter(d, &idx, Arg::T(&g), true)?
            } else {
                zeros.scatter_add_of_checked(d, &idx, &g)?
            });
        }
        Op::Logsumexp { dims, keepdim } => {
            let (x, y) = (node.input(0)?, node.output(0)?);
            let y = expand_back(&y, &shape(0), dims, *keepdim)?;
            let e = x.binary(B::Sub, &y)?.unary(U::Exp)?;
            out[0] = Some(mul(&expand_back(&g, &shape(0), dims, *keepdim)?, &e)?);
        }
        Op::Pointwise2 { kind } => {
            let [gx, gy] = crate::ops::grad::pointwise2_grads(*kind, &g, &|| node.input(0), &|| node.input(1), [need(0), need(1)])?;
            (out[0], out[1]) = (gx, gy);
        }
        Op::Cumsum { dim } => out[0] = Some(g.reverse_cumsum(*dim)?),
        Op::Cumprod { dim } => {
            let (x, y) = (node.input(0)?, node.output(0)?);
            out[0] = Some(x.cumprod_backward(&g, &y, *dim)?);
        }
        Op::View { .. } => out[0] = Some(g.reshape(&shape(0).iter().map(|&s| s as i64).collect::<Vec<_>>())?),
        Op::Permute { dims, .. } => {
            let mut inverse = vec![0i64; dims.len()];
            for (i, &d) in dims.iter().enumerate() {
                inverse[d] = i as i64;
            }
            out[0] = Some(g.permute(&inverse)?);
        }
        Op::Expand => out[0] = Some(sum_to(&g, &shape(0))?),
        Op::Flip { dims } => out[0] = Some(g.flip(&dims.iter().map(|&d| d as i64).collect::<Vec<_>>())?),
        Op::Take { offsets, .. } => out[0] = Some(embed(&g, offsets, &shape(0), g.dtype())?),
        Op::Window { window, .. } => out[0] = Some(window_backward(&g, window, &shape(0))?),
        Op::Roll { shifts, dims } => out[0] = Some(g.roll(shifts, dims)?),
        Op::Var { dims, correction, keepdim, std } => {
            let x = node.input(0)?;
            let mut g = g.clone();
            if *std {
                // d std = d var / (2 std), zero where the std is (PyTorch's choice).
                let y = node.output(0)?;
                let zero = y.binary_scalar(B::Eq, f(0.0), false)?;
                g = Tensor::where_(&zero, Arg::S(f(0.0)), Arg::T(&g.binary(B::Div, &muls(&y, 2.0)?)?))?;
            }
            let n: usize = dims.iter().map(|&d| shape(0)[d]).product();
            let all: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            let mean = x.mean(if all.is_empty() { None } else { Some(&all) }, true)?;
            let g = expand_back(&muls(&g, 2.0 / (n as f64 - correction))?, &shape(0), dims, *keepdim)?;
            out[0] = Some(mul(&g, &x.binary(B::Sub, &mean)?)?);
        }
        Op::AsStrided { input, output } => out[0] = Some(crate::tensor::strided::as_strided_backward(&g, input, output)?),
        Op::Put { offsets, value_shape, .. } => {
            if need(0) {
                out[0] = Some(match offsets {
                    Positions::Host(offsets) => {
                        let mut keep = vec![true; shape(0).iter().product()];
                        for &o in offsets {
                            keep[o] = false;
                        }
                        let mask = Tensor::from_vec(keep, &shape(0))?.to_device(g.device())?;
                        Tensor::where_(&mask, Arg::T(&g), Arg::S(f(0.0)))?
                    }
                    // The written elements zeroed where the positions are.
                    Positions::Device(_) | Positions::Pooled { .. } => {
                        let sizes: Vec<i64> = shape(0).iter().map(|&s| s as i64).collect();
                        g.reshape(&[-1])?.scatter(0, &offsets.tensor_on(g.device())?, Arg::S(f(0.0)), false)?.reshape(&sizes)?
                    }
                });
            }
            if need(1) {
                let idx = offsets.tensor_on(g.device())?;
                let taken = g.reshape(&[-1])?.index_select(0, &idx)?;
                let full: Vec<usize> = if value_shape.is_empty() { vec![] } else { value_shape.clone() };
                let lead = offsets.len() / full.iter().product::<usize>().max(1);
                let mut bshape = vec![lead];
                bshape.extend(&full);
                let t = taken.reshape(&bshape.iter().map(|&s| s as i64).collect::<Vec<_>>())?;
                out[1] = Some(t.sum(Some(&[0]), false)?);
            }
        }
        Op::Copy { from } => out[0] = Some(g.to_dtype(*from)?),
        Op::ToDevice { from } => out[0] = Some(g.to_device(*from)?),
        Op::Cat { dim, sizes } => {
            let mut start = 0i64;
            for (i, &s) in sizes.iter().enumerate() {
                if need(i) {
                    out[i] = Some(g.narrow(*dim as i64, start, s as i64)?);
                }
                start += s as i64;
            }
        }
        // Outside create_graph the indices are those the forward pass checked: not again.
        Op::IndexSelect { dim } => {
            let (idx, zeros) = (node.input(1)?, zeros_like_shape(&shape(0), &g)?);
            out[0] = Some(if is_grad_enabled() {
                zeros.index_add(*dim as i64, &idx, &g, Scalar::Int(1))?
            } else {
                zeros.index_add_of_checked(*dim as i64, &idx, &g)?
            });
        }
        Op::Gather { dim } => {
            let (idx, zeros) = (node.input(1)?, zeros_like_shape(&shape(0), &g)?);
            out[0] = Some(if is_grad_enabled() {
                zeros.scatter(*dim as i64, &idx, Arg::T(&g), true)?
            } else {
                zeros.scatter_add_of_checked(*dim as i64, &idx, &g)?
            });
        }
        Op::Scatter { dim, add } => {
            let idx = node.input(1)?;
            if need(0) {
                out[0] = Some(if *add { g.clone() } else { g.scatter(*dim as i64, &idx, Arg::S(f(0.0)), false)? });
            }
            if n > 2 && need(2) {
                out[2] = Some(g.gather(*dim as i64, &idx)?);
            }
        }
        Op::IndexAdd { dim, alpha } => {
            let idx = node.input(1)?;
            out[0] = Some(g.clone());
            if need(2) {
                let s = g.index_select(*dim as i64, &idx)?;
                let s = if *alpha == 1.0 { s } else { muls(&s, *alpha)? };
                out[2] = Some(s.reshape(&shape(2).iter().map(|&v| v as i64).collect::<Vec<_>>())?);
            }
        }
        Op::Split { .. } | Op::NotImplemented { .. } => unreachable!("handled before the single-output ops"),
        Op::Fill { .. } => {
            out[0] = Some(zeros_like_shape(&shape(0), &g)?);
            if n > 1 && need(1) {
                out[1] = Some(g.sum(None, false)?);
            }
        }
        Op::Addmm { beta, alpha, transposed } => {
            if need(0) {
                let gi = if *beta == 1.0 { g.clone() } else { muls(&g, *beta)? };
                out[0] = Some(sum_to(&gi, &shape(0))?);
            }
            if need(1) {
                let gm = mm_grad_first(transposed[0], &node.input(2)?, &g)?;
                out[1] = Some(if *alpha == 1.0 { gm } else { muls(&gm, *alpha)? });
            }
            if need(2) {
                let gm = mm_grad_second(&node.input(1)?, transposed[1], &g)?;
                out[2] = Some(if *alpha == 1.0 { gm } else { muls(&gm, *alpha)? });
            }
        }
        Op::Matmul if node.inputs[0].shape.len() == 2 && node.inputs[1].shape.len() == 2 => {
            let (a, b) = (node.input(0)?, node.input(1)?);
            if need(0) {
                out[0] = Some(mm_grad_first(a.is_transposed_matrix(), &b, &g)?);
            }
            if need(1) {
                out[1] = Some(mm_grad_second(&a, b.is_transposed_matrix(), &g)?);
            }
        }
        Op::Matmul => {
            let (a, b) = (node.input(0)?, node.input(1)?);
            if need(0) {
                out[0] = Some(g.matmul(&b.transpose(-2, -1)?)?);
            }
            if need(1) {
                out[1] = Some(a.transpose(-2, -1)?.matmul(&g)?);
            }
        }
        Op::Conv { geom } => {
            let (x, w) = (node.input(0)?, node.input(1)?);
            if need(0) {
                out[0] = Some(g.conv_transpose_with(&w, *geom)?);
            }
            if need(1) {
                out[1] = Some(Tensor::conv_weight_grad_with(&x, &g, *geom, node.buffer(0).as_ref())?);
            }
            if n == 3 && need(2) {
                out[2] = Some(g.sum(Some(&[0, 2, 3]), false)?);
            }
        }
        Op::Softmax { dim, log } => {
            out[0] = Some(g.softmax_backward(&node.output(0)?, *dim, *log)?);
        }
        Op::LayerNorm { cols, eps } => {
            let (x, w, (mean, rstd)) = norm_operands(node)?;
            let grads =
                crate::tensor::norm::layer_norm_backward(&x, &g, w.as_ref(), (&mean, &rstd), *cols, *eps, [need(0), need(1), need(2)])?;
            out = norm_grads(node, grads)?;
        }
        Op::BatchNorm { training, eps } => {
            let (x, w, (mean, rstd)) = norm_operands(node)?;
            let grads =
                crate::tensor::norm::batch_norm_backward(&x, &g, w.as_ref(), (&mean, &rstd), *training, *eps, [need(0), need(1), need(2)])?;
            out = norm_grads(node, grads)?;
        }
        Op::RnnCell { .. } | Op::LstmLayer { .. } => unreachable!("handled above"),
        Op::Attention { dims } => {
            let (Some(lse), mask) = (node.buffer(0), node.buffer(1)) else {
                return Err(super::op::freed());
            };
            let qkv = (&node.input(0)?, &node.input(1)?, &node.input(2)?);
            let mask_input = if n == 4 { Some(node.input(3)?) } else { None };
            let grads =
                crate::ops::nn::attention::attention_backward(qkv, mask.as_ref(), mask_input.as_ref(), (&node.output(0)?, &lse, &g), dims)?;
            let [dq, dk, dv, ds] = grads;
            let dmask = match (ds, mask_input) {
                (Some(ds), Some(m)) => Some(sum_to(&ds, m.shape())?),
                _ => None,
            };
            out = [dq, dk, dv, dmask].into_iter().take(n).collect();
        }
        Op::Composite => unreachable!("a composite op's node runs its body's graph (OpNode::apply)"),
        Op::NllLoss => {
            let (Some(slopes), Some(picks)) = (node.buffer(0), node.buffer(1)) else {
                return Err(super::op::freed());
            };
            out[0] = Some(crate::tensor::loss::nll_loss_backward(&g, &shape(0), &slopes, &picks)?);
        }
        Op::ConvTranspose { geom } => {
            let (small, w) = (node.input(0)?, node.input(1)?);
            if need(0) {
                out[0] = Some(g.conv_with(&w, None, *geom)?);
            }
            if need(1) {
                out[1] = Some(Tensor::conv_weight_grad_with(&g, &small, *geom, None)?);
            }
        }
        Op::ConvWeight { geom } => {
            let (x, dy) = (node.input(0)?, node.input(1)?);
            if need(0) {
                out[0] = Some(dy.conv_transpose_with(&g, *geom)?);
            }
            if need(1) {
                out[1] = Some(x.conv_with(&g, None, *geom)?);
            }
        }
    }
    // Gradients take the dtype of the input they belong to, and its device when they are
    // zero-dim (a CPU scalar that joined a GPU op); any other device mismatch is a bug that
    // PyTorch's engine reports the same way.
    for (i, o) in out.iter_mut().enumerate() {
        if !need(i) {
            *o = None;
        } else if let Some(t) = o {
            let want = node.inputs[i].device;
            if t.device() != want {
                if t.ndim() != 0 {
                    return Err(crate::error::Error::Runtime(format!(
                        "invalid gradient at index {i} - expected device {want} but got {}",
                        t.device()
                    )));
                }
                *t = t.to_device(want)?;
            }
            if t.dtype() != node.inputs[i].dtype {
                *o = Some(t.to_dtype(node.inputs[i].dtype)?);
            }
        }
    }
    Ok(out)
}
