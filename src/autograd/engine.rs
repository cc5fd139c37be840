//! The backward engine: counts dependencies over the graph, then runs each node once all the
//! gradients flowing into it are summed, latest-created first (only the nodes on a path to the
//! requested inputs, when inputs are given).

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};
use crate::tensor::{BinaryOp, Tensor};

use super::grad_mode::GradMode;
use super::node::{Edge, NodeRef};
use super::profile;

static DETECT_ANOMALY: AtomicBool = AtomicBool::new(false);

/// `set_detect_anomaly`: check every backward output for NaN and name the op that made it.
pub fn set_detect_anomaly(on: bool) {
    DETECT_ANOMALY.store(on, Ordering::Relaxed);
}

pub fn is_anomaly_enabled() -> bool {
    DETECT_ANOMALY.load(Ordering::Relaxed)
}

/// Hashes node addresses: already unique, they only need their bits mixed (SipHash's
/// resistance to chosen keys buys nothing here and costs a graph of a million nodes seconds).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        // Addresses are multiples of the allocation alignment: fold the high bits down.
        let x = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
}

type ByNode = BuildHasherDefault<AddressHasher>;
type NodeMap<V> = HashMap<usize, V, ByNode>;
type NodeSet = HashSet<usize, ByNode>;

fn key(node: &NodeRef) -> usize {
    std::sync::Arc::as_ptr(node) as *const () as usize
}

fn add_grad(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(cur) => cur.binary(BinaryOp::Add, &g)?,
    });
    Ok(())
}

struct Task {
    node: NodeRef,
    grads: Vec<Option<Tensor>>,
}

/// How one pass over the graph runs.
pub(crate) struct Pass<'a> {
    pub retain_graph: bool,
    pub create_graph: bool,
    /// Edges whose incoming gradients are returned, in this order.
    pub capture: &'a [Edge],
    /// Run every node reached, leaves' `AccumulateGrad` included (`backward()` without
    /// `inputs`). Otherwise only the nodes on a path to a captured edge run.
    pub accumulate: bool,
    /// Captured edges are where the graph ends: their nodes run neither hooks nor backward and
    /// what lies behind them is not visited (the inner graph of a composite op).
    pub boundary: bool,
}

