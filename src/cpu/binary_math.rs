//! Float kernels of two operands in plain, vectorisable arithmetic where the C library's call
//! (or a chain of tensor ops) would run one element at a time: `fmod` by an exact truncated
//! quotient (the basis of `remainder` and `floor_divide` too), float32 `pow` in float64 lanes,
//! `hypot` and `copysign`.

use crate::dtype::{DType, Element};

use super::vecmath::{exp, log};

/// Quotients up to this keep `trunc(a / b)` within one of the true truncated quotient and the
/// product `q b` (float32 operands in float64) exact: `fmod` by one step.
const F32_QUOTIENT_LIMIT: f64 = 268435456.0; // 2^28: 28 + 24 significant bits fit in 53
const F64_QUOTIENT_LIMIT: f64 = 2251799813685248.0; // 2^51: the float64 quotient is an integer or near one

/// C's `fmod(a, b)` for float32, the same bits, NaN where the quotient is 2^28 or more (the
/// caller recomputes such results with the C library). In float64: `q = trunc(a / b)` is the
/// true truncated quotient or one more in magnitude (rounding can reach the next integer,
/// never fall below), `a - q b` is exact either way (the remainder, or it less `b`, is a
/// multiple of the finer operand's unit below 2^53 of them), and the wrong sign marks the
/// second case.
#[inline(always)]
pub fn fmod_f32(a: f32, b: f32) -> f32 {
    let (x, y) = (a as f64, b as f64);
    let q = (x / y).trunc();
    let r = x - q * y;
    let r = if r != 0.0 && (r < 0.0) != (x < 0.0) { r + y.abs().copysign(x) } else { r };
    // The remainder takes the dividend's sign, a zero one included (fmod(-4, 2) is -0.0).
    let exact = r.abs().copysign(x) as f32;
    if q.abs() < F32_QUOTIENT_LIMIT && y.is_finite() {
        exact
    } else if x.is_finite() && y.is_infinite() {
        a
    } else {
        f32::NAN
    }
}

/// C's `fmod(a, b)` for float64 as `fmod_f32`, with the fused `a - q b` (exact: the true
/// value is representable) and NaN where the quotient is 2^51 or more.
#[inline(always)]
pub fn fmod_f64(a: f64, b: f64) -> f64 {
    let q = (a / b).trunc();
    let r = (-q).mul_add(b, a);
    let r = if r != 0.0 && (r < 0.0) != (a < 0.0) { r + b.abs().copysign(a) } else { r };
    let exact = r.abs().copysign(a);
    if q.abs() < F64_QUOTIENT_LIMIT && b.is_finite() {
        exact
    } else if a.is_finite() && b.is_infinite() {
        a
    } else {
        f64::NAN
    }
}

/// C's `pow(x, y)` for float32 operands as `exp(y log|x|)` in float64 lanes, log and exp with
/// their float32-accurate series: log's 2^-34 relative error leaves y log|x| within 6e-9 where
/// the result is finite and nonzero in float32 (|y log|x|| below ~104), 0.1 float32 unit of the
/// result (PyTorch 2.15's own float32 pow: 0.76 ulp on the tests' grid). The special values are
/// C's: 1 where `y` is 0 or `x` is 1 (NaN included), -|r| for a negative `x` (-0.0 and -inf
/// included) and an odd integer `y`, NaN for a finite negative `x` and a non-integer `y`,
/// 1 for |x| = 1 and an infinite `y`.
#[inline(always)]
pub fn pow_f32(x: f32, y: f32) -> f32 {
    let (xd, yd) = (x as f64, y as f64);
    let v = exp::<true>(yd * log::<true>(xd.abs()));
    // Infinities count as even integers; NaN is no integer.
    let integer = yd.trunc() == yd;
    let half = yd * 0.5;
    let odd = integer && half.trunc() != half;
    let v = if x.is_sign_negative() && odd { -v } else { v };
    let v = if xd < 0.0 && xd.is_finite() && !integer { f64::NAN } else { v };
    let v = if xd.abs() == 1.0 && yd.is_infinite() { 1.0 } else { v };
    let v = if x == 1.0 || y == 0.0 { 1.0 } else { v };
    v as f32
}

