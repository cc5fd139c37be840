//! Launcher of `shaders/loss.wgsl`: nll_loss of float32 or float64 rows in one kernel.

use bytemuck::{Pod, Zeroable};

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::loss::Reduction;

use super::batch::Launch;
use super::context::Context;
use super::float_shaders::{float_shaders, FloatShaders, Operand};
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
pub(crate) fn nll_loss(
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