/// Runs the graph from `roots` (edges with their gradients) and returns the gradients reaching
/// the pass's captured edges.
pub(crate) fn execute(roots: Vec<(Edge, Tensor)>, pass: &Pass<'_>) -> Result<Vec<Option<Tensor>>> {
    let capture = pass.capture;
    let captured_keys: NodeSet = capture.iter().map(|e| key(&e.node)).collect();
    // The graph reachable from the roots (not past a boundary).
    let mut seen: NodeMap<NodeRef> = NodeMap::default();
    let mut stack: Vec<NodeRef> = vec![];
    for (e, _) in &roots {
        if seen.insert(key(&e.node), e.node.clone()).is_none() {
            stack.push(e.node.clone());
        }
    }
    while let Some(n) = stack.pop() {
        if pass.boundary && captured_keys.contains(&key(&n)) {
            continue;
        }
        for e in n.next_edges().iter().flatten() {
            if seen.insert(key(&e.node), e.node.clone()).is_none() {
                stack.push(e.node.clone());
            }
        }
    }
    // Which nodes run their backward: all of them (None), or those with a path to a captured
    // edge.
    let runs: Option<NodeSet> = (!pass.accumulate).then(|| leading_to(&seen, &captured_keys, pass.boundary));
    let runs = Runs(runs.as_ref());
    // A node takes part when it runs or captures; edges into other nodes carry nothing.
    let takes_part = |k: &usize| runs.contains(k) || captured_keys.contains(k);
    let mut deps: NodeMap<usize> = NodeMap::default();
    for (k, n) in &seen {
        if !runs.contains(k) {
            continue;
        }
        for e in n.next_edges().iter().flatten() {
            let ck = key(&e.node);
            if takes_part(&ck) {
                *deps.entry(ck).or_insert(0) += 1;
            }
        }
    }

    let mut tasks: NodeMap<Task> = NodeMap::default();
    for (e, g) in roots {
        if !takes_part(&key(&e.node)) {
            continue;
        }
        let t = tasks.entry(key(&e.node)).or_insert_with(|| Task { grads: vec![None; e.node.num_outputs()], node: e.node.clone() });
        add_grad(&mut t.grads[e.input_nr], g)?;
    }
    let mut ready: BinaryHeap<(u64, usize)> =
        tasks.keys().filter(|k| deps.get(k).copied().unwrap_or(0) == 0).map(|&k| (seen[&k].sequence_nr(), k)).collect();
    let mut captured: Vec<Option<Tensor>> = vec![None; capture.len()];
    let _mode = GradMode::set(pass.create_graph);

    while let Some((_, k)) = ready.pop() {
        let Some(Task { node, mut grads }) = tasks.remove(&k) else { continue };
        let at_boundary = pass.boundary && captured_keys.contains(&k);
        if !at_boundary {
            run_pre_hooks(&node, &mut grads)?;
        }
        if captured_keys.contains(&k) {
            for (ci, e) in capture.iter().enumerate() {
                if key(&e.node) == k {
                    if let Some(g) = &grads[e.input_nr] {
                        add_grad(&mut captured[ci], g.clone())?;
                    }
                }
            }
        }
        if at_boundary || !runs.contains(&k) {
            continue;
        }
        let post = node.hooks().post.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // Post hooks see the incoming gradients too; without them the node takes the only
        // handles (so a leaf keeps its gradient instead of copying it).
        let outputs = profile::timed(
            || node.name(),
            || if post.is_empty() { node.apply(std::mem::take(&mut grads)) } else { node.apply(grads.clone()) },
        )?;
        if is_anomaly_enabled() {
            check_nan(&node, &outputs)?;
        }
        let mut outputs = outputs;
        for (_, hook) in post {
            let mut args = outputs.clone();
            args.extend(grads.iter().cloned());
            if let Some(new) = hook.call(&args)? {
                outputs = new;
            }
        }
        if !pass.retain_graph {
            node.release_saved();
        }
        for (e, g) in node.next_edges().iter().zip(outputs.into_iter().chain(std::iter::repeat(None))) {
            let Some(e) = e else { continue };
            let ck = key(&e.node);
            if !takes_part(&ck) {
                continue;
            }
            if let Some(g) = g {
                let t = tasks.entry(ck).or_insert_with(|| Task { grads: vec![None; e.node.num_outputs()], node: e.node.clone() });
                add_grad(&mut t.grads[e.input_nr], g)?;
            }
            let d = deps.get_mut(&ck).expect("every edge was counted");
            *d -= 1;
            if *d == 0 {
                if tasks.contains_key(&ck) {
                    ready.push((e.node.sequence_nr(), ck));
                } else {
                    // Nothing flowed in; its own children still count it as done.
                    propagate_empty(&e.node, runs, &takes_part, &mut deps, &mut tasks, &mut ready);
                }
            }
        }
    }
    Ok(captured)
}

/// The nodes that run their backward in a pass: every node seen (None), or those listed.
#[derive(Clone, Copy)]
struct Runs<'a>(Option<&'a NodeSet>);

impl Runs<'_> {
    fn contains(&self, k: &usize) -> bool {
        self.0.is_none_or(|r| r.contains(k))
    }
}

/// Tensor hooks and node pre-hooks see (and may replace) the gradients flowing into `node`.
fn run_pre_hooks(node: &NodeRef, grads: &mut Vec<Option<Tensor>>) -> Result<()> {
    let pre = node.hooks().pre.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for (_, output, hook) in pre {
        match output {
            Some(i) => {
                if let Some(mut new) = hook.call(&grads[i..=i])? {
                    grads[i] = new.pop().flatten();
                }
            }
            None => {
                if let Some(new) = hook.call(grads)? {
                    *grads = new;
                }
            }
        }
    }
    Ok(())
}

/// The nodes of `graph` with a path of at least one edge to a captured node (at a boundary,
/// captured nodes lead nowhere themselves).
fn leading_to(graph: &NodeMap<NodeRef>, captured: &NodeSet, boundary: bool) -> NodeSet {
    let mut done: NodeMap<bool> = NodeMap::default();
    for (&start, node) in graph {
        if done.contains_key(&start) {
            continue;
        }
        // Iterative post-order (the graph has no cycles): (key, node, next child to look at).
        let mut stack: Vec<(usize, NodeRef, usize)> = vec![(start, node.clone(), 0)];
        while let Some((k, n, i)) = stack.pop() {
            let edges = n.next_edges();
            let stop = boundary && captured.contains(&k);
            if !stop && i < edges.len() {
                stack.push((k, n.clone(), i + 1));
                if let Some(e) = &edges[i] {
                    let ck = key(&e.node);
                    if !done.contains_key(&ck) && graph.contains_key(&ck) {
                        stack.push((ck, e.node.clone(), 0));
                    }
                }
                continue;
            }
            let leads = !stop
                && edges.iter().flatten().any(|e| {
                    let ck = key(&e.node);
                    captured.contains(&ck) || done.get(&ck).copied().unwrap_or(false)
                });
            done.insert(k, leads);
        }
    }
    done.into_iter().filter(|&(_, l)| l).map(|(k, _)| k).collect()
}

