//! Launcher of `shaders/rnn_cell.wgsl`: one LSTM or GRU time step's pointwise cell, forward and
//! backward, as one kernel each (the composite step is a dozen elementwise kernels per layer and
//! step, and as many autograd nodes). Float32 always, float64 where the device has it. Operands
//! and results are laid out as the CPU's kernels lay them (`cpu::rnn_cell`), `saved` included.

use bytemuck::{Pod, Zeroable};

use crate::backend::Array;
use crate::cpu::rnn_cell::{GRU_SAVED, LSTM_SAVED};
use crate::error::{Error, Result};

use super::batch::{grid, Launch};
use super::context::Context;
use super::float_shaders::{float_shaders, FloatShaders};
use super::operands::{buffer_of, dense, output, require_float};
use super::strided::u32_of;

// Three written bindings, then four read ones; each entry point names those it uses.
static CELL: FloatShaders = float_shaders!("rnn_cell", &[true, true, true, false, false, false, false], "rnn_cell.wgsl");

const KEEP: u32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    n: u32,
    hidden: u32,
    flags: u32,
    offsets: [u32; 4],
    pad: u32,
}

/// A dense operand: its array (kept alive for the launch), buffer and first element.
struct Input {
    array: Array,
    buffer: wgpu::Buffer,
}

impl Input {
    fn of(t: &Array, op: &str) -> Result<(&'static Context, Input)> {
        let array = dense(t)?;
        let (ctx, buffer) = buffer_of(&array, op)?;
        Ok((ctx, Input { array, buffer }))
    }

    /// The first element, checked so that the kernel's 32-bit indices past it cannot wrap.
    fn offset(&self) -> Result<u32> {
        let end = self
            .array
            .storage_offset()
            .checked_add(self.array.numel())
            .ok_or_else(|| Error::Runtime("rnn cell: operand too large".into()))?;
        u32_of(end)?;
        u32_of(self.array.storage_offset())
    }
}

/// Launches `entry` over the (rows, hidden) state with `outs` written and `ins` read; bindings
/// an entry leaves unnamed get stand-ins (a fresh one-element buffer for a written slot, the
/// last input for a read one), as the shader's single bind-group shape wants all seven.
fn launch(
    ctx: &'static Context,
    entry: &'static str,
    (rows, hidden): (usize, usize),
    flags: u32,
    outs: &[&wgpu::Buffer],
    ins: &[&Input],
) -> Result<()> {
    let n = rows.checked_mul(hidden).ok_or_else(|| Error::Runtime(format!("{entry}: state too large")))?;
    if n == 0 {
        return Ok(());
    }
    let dtype = ins[0].array.dtype();
    let mut offsets = [0u32; 4];
    for (slot, input) in offsets.iter_mut().zip(ins) {
        *slot = input.offset()?;
    }
    let params = Params { n: u32_of(n)?, hidden: u32_of(hidden)?, flags, offsets, pad: 0 };
    let stand_ins: Vec<(Array, wgpu::Buffer)> = (outs.len()..3).map(|_| output(ctx, &[1], dtype)).collect::<Result<_>>()?;
    let mut buffers: Vec<&wgpu::Buffer> = outs.to_vec();
    buffers.extend(stand_ins.iter().map(|(_, b)| b));
    buffers.extend(ins.iter().map(|i| &i.buffer));
    let last = &ins[ins.len() - 1].buffer;
    buffers.resize(7, last);
    ctx.launch(Launch {
        shader: CELL.of(ctx, dtype, entry)?,
        entry,
        op: None,
        params: bytemuck::bytes_of(&params),
        buffers: &buffers,
        groups: grid(u32_of(n.div_ceil(256))?, ctx.limits.max_compute_workgroups_per_dimension),
    })
}

/// The (rows, hidden) of a step whose state is `state`, with every block sized in 32 bits.
fn step_dims(state: &Array, gates: usize, op: &str) -> Result<(usize, usize)> {
    require_float(state, op)?;
    let &[rows, hidden] = state.shape() else {
        return Err(Error::Runtime(format!("{op}: expected a 2-D state, got {}-D", state.ndim())));
    };
    // The largest block a kernel indexes is rows x (gates + 1) x hidden (the LSTM's saved).
    let largest = rows.checked_mul(hidden).and_then(|n| n.checked_mul(gates + 1));
    u32_of(largest.ok_or_else(|| Error::Runtime(format!("{op}: state too large")))?)?;
    Ok((rows, hidden))
}

