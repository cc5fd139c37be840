//! The elementwise ops of two operands (arithmetic, comparisons, logical and bitwise ops), each
//! declared once in `binary_op_table!` below. `tensor::arith` gives them broadcasting, type
//! promotion and autograd recording.
//!
//! One entry says everything about an op that is the same under every overload:
//!
//! - `name`: PyTorch's name (errors);
//! - `node`: its `grad_fn` node for two tensors (the overloads taking a number are named in
//!   `tensor::arith::binary_recorded`);
//! - `class`: `Arith` (same dtype out), `Compare` (bool out), `Logical` (bool in and out) or
//!   `Bitwise` (integers and bool only);
//! - `wgpu`: its op codes in the shaders, `(float, int)`: for `Arith`/`Bitwise` the
//!   `binary_float`/`binary_int` switch case (None where the device has no kernel), for
//!   `Compare`/`Logical` the `compare`/`logical` case;
//! - `py`: the `Tensor` methods bound from the entry, each with its in-place form
//!   (`mul mul_, multiply multiply_`); `[]` where the binding is written by hand (`add`/`sub`
//!   with `alpha`, `div` with `rounding_mode`, `pow`, the operators), and `other`: `Number` where
//!   `other` may be a tensor or a Python number, `Tensor` where PyTorch has no number overload;
//! - `cpu`: the kernel of one element pair, generic over the element type `T` (`cpu/num.rs`'s
//!   `Arith`);
//! - `grad`: the gradients of both operands from the incoming gradient `g`, closures `a()` and
//!   `b()` giving the saved operands, and `need(i)`, whether operand `i` needs one. They are
//!   written in tensor ops (so double backward works) at the operands' broadcast shape; the
//!   engine sums them back to each operand's shape.
//!
//! The table holds tokens only: each consumer expands what it needs where it lives, so this
//! file depends on nothing. The enum and its facts come from here; the CPU kernels from
//! `cpu/arith.rs`, the device's op codes from `wgpu/elementwise.rs`, the gradients from
//! `autograd/formulas.rs` (the names the tokens use are in scope there) and the Python methods,
//! with `_C._binary_ops()` naming them for `torch.X`, from `python/arith.rs`.

