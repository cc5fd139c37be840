//! Arithmetic per element type with PyTorch's semantics: integers wrap, floor division and
//! remainder round toward negative infinity, bools add as `or` and multiply as `and`.

use crate::dtype::Element;

use super::binary_math;

pub trait Arith: Element {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// Floats: true division. Integers: never called with a zero divisor (checked before).
    fn div(self, o: Self) -> Self;
    fn floor_div(self, o: Self) -> Self;
    /// Python's `%`: the result takes the divisor's sign.
    fn rem(self, o: Self) -> Self;
    /// C's `fmod`: the result takes the dividend's sign.
    fn fmod(self, o: Self) -> Self;
    /// `fmod`, `rem` and `floor_div` with float remainders by exact arithmetic
    /// (`cpu/binary_math.rs`), which vectorises: the same results, except NaN where the quotient
    /// is too large for one step (the caller recomputes a result holding NaN with the exact
    /// forms). Integers and bool: the exact forms.
    #[inline(always)]
    fn fmod_quick(self, o: Self) -> Self {
        self.fmod(o)
    }
    #[inline(always)]
    fn rem_quick(self, o: Self) -> Self {
        self.rem(o)
    }
    #[inline(always)]
    fn floor_div_quick(self, o: Self) -> Self {
        self.floor_div(o)
    }
    fn pow(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn sign(self) -> Self;
    /// NaN-propagating maximum and minimum, as `torch.maximum`.
    fn max_nan(self, o: Self) -> Self;
    fn min_nan(self, o: Self) -> Self;
    fn is_nan(self) -> bool;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        #[allow(unused_comparisons)]
        impl Arith for $t {
            #[inline(always)] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)] fn div(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_div(o) } }
            #[inline(always)]
            fn floor_div(self, o: Self) -> Self {
                if o == 0 { return 0; }
                let q = self.wrapping_div(o);
                if (self.wrapping_rem(o) != 0) && ((self < 0) != (o < 0)) { q.wrapping_sub(1) } else { q }
            }
            #[inline(always)]
            fn rem(self, o: Self) -> Self {
                if o == 0 { return 0; }
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) { r.wrapping_add(o) } else { r }
            }
            #[inline(always)] fn fmod(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_rem(o) } }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                #[allow(unused_comparisons)]
                if o < 0 {
                    // Integer powers with negative exponents truncate toward zero.
                    return match self as i64 { 1 => 1, -1 => if (o as i64) % 2 == 0 { 1 } else { self }, _ => 0 };
                }
                // Square-and-multiply over the whole exponent: `wrapping_pow` takes a u32 and
                // would truncate exponents of 2**32 and above.
                let (mut base, mut e, mut acc) = (self, o as u64, 1 as $t);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            #[inline(always)] fn neg(self) -> Self { (0 as $t).wrapping_sub(self) }
            #[inline(always)]
            fn abs(self) -> Self {
                #[allow(unused_comparisons)]
                if self < 0 { (0 as $t).wrapping_sub(self) } else { self }
            }
            #[inline(always)]
            fn sign(self) -> Self {
                #[allow(unused_comparisons)]
                if self > 0 { 1 } else if self < 0 { (0 as $t).wrapping_sub(1) } else { 0 }
            }
            #[inline(always)] fn max_nan(self, o: Self) -> Self { if self > o { self } else { o } }
            #[inline(always)] fn min_nan(self, o: Self) -> Self { if self < o { self } else { o } }
            #[inline(always)] fn is_nan(self) -> bool { false }
        }
    )*};
}
int_arith!(u8, i8, i16, i32, i64);

/// PyTorch's div_floor: the floor of the true quotient of `a` and `b` of type `$t`, from the
/// remainder `m = fmod(a, b)`.
macro_rules! floor_div_from {
    ($t:ty, $a:expr, $b:expr, $m:expr) => {{
        let (a, b, m): ($t, $t, $t) = ($a, $b, $m);
        if b == 0.0 {
            a / b
        } else {
            let q = (a - m) / b;
            let q = if m != 0.0 && ((b < 0.0) != (m < 0.0)) { q - 1.0 } else { q };
            if q == 0.0 {
                (0.0 as $t).copysign(a / b)
            } else {
                let fq = q.floor();
                if q - fq > 0.5 {
                    fq + 1.0
                } else {
                    fq
                }
            }
        }
    }};
}

