//! A whole LSTM layer (one direction) over a sequence as one op with one backward node, as
//! PyTorch's CPU build records it (`MkldnnRnnLayerBackward0`): the forward runs each step's
//! state product and fused cell without recording them, and the backward walks the steps in
//! reverse with the fused cell's backward, then forms the recurrent weight's and bias's
//! gradients for all steps at once. Per-step nodes cost more than the steps' arithmetic at the
//! sizes of a language model (a 20 x 200 state), and summing 35 per-step weight gradients of 20
//! rows each ran the product far below the speed of one product over 700 rows.
//!
//! The input's projection `gx = W_ih x + b_ih` stays a separate op (one product for the whole
//! sequence), so its gradient flows back through the usual `addmm` node. Under create_graph the
//! backward recomputes the layer step by step in recorded ops and differentiates that graph, so
//! higher derivatives exist. Where a backend has no fused cell (half precision), the layer is
//! those recorded steps from the start.

use crate::autograd::op::OpNode;
use crate::autograd::{is_grad_enabled, keep_buffers, record, GradMode, Node, Op};
use crate::error::{Error, Result};
use crate::ops::nn::linear::linear;
use crate::ops::nn::rnn_cell;
use crate::tensor::{BinaryOp as B, Scalar, Tensor};

pub const NODE: &str = "MkldnnRnnLayerBackward0";

/// The operands of a layer: the input's projection `gx` (T, B, 4H), the initial state `h0` and
/// cell `c0` (B, H), the recurrent weight `w_hh` (4H, H) and its bias `b_hh` (4H).
pub struct LstmLayer<'a> {
    pub gx: &'a Tensor,
    pub h0: &'a Tensor,
    pub c0: &'a Tensor,
    pub w_hh: &'a Tensor,
    pub b_hh: Option<&'a Tensor>,
    /// Whether the steps run from the last time step to the first (a bidirectional layer's
    /// reverse direction).
    pub reverse: bool,
}

impl LstmLayer<'_> {
    fn inputs(&self) -> Vec<&Tensor> {
        let mut v = vec![self.gx, self.h0, self.c0, self.w_hh];
        v.extend(self.b_hh);
        v
    }

    fn check(&self) -> Result<(usize, usize, usize)> {
        let op = "lstm layer";
        let [steps, rows, gates] = self.gx.shape() else {
            return Err(Error::Runtime(format!("{op}: expected 3-D input gates, got {}-D", self.gx.ndim())));
        };
        let hidden = gates / 4;
        let want = [(self.h0, vec![*rows, hidden]), (self.c0, vec![*rows, hidden]), (self.w_hh, vec![*gates, hidden])];
        for (t, shape) in want {
            if t.shape() != shape.as_slice() || gates % 4 != 0 {
                return Err(Error::Runtime(format!(
                    "{op}: input gates {:?}, state {:?}, cell {:?} and weight {:?} do not fit",
                    self.gx.shape(),
                    self.h0.shape(),
                    self.c0.shape(),
                    self.w_hh.shape()
                )));
            }
        }
        if let Some(b) = self.b_hh.filter(|b| b.shape() != [*gates]) {
            return Err(Error::Runtime(format!("{op}: expected a bias of size [{gates}], got {:?}", b.shape())));
        }
        Ok((*steps, *rows, hidden))
    }

    /// The time steps in the order they run.
    fn order(&self, steps: usize) -> Vec<usize> {
        match self.reverse {
            true => (0..steps).rev().collect(),
            false => (0..steps).collect(),
        }
    }

    /// The layer as recorded steps (state product, fused cell): `(output, h_n, c_n)`.
    fn recorded_steps(&self, steps: usize) -> Result<(Tensor, Tensor, Tensor)> {
        let (mut h, mut c) = (self.h0.clone(), self.c0.clone());
        let mut outs = vec![None; steps];
        for t in self.order(steps) {
            let gh = linear(&h, self.w_hh, self.b_hh)?;
            (h, c) = rnn_cell::lstm_cell(&self.gx.select(0, t as i64)?, &gh, &c)?;
            outs[t] = Some(h.clone());
        }
        let outs: Vec<Tensor> = outs.into_iter().map(|o| o.expect("every step ran")).collect();
        Ok((Tensor::stack(&outs, 0)?, h, c))
    }
}

