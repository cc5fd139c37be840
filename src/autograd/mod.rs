//! Reverse-mode automatic differentiation: the graph recorded while ops run, and the engine that
//! walks it backwards.

mod backward;
pub mod composite;
pub mod engine;
pub mod formulas;
pub mod grad_mode;
mod inplace;
pub(crate) use inplace::Written;
pub mod meta;
pub mod node;
pub mod op;
pub mod profile;
pub(crate) mod teardown;

pub use composite::{composite, named, named_pair};
pub use engine::{backward, grad};
pub use grad_mode::{is_enabled as is_grad_enabled, GradMode};
pub use node::{Edge, GradHook, Node, NodeRef};
pub(crate) use op::Saved;
pub use op::{keep_buffers, record, record_named, record_shown, Op, Positions};
