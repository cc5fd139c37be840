//! Launcher of `shaders/optim.wgsl`: the in-place optimizer updates (SGD, Adam/AdamW, RMSprop,
//! Adagrad) of contiguous float32 or float64 parameters on a wgpu device (float64 where the
//! device has float64 shaders, computing in float64 as the CPU does).

use crate::backend::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::{dtype_not_on_device, Storage};

use crate::backend::{Step, StepJob};

use super::batch::{grid, Launch};
use super::shader::Shader;
use super::storage::WgpuStorage;
use super::strided::u32_of;

const WRITTEN: &[bool] = &[true, false, true, true, true];
static SHADER_F32: Shader = Shader {
    name: "optim_f32",
    source: concat!(include_str!("shaders/optim_f32.wgsl"), include_str!("shaders/optim.wgsl")),
    storage: WRITTEN,
    trusted: false,
};
static SHADER_F64: Shader = Shader {
    name: "optim_f64",
    source: concat!(include_str!("shaders/optim_f64.wgsl"), include_str!("shaders/optim.wgsl")),
    storage: WRITTEN,
    trusted: false,
};

/// The shader's `Params`: n, flags, five offsets and a pad word, then the eight hyperparameters
/// in the parameters' float type (at byte 32, where both float32 and float64 vectors align).
fn params(n: u32, flags: u32, offsets: [u32; 5], h: &[f64; 8], f64: bool) -> Vec<u8> {
    let mut words = vec![n, flags];
    words.extend(offsets);
    words.push(0);
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
    if f64 {
        bytes.extend_from_slice(bytemuck::cast_slice(h));
    } else {
        bytes.extend_from_slice(bytemuck::cast_slice(&h.map(|v| v as f32)));
    }
    bytes
}

/// Applies every job's update: one dispatch per parameter, all recorded into the device's
/// current command batch (one submission for the whole list, not one per parameter). The jobs'
/// dtypes are all checked before the first dispatch is recorded.
pub fn optimizer_steps(jobs: &[StepJob<'_>]) -> Result<()> {
    for job in jobs {
        let dt = job.param.dtype();
        if !matches!(dt, DType::F32 | DType::F64) {
            return Err(dtype_not_on_device("optimizer step", dt, job.param.device()));
        }
    }
    for job in jobs {
        optimizer_step(&job.step, job.param, job.grad, &job.state)?;
    }
    Ok(())
}

/// Applies `step` to `param` with its gradient and up to three state tensors, all contiguous
/// tensors of the parameter's shape and dtype on its device (the caller has checked them); the
/// dtype is float32, or float64 on a device with float64 shaders.
fn optimizer_step(step: &Step, param: &Array, grad: &Array, state: &[&Array]) -> Result<()> {
    let all: Vec<&Array> = [param, grad].into_iter().chain(state.iter().copied()).collect();
    let dt = param.dtype();
    if !matches!(dt, DType::F32 | DType::F64) {
        return Err(dtype_not_on_device("optimizer step", dt, param.device()));
    }
    if state.len() > 3 || all.iter().any(|t| t.dtype() != dt || !t.is_contiguous()) {
        return Err(Error::Runtime("wgpu optimizer step: contiguous tensors of one dtype and at most three states".into()));
    }
    let mut buffers = Vec::with_capacity(5);
    let mut ctx = None;
    for t in &all {
        let st = t.storage().read();
        match &*st {
            Storage::Wgpu(s) => {
                ctx = Some(s.ctx());
                buffers.push(s.buffer().clone());
            }
            Storage::Cpu(_) => return Err(Error::Runtime("wgpu optimizer step: expected wgpu tensors".into())),
        }
    }
    let ctx = ctx.ok_or_else(|| Error::Runtime("wgpu optimizer step: no tensors".into()))?;
    let f64 = dt == DType::F64;
    if f64 {
        ctx.require_f64("optimizer step")?;
    }
    let n = param.numel();
    if n == 0 {
        return Ok(());
    }
    // Unused states are bound to scratch buffers of their own.
    let scratch: Vec<WgpuStorage> = (state.len()..3).map(|_| WgpuStorage::new(ctx, dt, 1)).collect::<Result<_>>()?;
    buffers.extend(scratch.iter().map(|s| s.buffer().clone()));
    let mut offsets = [0u32; 5];
    for (o, t) in offsets.iter_mut().zip(&all) {
        *o = u32_of(t.storage_offset())?;
    }
    let refs: Vec<&wgpu::Buffer> = buffers.iter().collect();
    ctx.launch(Launch {
        shader: if f64 { &SHADER_F64 } else { &SHADER_F32 },
        entry: step.entry,
        op: None,
        params: &params(u32_of(n)?, step.flags, offsets, &step.h, f64),
        buffers: &refs,
        groups: grid(u32_of(n.div_ceil(256))?, ctx.limits.max_compute_workgroups_per_dimension),
    })?;
    for t in &all {
        if !std::ptr::eq(*t, grad) {
            t.storage().bump_version();
        }
    }
    Ok(())
}