/// Calls `$consumer! { entries }` with every declared binary op.
macro_rules! binary_op_table {
    ($consumer:ident) => {
        $consumer! {
            Add {
                name: "add", node: "AddBackward0", class: Arith, wgpu: (Some(0), Some(0)),
                py: [], other: Number,
                cpu: |x, y| x.add(y),
                grad: |g, _a, _b, _need| (Some(g.clone()), Some(g.clone())),
            }
            Sub {
                name: "sub", node: "SubBackward0", class: Arith, wgpu: (Some(1), Some(1)),
                py: [], other: Number,
                cpu: |x, y| x.sub(y),
                grad: |g, _a, _b, _need| (Some(g.clone()), Some(un(g, UnaryOp::Neg)?)),
            }
            Mul {
                name: "mul", node: "MulBackward0", class: Arith, wgpu: (Some(2), Some(2)),
                py: [mul mul_, multiply multiply_], other: Number,
                cpu: |x, y| x.mul(y),
                grad: |g, a, b, need| (need(0).then(|| mul(g, &b()?)).transpose()?, need(1).then(|| mul(g, &a()?)).transpose()?),
            }
            Div {
                name: "div", node: "DivBackward0", class: Arith, wgpu: (Some(3), None),
                py: [true_divide true_divide_], other: Number,
                cpu: |x, y| x.div(y),
                grad: |g, a, b, need| (
                    need(0).then(|| div(g, &b()?)).transpose()?,
                    need(1)
                        .then(|| {
                            let (a, b) = (a()?, b()?);
                            un(&div(&mul(g, &a)?, &mul(&b, &b)?)?, UnaryOp::Neg)
                        })
                        .transpose()?,
                ),
            }
            FloorDiv {
                // Recorded as PyTorch's NotImplemented node (`tensor::arith`).
                name: "floor_divide", node: "FloorDivideBackward0", class: Arith, wgpu: (Some(4), Some(4)),
                py: [floor_divide floor_divide_], other: Number,
                cpu: |x, y| x.floor_div(y),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            Rem {
                name: "remainder", node: "RemainderBackward0", class: Arith, wgpu: (Some(5), Some(5)),
                py: [remainder remainder_], other: Number,
                cpu: |x, y| x.rem(y),
                grad: |g, a, b, _need| {
                    let (a, b) = (a()?, b()?);
                    // The floored quotient is piecewise constant: its own gradient is zero.
                    let q = div_floor(Arg::T(&a), Arg::T(&b))?;
                    (Some(g.clone()), Some(un(&mul(g, &q)?, UnaryOp::Neg)?))
                },
            }
            /// C's `fmod`: the remainder of the quotient truncated toward zero (the dividend's sign).
            Fmod {
                name: "fmod", node: "FmodBackward0", class: Arith, wgpu: (Some(14), Some(14)),
                py: [fmod fmod_], other: Number,
                cpu: |x, y| x.fmod(y),
                grad: |g, a, b, _need| {
                    let (a, b) = (a()?, b()?);
                    // a - trunc(a / b) * b: the truncated quotient is piecewise constant.
                    let q = div(&a, &b)?.unary(UnaryOp::Trunc)?;
                    (Some(g.clone()), Some(un(&mul(g, &q)?, UnaryOp::Neg)?))
                },
            }
            Pow {
                name: "pow", node: "PowBackward1", class: Arith, wgpu: (Some(6), Some(6)),
                py: [], other: Number,
                cpu: |x, y| Arith::pow(x, y),
                grad: |g, a, b, need| {
                    let (a, b) = (a()?, b()?);
                    let ga = need(0).then(|| {
                        // b * a^(b-1), zero where b == 0 (PyTorch's convention)
                        let p = a.binary(BinaryOp::Pow, &b.binary_scalar(BinaryOp::Sub, f(1.0), false)?)?;
                        let d = mul(&mul(g, &b)?, &p)?;
                        let b0 = b.binary_scalar(BinaryOp::Eq, f(0.0), false)?;
                        Tensor::where_(&b0, Arg::S(f(0.0)), Arg::T(&d))
                    });
                    let gb = need(1).then(|| {
                        let out = a.binary(BinaryOp::Pow, &b)?;
                        let d = mul(&mul(g, &out)?, &un(&a, UnaryOp::Log)?)?;
                        // a == 0 and b >= 0: the limit is 0, not nan
                        let zero = a
                            .binary_scalar(BinaryOp::Eq, f(0.0), false)?
                            .binary(BinaryOp::LogicalAnd, &b.binary_scalar(BinaryOp::Ge, f(0.0), false)?)?;
                        Tensor::where_(&zero, Arg::S(f(0.0)), Arg::T(&d))
                    });
                    (ga.transpose()?, gb.transpose()?)
                },
            }
            Maximum {
                name: "maximum", node: "MaximumBackward0", class: Arith, wgpu: (Some(7), Some(7)),
                py: [maximum maximum_], other: Tensor,
                cpu: |x, y| x.max_nan(y),
                grad: |g, a, b, _need| extremum_grads(g, &a()?, &b()?, true)?,
            }
            Minimum {
                name: "minimum", node: "MinimumBackward0", class: Arith, wgpu: (Some(8), Some(8)),
                py: [minimum minimum_], other: Tensor,
                cpu: |x, y| x.min_nan(y),
                grad: |g, a, b, _need| extremum_grads(g, &a()?, &b()?, false)?,
            }
            Atan2 {
                name: "atan2", node: "Atan2Backward0", class: Arith, wgpu: (Some(9), None),
                py: [atan2 atan2_, arctan2 arctan2_], other: Tensor,
                cpu: |x, y| atan2_elem(x, y),
                grad: |g, a, b, _need| {
                    let (a, b) = (a()?, b()?);
                    let den = mul(&a, &a)?.binary(BinaryOp::Add, &mul(&b, &b)?)?;
                    (Some(div(&mul(g, &b)?, &den)?), Some(un(&div(&mul(g, &a)?, &den)?, UnaryOp::Neg)?))
                },
            }
            // `hypot` and `copysign` are reached through their composite ops (`ops/composite.rs`),
            // which give PyTorch's nodes and dtypes; these are their one-pass CPU kernels.
            Hypot {
                name: "hypot", node: "HypotBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Tensor,
                cpu: |x, y| hypot_elem(x, y),
                grad: |g, a, b, need| {
                    // PyTorch's: g a / r and g b / r (NaN where both are 0).
                    let (a, b) = (a()?, b()?);
                    let r = a.binary(BinaryOp::Hypot, &b)?;
                    (need(0).then(|| div(&mul(g, &a)?, &r)).transpose()?, need(1).then(|| div(&mul(g, &b)?, &r)).transpose()?)
                },
            }
            Copysign {
                name: "copysign", node: "CopysignBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Tensor,
                cpu: |x, y| copysign_elem(x, y),
                grad: |g, a, b, need| {
                    // PyTorch's: g result / input, 0 where input is 0; `other` gets 0.
                    let ga = need(0)
                        .then(|| {
                            let a = a()?;
                            let ratio = div(&a.binary(BinaryOp::Copysign, &b()?)?, &a)?;
                            let zero = a.binary_scalar(BinaryOp::Eq, f(0.0), false)?;
                            mul(g, &Tensor::where_(&zero, Arg::S(f(0.0)), Arg::T(&ratio))?)
                        })
                        .transpose()?;
                    (ga, Some(muls(g, 0.0)?))
                },
            }
            Eq {
                name: "eq", node: "BinaryBackward0", class: Compare, wgpu: (Some(0), Some(0)),
                py: [eq eq_], other: Number,
                cpu: |x, y| x == y,
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            Ne {
                name: "ne", node: "BinaryBackward0", class: Compare, wgpu: (Some(1), Some(1)),
                py: [ne ne_, not_equal not_equal_], other: Number,
                cpu: |x, y| x != y,
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            Lt {
                name: "lt", node: "BinaryBackward0", class: Compare, wgpu: (Some(2), Some(2)),
                py: [lt lt_, less less_], other: Number,
                cpu: |x, y| x < y,
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            Le {
                name: "le", node: "BinaryBackward0", class: Compare, wgpu: (Some(3), Some(3)),
                py: [le le_, less_equal less_equal_], other: Number,
                cpu: |x, y| x <= y,
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            Gt {
                name: "gt", node: "BinaryBackward0", class: Compare, wgpu: (Some(4), Some(4)),
                py: [gt gt_, greater greater_], other: Number,
                cpu: |x, y| x > y,
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            Ge {
                name: "ge", node: "BinaryBackward0", class: Compare, wgpu: (Some(5), Some(5)),
                py: [ge ge_, greater_equal greater_equal_], other: Number,
                cpu: |x, y| x >= y,
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            LogicalAnd {
                name: "logical_and", node: "BinaryBackward0", class: Logical, wgpu: (Some(0), Some(0)),
                py: [logical_and logical_and_], other: Number,
                cpu: |x, y| x.is_nonzero() && y.is_nonzero(),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            LogicalOr {
                name: "logical_or", node: "BinaryBackward0", class: Logical, wgpu: (Some(1), Some(1)),
                py: [logical_or logical_or_], other: Number,
                cpu: |x, y| x.is_nonzero() || y.is_nonzero(),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            LogicalXor {
                name: "logical_xor", node: "BinaryBackward0", class: Logical, wgpu: (Some(2), Some(2)),
                py: [logical_xor logical_xor_], other: Number,
                cpu: |x, y| x.is_nonzero() != y.is_nonzero(),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            BitAnd {
                name: "bitwise_and", node: "BinaryBackward0", class: Bitwise, wgpu: (None, Some(11)),
                py: [bitwise_and bitwise_and_], other: Number,
                cpu: |x, y| T::from_i64(x.to_i64() & y.to_i64()),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            BitOr {
                name: "bitwise_or", node: "BinaryBackward0", class: Bitwise, wgpu: (None, Some(12)),
                py: [bitwise_or bitwise_or_], other: Number,
                cpu: |x, y| T::from_i64(x.to_i64() | y.to_i64()),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            BitXor {
                name: "bitwise_xor", node: "BinaryBackward0", class: Bitwise, wgpu: (None, Some(13)),
                py: [bitwise_xor bitwise_xor_], other: Number,
                cpu: |x, y| T::from_i64(x.to_i64() ^ y.to_i64()),
                grad: |g, _a, _b, _need| (Some(muls(g, 0.0)?), Some(muls(g, 0.0)?)),
            }
            // The special functions of two operands (kernels in `cpu/special_fns.rs`; no device
            // kernel). zeta and the polynomials are reached through their composite ops
            // (`ops/composite.rs`), which give PyTorch's nodes per overload; PyTorch does not
            // differentiate the polynomials, whose composites detach their operands.
            Zeta {
                name: "special_zeta", node: "SpecialZetaBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number,
                cpu: |x, y| T::from_f64(zeta64(x.to_f64(), y.to_f64())),
                grad: |g, a, b, need| {
                    if need(0) {
                        return Err(no_derivative("zeta"));
                    }
                    let a = a()?;
                    (None, Some(mul(g, &muls(&mul(&a, &adds(&a, 1.0)?.binary(BinaryOp::Zeta, &b()?)?)?, -1.0)?)?))
                },
            }
            Igamma {
                name: "igamma", node: "IgammaBackward0", class: Arith, wgpu: (None, None),
                py: [igamma igamma_], other: Tensor,
                cpu: |x, y| T::from_f64(igamma_for(x.to_f64(), y.to_f64(), T::DTYPE)),
                grad: |g, a, b, need| (igamma_input_grad(need)?, Some(mul(g, &igamma_density(&a()?, &b()?)?)?)),
            }
            Igammac {
                name: "igammac", node: "IgammacBackward0", class: Arith, wgpu: (None, None),
                py: [igammac igammac_], other: Tensor,
                cpu: |x, y| T::from_f64(igammac_for(x.to_f64(), y.to_f64(), T::DTYPE)),
                grad: |g, a, b, need| (igammac_input_grad(need)?, Some(muls(&mul(g, &igamma_density(&a()?, &b()?)?)?, -1.0)?)),
            }
            ChebyshevT {
                name: "special_chebyshev_polynomial_t", node: "SpecialChebyshevPolynomialTBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(chebyshev(0, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ChebyshevU {
                name: "special_chebyshev_polynomial_u", node: "SpecialChebyshevPolynomialUBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(chebyshev(1, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ChebyshevV {
                name: "special_chebyshev_polynomial_v", node: "SpecialChebyshevPolynomialVBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(chebyshev(2, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ChebyshevW {
                name: "special_chebyshev_polynomial_w", node: "SpecialChebyshevPolynomialWBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(chebyshev(3, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ShiftedChebyshevT {
                name: "special_shifted_chebyshev_polynomial_t", node: "SpecialShiftedChebyshevPolynomialTBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(shifted_chebyshev(0, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ShiftedChebyshevU {
                name: "special_shifted_chebyshev_polynomial_u", node: "SpecialShiftedChebyshevPolynomialUBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(shifted_chebyshev(1, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ShiftedChebyshevV {
                name: "special_shifted_chebyshev_polynomial_v", node: "SpecialShiftedChebyshevPolynomialVBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(shifted_chebyshev(2, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            ShiftedChebyshevW {
                name: "special_shifted_chebyshev_polynomial_w", node: "SpecialShiftedChebyshevPolynomialWBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(shifted_chebyshev(3, x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            HermiteH {
                name: "special_hermite_polynomial_h", node: "SpecialHermitePolynomialHBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(hermite_h(x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            HermiteHe {
                name: "special_hermite_polynomial_he", node: "SpecialHermitePolynomialHeBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(hermite_he(x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            LaguerreL {
                name: "special_laguerre_polynomial_l", node: "SpecialLaguerrePolynomialLBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(laguerre_l(x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            LegendreP {
                name: "special_legendre_polynomial_p", node: "SpecialLegendrePolynomialPBackward0", class: Arith, wgpu: (None, None),
                py: [], other: Number, cpu: |x, n| T::from_f64(legendre_p(x.to_f64(), n.to_f64())),
                grad: |_g, _a, _b, _need| (None, None),
            }
            /// `a` where `b > 0`, else 0: relu's gradient `g` masked by its output in one pass
            /// (`threshold_backward`; zero where the output is <= 0, so a NaN output passes it).
            ReluGrad {
                name: "threshold_backward", node: "ThresholdBackward0", class: Arith, wgpu: (Some(10), Some(10)),
                py: [], other: Number,
                cpu: |x, y| if y <= T::zero() { T::zero() } else { x },
                // relu's gradient masked again; the mask (relu's output) gets none.
                grad: |g, _a, b, _need| (Some(g.binary(BinaryOp::ReluGrad, &b()?)?), Some(muls(g, 0.0)?)),
            }
        }
    };
}
pub(crate) use binary_op_table;

/// What an op does with its operands' dtypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryClass {
    /// The result has the operands' promoted dtype.
    Arith,
    /// A bool result from comparing in the promoted dtype.
    Compare,
    /// Bool operands (truth values) and result.
    Logical,
    /// Integers and bools only.
    Bitwise,
}

/// Writes the enum and its facts.
macro_rules! define_binary_ops {
    ($($(#[$doc:meta])* $V:ident {
        name: $name:literal, node: $node:literal, class: $class:ident, wgpu: ($wf:expr, $wi:expr),
        py: [$($py:ident $py_inplace:ident),*], other: $other:ident,
        cpu: |$x:ident, $y:ident| $cpu:expr,
        grad: |$g:ident, $a:ident, $b:ident, $need:ident| $grad:expr,
    })*) => {
        /// An elementwise op of two operands.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BinaryOp {
            $($(#[$doc])* #[doc = concat!("`", $name, "`")] $V,)*
        }

        impl BinaryOp {
            /// PyTorch's name of the op, for errors.
            pub fn name(self) -> &'static str {
                match self {
                    $(BinaryOp::$V => $name,)*
                }
            }

            /// The `grad_fn` node of the op on two tensors.
            pub fn node_name(self) -> &'static str {
                match self {
                    $(BinaryOp::$V => $node,)*
                }
            }

            pub fn class(self) -> BinaryClass {
                match self {
                    $(BinaryOp::$V => BinaryClass::$class,)*
                }
            }

            /// The op codes of the device kernels, `(float, int)` (see the table's doc).
            #[cfg_attr(not(feature = "wgpu"), allow(dead_code))] // read by the wgpu backend and tests
            pub(crate) fn wgpu_codes(self) -> (Option<u32>, Option<u32>) {
                match self {
                    $(BinaryOp::$V => ($wf, $wi),)*
                }
            }
        }

        /// Every declared op.
        pub const DECLARED: &[BinaryOp] = &[$(BinaryOp::$V,)*];
    };
}

binary_op_table!(define_binary_ops);

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        self.class() == BinaryClass::Compare
    }

    pub fn is_logical(self) -> bool {
        self.class() == BinaryClass::Logical
    }

    /// Ops that always produce a floating result (integers are promoted to the default float).
    pub fn is_float_only(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Div | Atan2
                | Hypot
                | Copysign
                | Zeta
                | Igamma
                | Igammac
                | ChebyshevT
                | ChebyshevU
                | ChebyshevV
                | ChebyshevW
                | ShiftedChebyshevT
                | ShiftedChebyshevU
                | ShiftedChebyshevV
                | ShiftedChebyshevW
                | HermiteH
                | HermiteHe
                | LaguerreL
                | LegendreP
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_consistent() {
        let mut names: Vec<&str> = DECLARED.iter().map(|op| op.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DECLARED.len(), "an op is declared twice");
        // Arith and Bitwise ops share the float and int switches; Compare and Logical have their own.
        let codes_of = |classes: &[BinaryClass], int: bool| -> Vec<u32> {
            let pick = |op: &BinaryOp| if int { op.wgpu_codes().1 } else { op.wgpu_codes().0 };
            DECLARED.iter().filter(|op| classes.contains(&op.class())).filter_map(pick).collect()
        };
        let arith = [BinaryClass::Arith, BinaryClass::Bitwise];
        for codes in [
            codes_of(&arith, false),
            codes_of(&arith, true),
            codes_of(&[BinaryClass::Compare], false),
            codes_of(&[BinaryClass::Logical], false),
        ] {
            let mut unique = codes.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), codes.len(), "two ops share a device op code: {codes:?}");
        }
        assert!(DECLARED.iter().all(|op| op.node_name().ends_with("Backward0") || op.node_name().ends_with("Backward1")));
    }
}
