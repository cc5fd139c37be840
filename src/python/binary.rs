//! `Tensor.X` and `Tensor.X_` for every binary op `crate::ops::binary` binds (its `py` names),
//! and `_C._binary_ops()`, the names the Python layer turns into `torch.X`. The ops with
//! arguments of their own (`add`/`sub` with `alpha`, `div` with `rounding_mode`, `pow`) and the
//! operators are bound in `arith.rs`.

use pyo3::prelude::*;

use crate::ops::binary::binary_op_table;
use crate::tensor::BinaryOp;

use super::arith::tensor_only;
use super::tensor_object::PyTensor;

/// What a bound op takes as `other`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OtherKind {
    /// A tensor or a Python number.
    Number,
    /// A tensor only: anything else is PyTorch's argument TypeError naming the method.
    Tensor,
}

impl PyTensor {
    fn bound_binary(&self, py: Python<'_>, op: BinaryOp, kind: OtherKind, name: &str, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        if kind == OtherKind::Tensor {
            return Ok(PyTensor::wrap(self.binop(py, op, &tensor_only(name, other)?, false)?));
        }
        self.method(py, op, other)
    }

    fn bound_binary_<'py>(
        slf: &Bound<'py, Self>,
        op: BinaryOp,
        kind: OtherKind,
        name: &str,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        if kind == OtherKind::Tensor {
            tensor_only(name, other)?;
        }
        slf.get().inplace(slf.py(), op, other)?;
        Ok(slf.clone())
    }
}

macro_rules! bind_binary_ops {
    ($($(#[$doc:meta])* $V:ident {
        name: $name:literal, node: $node:literal, class: $class:ident, wgpu: ($wf:expr, $wi:expr),
        py: [$($py:ident $py_inplace:ident),*], other: $other:ident,
        cpu: |$x:ident, $y:ident| $cpu:expr,
        grad: |$g:ident, $a:ident, $b:ident, $need:ident| $grad:expr,
    })*) => {
        #[pymethods]
        impl PyTensor {
            $($(
                fn $py(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                    self.bound_binary(py, BinaryOp::$V, OtherKind::$other, stringify!($py), other)
                }

                fn $py_inplace<'py>(slf: &Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
                    PyTensor::bound_binary_(slf, BinaryOp::$V, OtherKind::$other, stringify!($py_inplace), other)
                }
            )*)*
        }

        /// The Python names of the bound ops (`Tensor.X`; `Tensor.X_` is bound beside each).
        const PY_METHODS: &[&str] = &[$($(stringify!($py),)*)*];
    };
}

binary_op_table!(bind_binary_ops);

/// The names of the binary ops bound from the table, for `torch.X`.
#[pyfunction]
fn _binary_ops() -> Vec<&'static str> {
    PY_METHODS.to_vec()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_binary_ops, m)?)
}
