//! What backward nodes saved and view bases, as PyTorch shows them to graph tools (torchviz's
//! `make_dot(show_saved=True, show_attrs=True)`): `grad_fn._saved_*` is built in
//! `rstorch.autograd.graph` from `_Node._saved()`, and `Tensor._base`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::autograd::op::{Op, OpNode};
use crate::tensor::Tensor;

use super::autograd::{PyFunctionNode, PyNode};
use super::tensor_object::{object_of, PyTensor};

/// The op's arguments that are not tensors, under PyTorch's names for its node's attributes.
fn op_attrs<'py>(py: Python<'py>, op: &Op) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match op {
        Op::Sum { dims, keepdim, full: false } | Op::Extremum { dims, keepdim, .. } | Op::Logsumexp { dims, keepdim } => {
            d.set_item("dim", PyTuple::new(py, dims)?)?;
            d.set_item("keepdim", keepdim)?;
        }
        Op::Prod { dims, keepdim, full: false } => {
            d.set_item("dim", dims.first().copied().unwrap_or(0))?;
            d.set_item("keepdim", keepdim)?;
        }
        Op::Cumsum { dim } | Op::Cumprod { dim } | Op::Cat { dim, .. } | Op::IndexSelect { dim } | Op::Gather { dim } => {
            d.set_item("dim", dim)?;
        }
        Op::Scatter { dim, .. } => d.set_item("dim", dim)?,
        Op::IndexAdd { dim, alpha } => {
            d.set_item("alpha", alpha)?;
            d.set_item("dim", dim)?;
        }
        Op::Permute { dims, .. } => d.set_item("dims", PyTuple::new(py, dims)?)?,
        Op::Split { dim, sizes, .. } => {
            d.set_item("dim", dim)?;
            d.set_item("split_sizes", PyTuple::new(py, sizes)?)?;
        }
        Op::Addmm { beta, alpha, .. } => {
            d.set_item("alpha", alpha)?;
            d.set_item("beta", beta)?;
        }
        Op::Conv { geom } | Op::ConvTranspose { geom } | Op::ConvWeight { geom } => {
            d.set_item("dilation", PyTuple::new(py, geom.dilation)?)?;
            d.set_item("groups", geom.groups)?;
            d.set_item("padding", PyTuple::new(py, geom.padding)?)?;
            d.set_item("stride", PyTuple::new(py, geom.stride)?)?;
            d.set_item("transposed", matches!(op, Op::ConvTranspose { .. }))?;
        }
        Op::Softmax { dim, .. } => d.set_item("dim", dim)?,
        Op::Pointwise2 { kind: crate::cpu::fused_pointwise::Fused2::Lerp { weight } } => d.set_item("weight", weight)?,
        Op::BatchNorm { training, eps } => {
            d.set_item("eps", eps)?;
            d.set_item("training", training)?;
        }
        _ => {}
    }
    Ok(d)
}

#[pymethods]
impl PyNode {
    /// `(inputs, outputs, buffers, attrs, input_shapes)` of a built-in op's node: the tensors it
    /// saved per input and per output (None where it kept none) and the intermediate results it
    /// kept, its non-tensor arguments, and its inputs' shapes. None for other nodes. Once the
    /// saved tensors were freed (or changed in place), the three lists are the error that
    /// reading them raises, as PyTorch raises it for `_saved_self`; the rest stays readable.
    fn _saved<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(op) = self.node.as_any().downcast_ref::<OpNode>() else { return Ok(None) };
        let objects = |ts: Vec<Option<Tensor>>| -> PyResult<Bound<'py, PyAny>> {
            let objs = ts.into_iter().map(|t| t.map(|t| object_of(py, t)).transpose()).collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, objs)?.into_any())
        };
        let (inputs, outputs, buffers) = match op.saved_values() {
            Ok(v) => (objects(v.inputs)?, objects(v.outputs)?, objects(v.buffers.into_iter().map(Some).collect())?),
            Err(e) => {
                let err = PyErr::from(e).into_value(py).into_bound(py).into_any();
                (err.clone(), err.clone(), err)
            }
        };
        let shapes = PyList::new(py, op.inputs.iter().map(|m| PyTuple::new(py, &m.shape)).collect::<PyResult<Vec<_>>>()?)?;
        Ok(Some((inputs, outputs, buffers, op_attrs(py, &op.op)?, shapes).into_pyobject(py)?))
    }

    /// The tensors a Python Function's `ctx` saved (PyTorch's `grad_fn.saved_tensors` of such a
    /// node); None for other nodes.
    fn _function_saved_tensors(&self, py: Python<'_>) -> PyResult<Option<Py<PyTuple>>> {
        let Some(f) = self.node.as_any().downcast_ref::<PyFunctionNode>() else { return Ok(None) };
        let objs = f.saved_tensors()?.into_iter().map(|t| object_of(py, t)).collect::<PyResult<Vec<_>>>()?;
        Ok(Some(PyTuple::new(py, objs)?.unbind()))
    }
}

#[pymethods]
impl PyTensor {
    /// The tensor a view was made from (None for a tensor that is no view, or whose base is gone).
    #[getter]
    fn _base(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.tensor().view_base().map(|b| object_of(py, b)).transpose()
    }
}
