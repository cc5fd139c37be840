//! Composite ops: ops PyTorch defines from others, each declared once in `composite_op_table!`
//! as a body in tensor ops. The body runs under one node named like PyTorch's
//! (`autograd::named`), whose backward goes through the graph the body recorded: the gradient
//! comes for free, and every backend that has the body's ops has the op.
//!
//! An entry reads
//!
//! ```text
//! /// doc
//! name(input: &Tensor, other: Arg, rtol: f64 = 1e-05) => ["NameBackward0", "NameBackward1"], inplace: name_(Cast) { body }
//! ```
//!
//! - two operands with PyTorch's keyword names, each `&Tensor` (a tensor only) or `Arg` (a tensor
//!   or a Python number, which the body receives as `Arg::S`), then any parameters with their
//!   Python defaults (literals);
//! - the nodes, one per overload in the order (tensor, tensor), (tensor, number),
//!   (number, tensor): a number is not an input of the node (`CopysignBackward1` lists only
//!   `input`). `[]`: the op has no node of its own (the body's nodes are PyTorch's, or the op is
//!   not differentiable);
//! - optionally `inplace: name_(rule)`, the in-place form, whose result must be castable to
//!   self's dtype (`Cast`, PyTorch's rule for in-place ops) or be of self's dtype (`SameDtype`).
//!
//! It gives `composite::functions::name(input, other, ..)`, `Tensor::name(&self, other, ..)`
//! and `Tensor::name_`, and the Python `torch.name`, `Tensor.name` and `Tensor.name_`
//! (`src/python/composite.rs`; `_C._composite_ops()` lists the names).

use crate::autograd::GradMode;
use crate::dtype::{DType, DEFAULT_FLOAT};
use crate::error::{Error, Result};
use crate::tensor::arith::{self, Arg};
use crate::tensor::float_class::FloatClass;
use crate::tensor::{BinaryOp as B, Scalar, Tensor, UnaryOp as U};

use super::grad::{f, muls};

