//! Dtype conversion with PyTorch's semantics, elementwise and over strided data.

use crate::backend::Array;
use crate::cpu::elementwise::{dense_copy, map1};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;

/// Converts one value: ints wrap, floats to ints as `float_to_int`, anything to bool tests for
/// non-zero (NaN included). Branches fold away per instantiation.
#[inline(always)]
pub fn convert<S: Element, D: Element>(x: S) -> D {
    if S::DTYPE == D::DTYPE {
        // A copy: the bits as they are (through f64 a clone cost four times a memcpy).
        // SAFETY: one Rust type per dtype, so S and D are the same type here.
        unsafe { std::mem::transmute_copy::<S, D>(&x) }
    } else if D::DTYPE == DType::Bool {
        D::from_i64(x.is_nonzero() as i64)
    } else if D::DTYPE.is_floating_point() {
        D::from_f64(x.to_f64())
    } else if S::DTYPE.is_floating_point() {
        float_to_int::<D>(x.to_f64())
    } else {
        D::from_i64(x.to_i64())
    }
}

/// Float to integer as PyTorch's CPU casts give it on x86-64, where out-of-range values are not
/// clamped: the value is truncated toward zero into an intermediate integer (i64 for uint8 and
/// int64, i32 for int8, int16 and int32) whose minimum stands for "out of range" (NaN and
/// infinities included), then wrapped to the target width. So -1.5 -> uint8 is 255, 300.7 ->
/// uint8 is 44, 1e10 -> int32 is i32::MIN. (Every f16/bf16/f32 value is exact as an f64, so
/// going through f64 changes nothing.)
#[inline(always)]
fn float_to_int<D: Element>(v: f64) -> D {
    match D::DTYPE {
        DType::U8 | DType::I64 => D::from_i64(truncate_i64(v)),
        _ => D::from_i64(truncate_i32(v) as i64),
    }
}

#[inline(always)]
fn truncate_i64(v: f64) -> i64 {
    // -2^63 itself is in range; the open bound 2^63 is not.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

#[inline(always)]
fn truncate_i32(v: f64) -> i32 {
    // Truncation keeps anything strictly between -2^31 - 1 and 2^31 in range.
    if v > -2_147_483_649.0 && v < 2_147_483_648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

/// A contiguous copy of strided `src`, converted to `D`.
pub fn convert_strided<S: Element, D: Element>(src: &[S], layout: &Layout) -> Result<Vec<D>> {
    if S::DTYPE == D::DTYPE {
        // SAFETY: one Rust type per dtype, so S and D are the same type here.
        return Ok(unsafe { std::mem::transmute::<Vec<S>, Vec<D>>(dense_copy(src, layout)?) });
    }
    map1(src, layout, convert::<S, D>)
}

/// `x` as a new contiguous array of `dtype`.
pub fn copy_as(x: &Array, dtype: DType) -> Result<Array> {
    crate::with_dtype!(x.dtype(), S => crate::with_dtype!(dtype, D => {
        let data = x.with_slice::<S, _>("copy", convert_strided::<S, D>)??;
        Array::from_vec(data, x.shape())
    }))
}

/// The contiguous elements of `x` as `T` (its dtype), handed to `f`: a strided view is copied
/// first, as the fused kernels read their operands densely.
pub fn dense_slice<T: Element, R>(x: &Array, op: &str, f: impl FnOnce(&[T]) -> R) -> Result<R> {
    let x = if x.is_contiguous() { x.clone() } else { copy_as(x, x.dtype())? };
    let n = x.numel();
    x.with_slice::<T, _>(op, |s, l| f(&s[l.offset..][..n]))
}

#[cfg(test)]
mod tests {
    use super::convert;

    #[test]
    fn float_to_int_wraps_through_the_intermediate_integer() {
        assert_eq!(convert::<f32, u8>(-1.5), 255);
        assert_eq!(convert::<f32, u8>(300.7), 44);
        assert_eq!(convert::<f32, i8>(300.7), 44);
        assert_eq!(convert::<f64, u8>(-2147483649.0), 255);
        assert_eq!(convert::<f64, i8>(-2147483649.0), 0);
        assert_eq!(convert::<f64, i16>(100000.5), -31072);
        assert_eq!(convert::<f64, i32>(1e10), i32::MIN);
        assert_eq!(convert::<f64, i32>(2147483647.9), i32::MAX);
        assert_eq!(convert::<f64, i64>(1e10), 10_000_000_000);
        assert_eq!(convert::<f64, i64>(1e19), i64::MIN);
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(convert::<f64, i64>(v), i64::MIN);
            assert_eq!(convert::<f64, i32>(v), i32::MIN);
            assert_eq!(convert::<f64, u8>(v), 0);
            assert!(convert::<f64, bool>(v));
        }
    }
}
