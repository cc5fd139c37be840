//! Launcher of `shaders/loss.wgsl`: nll_loss of float32 or float64 rows in one kernel.
//! Below them, the tensor-level entry points the tensor layer calls: they check dtypes, take
//! the operands' buffers, allocate the outputs and launch.

use bytemuck::{Pod, Zeroable};

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::reduction::Reduction;
use crate::storage::Storage;

use super::batch::Launch;
use super::context::Context;
use super::float_shaders::{float_shaders, FloatShaders, Operand};
use super::operands::{buffer_of, dense, output, require_float};
use super::storage::WgpuStorage;
use super::strided::u32_of;

static NLL_LOSS: FloatShaders = float_shaders!("nll_loss", &[true, true, true, false, false, false], "loss.wgsl");

const HAS_WEIGHT: u32 = 1;
const MEAN: u32 = 2;
const PER_ROW: u32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    n: u32,
    classes: u32,
    flags: u32,
    off_s: u32,
    off_t: u32,
    off_w: u32,
    ignore: [u32; 2],
}

/// Buffers the kernel writes: the loss (one, or one per row), the per-row slopes, and the
/// per-row picks as int64 followed by a zeroed flag word.
pub(crate) struct Outputs<'a> {
    pub loss: &'a wgpu::Buffer,
    pub slopes: &'a wgpu::Buffer,
    pub picks: &'a wgpu::Buffer,
}

/// nll_loss of `n` contiguous rows of `classes` `dtype` scores against int64 `targets`, with
/// optional per-class `weights`, their losses combined as `reduction` says.
#[allow(clippy::too_many_arguments)]
fn launch_nll_loss(
    ctx: &Context,
    dtype: DType,
    scores: Operand<'_>,
    targets: Operand<'_>,
    weights: Option<Operand<'_>>,
    (n, classes): (usize, usize),
    ignore_index: i64,
    reduction: Reduction,
    out: Outputs<'_>,
) -> Result<()> {
    // Also with no rows: a sum of none is 0, a mean NaN.
    u32_of(n * classes)?;
    let flags = if weights.is_some() { HAS_WEIGHT } else { 0 }
        | match reduction {
            Reduction::None => PER_ROW,
            Reduction::Sum => 0,
            Reduction::Mean => MEAN,
        };
    let bits = ignore_index as u64;
    let params = Params {
        n: u32_of(n)?,
        classes: u32_of(classes)?,
        flags,
        off_s: u32_of(scores.1)?,
        off_t: u32_of(targets.1)?,
        off_w: u32_of(weights.map_or(0, |w| w.1))?,
        ignore: [bits as u32, (bits >> 32) as u32],
    };
    // Without weights the scores stand in for them (the flags tell the kernel not to read them).
    let weights = weights.map_or(scores.0, |w| w.0);
    ctx.launch(Launch {
        shader: NLL_LOSS.of(ctx, dtype, "nll_loss")?,
        entry: "nll_loss",
        op: None,
        params: bytemuck::bytes_of(&params),
        buffers: &[out.loss, out.slopes, out.picks, scores.0, targets.0, weights],
        groups: [1, 1, 1],
    })
}

// ----- Array-level entry points ---------------------------------------------------------

/// nll_loss of the float32 or float64 `scores` (rows of `classes`) against the int64 `target`
/// (one per row), with optional per-class `weight`s, in one kernel: the loss (of `out_shape`:
/// one per row without reduction), and per row the slope d loss / d score at the target and
/// that target (0 where ignored), as the backward needs them. None where a target is out of
/// range: the one flag word read back.
pub fn nll_loss(
    scores: &Array,
    target: &Array,
    weight: Option<&Array>,
    classes: usize,
    ignore_index: i64,
    reduction: Reduction,
    out_shape: &[usize],
) -> Result<Option<(Array, Array, Array)>> {
    require_float(scores, "nll_loss")?;
    let dt = scores.dtype();
    let n = target.numel();
    let (scores, target) = (dense(scores)?, dense(target)?);
    let weight = weight.map(dense).transpose()?;
    let (ctx, sb) = buffer_of(&scores, "nll_loss")?;
    let (_, tb) = buffer_of(&target, "nll_loss")?;
    let wb = weight.as_ref().map(|w| buffer_of(w, "nll_loss")).transpose()?;
    let (loss, lb) = output(ctx, out_shape, dt)?;
    let (slopes, slb) = output(ctx, &[n], dt)?;
    // The picks, then the flag word as one more int64 element, zeroed.
    let picks = WgpuStorage::new(ctx, DType::I64, n + 1)?;
    let pb = picks.buffer().clone();
    ctx.record(|enc| enc.clear_buffer(&pb, n as u64 * 8, Some(8)));
    let weights = weight.as_ref().zip(wb.as_ref()).map(|(w, (_, b))| (b, w.storage_offset()));
    let outputs = Outputs { loss: &lb, slopes: &slb, picks: &pb };
    launch_nll_loss(
        ctx,
        dt,
        (&sb, scores.storage_offset()),
        (&tb, target.storage_offset()),
        weights,
        (n, classes),
        ignore_index,
        reduction,
        outputs,
    )?;
    if picks.read_word(2 * n)? != 0 {
        return Ok(None);
    }
    let picks = Array::new(Storage::Wgpu(picks), Layout::contiguous(vec![n + 1])?).narrow(0, 0, n)?.view_as(&[n, 1])?;
    Ok(Some((loss, slopes, picks)))
}