/// Calls `$consumer! { entries }` with every declared composite op.
macro_rules! composite_op_table {
    ($consumer:ident) => {
        $consumer! {
            /// `log(exp(a) + exp(b))`, as `max(a, b) + log1p(exp(-|a - b|))`; equal infinities give themselves.
            logaddexp(input: &Tensor, other: &Tensor) => ["LogaddexpBackward0"] {
                let (a, b) = (input, other);
                let m = a.binary(B::Maximum, b)?;
                let r = m.binary(B::Add, &a.binary(B::Sub, b)?.unary(U::Abs)?.unary(U::Neg)?.unary(U::Exp)?.unary(U::Log1p)?)?;
                same_infinity(a, b, &r)?
            }
            /// `log2(2^a + 2^b)`, as `max(a, b) + log1p(2^-|a - b|) / ln 2`.
            logaddexp2(input: &Tensor, other: &Tensor) => ["Logaddexp2Backward0"] {
                let (a, b) = (input, other);
                let m = a.binary(B::Maximum, b)?;
                let d = a.binary(B::Sub, b)?.unary(U::Abs)?.unary(U::Neg)?.unary(U::Exp2)?.unary(U::Log1p)?;
                let r = m.binary(B::Add, &muls(&d, std::f64::consts::LOG2_E)?)?;
                same_infinity(a, b, &r)?
            }
            /// `sqrt(a² + b²)`; infinite where either is (even against NaN).
            hypot(input: &Tensor, other: &Tensor) => ["HypotBackward0"], inplace: hypot_(Cast) {
                let (a, b) = (input, other);
                if a.device().is_cpu() && a.dtype().is_floating_point() && b.dtype().is_floating_point() {
                    // One pass (`cpu/binary_math.rs`); the device composes it below.
                    a.binary(B::Hypot, b)?
                } else {
                    let r = a.binary(B::Mul, a)?.binary(B::Add, &b.binary(B::Mul, b)?)?.unary(U::Sqrt)?;
                    let inf = |t: &Tensor| t.unary(U::Abs)?.binary_scalar(B::Eq, f(f64::INFINITY), false);
                    Tensor::where_(&inf(a)?.binary(B::LogicalOr, &inf(b)?)?, Arg::S(f(f64::INFINITY)), Arg::T(&r))?
                }
            }
            /// `a * log(b)`, 0 where `a` is 0 and `b` is not NaN; either may be a number. In the
            /// operands' promoted floating dtype (integers compute in the default float dtype).
            /// PyTorch's (tensor, number) overload differentiates `input` as `log(other)`
            /// everywhere, its zeros included; where that log is infinite (`other` 0 or inf) the
            /// zeros get 0 here instead.
            xlogy(input: Arg, other: Arg) => ["XlogyBackward0", "XlogyBackward2", "XlogyBackward1"], inplace: xlogy_(Cast) {
                let d = floating_result_dtype(&input, &other);
                let finite_log_of_number = matches!(other, Arg::S(s) if s.to_f64().ln().is_finite());
                let (a, b) = (floating(input, d)?, floating(other, d)?);
                let zero = a.binary_scalar(B::Eq, f(0.0), false)?;
                if finite_log_of_number {
                    let r = a.binary(B::Mul, &b.unary(U::Log)?)?;
                    // Where `a` is 0 the product is already ±0: adding +0 makes it 0 and keeps
                    // the gradient flowing through it.
                    Tensor::where_(&zero, Arg::T(&r.binary_scalar(B::Add, f(0.0), false)?), Arg::T(&r))?
                } else {
                    // PyTorch's gradient for `input` is log(other), zeros included, except where
                    // `input` is 0 and `other` is not NaN and has no finite log (<= 0 or inf):
                    // there the result is 0 and so is the gradient (PyTorch's is inf at inf). Those
                    // places take the log of 1 instead, so that no 0 * -inf enters the gradient;
                    // every zero product is made +0.
                    let finite_log = b.binary_scalar(B::Gt, f(0.0), false)?.binary(B::LogicalAnd, &b.binary_scalar(B::Lt, f(f64::INFINITY), false)?)?;
                    let not_nan = b.binary(B::Eq, &b)?;
                    let no_log = zero.binary(B::LogicalAnd, &not_nan)?.binary(B::LogicalAnd, &finite_log.unary(U::LogicalNot)?)?;
                    let safe_b = Tensor::where_(&no_log, Arg::S(f(1.0)), Arg::T(&b))?;
                    let r = a.binary(B::Mul, &safe_b.unary(U::Log)?)?;
                    Tensor::where_(&zero, Arg::T(&r.binary_scalar(B::Add, f(0.0), false)?), Arg::T(&r))?
                }
            }
            /// `|input|` with the sign of `other` (-0.0 is negative), in the operands' promoted
            /// floating dtype (integers compute in the default float dtype). The gradient is
            /// PyTorch's `result / input`: 0 where `input` is 0, NaN where it is infinite or NaN;
            /// `other`'s is 0. On a device the sign of a NaN in a tensor `other` cannot be read
            /// through tensor ops: there such a NaN counts as positive.
            copysign(input: &Tensor, other: Arg) => ["CopysignBackward0", "CopysignBackward1"], inplace: copysign_(Cast) {
                let d = floating_result_dtype(&Arg::T(input), &other);
                let abs_input = || magnitude(&input.to_dtype(d)?);
                match other {
                    Arg::S(s) if s.to_f64().is_sign_negative() => abs_input()?.unary(U::Neg)?,
                    Arg::S(_) => abs_input()?,
                    // One pass on the CPU (`cpu/binary_math.rs`), which reads a NaN's sign too.
                    Arg::T(b) if input.device().is_cpu() => input.to_dtype(d)?.binary(B::Copysign, &b.to_dtype(d)?)?,
                    Arg::T(b) => {
                        let (m, b) = (abs_input()?, b.to_dtype(d)?);
                        let negative = {
                            let _raw = GradMode::disabled();
                            let zero = b.binary_scalar(B::Eq, f(0.0), false)?;
                            let below = b.unary(U::Reciprocal)?.binary_scalar(B::Lt, f(0.0), false)?;
                            b.binary_scalar(B::Lt, f(0.0), false)?.binary(B::LogicalOr, &zero.binary(B::LogicalAnd, &below)?)?
                        };
                        let r = Tensor::where_(&negative, Arg::T(&m.unary(U::Neg)?), Arg::T(&m))?;
                        if b.requires_grad() {
                            // Selects `r` everywhere: `other` gets PyTorch's zero gradient, not none.
                            Tensor::where_(&Tensor::scalar_tensor(Scalar::Bool(true), DType::Bool)?, Arg::T(&r), Arg::T(&b))?
                        } else {
                            r
                        }
                    }
                }
            }
            /// `input ** exponent` in float64, either of them a number: PyTorch converts the
            /// tensors to float64 and calls `pow`, whose node (`PowBackward0/1/2`) it records.
            float_power(input: Arg, exponent: Arg) => [], inplace: float_power_(SameDtype) {
                match (input, exponent) {
                    (Arg::T(a), Arg::T(b)) => a.to_dtype(DType::F64)?.binary(B::Pow, &b.to_dtype(DType::F64)?)?,
                    (Arg::T(a), Arg::S(s)) => a.to_dtype(DType::F64)?.unary(U::PowScalar(s.to_f64()))?,
                    (Arg::S(s), Arg::T(b)) => b.to_dtype(DType::F64)?.binary_scalar(B::Pow, f(s.to_f64()), true)?,
                    (Arg::S(_), Arg::S(_)) => return Err(both_numbers("float_power")),
                }
            }
            /// `maximum` that ignores a NaN operand (NaN only where both are); ties share the
            /// gradient as `maximum`'s do.
            fmax(input: &Tensor, other: &Tensor) => ["FmaxBackward0"] {
                nan_ignoring(input, other, B::Maximum)?
            }
            /// `minimum` that ignores a NaN operand (NaN only where both are).
            fmin(input: &Tensor, other: &Tensor) => ["FminBackward0"] {
                nan_ignoring(input, other, B::Minimum)?
            }
            /// The step function: 0 below zero, 1 above, `values` at zero (NaN gives 0, as
            /// PyTorch's `input > 0` does). Both tensors must have one dtype; not differentiable.
            heaviside(input: &Tensor, values: &Tensor) => [], inplace: heaviside_(Cast) {
                let _raw = GradMode::disabled();
                if input.dtype() != values.dtype() {
                    return Err(Error::Runtime("heaviside is not yet implemented for tensors with different dtypes.".into()));
                }
                let step = input.binary_scalar(B::Gt, f(0.0), false)?.to_dtype(input.dtype())?;
                Tensor::where_(&input.binary_scalar(B::Eq, f(0.0), false)?, Arg::T(values), Arg::T(&step))?
            }
            /// `|input - other| <= atol + rtol * |other|`, or equal (infinities of one sign
            /// included), or both NaN when `equal_nan`; a bool tensor, not differentiable. Both
            /// tensors must have one dtype; integers and bools compare in the default float dtype
            /// (after an exact equality test, so that large int64 values stay distinct when both
            /// tolerances are zero).
            isclose(input: &Tensor, other: &Tensor, rtol: f64 = 1e-05, atol: f64 = 1e-08, equal_nan: bool = false) => [] {
                let _raw = GradMode::disabled();
                if input.dtype() != other.dtype() {
                    return Err(Error::Runtime(format!("{} did not match {}", input.dtype().title_name(), other.dtype().title_name())));
                }
                if rtol < 0.0 {
                    return Err(Error::Runtime(format!("rtol must be greater than or equal to zero, but got {}", fmt_num(rtol))));
                }
                if atol < 0.0 {
                    return Err(Error::Runtime(format!("atol must be greater than or equal to zero, but got {}", fmt_num(atol))));
                }
                let mut close = input.binary(B::Eq, other)?;
                if equal_nan && input.dtype().is_floating_point() {
                    let both = input.classify(FloatClass::Nan)?.binary(B::LogicalAnd, &other.classify(FloatClass::Nan)?)?;
                    close = close.binary(B::LogicalOr, &both)?;
                }
                if rtol == 0.0 && atol == 0.0 {
                    return Ok(close);
                }
                let (a, b) = if input.dtype().is_floating_point() {
                    (input.clone(), other.clone())
                } else {
                    (input.to_dtype(DEFAULT_FLOAT)?, other.to_dtype(DEFAULT_FLOAT)?)
                };
                let allowed = b.unary(U::Abs)?.binary_scalar(B::Mul, f(rtol), false)?.binary_scalar(B::Add, f(atol), false)?;
                let actual = a.binary(B::Sub, &b)?.unary(U::Abs)?;
                let within = actual.classify(FloatClass::Finite)?.binary(B::LogicalAnd, &actual.binary(B::Le, &allowed)?)?;
                close.binary(B::LogicalOr, &within)?
            }
            /// `torch.special.zeta`: Hurwitz's zeta of the promoted floating dtype, either operand a
            /// number; differentiable in `other` only (PyTorch's error for `input`).
            _special_zeta(input: Arg, other: Arg) => ["SpecialZetaBackward0", "SpecialZetaBackward2", "SpecialZetaBackward1"] {
                special_binary(B::Zeta, "special_zeta", input, other, false)?
            }
            /// `torch.special.xlog1py`: `a * log1p(b)`, 0 where `a` is 0 and `b` is not NaN. Where
            /// `log1p(b)` is finite that 0 is the product plus 0, so that `a`'s gradient there is
            /// `log1p(b)` as PyTorch's; where it is not (b ≤ -1, inf) the gradient is 0.
            _special_xlog1py(input: Arg, other: Arg) => ["SpecialXlog1PyBackward0", "SpecialXlog1PyBackward2", "SpecialXlog1PyBackward1"] {
                if let (Arg::S(_), Arg::S(_)) = (&input, &other) {
                    return Err(both_numbers("special_xlog1py"));
                }
                let d = floating_result_dtype(&input, &other);
                let (a, b) = (floating(input, d)?, floating(other, d)?);
                let l = b.unary(U::Log1p)?;
                let r = a.binary(B::Mul, &l)?;
                let keep = l.classify(FloatClass::Finite)?.binary(B::LogicalOr, &b.binary(B::Ne, &b)?)?;
                let at_zero = Tensor::where_(&keep, Arg::T(&r.binary_scalar(B::Add, f(0.0), false)?), Arg::S(f(0.0)))?;
                Tensor::where_(&a.binary_scalar(B::Eq, f(0.0), false)?, Arg::T(&at_zero), Arg::T(&r))?
            }
            /// The orthogonal polynomials of `torch.special` of degree `n` (truncated to an
            /// integer; 0 for negative degrees), not differentiable in PyTorch.
            _special_chebyshev_polynomial_t(input: Arg, n: Arg) => [] { special_binary(B::ChebyshevT, "special_chebyshev_polynomial_t", input, n, true)? }
            _special_chebyshev_polynomial_u(input: Arg, n: Arg) => [] { special_binary(B::ChebyshevU, "special_chebyshev_polynomial_u", input, n, true)? }
            _special_chebyshev_polynomial_v(input: Arg, n: Arg) => [] { special_binary(B::ChebyshevV, "special_chebyshev_polynomial_v", input, n, true)? }
            _special_chebyshev_polynomial_w(input: Arg, n: Arg) => [] { special_binary(B::ChebyshevW, "special_chebyshev_polynomial_w", input, n, true)? }
            _special_shifted_chebyshev_polynomial_t(input: Arg, n: Arg) => [] { special_binary(B::ShiftedChebyshevT, "special_shifted_chebyshev_polynomial_t", input, n, true)? }
            _special_shifted_chebyshev_polynomial_u(input: Arg, n: Arg) => [] { special_binary(B::ShiftedChebyshevU, "special_shifted_chebyshev_polynomial_u", input, n, true)? }
            _special_shifted_chebyshev_polynomial_v(input: Arg, n: Arg) => [] { special_binary(B::ShiftedChebyshevV, "special_shifted_chebyshev_polynomial_v", input, n, true)? }
            _special_shifted_chebyshev_polynomial_w(input: Arg, n: Arg) => [] { special_binary(B::ShiftedChebyshevW, "special_shifted_chebyshev_polynomial_w", input, n, true)? }
            _special_hermite_polynomial_h(input: Arg, n: Arg) => [] { special_binary(B::HermiteH, "special_hermite_polynomial_h", input, n, true)? }
            _special_hermite_polynomial_he(input: Arg, n: Arg) => [] { special_binary(B::HermiteHe, "special_hermite_polynomial_he", input, n, true)? }
            _special_laguerre_polynomial_l(input: Arg, n: Arg) => [] { special_binary(B::LaguerreL, "special_laguerre_polynomial_l", input, n, true)? }
            _special_legendre_polynomial_p(input: Arg, n: Arg) => [] { special_binary(B::LegendreP, "special_legendre_polynomial_p", input, n, true)? }
        }
    };
}
#[allow(unused_imports)] // used by the Python bindings (feature `python`)
pub(crate) use composite_op_table;

