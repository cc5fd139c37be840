//! Optimizer updates (SGD, Adam/AdamW, RMSprop, Adagrad) applied in place to whole parameter
//! lists in one call, with PyTorch's formulas in PyTorch's order of operations; parameters on a
//! wgpu device are updated there by `wgpu::optim` with the same formulas.
//!
//! Every update is elementwise, so splitting a parameter across threads cannot change a bit.

use crate::cpu::parallel::{get_num_threads, run_tasks};
use crate::cpu::simd::dispatch;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The float types parameters can have, with the few operations the updates need.
pub trait OptFloat:
    Element + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self>
{
    fn sqrt(self) -> Self;
    fn max(self, o: Self) -> Self;
    fn of(v: f64) -> Self;
}

impl OptFloat for f32 {
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if self >= o || self.is_nan() {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn of(v: f64) -> Self {
        v as f32
    }
}

impl OptFloat for f64 {
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if self >= o || self.is_nan() {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn of(v: f64) -> Self {
        v
    }
}

/// Elements per task when one parameter is split across threads.
const CHUNK: usize = 1 << 14;

/// Runs `update(index_range_start, chunk_len)` over `0..n`, in parallel when `n` is large.
fn for_chunks(n: usize, update: impl Fn(usize, usize) + Sync) {
    if n >= 4 * CHUNK && get_num_threads() > 1 {
        run_tasks(n.div_ceil(CHUNK), |c| update(c * CHUNK, CHUNK.min(n - c * CHUNK)));
    } else {
        update(0, n);
    }
}

/// A raw view of a contiguous tensor's elements, shareable across the chunk tasks; each task
/// touches a disjoint range.
#[derive(Clone, Copy)]
struct Raw<T>(*mut T);
unsafe impl<T> Send for Raw<T> {}
unsafe impl<T> Sync for Raw<T> {}

impl<T> Raw<T> {
    /// # Safety
    /// `start + len` must be within the tensor and no other task may hold an overlapping range.
    unsafe fn range<'a>(self, start: usize, len: usize) -> &'a mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(start), len)
    }
}

/// Checks that every tensor of one parameter's update is a distinct, contiguous tensor of the
/// parameter's shape and of `dtype`, all on one device.
fn check_buffers(param: &Tensor, others: &[&Tensor], dtype: DType) -> Result<()> {
    for (i, t) in others.iter().enumerate() {
        if t.shape() != param.shape() {
            return Err(Error::Runtime(format!(
                "optimizer: tensor {} has shape {:?} but the parameter has shape {:?}",
                i,
                t.shape(),
                param.shape()
            )));
        }
        if t.shares_storage(param) || others[..i].iter().any(|o| o.shares_storage(t)) {
            return Err(Error::Runtime("optimizer: a gradient or state tensor shares memory with its parameter".into()));
        }
    }
    let all: Vec<&Tensor> = std::iter::once(param).chain(others.iter().copied()).collect();
    crate::device::common_device(&all, false)?;
    for t in &all {
        if !t.is_contiguous() || t.dtype() != dtype {
            return Err(Error::Runtime("optimizer: parameters and their state must be contiguous and of one dtype".into()));
        }
    }
    Ok(())
}

/// The update of a parameter on a GPU: float32, or float64 where the device has float64 shaders.
fn on_device(step: crate::backend::Step, param: &Tensor, others: &[&Tensor]) -> Result<()> {
    if !matches!(param.dtype(), DType::F32 | DType::F64) {
        return Err(crate::storage::dtype_not_on_device("optimizer step", param.dtype(), param.device()));
    }
    check_buffers(param, others, param.dtype())?;
    let state: Vec<&crate::backend::Array> = others[1..].iter().map(|t| t.array()).collect();
    param.backend().optimizer_step(&step, param.array(), others[0].array(), &state)
}

