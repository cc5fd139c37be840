//! Dtype conversion with PyTorch's semantics, elementwise and over strided data.

use crate::cpu::elementwise::map1;
use crate::dtype::{DType, Element};
use crate::layout::Layout;

/// Converts one value: ints wrap, floats to ints truncate (saturating), anything to bool tests
/// for non-zero. Branches fold away per instantiation.
#[inline(always)]
pub fn convert<S: Element, D: Element>(x: S) -> D {
    if D::DTYPE == DType::Bool {
        D::from_i64(x.is_nonzero() as i64)
    } else if D::DTYPE.is_floating_point() || S::DTYPE.is_floating_point() {
        D::from_f64(x.to_f64())
    } else {
        D::from_i64(x.to_i64())
    }
}

/// A contiguous copy of strided `src`, converted to `D`.
pub fn convert_strided<S: Element, D: Element>(src: &[S], layout: &Layout) -> Vec<D> {
    map1(src, layout, convert::<S, D>)
}
