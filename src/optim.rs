//! Optimizer updates (SGD, Adam/AdamW, RMSprop, Adagrad) applied in place to whole parameter
//! lists in one call, with PyTorch's formulas: this layer checks each parameter's gradient and
//! state, creates SGD's momentum buffers, and describes the update as a `backend::Step` (entry
//! point, flag bits, hyperparameters in float64) that the parameter's backend applies (the CPU in
//! `cpu::optim`, a wgpu device in `wgpu::optim`, both with the same formulas).

use crate::backend::{step_flags as F, Step, StepJob};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::tensor::arith::Arg;
use crate::tensor::Tensor;

/// Checks that every tensor of one parameter's update is a distinct, contiguous tensor of the
/// parameter's shape and dtype, all on one device.
fn check_buffers(param: &Tensor, others: &[&Tensor]) -> Result<()> {
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
        if !t.is_contiguous() || t.dtype() != param.dtype() {
            return Err(Error::Runtime("optimizer: parameters and their state must be contiguous and of one dtype".into()));
        }
    }
    Ok(())
}

/// The updates of one optimizer step over a parameter list, gathered parameter by parameter
/// and then applied together: one multi-tensor call per device with all of its parameters.
#[derive(Default)]
struct Updates {
    /// Each parameter's update, the parameter, then its gradient and state tensors.
    jobs: Vec<(Step, Tensor, Vec<Tensor>)>,
}

impl Updates {
    /// Checks `param`'s gradient and state (`others`: the gradient, then the state in the order
    /// the update names it) and queues `step` for it. For a dtype without an update (neither
    /// float32 nor float64) the backend's refusal, in its own words, is what the caller gets
    /// (when the list runs), not a complaint about the state.
    fn push(&mut self, step: Step, param: &Tensor, others: &[&Tensor]) -> Result<()> {
        if matches!(param.dtype(), DType::F32 | DType::F64) {
            check_buffers(param, others)?;
        }
        self.jobs.push((step, param.clone(), others.iter().map(|&t| t.clone()).collect()));
        Ok(())
    }

    /// Applies every queued update: each device's parameters in one call to its backend.
    fn run(self) -> Result<()> {
        let mut devices = Vec::new();
        for (_, p, _) in &self.jobs {
            if !devices.contains(&p.device()) {
                devices.push(p.device());
            }
        }
        for device in devices {
            let mine: Vec<&(Step, Tensor, Vec<Tensor>)> = self.jobs.iter().filter(|(_, p, _)| p.device() == device).collect();
            let jobs: Vec<StepJob<'_>> = mine
                .iter()
                .map(|(step, p, others)| StepJob {
                    step: *step,
                    param: p.array(),
                    grad: others[0].array(),
                    state: others[1..].iter().map(Tensor::array).collect(),
                })
                .collect();
            mine[0].1.backend().optimizer_steps(&jobs)?;
        }
        Ok(())
    }
}

/// Adds one to each step counter (a one-element float tensor, as PyTorch keeps "step") and
/// returns the new counts, as the counters hold them (a float32 counter rounds as PyTorch's).
fn advance(steps: &[Tensor]) -> Result<Vec<f64>> {
    steps.iter().map(advance_one).collect()
}

fn advance_one(t: &Tensor) -> Result<f64> {
    let a = t.array();
    // A host counter outside autograd (every counter the optimizers create) is bumped in place
    // directly: a tensor op per parameter would cost more than a small parameter's update.
    if a.device() == Device::Cpu && a.numel() == 1 && !t.requires_grad() {
        let next = {
            let mut g = a.storage().write();
            let s = g.cpu_mut("optimizer step")?;
            let off = a.storage_offset();
            match a.dtype() {
                DType::F32 => {
                    let v = &mut s.as_mut_slice::<f32>()[off];
                    *v += 1.0;
                    Some(*v as f64)
                }
                DType::F64 => {
                    let v = &mut s.as_mut_slice::<f64>()[off];
                    *v += 1.0;
                    Some(*v)
                }
                _ => None,
            }
        };
        if let Some(next) = next {
            a.storage().bump_version();
            return Ok(next);
        }
    }
    let next = t.item()?.to_f64() + 1.0;
    t.fill_(Arg::S(Scalar::Float(next)))?;
    Ok(if t.dtype() == DType::F32 { next as f32 as f64 } else { next })
}

/// A contiguous copy of `t` in `dtype` when it is not one already.
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

/// Hyperparameters as the update kernels take them, in a fixed array of eight.
fn hyper(values: &[f64]) -> [f64; 8] {
    let mut h = [0f64; 8];
    for (d, &v) in h.iter_mut().zip(values) {
        *d = v;
    }
    h
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
    let mut updates = Updates::default();
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
        let flags = flag(c.maximize, F::MAXIMIZE)
            | flag(c.weight_decay != 0.0, F::DECAY)
            | flag(buf.is_some(), F::STATE)
            | flag(fresh, F::FRESH)
            | flag(c.nesterov, F::NESTEROV);
        let h = hyper(&[c.lr, c.momentum, 1.0 - c.dampening, c.weight_decay]);
        updates.push(Step { entry: "sgd", flags, h }, p, &others)?;
        out.push(buf);
    }
    updates.run()?;
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