/// `check_buffers`, then hands `f` the elements of the parameter and the other tensors.
fn with_buffers<T: OptFloat, R>(param: &Tensor, others: &[&Tensor], f: impl FnOnce(&[Raw<T>], usize) -> R) -> Result<R> {
    check_buffers(param, others, T::DTYPE)?;
    let all: Vec<&Tensor> = std::iter::once(param).chain(others.iter().copied()).collect();
    // Hold every storage's write lock for the duration of the update.
    let mut guards = Vec::with_capacity(all.len());
    let mut raws = Vec::with_capacity(all.len());
    for t in &all {
        let mut g = t.storage_cell().write();
        let slice = g.cpu_mut("optimizer step")?.as_mut_slice::<T>();
        raws.push(Raw(slice[t.storage_offset()..].as_mut_ptr()));
        guards.push(g);
    }
    let r = f(&raws, param.numel());
    drop(guards);
    for t in &all {
        t.storage_cell().bump_version();
    }
    Ok(r)
}

/// A contiguous copy of `t` in dtype `like`'s dtype when it is not one already.
fn prepared(t: &Tensor, dtype: DType) -> Result<Tensor> {
    if t.is_contiguous() && t.dtype() == dtype {
        Ok(t.clone())
    } else {
        t.copy_as(dtype)
    }
}

fn flag(on: bool, bit: u32) -> u32 {
    if on {
        bit
    } else {
        0
    }
}

/// Hyperparameters as the GPU kernels take them, in a fixed array of eight.
fn hyper(values: &[f64]) -> [f64; 8] {
    let mut h = [0f64; 8];
    for (d, &v) in h.iter_mut().zip(values) {
        *d = v;
    }
    h
}

macro_rules! float_dispatch {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            d => Err(Error::NotImplemented(format!("optimizer step for {} parameters", d.name()))),
        }
    };
}

#[derive(Clone, Copy, Debug)]
pub struct Sgd {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
}

/// One SGD step for each parameter; returns the momentum buffers (created on the first step).
pub fn sgd_step(params: &[Tensor], grads: &[Tensor], bufs: Vec<Option<Tensor>>, c: &Sgd) -> Result<Vec<Option<Tensor>>> {
    let mut out = Vec::with_capacity(params.len());
    for ((p, g), buf) in params.iter().zip(grads).zip(bufs) {
        let g = prepared(g, p.dtype())?;
        let fresh = buf.is_none() && c.momentum != 0.0;
        let buf = match buf {
            Some(b) => Some(b),
            None if c.momentum != 0.0 => Some(Tensor::zeros_on(p.shape(), p.dtype(), p.device())?),
            None => None,
        };
        let mut others = vec![&g];
        others.extend(buf.as_ref());
        if !p.device().is_cpu() {
            use crate::backend::{step_flags as F, Step};
            let f = flag(c.maximize, F::MAXIMIZE)
                | flag(c.weight_decay != 0.0, F::DECAY)
                | flag(buf.is_some(), F::STATE)
                | flag(fresh, F::FRESH)
                | flag(c.nesterov, F::NESTEROV);
            let h = hyper(&[c.lr, c.momentum, 1.0 - c.dampening, c.weight_decay]);
            on_device(Step { entry: "sgd", flags: f, h }, p, &others)?;
            out.push(buf);
            continue;
        }
        float_dispatch!(p.dtype(), T => with_buffers::<T, _>(p, &others, |raw, n| {
            let (lr, m, damp, wd) = (T::of(c.lr), T::of(c.momentum), T::of(1.0 - c.dampening), T::of(c.weight_decay));
            for_chunks(n, |s, len| {
                // SAFETY: disjoint ranges of tensors checked to hold n elements each.
                let (p, g) = unsafe { (raw[0].range(s, len), raw[1].range(s, len)) };
                let mut buf = raw.get(2).map(|b| unsafe { b.range(s, len) });
                for i in 0..len {
                    let mut d = if c.maximize { T::zero() - g[i] } else { g[i] };
                    if c.weight_decay != 0.0 {
                        d += wd * p[i];
                    }
                    if let Some(b) = buf.as_deref_mut() {
                        b[i] = if fresh { d } else { b[i] * m + damp * d };
                        d = if c.nesterov { d + m * b[i] } else { b[i] };
                    }
                    p[i] -= lr * d;
                }
            });
        }))?;
        out.push(buf);
    }
    Ok(out)
}

