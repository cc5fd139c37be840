//! The pointwise step of the LSTM and GRU cells as one op each way (PyTorch's
//! `_thnn_fused_lstm_cell` / `_thnn_fused_gru_cell`, which its CUDA build runs): the gate
//! pre-activations come in as the input's projection `gx` and the state's `gh` (each with its
//! bias, so the sum rounds as the composite cell's), the new state goes out, and one node per
//! step computes every gate's gradient in one pass. In float32 and float64 the backend's fused
//! kernels run (`Backend::lstm_cell` and friends: `cpu::rnn_cell`, wgpu's `rnn_cell.wgsl`);
//! where a backend has none, and in half precision, the same step is composed of tensor ops
//! under the same node name. Under create_graph the backward is written in tensor ops, so
//! higher derivatives exist.

use crate::autograd::op::OpNode;
use crate::autograd::{composite, is_grad_enabled, keep_buffers, record, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::grad::{mul, one_minus};
use crate::tensor::{BinaryOp as B, Tensor, UnaryOp as U};

pub const LSTM_NODE: &str = "ThnnFusedLstmCellBackward0";
pub const GRU_NODE: &str = "ThnnFusedGruCellBackward0";

/// Checks the operands of a cell with `gates` gates: `gx` and `gh` (rows, gates * H), `state`
/// (rows, H), one dtype and device. Returns H.
fn check(op: &str, gates: usize, gx: &Tensor, gh: &Tensor, state: &Tensor) -> Result<usize> {
    let [rows, hidden] = state.shape() else {
        return Err(Error::Runtime(format!("{op}: expected a 2-D state, got {}-D", state.ndim())));
    };
    let want = [*rows, gates * hidden];
    for (name, t) in [("input_gates", gx), ("hidden_gates", gh)] {
        if t.shape() != want {
            return Err(Error::Runtime(format!("{op}: expected {name} of size {want:?}, got {:?}", t.shape())));
        }
    }
    if gx.dtype() != state.dtype() || gh.dtype() != state.dtype() || !gx.dtype().is_floating_point() {
        return Err(Error::Runtime(format!(
            "{op}: expected floating-point operands of one dtype, got {}, {} and {}",
            gx.dtype().title_name(),
            gh.dtype().title_name(),
            state.dtype().title_name()
        )));
    }
    crate::device::common_device(&[gx, gh, state], false)?;
    Ok(*hidden)
}

/// Whether the backends' fused kernels may take operands of `t`'s dtype (else the composite
/// step runs).
pub(crate) fn fused_dtype(t: &Tensor) -> bool {
    matches!(t.dtype(), DType::F32 | DType::F64)
}

fn needs_node(inputs: &[&Tensor]) -> bool {
    is_grad_enabled() && inputs.iter().any(|t| t.requires_grad())
}

/// The gates of a step as tensors: `gx + gh` split into `n` chunks along the columns.
fn chunks(t: &Tensor, n: i64) -> Result<Vec<Tensor>> {
    t.chunk(n, 1)
}

/// The LSTM step as tensor ops: (h', c').
fn lstm_composite(gx: &Tensor, gh: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
    let g = chunks(&gx.binary(B::Add, gh)?, 4)?;
    let (i, f, gg, o) = (g[0].unary(U::Sigmoid)?, g[1].unary(U::Sigmoid)?, g[2].unary(U::Tanh)?, g[3].unary(U::Sigmoid)?);
    let c_new = mul(&f, c)?.binary(B::Add, &mul(&i, &gg)?)?;
    Ok((mul(&o, &c_new.unary(U::Tanh)?)?, c_new))
}

/// One LSTM step: `(h', c')` from the gate pre-activations `gx` and `gh` (rows, 4H) and the
/// cell state `c` (rows, H).
pub fn lstm_cell(gx: &Tensor, gh: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
    check("_thnn_fused_lstm_cell", 4, gx, gh, c)?;
    let keep = needs_node(&[gx, gh, c]);
    let fused = match fused_dtype(c) {
        true => c.backend().lstm_cell(gx.array(), gh.array(), c.array(), keep)?,
        false => None,
    };
    let Some((h, c_new, saved)) = fused else {
        let (h, c_new) = lstm_composite(gx, gh, c)?;
        let mut out = composite(LSTM_NODE, &[gx, gh, c], vec![h, c_new]).into_iter();
        return Ok((out.next().expect("two outputs"), out.next().expect("two outputs")));
    };
    let (h, c_new, saved) = (Tensor::from_array(h), Tensor::from_array(c_new), Tensor::from_array(saved));
    if keep {
        // The inputs are saved for create_graph's tensor-op backward; the kernel's backward reads
        // `c` and the activations kept as a buffer.
        record(Op::RnnCell { lstm: true }, &[gx, gh, c], &[&h, &c_new], &[0, 1, 2], &[]);
        keep_buffers(&h, vec![saved]);
    }
    Ok((h, c_new))
}

/// The GRU step as tensor ops: h'.
fn gru_composite(gx: &Tensor, gh: &Tensor, h: &Tensor) -> Result<Tensor> {
    let (x, g) = (chunks(gx, 3)?, chunks(gh, 3)?);
    let r = x[0].binary(B::Add, &g[0])?.unary(U::Sigmoid)?;
    let z = x[1].binary(B::Add, &g[1])?.unary(U::Sigmoid)?;
    let n = x[2].binary(B::Add, &mul(&r, &g[2])?)?.unary(U::Tanh)?;
    n.binary(B::Add, &mul(&z, &h.binary(B::Sub, &n)?)?)
}

/// One GRU step: h' from the gate pre-activations `gx` and `gh` (rows, 3H) and the state `h`.
pub fn gru_cell(gx: &Tensor, gh: &Tensor, h: &Tensor) -> Result<Tensor> {
    check("_thnn_fused_gru_cell", 3, gx, gh, h)?;
    let keep = needs_node(&[gx, gh, h]);
    let fused = match fused_dtype(h) {
        true => h.backend().gru_cell(gx.array(), gh.array(), h.array(), keep)?,
        false => None,
    };
    let Some((out, saved)) = fused else {
        let out = gru_composite(gx, gh, h)?;
        return Ok(composite(GRU_NODE, &[gx, gh, h], vec![out]).pop().expect("one output"));
    };
    let (out, saved) = (Tensor::from_array(out), Tensor::from_array(saved));
    if keep {
        record(Op::RnnCell { lstm: false }, &[gx, gh, h], &[&out], &[0, 1, 2], &[]);
        keep_buffers(&out, vec![saved]);
    }
    Ok(out)
}

fn grad_or_zeros(g: Option<&Tensor>, like: &Tensor) -> Result<Tensor> {
    match g {
        Some(g) => Ok(g.clone()),
        None => Tensor::zeros_on(like.shape(), like.dtype(), like.device()),
    }
}

/// `1 - t * t`: the derivative of tanh from its value.
fn one_minus_sq(t: &Tensor) -> Result<Tensor> {
    one_minus(&mul(t, t)?)
}

/// `t * (1 - t)`: the derivative of sigmoid from its value.
fn sigmoid_slope(t: &Tensor) -> Result<Tensor> {
    mul(t, &one_minus(t)?)
}

/// The gradients of a fused cell's node for its inputs (gx, gh, state).
pub(crate) fn backward(node: &OpNode, lstm: bool, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
    let (gx, gh, state) = (node.input(0)?, node.input(1)?, node.input(2)?);
    let outs = if lstm {
        lstm_backward(node, &gx, &gh, &state, grads.first().cloned().flatten(), grads.get(1).cloned().flatten())?
    } else {
        gru_backward(node, &gx, &gh, &state, grads.first().cloned().flatten())?
    };
    Ok(outs.into_iter().enumerate().map(|(i, g)| g.filter(|_| node.needs_grad(i))).collect())
}

fn lstm_backward(
    node: &OpNode,
    gx: &Tensor,
    gh: &Tensor,
    c: &Tensor,
    dh: Option<Tensor>,
    dc: Option<Tensor>,
) -> Result<Vec<Option<Tensor>>> {
    if dh.is_none() && dc.is_none() {
        return Ok(vec![None; 3]);
    }
    let (dh, dc) = (grad_or_zeros(dh.as_ref(), c)?, grad_or_zeros(dc.as_ref(), c)?);
    if !is_grad_enabled() && fused_dtype(&dh) && dh.dtype() == c.dtype() && dc.dtype() == c.dtype() {
        let saved = node.buffer(0).ok_or_else(crate::autograd::op::freed)?;
        if let Some((dgates, dc_prev)) = c.backend().lstm_cell_backward(saved.array(), c.array(), dh.array(), dc.array())? {
            let dgates = Tensor::from_array(dgates);
            return Ok(vec![Some(dgates.clone()), Some(dgates), Some(Tensor::from_array(dc_prev))]);
        }
    }
    // create_graph: the same formulas in tensor ops, from the gates recomputed.
    let g = chunks(&gx.binary(B::Add, gh)?, 4)?;
    let (i, f, gg, o) = (g[0].unary(U::Sigmoid)?, g[1].unary(U::Sigmoid)?, g[2].unary(U::Tanh)?, g[3].unary(U::Sigmoid)?);
    let tc = mul(&f, c)?.binary(B::Add, &mul(&i, &gg)?)?.unary(U::Tanh)?;
    let dct = dc.binary(B::Add, &mul(&mul(&dh, &o)?, &one_minus_sq(&tc)?)?)?;
    let di = mul(&mul(&dct, &gg)?, &sigmoid_slope(&i)?)?;
    let df = mul(&mul(&dct, c)?, &sigmoid_slope(&f)?)?;
    let dg = mul(&mul(&dct, &i)?, &one_minus_sq(&gg)?)?;
    let d_o = mul(&mul(&dh, &tc)?, &sigmoid_slope(&o)?)?;
    let dgates = Tensor::cat(&[di, df, dg, d_o], 1)?;
    Ok(vec![Some(dgates.clone()), Some(dgates), Some(mul(&dct, &f)?)])
}

fn gru_backward(node: &OpNode, gx: &Tensor, gh: &Tensor, h: &Tensor, dy: Option<Tensor>) -> Result<Vec<Option<Tensor>>> {
    let Some(dy) = dy else { return Ok(vec![None; 3]) };
    if !is_grad_enabled() && fused_dtype(&dy) && dy.dtype() == h.dtype() {
        let saved = node.buffer(0).ok_or_else(crate::autograd::op::freed)?;
        if let Some((dgx, dgh, dh)) = h.backend().gru_cell_backward(saved.array(), h.array(), dy.array())? {
            return Ok(vec![Some(Tensor::from_array(dgx)), Some(Tensor::from_array(dgh)), Some(Tensor::from_array(dh))]);
        }
    }
    let (x, g) = (chunks(gx, 3)?, chunks(gh, 3)?);
    let r = x[0].binary(B::Add, &g[0])?.unary(U::Sigmoid)?;
    let z = x[1].binary(B::Add, &g[1])?.unary(U::Sigmoid)?;
    let n = x[2].binary(B::Add, &mul(&r, &g[2])?)?.unary(U::Tanh)?;
    let dn = mul(&mul(&dy, &one_minus(&z)?)?, &one_minus_sq(&n)?)?;
    let dr = mul(&mul(&dn, &g[2])?, &sigmoid_slope(&r)?)?;
    let dz = mul(&mul(&dy, &h.binary(B::Sub, &n)?)?, &sigmoid_slope(&z)?)?;
    let dgx = Tensor::cat(&[dr.clone(), dz.clone(), dn.clone()], 1)?;
    let dgh = Tensor::cat(&[dr, dz, mul(&dn, &r)?], 1)?;
    Ok(vec![Some(dgx), Some(dgh), Some(mul(&dy, &z)?)])
}