/// The dtype two operands promote to, or the default float dtype where that is not a float.
fn floating_result_dtype(a: &Arg, b: &Arg) -> DType {
    let d = match a {
        Arg::T(t) => arith::result_dtype(t, b),
        Arg::S(s) => match b {
            Arg::T(t) => arith::result_dtype(t, &Arg::S(*s)),
            Arg::S(_) => DEFAULT_FLOAT,
        },
    };
    if d.is_floating_point() {
        d
    } else {
        DEFAULT_FLOAT
    }
}

/// A special function of two operands (`ops/binary.rs`) in their promoted floating dtype,
/// either a number; `detach`: not differentiable (no node, as PyTorch's).
fn special_binary(op: B, name: &str, a: Arg, b: Arg, detach: bool) -> Result<Tensor> {
    if let (Arg::S(_), Arg::S(_)) = (&a, &b) {
        return Err(both_numbers(name));
    }
    let d = floating_result_dtype(&a, &b);
    let (x, y) = (floating(a, d)?, floating(b, d)?);
    if detach {
        x.detach().binary(op, &y.detach())
    } else {
        x.binary(op, &y)
    }
}

/// An operand as a tensor of `dtype`: a number as a zero-dim tensor.
fn floating(x: Arg, dtype: DType) -> Result<Tensor> {
    match x {
        Arg::T(t) => t.to_dtype(dtype),
        Arg::S(s) => Tensor::scalar_tensor(s, dtype),
    }
}