/// A node that received no gradient at all: release its children's dependency on it.
fn propagate_empty(
    node: &NodeRef,
    runs: Runs<'_>,
    takes_part: &impl Fn(&usize) -> bool,
    deps: &mut NodeMap<usize>,
    tasks: &mut NodeMap<Task>,
    ready: &mut BinaryHeap<(u64, usize)>,
) {
    let mut stack = vec![node.clone()];
    while let Some(n) = stack.pop() {
        if !runs.contains(&key(&n)) {
            continue;
        }
        for e in n.next_edges().iter().flatten() {
            let ck = key(&e.node);
            if !takes_part(&ck) {
                continue;
            }
            let d = deps.get_mut(&ck).expect("every edge was counted");
            *d -= 1;
            if *d == 0 {
                if tasks.contains_key(&ck) {
                    ready.push((e.node.sequence_nr(), ck));
                } else {
                    stack.push(e.node.clone());
                }
            }
        }
    }
}

fn check_nan(node: &NodeRef, outputs: &[Option<Tensor>]) -> Result<()> {
    let _off = GradMode::disabled();
    for (i, g) in outputs.iter().enumerate() {
        if let Some(g) = g {
            if g.dtype().is_floating_point() && g.binary(BinaryOp::Ne, g)?.any_true()? {
                return Err(Error::Runtime(format!("Function '{}' returned nan values in its {}th output.", node.name(), i)));
            }
        }
    }
    Ok(())
}

/// The root edges and gradients of `tensors`, with PyTorch's checks.
fn roots(tensors: &[Tensor], grads: &[Option<Tensor>]) -> Result<Vec<(Edge, Tensor)>> {
    let mut out = vec![];
    for (i, t) in tensors.iter().enumerate() {
        let Some(edge) = t.gradient_edge() else {
            return Err(Error::Runtime(format!("element {i} of tensors does not require grad and does not have a grad_fn")));
        };
        let g = match grads.get(i).cloned().flatten() {
            Some(g) => {
                if g.shape() != t.shape() {
                    return Err(Error::Runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of {:?} and output[{i}] has a shape of {:?}.",
                        g.shape(),
                        t.shape()
                    )));
                }
                g
            }
            None => {
                if t.numel() != 1 {
                    return Err(Error::Runtime("grad can be implicitly created only for scalar outputs".into()));
                }
                // On the output's device, so the whole backward pass stays there.
                Tensor::full_on(t.shape(), crate::tensor::Scalar::Int(1), t.dtype(), t.device())?
            }
        };
        out.push((edge, g));
    }
    Ok(out)
}

/// `Tensor.backward` / `autograd.backward`: accumulates into the leaves' `.grad` (only into
/// `inputs` when given).
pub fn backward(
    tensors: &[Tensor],
    grads: &[Option<Tensor>],
    retain_graph: bool,
    create_graph: bool,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    let roots = roots(tensors, grads)?;
    match inputs {
        None => {
            execute(roots, &Pass { retain_graph, create_graph, capture: &[], accumulate: true, boundary: false })?;
        }
        Some(inputs) => {
            let edges = input_edges(inputs)?;
            let got = execute(roots, &Pass { retain_graph, create_graph, capture: &edges, accumulate: false, boundary: false })?;
            for (t, g) in inputs.iter().zip(got) {
                if let Some(g) = g {
                    let _mode = GradMode::set(create_graph);
                    t.accumulate_grad(g)?;
                }
            }
        }
    }
    Ok(())
}

fn input_edges(inputs: &[Tensor]) -> Result<Vec<Edge>> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.gradient_edge().ok_or_else(|| Error::Runtime(format!("One of the differentiated Tensors does not require grad (input {i})")))
        })
        .collect()
}

/// `autograd.grad`: the gradients of `outputs` with respect to `inputs`, leaving `.grad` alone.
pub fn grad(
    outputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    inputs: &[Tensor],
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    let roots = roots(outputs, grad_outputs)?;
    let edges = input_edges(inputs)?;
    let got = execute(roots, &Pass { retain_graph, create_graph, capture: &edges, accumulate: false, boundary: false })?;
    if !allow_unused {
        if let Some(i) = got.iter().position(|g| g.is_none()) {
            return Err(Error::Runtime(format!(
                "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior. (input {i})"
            )));
        }
    }
    Ok(got)
}
