//! Float32 exp on AVX-512 lanes, written with its intrinsics (pulp's safe wrappers), and the
//! slice kernels of the unary ops built on it. A plain loop of `vecmath_f32::exp` vectorises to
//! about 37 instructions per 16 elements (its scaling and two-word tail in integer and float
//! steps), which left it compute bound at 1.6x memory speed; here a 16-entry table of 2^(j/16)
//! (in two words, read by `vpermps`) shortens the polynomial, and `vscalefps` scales by 2^k in
//! one step, overflow included: 17 instructions, at memory speed.
//!
//! Accuracy: x = (16k + j) ln2/16 + r with |r| <= ln2/32, the reduction exact but for r's last
//! rounding; exp(x) = 2^k (T_j + (T_j p + T_j')) with p = expm1(r) to degree 4 (2^-34 relative)
//! and T_j + T_j' = 2^(j/16) to 2^-48: the sum rounds once, within 0.547 ulp of exact over every
//! float32 from -87 up (PyTorch 2.15's float32 exp: 0.570 on the tests' grid). Below -87, where
//! results turn subnormal, the lanes take `vecmath_f32::exp` (one rounding there too), so each
//! element's result depends on its value only, never on its neighbours or the thread count.

use std::arch::x86_64::{__m512, __m512d, __m512i};
use std::mem::MaybeUninit;

use pulp::cast;
use pulp::x86::V4;

use crate::cpu::vecmath_f32 as f32exp;

/// 2^(j/16) rounded to float32, and what that rounding left out.
const EXP2_J16_HI: [f32; 16] = [
    1.0,
    1.044_273_7,
    1.090_507_7,
    1.138_788_6,
    1.189_207_1,
    1.241_857_8,
    1.296_839_6,
    1.354_255_6,
    std::f32::consts::SQRT_2,
    1.476_826_2,
    1.542_210_8,
    1.610_490_3,
    1.681_792_9,
    1.756_252_2,
    1.834_008_1,
    1.915_206_6,
];
const EXP2_J16_LO: [f32; 16] = [
    0.0,
    4.83347e-8,
    -1.307754e-8,
    5.3862223e-8,
    3.7976353e-8,
    4.496838e-8,
    -4.0189995e-8,
    -1.0123349e-8,
    2.4203235e-8,
    -4.500899e-8,
    8.070905e-9,
    9.836217e-9,
    -2.4755327e-8,
    -9.23577e-9,
    -1.1239278e-8,
    9.845328e-9,
];
/// 1.5 * 2^23: x 16/ln2 + SHIFTER holds round(x 16/ln2) in its low mantissa bits, whose last
/// four are the table index (`vpermps` reads only those).
pub(crate) const SHIFTER: f32 = 12_582_912.0;
const SIXTEEN_OVER_LN2: f32 = 23.083_12;
/// ln2/16 in two words, the first of 12 significant bits: n LN2_16_HI is exact for |n| < 2^12.
const LN2_16_HI: f32 = 0.043_319_702;
const LN2_16_LO: f32 = 1.996_636_5e-6;
/// ln 2 - LN_2 as float32: exp2's reduced argument in two words.
const LN2_TAIL: f32 = -1.904_654_2e-9;
/// exp(x) = (hi + lo) 2^floor(y) for x clamped to [-104, 89] (NaN kept): hi = 2^(j/16) from the
/// table, exact, and lo the rest (|lo| <= 0.022 hi, within 2^-29.5 of hi), so that callers may
/// carry exp in two words; `y` is n/16 for `vscalefps`.
#[inline(always)]
fn exp16_parts(simd: V4, x: __m512) -> (__m512, __m512, __m512) {
    let f = simd.avx512f;
    // max/min return their second operand where either is NaN: NaN flows through.
    let xc = f._mm512_min_ps(f._mm512_set1_ps(89.0), f._mm512_max_ps(f._mm512_set1_ps(-104.0), x));
    exp16_parts_with_low(simd, xc, None)
}

