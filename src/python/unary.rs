//! `Tensor.X` for every unary op declared in `crate::ops::unary` (an op with parameters takes
//! them as keywords), and `_C._unary_ops()`, the names the Python layer turns into `torch.X` and
//! `Tensor.X_`.

use pyo3::prelude::*;

use crate::ops::unary::{unary_op_table, PY_IN_PLACE, PY_IN_PLACE_OPS, PY_METHODS};
use crate::tensor::UnaryOp;

use super::gil::run;
use super::tensor_object::PyTensor;

macro_rules! bind_unary_ops {
    (plain {$($V:ident {
        name: $name:literal, node: $node:literal, ints: $ints:literal, reads: ($ri:literal, $ro:literal), wgpu: $code:tt,
        py: [$($py:ident),*], inplace: [$($ip:ident),*],
        cpu: |$cx:ident| $cpu:expr,
        grad: |$g:ident, $x:ident, $y:ident| $grad:expr,
    })*}
    with_params {$($PV:ident { $($p:ident = $default:expr),* } {
        name: $pname:literal, node: $pnode:literal, reads: ($pri:literal, $pro:literal), wgpu: $pcode:literal,
        py: $ppy:ident, in_place: $keeps:ident, ints: [$($pints:tt)*],
        cpu: |$pcx:ident| $pcpu:expr,
        grad: |$pg:ident, $px:ident, $py_:ident, $from_result:ident| $pgrad:expr,
    })*}) => {
        #[pymethods]
        impl PyTensor {
            $($(
                fn $py(&self, py: Python<'_>) -> PyResult<PyTensor> {
                    let t = &self.tensor();
                    Ok(PyTensor::wrap(run(py, t.numel(), || t.unary(UnaryOp::$V))?))
                }
            )*)*
            $(
                /// The op with its parameters as PyTorch's keywords, for `nn.functional`.
                #[pyo3(signature = ($($p = $default),*))]
                fn $ppy(&self, py: Python<'_>, $($p: f64),*) -> PyResult<PyTensor> {
                    let t = &self.tensor();
                    Ok(PyTensor::wrap(run(py, t.numel(), || t.unary(UnaryOp::$PV { $($p),* }))?))
                }
            )*
        }
    };
}

unary_op_table!(bind_unary_ops);

#[pymethods]
impl PyTensor {
    /// `Tensor.X_` of the declared op `PY_IN_PLACE[index]`: the op written over self.
    fn _unary_<'py>(slf: &Bound<'py, Self>, index: usize) -> PyResult<Bound<'py, Self>> {
        let op = *PY_IN_PLACE_OPS.get(index).ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no such in-place unary op"))?;
        let t = &slf.get().tensor();
        run(slf.py(), t.numel(), || t.unary_(op))?;
        Ok(slf.clone())
    }

    /// The in-place form of the op with parameters bound as `Tensor.<py>` (`F.leaky_relu(x,
    /// 0.2, inplace=True)` is `x._unary_param_("_leaky_relu", [0.2])`): the op written over self.
    fn _unary_param_<'py>(slf: &Bound<'py, Self>, py: &str, params: Vec<f64>) -> PyResult<Bound<'py, Self>> {
        let op = UnaryOp::with_params(py, &params)
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("no unary op {py} with {} parameters", params.len())))?;
        let t = &slf.get().tensor();
        run(slf.py(), t.numel(), || t.unary_(op))?;
        Ok(slf.clone())
    }
}

/// The declared unary ops' Python names: (those bound as `Tensor.X`, those with `Tensor.X_`).
#[pyfunction]
fn _unary_ops() -> (Vec<&'static str>, Vec<&'static str>) {
    (PY_METHODS.to_vec(), PY_IN_PLACE.to_vec())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_unary_ops, m)?)
}
