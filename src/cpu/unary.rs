//! The CPU's elementwise functions of one array: float kernels for float32 and float64 (16-bit
//! floats compute through float32 and round once), the integer kernels of the ops that keep
//! integers, logical_not, and the classes of float values (isnan and the like). Dtype rules and
//! errors are the tensor layer's (`tensor/unary.rs`).

use crate::backend::Array;
use crate::cpu::bessel::spherical_j0;
use crate::cpu::cast::copy_as;
use crate::cpu::elementwise::{map1, map1_slices, map1_split, map_in_place, map_slices_in_place, map_split_in_place, SliceKernel};
use crate::cpu::math::relu6;
use crate::cpu::num::Arith;
#[cfg(target_arch = "x86_64")]
use crate::cpu::simd::avx512;
use crate::cpu::special::polygamma64;
use crate::cpu::special_fns::ndtri_elem;
use crate::cpu::vecmath::VecMath;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_asin;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_atan;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_erfc;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_erfinv;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_gelu;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_log;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_pow;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_softplus;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_tan;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_tanh;
#[cfg(target_arch = "x86_64")]
use crate::cpu::vecmath_avx512_trig;
use crate::cpu::vecmath_bessel::{
    airy_ai_elem, i0_elem, i0e_elem, i1_elem, i1e_elem, i_f32, i_f32_near, j0_elem, j0_f32, j0_f32_near, j1_elem, j1_f32, k0_elem,
    k0e_elem, k1_elem, k1e_elem, y0_elem, y0_f32, y1_elem, y1_f32, I_NEAR_LIMIT, J0_NEAR_LIMIT,
};
use crate::cpu::vecmath_erfcx::{erfcx_elem, log_ndtr_elem};
use crate::cpu::vecmath_f32 as f32exp;
use crate::cpu::vecmath_gamma::{digamma_elem, lgamma_elem, trigamma_f32, LgammaF32};
use crate::cpu::vecmath_special::{erfinv_elem, erfinv_f32, erfinv_f32_central, ERFINV_CENTRAL_LIMIT};
use crate::cpu::vecmath_trig::{cos_f32, sin_f32, small_arguments, tan_f32};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::unary::{unary_op_table, FloatClass, UnaryOp, SELU_ALPHA, SELU_SCALE};
use crate::with_arith_dtype;

/// `op(x)` in x's dtype (bool for logical_not).
pub fn unary(x: &Array, op: UnaryOp) -> Result<Array> {
    let dtype = x.dtype();
    if op == UnaryOp::LogicalNot {
        let b = if dtype == DType::Bool { x.clone() } else { copy_as(x, DType::Bool)? };
        return b.with_slice::<bool, _>("logical_not", |s, l| Array::from_vec(map1(s, l, |v: bool| !v)?, &l.shape))?;
    }
    if let (DType::F16, UnaryOp::PowScalar(e)) = (dtype, op) {
        if e.abs() == 0.5 {
            // Float16 is the one dtype whose x ** ±0.5 PyTorch leaves to C's pow.
            let f = copy_as(x, DType::F32)?;
            let y = f.with_slice::<f32, _>("pow", |s, l| Array::from_vec(map1(s, l, |v: f32| v.powf(e as f32))?, &l.shape))??;
            return copy_as(&y, dtype);
        }
    }
    if dtype.is_half() {
        // 16-bit floats compute through f32 and round back once.
        return copy_as(&unary(&copy_as(x, DType::F32)?, op)?, dtype);
    }
    if !dtype.is_floating_point() {
        return integer_unary(x, op);
    }
    match dtype {
        DType::F32 => x.with_slice::<f32, _>(op.name(), |s, l| Array::from_vec(float32(op, Fresh { s, l })?, &l.shape))?,
        _ => x.with_slice::<f64, _>(op.name(), |s, l| Array::from_vec(f64::apply(op, Fresh { s, l })?, &l.shape))?,
    }
}