/// exp(x + xl) as `exp16_parts` for lanes x within [-104, 89], xl a low word of the argument
/// (below x's last bit) added to the reduced argument while that is exact: its first-order
/// term alone (`table_times_expm1`'s) would leave xl (e^r - 1) out, 2^-18 x 0.022 at x = 84.
#[inline(always)]
pub(crate) fn exp16_parts_with_low(simd: V4, xc: __m512, xl: Option<__m512>) -> (__m512, __m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let t = f._mm512_fmadd_ps(xc, c(SIXTEEN_OVER_LN2), c(SHIFTER));
    let n = f._mm512_sub_ps(t, c(SHIFTER));
    let r = f._mm512_fnmadd_ps(n, c(LN2_16_HI), xc);
    let r = match xl {
        Some(xl) => f._mm512_add_ps(r, xl),
        None => r,
    };
    let r = f._mm512_fnmadd_ps(n, c(LN2_16_LO), r);
    let (hi, lo) = table_times_expm1(simd, t, r, None);
    (hi, lo, f._mm512_mul_ps(n, c(1.0 / 16.0)))
}

/// 2^(j/16) exp(r + rl) = hi + lo for the table index j in `t`'s low bits (rl a low word of
/// the reduced argument, where it has one): expm1(r) = r + r^2 (1/2 + r/6 + r^2/24), |r| <=
/// ln2/32, and exp(r + rl) = exp(r) + rl to float32's precision of the sum.
#[inline(always)]
fn table_times_expm1(simd: V4, t: __m512, r: __m512, rl: Option<__m512>) -> (__m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let hi = f._mm512_permutexvar_ps(cast(t), cast(EXP2_J16_HI));
    let lo = f._mm512_permutexvar_ps(cast(t), cast(EXP2_J16_LO));
    let lo = match rl {
        Some(rl) => f._mm512_fmadd_ps(hi, rl, lo),
        None => lo,
    };
    let q = f._mm512_fmadd_ps(f._mm512_fmadd_ps(r, c(1.0 / 24.0), c(1.0 / 6.0)), r, c(0.5));
    let p = f._mm512_fmadd_ps(f._mm512_mul_ps(r, r), q, r);
    (hi, f._mm512_fmadd_ps(hi, p, lo))
}

/// `table[i]` for the index i in each lane's low five bits (`vpermt2ps`).
#[inline(always)]
pub(crate) fn pick32(simd: V4, index: __m512i, table: &[f32; 32]) -> __m512 {
    let [low, high]: [[f32; 16]; 2] = cast(*table);
    simd.avx512f._mm512_permutex2var_ps(cast(low), index, cast(high))
}

/// 1.5 2^52: v + SHIFTER_F64 holds round(v) in its low mantissa bits (the float64 kernels' index).
pub(crate) const SHIFTER_F64: f64 = 6_755_399_441_055_744.0;

/// `table[i]` for the index i in the low four bits of each 64-bit lane (`vpermt2pd`).
#[inline(always)]
pub(crate) fn pick16(simd: V4, index: __m512i, table: &[f64; 16]) -> __m512d {
    let [low, high]: [[f64; 8]; 2] = cast(*table);
    simd.avx512f._mm512_permutex2var_pd(cast(low), index, cast(high))
}

/// exp(x) of 16 lanes, for lanes at or above `vecmath_f32::EXP_NORMAL_FLOOR` (normal results),
/// +inf and NaN; 2^k overflows to inf past 88.72.
#[inline(always)]
fn exp16_normal(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let (hi, lo, y) = exp16_parts(simd, x);
    // scalef multiplies by 2^floor(y) = 2^k.
    f._mm512_scalef_ps(f._mm512_add_ps(hi, lo), y)
}

/// The lanes of `x` below `floor` (NaN is not).
#[inline(always)]
pub(crate) fn below(simd: V4, x: __m512, floor: f32) -> u16 {
    simd.avx512f._mm512_cmp_ps_mask::<{ std::arch::x86_64::_CMP_LT_OQ }>(x, simd.avx512f._mm512_set1_ps(floor))
}

/// `v` with the lanes set in `low` replaced by `scalar` of `x`'s: out of line and cold, so that
/// the hot loop stays small enough for LLVM to inline its helpers.
#[cold]
#[inline(never)]
pub(crate) fn scalar_lanes(x: __m512, v: __m512, low: u16, scalar: fn(f32) -> f32) -> __m512 {
    let (x, mut v): ([f32; 16], [f32; 16]) = (cast(x), cast(v));
    for i in 0..16 {
        if low & (1 << i) != 0 {
            v[i] = scalar(x[i]);
        }
    }
    cast(v)
}

