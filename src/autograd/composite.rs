//! Ops built from other ops that PyTorch differentiates as one node: the node standing for
//! such an op, named like PyTorch's, whose backward runs the graph the op's parts recorded.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::error::Result;
use crate::tensor::Tensor;

use super::engine::{execute, Pass};
use super::node::{next_sequence_nr, Edge, Node, NodeHooks};
use super::op::freed;

/// The node of a composite op: its edges go to the op's inputs (like PyTorch's node), and its
/// backward sends the output gradients through the inner graph down to those edges.
pub struct CompositeNode {
    name: String,
    edges: Vec<Option<Edge>>,
    /// Per output, the edge of the inner graph that output came from. Dropped (with the inner
    /// graph and what it saved) when the graph is released.
    inner: Mutex<Option<Vec<Option<Edge>>>>,
    num_outputs: usize,
    seq: u64,
    hooks: NodeHooks,
}

impl Drop for CompositeNode {
    /// The input edges and the inner graph go through `teardown::release` (no recursion).
    fn drop(&mut self) {
        let parts =
            (std::mem::take(&mut self.edges), self.inner.get_mut().unwrap_or_else(|e| e.into_inner()).take(), self.hooks.take_all());
        super::teardown::release(parts);
    }
}

impl Node for CompositeNode {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn next_edges(&self) -> &[Option<Edge>] {
        &self.edges
    }

    fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(freed)?;
        let roots: Vec<(Edge, Tensor)> = inner.into_iter().zip(grads).filter_map(|(e, g)| Some((e?, g?))).collect();
        if roots.is_empty() {
            return Ok(vec![None; self.edges.len()]);
        }
        // Only the edges to inputs that need a gradient are captured; the rest get None. An
        // input given twice (`dot(a, a)`) has one edge: the whole gradient reaching it goes to
        // its first position only, as the engine sums what this node returns per edge.
        let same = |a: &Edge, b: &Edge| Arc::ptr_eq(&a.node, &b.node) && a.input_nr == b.input_nr;
        let mut wanted: Vec<(usize, Edge)> = vec![];
        for (i, e) in self.edges.iter().enumerate() {
            if let Some(e) = e {
                if !wanted.iter().any(|(_, w)| same(w, e)) {
                    wanted.push((i, e.clone()));
                }
            }
        }
        let capture: Vec<Edge> = wanted.iter().map(|(_, e)| e.clone()).collect();
        // The inner graph is kept until this node is released (its saved tensors with it), so
        // it runs retaining; under create_graph its formulas record a differentiable graph.
        let got = execute(
            roots,
            &Pass {
                retain_graph: true,
                create_graph: super::grad_mode::is_enabled(),
                capture: &capture,
                accumulate: false,
                boundary: true,
            },
        )?;
        let mut out = vec![None; self.edges.len()];
        for ((i, _), g) in wanted.into_iter().zip(got) {
            out[i] = g;
        }
        Ok(out)
    }

    fn release_saved(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = None;
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

/// Makes `outputs`, computed from `inputs` by other recorded ops, the outputs of one node named
/// `name` (PyTorch's name of the op's backward node). Outputs that carry no history, or calls
/// outside grad mode, come back unchanged.
pub fn composite(name: &str, inputs: &[&Tensor], outputs: Vec<Tensor>) -> Vec<Tensor> {
    let inputs: Vec<Option<&Tensor>> = inputs.iter().map(|&t| Some(t)).collect();
    composite_optional(name, &inputs, outputs)
}

/// `composite` where an optional input that was not given (None) has a None edge, as PyTorch
/// lists it (a convolution without bias).
pub fn composite_optional(name: &str, inputs: &[Option<&Tensor>], outputs: Vec<Tensor>) -> Vec<Tensor> {
    if !super::grad_mode::is_enabled() || !outputs.iter().any(|o| o.grad_fn().is_some()) {
        return outputs;
    }
    let inner: Vec<Option<Edge>> = outputs.iter().map(|o| o.grad_fn().and(o.gradient_edge())).collect();
    let node = Arc::new(CompositeNode {
        name: name.to_string(),
        edges: inputs.iter().map(|t| t.and_then(Tensor::gradient_edge)).collect(),
        num_outputs: inner.len(),
        inner: Mutex::new(Some(inner)),
        seq: next_sequence_nr(),
        hooks: NodeHooks::default(),
    });
    outputs
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            if o.grad_fn().is_none() {
                return o;
            }
            let t = o.detach();
            t.set_grad_fn(node.clone(), i);
            t
        })
        .collect()
}

/// `composite` around `f`, for ops written as a closure over their inputs.
pub fn named(name: &str, inputs: &[&Tensor], f: impl FnOnce() -> Result<Tensor>) -> Result<Tensor> {
    let out = f()?;
    Ok(composite(name, inputs, vec![out]).pop().expect("one output in, one out"))
}

/// `named` for ops giving values and indices (sort, topk, max along a dim).
pub fn named_pair(name: &str, inputs: &[&Tensor], f: impl FnOnce() -> Result<(Tensor, Tensor)>) -> Result<(Tensor, Tensor)> {
    let (values, indices) = f()?;
    let mut out = composite(name, inputs, vec![values, indices]).into_iter();
    match (out.next(), out.next()) {
        (Some(v), Some(i)) => Ok((v, i)),
        _ => unreachable!("two outputs in, two out"),
    }
}
