//! The bindings of the fused recurrent cell steps (`crate::ops::nn::rnn_cell`), which
//! `rstorch.nn.modules.rnn` runs once per time step.

use pyo3::prelude::*;

use crate::ops::nn::rnn_cell;

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_lstm_cell, m)?)?;
    m.add_function(wrap_pyfunction!(_gru_cell, m)?)?;
    Ok(())
}