/// `v` with the lanes set in `far` taken from `kernel(x)`: the slow form of a function whose fast
/// form covers most inputs. `kernel` runs out of line and cold, so that its constants stay out of
/// the hot loop's registers (inlined, they pushed the fast form's tables out of them); each
/// lane's result depends on its own value only.
#[inline(always)]
pub(crate) fn with_far_lanes<K: Fn(V4, __m512) -> __m512>(simd: V4, far: u16, v: __m512, x: __m512, kernel: K) -> __m512 {
    if far == 0 {
        v
    } else {
        simd.avx512f._mm512_mask_blend_ps(far, v, cast(far_lanes(simd, cast(x), kernel)))
    }
}

/// `kernel` of 16 lanes under the CPU's AVX-512 features, out of line (see `with_far_lanes`).
#[cold]
#[inline(never)]
fn far_lanes<K: Fn(V4, __m512) -> __m512>(simd: V4, x: [f32; 16], kernel: K) -> [f32; 16] {
    simd.vectorize(
        #[inline(always)]
        move || cast(kernel(simd, cast(x))),
    )
}

/// `v`, but `scalar`'s result in the lanes where x is below `floor` (rare: subnormal results).
#[inline(always)]
pub(crate) fn with_scalar_below(simd: V4, x: __m512, v: __m512, floor: f32, scalar: fn(f32) -> f32) -> __m512 {
    let low = below(simd, x, floor);
    if low == 0 {
        v
    } else {
        scalar_lanes(x, v, low, scalar)
    }
}

/// exp(x) of 16 lanes, any input: lanes below the normal floor take `vecmath_f32::exp`.
#[inline(always)]
fn exp16(simd: V4, x: __m512) -> __m512 {
    with_scalar_below(simd, x, exp16_normal(simd, x), f32exp::EXP_NORMAL_FLOOR, f32exp::exp)
}

/// 2^x of 16 lanes: x = n/16 + g exactly (|g| <= 1/32), 2^g = exp(g ln2) with g ln2 in two
/// words; lanes below the normal floor take `vecmath_f32::exp2`.
#[inline(always)]
fn exp2_16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let xc = f._mm512_min_ps(c(129.0), f._mm512_max_ps(c(-152.0), x));
    let t = f._mm512_fmadd_ps(xc, c(16.0), c(SHIFTER));
    let n = f._mm512_sub_ps(t, c(SHIFTER));
    let g = f._mm512_fnmadd_ps(n, c(1.0 / 16.0), xc);
    let r = f._mm512_mul_ps(g, c(std::f32::consts::LN_2));
    let rl = f._mm512_fmadd_ps(g, c(LN2_TAIL), f._mm512_fmsub_ps(g, c(std::f32::consts::LN_2), r));
    let (hi, lo) = table_times_expm1(simd, t, r, Some(rl));
    let v = f._mm512_scalef_ps(f._mm512_add_ps(hi, lo), f._mm512_mul_ps(n, c(1.0 / 16.0)));
    with_scalar_below(simd, x, v, f32exp::EXP2_NORMAL_FLOOR, f32exp::exp2)
}

/// exp(-x) = (hi + lo) 2^floor(y), as `exp16_parts` of -x for lanes x within [-89, 104]
/// (or NaN), the negation folded into the reduction's constants: u = -r = x + n ln2/16 rounds as
/// r would, and expm1(-u) = -u + u^2 (1/2 - u/6 + u^2/24).
#[inline(always)]
fn exp16_neg_parts(simd: V4, xc: __m512) -> (__m512, __m512, __m512) {
    let f = simd.avx512f;
    let c = |v: f32| f._mm512_set1_ps(v);
    let t = f._mm512_fmadd_ps(xc, c(-SIXTEEN_OVER_LN2), c(SHIFTER));
    let n = f._mm512_sub_ps(t, c(SHIFTER));
    let u = f._mm512_fmadd_ps(n, c(LN2_16_LO), f._mm512_fmadd_ps(n, c(LN2_16_HI), xc));
    let hi = f._mm512_permutexvar_ps(cast(t), cast(EXP2_J16_HI));
    let lo = f._mm512_permutexvar_ps(cast(t), cast(EXP2_J16_LO));
    let q = f._mm512_fmadd_ps(f._mm512_fmadd_ps(u, c(1.0 / 24.0), c(-1.0 / 6.0)), u, c(0.5));
    let p = f._mm512_fmsub_ps(f._mm512_mul_ps(u, u), q, u);
    (hi, f._mm512_fmadd_ps(hi, p, lo), f._mm512_mul_ps(n, c(1.0 / 16.0)))
}