/// Python's `%` from C's `fmod` remainder `r` of a division by `b`: moved to the divisor's sign.
macro_rules! rem_from {
    ($r:expr, $b:expr) => {{
        let (r, b) = ($r, $b);
        if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
            r + b
        } else {
            r
        }
    }};
}

macro_rules! float_arith {
    ($($t:ty => $quick_fmod:path, $pow:path);*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, o: Self) -> Self { self + o }
            #[inline(always)] fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn mul(self, o: Self) -> Self { self * o }
            #[inline(always)] fn div(self, o: Self) -> Self { self / o }
            #[inline(always)] fn floor_div(self, o: Self) -> Self { floor_div_from!($t, self, o, self % o) }
            #[inline(always)] fn rem(self, o: Self) -> Self { rem_from!(self % o, o) }
            #[inline(always)] fn fmod(self, o: Self) -> Self { self % o }
            #[inline(always)] fn fmod_quick(self, o: Self) -> Self { $quick_fmod(self, o) }
            #[inline(always)] fn rem_quick(self, o: Self) -> Self { rem_from!($quick_fmod(self, o), o) }
            #[inline(always)] fn floor_div_quick(self, o: Self) -> Self { floor_div_from!($t, self, o, $quick_fmod(self, o)) }
            #[inline(always)] fn pow(self, o: Self) -> Self { $pow(self, o) }
            #[inline(always)] fn neg(self) -> Self { -self }
            #[inline(always)] fn abs(self) -> Self { self.abs() }
            #[inline(always)]
            fn sign(self) -> Self {
                // PyTorch's sign: NaN and -0.0 both give +0.0.
                if self > 0.0 { 1.0 } else if self < 0.0 { -1.0 } else { 0.0 }
            }
            #[inline(always)]
            fn max_nan(self, o: Self) -> Self { if self.is_nan() || self > o { self } else { o } }
            #[inline(always)]
            fn min_nan(self, o: Self) -> Self { if self.is_nan() || self < o { self } else { o } }
            #[inline(always)] fn is_nan(self) -> bool { self != self }
        }
    )*};
}
float_arith!(f32 => binary_math::fmod_f32, binary_math::pow_f32; f64 => binary_math::fmod_f64, f64::powf);

impl Arith for bool {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn floor_div(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn rem(self, _o: Self) -> Self {
        false
    }
    #[inline(always)]
    fn fmod(self, _o: Self) -> Self {
        false
    }
    #[inline(always)]
    fn pow(self, o: Self) -> Self {
        self | !o
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self
    }
    #[inline(always)]
    fn sign(self) -> Self {
        self
    }
    #[inline(always)]
    fn max_nan(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn min_nan(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
}

/// Runs `$body` with `$T` bound to the Rust type of `$dtype`, for dtypes with native arithmetic
/// (everything but the 16-bit floats, which callers compute through f32).
#[macro_export]
macro_rules! with_arith_dtype {
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
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::F16 | DType::BF16 => unreachable!("16-bit floats are computed through f32"),
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::Arith;

    #[test]
    fn python_style_division() {
        assert_eq!((-7i64).floor_div(2), -4);
        assert_eq!((-7i64).rem(2), 1);
        assert_eq!(7i64.rem(-2), -1);
        assert_eq!((-7.0f64).floor_div(2.0), -4.0);
        assert_eq!((-7.5f32).rem(2.0), 0.5);
        assert_eq!(i64::MIN.floor_div(-1), i64::MIN);
        assert_eq!(Arith::pow(2i64, 1 << 32), 0);
        assert_eq!(Arith::pow(3i64, 4), 81);
        assert_eq!(Arith::pow(-1i64, (1 << 32) + 1), -1);
    }
}
