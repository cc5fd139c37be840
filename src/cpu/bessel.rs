//! The Bessel family of `torch.special` in float64: J0, J1, Y0, Y1, the modified K0 and K1 (and
//! their scaled forms), I0 and I1 scaled by `e^-|x|`, the spherical j0 and Airy's Ai. float32
//! kernels compute in float64 and round once.
//!
//! The methods, from the mathematics of each function:
//! - J and Y up to |x| = 25: their power series summed in double-double arithmetic (the terms
//!   reach ~1e9 before they cancel to a value of order 1, so float64 alone would lose up to nine
//!   digits); beyond, Hankel's asymptotic expansion, whose smallest term there is below 1e-21.
//! - K above 1: `K_ν(x) = ∫₀^∞ exp(-x cosh t) cosh(νt) dt`, scaled by `e^x`, by the trapezoidal
//!   rule, which converges geometrically for this analytic, double-exponentially decaying
//!   integrand (a step of min(0.2, 0.5/√x) leaves an error below 1e-20); below 1, the series.
//! - Ai: its Maclaurin series (double-double) on [-10, 1], `√(x/3) K_{1/3}(ζ) / π` above, the
//!   asymptotic expansion below -10 with `ζ = (2/3)|x|^(3/2)` kept in double-double for the phase.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use super::special::{bessel_i_far_scaled, i0_64, i1_64};

/// Euler's constant γ.
const EULER: f64 = 0.577_215_664_901_532_9;

/// A double-double number: `hi + lo` with `|lo| ≤ ulp(hi) / 2`, about 32 significant digits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dd(pub f64, pub f64);

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn quick_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    Dd(s, b - (s - a))
}

impl Dd {
    pub(crate) fn from(x: f64) -> Dd {
        Dd(x, 0.0)
    }

    /// `x * y` exactly (the error term by a fused multiply-add).
    pub(crate) fn product(x: f64, y: f64) -> Dd {
        let p = x * y;
        Dd(p, x.mul_add(y, -p))
    }

    pub(crate) fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.0, o.0);
        quick_two_sum(s, e + self.1 + o.1)
    }

    pub(crate) fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }

    pub(crate) fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        let e = self.0.mul_add(o.0, -p) + (self.0 * o.1 + self.1 * o.0);
        quick_two_sum(p, e)
    }

    pub(crate) fn mul_f(self, b: f64) -> Dd {
        let p = self.0 * b;
        quick_two_sum(p, self.0.mul_add(b, -p) + self.1 * b)
    }

    pub(crate) fn div_f(self, d: f64) -> Dd {
        let q1 = self.0 / d;
        // The remainder self - q1·d, exactly up to the low word.
        let r = Dd::product(q1, d);
        let (s, e) = two_sum(self.0, -r.0);
        let rem = s + (e - r.1 + self.1);
        quick_two_sum(q1, rem / d)
    }

    pub(crate) fn f64(self) -> f64 {
        self.0 + self.1
    }
}

/// `J_n(x)` (n = 0, 1) and, for Y, `Σ c_k t_k` with the harmonic weights of Y's series, from
/// `t_k = (-x²/4)^k / (k! (k+n)!)`: `(Σ t_k, Σ w_k t_k)` in double-double, where `w_k` is `H_k`
/// for n = 0 and `H_k + H_{k+1}` for n = 1.
fn jy_series(n: u32, x: f64) -> (Dd, Dd) {
    let q = Dd::product(x, x).mul_f(-0.25);
    let mut term = Dd::from(1.0);
    let mut h = Dd::from(0.0); // H_k
    let weight = |h: Dd, k: u32| if n == 0 { h } else { h.add(h).add(Dd::from(1.0).div_f((k + 1) as f64)) };
    let mut sum = term;
    let mut wsum = term.mul(weight(h, 0));
    for k in 1..300u32 {
        term = term.mul(q).div_f((k * (k + n)) as f64);
        h = h.add(Dd::from(1.0).div_f(k as f64));
        sum = sum.add(term);
        wsum = wsum.add(term.mul(weight(h, k)));
        if term.0.abs() < 1e-34 && (k as f64) > 0.5 * x.abs() {
            break;
        }
    }
    (sum, wsum)
}

