//! How a built-in op's node runs backward: `OpNode` as a graph node (its name, the edges it
//! shows, what it releases) whose `apply` calls the op's formula (`formulas.rs`) or re-runs a
//! composite's body (`composite.rs`). Apart from `op.rs`, which records the node and holds its
//! data, so that recording an op does not depend on the formulas that differentiate it (they
//! call recorded ops themselves, for double backward).

use std::any::Any;

use crate::error::Result;
use crate::tensor::Tensor;

use super::node::{Edge, Node, NodeHooks};
use super::op::{Op, OpNode};
use super::{composite, formulas};

impl Node for OpNode {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn next_edges(&self) -> &[Option<Edge>] {
        self.shown.as_ref().map_or(&self.edges, |(_, edges)| edges)
    }

    fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        if let Op::Composite = self.op {
            return composite::backward(self, grads);
        }
        let mut all = formulas::backward(self, grads)?;
        Ok(match &self.shown {
            Some((order, _)) => order.iter().map(|&i| all[i].take()).collect(),
            None => all,
        })
    }

    fn release_saved(&self) {
        *self.saved_inputs.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *self.saved_outputs.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *self.buffers.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *self.body.lock().unwrap_or_else(|e| e.into_inner()) = None;
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