/// One Adam (or AdamW) step of every parameter, in one multi-tensor pass. `state[i]` is
/// (exp_avg, exp_avg_sq, max_exp_avg_sq if amsgrad); `steps[i]` is the parameter's step counter,
/// which this step advances by one before reading it, as PyTorch does.
pub fn adam_step(params: &[Tensor], grads: &[Tensor], state: &[Vec<Tensor>], steps: &[Tensor], c: &Adam) -> Result<()> {
    if state.iter().any(|st| st.len() < if c.amsgrad { 3 } else { 2 }) {
        return Err(Error::Runtime("adam: missing optimizer state".into()));
    }
    let steps = advance(steps)?;
    let mut updates = Updates::default();
    for (((p, g), st), &step) in params.iter().zip(grads).zip(state).zip(&steps) {
        let g = prepared(g, p.dtype())?;
        let mut others = vec![&g];
        others.extend(st.iter().take(if c.amsgrad { 3 } else { 2 }));
        let bc1 = 1.0 - c.beta1.powf(step);
        let bc2_sqrt = (1.0 - c.beta2.powf(step)).sqrt();
        let flags = flag(c.maximize, F::MAXIMIZE)
            | flag(c.weight_decay != 0.0, F::DECAY)
            | flag(c.amsgrad, F::STATE)
            | flag(c.decoupled, F::DECOUPLED);
        let h = hyper(&[1.0 - c.beta1, c.beta2, 1.0 - c.beta2, c.weight_decay, c.eps, c.lr / bc1, bc2_sqrt, 1.0 - c.lr * c.weight_decay]);
        updates.push(Step { entry: "adam", flags, h }, p, &others)?;
    }
    updates.run()
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

/// One RMSprop step of every parameter, in one multi-tensor pass. `state[i]` is (square_avg,
/// momentum_buffer if momentum > 0, grad_avg if centered), in that order; `steps[i]` is the
/// parameter's step counter, advanced by one (the update does not read it).
pub fn rmsprop_step(params: &[Tensor], grads: &[Tensor], state: &[Vec<Tensor>], steps: &[Tensor], c: &RmsProp) -> Result<()> {
    let with_momentum = c.momentum > 0.0;
    let expected = 1 + with_momentum as usize + c.centered as usize;
    if state.iter().any(|st| st.len() != expected) {
        return Err(Error::Runtime("rmsprop: missing optimizer state".into()));
    }
    advance(steps)?;
    let mut updates = Updates::default();
    for ((p, g), st) in params.iter().zip(grads).zip(state) {
        let g = prepared(g, p.dtype())?;
        let mut others = vec![&g];
        others.extend(st.iter());
        let flags = flag(c.maximize, F::MAXIMIZE)
            | flag(c.weight_decay != 0.0, F::DECAY)
            | flag(with_momentum, F::STATE)
            | flag(c.centered, F::CENTERED);
        let h = hyper(&[c.alpha, 1.0 - c.alpha, c.weight_decay, c.eps, c.lr, c.momentum]);
        updates.push(Step { entry: "rmsprop", flags, h }, p, &others)?;
    }
    updates.run()
}

#[derive(Clone, Copy, Debug)]
pub struct Adagrad {
    pub lr: f64,
    pub lr_decay: f64,
    pub weight_decay: f64,
    pub eps: f64,
    pub maximize: bool,
}

/// One Adagrad step of every parameter, in one multi-tensor pass; `sums[i]` is the running sum
/// of squared gradients, `steps[i]` the parameter's step counter, advanced by one first.
pub fn adagrad_step(params: &[Tensor], grads: &[Tensor], sums: &[Tensor], steps: &[Tensor], c: &Adagrad) -> Result<()> {
    let steps = advance(steps)?;
    let mut updates = Updates::default();
    for (((p, g), sum), &step) in params.iter().zip(grads).zip(sums).zip(&steps) {
        let g = prepared(g, p.dtype())?;
        let clr = c.lr / (1.0 + (step - 1.0) * c.lr_decay);
        let flags = flag(c.maximize, F::MAXIMIZE) | flag(c.weight_decay != 0.0, F::DECAY);
        updates.push(Step { entry: "adagrad", flags, h: hyper(&[c.weight_decay, c.eps, clr]) }, p, &[&g, sum])?;
    }
    updates.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_dtype_without_an_update_is_refused_before_its_state_is_checked() {
        let p = Tensor::from_vec(vec![1f32, 2.0], &[2]).unwrap().to_dtype(DType::F16).unwrap();
        let c = Sgd { lr: 0.1, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false, maximize: false };
        // The parameter is its own gradient, which the state checks refuse for float32.
        let err = sgd_step(std::slice::from_ref(&p), std::slice::from_ref(&p), vec![None], &c).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::NotImplemented, "{err}");
        assert!(err.to_string().contains("float16"), "{err}");
        let p = p.to_dtype(DType::F32).unwrap();
        let err = sgd_step(std::slice::from_ref(&p), std::slice::from_ref(&p), vec![None], &c).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Runtime, "{err}");
    }
}