/// Runs the layer: `(output (T, B, H), h_n, c_n)`.
pub fn lstm_layer(layer: &LstmLayer<'_>) -> Result<(Tensor, Tensor, Tensor)> {
    let (steps, _, _) = layer.check()?;
    let inputs = layer.inputs();
    crate::device::common_device(&inputs, false)?;
    let keep = is_grad_enabled() && inputs.iter().any(|t| t.requires_grad());
    let fused = steps > 0 && rnn_cell::fused_dtype(layer.gx) && inputs.iter().all(|t| t.dtype() == layer.gx.dtype());
    let Some((out, h, c, kept)) = (if fused { fused_forward(layer, steps, keep)? } else { None }) else {
        return layer.recorded_steps(steps);
    };
    if keep {
        // Every input is saved for create_graph's recomputation; the fused backward reads the
        // state, the weight, the output (the states entering the steps) and the buffers.
        let all: Vec<usize> = (0..inputs.len()).collect();
        record(Op::LstmLayer { reverse: layer.reverse }, &inputs, &[&out, &h, &c], &all, &[0]);
        keep_buffers(&out, kept);
    }
    Ok((out, h, c))
}

/// The steps without recording: the outputs and, when `keep`, each step's cell activations
/// followed by the cell state entering each step (in the order the steps ran). None where the
/// backend has no fused cell.
#[allow(clippy::type_complexity)]
fn fused_forward(layer: &LstmLayer<'_>, steps: usize, keep: bool) -> Result<Option<(Tensor, Tensor, Tensor, Vec<Tensor>)>> {
    let _no_grad = GradMode::set(false);
    let (mut h, mut c) = (layer.h0.clone(), layer.c0.clone());
    let mut outs = vec![None; steps];
    let (mut activations, mut cells) = (vec![], vec![]);
    // The weight transposed once: each step's product then reads both operands row-major (a 20 x
    // 200 state by a 200 x 800 weight: 98 -> 50 us, against `linear`'s transposed view).
    let w_t = layer.w_hh.t()?.contiguous()?;
    let one = Scalar::Int(1);
    for t in layer.order(steps) {
        let gh = match layer.b_hh {
            Some(b) => b.addmm(&h, &w_t, one, one)?,
            None => h.mm(&w_t)?,
        };
        let gx = layer.gx.select(0, t as i64)?;
        let Some((h_new, c_new, saved)) = c.backend().lstm_cell(gx.array(), gh.array(), c.array(), keep)? else {
            return Ok(None);
        };
        if keep {
            activations.push(Tensor::from_array(saved));
            cells.push(c);
        }
        (h, c) = (Tensor::from_array(h_new), Tensor::from_array(c_new));
        outs[t] = Some(h.clone());
    }
    let outs: Vec<Tensor> = outs.into_iter().map(|o| o.expect("every step ran")).collect();
    activations.extend(cells);
    Ok(Some((Tensor::stack(&outs, 0)?, h, c, activations)))
}

/// The gradients of a layer's node for its inputs (gx, h0, c0, w_hh and b_hh when given) from
/// those of (output, h_n, c_n).
pub(crate) fn backward(node: &OpNode, reverse: bool, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
    let n = node.next_edges().len();
    let (gx, h0, c0, w_hh) = (node.input(0)?, node.input(1)?, node.input(2)?, node.input(3)?);
    let b_hh = if n == 5 { Some(node.input(4)?) } else { None };
    let layer = LstmLayer { gx: &gx, h0: &h0, c0: &c0, w_hh: &w_hh, b_hh: b_hh.as_ref(), reverse };
    let grad = |i: usize| grads.get(i).cloned().flatten();
    if grads.iter().all(Option::is_none) {
        return Ok(vec![None; n]);
    }
    let out = if is_grad_enabled() {
        recorded_backward(node, &layer, grads)?
    } else {
        fused_backward(node, &layer, [grad(0), grad(1), grad(2)])?
    };
    Ok(out.into_iter().enumerate().map(|(i, g)| g.filter(|_| node.needs_grad(i))).collect())
}

