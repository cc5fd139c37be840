//! Launcher of `shaders/optim.wgsl`: the in-place optimizer updates (SGD, Adam/AdamW, RMSprop,
//! Adagrad) of contiguous float32 parameters on a wgpu device.

use bytemuck::{Pod, Zeroable};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::Storage;
use crate::tensor::Tensor;

pub use super::optim_step::{flags, Step};

use super::batch::{grid, Launch};
use super::context::Shader;
use super::storage::WgpuStorage;
use super::strided::u32_of;

static SHADER: Shader = Shader { name: "optim", source: include_str!("shaders/optim.wgsl"), storage: &[true, false, true, true, true] };

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    n: u32,
    flags: u32,
    offsets: [u32; 5],
    pad: u32,
    h: [f32; 8],
}

/// Applies `step` to `param` with its gradient and up to three state tensors, all contiguous
/// float32 tensors of the parameter's shape on its device (the caller has checked them).
pub fn optimizer_step(step: &Step, param: &Tensor, grad: &Tensor, state: &[&Tensor]) -> Result<()> {
    let all: Vec<&Tensor> = [param, grad].into_iter().chain(state.iter().copied()).collect();
    if state.len() > 3 || all.iter().any(|t| t.dtype() != DType::F32 || !t.is_contiguous()) {
        return Err(Error::Runtime("wgpu optimizer step: contiguous float32 tensors and at most three states".into()));
    }
    let mut buffers = Vec::with_capacity(5);
    let mut ctx = None;
    for t in &all {
        let st = t.storage_cell().read();
        match &*st {
            Storage::Wgpu(s) => {
                ctx = Some(s.ctx());
                buffers.push(s.buffer().clone());
            }
            Storage::Cpu(_) => return Err(Error::Runtime("wgpu optimizer step: expected wgpu tensors".into())),
        }
    }
    let ctx = ctx.ok_or_else(|| Error::Runtime("wgpu optimizer step: no tensors".into()))?;
    let n = param.numel();
    if n == 0 {
        return Ok(());
    }
    // Unused states are bound to scratch buffers of their own.
    let scratch: Vec<WgpuStorage> = (state.len()..3).map(|_| WgpuStorage::new(ctx, DType::F32, 1)).collect::<Result<_>>()?;
    buffers.extend(scratch.iter().map(|s| s.buffer().clone()));
    let mut offsets = [0u32; 5];
    for (o, t) in offsets.iter_mut().zip(&all) {
        *o = u32_of(t.storage_offset())?;
    }
    let params = Params { n: u32_of(n)?, flags: step.flags, offsets, pad: 0, h: step.h };
    let refs: Vec<&wgpu::Buffer> = buffers.iter().collect();
    ctx.launch(Launch {
        shader: &SHADER,
        entry: step.entry,
        op: None,
        params: bytemuck::bytes_of(&params),
        buffers: &refs,
        groups: grid(u32_of(n.div_ceil(256))?, ctx.limits.max_compute_workgroups_per_dimension),
    })?;
    for t in &all {
        if !t.same(grad) {
            t.storage_cell().bump_version();
        }
    }
    Ok(())
}
