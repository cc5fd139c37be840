//! The kernels behind `rstorch.nn.functional`: convolutions, max pooling, the norms and nll_loss. The Python layer
//! normalises int-or-tuple arguments and handles bias and unbatched inputs.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::tensor::conv::ConvParams;
use crate::tensor::loss::Reduction;
use crate::tensor::pool::PoolParams;

use super::tensor::{run, PyTensor};

/// A pair of non-negative sizes; negative values are PyTorch's RuntimeErrors.
fn pair(v: (i64, i64), what: &str) -> PyResult<[usize; 2]> {
    if v.0 < 0 || v.1 < 0 {
        return Err(crate::error::Error::Runtime(format!("negative {what} is not supported")).into());
    }
    Ok([v.0 as usize, v.1 as usize])
}

fn conv_params(stride: (i64, i64), padding: (i64, i64), dilation: (i64, i64), groups: i64) -> PyResult<ConvParams> {
    if groups <= 0 {
        return Err(crate::error::Error::Runtime("non-positive groups is not supported".into()).into());
    }
    if stride.0 <= 0 || stride.1 <= 0 {
        return Err(crate::error::Error::Runtime("non-positive stride is not supported".into()).into());
    }
    Ok(ConvParams {
        stride: pair(stride, "stride")?,
        padding: pair(padding, "padding")?,
        dilation: pair(dilation, "dilation")?,
        groups: groups as usize,
    })
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _conv2d(
    py: Python<'_>,
    input: &PyTensor,
    weight: &PyTensor,
    bias: Option<&PyTensor>,
    stride: (i64, i64),
    padding: (i64, i64),
    dilation: (i64, i64),
    groups: i64,
) -> PyResult<PyTensor> {
    let p = conv_params(stride, padding, dilation, groups)?;
    let (x, w, b) = (&input.tensor(), &weight.tensor(), bias.map(|b| b.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel() * w.numel(), || x.conv2d(w, b.as_ref(), &p))?))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _conv_transpose2d(
    py: Python<'_>,
    input: &PyTensor,
    weight: &PyTensor,
    stride: (i64, i64),
    padding: (i64, i64),
    output_padding: (i64, i64),
    groups: i64,
    dilation: (i64, i64),
) -> PyResult<PyTensor> {
    let p = conv_params(stride, padding, dilation, groups)?;
    let op = pair(output_padding, "output padding")?;
    let (x, w) = (&input.tensor(), &weight.tensor());
    Ok(PyTensor::wrap(run(py, x.numel() * w.numel(), || x.conv_transpose2d(w, &p, op))?))
}

#[pyfunction]
fn _max_pool2d_with_indices(
    py: Python<'_>,
    input: &PyTensor,
    kernel_size: (i64, i64),
    stride: (i64, i64),
    padding: (i64, i64),
    dilation: (i64, i64),
    ceil_mode: bool,
) -> PyResult<(PyTensor, PyTensor)> {
    let positive = |v: (i64, i64), what: &str| -> PyResult<[usize; 2]> {
        if v.0 <= 0 || v.1 <= 0 {
            return Err(PyValueError::new_err(format!("{what} must be greater than zero, but got {v:?}")));
        }
        pair(v, what)
    };
    let p = PoolParams {
        kernel: positive(kernel_size, "kernel_size")?,
        stride: positive(stride, "stride")?,
        padding: pair(padding, "padding")?,
        dilation: positive(dilation, "dilation")?,
        ceil_mode,
    };
    let x = &input.tensor();
    let (v, i) = run(py, x.numel(), || x.max_pool2d_with_indices(&p))?;
    Ok((PyTensor::wrap(v), PyTensor::wrap(i)))
}

/// Layer norm over the last `normalized` dims (the Python layer checked the shapes).
#[pyfunction]
fn _layer_norm(
    py: Python<'_>,
    input: &PyTensor,
    normalized: usize,
    weight: Option<&PyTensor>,
    bias: Option<&PyTensor>,
    eps: f64,
) -> PyResult<PyTensor> {
    let (x, w, b) = (&input.tensor(), weight.map(|w| w.tensor()), bias.map(|b| b.tensor()));
    Ok(PyTensor::wrap(run(py, x.numel(), || x.layer_norm(normalized, w.as_ref(), b.as_ref(), eps))?))
}

/// Batch norm; returns the output and the batch's mean and biased variance (the running
/// estimates' update is the Python layer's, as in PyTorch's functional code).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _batch_norm(
    py: Python<'_>,
    input: &PyTensor,
    weight: Option<&PyTensor>,
    bias: Option<&PyTensor>,
    running_mean: Option<&PyTensor>,
    running_var: Option<&PyTensor>,
    training: bool,
    eps: f64,
) -> PyResult<(PyTensor, PyTensor, PyTensor)> {
    let (x, w, b) = (&input.tensor(), weight.map(|w| w.tensor()), bias.map(|b| b.tensor()));
    let (rm, rv) = (running_mean.map(|t| t.tensor()), running_var.map(|t| t.tensor()));
    let running = rm.as_ref().zip(rv.as_ref());
    let (out, mean, var) = run(py, x.numel(), || x.batch_norm(w.as_ref(), b.as_ref(), running, training, eps))?;
    Ok((PyTensor::wrap(out), PyTensor::wrap(mean), PyTensor::wrap(var)))
}

/// nll_loss as one kernel, or None where it does not apply (the Python layer then composes it;
/// it has checked the target's shape against the scores').
#[pyfunction]
fn _nll_loss(
    py: Python<'_>,
    input: &PyTensor,
    target: &PyTensor,
    weight: Option<&PyTensor>,
    ignore_index: i64,
    reduction: &str,
) -> PyResult<Option<PyTensor>> {
    let reduction = Reduction::parse(reduction)?;
    let (x, t, w) = (&input.tensor(), &target.tensor(), weight.map(|w| w.tensor()));
    Ok(run(py, x.numel(), || x.nll_loss_fused(t, w.as_ref(), ignore_index, reduction))?.map(PyTensor::wrap))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_nll_loss, m)?)?;
    m.add_function(wrap_pyfunction!(_layer_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_batch_norm, m)?)?;
    m.add_function(wrap_pyfunction!(_conv2d, m)?)?;
    m.add_function(wrap_pyfunction!(_conv_transpose2d, m)?)?;
    m.add_function(wrap_pyfunction!(_max_pool2d_with_indices, m)?)?;
    Ok(())
}