/// Hankel's expansion: `(P, Q)` of order `n` at `x ≥ 25`, summed up to the smallest term.
fn hankel_pq(n: u32, x: f64) -> (f64, f64) {
    let mu = (4 * n * n) as f64;
    let (mut p, mut q) = (1.0, 0.0);
    let mut term = 1.0f64;
    for k in 1..200u32 {
        let j = (2 * k - 1) as f64;
        let next = term * (mu - j * j) / (8.0 * k as f64 * x);
        if next.abs() >= term.abs() || next == 0.0 {
            break;
        }
        term = next;
        // t_k enters P with sign (-1)^(k/2) for even k and Q with (-1)^((k-1)/2) for odd k.
        let sign = if (k / 2).is_multiple_of(2) { 1.0 } else { -1.0 };
        if k.is_multiple_of(2) {
            p += sign * term;
        } else {
            q += sign * term;
        }
    }
    (p, q)
}

/// `(J_n(x), Y_n(x))` for `x ≥ 25` from Hankel's expansion; the phase `x - (2n+1)π/4` is applied
/// through `cos x` and `sin x`, which keep their digits for any `x`.
fn jy_far(n: u32, x: f64) -> (f64, f64) {
    let (p, q) = hankel_pq(n, x);
    let (s, c) = x.sin_cos();
    let (cos_w, sin_w) =
        if n == 0 { ((c + s) * FRAC_1_SQRT_2, (s - c) * FRAC_1_SQRT_2) } else { ((s - c) * FRAC_1_SQRT_2, -(s + c) * FRAC_1_SQRT_2) };
    let amp = (2.0 / (PI * x)).sqrt();
    (amp * (p * cos_w - q * sin_w), amp * (p * sin_w + q * cos_w))
}

const NEAR: f64 = 25.0;

/// The Bessel function of the first kind of order 0 (even).
pub fn bessel_j0(x: f64) -> f64 {
    let a = x.abs();
    if !a.is_finite() {
        // NaN at ±inf too, as PyTorch's (whose values there are NaN, not the limit 0).
        return f64::NAN;
    }
    if a < NEAR {
        jy_series(0, a).0.f64()
    } else {
        jy_far(0, a).0
    }
}

/// The Bessel function of the first kind of order 1 (odd).
pub fn bessel_j1(x: f64) -> f64 {
    let a = x.abs();
    if !a.is_finite() {
        return f64::NAN;
    }
    let r = if a < NEAR { jy_series(1, a).0.mul_f(0.5 * a).f64() } else { jy_far(1, a).0 };
    // -0.0 gives -0.0, as PyTorch's.
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// The Bessel function of the second kind of order 0: -inf at 0, NaN below (and at inf).
pub fn bessel_y0(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::NAN;
    }
    if x < NEAR {
        let (j, w) = jy_series(0, x);
        // Y0 = (2/π) [(ln(x/2) + γ) J0 - Σ H_k t_k].
        (2.0 / PI) * (((0.5 * x).ln() + EULER) * j.f64() - w.f64())
    } else {
        jy_far(0, x).1
    }
}

/// The Bessel function of the second kind of order 1: -inf at 0, NaN below.
pub fn bessel_y1(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::NAN;
    }
    if x < NEAR {
        let (s, w) = jy_series(1, x);
        let j1 = s.mul_f(0.5 * x).f64();
        // Y1 = -2/(πx) + (2/π)(ln(x/2) + γ) J1 - (x/2π) Σ (H_k + H_{k+1}) t_k.
        -2.0 / (PI * x) + (2.0 / PI) * ((0.5 * x).ln() + EULER) * j1 - x / (2.0 * PI) * w.f64()
    } else {
        jy_far(1, x).1
    }
}