/// `r`, except `a` where `a` and `b` are the same infinity (whose difference is NaN).
fn same_infinity(a: &Tensor, b: &Tensor, r: &Tensor) -> Result<Tensor> {
    let inf = a.unary(U::Abs)?.binary_scalar(B::Eq, f(f64::INFINITY), false)?.binary(B::LogicalAnd, &a.binary(B::Eq, b)?)?;
    Tensor::where_(&inf, Arg::T(a), Arg::T(r))
}

/// `|a|`. Where `a` needs a gradient, its infinities and NaNs go through `sqrt(a·a)`: the same
/// value, and the NaN gradient that PyTorch's `result / input` gives there (the other elements
/// see 1 in that branch, so that no NaN leaks into their zero gradient).
fn magnitude(a: &Tensor) -> Result<Tensor> {
    let abs = a.unary(U::Abs)?;
    if !(a.requires_grad() && crate::autograd::is_grad_enabled()) {
        return Ok(abs);
    }
    let finite = a.classify(FloatClass::Finite)?;
    let rest = Tensor::where_(&finite, Arg::S(f(1.0)), Arg::T(a))?.unary(U::Abs)?;
    let rest = rest.binary(B::Mul, &rest)?.unary(U::Sqrt)?;
    Tensor::where_(&finite, Arg::T(&abs), Arg::T(&rest))
}