/// create_graph: the layer recomputed as recorded steps from the saved inputs (which carry
/// their history), differentiated down to the node's edges.
fn recorded_backward(node: &OpNode, layer: &LstmLayer<'_>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
    let steps = layer.gx.shape()[0];
    let (out, h, c) = layer.recorded_steps(steps)?;
    let roots = [out, h, c].iter().zip(grads).filter_map(|(o, g)| Some((o.gradient_edge()?, g.clone()?))).collect();
    crate::autograd::composite::run_to_edges(roots, node.next_edges())
}

fn fused_backward(node: &OpNode, layer: &LstmLayer<'_>, grads: [Option<Tensor>; 3]) -> Result<Vec<Option<Tensor>>> {
    let [d_out, dh_n, dc_n] = grads;
    let (steps, rows, hidden) = layer.check()?;
    let zeros = || Tensor::zeros_on(&[rows, hidden], layer.c0.dtype(), layer.c0.device());
    let buffer = |i: usize| node.buffer(i).ok_or_else(crate::autograd::op::freed);
    // The gradients reaching the state and the cell after the step being undone.
    let mut dh = dh_n;
    let mut dc = match dc_n {
        Some(g) => g,
        None => zeros()?,
    };
    let mut dgates = vec![None; steps];
    for (k, t) in layer.order(steps).into_iter().enumerate().rev() {
        let from_output = d_out.as_ref().map(|g| g.select(0, t as i64)).transpose()?;
        let dh_t = match (from_output, dh.take()) {
            (Some(a), Some(b)) => a.binary(B::Add, &b)?,
            (Some(g), None) | (None, Some(g)) => g,
            (None, None) => zeros()?,
        };
        let (activations, c_in) = (buffer(k)?, buffer(steps + k)?);
        let (dh_t, dc_t) = (dh_t.contiguous()?, dc.contiguous()?);
        let Some((dg, dc_prev)) = c_in.backend().lstm_cell_backward(activations.array(), c_in.array(), dh_t.array(), dc_t.array())? else {
            return Err(Error::Runtime("lstm layer: the backend lost its fused cell between forward and backward".into()));
        };
        let dg = Tensor::from_array(dg);
        dh = Some(dg.mm(layer.w_hh)?);
        dc = Tensor::from_array(dc_prev);
        dgates[t] = Some(dg);
    }
    let dgates: Vec<Tensor> = dgates.into_iter().map(|g| g.expect("every step ran")).collect();
    let dgx = Tensor::stack(&dgates, 0)?;
    let flat = dgx.reshape(&[(steps * rows) as i64, (4 * hidden) as i64])?;
    let mut out = vec![Some(dgx.clone()), dh, Some(dc), None];
    if node.needs_grad(3) {
        // Σ_t dgates_t^T h_(t-1): one product over every step's rows.
        let out_h = node.output(0)?;
        let before = |range: (i64, i64)| out_h.narrow(0, range.0, range.1);
        let entering = if steps == 1 {
            layer.h0.unsqueeze(0)?
        } else if layer.reverse {
            Tensor::cat(&[before((1, steps as i64 - 1))?, layer.h0.unsqueeze(0)?], 0)?
        } else {
            Tensor::cat(&[layer.h0.unsqueeze(0)?, before((0, steps as i64 - 1))?], 0)?
        };
        let entering = entering.reshape(&[(steps * rows) as i64, hidden as i64])?;
        out[3] = Some(flat.t()?.mm(&entering)?);
    }
    if layer.b_hh.is_some() {
        out.push(node.needs_grad(4).then(|| flat.sum(Some(&[0]), false)).transpose()?);
    }
    Ok(out)
}