/// exp(-x) = eh + el for lanes x within [-89, 87] (or NaN), el below eh's last bit (for eh
/// normal, from x <= 87 on, and el too up to x = 63).
#[inline(always)]
pub(crate) fn exp16_neg_two_words(simd: V4, xc: __m512) -> (__m512, __m512) {
    let f = simd.avx512f;
    let (hi, lo, y) = exp16_neg_parts(simd, xc);
    // Fast2Sum: v + vl = hi + lo exactly, vl below v's last bit.
    let v = f._mm512_add_ps(hi, lo);
    let vl = f._mm512_add_ps(f._mm512_sub_ps(hi, v), lo);
    (f._mm512_scalef_ps(v, y), f._mm512_scalef_ps(vl, y))
}

/// sigmoid(x) = 1 / (1 + e) with e = exp(-x), as (q, c): q = 1/d to 2^-14 (`vrcp14ps`) and c
/// its correction to second order in the residual of d = 1 + e in two words (|c| <= 2^-13 q),
/// so that q + c rounds once; for lanes x >= `SIGMOID_FLOOR` (e finite, normal).
/// One formula for both signs: the numerator stays 1, where e/(1 + e) below 0 cost a select
/// of both words and a quotient of two.
#[inline(always)]
fn sigmoid16_parts(simd: V4, x: __m512) -> (__m512, __m512) {
    let f = simd.avx512f;
    let one = f._mm512_set1_ps(1.0);
    // From 87 on, e = exp(-87): 1 + e is 1 to the last bit (NaN flows through `min`'s second operand).
    let xc = f._mm512_min_ps(f._mm512_set1_ps(87.0), x);
    let (eh, el) = exp16_neg_two_words(simd, xc);
    // d = 1 + e = dh + dl, dl below dh's last bit: Fast2Sum with the larger of 1 and eh first.
    let dh = f._mm512_add_ps(one, eh);
    let dl = f._mm512_add_ps(f._mm512_add_ps(f._mm512_sub_ps(f._mm512_max_ps(one, eh), dh), f._mm512_min_ps(one, eh)), el);
    let q = f._mm512_rcp14_ps(dh);
    // 1/d = q / (1 - rem) = q (1 + rem + rem^2 + ...): the third term is 2^-42 q.
    let rem = f._mm512_fnmadd_ps(q, dl, f._mm512_fnmadd_ps(q, dh, one));
    let c = f._mm512_mul_ps(rem, q);
    (q, f._mm512_fmadd_ps(rem, c, c))
}

/// Below this, sigmoid and silu take `vecmath_f32`'s kernels (rare lanes): their results head
/// for the subnormal range, where `vrcp14ps` does not go.
const SIGMOID_FLOOR: f32 = -64.0;

/// sigmoid of 16 lanes; below `SIGMOID_FLOOR`, `vecmath_f32::sigmoid`.
#[inline(always)]
pub(crate) fn sigmoid16(simd: V4, x: __m512) -> __m512 {
    let (q, c) = sigmoid16_parts(simd, x);
    with_scalar_below(simd, x, simd.avx512f._mm512_add_ps(q, c), SIGMOID_FLOOR, f32exp::sigmoid)
}

/// x sigmoid(x) of 16 lanes, x (q + c) rounded once, and `vecmath_f32::silu` below
/// `SIGMOID_FLOOR`. The correction's factor is x clamped to the largest float, so that x = inf
/// gives inf q (c is a tiny negative there, and inf c would make the sum NaN).
#[inline(always)]
fn silu16(simd: V4, x: __m512) -> __m512 {
    let f = simd.avx512f;
    let (q, c) = sigmoid16_parts(simd, x);
    let finite_x = f._mm512_min_ps(f._mm512_set1_ps(f32::MAX), x);
    let v = f._mm512_fmadd_ps(x, q, f._mm512_mul_ps(finite_x, c));
    with_scalar_below(simd, x, v, SIGMOID_FLOOR, f32exp::silu)
}

/// `g silu'(x) = g s (1 + x (1 - s))` with s = sigmoid(x), over float32 slices (`act_grad`'s
/// fused backward): the plain loop's formula, s from `sigmoid16` (the plain loop's scalar
/// sigmoid, vectorised by LLVM, left silu's backward at 0.7x PyTorch).
#[derive(Clone, Copy)]
pub struct SiluGrad;