/// A number as PyTorch prints it in these errors (`-1`, `-0.5`).
fn fmt_num(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// `op` (maximum or minimum) where neither operand is NaN, else the other operand.
fn nan_ignoring(a: &Tensor, b: &Tensor, op: B) -> Result<Tensor> {
    let isnan = |t: &Tensor| t.binary(B::Ne, t);
    let inner = Tensor::where_(&isnan(a)?, Arg::T(b), Arg::T(&a.binary(op, b)?))?;
    Tensor::where_(&isnan(b)?, Arg::T(a), Arg::T(&inner))
}

fn both_numbers(name: &str) -> Error {
    Error::Type(format!("{name}() takes a tensor as one of its operands, not two numbers"))
}

/// A declared operand's type: `&Tensor` (a tensor only) or `Arg` (a tensor or a Python number).
pub trait Operand<'a>: Copy {
    /// Whether a Python number is accepted.
    const NUMBER: bool;
    /// A tensor as this operand (`self` of the method form).
    fn of_tensor(t: &'a Tensor) -> Self;
    /// `a` as this operand; None for a number where only a tensor is accepted.
    fn of_arg(a: Arg<'a>) -> Option<Self>;
    /// The tensor, or None for a number.
    fn tensor(self) -> Option<&'a Tensor>;
}

impl<'a> Operand<'a> for &'a Tensor {
    const NUMBER: bool = false;
    fn of_tensor(t: &'a Tensor) -> Self {
        t
    }
    fn of_arg(a: Arg<'a>) -> Option<Self> {
        match a {
            Arg::T(t) => Some(t),
            Arg::S(_) => None,
        }
    }
    fn tensor(self) -> Option<&'a Tensor> {
        Some(self)
    }
}