/// `op` over a float32 or float64 array in place, where its elements fill a run of storage
/// (any dense layout): one pass, no temporary. False, the array untouched, elsewhere.
pub fn unary_inplace(dst: &Array, op: UnaryOp) -> Result<bool> {
    fn over<T: Element>(
        dst: &Array,
        op: UnaryOp,
        run: std::ops::Range<usize>,
        kernel: impl FnOnce(Over<'_, T>) -> Result<()>,
    ) -> Result<bool> {
        dst.with_slice_mut::<T, _>(op.name(), |d, _| {
            let n = run.len();
            let x = d.get_mut(run).ok_or_else(|| crate::error::Error::Runtime("unary_inplace: a view past its storage".into()))?;
            kernel(Over { x, l: Layout { shape: vec![n], strides: vec![1], offset: 0 } })
        })??;
        Ok(true)
    }
    if matches!(op, UnaryOp::LogicalNot | UnaryOp::BitwiseNot) || dst.layout().numel() == 0 {
        return Ok(false);
    }
    let Some(run) = dst.layout().dense_run() else { return Ok(false) };
    match dst.dtype() {
        DType::F32 => over(dst, op, run, |t: Over<'_, f32>| float32(op, t)),
        DType::F64 => over(dst, op, run, |t: Over<'_, f64>| f64::apply(op, t)),
        _ => Ok(false),
    }
}

/// Where a float kernel's results go: a new contiguous array read from a strided view
/// (`Fresh`), or back over the values read (`Over`, an in-place op on a dense view's run).
/// Each op's choice of kernel is written once, for both.
pub trait Target<T: Element> {
    type Out;
    /// The values the kernel reads, and the layout viewing them.
    fn input(&self) -> (&[T], &Layout);
    fn map(self, f: impl Fn(T) -> T + Sync) -> Result<Self::Out>;
    /// `map` with `map1_split`'s choice of kernel per block.
    fn map_split(self, ok: impl Fn(T) -> bool + Sync, fast: impl Fn(T) -> T + Sync, slow: impl Fn(T) -> T + Sync) -> Result<Self::Out>;
    /// `map` through a kernel of whole slices.
    fn map_slices(self, k: impl SliceKernel<T>) -> Result<Self::Out>;
}

/// The values of a strided view, mapped into a new contiguous array.
pub struct Fresh<'a, T> {
    s: &'a [T],
    l: &'a Layout,
}

impl<T: Element> Target<T> for Fresh<'_, T> {
    type Out = Vec<T>;
    fn input(&self) -> (&[T], &Layout) {
        (self.s, self.l)
    }
    #[inline(always)]
    fn map(self, f: impl Fn(T) -> T + Sync) -> Result<Vec<T>> {
        map1(self.s, self.l, f)
    }
    #[inline(always)]
    fn map_split(self, ok: impl Fn(T) -> bool + Sync, fast: impl Fn(T) -> T + Sync, slow: impl Fn(T) -> T + Sync) -> Result<Vec<T>> {
        map1_split(self.s, self.l, ok, fast, slow)
    }
    #[inline(always)]
    fn map_slices(self, k: impl SliceKernel<T>) -> Result<Vec<T>> {
        map1_slices(self.s, self.l, &k)
    }
}

/// A run of storage mapped in place; `l` views it as one contiguous dim.
pub struct Over<'a, T> {
    x: &'a mut [T],
    l: Layout,
}

impl<T: Element> Target<T> for Over<'_, T> {
    type Out = ();
    fn input(&self) -> (&[T], &Layout) {
        (self.x, &self.l)
    }
    #[inline(always)]
    fn map(self, f: impl Fn(T) -> T + Sync) -> Result<()> {
        map_in_place(self.x, f);
        Ok(())
    }
    #[inline(always)]
    fn map_split(self, ok: impl Fn(T) -> bool + Sync, fast: impl Fn(T) -> T + Sync, slow: impl Fn(T) -> T + Sync) -> Result<()> {
        map_split_in_place(self.x, ok, fast, slow);
        Ok(())
    }
    #[inline(always)]
    fn map_slices(self, k: impl SliceKernel<T>) -> Result<()> {
        map_slices_in_place(self.x, &k);
        Ok(())
    }
}

