//! The reductions over dims as the backends know them; `tensor::reduce` gives them dims,
//! dtypes and autograd.

/// A reduction over dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Prod,
    Max,
    Min,
    All,
    Any,
}

impl ReduceOp {
    /// PyTorch's name of the op, for errors.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "amax",
            ReduceOp::Min => "amin",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
        }
    }
}
