//! The writes to positions held on the device (`index_put_` and `index_add_` with int64 target
//! positions made there): the targets are sorted on the device (`reduce::sort`) into per-output
//! segments, so repeated targets sum, or keep the last write, in a fixed order on every run.

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};

use super::context::Context;
use super::elementwise;
use super::operands::{buffer_of, dense, view};
use super::reduce::sort;
use super::storage::WgpuStorage;

/// The `segment_sum` / `segment_last` list for values aimed at row-major `targets` (int64 on
/// the device, each inside `0..n`) of an output of `n` elements, from a contiguous source.
fn segment_list(ctx: &'static Context, n: usize, targets: &Array, src: &Array) -> Result<WgpuStorage> {
    let m = targets.numel();
    let flat = dense(targets)?.view_as(&[m])?;
    let order = sort(&flat, 0, false)?;
    let (_, tb) = buffer_of(&flat, "index_add")?;
    let (_, pb) = buffer_of(&order, "index_add")?;
    let list = WgpuStorage::new(ctx, DType::I32, n + 1 + m)?;
    elementwise::segment_list(ctx, (&tb, flat.storage_offset()), &pb, (n, m), src.storage_offset(), list.buffer())?;
    Ok(list)
}

/// Adds, in order of `k`, element `k` of the contiguous `src` to element `targets[k]` of the
/// contiguous `out` (which starts with its own values): the targets are row-major positions
/// in out, int64 on the device, checked by whoever made them. Repeated targets sum the same
/// way on every run, and as the CPU sums them. Float16/bfloat16 accumulate in float32,
/// integers in int64.
pub fn add_at_positions(out: &Array, targets: &Array, src: &Array) -> Result<()> {
    move_to_positions(out, targets, src, true)
}

/// Writes element `k` of the contiguous `src` to element `targets[k]` of the contiguous `out`,
/// as `add_at_positions` adds; of repeated targets the last in order wins.
pub fn put_at_positions(out: &Array, targets: &Array, src: &Array) -> Result<()> {
    move_to_positions(out, targets, src, false)
}

/// `add_at_positions` (`add`) or `put_at_positions`.
fn move_to_positions(out: &Array, targets: &Array, src: &Array, add: bool) -> Result<()> {
    let op = if add { "index_add" } else { "index_put_" };
    if !out.is_contiguous()
        || src.dtype() != out.dtype()
        || !src.is_contiguous()
        || targets.dtype() != DType::I64
        || targets.numel() != src.numel()
    {
        return Err(Error::Runtime(format!(
            "wgpu {op}: a contiguous output, a contiguous source of its dtype and one int64 target per source element"
        )));
    }
    if targets.numel() == 0 || out.numel() == 0 {
        return Ok(());
    }
    let (ctx, ob) = buffer_of(out, op)?;
    let (_, sb) = buffer_of(src, op)?;
    let list = segment_list(ctx, out.numel(), targets, src)?;
    if add {
        elementwise::segment_sum(ctx, &sb, list.buffer(), view(out, &ob))?;
    } else {
        elementwise::segment_last(ctx, &sb, list.buffer(), view(out, &ob))?;
    }
    out.storage().bump_version();
    Ok(())
}
