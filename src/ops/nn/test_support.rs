//! What the tests of the nn ops share: leaves that require grad, and the gradient of an
//! output's sum.

use crate::error::Result;
use crate::tensor::Tensor;

/// A float64 leaf of `shape` that requires grad.
pub fn leaf(values: Vec<f64>, shape: &[usize]) -> Result<Tensor> {
    let t = Tensor::from_vec(values, shape)?;
    t.set_requires_grad(true)?;
    Ok(t)
}

/// The gradient of `out.sum()` with respect to `x`, as float64 values.
pub fn grad_of(out: &Tensor, x: &Tensor) -> Result<Vec<f64>> {
    let g = crate::autograd::grad(&[out.sum(None, false)?], &[None], std::slice::from_ref(x), false, false, false)?;
    g[0].as_ref().expect("a gradient").to_vec::<f64>()
}