/// Whether every float32 value `t` reads is within `SMALL_ARGUMENT` (`small_arguments`).
fn small<D: Target<f32>>(t: &D) -> bool {
    let (s, l) = t.input();
    small_arguments(s, l)
}

/// The float32 kernels: the ops with kernels of their own, then the float ones (`FloatOps`).
fn float32<D: Target<f32>>(op: UnaryOp, t: D) -> Result<D::Out> {
    match op {
        // Blocks whose every |x| is below 8 skip Hankel's form, and the phase's cheap
        // reduction serves where no |x| is huge.
        UnaryOp::BesselJ0 if small(&t) => t.map_split(
            #[inline(always)]
            |x: f32| x.abs() < J0_NEAR_LIMIT,
            #[inline(always)]
            |x: f32| j0_f32_near(x as f64) as f32,
            #[inline(always)]
            |x: f32| j0_f32::<true>(x as f64) as f32,
        ),
        UnaryOp::BesselJ0 => t.map_split(
            #[inline(always)]
            |x: f32| x.abs() < J0_NEAR_LIMIT,
            #[inline(always)]
            |x: f32| j0_f32_near(x as f64) as f32,
            #[inline(always)]
            |x: f32| j0_f32::<false>(x as f64) as f32,
        ),
        // Blocks whose every |x| is at most 2 skip the far pieces.
        UnaryOp::I1e => t.map_split(
            #[inline(always)]
            |x: f32| x.abs() <= I_NEAR_LIMIT,
            #[inline(always)]
            |x: f32| i_f32_near::<true, true>(x as f64) as f32,
            #[inline(always)]
            |x: f32| i_f32::<true, true>(x as f64) as f32,
        ),
        // Per block, the cheapest of lgamma's kernels that covers it.
        UnaryOp::Lgamma => t.map_slices(LgammaF32),
        #[cfg(target_arch = "x86_64")]
        UnaryOp::Erfinv if avx512().is_some() => avx512_kernel(op, avx512().expect("checked"), t),
        // Blocks whose every |x| is at most 0.99 skip erfinv's tail piece.
        UnaryOp::Erfinv => t.map_split(
            #[inline(always)]
            |x: f32| x.abs() <= ERFINV_CENTRAL_LIMIT,
            #[inline(always)]
            |x: f32| erfinv_f32_central(x as f64) as f32,
            #[inline(always)]
            |x: f32| erfinv_f32(x as f64) as f32,
        ),
        #[cfg(target_arch = "x86_64")]
        UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tan | UnaryOp::SphericalBesselJ0 if avx512().is_some() => {
            avx512_kernel(op, avx512().expect("checked"), t)
        }
        UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tan | UnaryOp::BesselJ1 | UnaryOp::BesselY0 | UnaryOp::BesselY1 if small(&t) => {
            small_reduction(op, t)
        }
        // x ** e where no cheaper form below applies (e not ±0.5, 2 or a small integer).
        #[cfg(target_arch = "x86_64")]
        UnaryOp::PowScalar(e) if avx512().is_some() && !(e.abs() == 0.5 || e == 2.0 || (e == e.trunc() && e.abs() < 64.0)) => {
            t.map_slices(vecmath_avx512_pow::PowBy(avx512().expect("checked"), e as f32))
        }
        // Its linear part past a finite threshold covers +inf (`vecmath_avx512_softplus`).
        #[cfg(target_arch = "x86_64")]
        UnaryOp::Softplus { beta, threshold } if avx512().is_some() && (threshold as f32) < f32::INFINITY => {
            let simd = avx512().expect("checked");
            t.map_slices(vecmath_avx512_softplus::Softplus { simd, beta: beta as f32, threshold: threshold as f32 })
        }
        #[cfg(target_arch = "x86_64")]
        UnaryOp::LogSigmoid {} if avx512().is_some() => t.map_slices(vecmath_avx512_softplus::LogSigmoid(avx512().expect("checked"))),
        // AVX-512 kernels of their own (`vecmath_avx512`, `vecmath_avx512_log`, `vecmath_avx512_gelu`).
        #[cfg(target_arch = "x86_64")]
        UnaryOp::Exp
        | UnaryOp::Exp2
        | UnaryOp::Sigmoid
        | UnaryOp::Silu
        | UnaryOp::Tanh
        | UnaryOp::Log
        | UnaryOp::Log2
        | UnaryOp::Log10
        | UnaryOp::Gelu
        | UnaryOp::Erfc
        | UnaryOp::Asin
        | UnaryOp::Acos
        | UnaryOp::Atan
            if avx512().is_some() =>
        {
            avx512_kernel(op, avx512().expect("checked"), t)
        }
        // Blocks with no subnormal result skip exp's subnormal path (a third of its work).
        UnaryOp::Exp => t.map_split(
            #[inline(always)]
            |x: f32| x >= f32exp::EXP_NORMAL_FLOOR,
            #[inline(always)]
            |x: f32| f32exp::exp_normal(x),
            #[inline(always)]
            |x: f32| f32exp::exp(x),
        ),
        UnaryOp::Exp2 => t.map_split(
            #[inline(always)]
            |x: f32| x >= f32exp::EXP2_NORMAL_FLOOR,
            #[inline(always)]
            |x: f32| f32exp::exp2_normal(x),
            #[inline(always)]
            |x: f32| f32exp::exp2(x),
        ),
        // Trigamma, lgamma's second derivative, has a float32 kernel of its own; the
        // other orders keep polygamma's general path (the table's kernel).
        UnaryOp::Polygamma { n: 1.0 } => t.map(
            #[inline(always)]
            |x: f32| trigamma_f32(x as f64) as f32,
        ),
        _ => f32::apply(op, t),
    }
}

