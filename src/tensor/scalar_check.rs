//! Which Python numbers fit a dtype when written into a tensor (`torch.tensor([300],
//! dtype=torch.uint8)`, `fill_`, `x[0] = 300`): PyTorch refuses those that would overflow,
//! while arithmetic with a number (`x + 300`) wraps.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Scalar;

/// How the dtype is spelled in the overflow error: `tensor()` names the dtype ("uint8"), the
/// fill kernels name its C++ type ("uint8_t").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    Dtype,
    Cpp,
}

fn spelled(dtype: DType, spelling: Spelling) -> &'static str {
    match (spelling, dtype) {
        (Spelling::Dtype, d) => d.name(),
        (Spelling::Cpp, DType::U8) => "uint8_t",
        (Spelling::Cpp, DType::I8) => "int8_t",
        (Spelling::Cpp, DType::I16) => "int16_t",
        (Spelling::Cpp, DType::I32) => "int",
        (Spelling::Cpp, DType::I64) => "int64_t",
        (Spelling::Cpp, d) => d.cpp_name(),
    }
}

/// The range of an integer dtype.
pub(crate) fn int_range(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::U8 => (0, u8::MAX as i64),
        DType::I8 => (i8::MIN as i64, i8::MAX as i64),
        DType::I16 => (i16::MIN as i64, i16::MAX as i64),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

impl Scalar {
    /// Whether PyTorch's checked conversion takes the number as an element of `dtype`.
    /// Integers must lie in the type's range, except that uint8 also takes -255..-1 (they wrap,
    /// as two's complement); floats must be finite and round toward zero into the range (no
    /// wrapping for negative floats). Float32 refuses finite numbers beyond its largest; bool and
    /// the other float dtypes take anything.
    pub fn fits(self, dtype: DType) -> bool {
        match (self, dtype) {
            (Scalar::Bool(_), _) | (_, DType::Bool) => true,
            (Scalar::Float(f), DType::F32) => !f.is_finite() || f.abs() <= f32::MAX as f64,
            (_, d) if d.is_floating_point() => true,
            (Scalar::Int(i), DType::U8) => (-255..=255).contains(&i),
            (Scalar::Int(i), d) => {
                let (lo, hi) = int_range(d);
                (lo..=hi).contains(&i)
            }
            (Scalar::Float(f), d) => {
                let (lo, hi) = int_range(d);
                // `hi + 1` as f64 is exact for every range (2^63 for int64).
                f >= lo as f64 && f < hi as f64 + 1.0
            }
        }
    }

    /// The number itself when it fits `dtype`, else PyTorch's overflow error.
    pub fn checked_for(self, dtype: DType, spelling: Spelling) -> Result<Scalar> {
        if self.fits(dtype) {
            return Ok(self);
        }
        Err(Error::Runtime(format!("value cannot be converted to type {} without overflow", spelled(dtype, spelling))))
    }
}

/// PyTorch's checks of `alpha` (`add(other, alpha=...)`) for a result of dtype `result`: no
/// float alpha for integer results, a bool alpha only for bool results, and it must fit.
pub fn check_alpha(alpha: Scalar, result: DType) -> Result<Scalar> {
    if result == DType::Bool {
        if !matches!(alpha, Scalar::Bool(_)) {
            return Err(Error::Runtime("Boolean alpha only supported for Boolean results.".into()));
        }
        return Ok(alpha);
    }
    if !result.is_floating_point() && matches!(alpha, Scalar::Float(_)) {
        return Err(Error::Runtime("For integral input tensors, argument alpha must not be a floating point number.".into()));
    }
    alpha.checked_for(result, Spelling::Cpp)
}

/// A number as C++'s `ostream << double` prints it (`%g`: six significant digits).
pub(crate) fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("`e` format has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if !(-4..6).contains(&exp) {
        format!("{}e{}{:02}", trim(mantissa.to_string()), if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        trim(format!("{:.*}", (5 - exp).max(0) as usize, v))
    }
}

/// PyTorch's checks of `uniform_(from, to)`: both ends values of the (floating) dtype, their
/// difference finite in it, and `from <= to`.
pub fn check_uniform_bounds(from: f64, to: f64, dtype: DType) -> Result<()> {
    if !dtype.is_floating_point() {
        return Err(Error::NotImplemented(format!("\"check_uniform_bounds\" not implemented for '{}'", dtype.title_name())));
    }
    let max = match dtype {
        DType::F16 => half::f16::MAX.to_f64(),
        DType::BF16 => half::bf16::MAX.to_f64(),
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    };
    let name = dtype.cpp_name();
    let inside = |v: f64| v >= -max && v <= max;
    if !inside(from) {
        return Err(Error::Runtime(format!("from is out of bounds for {name}")));
    }
    if !inside(to) {
        return Err(Error::Runtime(format!("to is out of bounds for {name}")));
    }
    if from > to {
        return Err(Error::Runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            fmt_g(from),
            fmt_g(to)
        )));
    }
    if to - from > max {
        return Err(Error::Runtime(format!(
            "uniform_ expects to-from <= std::numeric_limits<{}>::max(), but found to={} and from={} which result in to-from to exceed the limit",
            dtype.title_name(),
            fmt_g(to),
            fmt_g(from)
        )));
    }
    Ok(())
}

/// PyTorch's checks of `normal_(mean, std)`: a floating dtype and `std >= 0` (NaN refused).
pub fn check_normal(std: f64, dtype: DType) -> Result<()> {
    if !dtype.is_floating_point() {
        return Err(Error::NotImplemented(format!("\"normal_kernel_cpu\" not implemented for '{}'", dtype.title_name())));
    }
    if std.is_nan() || std < 0.0 {
        return Err(Error::Runtime(format!("normal expects std >= 0.0, but found std {}", fmt_g(std))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytorch_ranges() {
        assert!(!Scalar::Int(300).fits(DType::U8));
        assert!(Scalar::Int(-255).fits(DType::U8));
        assert!(!Scalar::Int(-256).fits(DType::U8));
        assert!(Scalar::Float(255.5).fits(DType::U8));
        assert!(!Scalar::Float(-0.5).fits(DType::U8));
        assert!(!Scalar::Float(f64::NAN).fits(DType::I64));
        assert!(!Scalar::Float(9.3e18).fits(DType::I64));
        assert!(Scalar::Float(127.9).fits(DType::I8));
        assert!(!Scalar::Float(-128.9).fits(DType::I8));
        assert!(!Scalar::Float(1e300).fits(DType::F32));
        assert!(Scalar::Float(f64::INFINITY).fits(DType::F32));
        assert!(Scalar::Int(1 << 40).fits(DType::F16));
    }

    #[test]
    fn c_style_numbers() {
        for (v, s) in [
            (1.5, "1.5"),
            (0.25, "0.25"),
            (1e10, "1e+10"),
            (-3e38, "-3e+38"),
            (-1e-300, "-1e-300"),
            (-1.0, "-1"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
        ] {
            assert_eq!(fmt_g(v), s);
        }
    }
}
