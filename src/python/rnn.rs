//! The bindings of the fused recurrent cell steps (`crate::ops::nn::rnn_cell`) and of the whole
//! LSTM layer (`crate::ops::nn::rnn_layer`), which `rstorch.nn.modules.rnn` runs.

use pyo3::prelude::*;

use crate::ops::nn::rnn_cell;
use crate::ops::nn::rnn_layer::{lstm_layer, LstmLayer};

use super::gil::run;
use super::tensor_object::PyTensor;

/// `(h', c')` of one LSTM step from the gate pre-activations (input's and state's projections,
/// biases included) and the cell state.
#[pyfunction]
fn _lstm_cell(py: Python<'_>, input_gates: &PyTensor, hidden_gates: &PyTensor, cx: &PyTensor) -> PyResult<(PyTensor, PyTensor)> {
    let (gx, gh, c) = (&input_gates.tensor(), &hidden_gates.tensor(), &cx.tensor());
    let (h, c) = run(py, gx.numel(), || rnn_cell::lstm_cell(gx, gh, c))?;
    Ok((PyTensor::wrap(h), PyTensor::wrap(c)))
}

/// h' of one GRU step from the gate pre-activations and the state.
#[pyfunction]
fn _gru_cell(py: Python<'_>, input_gates: &PyTensor, hidden_gates: &PyTensor, hx: &PyTensor) -> PyResult<PyTensor> {
    let (gx, gh, h) = (&input_gates.tensor(), &hidden_gates.tensor(), &hx.tensor());
    Ok(PyTensor::wrap(run(py, gx.numel(), || rnn_cell::gru_cell(gx, gh, h))?))
}

/// `(output, h_n, c_n)` of one direction of an LSTM layer over a sequence from the input's
/// projection (T, B, 4H, its bias included), the initial state and cell, and the recurrent
/// weight and bias; `reverse` runs the steps from the last to the first.
#[pyfunction]
#[pyo3(signature = (input_gates, hx, cx, weight_hh, bias_hh=None, reverse=false))]
fn _lstm_layer(
    py: Python<'_>,
    input_gates: &PyTensor,
    hx: &PyTensor,
    cx: &PyTensor,
    weight_hh: &PyTensor,
    bias_hh: Option<&PyTensor>,
    reverse: bool,
) -> PyResult<(PyTensor, PyTensor, PyTensor)> {
    let (gx, h0, c0, w_hh) = (&input_gates.tensor(), &hx.tensor(), &cx.tensor(), &weight_hh.tensor());
    let b_hh = bias_hh.map(PyTensor::tensor);
    let layer = LstmLayer { gx, h0, c0, w_hh, b_hh: b_hh.as_ref(), reverse };
    let (out, h, c) = run(py, gx.numel().saturating_mul(w_hh.shape().last().copied().unwrap_or(0)), || lstm_layer(&layer))?;
    Ok((PyTensor::wrap(out), PyTensor::wrap(h), PyTensor::wrap(c)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_lstm_cell, m)?)?;
    m.add_function(wrap_pyfunction!(_gru_cell, m)?)?;
    m.add_function(wrap_pyfunction!(_lstm_layer, m)?)?;
    Ok(())
}