/// The float32 ops with AVX-512 kernels of their own.
#[cfg(target_arch = "x86_64")]
fn avx512_kernel<D: Target<f32>>(op: UnaryOp, simd: pulp::x86::V4, t: D) -> Result<D::Out> {
    use vecmath_avx512 as k;
    use vecmath_avx512_log as l;
    match op {
        UnaryOp::Exp => t.map_slices(k::Exp(simd)),
        UnaryOp::Exp2 => t.map_slices(k::Exp2(simd)),
        UnaryOp::Sigmoid => t.map_slices(k::Sigmoid(simd)),
        UnaryOp::Silu => t.map_slices(k::Silu(simd)),
        UnaryOp::Tanh => t.map_slices(vecmath_avx512_tanh::Tanh(simd)),
        UnaryOp::Log => t.map_slices(l::Log(simd)),
        UnaryOp::Log2 => t.map_slices(l::Log2(simd)),
        UnaryOp::Log10 => t.map_slices(l::Log10(simd)),
        UnaryOp::Sin => t.map_slices(vecmath_avx512_trig::Sin(simd)),
        UnaryOp::Cos => t.map_slices(vecmath_avx512_trig::Cos(simd)),
        UnaryOp::Tan => t.map_slices(vecmath_avx512_tan::Tan(simd)),
        UnaryOp::SphericalBesselJ0 => t.map_slices(vecmath_avx512_trig::SphericalJ0(simd)),
        UnaryOp::Gelu => t.map_slices(vecmath_avx512_gelu::Gelu(simd)),
        UnaryOp::Erfc => t.map_slices(vecmath_avx512_erfc::Erfc(simd)),
        UnaryOp::Erfinv => t.map_slices(vecmath_avx512_erfinv::Erfinv(simd)),
        UnaryOp::Asin => t.map_slices(vecmath_avx512_asin::Asin(simd)),
        UnaryOp::Acos => t.map_slices(vecmath_avx512_asin::Acos(simd)),
        UnaryOp::Atan => t.map_slices(vecmath_avx512_atan::Atan(simd)),
        _ => f32::apply(op, t),
    }
}

