//! PyTorch's `reduction` argument of the losses.

use crate::error::{Error, Result};

/// PyTorch's `reduction` argument of the losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl Reduction {
    pub fn parse(s: &str) -> Result<Reduction> {
        match s {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            _ => Err(Error::Value(format!("{s} is not a valid value for reduction"))),
        }
    }
}
