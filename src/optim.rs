//! Optimizer updates (SGD, Adam/AdamW, RMSprop, Adagrad) applied in place to whole parameter
//! lists in one call, with PyTorch's formulas: this layer checks each parameter's gradient and
//! state, creates SGD's momentum buffers, and describes the update as a `backend::Step` (entry
//! point, flag bits, hyperparameters in float64) that the parameter's backend applies (the CPU in
//! `cpu::optim`, a wgpu device in `wgpu::optim`, both with the same formulas).

use crate::backend::{step_flags as F, Array, Step};
use crate::dtype::DType;
use crate::error::{Error, Result};
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

/// Checks `param`'s gradient and state (`others`: the gradient, then the state in the order the
/// update names it), then has the parameter's backend apply `step`.
fn apply(step: Step, param: &Tensor, others: &[&Tensor]) -> Result<()> {
    let state: Vec<&Array> = others[1..].iter().map(|t| t.array()).collect();
    let run = || param.backend().optimizer_step(&step, param.array(), others[0].array(), &state);
    // Updates exist for float32 and float64 parameters. For another dtype the backend's
    // refusal, in its own words, comes before any complaint about the state.
    if !matches!(param.dtype(), DType::F32 | DType::F64) {
        return run();
    }
    check_buffers(param, others)?;
    run()
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
        apply(Step { entry: "sgd", flags, h }, p, &others)?;
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
        let flags = flag(c.maximize, F::MAXIMIZE)
            | flag(c.weight_decay != 0.0, F::DECAY)
            | flag(c.amsgrad, F::STATE)
            | flag(c.decoupled, F::DECOUPLED);
        let h = hyper(&[1.0 - c.beta1, c.beta2, 1.0 - c.beta2, c.weight_decay, c.eps, c.lr / bc1, bc2_sqrt, 1.0 - c.lr * c.weight_decay]);
        apply(Step { entry: "adam", flags, h }, p, &others)?;
    }
    Ok(())
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
        let flags = flag(c.maximize, F::MAXIMIZE)
            | flag(c.weight_decay != 0.0, F::DECAY)
            | flag(with_momentum, F::STATE)
            | flag(c.centered, F::CENTERED);
        let h = hyper(&[c.alpha, 1.0 - c.alpha, c.weight_decay, c.eps, c.lr, c.momentum]);
        apply(Step { entry: "rmsprop", flags, h }, p, &others)?;
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
        let flags = flag(c.maximize, F::MAXIMIZE) | flag(c.weight_decay != 0.0, F::DECAY);
        apply(Step { entry: "adagrad", flags, h: hyper(&[c.weight_decay, c.eps, clr]) }, p, &[&g, sum])?;
    }
    Ok(())
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
