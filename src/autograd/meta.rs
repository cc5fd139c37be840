//! The autograd state a tensor carries, and the Tensor methods that read and change it.

use std::any::Any;
use std::sync::{Arc, MutexGuard, Weak};

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::{BinaryOp, Tensor, TensorImpl};

use super::node::{AccumulateGrad, Edge, GradHook, NodeRef};

#[derive(Default)]
pub struct AutogradMeta {
    /// Set by the user on leaves; tensors with a `grad_fn` require grad through it.
    pub requires_grad: bool,
    pub grad: Option<Tensor>,
    pub grad_fn: Option<NodeRef>,
    /// Which output of `grad_fn` this tensor is.
    pub output_nr: usize,
    /// Held weakly, like PyTorch: the graph owns the accumulator, the leaf only finds it again.
    pub grad_accumulator: Weak<AccumulateGrad>,
    pub retains_grad: bool,
    /// Hooks of a leaf, run on its gradient before it is accumulated (non-leaves keep theirs
    /// on their grad_fn).
    pub hooks: Vec<(u64, Arc<dyn GradHook>)>,
    /// For views: the tensor whose storage they view (in-place writes through views of tensors
    /// that require grad are refused rather than silently mis-differentiated).
    pub view_base: Option<Weak<TensorImpl>>,
    /// The front end's handle on the object standing for this tensor (Python keeps a weak
    /// reference here), so that a leaf's `AccumulateGrad.variable` is that same object.
    pub front_object: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl Drop for AutogradMeta {
    fn drop(&mut self) {
        if let Some(node) = &self.grad_fn {
            super::node::release_front_if_last(node);
        }
    }
}

/// The tensor core keeps autograd's state as `dyn Any` (the core sits below autograd, as
/// PyTorch's TensorImpl holds an AutogradMetaInterface); this guard reads it back as what only
/// this module ever stores there, an `AutogradMeta`.
struct MetaGuard<'a>(MutexGuard<'a, Option<Box<dyn Any + Send + Sync>>>);

impl MetaGuard<'_> {
    fn as_ref(&self) -> Option<&AutogradMeta> {
        self.0.as_ref().and_then(|m| m.downcast_ref())
    }

    fn as_mut(&mut self) -> Option<&mut AutogradMeta> {
        self.0.as_mut().and_then(|m| m.downcast_mut())
    }

    fn get_or_insert_default(&mut self) -> &mut AutogradMeta {
        self.0
            .get_or_insert_with(|| Box::new(AutogradMeta::default()))
            .downcast_mut()
            .expect("a tensor's autograd state is an AutogradMeta")
    }

    fn set(&mut self, meta: AutogradMeta) {
        *self.0 = Some(Box::new(meta));
    }
}

/// Stores the gradient reaching a non-leaf into its `.grad` (`retain_grad()`).
struct RetainGrad {
    tensor: Weak<TensorImpl>,
    output_nr: usize,
}