/// sin, cos, tan, or J1, Y0 and Y1 (their phase), of float32 values all within
/// `SMALL_ARGUMENT`: the cheap reduction by π/2 (the general kernels pay for a reduction exact at
/// any size, ten times the work).
fn small_reduction<D: Target<f32>>(op: UnaryOp, t: D) -> Result<D::Out> {
    match op {
        UnaryOp::Sin => t.map(
            #[inline(always)]
            |x: f32| sin_f32::<true>(x as f64) as f32,
        ),
        UnaryOp::Cos => t.map(
            #[inline(always)]
            |x: f32| cos_f32::<true>(x as f64) as f32,
        ),
        UnaryOp::BesselJ1 => t.map(
            #[inline(always)]
            |x: f32| j1_f32::<true>(x as f64) as f32,
        ),
        UnaryOp::BesselY0 => t.map(
            #[inline(always)]
            |x: f32| y0_f32::<true>(x as f64) as f32,
        ),
        UnaryOp::BesselY1 => t.map(
            #[inline(always)]
            |x: f32| y1_f32::<true>(x as f64) as f32,
        ),
        _ => t.map(
            #[inline(always)]
            |x: f32| tan_f32::<true>(x as f64) as f32,
        ),
    }
}

/// A bool array marking the elements of the float array `x` that are of `class`; 16-bit floats
/// widen to float32 first, which keeps every NaN and infinity.
pub fn classify(x: &Array, class: FloatClass) -> Result<Array> {
    let name = "isnan";
    match x.dtype() {
        DType::F32 => x.with_slice::<f32, _>(name, |s, l| Array::from_vec(map1(s, l, |v: f32| class.test(v as f64))?, &l.shape))?,
        DType::F64 => x.with_slice::<f64, _>(name, |s, l| Array::from_vec(map1(s, l, |v: f64| class.test(v))?, &l.shape))?,
        _ => classify(&copy_as(x, DType::F32)?, class),
    }
}

/// The ops that keep integer dtypes (`UnaryOp::keeps_integers`), on integers and bool.
fn integer_unary(x: &Array, op: UnaryOp) -> Result<Array> {
    with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>(op.name(), |s, l| {
        let data = match op {
            UnaryOp::Neg => map1(s, l, |v: T| v.neg()),
            UnaryOp::Abs => map1(s, l, |v: T| Arith::abs(v)),
            UnaryOp::Sign => map1(s, l, |v: T| v.sign()),
            UnaryOp::Relu => map1(s, l, |v: T| v.max_nan(T::default())),
            UnaryOp::BitwiseNot if T::DTYPE == DType::Bool => map1(s, l, |v: T| T::from_i64((!v.is_nonzero()) as i64)),
            UnaryOp::BitwiseNot => map1(s, l, |v: T| T::from_i64(!v.to_i64())),
            _ => map1(s, l, |v: T| v), // rounding an integer is the identity
        }?;
        Array::from_vec(data, &l.shape)
    })?)
}

/// The per-type body of the float kernels; a macro writes it once for f32 and f64.
pub trait FloatOps: Element {
    fn apply<D: Target<Self>>(op: UnaryOp, t: D) -> Result<D::Out>;
}