impl ZipLanes for SiluGrad {
    #[inline(always)]
    fn lanes(self, simd: V4, g: __m512, x: __m512) -> __m512 {
        let f = simd.avx512f;
        let (s, one) = (sigmoid16(simd, x), f._mm512_set1_ps(1.0));
        f._mm512_mul_ps(g, f._mm512_mul_ps(s, f._mm512_fmadd_ps(x, f._mm512_sub_ps(one, s), one)))
    }
}

/// A function of 16 float32 lanes.
pub(crate) trait Lanes: Copy + Sync {
    fn lanes(self, simd: V4, x: __m512) -> __m512;
}

/// `f` over `x` into `out`, 16 lanes a step; the last partial step pads a copy, so every element
/// takes the same lane function. A struct rather than a closure passed to `vectorize` (a
/// closure's body compiled outside the AVX-512 context, each intrinsic a call), and raw loads
/// and stores rather than iterators over arrays (left as calls in the loop, 1.7x slower).
pub(crate) struct Each16<'a, F> {
    pub(crate) simd: V4,
    pub(crate) f: F,
    pub(crate) x: &'a [f32],
    pub(crate) out: &'a mut [MaybeUninit<f32>],
}

/// `f` over the 16-float steps of `n` floats from `src` into `dst` (which may be `src`).
///
/// # Safety
/// `src` must be readable and `dst` writable for `n` floats, `n` a multiple of 16.
#[inline(always)]
unsafe fn each_step<F: Lanes>(simd: V4, f: F, src: *const f32, dst: *mut f32, n: usize) {
    let mut i = 0;
    // Two independent steps a turn: the lane functions are long dependency chains (a table
    // read, then Horner), and one step a turn leaves the out-of-order window short of work
    // (exp and erfinv 10% faster in cache).
    while i + 32 <= n {
        // SAFETY: i + 32 <= n (the caller's bounds); unaligned 16-float loads and stores.
        unsafe {
            let v = simd.avx512f._mm512_loadu_ps(src.add(i));
            let w = simd.avx512f._mm512_loadu_ps(src.add(i + 16));
            let (fv, fw) = (f.lanes(simd, v), f.lanes(simd, w));
            simd.avx512f._mm512_storeu_ps(dst.add(i), fv);
            simd.avx512f._mm512_storeu_ps(dst.add(i + 16), fw);
        }
        i += 32;
    }
    if i < n {
        // SAFETY: i + 16 <= n (n is a multiple of 16).
        unsafe {
            let v = simd.avx512f._mm512_loadu_ps(src.add(i));
            simd.avx512f._mm512_storeu_ps(dst.add(i), f.lanes(simd, v));
        }
    }
}

/// `f` of a last partial step (under 16 floats), padded with zeros.
#[inline(always)]
fn padded_step<F: Lanes>(simd: V4, f: F, tail: &[f32]) -> [f32; 16] {
    let mut pad = [0f32; 16];
    pad[..tail.len()].copy_from_slice(tail);
    cast(f.lanes(simd, cast(pad)))
}

impl<F: Lanes> pulp::NullaryFnOnce for Each16<'_, F> {
    type Output = ();
    #[inline(always)]
    fn call(self) {
        let Each16 { simd, f, x, out } = self;
        let n = x.len().min(out.len());
        let whole = n - n % 16;
        // SAFETY: `whole <= n` floats of both slices; `MaybeUninit<f32>` has f32's layout.
        unsafe { each_step(simd, f, x.as_ptr(), out.as_mut_ptr().cast::<f32>(), whole) };
        if whole < n {
            let v = padded_step(simd, f, &x[whole..n]);
            out[whole..n].write_copy_of_slice(&v[..n - whole]);
        }
    }
}

/// `Each16` in place.
pub(crate) struct Each16InPlace<'a, F> {
    pub(crate) simd: V4,
    pub(crate) f: F,
    pub(crate) x: &'a mut [f32],
}

impl<F: Lanes> pulp::NullaryFnOnce for Each16InPlace<'_, F> {
    type Output = ();
    #[inline(always)]
    fn call(self) {
        let Each16InPlace { simd, f, x } = self;
        let n = x.len();
        let whole = n - n % 16;
        let p = x.as_mut_ptr();
        // SAFETY: `whole <= n` floats of the slice, read and written in place.
        unsafe { each_step(simd, f, p, p, whole) };
        if whole < n {
            let v = padded_step(simd, f, &x[whole..]);
            x[whole..].copy_from_slice(&v[..n - whole]);
        }
    }
}

/// A function of two 16-lane float32 operands (a gradient and the input it flows back through).
pub(crate) trait ZipLanes: Copy + Sync {
    fn lanes(self, simd: V4, a: __m512, b: __m512) -> __m512;

