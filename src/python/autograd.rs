//! Autograd from Python: `backward`, `.grad`, `grad_fn` nodes with `next_functions` and hooks,
//! grad mode, and the node of a Python `autograd.Function`.

use std::any::Any;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyWeakrefMethods};
use pyo3::{PyTraverseError, PyVisit};

use crate::autograd::node::{next_hook_id, next_sequence_nr, AccumulateGrad, Edge, GradHook, Node, NodeHooks, NodeRef};
use crate::autograd::{engine, grad_mode, op};
use crate::dtype::DType;
use crate::error::Result as CoreResult;
use crate::tensor::Tensor;

use super::tensor_object::PyTensor;

/// A Python callable used as a gradient hook.
struct PyHook {
    f: Py<PyAny>,
    kind: HookKind,
}

#[derive(Clone, Copy)]
enum HookKind {
    /// `tensor.register_hook(fn(grad) -> grad | None)`
    Tensor,
    /// `node.register_prehook(fn(grad_outputs) -> grad_outputs | None)`
    NodePre,
    /// `node.register_hook(fn(grad_inputs, grad_outputs) -> grad_inputs | None)`, called with
    /// the node's grad_inputs followed by its grad_outputs.
    NodePost { n_inputs: usize },
}

fn to_py_grads<'py>(py: Python<'py>, grads: &[Option<Tensor>]) -> PyResult<Bound<'py, PyTuple>> {
    let items = grads
        .iter()
        .map(|g| match g {
            Some(t) => Ok(Py::new(py, PyTensor::wrap(t.clone()))?.into_any()),
            None => Ok(py.None()),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

fn from_py_grads(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Option<Tensor>>> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(vec![Some(t.get().tensor().clone())]);
    }
    obj.try_iter()?
        .map(|g| {
            let g = g?;
            Ok(if g.is_none() { None } else { Some(g.cast::<PyTensor>()?.get().tensor().clone()) })
        })
        .collect()
}

impl GradHook for PyHook {
    fn call(&self, grads: &[Option<Tensor>]) -> CoreResult<Option<Vec<Option<Tensor>>>> {
        Python::attach(|py| -> CoreResult<Option<Vec<Option<Tensor>>>> {
            let f = self.f.bind(py);
            let raised = |e: PyErr| crate::error::Error::Runtime(e.value(py).to_string());
            let (result, before) = match self.kind {
                HookKind::Tensor => (f.call1(to_py_grads(py, grads).map_err(raised)?).map_err(raised)?, grads),
                HookKind::NodePre => (f.call1((to_py_grads(py, grads).map_err(raised)?,)).map_err(raised)?, grads),
                HookKind::NodePost { n_inputs } => {
                    let (gi, go) = grads.split_at(n_inputs.min(grads.len()));
                    (f.call1((to_py_grads(py, gi).map_err(raised)?, to_py_grads(py, go).map_err(raised)?)).map_err(raised)?, gi)
                }
            };
            if result.is_none() {
                return Ok(None);
            }
            if let HookKind::Tensor = self.kind {
                if result.cast::<PyTensor>().is_err() {
                    let kind = result.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                    return Err(crate::error::Error::Type(format!("expected Variable, but hook returned '{kind}'")));
                }
            }
            let new = from_py_grads(&result).map_err(raised)?;
            check_hook_result(f, &new, before)?;
            Ok(Some(new))
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// PyTorch's checks on what a hook returned in place of gradients: each replaced gradient keeps
/// its dtype and device (checked first) and its shape.
pub(crate) fn check_hook_result(hook: &Bound<'_, PyAny>, new: &[Option<Tensor>], old: &[Option<Tensor>]) -> CoreResult<()> {
    let name = || hook.getattr("__name__").and_then(|n| n.extract::<String>()).unwrap_or_else(|_| "hook".into());
    let type_name = |t: &Tensor| format!("torch.{}{}Tensor", if t.device().is_cpu() { "" } else { "wgpu." }, t.dtype().title_name());
    for (n, o) in new.iter().zip(old) {
        let (Some(n), Some(o)) = (n, o) else { continue };
        if n.dtype() != o.dtype() || n.device() != o.device() {
            return Err(crate::error::Error::Runtime(format!(
                "hook '{}' has changed the type of value (was {} got {})",
                name(),
                type_name(o),
                type_name(n)
            )));
        }
        if n.shape() != o.shape() {
            return Err(crate::error::Error::Runtime(format!("hook '{}' has changed the size of value", name())));
        }
    }
    Ok(())
}

/// Reports the Python callable of `hook`, if it is one, to Python's collector.
pub(crate) fn traverse_hook(hook: &dyn GradHook, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
    if let Some(h) = hook.as_any().downcast_ref::<PyHook>() {
        visit.call(&h.f)?;
    }
    Ok(())
}

/// What `ctx` keeps of its Function's node: a weak reference, so that ctx -> node -> backward
/// closure -> ctx is not a cycle through Rust that Python's collector cannot see.
#[pyclass(name = "_FunctionNodeRef", module = "rstorch._C", frozen)]
pub struct PyFunctionNodeRef {
    node: std::sync::Weak<PyFunctionNode>,
}

#[pymethods]
impl PyFunctionNodeRef {
    fn _saved_tensors(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let node =
            self.node.upgrade().ok_or_else(|| PyRuntimeError::new_err("saved tensors are gone: the graph of this Function was freed"))?;
        super::tensor_object::tensors_tuple(py, node.saved_tensors()?)
    }
}

/// A graph node seen from Python (`tensor.grad_fn`, entries of `next_functions`).
#[pyclass(name = "_Node", module = "rstorch._C", frozen, weakref)]
pub struct PyNode {
    pub node: NodeRef,
}

/// Reports to Python's collector the Python objects `node` holds: the `backward` of a Python
/// Function's node, whose closure holds `ctx`, and the Python hooks registered on the node (or
/// on the tensors it made), whose closures may hold those tensors or the node's handle.
/// Callers make sure they own `node` alone.
pub(crate) fn traverse_node(node: &dyn Node, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
    if let Some(f) = node.as_any().downcast_ref::<PyFunctionNode>() {
        visit.call(&f.backward)?;
    }
    traverse_front(node, visit)?;
    node.hooks().try_for_each_owned(|h| traverse_hook(h, visit))
}

/// The Python object of `node`: one per node for the node's lifetime (the node holds it, see
/// `NodeHooks::set_front`), so `y.grad_fn is y.grad_fn` and `id()` based graph walks see each
/// node once, as in PyTorch.
pub(crate) fn wrap_node(py: Python<'_>, node: NodeRef) -> PyResult<Py<PyAny>> {
    let known = node.hooks().with_front(|f| f.and_then(|f| f.downcast_ref::<Py<PyAny>>()).map(|o| o.clone_ref(py)));
    if let Some(obj) = known {
        return Ok(obj);
    }
    // Python wraps the handle in a class named after the node (`AddBackward0`).
    let wrap = py.import("rstorch.autograd.graph")?.getattr("_wrap_node")?;
    let obj = wrap.call1((PyNode { node: node.clone() },))?.unbind();
    // Only a node used elsewhere holds its object: one held by the object alone would be a
    // cycle nothing but the collector frees.
    if Arc::strong_count(&node) > 2 {
        node.hooks().set_front(Box::new(obj.clone_ref(py)));
    }
    Ok(obj)
}

/// Reports the node's Python object to the collector, if it holds one.
fn traverse_front(node: &dyn Node, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
    node.hooks()
        .try_with_front(|f| match f.and_then(|f| f.downcast_ref::<Py<PyAny>>()) {
            Some(o) => visit.call(o),
            None => Ok(()),
        })
        .unwrap_or(Ok(()))
}

#[pymethods]
impl PyNode {
    /// A node held only by this handle (its outputs are gone) can close a cycle through its
    /// Function's ctx or through its hooks.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if Arc::strong_count(&self.node) == 1 {
            traverse_node(self.node.as_ref(), &visit)?;
        }
        Ok(())
    }

    fn __clear__(&self) {
        if Arc::strong_count(&self.node) == 1 {
            // Dropped after the node's locks are released: a hook's finalizer may run Python.
            drop(self.node.hooks().take_all());
            drop(self.node.hooks().take_front());
        }
    }

    fn name(&self) -> String {
        self.node.name()
    }

    /// Identity of the node (stable while it lives).
    fn _key(&self) -> usize {
        Arc::as_ptr(&self.node) as *const () as usize
    }

    #[getter]
    fn next_functions(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let items = self
            .node
            .next_edges()
            .iter()
            .map(|e| -> PyResult<Py<PyAny>> {
                Ok(match e {
                    Some(Edge { node, input_nr }) => (wrap_node(py, node.clone())?, *input_nr).into_pyobject(py)?.into_any().unbind(),
                    None => (py.None(), 0usize).into_pyobject(py)?.into_any().unbind(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(py, items)?.unbind())
    }

    /// The leaf an `AccumulateGrad` node accumulates into.
    #[getter]
    fn variable(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.node.as_any().downcast_ref::<AccumulateGrad>().map(|a| super::tensor_object::object_of(py, a.variable.clone())).transpose()
    }

    fn register_hook(&self, hook: Py<PyAny>) -> u64 {
        let id = next_hook_id();
        let n_inputs = self.node.next_edges().len();
        let h = PyHook { f: hook, kind: HookKind::NodePost { n_inputs } };
        self.node.hooks().post.lock().unwrap_or_else(|e| e.into_inner()).push((id, Arc::new(h)));
        id
    }

    fn register_prehook(&self, hook: Py<PyAny>) -> u64 {
        let id = next_hook_id();
        let h = PyHook { f: hook, kind: HookKind::NodePre };
        self.node.hooks().pre.lock().unwrap_or_else(|e| e.into_inner()).push((id, None, Arc::new(h)));
        id
    }

    fn _remove_hook(&self, id: u64) -> bool {
        self.node.hooks().remove(id)
    }

    fn __call__(&self, py: Python<'_>, grads: &Bound<'_, PyTuple>) -> PyResult<Py<PyTuple>> {
        let g = from_py_grads(grads.as_any())?;
        let node = self.node.clone();
        let out = py.detach(|| node.apply(g))?;
        Ok(to_py_grads(py, &out)?.unbind())
    }
}

/// The node of a Python `autograd.Function`: calls its `backward` with the GIL held.
pub struct PyFunctionNode {
    name: String,
    backward: Py<PyAny>,
    edges: Vec<Option<Edge>>,
    input_shapes: Vec<Vec<usize>>,
    input_dtypes: Vec<DType>,
    outputs: Vec<(Vec<usize>, DType)>,
    saved: Mutex<Option<Vec<op::Saved>>>,
    materialize_grads: bool,
    seq: u64,
    hooks: NodeHooks,
}

impl PyFunctionNode {
    pub(super) fn saved_tensors(&self) -> CoreResult<Vec<Tensor>> {
        let guard = self.saved.lock().unwrap_or_else(|e| e.into_inner());
        let saved = guard.as_ref().ok_or_else(op::freed)?;
        saved.iter().map(|s| s.unpack(|| format!(", which is saved by {},", self.name))).collect()
    }
}

impl Drop for PyFunctionNode {
    /// The nodes behind it and its saved tensors go through `teardown::release` (a chain of
    /// Python Functions is freed without recursion); `backward` is dropped in place afterwards,
    /// its ctx owning no deeper graph than one node.
    fn drop(&mut self) {
        let parts =
            (std::mem::take(&mut self.edges), self.saved.get_mut().unwrap_or_else(|e| e.into_inner()).take(), self.hooks.take_all());
        crate::autograd::teardown::release(parts);
    }
}

impl Node for PyFunctionNode {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn next_edges(&self) -> &[Option<Edge>] {
        &self.edges
    }

    fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    fn apply(&self, grads: Vec<Option<Tensor>>) -> CoreResult<Vec<Option<Tensor>>> {
        let grads = grads
            .into_iter()
            .zip(&self.outputs)
            .map(|(g, (shape, dtype))| match g {
                None if self.materialize_grads => Tensor::zeros(shape, *dtype).map(Some),
                g => Ok(g),
            })
            .collect::<CoreResult<Vec<_>>>()?;
        let result = Python::attach(|py| -> PyResult<Vec<Option<Tensor>>> {
            let r = self.backward.bind(py).call1(to_py_grads(py, &grads)?)?;
            from_py_grads(&r)
        })
        .map_err(|e| {
            // A RuntimeError (the contract checks of `Function.apply`'s wrapper among them) keeps
            // its message; other exceptions are named in it.
            crate::error::Error::Runtime(Python::attach(|py| {
                if e.is_instance_of::<PyRuntimeError>(py) {
                    e.value(py).to_string()
                } else {
                    format!("{}: {}", e.get_type(py).name().map(|n| n.to_string()).unwrap_or_default(), e.value(py))
                }
            }))
        })?;
        if result.len() != self.edges.len() {
            return Err(crate::error::Error::Runtime(format!(
                "function {} returned an incorrect number of gradients (expected {}, got {})",
                self.name,
                self.edges.len(),
                result.len()
            )));
        }
        // PyTorch's checks on a Function's gradients: the input's shape, or one the input
        // broadcasts to (summed back to it); the input's dtype (cast to it).
        let mut result = result;
        for (i, g) in result.iter_mut().enumerate() {
            let (Some(t), Some(shape), Some(&dtype)) = (g.as_ref(), self.input_shapes.get(i), self.input_dtypes.get(i)) else { continue };
            let mut t = t.clone();
            if t.shape() != shape.as_slice() {
                if crate::shape::broadcast_shapes(shape, t.shape()).ok().as_deref() != Some(t.shape()) {
                    return Err(crate::error::Error::Runtime(format!(
                        "Function {} returned an invalid gradient at index {i} - got {:?} but expected shape compatible with {:?}",
                        self.name,
                        t.shape(),
                        shape
                    )));
                }
                t = crate::autograd::formulas::sum_to(&t, shape)?;
            }
            if t.dtype() != dtype && dtype.is_floating_point() {
                t = t.to_dtype(dtype)?;
            }
            *g = Some(t);
        }
        Ok(result)
    }

    fn release_saved(&self) {
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn sequence_nr(&self) -> u64 {
        self.seq
    }

    fn hooks(&self) -> &NodeHooks {
        &self.hooks
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn tensors_of(list: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    list.try_iter()?.map(|t| Ok(t?.cast::<PyTensor>()?.get().tensor().clone())).collect()
}

/// Records a Python Function's node; returns a weak handle to it (for `ctx.saved_tensors`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _record_function(
    py: Python<'_>,
    name: String,
    backward: Py<PyAny>,
    inputs: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyList>,
    differentiable: Vec<bool>,
    to_save: &Bound<'_, PyAny>,
    materialize_grads: bool,
    dirty: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let inputs = tensors_of(inputs)?;
    let dirty = tensors_of(dirty)?;
    for d in &dirty {
        if d.is_leaf() && d.requires_grad() {
            return Err(PyRuntimeError::new_err("a leaf Variable that requires grad has been used in an in-place operation."));
        }
        // The remaining in-place checks (a view of such a leaf) are the core's.
        d.check_inplace(d)?;
    }
    let outs: Vec<Option<Tensor>> = outputs.iter().map(|o| o.cast::<PyTensor>().ok().map(|t| t.get().tensor().clone())).collect();
    let saved = tensors_of(to_save)?
        .into_iter()
        .map(|t| {
            // Outputs are kept without history (no cycle through the node).
            let is_output = outs.iter().flatten().any(|o| o.same(&t));
            op::Saved::new(&if is_output { t.detach() } else { t })
        })
        .collect();
    let node: Arc<PyFunctionNode> = Arc::new(PyFunctionNode {
        name,
        backward,
        edges: inputs.iter().map(|t| t.gradient_edge()).collect(),
        input_shapes: inputs.iter().map(|t| t.shape().to_vec()).collect(),
        input_dtypes: inputs.iter().map(|t| t.dtype()).collect(),
        outputs: outs.iter().map(|o| o.as_ref().map_or((vec![], DType::F32), |t| (t.shape().to_vec(), t.dtype()))).collect(),
        saved: Mutex::new(Some(saved)),
        materialize_grads,
        seq: next_sequence_nr(),
        hooks: NodeHooks::default(),
    });
    for (i, o) in outs.iter().enumerate() {
        if let Some(t) = o {
            if differentiable.get(i).copied().unwrap_or(false) && t.dtype().is_floating_point() {
                t.set_grad_fn(node.clone(), i);
                // A dirty view was written in place: its base now reads the Function's output
                // where the view lies, and the view reads the new base.
                if dirty.iter().any(|d| d.same(t)) && t.view_base().is_some_and(|b| b.shares_storage(t)) {
                    t.rebase_history(None, t, crate::autograd::Written::Result)?;
                }
            }
        }
    }
    Ok(Py::new(py, PyFunctionNodeRef { node: Arc::downgrade(&node) })?.into_any())
}

/// Bumps the version of tensors a Function marked dirty (once more than their in-place writes
/// did, as PyTorch counts them).
#[pyfunction]
fn _bump_versions(tensors: &Bound<'_, PyAny>) -> PyResult<()> {
    for t in tensors_of(tensors)? {
        t.storage_cell().bump_version();
    }
    Ok(())
}

fn opt_tensors(list: &Bound<'_, PyAny>) -> PyResult<Vec<Option<Tensor>>> {
    list.try_iter()?
        .map(|t| {
            let t = t?;
            Ok(if t.is_none() { None } else { Some(super::convert::to_tensor(&t)?) })
        })
        .collect()
}

#[pyfunction]
#[pyo3(signature = (tensors, grads, retain_graph, create_graph, inputs=None))]
fn _backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grads: &Bound<'_, PyAny>,
    retain_graph: bool,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let ts = tensors_of(tensors)?;
    let gs = opt_tensors(grads)?;
    let ins = inputs.map(tensors_of).transpose()?;
    py.detach(|| engine::backward(&ts, &gs, retain_graph, create_graph, ins.as_deref()))?;
    Ok(())
}

/// Starts (the records count nanoseconds from now) or stops timing each node the backward
/// passes evaluate, for the profiler.
#[pyfunction]
fn _profile_backward(on: bool) {
    crate::autograd::profile::set_recording(on);
}

/// The (node name, start ns, end ns) records this thread's backward passes made since the last
/// call.
#[pyfunction]
fn _backward_records() -> Vec<(String, u64, u64)> {
    crate::autograd::profile::take_records().into_iter().map(|r| (r.name, r.start_ns, r.end_ns)).collect()
}

#[pyfunction]
fn _grad(
    py: Python<'_>,
    outputs: &Bound<'_, PyAny>,
    grads: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> PyResult<Py<PyTuple>> {
    let os = tensors_of(outputs)?;
    let gs = opt_tensors(grads)?;
    let ins = tensors_of(inputs)?;
    let result = py.detach(|| engine::grad(&os, &gs, &ins, retain_graph, create_graph, allow_unused))?;
    Ok(to_py_grads(py, &result)?.unbind())
}

#[pyfunction]
fn is_grad_enabled() -> bool {
    grad_mode::is_enabled()
}

/// Sets grad mode, returning the previous mode.
#[pyfunction]
fn _set_grad_enabled(enabled: bool) -> bool {
    grad_mode::set_enabled(enabled)
}

/// Sets inference mode (tensors made in it are inference tensors), returning the previous one.
#[pyfunction]
fn _set_inference_mode(on: bool) -> bool {
    grad_mode::set_inference_mode(on)
}

#[pyfunction]
fn is_inference_mode_enabled() -> bool {
    grad_mode::is_inference_mode()
}

#[pyfunction]
fn _set_detect_anomaly(on: bool) {
    engine::set_detect_anomaly(on)
}

#[pyfunction]
fn _is_anomaly_enabled() -> bool {
    engine::is_anomaly_enabled()
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let g = match gradient {
            Some(g) if !g.is_none() => Some(super::convert::to_tensor(g)?),
            _ => None,
        };
        let ins = match inputs {
            Some(i) if i.cast::<PyTensor>().is_ok() => Some(vec![i.cast::<PyTensor>()?.get().tensor().clone()]),
            Some(i) if !i.is_none() => Some(tensors_of(i)?),
            _ => None,
        };
        let t = self.tensor().clone();
        let retain = retain_graph.unwrap_or(create_graph);
        py.detach(|| engine::backward(&[t], &[g], retain, create_graph, ins.as_deref()))?;
        Ok(())
    }

    #[getter]
    fn grad(slf: &Bound<'_, Self>) -> PyResult<Option<Py<PyTensor>>> {
        let (py, this) = (slf.py(), slf.get());
        if !this.tensor().is_leaf() && !this.tensor().retains_grad() {
            PyErr::warn(
                py,
                &py.get_type::<PyUserWarning>(),
                c"The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead.",
                2,
            )?;
        }
        let Some(g) = this.tensor().grad() else {
            return Ok(None);
        };
        let mut cached = this.grad_object.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(obj) = cached.as_ref() {
            if obj.get().tensor().same(&g) {
                return Ok(Some(obj.clone_ref(py)));
            }
        }
        let obj = Bound::new(py, PyTensor::wrap(g))?;
        obj.get().own_as_grad_of(slf)?;
        *cached = Some(obj.clone().unbind());
        Ok(Some(obj.unbind()))
    }

    #[setter]
    fn set_grad(slf: &Bound<'_, Self>, grad: Option<Bound<'_, PyTensor>>) -> PyResult<()> {
        let this = slf.get();
        this.tensor().set_grad(grad.as_ref().map(|g| g.get().tensor()))?;
        if let Some(g) = &grad {
            g.get().own_as_grad_of(slf)?;
        }
        *this.grad_object.lock().unwrap_or_else(|e| e.into_inner()) = grad.map(|g| g.unbind());
        Ok(())
    }

    #[getter]
    fn _grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.tensor().grad_fn().map(|n| wrap_node(py, n)).transpose()
    }

    /// Identity of the tensor object in the core (two Python handles of one tensor share it).
    #[getter]
    fn _cdata(&self) -> usize {
        self.tensor().identity()
    }

    #[getter]
    fn is_leaf(&self) -> bool {
        self.tensor().is_leaf()
    }

    #[getter]
    fn output_nr(&self) -> usize {
        self.tensor().output_nr()
    }

    fn retain_grad(&self) -> PyResult<()> {
        Ok(self.tensor().retain_grad()?)
    }

    #[getter]
    fn retains_grad(&self) -> bool {
        self.tensor().retains_grad()
    }

    /// Registers `hook(grad)`; returns its id (the Python handle removes it by id).
    fn _register_hook(&self, hook: Py<PyAny>) -> PyResult<u64> {
        if !self.tensor().requires_grad() {
            return Err(PyRuntimeError::new_err("cannot register a hook on a tensor that doesn't require gradient"));
        }
        let h = Arc::new(PyHook { f: hook, kind: HookKind::Tensor });
        Ok(self.tensor().register_tensor_hook(h))
    }

    fn _remove_hook(&self, id: u64) -> bool {
        self.tensor().remove_tensor_hook(id)
    }

    #[getter]
    fn data(&self) -> PyTensor {
        PyTensor::wrap(self.tensor().detach())
    }

    #[setter]
    fn set_data(slf: &Bound<'_, Self>, data: &PyTensor) -> PyResult<()> {
        let this = slf.get();
        let old = this.tensor();
        let new = old.with_data_of(&data.tensor())?;
        this.replace(new.clone());
        if new.requires_grad() && new.is_leaf() {
            super::tensor_object::remember_object(slf)?;
        }
        // `x.grad.data = t`: x's gradient is this object's contents, so it follows (with t's
        // shape and dtype, as PyTorch allows) unless x's gradient was replaced meanwhile.
        let owner = this.grad_owner.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|w| w.bind(slf.py()).upgrade());
        if let Some(owner) = owner {
            let owner = owner.cast_into::<PyTensor>()?;
            let ot = owner.get().tensor();
            if ot.grad().is_some_and(|g| g.same(&old)) {
                ot.replace_grad(new);
            }
        }
        Ok(())
    }

    fn detach_<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let t = slf.get().tensor();
        if t.is_view() {
            // A view shares its base's history: PyTorch refuses to cut it out in place.
            return Err(crate::Error::Runtime(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.".into(),
            )
            .into());
        }
        t.detach_();
        Ok(slf.clone())
    }

    /// Whether this tensor was made by a view op (`detach()` makes none).
    fn _is_view(&self) -> bool {
        self.tensor().is_view()
    }

    /// Whether this tensor was made in inference mode (or views one that was).
    fn is_inference(&self) -> bool {
        self.tensor().is_inference()
    }
}

impl PyTensor {
    /// Records that this object is `owner`'s `.grad`.
    fn own_as_grad_of(&self, owner: &Bound<'_, PyTensor>) -> PyResult<()> {
        let w = pyo3::types::PyWeakrefReference::new(owner.as_any())?;
        *self.grad_owner.lock().unwrap_or_else(|e| e.into_inner()) = Some(w.unbind());
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNode>()?;
    m.add_class::<PyFunctionNodeRef>()?;
    m.add_function(wrap_pyfunction!(_record_function, m)?)?;
    m.add_function(wrap_pyfunction!(_bump_versions, m)?)?;
    m.add_function(wrap_pyfunction!(_backward, m)?)?;
    m.add_function(wrap_pyfunction!(_grad, m)?)?;
    m.add_function(wrap_pyfunction!(_profile_backward, m)?)?;
    m.add_function(wrap_pyfunction!(_backward_records, m)?)?;
    m.add_function(wrap_pyfunction!(is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_detect_anomaly, m)?)?;
    m.add_function(wrap_pyfunction!(_is_anomaly_enabled, m)?)?;
    Ok(())
}
