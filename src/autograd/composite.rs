//! Ops built from other ops that PyTorch differentiates as one node: their outputs become those
//! of one `OpNode` (`Op::Composite`), named like PyTorch's, whose backward runs the graph the
//! op's parts recorded.

use std::sync::Arc;

use crate::error::Result;
use crate::tensor::Tensor;

use super::engine::{execute, Pass};
use super::node::{Edge, Node, NodeRef};
use super::op::{composite_node, freed, OpNode};

/// The backward of a composite op's node: the output gradients go through the graph the body
/// recorded, down to the node's edges (the op's inputs).
pub(super) fn backward(node: &OpNode, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
    let body = node.body.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(freed)?;
    let roots: Vec<(Edge, Tensor)> = body.into_iter().zip(grads).filter_map(|(e, g)| Some((e?, g?))).collect();
    run_to_edges(roots, node.next_edges())
}

/// Runs the gradients `roots` through the graph behind them down to `edges` (a node's edges to
/// its inputs), not past them: what reaches each edge, in order (None for a missing edge). The
/// graph runs retaining (a composite's body is kept with its node); under create_graph its
/// formulas record a differentiable graph.
pub(crate) fn run_to_edges(roots: Vec<(Edge, Tensor)>, edges: &[Option<Edge>]) -> Result<Vec<Option<Tensor>>> {
    if roots.is_empty() {
        return Ok(vec![None; edges.len()]);
    }
    // Only the edges to inputs that need a gradient are captured; the rest get None. An
    // input given twice (`dot(a, a)`) has one edge: the whole gradient reaching it goes to
    // its first position only, as the engine sums what this node returns per edge.
    let same = |a: &Edge, b: &Edge| Arc::ptr_eq(&a.node, &b.node) && a.input_nr == b.input_nr;
    let mut wanted: Vec<(usize, Edge)> = vec![];
    for (i, e) in edges.iter().enumerate() {
        if let Some(e) = e {
            if !wanted.iter().any(|(_, w)| same(w, e)) {
                wanted.push((i, e.clone()));
            }
        }
    }
    let capture: Vec<Edge> = wanted.iter().map(|(_, e)| e.clone()).collect();
    let got = execute(
        roots,
        &Pass { retain_graph: true, create_graph: super::grad_mode::is_enabled(), capture: &capture, accumulate: false, boundary: true },
    )?;
    let mut out = vec![None; edges.len()];
    for ((i, _), g) in wanted.into_iter().zip(got) {
        out[i] = g;
    }
    Ok(out)
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
    let body: Vec<Option<Edge>> = outputs.iter().map(|o| o.grad_fn().and(o.gradient_edge())).collect();
    let edges = inputs.iter().map(|t| t.and_then(Tensor::gradient_edge)).collect();
    let node: NodeRef = composite_node(name, edges, body);
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