    /// `lanes` over `a` and `b` into `out` (all three of one length), under `simd`.
    fn zip_into(self, simd: V4, a: &[f32], b: &[f32], out: &mut [MaybeUninit<f32>]) {
        simd.vectorize(Zip16 { simd, f: self, a, b, out })
    }
}

/// `f` over `a` and `b` into `out`, 16 lanes a step, as `Each16`.
pub(crate) struct Zip16<'a, F> {
    pub(crate) simd: V4,
    pub(crate) f: F,
    pub(crate) a: &'a [f32],
    pub(crate) b: &'a [f32],
    pub(crate) out: &'a mut [MaybeUninit<f32>],
}

impl<F: ZipLanes> pulp::NullaryFnOnce for Zip16<'_, F> {
    type Output = ();
    #[inline(always)]
    fn call(self) {
        let Zip16 { simd, f, a, b, out } = self;
        let n = out.len().min(a.len()).min(b.len());
        let whole = n - n % 16;
        let (pa, pb, po) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr().cast::<f32>());
        let mut i = 0;
        // Two independent steps a turn, as `each_step`.
        while i + 32 <= whole {
            // SAFETY: i + 32 <= whole <= n floats of each slice; `MaybeUninit<f32>` has f32's layout.
            unsafe {
                let v = f.lanes(simd, simd.avx512f._mm512_loadu_ps(pa.add(i)), simd.avx512f._mm512_loadu_ps(pb.add(i)));
                let w = f.lanes(simd, simd.avx512f._mm512_loadu_ps(pa.add(i + 16)), simd.avx512f._mm512_loadu_ps(pb.add(i + 16)));
                simd.avx512f._mm512_storeu_ps(po.add(i), v);
                simd.avx512f._mm512_storeu_ps(po.add(i + 16), w);
            }
            i += 32;
        }
        if i < whole {
            // SAFETY: i + 16 <= whole (a multiple of 16).
            unsafe {
                let v = f.lanes(simd, simd.avx512f._mm512_loadu_ps(pa.add(i)), simd.avx512f._mm512_loadu_ps(pb.add(i)));
                simd.avx512f._mm512_storeu_ps(po.add(i), v);
            }
        }
        if whole < n {
            let (mut pad_a, mut pad_b) = ([0f32; 16], [0f32; 16]);
            pad_a[..n - whole].copy_from_slice(&a[whole..n]);
            pad_b[..n - whole].copy_from_slice(&b[whole..n]);
            let v: [f32; 16] = cast(f.lanes(simd, cast(pad_a), cast(pad_b)));
            out[whole..n].write_copy_of_slice(&v[..n - whole]);
        }
    }
}

/// `scalar_lanes` of two operands.
#[cold]
#[inline(never)]
pub(crate) fn scalar_lanes2(a: __m512, b: __m512, v: __m512, lanes: u16, scalar: fn(f32, f32) -> f32) -> __m512 {
    let (a, b, mut v): ([f32; 16], [f32; 16], [f32; 16]) = (cast(a), cast(b), cast(v));
    for i in 0..16 {
        if lanes & (1 << i) != 0 {
            v[i] = scalar(a[i], b[i]);
        }
    }
    cast(v)
}

/// The slice kernels of lane functions (`SliceKernel`), each holding the CPU's AVX-512 token.
macro_rules! slice_kernels {
    ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy)]
            pub struct $name(pub pulp::x86::V4);

            impl $crate::cpu::vecmath_avx512::Lanes for $name {
                #[inline(always)]
                fn lanes(self, simd: pulp::x86::V4, x: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
                    $f(simd, x)
                }
            }

            impl $crate::cpu::elementwise::SliceKernel<f32> for $name {
                fn map(&self, x: &[f32], out: &mut [std::mem::MaybeUninit<f32>]) {
                    self.0.vectorize($crate::cpu::vecmath_avx512::Each16 { simd: self.0, f: *self, x, out })
                }
                fn map_in_place(&self, x: &mut [f32]) {
                    self.0.vectorize($crate::cpu::vecmath_avx512::Each16InPlace { simd: self.0, f: *self, x })
                }
            }
        )*
    };
}

pub(crate) use slice_kernels;