#[derive(Clone, Copy, Debug)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub amsgrad: bool,
    pub maximize: bool,
    /// AdamW: weight decay shrinks the parameter directly instead of adding to the gradient.
    pub decoupled: bool,
}

/// One Adam (or AdamW) step. `state[i]` is (exp_avg, exp_avg_sq, max_exp_avg_sq if amsgrad);
/// `steps[i]` is the step count after this update.
pub fn adam_step(params: &[Tensor], grads: &[Tensor], state: &[Vec<Tensor>], steps: &[f64], c: &Adam) -> Result<()> {
    for (((p, g), st), &step) in params.iter().zip(grads).zip(state).zip(steps) {
        let g = prepared(g, p.dtype())?;
        let mut others = vec![&g];
        others.extend(st.iter().take(if c.amsgrad { 3 } else { 2 }));
        if others.len() != if c.amsgrad { 4 } else { 3 } {
            return Err(Error::Runtime("adam: missing optimizer state".into()));
        }
        let bc1 = 1.0 - c.beta1.powf(step);
        let bc2_sqrt = (1.0 - c.beta2.powf(step)).sqrt();
        if !p.device().is_cpu() {
            use crate::backend::{step_flags as F, Step};
            let f = flag(c.maximize, F::MAXIMIZE)
                | flag(c.weight_decay != 0.0, F::DECAY)
                | flag(c.amsgrad, F::STATE)
                | flag(c.decoupled, F::DECOUPLED);
            let h =
                hyper(&[1.0 - c.beta1, c.beta2, 1.0 - c.beta2, c.weight_decay, c.eps, c.lr / bc1, bc2_sqrt, 1.0 - c.lr * c.weight_decay]);
            on_device(Step { entry: "adam", flags: f, h }, p, &others)?;
            continue;
        }
        let decay = match (c.weight_decay != 0.0, c.decoupled) {
            (false, _) => NO_DECAY,
            (true, false) => COUPLED_DECAY,
            (true, true) => DECOUPLED_DECAY,
        };
        float_dispatch!(p.dtype(), T => with_buffers::<T, _>(p, &others, |raw, n| {
            let k = AdamConsts {
                b1w: T::of(1.0 - c.beta1),
                b2: T::of(c.beta2),
                b2w: T::of(1.0 - c.beta2),
                wd: T::of(c.weight_decay),
                eps: T::of(c.eps),
                step_size: T::of(c.lr / bc1),
                bc2s: T::of(bc2_sqrt),
                shrink: T::of(1.0 - c.lr * c.weight_decay),
                maximize: c.maximize,
                decay,
            };
            for_chunks(n, |s, len| {
                // SAFETY: disjoint ranges of tensors checked to hold n elements each.
                let (p, g, m, v) = unsafe { (raw[0].range(s, len), raw[1].range(s, len), raw[2].range(s, len), raw[3].range(s, len)) };
                let vmax = raw.get(4).map_or(&mut [][..], |b| unsafe { b.range(s, len) });
                dispatch(AdamChunk { p, g, m, v, vmax, k });
            });
        }))?;
    }
    Ok(())
}

/// How weight decay enters an Adam update: not at all, added to the gradient (Adam), or
/// shrinking the parameter (AdamW).
const NO_DECAY: u8 = 0;
const COUPLED_DECAY: u8 = 1;
const DECOUPLED_DECAY: u8 = 2;

/// The constants of one Adam update, in the parameter's float type.
#[derive(Clone, Copy)]
struct AdamConsts<T> {
    b1w: T,
    b2: T,
    b2w: T,
    wd: T,
    eps: T,
    step_size: T,
    bc2s: T,
    shrink: T,
    maximize: bool,
    decay: u8,
}