impl<'a> Operand<'a> for Arg<'a> {
    const NUMBER: bool = true;
    fn of_tensor(t: &'a Tensor) -> Self {
        Arg::T(t)
    }
    fn of_arg(a: Arg<'a>) -> Option<Self> {
        Some(a)
    }
    fn tensor(self) -> Option<&'a Tensor> {
        match self {
            Arg::T(t) => Some(t),
            Arg::S(_) => None,
        }
    }
}

/// Runs a composite op's body under the node of the overload its operands pick (numbers are
/// not inputs of that node), or as it is where the op declares no node.
fn run_op(name: &str, nodes: &[&str], operands: [Option<&Tensor>; 2], body: impl FnOnce() -> Result<Tensor>) -> Result<Tensor> {
    let overload = match operands {
        [Some(_), Some(_)] => 0,
        [Some(_), None] => 1,
        [None, Some(_)] => 2,
        [None, None] => return Err(both_numbers(name)),
    };
    if let [Some(a), Some(b)] = operands {
        // PyTorch's error names the operands in order (the body may broadcast them the other way).
        crate::shape::broadcast_shapes(a.shape(), b.shape())?;
    }
    if nodes.is_empty() {
        return body();
    }
    let node = nodes.get(overload).unwrap_or_else(|| panic!("{name} declares no node for overload {overload}"));
    let inputs: Vec<&Tensor> = operands.into_iter().flatten().collect();
    crate::autograd::named(node, &inputs, body)
}

/// `t` as the input of its own in-place form. Where `t` has a history, a copy of its values on
/// that history: the body's nodes that save their input keep these values when the result
/// then overwrites `t` (PyTorch's `original_self`), and the op's node still lists `t`'s node.
fn in_place_input(t: &Tensor) -> Result<Tensor> {
    let Some(node) = t.grad_fn() else { return Ok(t.clone()) };
    if !crate::autograd::is_grad_enabled() {
        return Ok(t.clone());
    }
    let copy = {
        let _raw = GradMode::disabled();
        t.copy_as(t.dtype())?
    };
    copy.set_grad_fn(node, t.output_nr());
    Ok(copy)
}

