//! Element types, their Rust representations and PyTorch's type-promotion rules.

use half::{bf16, f16};

/// The element type of a tensor. Ordered as PyTorch orders them for promotion tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

/// The broad kind of a dtype; promotion between a tensor and a scalar looks only at this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Integral,
    Floating,
}

impl DType {
    /// The C++ element type names PyTorch prints in some kernel errors ("float", "long int").
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "unsigned char",
            DType::I8 => "signed char",
            DType::I16 => "short int",
            DType::I32 => "int",
            DType::I64 => "long int",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            DType::F64 => "double",
        }
    }

    /// PyTorch's capitalised dtype names used in kernel errors ("Float", "Long").
    pub fn title_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::U8 => "Byte",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::F32 => "Float",
            DType::F64 => "Double",
        }
    }

    pub const ALL: [DType; 10] =
        [DType::Bool, DType::U8, DType::I8, DType::I16, DType::I32, DType::I64, DType::F16, DType::BF16, DType::F32, DType::F64];

    pub fn size_in_bytes(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// PyTorch's name without the `torch.` prefix.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    #[inline]
    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Floating,
            _ => Category::Integral,
        }
    }

    #[inline]
    pub fn is_floating_point(self) -> bool {
        self.category() == Category::Floating
    }

    /// True for 16-bit floats, which kernels compute through f32.
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    pub fn is_signed(self) -> bool {
        !matches!(self, DType::Bool | DType::U8)
    }

    /// `torch.promote_types`.
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        if a == b {
            return a;
        }
        match (a, b) {
            (Bool, x) | (x, Bool) => x,
            (F16, BF16) | (BF16, F16) => F32,
            (x, y) if x.is_floating_point() || y.is_floating_point() => match (x.is_floating_point(), y.is_floating_point()) {
                (true, true) => {
                    if x.size_in_bytes() >= y.size_in_bytes() {
                        x
                    } else {
                        y
                    }
                }
                (true, false) => x,
                _ => y,
            },
            // Integers: an unsigned byte meets a signed type; the result must hold both ranges.
            (U8, I8) | (I8, U8) => I16,
            (U8, x) | (x, U8) => x,
            (x, y) => {
                if x.size_in_bytes() >= y.size_in_bytes() {
                    x
                } else {
                    y
                }
            }
        }
    }
}

/// What an operand contributes to `result_type`: PyTorch ranks tensors with dimensions above
/// zero-dimensional tensors, and those above Python numbers, and lower ranks only matter when they
/// bring a higher category.
#[derive(Clone, Copy, Debug)]
pub enum Operand {
    Tensor(DType),
    ZeroDim(DType),
    Scalar(Category),
}

/// The default dtype of a Python float (and of float factories).
pub const DEFAULT_FLOAT: DType = DType::F32;

/// `torch.result_type` over any mix of tensors, zero-dim tensors and Python scalars.
pub fn result_type(operands: &[Operand]) -> DType {
    let (mut dim, mut zero, mut wrapped): (Option<DType>, Option<DType>, Option<DType>) = (None, None, None);
    let fold = |acc: Option<DType>, d: DType| Some(acc.map_or(d, |a| DType::promote(a, d)));
    for op in operands {
        match *op {
            Operand::Tensor(d) => dim = fold(dim, d),
            Operand::ZeroDim(d) => zero = fold(zero, d),
            Operand::Scalar(c) => {
                let d = match c {
                    Category::Bool => DType::Bool,
                    Category::Integral => DType::I64,
                    Category::Floating => DEFAULT_FLOAT,
                };
                wrapped = fold(wrapped, d);
            }
        }
    }
    combine(dim, combine(zero, wrapped)).unwrap_or(DEFAULT_FLOAT)
}

/// A lower-ranked dtype wins only where it brings a higher category (PyTorch's
/// `combine_categories`).
fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => {
            if h.is_floating_point() {
                Some(h)
            } else if h == DType::Bool || l.is_floating_point() {
                Some(DType::promote(h, l))
            } else {
                Some(h)
            }
        }
    }
}

/// A Rust type that can be a tensor element.
pub trait Element: Copy + Send + Sync + PartialOrd + Default + std::fmt::Debug + 'static {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    /// Conversion with Rust's `as` semantics (saturating for floats to ints, wrapping between ints).
    fn from_f64(v: f64) -> Self;
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
    fn is_nonzero(self) -> bool;
    fn zero() -> Self;
    fn one() -> Self;
}

macro_rules! int_element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn is_nonzero(self) -> bool {
                self != 0
            }
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn one() -> Self {
                1
            }
        }
    };
}
int_element!(u8, U8);
int_element!(i8, I8);
int_element!(i16, I16);
int_element!(i32, I32);
int_element!(i64, I64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn is_nonzero(self) -> bool {
        self
    }
    #[inline(always)]
    fn zero() -> Self {
        false
    }
    #[inline(always)]
    fn one() -> Self {
        true
    }
}

macro_rules! float_element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn is_nonzero(self) -> bool {
                self != 0.0
            }
            #[inline(always)]
            fn zero() -> Self {
                0.0
            }
            #[inline(always)]
            fn one() -> Self {
                1.0
            }
        }
    };
}
float_element!(f32, F32);
float_element!(f64, F64);

macro_rules! half_element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self.to_f64()
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                <$t>::from_f64(v)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self.to_f32() as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                <$t>::from_f64(v as f64)
            }
            #[inline(always)]
            fn is_nonzero(self) -> bool {
                self.to_f32() != 0.0
            }
            #[inline(always)]
            fn zero() -> Self {
                <$t>::ZERO
            }
            #[inline(always)]
            fn one() -> Self {
                <$t>::ONE
            }
        }
    };
}
half_element!(f16, F16);
half_element!(bf16, BF16);

/// Runs `$body` with `$T` bound to the Rust type of `$dtype`.
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {{
        use $crate::dtype::DType;
        match $dtype {
            DType::Bool => {
                type $T = bool;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::I8 => {
                type $T = i8;
                $body
            }
            DType::I16 => {
                type $T = i16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            DType::F16 => {
                type $T = half::f16;
                $body
            }
            DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_table() {
        use DType::*;
        assert_eq!(DType::promote(U8, I8), I16);
        assert_eq!(DType::promote(I32, F16), F16);
        assert_eq!(DType::promote(F16, BF16), F32);
        assert_eq!(DType::promote(Bool, U8), U8);
        assert_eq!(DType::promote(I64, F32), F32);
    }

    #[test]
    fn scalars_and_zero_dim_rank_below_tensors() {
        use DType::*;
        use Operand::*;
        assert_eq!(result_type(&[Tensor(I64), Scalar(Category::Floating)]), F32);
        assert_eq!(result_type(&[Tensor(F16), Scalar(Category::Floating)]), F16);
        assert_eq!(result_type(&[Tensor(U8), ZeroDim(I64)]), U8);
        assert_eq!(result_type(&[Tensor(I32), ZeroDim(F64)]), F64);
        assert_eq!(result_type(&[Tensor(Bool), Scalar(Category::Integral)]), I64);
        assert_eq!(result_type(&[Tensor(F32), Tensor(F64)]), F64);
        assert_eq!(result_type(&[ZeroDim(F64), Scalar(Category::Floating)]), F64);
    }
}