slice_kernels! {
    /// `exp` of float32.
    Exp => exp16;
    /// `exp2` of float32.
    Exp2 => exp2_16;
    /// `sigmoid` of float32.
    Sigmoid => sigmoid16;
    /// `silu` of float32.
    Silu => silu16;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cpu::elementwise::SliceKernel;

    pub(crate) fn ulps(got: f32, want: f64) -> f64 {
        if got.is_infinite() && want.abs() >= 3.402_823_567_797_336_6e38 && (got > 0.0) == (want > 0.0) {
            return 0.0; // the correct rounding of a value past the largest float plus half an ulp
        }
        let w = want.abs();
        let e = if w < f32::MIN_POSITIVE as f64 { -149 } else { w.log2().floor() as i32 - 23 };
        ((got as f64) - want).abs() / 2f64.powi(e.max(-149))
    }

    pub(crate) fn run(k: &impl SliceKernel<f32>, x: &[f32]) -> Vec<f32> {
        let mut out = vec![MaybeUninit::uninit(); x.len()];
        k.map(x, &mut out);
        let got: Vec<f32> = out.into_iter().map(|v| unsafe { v.assume_init() }).collect();
        let mut again = x.to_vec();
        k.map_in_place(&mut again);
        assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), again.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        got
    }

    /// Every 61st float32 of both signs (a length that is not a multiple of 16: a padded tail).
    pub(crate) fn grid() -> Vec<f32> {
        (0..0x7f80_0000u32).step_by(61).flat_map(|b| [f32::from_bits(b), -f32::from_bits(b)]).collect()
    }

    /// Asserts each result of `got` (a kernel's over `x`) is `want`'s, bit for bit (NaN as NaN).
    pub(crate) fn assert_bits(name: &str, x: &[f32], got: &[f32], want: &[f32]) {
        for ((&v, &g), &w) in x.iter().zip(got).zip(want) {
            assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()), "{name}({v}): {g}, want {w}");
        }
    }

    /// The largest error of `got` (a kernel's results over `x`) against `exact` where `inside(x)`,
    /// as (ulp, at); everywhere else each result is `outside`'s, bit for bit (NaN as NaN).
    pub(crate) fn worst_inside(
        name: &str,
        x: &[f32],
        got: &[f32],
        exact: fn(f64) -> f64,
        inside: impl Fn(f32) -> bool,
        outside: fn(f32) -> f32,
    ) -> (f64, f32) {
        let mut worst = (0.0f64, 0.0f32);
        for (&x, &y) in x.iter().zip(got) {
            if inside(x) {
                let e = ulps(y, exact(x as f64));
                if e > worst.0 {
                    worst = (e, x);
                }
            } else {
                let want = outside(x);
                assert!(y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()), "{name}({x:e}): {y:e}, not {want:e}");
            }
        }
        eprintln!("{name}: {:.4} ulp at {:e}", worst.0, worst.1);
        worst
    }

    /// The largest error of `k` against `exact` over the grid where `x >= floor`; every other
    /// point within `elsewhere` (the scalar kernels' subnormal results).
    fn worst(k: &impl SliceKernel<f32>, exact: fn(f64) -> f64, floor: f32, elsewhere: f64) -> (f64, f32) {
        let x = grid();
        let got = run(k, &x);
        let mut worst = (0.0f64, 0.0f32);
        for (&x, &y) in x.iter().zip(&got) {
            let e = ulps(y, exact(x as f64));
            assert!(e <= elsewhere, "{x:e}: {y:e}, {e} ulp");
            if x >= floor && e > worst.0 {
                worst = (e, x);
            }
        }
        worst
    }

    #[test]
    fn exp2_sigmoid_and_silu_within_their_bounds() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        // Bounds: the largest error over every float32 (a separate exhaustive run) for exp2,
        // `vecmath_f32`'s for sigmoid and silu; PyTorch 2.15's own float32 results exceed
        // them all (tests/python/test_vecmath_f32grid.py).
        let report = |name: &str, (e, at): (f64, f32)| {
            eprintln!("{name}: {e:.4} ulp at {at:e}");
            (e, at)
        };
        let (e, at) = report("exp2", worst(&Exp2(simd), f64::exp2, f32exp::EXP2_NORMAL_FLOOR, 0.6));
        assert!(e <= 0.55, "exp2: {e} ulp at {at:e}");
        let (e, at) = report("sigmoid", worst(&Sigmoid(simd), |x| 1.0 / (1.0 + (-x).exp()), SIGMOID_FLOOR, 0.75));
        assert!(e <= 0.57, "sigmoid: {e} ulp at {at:e}");
        let (e, at) = report("silu", worst(&Silu(simd), |x| x / (1.0 + (-x).exp()), SIGMOID_FLOOR, 0.77));
        assert!(e <= 0.57, "silu: {e} ulp at {at:e}");
        for x in [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            let s = run(&Sigmoid(simd), &[x])[0];
            let l = run(&Silu(simd), &[x])[0];
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(same(s, f32exp::sigmoid(x)), "sigmoid({x}): {s}");
            assert!(same(l, f32exp::silu(x)), "silu({x}): {l}");
        }
    }

    #[test]
    fn exp_within_its_bound_everywhere_and_exact_at_the_edges() {
        let Some(simd) = crate::cpu::simd::avx512() else {
            return;
        };
        let x = grid();
        let got = run(&Exp(simd), &x);
        let mut worst = 0.0f64;
        for (&x, &y) in x.iter().zip(&got) {
            let e = ulps(y, (x as f64).exp());
            assert!(e <= 0.6, "exp({x:e}) = {y:e}: {e} ulp");
            if x >= f32exp::EXP_NORMAL_FLOOR {
                worst = worst.max(e);
            }
        }
        assert!(worst <= 0.547, "{worst} ulp");
        let specials =
            [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 88.722_83, 88.722_84, -87.0, -87.5, -103.97, -104.0, -150.0, 1e-45];
        for (&x, y) in specials.iter().zip(run(&Exp(simd), &specials)) {
            let scalar = f32exp::exp(x);
            let same = y.to_bits() == scalar.to_bits() || (y.is_nan() && scalar.is_nan());
            assert!(same || ulps(y, (x as f64).exp()) <= 0.547, "exp({x:e}): {y:e}, scalar {scalar:e}");
        }
        // Each element's bits are its own: the same value gets the same result beside any neighbour.
        let mixed = [1.5f32, -100.0, 1.5, -90.0, 0.25, 3.0, -88.0, 1.5, 2.0, 7.0, -120.0, 1.5, 0.0, 9.0, 1.5, -87.0, 1.5];
        let got = run(&Exp(simd), &mixed);
        let alone = run(&Exp(simd), &[1.5f32]);
        assert!(mixed.iter().zip(&got).filter(|(x, _)| **x == 1.5).all(|(_, y)| y.to_bits() == alone[0].to_bits()));
    }

    /// silu's gradient: g s (1 + x (1 - s)) with s the float32 sigmoid (`Sigmoid`'s, tested
    /// above) within 2.5 units of the largest of its terms (three roundings of up to 2^-24 each,
    /// relative: 2.27 at worst on this grid; the sum cancels near x = -1.28, where relative error
    /// means nothing), against that formula in float64, over every 427th float32 to |x| = 100;
    /// NaN where the formula gives NaN (infinite x).
    #[test]
    fn silu_grad_follows_the_formula() {
        let Some(simd) = crate::cpu::simd::avx512() else { return eprintln!("no AVX-512: skipped") };
        let x: Vec<f32> =
            grid().into_iter().step_by(7).filter(|v| v.abs() <= 100.0).chain([f32::INFINITY, f32::NEG_INFINITY, f32::NAN]).collect();
        let g: Vec<f32> = (0..x.len()).map(|i| 0.5 + (i % 7) as f32 * 0.25).collect();
        let sig = run(&Sigmoid(simd), &x);
        let mut out = vec![MaybeUninit::uninit(); x.len()];
        SiluGrad.zip_into(simd, &g, &x, &mut out);
        let mut worst: f64 = 0.0;
        for (((&x, &g), &s), o) in x.iter().zip(&g).zip(&sig).zip(out) {
            let got = unsafe { o.assume_init() };
            if !x.is_finite() {
                assert!(got.is_nan(), "silu'({x}) = {got}");
                continue;
            }
            let (xd, gd, sd) = (x as f64, g as f64, s as f64);
            let want = gd * sd * (1.0 + xd * (1.0 - sd));
            let scale = gd * sd * (1.0 + xd.abs() * (1.0 - sd));
            let unit = |v: f64| 2f64.powi(v.abs().max(f32::MIN_POSITIVE as f64).log2().floor() as i32 - 23);
            let err = (got as f64 - want).abs() / unit(scale);
            worst = worst.max(err);
            assert!(err <= 2.5, "silu'({x:e}) with g = {g}: {got:e}, want {want:e} ({err} units of the terms)");
        }
        eprintln!("silu grad: {worst:.3} units of the terms");
    }
}