/// One LSTM step: `(h', c', saved)`, `saved` (rows, 5H) when `keep`, else (0, 5H).
pub fn lstm_forward(gx: &Array, gh: &Array, c: &Array, keep: bool) -> Result<(Array, Array, Array)> {
    let op = "_thnn_fused_lstm_cell";
    let (rows, hidden) = step_dims(c, 4, op)?;
    let (ctx, x) = Input::of(gx, op)?;
    let (_, g) = Input::of(gh, op)?;
    let (_, s) = Input::of(c, op)?;
    let (h, hb) = output(ctx, &[rows, hidden], c.dtype())?;
    let (cn, cb) = output(ctx, &[rows, hidden], c.dtype())?;
    let (saved, sb) = output(ctx, &[if keep { rows } else { 0 }, LSTM_SAVED * hidden], c.dtype())?;
    launch(ctx, "lstm_forward", (rows, hidden), if keep { KEEP } else { 0 }, &[&hb, &cb, &sb], &[&x, &g, &s])?;
    Ok((h, cn, saved))
}

/// The LSTM step's backward: `(d gates, d c)` from `saved`, `c` and the gradients of h' and c'.
pub fn lstm_backward(saved: &Array, c: &Array, dh: &Array, dc: &Array) -> Result<(Array, Array)> {
    let op = "_thnn_fused_lstm_cell_backward";
    let (rows, hidden) = step_dims(c, 4, op)?;
    let (ctx, s) = Input::of(saved, op)?;
    let (_, cv) = Input::of(c, op)?;
    let (_, dhv) = Input::of(dh, op)?;
    let (_, dcv) = Input::of(dc, op)?;
    let (dgates, gb) = output(ctx, &[rows, 4 * hidden], c.dtype())?;
    let (dc_prev, db) = output(ctx, &[rows, hidden], c.dtype())?;
    launch(ctx, "lstm_backward", (rows, hidden), 0, &[&gb, &db], &[&s, &cv, &dhv, &dcv])?;
    Ok((dgates, dc_prev))
}

/// One GRU step: `(h', saved)`, `saved` (rows, 4H) when `keep`, else (0, 4H).
pub fn gru_forward(gx: &Array, gh: &Array, h: &Array, keep: bool) -> Result<(Array, Array)> {
    let op = "_thnn_fused_gru_cell";
    let (rows, hidden) = step_dims(h, 3, op)?;
    let (ctx, x) = Input::of(gx, op)?;
    let (_, g) = Input::of(gh, op)?;
    let (_, hv) = Input::of(h, op)?;
    let (out, ob) = output(ctx, &[rows, hidden], h.dtype())?;
    let (saved, sb) = output(ctx, &[if keep { rows } else { 0 }, GRU_SAVED * hidden], h.dtype())?;
    launch(ctx, "gru_forward", (rows, hidden), if keep { KEEP } else { 0 }, &[&ob, &sb], &[&x, &g, &hv])?;
    Ok((out, saved))
}

/// The GRU step's backward: `(d gx, d gh, d h)` from `saved`, `h` and the gradient of h'.
pub fn gru_backward(saved: &Array, h: &Array, dy: &Array) -> Result<(Array, Array, Array)> {
    let op = "_thnn_fused_gru_cell_backward";
    let (rows, hidden) = step_dims(h, 3, op)?;
    let (ctx, s) = Input::of(saved, op)?;
    let (_, hv) = Input::of(h, op)?;
    let (_, dyv) = Input::of(dy, op)?;
    let (dgx, xb) = output(ctx, &[rows, 3 * hidden], h.dtype())?;
    let (dgh, gb) = output(ctx, &[rows, 3 * hidden], h.dtype())?;
    let (dh, hb) = output(ctx, &[rows, hidden], h.dtype())?;
    launch(ctx, "gru_backward", (rows, hidden), 0, &[&xb, &gb, &hb], &[&s, &hv, &dyv])?;
    Ok((dgx, dgh, dh))
}