/// `e^x K_ν(x)` for `x ≥ 0.5` by the trapezoidal rule on `∫₀^∞ exp(-2x sinh²(t/2)) cosh(νt) dt`.
fn k_scaled_quadrature(nu: f64, x: f64) -> f64 {
    let h = (0.5 / x.sqrt()).min(0.2);
    let f = |t: f64| {
        let s = (0.5 * t).sinh();
        (-2.0 * x * s * s).exp() * (nu * t).cosh()
    };
    let mut sum = 0.5 * f(0.0);
    for j in 1..100_000u32 {
        let v = f(j as f64 * h);
        sum += v;
        if v < 1e-19 * sum {
            break;
        }
    }
    sum * h
}

/// `(K0(x), K1(x))` for `0 < x ≤ 1` by their series; no digits cancel below 1.
fn k_series(x: f64) -> (f64, f64) {
    let q = 0.25 * x * x;
    let lg = (0.5 * x).ln() + EULER;
    let (mut t0, mut t1) = (1.0f64, 1.0f64); // q^k/(k!)², q^k/(k!(k+1)!)
    let (mut i0, mut i1s) = (1.0, 1.0);
    let (mut h, mut s0, mut s1) = (0.0f64, 0.0f64, 1.0f64); // H_k, Σ H_k t0, Σ (H_k + H_{k+1}) t1
    for k in 1..100u32 {
        let kf = k as f64;
        t0 *= q / (kf * kf);
        t1 *= q / (kf * (kf + 1.0));
        h += 1.0 / kf;
        i0 += t0;
        i1s += t1;
        s0 += h * t0;
        s1 += (2.0 * h + 1.0 / (kf + 1.0)) * t1;
        if t0 < 1e-18 * i0 {
            break;
        }
    }
    let i1 = 0.5 * x * i1s;
    (-lg * i0 + s0, 1.0 / x + lg * i1 - 0.25 * x * s1)
}

/// `K_n(x)` (n = 0, 1), scaled by `e^x` when `scaled`: inf at 0, NaN below.
fn bessel_k(n: u32, x: f64, scaled: bool) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x.is_infinite() {
        return 0.0;
    }
    if x <= 1.0 {
        let (k0, k1) = k_series(x);
        let k = if n == 0 { k0 } else { k1 };
        return if scaled { k * x.exp() } else { k };
    }
    let ks = k_scaled_quadrature(n as f64, x);
    if scaled {
        ks
    } else {
        // e^-x as two halves so that the product underflows only where K does.
        let half = (-0.5 * x).exp();
        half * (half * ks)
    }
}

pub fn bessel_k0(x: f64) -> f64 {
    bessel_k(0, x, false)
}

pub fn bessel_k1(x: f64) -> f64 {
    bessel_k(1, x, false)
}

pub fn bessel_k0e(x: f64) -> f64 {
    bessel_k(0, x, true)
}

pub fn bessel_k1e(x: f64) -> f64 {
    bessel_k(1, x, true)
}

/// `e^-|x| I0(x)` (even).
pub fn i0e_64(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        a
    } else if a < 30.0 {
        (-a).exp() * i0_64(a)
    } else {
        bessel_i_far_scaled(0.0, a)
    }
}

/// `e^-|x| I1(x)` (odd).
pub fn i1e_64(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return x;
    }
    let r = if a < 30.0 { (-a).exp() * i1_64(a) } else { bessel_i_far_scaled(1.0, a) };
    // +0.0 at -0.0, as PyTorch's.
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// `sin(x) / x`, 1 at 0.
pub fn spherical_j0(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else if x.is_infinite() {
        0.0
    } else {
        x.sin() / x
    }
}

/// Ai(0) and -Ai'(0).
const AI0: f64 = 0.355_028_053_887_817_2;
const AIP0: f64 = 0.258_819_403_792_806_8;

/// `ζ = (2/3) z^(3/2)` in double-double.
fn two_thirds_power(z: f64) -> Dd {
    let s = z.sqrt();
    let s_lo = (-s).mul_add(s, z) / (2.0 * s);
    Dd(s, s_lo).mul_f(z).mul_f(2.0).div_f(3.0)
}

