//! Graph nodes: the backward function of one op, the edges to the nodes of its inputs, and hooks.

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::Result;
use crate::tensor::Tensor;

pub type NodeRef = Arc<dyn Node>;

/// Where a gradient goes: input `input_nr` of `node`.
#[derive(Clone)]
pub struct Edge {
    pub node: NodeRef,
    pub input_nr: usize,
}

impl Drop for Edge {
    fn drop(&mut self) {
        release_front_if_last(&self.node);
    }
}

/// Called as one owner of `node` lets go of it: when the only other owner left is the node's
/// front-end object (which holds the node while the node holds it), the node lets go of that
/// object, so the pair is freed as soon as nothing else uses the object (no cycle collector
/// needed), and the object keeps the node alive as long as it is used.
pub(crate) fn release_front_if_last(node: &NodeRef) {
    if Arc::strong_count(node) == 2 {
        if let Some(front) = node.hooks().take_front() {
            drop(front);
        }
    }
}

/// A hook over gradients, implemented in Rust or by a Python callable (in `src/python/`).
/// Returning `Some` replaces the gradients.
pub trait GradHook: Send + Sync + Any {
    fn call(&self, grads: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>;
    fn as_any(&self) -> &dyn Any;
}

/// Hooks of one node, each with the id its handle removes it by.
/// A pre-hook: its handle id, the output index it watches (`None`: all of them), the hook.
pub type PreHook = (u64, Option<usize>, Arc<dyn GradHook>);

#[derive(Default)]
pub struct NodeHooks {
    /// Called with the gradients flowing into the node, before it runs. Tensor hooks are these,
    /// keyed by the output index of the tensor they were registered on.
    pub pre: Mutex<Vec<PreHook>>,
    /// Called with (grad_inputs, grad_outputs) after the node runs; may replace grad_inputs.
    pub post: Mutex<Vec<(u64, Arc<dyn GradHook>)>>,
    /// The object standing for the node in the front end (Python's `grad_fn` object), held
    /// while the node is used elsewhere so that it keeps one identity for the node's lifetime,
    /// as PyTorch's does; that object holds the node in turn (see `release_front_if_last`).
    front: Mutex<Option<Box<dyn Any + Send + Sync>>>,
}

static NEXT_HOOK_ID: AtomicU64 = AtomicU64::new(1);
static NEXT_SEQUENCE: AtomicU64 = AtomicU64::new(0);

pub fn next_hook_id() -> u64 {
    NEXT_HOOK_ID.fetch_add(1, Ordering::Relaxed)
}

/// Nodes are numbered in creation order; the engine runs later nodes first.
pub fn next_sequence_nr() -> u64 {
    NEXT_SEQUENCE.fetch_add(1, Ordering::Relaxed)
}

impl NodeHooks {
    /// Calls `f` on each hook held by nothing but these hooks (Python's collector asks through
    /// it); a busy lock hides its hooks rather than being waited on.
    pub fn try_for_each_owned<E>(&self, mut f: impl FnMut(&dyn GradHook) -> std::result::Result<(), E>) -> std::result::Result<(), E> {
        if let Ok(pre) = self.pre.try_lock() {
            for (_, _, h) in pre.iter().filter(|(_, _, h)| Arc::strong_count(h) == 1) {
                f(h.as_ref())?;
            }
        }
        if let Ok(post) = self.post.try_lock() {
            for (_, h) in post.iter().filter(|(_, h)| Arc::strong_count(h) == 1) {
                f(h.as_ref())?;
            }
        }
        Ok(())
    }

    /// Runs `f` on the node's front-end object, if it has one.
    pub fn with_front<R>(&self, f: impl FnOnce(Option<&(dyn Any + Send + Sync)>) -> R) -> R {
        let guard = self.front.lock().unwrap_or_else(|e| e.into_inner());
        f(guard.as_deref())
    }

    /// Like `with_front`, but never waits on the lock (for Python's collector).
    pub fn try_with_front<R>(&self, f: impl FnOnce(Option<&(dyn Any + Send + Sync)>) -> R) -> Option<R> {
        let guard = self.front.try_lock().ok()?;
        Some(f(guard.as_deref()))
    }

    pub fn set_front(&self, front: Box<dyn Any + Send + Sync>) {
        let old = self.front.lock().unwrap_or_else(|e| e.into_inner()).replace(front);
        drop(old);
    }

    /// Removes the front-end object, for the caller to drop (outside the lock).
    pub fn take_front(&self) -> Option<Box<dyn Any + Send + Sync>> {
        self.front.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    pub fn has_front(&self) -> bool {
        self.front.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// Removes every hook, handing them to the caller to drop (outside the locks).
    pub fn take_all(&self) -> Vec<Arc<dyn GradHook>> {
        let mut out: Vec<Arc<dyn GradHook>> =
            std::mem::take(&mut *self.pre.lock().unwrap_or_else(|e| e.into_inner())).into_iter().map(|(_, _, h)| h).collect();
        out.extend(std::mem::take(&mut *self.post.lock().unwrap_or_else(|e| e.into_inner())).into_iter().map(|(_, h)| h));
        out
    }

    pub fn remove(&self, id: u64) -> bool {
        let mut pre = self.pre.lock().unwrap_or_else(|e| e.into_inner());
        let before = pre.len();
        pre.retain(|(i, _, _)| *i != id);
        let mut post = self.post.lock().unwrap_or_else(|e| e.into_inner());
        let before_post = post.len();
        post.retain(|(i, _)| *i != id);
        pre.len() != before || post.len() != before_post
    }
}

pub trait Node: Send + Sync + Any {
    /// PyTorch's class name of the node, e.g. `AddBackward0`.
    fn name(&self) -> String;
    /// One edge per differentiable input (None where the input needs no gradient).
    fn next_edges(&self) -> &[Option<Edge>];
    /// How many gradients the node receives (its op's outputs).
    fn num_outputs(&self) -> usize {
        1
    }
    /// Gradients of the inputs from the gradients of the outputs.
    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>>;
    /// Frees saved tensors after a backward without `retain_graph`.
    fn release_saved(&self) {}
    fn sequence_nr(&self) -> u64;
    fn hooks(&self) -> &NodeHooks;
    fn as_any(&self) -> &dyn Any;
    /// Name of the forward op, for anomaly-mode messages.
    fn forward_name(&self) -> String {
        self.name()
    }
}

/// The node that ends every path at a leaf: adds the gradient into the leaf's `.grad`.
pub struct AccumulateGrad {
    pub variable: Tensor,
    hooks: NodeHooks,
}

impl AccumulateGrad {
    pub fn new(variable: Tensor) -> AccumulateGrad {
        AccumulateGrad { variable, hooks: NodeHooks::default() }
    }
}

impl Node for AccumulateGrad {
    fn name(&self) -> String {
        "AccumulateGrad".into()
    }

    fn next_edges(&self) -> &[Option<Edge>] {
        &[]
    }

    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        if let Some(Some(g)) = grads.into_iter().next() {
            let g = self.variable.run_leaf_hooks(g)?;
            self.variable.accumulate_grad(g)?;
        }
        Ok(vec![])
    }

    fn sequence_nr(&self) -> u64 {
        u64::MAX
    }

    fn hooks(&self) -> &NodeHooks {
        &self.hooks
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