/// One chunk of an Adam update (`vmax` empty without amsgrad), run through `dispatch` so the
/// loop compiles for the widest vector instructions, with its options fixed outside the loop.
struct AdamChunk<'a, T> {
    p: &'a mut [T],
    g: &'a [T],
    m: &'a mut [T],
    v: &'a mut [T],
    vmax: &'a mut [T],
    k: AdamConsts<T>,
}

impl<T: OptFloat> pulp::WithSimd for AdamChunk<'_, T> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let AdamChunk { p, g, m, v, vmax, k } = self;
        macro_rules! with_decay {
            ($maximize:literal, $ams:literal) => {
                match k.decay {
                    NO_DECAY => adam_elements::<T, $maximize, NO_DECAY, $ams>(p, g, m, v, vmax, &k),
                    COUPLED_DECAY => adam_elements::<T, $maximize, COUPLED_DECAY, $ams>(p, g, m, v, vmax, &k),
                    _ => adam_elements::<T, $maximize, DECOUPLED_DECAY, $ams>(p, g, m, v, vmax, &k),
                }
            };
        }
        match (k.maximize, !vmax.is_empty()) {
            (false, false) => with_decay!(false, false),
            (false, true) => with_decay!(false, true),
            (true, false) => with_decay!(true, false),
            (true, true) => with_decay!(true, true),
        }
    }
}

/// PyTorch's Adam formulas, in its order of operations, over one chunk.
#[inline(always)]
fn adam_elements<T: OptFloat, const MAXIMIZE: bool, const DECAY: u8, const AMSGRAD: bool>(
    p: &mut [T],
    g: &[T],
    m: &mut [T],
    v: &mut [T],
    vmax: &mut [T],
    k: &AdamConsts<T>,
) {
    let n = p.len();
    // Sliced to one length, so the loop needs no bounds checks.
    let (g, m, v) = (&g[..n], &mut m[..n], &mut v[..n]);
    let vmax = if AMSGRAD { &mut vmax[..n] } else { vmax };
    for i in 0..n {
        let mut d = if MAXIMIZE { T::zero() - g[i] } else { g[i] };
        if DECAY == DECOUPLED_DECAY {
            p[i] = p[i] * k.shrink;
        } else if DECAY == COUPLED_DECAY {
            d = d + k.wd * p[i];
        }
        m[i] = m[i] + k.b1w * (d - m[i]);
        v[i] = v[i] * k.b2 + k.b2w * d * d;
        let second = if AMSGRAD {
            vmax[i] = vmax[i].max(v[i]);
            vmax[i]
        } else {
            v[i]
        };
        let denom = second.sqrt() / k.bc2s + k.eps;
        p[i] = p[i] - k.step_size * (m[i] / denom);
    }
}

#[derive(Clone, Copy, Debug)]
pub struct RmsProp {
    pub lr: f64,
    pub alpha: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub momentum: f64,
    pub centered: bool,
    pub maximize: bool,
}