/// Airy's Ai: its series on [-10, 1], `√(x/3) K_{1/3}(ζ) / π` above and the oscillating
/// asymptotic expansion below -10.
pub fn airy_ai(x: f64) -> f64 {
    if !x.is_finite() {
        // NaN at ±inf too, as PyTorch's.
        return f64::NAN;
    }
    if x > 1.0 {
        // e^-ζ from ζ's high word, corrected by its low word (Ai's relative condition is ~ζ).
        let zeta = two_thirds_power(x);
        let k = k_scaled_quadrature(1.0 / 3.0, zeta.0);
        let half = (-0.5 * zeta.0).exp();
        return (x / 3.0).sqrt() / PI * (half * (half * k)) * (1.0 - zeta.1);
    }
    if x >= -10.0 {
        // Ai = Ai(0) f(x) - |Ai'(0)| g(x), f = Σ x^3k 1·4·7···/(3k)!, g = Σ x^(3k+1) 2·5·8···/(3k+1)!.
        let x3 = Dd::product(x * x, x).add(Dd::from(x.mul_add(x, -(x * x)) * x));
        let (mut f, mut g) = (Dd::from(1.0), Dd::from(x));
        let (mut sf, mut sg) = (f, g);
        for k in 1..200u32 {
            let k3 = (3 * k) as f64;
            f = f.mul(x3).div_f((k3 - 1.0) * k3);
            g = g.mul(x3).div_f(k3 * (k3 + 1.0));
            sf = sf.add(f);
            sg = sg.add(g);
            if f.0.abs() < 1e-34 && g.0.abs() < 1e-34 {
                break;
            }
        }
        return sf.mul_f(AI0).add(sg.mul_f(AIP0).neg()).f64();
    }
    let z = -x;
    // ζ in double-double: its rounding would otherwise be a phase error of ζ·1e-16.
    let zeta = two_thirds_power(z);
    // Σ (-1)^k u_2k ζ^-2k and Σ (-1)^k u_2k+1 ζ^-(2k+1), u_k = (6k-5)(6k-3)(6k-1) u_{k-1} / ((2k-1) 216 k).
    let zf = zeta.f64();
    let (mut p, mut q, mut u) = (1.0f64, 0.0f64, 1.0f64);
    for k in 1..200u32 {
        let kf = k as f64;
        let next = u * (6.0 * kf - 5.0) * (6.0 * kf - 3.0) * (6.0 * kf - 1.0) / ((2.0 * kf - 1.0) * 216.0 * kf) / zf;
        if next.abs() >= u.abs() || next == 0.0 {
            break;
        }
        u = next;
        let sign = if (k / 2).is_multiple_of(2) { 1.0 } else { -1.0 };
        if k.is_multiple_of(2) {
            p += sign * u;
        } else {
            q += sign * u;
        }
    }
    // sin(ζ + π/4) and cos(ζ + π/4) from sin and cos of ζ's high word, corrected by its low word.
    let (sh, ch) = zeta.0.sin_cos();
    let (sz, cz) = (sh + zeta.1 * ch, ch - zeta.1 * sh);
    let (sin_p, cos_p) = ((sz + cz) * FRAC_1_SQRT_2, (cz - sz) * FRAC_1_SQRT_2);
    (sin_p * p - cos_p * q) / (PI.sqrt() * z.sqrt().sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn known_values() {
        assert!(close(bessel_j0(1.0), 0.765_197_686_557_966_6, 1e-15));
        assert!(close(bessel_j1(1.0), 0.440_050_585_744_933_5, 1e-15));
        assert!(close(bessel_y0(1.0), 0.088_256_964_215_676_96, 1e-14));
        assert!(close(bessel_y1(1.0), -0.781_212_821_300_288_7, 1e-14));
        assert!(close(bessel_j0(30.0), -0.086_367_983_581_040_2, 1e-13));
        assert!(close(bessel_k0(1.0), 0.421_024_438_240_708_3, 1e-15));
        assert!(close(bessel_k1(2.0), 0.139_865_881_816_522_4, 1e-14));
        assert!(close(airy_ai(0.0), AI0, 1e-16));
        assert!(close(airy_ai(1.0), 0.135_292_416_312_881_4, 1e-14));
        assert!(close(airy_ai(2.0), 0.034_924_130_423_274_38, 1e-14));
        assert!(close(airy_ai(-20.0), -0.176_406_127_077_984_7, 1e-12));
    }
}
