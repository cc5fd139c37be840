//! `Scalar`: a Python number as an operand of an op, with PyTorch's promotion category.

use crate::dtype::Element;

/// A Python number as an operand: PyTorch ranks these below tensors when promoting types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    pub fn category(self) -> crate::dtype::Category {
        use crate::dtype::Category;
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Integral,
            Scalar::Float(_) => Category::Floating,
        }
    }

    /// The value as an element of type `T` (integers stay exact).
    pub fn to_element<T: Element>(self) -> T {
        match self {
            Scalar::Float(f) => T::from_f64(f),
            other if T::DTYPE.is_floating_point() => T::from_f64(other.to_f64()),
            other => T::from_i64(other.to_i64()),
        }
    }
}