/// One RMSprop step. `state[i]` is (square_avg, momentum_buffer if momentum > 0, grad_avg if
/// centered), in that order.
pub fn rmsprop_step(params: &[Tensor], grads: &[Tensor], state: &[Vec<Tensor>], c: &RmsProp) -> Result<()> {
    let with_momentum = c.momentum > 0.0;
    let expected = 1 + with_momentum as usize + c.centered as usize;
    for ((p, g), st) in params.iter().zip(grads).zip(state) {
        if st.len() != expected {
            return Err(Error::Runtime("rmsprop: missing optimizer state".into()));
        }
        let g = prepared(g, p.dtype())?;
        let mut others = vec![&g];
        others.extend(st.iter());
        if !p.device().is_cpu() {
            use crate::backend::{step_flags as F, Step};
            let f = flag(c.maximize, F::MAXIMIZE)
                | flag(c.weight_decay != 0.0, F::DECAY)
                | flag(with_momentum, F::STATE)
                | flag(c.centered, F::CENTERED);
            let h = hyper(&[c.alpha, 1.0 - c.alpha, c.weight_decay, c.eps, c.lr, c.momentum]);
            on_device(Step { entry: "rmsprop", flags: f, h }, p, &others)?;
            continue;
        }
        float_dispatch!(p.dtype(), T => with_buffers::<T, _>(p, &others, |raw, n| {
            let (alpha, aw, wd, eps, lr, mom) =
                (T::of(c.alpha), T::of(1.0 - c.alpha), T::of(c.weight_decay), T::of(c.eps), T::of(c.lr), T::of(c.momentum));
            for_chunks(n, |s, len| {
                // SAFETY: disjoint ranges of tensors checked to hold n elements each.
                let (p, g, sq) = unsafe { (raw[0].range(s, len), raw[1].range(s, len), raw[2].range(s, len)) };
                let mut buf = with_momentum.then(|| unsafe { raw[3].range(s, len) });
                let mut gavg = c.centered.then(|| unsafe { raw[2 + expected - 1].range(s, len) });
                for i in 0..len {
                    let mut d = if c.maximize { T::zero() - g[i] } else { g[i] };
                    if c.weight_decay != 0.0 {
                        d += wd * p[i];
                    }
                    sq[i] = sq[i] * alpha + aw * d * d;
                    let avg = match gavg.as_deref_mut() {
                        Some(ga) => {
                            ga[i] = ga[i] + aw * (d - ga[i]);
                            (sq[i] - ga[i] * ga[i]).sqrt() + eps
                        }
                        None => sq[i].sqrt() + eps,
                    };
                    match buf.as_deref_mut() {
                        Some(b) => {
                            b[i] = b[i] * mom + d / avg;
                            p[i] -= lr * b[i];
                        }
                        None => p[i] -= lr * (d / avg),
                    }
                }
            });
        }))?;
    }
    Ok(())
}

#[derive(Clone, Copy, Debug)]
pub struct Adagrad {
    pub lr: f64,
    pub lr_decay: f64,
    pub weight_decay: f64,
    pub eps: f64,
    pub maximize: bool,
}

/// One Adagrad step; `sums[i]` is the running sum of squared gradients, `steps[i]` the step
/// count after this update.
pub fn adagrad_step(params: &[Tensor], grads: &[Tensor], sums: &[Tensor], steps: &[f64], c: &Adagrad) -> Result<()> {
    for (((p, g), sum), &step) in params.iter().zip(grads).zip(sums).zip(steps) {
        let g = prepared(g, p.dtype())?;
        let clr = c.lr / (1.0 + (step - 1.0) * c.lr_decay);
        if !p.device().is_cpu() {
            use crate::backend::{step_flags as F, Step};
            let f = flag(c.maximize, F::MAXIMIZE) | flag(c.weight_decay != 0.0, F::DECAY);
            on_device(Step { entry: "adagrad", flags: f, h: hyper(&[c.weight_decay, c.eps, clr]) }, p, &[&g, sum])?;
            continue;
        }
        float_dispatch!(p.dtype(), T => with_buffers::<T, _>(p, &[&g, sum], |raw, n| {
            let (wd, eps, clr) = (T::of(c.weight_decay), T::of(c.eps), T::of(clr));
            for_chunks(n, |s, len| {
                // SAFETY: disjoint ranges of tensors checked to hold n elements each.
                let (p, g, acc) = unsafe { (raw[0].range(s, len), raw[1].range(s, len), raw[2].range(s, len)) };
                for i in 0..len {
                    let mut d = if c.maximize { T::zero() - g[i] } else { g[i] };
                    if c.weight_decay != 0.0 {
                        d += wd * p[i];
                    }
                    acc[i] += d * d;
                    p[i] -= clr * (d / (acc[i].sqrt() + eps));
                }
            });
        }))?;
    }
    Ok(())
}
