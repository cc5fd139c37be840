//! The fused optimizer updates behind `rstorch.optim`: one call per step over a parameter list,
//! applied as one multi-tensor pass per device.

use pyo3::prelude::*;

use crate::optim::{adagrad_step, adam_step, rmsprop_step, sgd_step, Adagrad, Adam, RmsProp, Sgd};
use crate::tensor::Tensor;

use super::tensor_object::PyTensor;

fn tensors(list: &[PyRef<'_, PyTensor>]) -> Vec<Tensor> {
    list.iter().map(|t| t.tensor()).collect()
}

fn check_lengths(params: usize, others: &[usize]) -> PyResult<()> {
    if others.iter().any(|&n| n != params) {
        return Err(pyo3::exceptions::PyValueError::new_err("optimizer step: every list must have one entry per parameter"));
    }
    Ok(())
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _sgd_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    momentum_buffers: Vec<Option<PyRef<'_, PyTensor>>>,
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    maximize: bool,
) -> PyResult<Vec<Option<PyTensor>>> {
    check_lengths(params.len(), &[grads.len(), momentum_buffers.len()])?;
    let (p, g) = (tensors(&params), tensors(&grads));
    let bufs: Vec<Option<Tensor>> = momentum_buffers.iter().map(|b| b.as_ref().map(|b| b.tensor())).collect();
    let c = Sgd { lr, momentum, dampening, weight_decay, nesterov, maximize };
    let out = py.detach(|| sgd_step(&p, &g, bufs, &c))?;
    Ok(out.into_iter().map(|b| b.map(PyTensor::wrap)).collect())
}

/// Adam/AdamW over a whole parameter list in one multi-tensor pass (PyTorch's foreach/fused
/// step): advances every step counter, then updates every parameter and its state in place.
/// `max_exp_avg_sqs` is empty without amsgrad.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _adam_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    exp_avgs: Vec<PyRef<'_, PyTensor>>,
    exp_avg_sqs: Vec<PyRef<'_, PyTensor>>,
    max_exp_avg_sqs: Vec<PyRef<'_, PyTensor>>,
    state_steps: Vec<PyRef<'_, PyTensor>>,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    amsgrad: bool,
    maximize: bool,
    decoupled_weight_decay: bool,
) -> PyResult<()> {
    let maxes = if amsgrad { max_exp_avg_sqs.len() } else { params.len() };
    check_lengths(params.len(), &[grads.len(), exp_avgs.len(), exp_avg_sqs.len(), maxes, state_steps.len()])?;
    let (p, g) = (tensors(&params), tensors(&grads));
    let (m, v, vmax) = (tensors(&exp_avgs), tensors(&exp_avg_sqs), tensors(&max_exp_avg_sqs));
    let st: Vec<Vec<Tensor>> = (0..p.len())
        .map(|i| {
            let mut s = vec![m[i].clone(), v[i].clone()];
            s.extend(vmax.get(i).filter(|_| amsgrad).cloned());
            s
        })
        .collect();
    let steps = tensors(&state_steps);
    let c = Adam { lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled: decoupled_weight_decay };
    Ok(py.detach(|| adam_step(&p, &g, &st, &steps, &c))?)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _rmsprop_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    state: Vec<Vec<PyRef<'_, PyTensor>>>,
    state_steps: Vec<PyRef<'_, PyTensor>>,
    lr: f64,
    alpha: f64,
    eps: f64,
    weight_decay: f64,
    momentum: f64,
    centered: bool,
    maximize: bool,
) -> PyResult<()> {
    check_lengths(params.len(), &[grads.len(), state.len(), state_steps.len()])?;
    let (p, g) = (tensors(&params), tensors(&grads));
    let st: Vec<Vec<Tensor>> = state.iter().map(|s| tensors(s)).collect();
    let steps = tensors(&state_steps);
    let c = RmsProp { lr, alpha, eps, weight_decay, momentum, centered, maximize };
    Ok(py.detach(|| rmsprop_step(&p, &g, &st, &steps, &c))?)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _adagrad_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    state_sums: Vec<PyRef<'_, PyTensor>>,
    state_steps: Vec<PyRef<'_, PyTensor>>,
    lr: f64,
    lr_decay: f64,
    weight_decay: f64,
    eps: f64,
    maximize: bool,
) -> PyResult<()> {
    check_lengths(params.len(), &[grads.len(), state_sums.len(), state_steps.len()])?;
    let (p, g, s) = (tensors(&params), tensors(&grads), tensors(&state_sums));
    let steps = tensors(&state_steps);
    let c = Adagrad { lr, lr_decay, weight_decay, eps, maximize };
    Ok(py.detach(|| adagrad_step(&p, &g, &s, &steps, &c))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sgd_step, m)?)?;
    m.add_function(wrap_pyfunction!(_adam_step, m)?)?;
    m.add_function(wrap_pyfunction!(_rmsprop_step, m)?)?;
    m.add_function(wrap_pyfunction!(_adagrad_step, m)?)?;
    Ok(())
}