/// `sqrt(x² + y²)` in float64 lanes for any float type: for float32 operands the squares and
/// their sum are exact or rounded far below a float32 unit (and cannot overflow), for float64
/// ones it is the plain formula (as the composite computed it) except where the squares would
/// overflow or underflow, which scale by the larger operand first. Infinite where either
/// operand is, NaN against a NaN (C's `hypot`).
#[inline(always)]
pub fn hypot_elem<T: Element>(x: T, y: T) -> T {
    let (a, b) = (x.to_f64(), y.to_f64());
    let plain = (a * a + b * b).sqrt();
    if T::DTYPE != DType::F64 {
        // Narrower operands never reach the scaled branch (|x| <= 3.4e38 squares to 1.2e77,
        // the least subnormal to 2e-90), and computing it anyway cost every lane a division and
        // a second square root it never used (issue 23).
        let r = if a.is_infinite() || b.is_infinite() { f64::INFINITY } else { plain };
        return T::from_f64(r);
    }
    let (m, s) = (a.abs().max(b.abs()), a.abs().min(b.abs()));
    let t = s / m;
    let scaled = m * (1.0 + t * t).sqrt();
    let extreme = m > 1e150 || (m < 1e-150 && m != 0.0);
    let r = if a.is_infinite() || b.is_infinite() {
        f64::INFINITY
    } else if extreme && !a.is_nan() && !b.is_nan() {
        scaled
    } else {
        plain
    };
    T::from_f64(r)
}