macro_rules! float_ops {
    ($T:ty) => {
        impl FloatOps for $T {
            fn apply<D: Target<$T>>(op: UnaryOp, t: D) -> Result<D::Out> {
                type T = $T;
                match op {
                    UnaryOp::PowScalar(e) => {
                        let et = e as T;
                        // PyTorch takes x ** 0.5 as sqrt and x ** -0.5 as rsqrt, so that
                        // (-inf) ** 0.5 is NaN and (-0.0) ** 0.5 is -0.0 (C's pow says inf, +0).
                        if e == 0.5 {
                            t.map(|x: T| x.sqrt())
                        } else if e == -0.5 {
                            t.map(|x: T| 1.0 / x.sqrt())
                        } else if e == 2.0 {
                            t.map(|x: T| x * x)
                        } else if e == e.trunc() && e.abs() < 64.0 {
                            let n = e as i32;
                            t.map(move |x: T| x.powi(n))
                        } else {
                            // `Arith::pow`: float32's vectorises through float64 lanes, where the
                            // closure inlines (`inline(always)`: see `cpu/simd.rs`).
                            t.map(
                                #[inline(always)]
                                move |x: T| Arith::pow(x, et),
                            )
                        }
                    }
                    UnaryOp::LogicalNot | UnaryOp::BitwiseNot => unreachable!("handled before dispatch"),
                    // Every other op is declared in `crate::ops::unary`; its kernel is expanded below.
                    _ => <T as RegisteredFloat>::apply_registered(op, t),
                }
            }
        }
    };
}
float_ops!(f32);
float_ops!(f64);

/// The float32/float64 kernels of the ops declared in `ops/unary.rs`.
trait RegisteredFloat: Element {
    fn apply_registered<D: Target<Self>>(op: UnaryOp, t: D) -> Result<D::Out>;
}

/// The declared ops' kernels for one float type. An op's parameters are given to its kernel in
/// that type.
macro_rules! registered_float {
    ($T:ty; $($V:ident |$cx:ident| $cpu:expr;)* ; $($PV:ident { $($p:ident),* } |$pcx:ident| $pcpu:expr;)*) => {
        impl RegisteredFloat for $T {
            #[inline]
            fn apply_registered<D: Target<$T>>(op: UnaryOp, t: D) -> Result<D::Out> {
                #[allow(dead_code)]
                type T = $T;
                match op {
                    // `inline(always)`: a kernel LLVM declines to inline into pulp's
                    // target-feature loop compiles for the baseline instruction set, where
                    // `mul_add` and `round_ties_even` are library calls (vecmath's sin ran 25x
                    // slower than the C library's that way).
                    $(UnaryOp::$V => t.map(#[inline(always)] |$cx: T| $cpu),)*
                    $(UnaryOp::$PV { $($p),* } => {
                        $(let $p = $p as T;)*
                        t.map(#[inline(always)] move |$pcx: T| $pcpu)
                    })*
                    _ => unreachable!("{} has a kernel of its own", op.name()),
                }
            }
        }
    };
}

/// Takes the table's entries and writes the kernels for float32 and float64.
macro_rules! declared_kernels {
    (plain {$($V:ident {
        name: $name:literal, node: $node:literal, ints: $ints:literal, reads: ($ri:literal, $ro:literal), wgpu: $code:tt,
        py: [$($py:ident),*], inplace: [$($ip:ident),*],
        cpu: |$cx:ident| $cpu:expr,
        grad: |$g:ident, $x:ident, $y:ident| $grad:expr,
    })*}
    with_params {$($PV:ident { $($p:ident = $default:expr),* } {
        name: $pname:literal, node: $pnode:literal, reads: ($pri:literal, $pro:literal), wgpu: $pcode:literal,
        py: $ppy:ident, in_place: $keeps:ident, ints: [$($pints:tt)*],
        cpu: |$pcx:ident| $pcpu:expr,
        grad: |$pg:ident, $px:ident, $py_:ident, $from_result:ident| $pgrad:expr,
    })*}) => {
        registered_float!(f32; $($V |$cx| $cpu;)* ; $($PV { $($p),* } |$pcx| $pcpu;)*);
        registered_float!(f64; $($V |$cx| $cpu;)* ; $($PV { $($p),* } |$pcx| $pcpu;)*);
    };
}
unary_op_table!(declared_kernels);