impl GradHook for RetainGrad {
    fn call(&self, grads: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        if let (Some(t), Some(Some(g))) = (self.tensor.upgrade(), grads.get(self.output_nr)) {
            Tensor::from_impl(t).accumulate_grad(g.clone())?;
        }
        Ok(None)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Tensor {
    fn meta(&self) -> MetaGuard<'_> {
        MetaGuard(self.impl_ref().autograd.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn with_meta<R>(&self, f: impl FnOnce(&mut AutogradMeta) -> R) -> R {
        f(self.meta().get_or_insert_default())
    }

    pub fn requires_grad(&self) -> bool {
        self.meta().as_ref().is_some_and(|m| m.requires_grad || m.grad_fn.is_some())
    }

    pub fn set_requires_grad(&self, value: bool) -> Result<()> {
        if !self.is_leaf() {
            if value {
                return Ok(());
            }
            return Err(Error::Runtime(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().".into(),
            ));
        }
        if value && !self.dtype().is_floating_point() {
            return Err(Error::Runtime("only Tensors of floating point dtype can require gradients".into()));
        }
        if value && self.is_inference() && !super::grad_mode::is_inference_mode() {
            return Err(Error::Runtime("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.".into()));
        }
        self.with_meta(|m| m.requires_grad = value);
        Ok(())
    }

    pub fn is_leaf(&self) -> bool {
        self.meta().as_ref().is_none_or(|m| m.grad_fn.is_none())
    }

    pub fn grad_fn(&self) -> Option<NodeRef> {
        self.meta().as_ref().and_then(|m| m.grad_fn.clone())
    }

    /// Runs `f` on the grad_fn when this handle is the tensor's only owner and the tensor its
    /// grad_fn's only owner; None otherwise, or when the state is locked (it never waits).
    /// Python's collector asks through it: an object reached only through exclusive ownership
    /// may be reported as held by the one Python object owning the handle, while an object
    /// reached from several owners would be counted once per owner.
    pub fn with_exclusive_grad_fn<R>(&self, f: impl FnOnce(&dyn super::node::Node) -> R) -> Option<R> {
        if Arc::strong_count(self.impl_arc()) != 1 {
            return None;
        }
        let guard = MetaGuard(self.impl_ref().autograd.try_lock().ok()?);
        let node = guard.as_ref()?.grad_fn.as_ref()?;
        // The node's front-end object holds it too, and is reported with it.
        let owners = 1 + usize::from(node.hooks().try_with_front(|f| f.is_some()).unwrap_or(false));
        (Arc::strong_count(node) == owners).then(|| f(node.as_ref()))
    }

    /// Calls `f` on a leaf's own hooks that only this handle reaches (this handle the tensor's
    /// only owner, the hook held by the tensor alone), for Python's collector; the hooks of a
    /// grad_fn are its node's (`NodeHooks::try_for_each_owned`). Never waits on a lock.
    pub fn try_for_each_own_hook<E>(&self, mut f: impl FnMut(&dyn GradHook) -> std::result::Result<(), E>) -> std::result::Result<(), E> {
        if Arc::strong_count(self.impl_arc()) != 1 {
            return Ok(());
        }
        let Ok(guard) = self.impl_ref().autograd.try_lock() else { return Ok(()) };
        let guard = MetaGuard(guard);
        for (_, h) in guard.as_ref().into_iter().flat_map(|m| m.hooks.iter()).filter(|(_, h)| Arc::strong_count(h) == 1) {
            f(h.as_ref())?;
        }
        Ok(())
    }

    /// When this handle is the tensor's only owner: removes its own hooks and those of a
    /// grad_fn only it holds, for the caller to drop (Python's collector breaking a cycle).
    pub fn take_exclusive_hooks(&self) -> Vec<Arc<dyn GradHook>> {
        if Arc::strong_count(self.impl_arc()) != 1 {
            return vec![];
        }
        let mut m = self.meta();
        let Some(m) = m.as_mut() else { return vec![] };
        let mut out: Vec<Arc<dyn GradHook>> = std::mem::take(&mut m.hooks).into_iter().map(|(_, h)| h).collect();
        if let Some(node) = m.grad_fn.as_ref().filter(|n| Arc::strong_count(n) == 1) {
            out.extend(node.hooks().take_all());
        }
        out
    }

    /// When this handle is the tensor's only owner and the tensor its grad_fn's only owner
    /// besides the node's front-end object: that object, for the caller to drop (Python's
    /// collector breaking the cycle between the node and its object).
    pub fn take_exclusive_front(&self) -> Option<Box<dyn std::any::Any + Send + Sync>> {
        if Arc::strong_count(self.impl_arc()) != 1 {
            return None;
        }
        let m = self.meta();
        let node = m.as_ref()?.grad_fn.as_ref()?;
        if Arc::strong_count(node) == 2 {
            node.hooks().take_front()
        } else {
            None
        }
    }

    pub fn output_nr(&self) -> usize {
        self.meta().as_ref().map_or(0, |m| m.output_nr)
    }

    pub fn grad(&self) -> Option<Tensor> {
        self.meta().as_ref().and_then(|m| m.grad.clone())
    }

    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.shape() != self.shape() {
                return Err(Error::Runtime(format!(
                    "assigned grad has data of a different size: expected {:?} but got {:?}",
                    self.shape(),
                    g.shape()
                )));
            }
            if g.dtype() != self.dtype() {
                return Err(Error::Runtime("assigned grad has data of a different type".into()));
            }
        }
        self.with_meta(|m| m.grad = grad);
        Ok(())
    }

    /// Points `.grad` at `grad` without `set_grad`'s checks: the grad object's `.data` was
    /// swapped, which may change its shape and dtype (PyTorch allows it).
    pub fn replace_grad(&self, grad: Tensor) {
        self.with_meta(|m| m.grad = Some(grad));
    }

    pub fn retains_grad(&self) -> bool {
        self.meta().as_ref().is_some_and(|m| m.retains_grad)
    }

    /// `retain_grad()`: non-leaves keep the gradient that reaches them in `.grad`.
    pub fn retain_grad(&self) -> Result<()> {
        if !self.requires_grad() {
            return Err(Error::Runtime("can't retain_grad on Tensor that has requires_grad=False".into()));
        }
        if self.is_leaf() || self.retains_grad() {
            return Ok(());
        }
        let node = self.grad_fn().expect("a non-leaf has a grad_fn");
        let hook = RetainGrad { tensor: Arc::downgrade(self.impl_arc()), output_nr: self.output_nr() };
        node.hooks().pre.lock().unwrap_or_else(|e| e.into_inner()).push((super::node::next_hook_id(), None, Arc::new(hook)));
        self.with_meta(|m| m.retains_grad = true);
        Ok(())
    }

    /// The edge gradients of this tensor flow into: its grad_fn, or its leaf accumulator.
    pub fn gradient_edge(&self) -> Option<Edge> {
        let mut guard = self.meta();
        let m = guard.as_mut()?;
        if let Some(f) = &m.grad_fn {
            return Some(Edge { node: f.clone(), input_nr: m.output_nr });
        }
        if !m.requires_grad {
            return None;
        }
        let acc = match m.grad_accumulator.upgrade() {
            Some(a) => a,
            None => {
                let a = Arc::new(AccumulateGrad::new(self.clone()));
                m.grad_accumulator = Arc::downgrade(&a);
                a
            }
        };
        Some(Edge { node: acc, input_nr: 0 })
    }

    /// Makes this tensor output `output_nr` of `node`.
    pub fn set_grad_fn(&self, node: NodeRef, output_nr: usize) {
        self.with_meta(|m| {
            m.grad_fn = Some(node);
            m.output_nr = output_nr;
        });
    }

    pub(crate) fn set_view_base(&self, base: &Tensor) {
        let root = base.meta().as_ref().and_then(|m| m.view_base.clone()).unwrap_or_else(|| Arc::downgrade(base.impl_arc()));
        self.with_meta(|m| m.view_base = Some(root));
    }

    /// What the front end stored with `set_front_object`.
    pub fn front_object(&self) -> Option<Arc<dyn std::any::Any + Send + Sync>> {
        self.meta().as_ref().and_then(|m| m.front_object.clone())
    }

    pub fn set_front_object(&self, handle: Arc<dyn std::any::Any + Send + Sync>) {
        self.with_meta(|m| m.front_object = Some(handle));
    }

    /// Whether this tensor was made by a view op (even if the tensor it views is gone).
    pub fn is_view(&self) -> bool {
        self.meta().as_ref().is_some_and(|m| m.view_base.is_some())
    }

    /// The tensor this one views, if it was made by a view op and that tensor still lives.
    pub fn view_base(&self) -> Option<Tensor> {
        self.meta().as_ref().and_then(|m| m.view_base.as_ref()?.upgrade()).map(Tensor::from_impl)
    }

    /// Adds `g` into `.grad` as PyTorch's AccumulateGrad does. A first gradient is kept as is
    /// when no other handle holds it (a fresh view of another tensor's storage, such as a view's
    /// reshaped gradient, counts as unheld, as in PyTorch, which keeps it without a copy too),
    /// no graph is being built and it obeys the layout contract
    /// (`obeys_grad_layout`); otherwise `.grad` is a copy laid out by that contract, so that an
    /// optimizer streams a parameter and its gradient in one memory order. Later gradients are
    /// added in place (create_graph: out of place, by the elementwise layout rule).
    pub fn accumulate_grad(&self, g: Tensor) -> Result<()> {
        match self.grad() {
            None => {
                let keep = !super::grad_mode::is_enabled()
                    && g.dtype() == self.dtype()
                    && g.is_sole_handle()
                    && obeys_grad_layout(g.layout(), self.layout());
                let g = if keep {
                    g
                } else {
                    // A dense parameter's own strides; any other parameter's gradient is row-major.
                    let order = if crate::result_layout::is_dense(self.layout()) {
                        crate::result_layout::preserved_order(self.layout())
                    } else {
                        None
                    };
                    g.copy_in_order(order, self.dtype())?
                };
                self.with_meta(|m| m.grad = Some(g));
            }
            Some(cur) => {
                let g = if g.dtype() != self.dtype() { g.to_dtype(self.dtype())? } else { g };
                if super::grad_mode::is_enabled() {
                    // create_graph: the sum must itself be differentiable.
                    let sum = cur.binary(BinaryOp::Add, &g)?;
                    self.with_meta(|m| m.grad = Some(sum));
                } else {
                    cur.binary_(BinaryOp::Add, crate::tensor::arith::Arg::T(&g))?;
                }
            }
        }
        Ok(())
    }

    /// `register_hook`: on the grad_fn for non-leaves, on the tensor itself for leaves.
    pub fn register_tensor_hook(&self, hook: Arc<dyn GradHook>) -> u64 {
        let id = super::node::next_hook_id();
        match self.grad_fn() {
            Some(f) => f.hooks().pre.lock().unwrap_or_else(|e| e.into_inner()).push((id, Some(self.output_nr()), hook)),
            None => self.with_meta(|m| m.hooks.push((id, hook))),
        }
        id
    }

    pub fn remove_tensor_hook(&self, id: u64) -> bool {
        if let Some(f) = self.grad_fn() {
            if f.hooks().remove(id) {
                return true;
            }
        }
        self.with_meta(|m| {
            let before = m.hooks.len();
            m.hooks.retain(|(i, _)| *i != id);
            m.hooks.len() != before
        })
    }

    /// Runs a leaf's hooks over the gradient about to be accumulated into it.
    pub fn run_leaf_hooks(&self, mut g: Tensor) -> Result<Tensor> {
        let hooks: Vec<Arc<dyn GradHook>> =
            self.meta().as_ref().map(|m| m.hooks.iter().map(|(_, h)| h.clone()).collect()).unwrap_or_default();
        for h in hooks {
            if let Some(mut new) = h.call(&[Some(g.clone())])? {
                if let Some(Some(n)) = new.pop() {
                    g = n;
                }
            }
        }
        Ok(g)
    }

    /// `detach_()`: this tensor leaves the graph.
    pub fn detach_(&self) {
        self.with_meta(|m| {
            m.grad_fn = None;
            m.requires_grad = false;
            m.output_nr = 0;
        });
    }

    /// `self.data = data`: a tensor with `data`'s storage, shape and dtype that keeps this
    /// tensor's autograd state (requires_grad, grad, history, hooks). The gradient
    /// accumulator is not carried over: it belongs to the old tensor.
    pub fn with_data_of(&self, data: &Tensor) -> Result<Tensor> {
        let out = data.detach();
        let old = self.meta();
        if let Some(m) = old.as_ref() {
            if (m.requires_grad || m.grad_fn.is_some()) && !data.dtype().is_floating_point() {
                return Err(Error::Runtime("data set to a tensor that requires gradients must be floating point or complex dtype".into()));
            }
            out.meta().set(AutogradMeta {
                requires_grad: m.requires_grad,
                grad: m.grad.clone(),
                grad_fn: m.grad_fn.clone(),
                output_nr: m.output_nr,
                grad_accumulator: Weak::new(),
                retains_grad: m.retains_grad,
                hooks: m.hooks.clone(),
                view_base: None,
                front_object: None,
            });
        }
        Ok(out)
    }

    /// A tensor sharing storage with no autograd history.
    pub fn detach(&self) -> Tensor {
        self.with_layout(self.layout().clone())
    }
}

/// PyTorch's gradient layout contract: a gradient for a non-overlapping-and-dense parameter has
/// the parameter's strides (size-1 dims aside, unless expanded there); any other parameter's
/// gradient is row-major.
fn obeys_grad_layout(grad: &Layout, param: &Layout) -> bool {
    if !crate::result_layout::is_dense(param) {
        return grad.is_contiguous();
    }
    grad.shape.iter().zip(grad.strides.iter().zip(&param.strides)).all(|(&n, (&gs, &ps))| if n != 1 { gs == ps } else { gs != 0 })
}