/// `|x|` with the sign bit of `y` (-0.0 and a negative NaN count as negative); exact through
/// float64 for every float type.
#[inline(always)]
pub fn copysign_elem<T: Element>(x: T, y: T) -> T {
    T::from_f64(x.to_f64().copysign(y.to_f64()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Values every kernel must meet: signed zeros, infinities, NaN, subnormals, the extremes,
    /// small integers and halves, and numbers near them.
    pub(crate) fn specials32() -> Vec<f32> {
        let mut v = vec![
            0.0,
            f32::INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x0020_0001),
            f32::MAX,
            f32::EPSILON,
            1e30,
            1e-30,
            16777216.0,
            16777217.0,
            2.5,
            0.1,
            3.0e8,
        ];
        for k in 1..=12 {
            let k = k as f32;
            v.extend([k, k + 0.5, k * 0.25, f32::from_bits(k.to_bits() + 1), f32::from_bits(k.to_bits() - 1)]);
        }
        let neg: Vec<f32> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v
    }

    /// Deterministic pseudo-random bit patterns (splitmix64).
    pub(crate) fn bits(n: usize, seed: u64) -> impl Iterator<Item = u64> {
        let mut s = seed;
        (0..n).map(move |_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
    }

    pub(crate) fn same32(quick: f32, libm: f32) -> bool {
        quick.to_bits() == libm.to_bits() || (quick.is_nan() && libm.is_nan())
    }

    /// Float32 fmod gives libm's bits wherever it does not fall back (NaN), and falls back only
    /// where the quotient is huge.
    #[test]
    fn fmod_f32_is_libm_bit_for_bit() {
        let s = specials32();
        let mut pairs: Vec<(f32, f32)> = s.iter().flat_map(|&a| s.iter().map(move |&b| (a, b))).collect();
        // Random operands of nearby magnitudes (small quotients), and quotients near integers.
        let r: Vec<u64> = bits(400_000, 7).collect();
        for w in r.chunks(2) {
            let a = f32::from_bits(w[0] as u32);
            let e = ((w[1] >> 32) % 40) as u32;
            let b = f32::from_bits((a.to_bits() & 0x807F_FFFF).wrapping_sub(e << 23) ^ (w[1] as u32 & 0x8000_0FFF));
            let k = (w[1] >> 40) as f32;
            pairs.extend([
                (a, b),
                (b * k, b),
                (f32::from_bits((b * k).to_bits().wrapping_add(1)), b),
                (f32::from_bits((b * k).to_bits().wrapping_sub(1)), b),
            ]);
        }
        let mut fallbacks = 0;
        for (a, b) in pairs {
            let (q, l) = (fmod_f32(a, b), a % b);
            if q.is_nan() && !l.is_nan() {
                fallbacks += 1;
                assert!((a as f64 / b as f64).abs() >= 2.6e8, "fmod({a:e}, {b:e}) fell back at a small quotient");
                continue;
            }
            assert!(same32(q, l), "fmod({a:e}, {b:e}): {q:e} against libm's {l:e}");
        }
        assert!(fallbacks > 0);
    }

    #[test]
    fn fmod_f64_is_libm_bit_for_bit() {
        let mut s: Vec<f64> = specials32().into_iter().map(f64::from).collect();
        s.extend([f64::MIN_POSITIVE, 5e-324, f64::MAX, 1e300, 0.1, 1.0 + f64::EPSILON, 1.0 - f64::EPSILON / 2.0]);
        let mut pairs: Vec<(f64, f64)> = s.iter().flat_map(|&a| s.iter().map(move |&b| (a, b))).collect();
        let r: Vec<u64> = bits(400_000, 11).collect();
        for w in r.chunks(2) {
            let a = f64::from_bits(w[0]);
            let e = (w[1] >> 58) % 60;
            let b = f64::from_bits((a.to_bits() & 0x800F_FFFF_FFFF_FFFF).wrapping_sub(e << 52) ^ (w[1] & 0x8000_0000_00FF_FFFF));
            let k = ((w[1] >> 20) % (1 << 40)) as f64;
            let m = b * k;
            pairs.extend([
                (a, b),
                (m, b),
                (f64::from_bits(m.to_bits().wrapping_add(1)), b),
                (f64::from_bits(m.to_bits().wrapping_sub(1)), b),
            ]);
        }
        for (a, b) in pairs {
            let (q, l) = (fmod_f64(a, b), a % b);
            if q.is_nan() && !l.is_nan() {
                assert!((a / b).abs() >= 2.2e15, "fmod({a:e}, {b:e}) fell back at a small quotient");
                continue;
            }
            assert!(q.to_bits() == l.to_bits() || (q.is_nan() && l.is_nan()), "fmod({a:e}, {b:e}): {q:e} against libm's {l:e}");
        }
    }

    #[test]
    fn hypot_and_copysign() {
        assert_eq!(hypot_elem(3.0f32, -4.0), 5.0);
        assert_eq!(hypot_elem(f32::NAN, f32::NEG_INFINITY), f32::INFINITY);
        assert!(hypot_elem(f32::NAN, 1.0).is_nan());
        assert_eq!(hypot_elem(f32::MAX, f32::MAX), f32::INFINITY);
        assert_eq!(hypot_elem(3e-30f32, 4e-30), 5e-30);
        // Scaled past the squares' range (the plain formula gave inf and 0 there): within 2 ulp.
        let close = |got: f64, want: f64| (got - want).abs() <= 2.0 * f64::EPSILON * want;
        assert!(close(hypot_elem(3e200f64, 4e200), 5e200));
        assert!(close(hypot_elem(3e-200f64, 4e-200), 5e-200));
        assert_eq!(hypot_elem(0.0f64, -0.0), 0.0);
        assert!(hypot_elem(f64::NAN, 1e300).is_nan());
        // Float32 results are float64's rounded once: no worse than C's hypotf.
        for w in bits(100_000, 5).collect::<Vec<_>>().chunks(2) {
            let (a, b) = (f32::from_bits(w[0] as u32), f32::from_bits(w[1] as u32));
            let want = (a as f64).hypot(b as f64) as f32;
            assert!(same32(hypot_elem(a, b), want), "hypot({a:e}, {b:e})");
        }
        assert_eq!(copysign_elem(2.0f32, -0.0).to_bits(), (-2.0f32).to_bits());
        assert_eq!(copysign_elem(-2.0f32, f32::NAN), 2.0);
        assert_eq!(copysign_elem(2.0f64, -f64::NAN), -2.0);
        assert!(copysign_elem(f64::NAN, -1.0).is_sign_negative());
    }

    /// Float32 pow: C's special values exactly, and within half a unit (plus a hair for the
    /// double rounding) of the float64 pow elsewhere: no worse than libm's float32 powf.
    #[test]
    fn pow_f32_special_values_and_accuracy() {
        let s = specials32();
        let mut pairs: Vec<(f32, f32)> = s.iter().flat_map(|&a| s.iter().map(move |&b| (a, b))).collect();
        for w in bits(200_000, 3).collect::<Vec<_>>().chunks(2) {
            // Bases over the whole range, exponents mostly moderate (so results stay finite).
            let x = f32::from_bits(w[0] as u32 & 0x7FFF_FFFF);
            let y = ((w[1] >> 11) as f64 / (1u64 << 53) as f64 * 64.0 - 32.0) as f32;
            pairs.extend([(x, y), (-x, y.round())]);
        }
        let mut worst: f64 = 0.0;
        for (x, y) in pairs {
            let (got, want) = (pow_f32(x, y), (x as f64).powf(y as f64));
            let want32 = want as f32;
            if want32.is_nan() || want32.is_infinite() || want32 == 0.0 {
                // Special values and results that round to 0 or inf: the same bits as rounding
                // float64 pow's.
                assert!(
                    same32(got, want32) || (want32 == 0.0 && got == 0.0 && got.is_sign_negative() == want32.is_sign_negative()),
                    "pow({x:e}, {y:e}): {got:e} against {want32:e}"
                );
                continue;
            }
            let unit = (f32::from_bits(want32.abs().to_bits() + 1) - want32.abs()) as f64;
            worst = worst.max((got as f64 - want).abs() / unit);
        }
        assert!(worst <= 0.5001, "max error {worst} units");
        assert_eq!(pow_f32(-0.0, -3.0), f32::NEG_INFINITY);
        assert!(pow_f32(-8.0, 1.0 / 3.0).is_nan());
        assert_eq!(pow_f32(f32::NAN, 0.0), 1.0);
        assert_eq!(pow_f32(1.0, f32::NAN), 1.0);
        assert_eq!(pow_f32(-1.0, f32::INFINITY), 1.0);
        assert_eq!(pow_f32(f32::NEG_INFINITY, 0.5), f32::INFINITY);
        assert_eq!(pow_f32(f32::NEG_INFINITY, -3.0).to_bits(), (-0.0f32).to_bits());
    }
}