/// What an in-place form requires of its result's dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InPlace {
    /// Castable to self's dtype (PyTorch's rule for in-place ops: no float into an integer).
    Cast,
    /// Self's dtype itself (`float_power_`, whose result is float64).
    SameDtype,
}

impl InPlace {
    fn check(self, name: &str, own: DType, result: DType) -> Result<()> {
        match self {
            InPlace::Cast if !arith::can_cast(result, own) => Err(Error::Runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                result.title_name(),
                own.title_name()
            ))),
            InPlace::SameDtype if result != own => Err(Error::Runtime(format!(
                "the base given to {name} has dtype {} but the operation's result requires dtype {}",
                own.title_name(),
                result.title_name()
            ))),
            _ => Ok(()),
        }
    }
}

/// A declared op as the Python layer lists it.
pub struct Declared {
    pub name: &'static str,
    pub in_place: Option<&'static str>,
    /// Whether each operand may be a Python number.
    pub numbers: [bool; 2],
    pub nodes: &'static [&'static str],
}

macro_rules! define_composite_ops {
    ($($(#[$doc:meta])* $name:ident $args:tt => [$($node:literal),*] $(, inplace: $ip:ident($rule:ident))? $body:block)*) => {
        /// The composite ops as functions of their operands.
        pub mod functions {
            #[allow(unused_imports)]
            use super::*;
            $(define_composite_ops!(@function $(#[$doc])* $name $args [$($node),*] $body);)*
        }

        $(define_composite_ops!(@method $(#[$doc])* $name $args);)*
        $($(define_composite_ops!(@in_place $ip $rule $name $args);)?)*

        /// Every declared composite op.
        pub const DECLARED: &[Declared] = &[$(define_composite_ops!(@declared $name $args [$($node),*] $($ip)?),)*];
    };
    (@function $(#[$doc:meta])* $name:ident ($a:ident: $ka:ty, $b:ident: $kb:ty $(, $p:ident: $pt:ty = $pd:literal)*) [$($node:literal),*] $body:block) => {
        $(#[$doc])*
        pub fn $name($a: $ka, $b: $kb $(, $p: $pt)*) -> Result<Tensor> {
            run_op(stringify!($name), &[$($node),*], [Operand::tensor($a), Operand::tensor($b)], || Ok($body))
        }
    };
    (@method $(#[$doc:meta])* $name:ident ($a:ident: $ka:ty, $b:ident: $kb:ty $(, $p:ident: $pt:ty = $pd:literal)*)) => {
        impl Tensor {
            $(#[$doc])*
            pub fn $name(&self, $b: $kb $(, $p: $pt)*) -> Result<Tensor> {
                functions::$name(<$ka as Operand>::of_tensor(self), $b $(, $p)*)
            }
        }
    };
    (@in_place $ip:ident $rule:ident $name:ident ($a:ident: $ka:ty, $b:ident: $kb:ty $(, $p:ident: $pt:ty = $pd:literal)*)) => {
        impl Tensor {
            #[doc = concat!("`", stringify!($name), "` written into self.")]
            pub fn $ip(&self, $b: $kb $(, $p: $pt)*) -> Result<()> {
                let r = in_place_input(self)?.$name($b $(, $p)*)?;
                InPlace::$rule.check(stringify!($ip), self.dtype(), r.dtype())?;
                self.assign_(&r)
            }
        }
    };
    (@declared $name:ident ($a:ident: $ka:ty, $b:ident: $kb:ty $(, $p:ident: $pt:ty = $pd:literal)*) [$($node:literal),*] $($ip:ident)?) => {
        Declared {
            name: stringify!($name),
            in_place: define_composite_ops!(@some $($ip)?),
            numbers: [<$ka as Operand>::NUMBER, <$kb as Operand>::NUMBER],
            nodes: &[$($node),*],
        }
    };
    (@some) => { None };
    (@some $ip:ident) => { Some(stringify!($ip)) };
}

composite_op_table!(define_composite_ops);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_consistent() {
        let mut names: Vec<&str> = DECLARED.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DECLARED.len(), "an op is declared twice");
        for d in DECLARED {
            // a node per overload: (tensor, tensor), then (tensor, number), then (number, tensor)
            let overloads = 1 + usize::from(d.numbers[1]) + usize::from(d.numbers[0]);
            assert!(d.nodes.is_empty() || d.nodes.len() == overloads, "{}: {} nodes for {overloads} overloads", d.name, d.nodes.len());
            assert!(d.numbers[0] <= d.numbers[1], "{}: a number first needs a number second in the node order", d.name);
            if let Some(ip) = d.in_place {
                assert_eq!(ip, format!("{}_", d.name));
            }
        }
    }

    #[test]
    fn numbers_parameters_and_in_place_forms() -> Result<()> {
        let a = Tensor::from_vec(vec![-2.0f64, 0.0, 3.0], &[3])?;
        a.set_requires_grad(true)?;
        let y = a.copysign(Arg::S(Scalar::Float(-0.0)))?;
        assert_eq!(y.to_vec::<f64>()?, [-2.0, -0.0, -3.0]);
        assert!(y.to_vec::<f64>()?[1].is_sign_negative());
        assert_eq!(y.grad_fn().expect("recorded").name(), "CopysignBackward1");
        assert_eq!(y.grad_fn().expect("recorded").next_edges().len(), 1);
        let g = crate::autograd::grad(&[y.sum(None, false)?], &[None], std::slice::from_ref(&a), false, false, false)?;
        assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>()?, [1.0, 0.0, -1.0]);

        let p = functions::float_power(Arg::S(Scalar::Int(2)), Arg::T(&Tensor::from_vec(vec![3i64, -1], &[2])?))?;
        assert_eq!((p.dtype(), p.to_vec::<f64>()?), (DType::F64, vec![8.0, 0.5]));
        assert!(functions::float_power(Arg::S(Scalar::Int(2)), Arg::S(Scalar::Int(3))).is_err());

        let b = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
        let err = b.float_power_(Arg::S(Scalar::Int(2))).expect_err("float32 base");
        assert_eq!(err.to_string(), "the base given to float_power_ has dtype Float but the operation's result requires dtype Double");
        let i = Tensor::from_vec(vec![1i64, 2], &[2])?;
        let err = i.copysign_(Arg::S(Scalar::Int(-1))).expect_err("a float result into int64");
        assert_eq!(err.to_string(), "result type Float can't be cast to the desired output type Long");
        b.copysign_(Arg::S(Scalar::Int(-1)))?;
        assert_eq!(b.to_vec::<f32>()?, [-1.0, -2.0]);

        let close = b.isclose(&Tensor::from_vec(vec![-1.05f32, -2.0], &[2])?, 0.01, 0.0, false)?;
        assert_eq!(close.to_vec::<bool>()?, [false, true]);
        Ok(())
    }

    #[test]
    fn a_composite_op_has_its_node_and_gradient() -> Result<()> {
        let a = Tensor::from_vec(vec![1.0f64, -2.0], &[2, 1])?;
        let b = Tensor::from_vec(vec![0.5f64, 3.0, -1.0], &[3])?;
        a.set_requires_grad(true)?;
        let y = a.logaddexp(&b)?;
        assert_eq!(y.shape(), &[2, 3]);
        assert_eq!(y.grad_fn().expect("recorded").name(), "LogaddexpBackward0");
        let g = crate::autograd::grad(&[y.sum(None, false)?], &[None], std::slice::from_ref(&a), false, false, false)?;
        // d/da log(e^a + e^b) = sigmoid(a - b), summed over b
        let got = g[0].as_ref().expect("a gradient").to_vec::<f64>()?;
        for (i, av) in [1.0f64, -2.0].iter().enumerate() {
            let want: f64 = [0.5f64, 3.0, -1.0].iter().map(|bv| 1.0 / (1.0 + (bv - av).exp())).sum();
            assert!((got[i] - want).abs() < 1e-14);
        }
        Ok(())
    }
}
