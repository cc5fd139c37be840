//! Special functions of one float64 value that Rust's `f64` and `libm` lack: the inverse error
//! function, digamma and the polygammas (through the Hurwitz zeta function), and the modified
//! Bessel functions I0 and I1. float32 kernels compute in float64 and round once.

use std::f64::consts::PI;

/// `erfinv(y)`: a rational first guess (Giles' float32 approximation), then two Newton steps on
/// `erf(x) = y`, written on `erfc` in the tails where `1 - |y|` is exact and `erf` has no digits.
pub fn erfinv64(y: f64) -> f64 {
    let a = y.abs();
    if y.is_nan() || a > 1.0 {
        return f64::NAN;
    }
    if a == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    let w = -((1.0 - a) * (1.0 + a)).ln();
    let mut x = if w < 5.0 {
        let w = w - 2.5;
        let mut p = 2.810_226_36e-08;
        for c in [
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ] {
            p = c + p * w;
        }
        p * a
    } else {
        let w = w.sqrt() - 3.0;
        let mut p = -0.000_200_214_257;
        for c in [
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ] {
            p = c + p * w;
        }
        p * a
    };
    let two_over_sqrt_pi = 2.0 / PI.sqrt();
    for _ in 0..2 {
        let err = if a < 0.5 { libm::erf(x) - a } else { (1.0 - a) - libm::erfc(x) };
        x -= err / (two_over_sqrt_pi * (-x * x).exp());
    }
    x.copysign(y)
}

/// `digamma(x)`: the reflection `ψ(1 - x) - π / tan(πx)` below 0, the recurrence up to 10, then
/// the asymptotic series. PyTorch's values at the poles: -inf at +0, +inf at -0, NaN at the
/// negative integers and -inf.
pub fn digamma64(x: f64) -> f64 {
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // tan(πx) = tan(πr) with r = x - round(x) in [-1/2, 1/2], exact: it keeps the digits
        // of large |x| and of x just below an integer (x - floor(x) rounds there, to 1 near -0).
        let r = x - x.round();
        return digamma64(1.0 - x) - PI / (PI * r).tan();
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    // B2k / 2k, the Bernoulli numbers' coefficients, highest power first.
    let z = 1.0 / (x * x);
    let mut s = 0.0;
    for c in [1.0 / 12.0, -691.0 / 32760.0, 1.0 / 132.0, -1.0 / 240.0, 1.0 / 252.0, -1.0 / 120.0, 1.0 / 12.0] {
        s = s * z + c;
    }
    acc + x.ln() - 0.5 / x - s * z
}

/// The Hurwitz zeta function `ζ(s, q) = Σ (q + k)^-s` for an integer `s > 1`: the sum up to
/// `q + k > 9`, then the Euler-Maclaurin tail.
pub(crate) fn hurwitz_zeta(s: f64, q: f64) -> f64 {
    if q <= 0.0 && q == q.floor() {
        return f64::INFINITY;
    }
    // (2k)! / B2k, the Euler-Maclaurin coefficients.
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1892437580.3183792,
        7.47242496e10,
        -2950130727918.164,
        116467828143500.67,
        -4597978722407473.0,
        1.8152105401943546e+17,
        -7.166165256175667e+18,
    ];
    let mut sum = q.powf(-s);
    let (mut a, mut i) = (q, 0);
    let mut b = 0.0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-s);
        sum += b;
        if (b / sum).abs() < f64::EPSILON {
            return sum;
        }
    }
    let w = a;
    sum += b * w / (s - 1.0) - 0.5 * b;
    let (mut fac, mut k) = (1.0, 0.0);
    for c in A {
        fac *= s + k;
        b /= w;
        let t = fac * b / c;
        sum += t;
        if (t / sum).abs() < f64::EPSILON {
            break;
        }
        k += 1.0;
        fac *= s + k;
        b /= w;
        k += 1.0;
    }
    sum
}

/// `polygamma(n, x)`, the n-th derivative of digamma: `(-1)^(n+1) n! ζ(n + 1, x)` for `n ≥ 1`.
pub fn polygamma64(n: f64, x: f64) -> f64 {
    if n == 0.0 {
        return digamma64(x);
    }
    if x.is_nan() {
        return x;
    }
    if n == 1.0 && x > 0.0 {
        return crate::cpu::vecmath_special::trigamma_positive(x);
    }
    let factorial: f64 = (1..=n as u64).map(|k| k as f64).product();
    let sign = if (n as u64).is_multiple_of(2) { -1.0 } else { 1.0 };
    sign * factorial * hurwitz_zeta(n + 1.0, x)
}

/// `a_k(ν) / k!` of the asymptotic series `I_ν(x) ~ e^x / sqrt(2πx) Σ (-1)^k a_k(ν) / x^k`, up to
/// the smallest term, for `x ≥ 30`; `e^x` as two halves so that the result reaches its range.
fn bessel_i_far(nu: f64, x: f64) -> f64 {
    let half = (0.5 * x).exp();
    half * (half * bessel_i_far_scaled(nu, x))
}

/// `e^-x I_ν(x)` for `x ≥ 30`: the asymptotic series without its exponential.
pub(crate) fn bessel_i_far_scaled(nu: f64, x: f64) -> f64 {
    let mu = 4.0 * nu * nu;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..60 {
        let j = (2 * k - 1) as f64;
        let next = -term * (mu - j * j) / (k as f64 * 8.0 * x);
        if next.abs() >= term.abs() || next == 0.0 {
            break;
        }
        sum += next;
        term = next;
    }
    sum / (2.0 * PI * x).sqrt()
}

/// `Σ (x/2)^(2k+ν) / (k! (k+ν)!)`, all terms positive: no digits cancel.
fn bessel_i_series(nu: u32, x: f64) -> f64 {
    let q = 0.25 * x * x;
    let mut term = if nu == 0 { 1.0 } else { 0.5 * x };
    let mut sum = term;
    for k in 1..500 {
        term *= q / (k as f64 * (k + nu) as f64);
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    sum
}

/// The modified Bessel function of the first kind of order 0 (even).
pub fn i0_64(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        a
    } else if a < 30.0 {
        bessel_i_series(0, a)
    } else {
        bessel_i_far(0.0, a)
    }
}

/// The modified Bessel function of the first kind of order 1 (odd).
pub fn i1_64(x: f64) -> f64 {
    let a = x.abs();
    let r = if a.is_nan() {
        return x;
    } else if a < 30.0 {
        bessel_i_series(1, a)
    } else {
        bessel_i_far(1.0, a)
    };
    // +0.0 at -0.0, as PyTorch's.
    if x < 0.0 {
        -r
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rtol: f64) -> bool {
        (a - b).abs() <= rtol * b.abs()
    }

    #[test]
    fn known_values() {
        assert!(close(digamma64(1.0), -0.5772156649015329, 1e-15));
        assert!(close(digamma64(-2.5), 1.103_156_640_645_243, 1e-14));
        assert!(close(polygamma64(1.0, 1.0), PI * PI / 6.0, 1e-15));
        assert!(close(polygamma64(2.0, 1.0), -2.4041138063191885, 1e-15));
        assert!(close(i0_64(1.0), 1.2660658777520084, 1e-15));
        assert!(close(i1_64(1.0), 0.5651591039924851, 1e-15));
        assert!(close(i0_64(50.0), 2.93255378384933e20, 1e-13));
        for y in [-0.999999, -0.3, 1e-10, 0.5, 0.9, 0.99999999] {
            assert!(close(libm::erf(erfinv64(y)), y, 1e-15));
        }
    }
}
