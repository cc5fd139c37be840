//! The pointwise unary ops, each declared once in `unary_op_table!` below.
//!
//! One entry of its `plain` part says everything about an op:
//!
//! - `name`: PyTorch's name (errors, profiling);
//! - `node`: its `grad_fn` node, `{node}Backward0`;
//! - `ints`: `true` if integer inputs keep their dtype (their kernel is `integer_unary` in `cpu/unary.rs`),
//!   `false` if they compute in the default float dtype;
//! - `reads`: which of (input, output) the gradient reads, so that only those are saved;
//! - `wgpu`: its op code in the `unary_op` switch of `shaders/elementwise_math.wgsl` (one source
//!   for float32 and float64), or `none` where the device has no kernel (the op then refuses a
//!   device tensor, as the ops of other backends without a kernel do);
//! - `py`: the names bound as `Tensor.X` and `torch.X` (empty: bound by hand elsewhere);
//! - `inplace`: those of `py` that also get `Tensor.X_`;
//! - `cpu`: the float32/float64 kernel of one element (`T`; longer kernels are functions in
//!   `cpu/vecmath.rs`, such as `VecMath::v_atanh`, vectorisable: no branches, no library calls);
//! - `grad`: the gradient in tensor ops, from the incoming gradient `g` and closures `x()` and
//!   `y()` that give the saved input and output.
//!
//! An op of the `with_params` part (the activations of `nn.functional`) also declares its
//! parameters, `Softplus { beta = 1.0, threshold = 20.0 }`: named f64 fields of its variant with
//! their Python defaults. Its kernel reads them (in the element type), as does its gradient (in
//! f64), and the shader gets the first two as `t_alpha()` and `t_beta()`. `ints` says what
//! integer inputs do: `[float]`, compute in the default float dtype, or `[|x| ...]`, that body in
//! tensor ops: keep their dtype (threshold, hardtanh) or refuse them as PyTorch's CPU kernel does
//! (`refuse_integers(x, "leaky_relu_cpu")?`). `py` is the one `Tensor` method
//! that takes the parameters as keywords (for `nn.functional`, hence mostly private); `in_place`
//! says what the node of its in-place form keeps, `input` (a copy of the values the input had, as
//! for every op) or `result` (PyTorch's rule for leaky_relu_ and the elu family), and the
//! gradient's fourth argument says that the node kept the result.
//!
//! The table holds tokens only (this file depends on nothing); each consumer expands what it
//! needs where it lives, with the names the tokens use in scope there. From it come the
//! `UnaryOp` enum and its `name`/`node_base`/`backward_reads`/`keeps_integers`/
//! `inplace_keeps_result`/`wgpu_kernel` (here), the CPU float kernels (`cpu/unary.rs`), the
//! gradients (`autograd/formulas.rs`), the integer forms (`tensor/unary.rs`), and the Python
//! bindings (`src/python/unary.rs`, which also exports the names to `rstorch/__init__.py` and
//! `_tensor.py`). pow with a number (a kernel per kind of exponent, and a float16 exception) and
//! logical_not/bitwise_not are written by hand in the enum below and in `cpu/unary.rs` and
//! `autograd/formulas.rs`. `FloatClass`, the classes of values isnan & co. mark, is declared at the
//! end, where the backends can name it.

/// Calls `$consumer! { entries }` with every declared op.
macro_rules! unary_op_table {
    ($consumer:ident) => {
        $consumer! {
            plain {
            Neg {
                name: "neg", node: "Neg", ints: true, reads: (false, false), wgpu: 1,
                py: [neg, negative], inplace: [neg, negative],
                cpu: |x| -x,
                grad: |g, _x, _y| un(g, UnaryOp::Neg)?,
            }
            Abs {
                name: "abs", node: "Abs", ints: true, reads: (true, false), wgpu: 2,
                py: [abs, absolute], inplace: [abs, absolute],
                cpu: |x| x.abs(),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::Sign)?)?,
            }
            Sign {
                name: "sign", node: "Sign", ints: true, reads: (false, false), wgpu: 3,
                py: [sign], inplace: [sign],
                cpu: |x| Arith::sign(x),
                grad: |g, _x, _y| muls(g, 0.0)?,
            }
            Relu {
                name: "relu", node: "Relu", ints: true, reads: (false, true), wgpu: 4,
                py: [relu], inplace: [relu],
                cpu: |x| if x > 0.0 || x != x { x } else { 0.0 },
                grad: |g, _x, y| g.binary(BinaryOp::ReluGrad, &y()?)?,
            }
            Floor {
                name: "floor", node: "Floor", ints: true, reads: (false, false), wgpu: 5,
                py: [floor], inplace: [floor],
                cpu: |x| x.floor(),
                grad: |g, _x, _y| muls(g, 0.0)?,
            }
            Ceil {
                name: "ceil", node: "Ceil", ints: true, reads: (false, false), wgpu: 6,
                py: [ceil], inplace: [ceil],
                cpu: |x| x.ceil(),
                grad: |g, _x, _y| muls(g, 0.0)?,
            }
            Round {
                // Bound by hand: `round(decimals=)`.
                name: "round", node: "Round", ints: true, reads: (false, false), wgpu: 7,
                py: [], inplace: [],
                cpu: |x| x.round_ties_even(),
                grad: |g, _x, _y| muls(g, 0.0)?,
            }
            Trunc {
                name: "trunc", node: "Trunc", ints: true, reads: (false, false), wgpu: 8,
                py: [trunc, fix], inplace: [trunc, fix],
                cpu: |x| x.trunc(),
                grad: |g, _x, _y| muls(g, 0.0)?,
            }
            Exp {
                name: "exp", node: "Exp", ints: false, reads: (false, true), wgpu: 9,
                py: [exp], inplace: [exp],
                cpu: |x| x.v_exp(),
                grad: |g, _x, y| mul(g, &y()?)?,
            }
            Exp2 {
                name: "exp2", node: "Exp2", ints: false, reads: (false, true), wgpu: 10,
                py: [exp2], inplace: [exp2],
                cpu: |x| x.v_exp2(),
                grad: |g, _x, y| muls(&mul(g, &y()?)?, std::f64::consts::LN_2)?,
            }
            Log {
                name: "log", node: "Log", ints: false, reads: (true, false), wgpu: 11,
                py: [log], inplace: [log],
                cpu: |x| x.v_log(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Reciprocal { scale: 1.0, shift: 0.0 })? { fused } else {
                    div(g, &x()?)?
                },
            }
            Log2 {
                name: "log2", node: "Log2", ints: false, reads: (true, false), wgpu: 12,
                py: [log2], inplace: [log2],
                cpu: |x| x.v_log2(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Reciprocal { scale: std::f64::consts::LN_2, shift: 0.0 })? { fused } else {
                    div(g, &muls(&x()?, std::f64::consts::LN_2)?)?
                },
            }
            Log10 {
                name: "log10", node: "Log10", ints: false, reads: (true, false), wgpu: 13,
                py: [log10], inplace: [log10],
                cpu: |x| x.v_log10(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Reciprocal { scale: std::f64::consts::LN_10, shift: 0.0 })? { fused } else {
                    div(g, &muls(&x()?, std::f64::consts::LN_10)?)?
                },
            }
            Log1p {
                name: "log1p", node: "Log1P", ints: false, reads: (true, false), wgpu: 14,
                py: [log1p], inplace: [log1p],
                cpu: |x| x.v_log1p(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Reciprocal { scale: 1.0, shift: 1.0 })? { fused } else {
                    div(g, &adds(&x()?, 1.0)?)?
                },
            }
            Expm1 {
                name: "expm1", node: "Expm1", ints: false, reads: (false, true), wgpu: 15,
                py: [expm1], inplace: [expm1],
                cpu: |x| x.v_expm1(),
                grad: |g, _x, y| mul(g, &adds(&y()?, 1.0)?)?,
            }
            Sqrt {
                name: "sqrt", node: "Sqrt", ints: false, reads: (false, true), wgpu: 16,
                py: [sqrt], inplace: [sqrt],
                cpu: |x| x.sqrt(),
                grad: |g, _x, y| div(g, &muls(&y()?, 2.0)?)?,
            }
            Rsqrt {
                name: "rsqrt", node: "Rsqrt", ints: false, reads: (false, true), wgpu: 17,
                py: [rsqrt], inplace: [rsqrt],
                cpu: |x| 1.0 / x.sqrt(),
                grad: |g, _x, y| {
                    let r = y()?;
                    muls(&mul(g, &mul(&r, &mul(&r, &r)?)?)?, -0.5)?
                },
            }
            Sin {
                name: "sin", node: "Sin", ints: false, reads: (true, false), wgpu: 18,
                py: [sin], inplace: [sin],
                cpu: |x| x.v_sin(),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::Cos)?)?,
            }
            Cos {
                name: "cos", node: "Cos", ints: false, reads: (true, false), wgpu: 19,
                py: [cos], inplace: [cos],
                cpu: |x| x.v_cos(),
                grad: |g, x, _y| un(&mul(g, &un(&x()?, UnaryOp::Sin)?)?, UnaryOp::Neg)?,
            }
            Tan {
                name: "tan", node: "Tan", ints: false, reads: (false, true), wgpu: 20,
                py: [tan], inplace: [tan],
                cpu: |x| x.v_tan(),
                grad: |g, _x, y| {
                    let t = y()?;
                    mul(g, &adds(&mul(&t, &t)?, 1.0)?)?
                },
            }
            Asin {
                name: "asin", node: "Asin", ints: false, reads: (true, false), wgpu: 21,
                py: [asin, arcsin], inplace: [asin, arcsin],
                cpu: |x| x.v_asin(),
                grad: |g, x, _y| div(g, &un(&one_minus(&mul(&x()?, &x()?)?)?, UnaryOp::Sqrt)?)?,
            }
            Acos {
                name: "acos", node: "Acos", ints: false, reads: (true, false), wgpu: 22,
                py: [acos, arccos], inplace: [acos, arccos],
                cpu: |x| x.v_acos(),
                grad: |g, x, _y| un(&div(g, &un(&one_minus(&mul(&x()?, &x()?)?)?, UnaryOp::Sqrt)?)?, UnaryOp::Neg)?,
            }
            Atan {
                name: "atan", node: "Atan", ints: false, reads: (true, false), wgpu: 23,
                py: [atan, arctan], inplace: [atan, arctan],
                cpu: |x| x.v_atan(),
                grad: |g, x, _y| div(g, &adds(&mul(&x()?, &x()?)?, 1.0)?)?,
            }
            Sinh {
                name: "sinh", node: "Sinh", ints: false, reads: (true, false), wgpu: 24,
                py: [sinh], inplace: [sinh],
                cpu: |x| x.v_sinh(),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::Cosh)?)?,
            }
            Cosh {
                name: "cosh", node: "Cosh", ints: false, reads: (true, false), wgpu: 25,
                py: [cosh], inplace: [cosh],
                cpu: |x| x.v_cosh(),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::Sinh)?)?,
            }
            Tanh {
                name: "tanh", node: "Tanh", ints: false, reads: (false, true), wgpu: 26,
                py: [tanh], inplace: [tanh],
                cpu: |x| x.v_tanh(),
                grad: |g, _x, y| if let Some(fused) = act_grad_fused(g, &y()?, ActGrad::Tanh)? { fused } else {
                    let t = y()?;
                    mul(g, &one_minus(&mul(&t, &t)?)?)?
                },
            }
            Sigmoid {
                name: "sigmoid", node: "Sigmoid", ints: false, reads: (false, true), wgpu: 27,
                py: [sigmoid], inplace: [sigmoid],
                cpu: |x| x.v_sigmoid(),
                grad: |g, _x, y| if let Some(fused) = act_grad_fused(g, &y()?, ActGrad::Sigmoid)? { fused } else {
                    let s = y()?;
                    mul(g, &mul(&s, &one_minus(&s)?)?)?
                },
            }
            Gelu {
                // Bound by `nn.functional.gelu`, as is the tanh approximation below.
                name: "gelu", node: "Gelu", ints: false, reads: (true, false), wgpu: 28,
                py: [], inplace: [],
                cpu: |x| x.v_gelu(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Gelu { tanh: false })? { fused } else {
                    let pi = std::f64::consts::PI;
                    let cdf = muls(&adds(&un(&muls(&x()?, std::f64::consts::FRAC_1_SQRT_2)?, UnaryOp::Erf)?, 1.0)?, 0.5)?;
                    let pdf = muls(&un(&muls(&mul(&x()?, &x()?)?, -0.5)?, UnaryOp::Exp)?, 1.0 / (2.0 * pi).sqrt())?;
                    mul(g, &cdf.binary(BinaryOp::Add, &mul(&x()?, &pdf)?)?)?
                },
            }
            GeluTanh {
                name: "gelu", node: "Gelu", ints: false, reads: (true, false), wgpu: 29,
                py: [], inplace: [],
                cpu: |x| x.v_gelu_tanh(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Gelu { tanh: true })? { fused } else {
                    let k = (2.0 / std::f64::consts::PI).sqrt();
                    let x2 = mul(&x()?, &x()?)?;
                    let inner = muls(&x()?.binary(BinaryOp::Add, &muls(&mul(&x2, &x()?)?, 0.044715)?)?, k)?;
                    let t = un(&inner, UnaryOp::Tanh)?;
                    let left = muls(&adds(&t, 1.0)?, 0.5)?;
                    let sech2 = one_minus(&mul(&t, &t)?)?;
                    let dinner = muls(&adds(&muls(&x2, 3.0 * 0.044715)?, 1.0)?, k)?;
                    let right = muls(&mul(&mul(&x()?, &sech2)?, &dinner)?, 0.5)?;
                    mul(g, &left.binary(BinaryOp::Add, &right)?)?
                },
            }
            Silu {
                // Bound by hand: PyTorch has `Tensor.silu` only through `nn.functional`.
                name: "silu", node: "Silu", ints: false, reads: (true, false), wgpu: 30,
                py: [], inplace: [],
                cpu: |x| x.v_silu(),
                grad: |g, x, _y| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Silu)? { fused } else {
                    let s = un(&x()?, UnaryOp::Sigmoid)?;
                    let d = mul(&s, &adds(&mul(&x()?, &one_minus(&s)?)?, 1.0)?)?;
                    mul(g, &d)?
                },
            }
            Erf {
                name: "erf", node: "Erf", ints: false, reads: (true, false), wgpu: 31,
                py: [erf], inplace: [erf],
                cpu: |x| x.v_erf(),
                grad: |g, x, _y| {
                    let e = un(&un(&mul(&x()?, &x()?)?, UnaryOp::Neg)?, UnaryOp::Exp)?;
                    muls(&mul(g, &e)?, 2.0 / std::f64::consts::PI.sqrt())?
                },
            }
            Reciprocal {
                name: "reciprocal", node: "Reciprocal", ints: false, reads: (false, true), wgpu: 32,
                py: [reciprocal], inplace: [reciprocal],
                cpu: |x| 1.0 / x,
                grad: |g, _x, y| {
                    let r = y()?;
                    un(&mul(g, &mul(&r, &r)?)?, UnaryOp::Neg)?
                },
            }
            Asinh {
                name: "asinh", node: "Asinh", ints: false, reads: (true, false), wgpu: 37,
                py: [asinh, arcsinh], inplace: [asinh, arcsinh],
                cpu: |x| x.v_asinh(),
                grad: |g, x, _y| mul(g, &un(&adds(&mul(&x()?, &x()?)?, 1.0)?, UnaryOp::Rsqrt)?)?,
            }
            Acosh {
                name: "acosh", node: "Acosh", ints: false, reads: (true, false), wgpu: 38,
                py: [acosh, arccosh], inplace: [acosh, arccosh],
                cpu: |x| x.v_acosh(),
                grad: |g, x, _y| mul(g, &un(&adds(&mul(&x()?, &x()?)?, -1.0)?, UnaryOp::Rsqrt)?)?,
            }
            Atanh {
                name: "atanh", node: "Atanh", ints: false, reads: (true, false), wgpu: 39,
                py: [atanh, arctanh], inplace: [atanh, arctanh],
                cpu: |x| x.v_atanh(),
                grad: |g, x, _y| div(g, &one_minus(&mul(&x()?, &x()?)?)?)?,
            }
            Erfc {
                name: "erfc", node: "Erfc", ints: false, reads: (true, false), wgpu: 48,
                py: [erfc], inplace: [erfc],
                cpu: |x| x.v_erfc(),
                grad: |g, x, _y| {
                    let e = un(&un(&mul(&x()?, &x()?)?, UnaryOp::Neg)?, UnaryOp::Exp)?;
                    muls(&mul(g, &e)?, -2.0 / std::f64::consts::PI.sqrt())?
                },
            }
            Erfinv {
                name: "erfinv", node: "Erfinv", ints: false, reads: (false, true), wgpu: 49,
                py: [erfinv], inplace: [erfinv],
                cpu: |x| erfinv_elem(x),
                grad: |g, _y, y| {
                    let y = y()?;
                    muls(&mul(g, &un(&mul(&y, &y)?, UnaryOp::Exp)?)?, std::f64::consts::PI.sqrt() / 2.0)?
                },
            }
            Lgamma {
                name: "lgamma", node: "Lgamma", ints: false, reads: (true, false), wgpu: 50,
                py: [lgamma], inplace: [lgamma],
                cpu: |x| lgamma_elem(x),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::Digamma)?)?,
            }
            Digamma {
                name: "digamma", node: "Digamma", ints: false, reads: (true, false), wgpu: 51,
                py: [digamma], inplace: [digamma],
                cpu: |x| digamma_elem(x),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::Polygamma { n: 1.0 })?)?,
            }
            I0 {
                name: "i0", node: "I0", ints: false, reads: (true, false), wgpu: 52,
                py: [i0], inplace: [i0],
                cpu: |x| i0_elem(x),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::I1)?)?,
            }
            I1 {
                // `torch.special.i1` (rstorch/special.py), and i0's derivative. I1' = I0 - I1 / x, 1/2 at 0.
                name: "special_i1", node: "SpecialI1", ints: false, reads: (true, false), wgpu: 53,
                py: [_special_i1], inplace: [],
                cpu: |x| i1_elem(x),
                grad: |g, x, _y| {
                    let x = x()?;
                    let zero = cmps(&x, BinaryOp::Eq, 0.0)?;
                    let safe = Tensor::where_(&zero, Arg::S(f(1.0)), Arg::T(&x))?;
                    let d = un(&safe, UnaryOp::I0)?.binary(BinaryOp::Sub, &div(&un(&safe, UnaryOp::I1)?, &safe)?)?;
                    mul(g, &Tensor::where_(&zero, Arg::S(f(0.5)), Arg::T(&d))?)?
                },
            }
            Sinc {
                // sin(πx) / (πx) with πx rounded to the element type, as PyTorch computes it.
                name: "sinc", node: "Sinc", ints: false, reads: (true, false), wgpu: 54,
                py: [sinc], inplace: [sinc],
                cpu: |x| if x == 0.0 { 1.0 } else { let p = T::from_f64(std::f64::consts::PI) * x; p.sin() / p },
                grad: |g, x, _y| {
                    // (πx cos(πx) - sin(πx)) / (πx²), computed on 1 at 0 so that no NaN reaches the
                    // gradient through the unselected branch; there its series' first term,
                    // -π²x/3, whose own derivative is the second derivative at 0.
                    let x = x()?;
                    let zero = cmps(&x, BinaryOp::Eq, 0.0)?;
                    let safe = Tensor::where_(&zero, Arg::S(f(1.0)), Arg::T(&x))?;
                    let p = muls(&safe, std::f64::consts::PI)?;
                    let num = mul(&p, &un(&p, UnaryOp::Cos)?)?.binary(BinaryOp::Sub, &un(&p, UnaryOp::Sin)?)?;
                    let d = div(&num, &mul(&p, &safe)?)?;
                    let near = muls(&x, -std::f64::consts::PI * std::f64::consts::PI / 3.0)?;
                    mul(g, &Tensor::where_(&zero, Arg::T(&near), Arg::T(&d))?)?
                },
            }
            Deg2Rad {
                name: "deg2rad", node: "Deg2Rad", ints: false, reads: (false, false), wgpu: 55,
                py: [deg2rad], inplace: [deg2rad],
                cpu: |x| x * T::from_f64(std::f64::consts::PI / 180.0),
                grad: |g, _x, _y| muls(g, std::f64::consts::PI / 180.0)?,
            }
            Rad2Deg {
                name: "rad2deg", node: "Rad2Deg", ints: false, reads: (false, false), wgpu: 56,
                py: [rad2deg], inplace: [rad2deg],
                cpu: |x| x * T::from_f64(180.0 / std::f64::consts::PI),
                grad: |g, _x, _y| muls(g, 180.0 / std::f64::consts::PI)?,
            }
            // The functions of `torch.special` alone (bound privately, `rstorch/special.py` names
            // them), with kernels in `cpu/bessel.rs` and `cpu/special_fns.rs` and no device kernel
            // (`wgpu: none`). Those PyTorch does not differentiate (the scaled K, spherical j0,
            // Airy's Ai) are detached by their Python functions; a Rust caller gets PyTorch's error.
            I0e {
                name: "special_i0e", node: "SpecialI0E", ints: false, reads: (true, true), wgpu: none,
                py: [_special_i0e], inplace: [], cpu: |x| i0e_elem(x),
                grad: |g, x, y| mul(g, &un(&x()?, UnaryOp::I1e)?.binary(BinaryOp::Sub, &mul(&un(&x()?, UnaryOp::Sign)?, &y()?)?)?)?,
            }
            I1e {
                // I1e' = I0e - I1e (sgn x + 1/x), 1/2 at 0.
                name: "special_i1e", node: "SpecialI1E", ints: false, reads: (true, false), wgpu: none,
                py: [_special_i1e], inplace: [], cpu: |x| i1e_elem(x),
                grad: |g, x, _y| {
                    let x = x()?;
                    let s = mul(&un(&x, UnaryOp::Sign)?, &un(&x, UnaryOp::I1e)?)?;
                    order_one_grad(g, &x, UnaryOp::I0e, UnaryOp::I1e, 1.0, Some(0.5))?.binary(BinaryOp::Sub, &mul(g, &s)?)?
                },
            }
            Ndtri {
                name: "special_ndtri", node: "SpecialNdtri", ints: false, reads: (false, true), wgpu: none,
                py: [_special_ndtri], inplace: [], cpu: |x| ndtri_elem(x),
                grad: |g, _x, y| {
                    let y = y()?;
                    muls(&mul(g, &un(&muls(&mul(&y, &y)?, 0.5)?, UnaryOp::Exp)?)?, (2.0 * std::f64::consts::PI).sqrt())?
                },
            }
            LogNdtr {
                // φ(x) / Φ(x) = exp(-x²/2 - log Φ(x)) / √(2π).
                name: "special_log_ndtr", node: "SpecialLogNdtr", ints: false, reads: (true, true), wgpu: none,
                py: [_special_log_ndtr], inplace: [], cpu: |x| log_ndtr_elem(x),
                grad: |g, x, y| {
                    let x = x()?;
                    let e = muls(&mul(&x, &x)?, -0.5)?.binary(BinaryOp::Sub, &y()?)?;
                    muls(&mul(g, &un(&e, UnaryOp::Exp)?)?, 1.0 / (2.0 * std::f64::consts::PI).sqrt())?
                },
            }
            Erfcx {
                name: "special_erfcx", node: "SpecialErfcx", ints: false, reads: (true, true), wgpu: none,
                py: [_special_erfcx], inplace: [], cpu: |x| erfcx_elem(x),
                grad: |g, x, y| mul(g, &adds(&muls(&mul(&x()?, &y()?)?, 2.0)?, -2.0 / std::f64::consts::PI.sqrt())?)?,
            }
            BesselJ0 {
                name: "special_bessel_j0", node: "SpecialBesselJ0", ints: false, reads: (true, false), wgpu: none,
                py: [_special_bessel_j0], inplace: [], cpu: |x| j0_elem(x),
                grad: |g, x, _y| un(&mul(g, &un(&x()?, UnaryOp::BesselJ1)?)?, UnaryOp::Neg)?,
            }
            BesselJ1 {
                name: "special_bessel_j1", node: "SpecialBesselJ1", ints: false, reads: (true, false), wgpu: none,
                py: [_special_bessel_j1], inplace: [], cpu: |x| j1_elem(x),
                grad: |g, x, _y| order_one_grad(g, &x()?, UnaryOp::BesselJ0, UnaryOp::BesselJ1, 1.0, Some(0.5))?,
            }
            BesselY0 {
                name: "special_bessel_y0", node: "SpecialBesselY0", ints: false, reads: (true, false), wgpu: none,
                py: [_special_bessel_y0], inplace: [], cpu: |x| y0_elem(x),
                grad: |g, x, _y| un(&mul(g, &un(&x()?, UnaryOp::BesselY1)?)?, UnaryOp::Neg)?,
            }
            BesselY1 {
                name: "special_bessel_y1", node: "SpecialBesselY1", ints: false, reads: (true, false), wgpu: none,
                py: [_special_bessel_y1], inplace: [], cpu: |x| y1_elem(x),
                grad: |g, x, _y| order_one_grad(g, &x()?, UnaryOp::BesselY0, UnaryOp::BesselY1, 1.0, None)?,
            }
            ModifiedBesselI0 {
                name: "special_modified_bessel_i0", node: "SpecialModifiedBesselI0", ints: false, reads: (true, false), wgpu: none,
                py: [_special_modified_bessel_i0], inplace: [], cpu: |x| i0_elem(x),
                grad: |g, x, _y| mul(g, &un(&x()?, UnaryOp::ModifiedBesselI1)?)?,
            }
            ModifiedBesselI1 {
                name: "special_modified_bessel_i1", node: "SpecialModifiedBesselI1", ints: false, reads: (true, false), wgpu: none,
                py: [_special_modified_bessel_i1], inplace: [], cpu: |x| i1_elem(x),
                grad: |g, x, _y| order_one_grad(g, &x()?, UnaryOp::ModifiedBesselI0, UnaryOp::ModifiedBesselI1, 1.0, Some(0.5))?,
            }
            ModifiedBesselK0 {
                name: "special_modified_bessel_k0", node: "SpecialModifiedBesselK0", ints: false, reads: (true, false), wgpu: none,
                py: [_special_modified_bessel_k0], inplace: [], cpu: |x| k0_elem(x),
                grad: |g, x, _y| un(&mul(g, &un(&x()?, UnaryOp::ModifiedBesselK1)?)?, UnaryOp::Neg)?,
            }
            ModifiedBesselK1 {
                name: "special_modified_bessel_k1", node: "SpecialModifiedBesselK1", ints: false, reads: (true, false), wgpu: none,
                py: [_special_modified_bessel_k1], inplace: [], cpu: |x| k1_elem(x),
                grad: |g, x, _y| order_one_grad(g, &x()?, UnaryOp::ModifiedBesselK0, UnaryOp::ModifiedBesselK1, -1.0, None)?,
            }
            ScaledModifiedBesselK0 {
                name: "special_scaled_modified_bessel_k0", node: "SpecialScaledModifiedBesselK0", ints: false, reads: (false, false),
                wgpu: none, py: [_special_scaled_modified_bessel_k0], inplace: [], cpu: |x| k0e_elem(x),
                grad: |_g, _x, _y| return Err(no_derivative("special_scaled_modified_bessel_k0")),
            }
            ScaledModifiedBesselK1 {
                name: "special_scaled_modified_bessel_k1", node: "SpecialScaledModifiedBesselK1", ints: false, reads: (false, false),
                wgpu: none, py: [_special_scaled_modified_bessel_k1], inplace: [], cpu: |x| k1e_elem(x),
                grad: |_g, _x, _y| return Err(no_derivative("special_scaled_modified_bessel_k1")),
            }
            SphericalBesselJ0 {
                name: "special_spherical_bessel_j0", node: "SpecialSphericalBesselJ0", ints: false, reads: (false, false),
                wgpu: none, py: [_special_spherical_bessel_j0], inplace: [], cpu: |x| T::from_f64(spherical_j0(x.to_f64())),
                grad: |_g, _x, _y| return Err(no_derivative("special_spherical_bessel_j0")),
            }
            AiryAi {
                name: "special_airy_ai", node: "SpecialAiryAi", ints: false, reads: (false, false), wgpu: none,
                py: [_special_airy_ai], inplace: [], cpu: |x| airy_ai_elem(x),
                grad: |_g, _x, _y| return Err(no_derivative("special_airy_ai")),
            }
            }
            with_params {
            Polygamma { n = 1.0 } {
                // Bound as `torch.polygamma(n, input)` and `Tensor.polygamma(n)` (rstorch/_tensorfns.py).
                name: "polygamma", node: "Polygamma", reads: (true, false), wgpu: 57,
                py: _polygamma, in_place: input,
                ints: [float],
                cpu: |x| T::from_f64(polygamma64(n.to_f64(), x.to_f64())),
                grad: |g, x, _y, _from_result| mul(g, &un(&x()?, UnaryOp::Polygamma { n: n + 1.0 })?)?,
            }
            Softplus { beta = 1.0, threshold = 20.0 } {
                name: "softplus", node: "Softplus", reads: (true, false), wgpu: 33,
                py: softplus, in_place: input,
                ints: [|x| refuse_integers(x, "softplus_cpu")?],
                cpu: |x| if x * beta > threshold { x } else { (x * beta).v_log1p_exp() / beta },
                grad: |g, x, _y, _from_result| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::Softplus { beta, threshold })? { fused } else {
                    let bx = muls(&x()?, beta)?;
                    let linear = cmps(&bx, BinaryOp::Gt, threshold)?;
                    mul(g, &Tensor::where_(&linear, Arg::S(f(1.0)), Arg::T(&un(&bx, UnaryOp::Sigmoid)?))?)?
                },
            }
            LeakyRelu { slope = 0.01 } {
                name: "leaky_relu", node: "LeakyRelu", reads: (true, false), wgpu: 34,
                py: _leaky_relu, in_place: result,
                ints: [|x| refuse_integers(x, "leaky_relu_cpu")?],
                cpu: |x| if x > 0.0 { x } else { x * slope },
                grad: |g, x, y, from_result| {
                    // The result is positive exactly where the input was.
                    if from_result && slope < 0.0 {
                        return Err(in_place_negative_slope("leakyReLu"));
                    }
                    let v = if from_result { y()? } else { x()? };
                    if let Some(fused) = act_grad_fused(g, &v, ActGrad::LeakyRelu { slope })? {
                        return Ok(fused);
                    }
                    let pos = cmps(&v, BinaryOp::Gt, 0.0)?;
                    Tensor::where_(&pos, Arg::T(g), Arg::T(&muls(g, slope)?))?
                },
            }
            Elu { alpha = 1.0 } {
                name: "elu", node: "Elu", reads: (true, false), wgpu: 35,
                py: _elu, in_place: result,
                ints: [|x| refuse_integers(x, "elu_cpu")?],
                cpu: |x| if x > 0.0 { x } else { alpha * x.v_expm1() },
                grad: |g, x, y, from_result| elu_family_grad(g, x, y, from_result, alpha, 1.0, 1.0)?,
            }
            Celu { alpha = 1.0 } {
                // PyTorch's elu with input_scale 1 / alpha.
                name: "celu", node: "Celu", reads: (true, false), wgpu: 45,
                py: _celu, in_place: result,
                ints: [|x| refuse_integers(x, "elu_cpu")?],
                cpu: |x| if x > 0.0 { x } else { (x * (1.0 / alpha)).v_expm1() * alpha },
                grad: |g, x, y, from_result| elu_family_grad(g, x, y, from_result, alpha, 1.0, 1.0 / alpha)?,
            }
            Selu {} {
                // PyTorch's elu with fixed alpha and scale, under elu's node.
                name: "selu", node: "Elu", reads: (true, false), wgpu: 46,
                py: _selu, in_place: result,
                ints: [|x| refuse_integers(x, "elu_cpu")?],
                cpu: |x| if x > 0.0 { x * SELU_SCALE as T } else { x.v_expm1() * ((SELU_ALPHA as T) * (SELU_SCALE as T)) },
                grad: |g, x, y, from_result| elu_family_grad(g, x, y, from_result, SELU_ALPHA, SELU_SCALE, 1.0)?,
            }
            Threshold { threshold = 0.0, value = 0.0 } {
                // A NaN is not below the threshold: kept, and so is its gradient.
                name: "threshold", node: "Threshold", reads: (true, false), wgpu: 40,
                py: _threshold, in_place: input,
                // Integers keep their dtype, the parameters truncated to it (PyTorch's cast).
                ints: [|x| {
                    refuse_bool(x, "\"threshold_cpu\" not implemented for 'Bool'")?;
                    let below = x.binary_scalar(BinaryOp::Le, Scalar::Int(threshold as i64), false)?;
                    Tensor::where_(&below, Arg::S(Scalar::Int(value as i64)), Arg::T(x))?
                }],
                cpu: |x| if x <= threshold { value } else { x },
                grad: |g, x, _y, _from_result| Tensor::where_(&cmps(&x()?, BinaryOp::Le, threshold)?, Arg::S(f(0.0)), Arg::T(g))?,
            }
            Hardtanh { min_val = -1.0, max_val = 1.0 } {
                // A value at a bound is kept (relu6(-0.0) is -0.0); the gradient passes strictly
                // inside the bounds, and at NaN (unlike clamp's).
                name: "hardtanh", node: "Hardtanh", reads: (true, false), wgpu: 41,
                py: _hardtanh, in_place: input,
                ints: [|x| {
                    refuse_bool(x, "Bool inputs not supported for hardtanh")?;
                    x.clamp_scalar(Some(Scalar::Int(min_val as i64)), Some(Scalar::Int(max_val as i64)))?
                }],
                // Not `if x < min { min } else if x > max { max } else { x }`: LLVM turned that
                // choice between two loaded bounds into a load through a chosen pointer, a
                // gather once vectorised (4x slower than clamp on AMD Zen 4).
                cpu: |x| {
                    let below_max = if x > max_val { max_val } else { x };
                    if x < min_val { min_val } else { below_max }
                },
                grad: |g, x, _y, _from_result| {
                    let x = x()?;
                    let bounds = ActGrad::Bounded { lo: Some(min_val), hi: Some(max_val), nan_inside: true };
                    if let Some(fused) = act_grad_fused(g, &x, bounds)? {
                        fused
                    } else {
                        let outside = cmps(&x, BinaryOp::Le, min_val)?.binary(BinaryOp::LogicalOr, &cmps(&x, BinaryOp::Ge, max_val)?)?;
                        Tensor::where_(&outside, Arg::S(f(0.0)), Arg::T(g))?
                    }
                },
            }
            Hardsigmoid {} {
                // `clamp(x + 3, 0, 6) / 6`; the gradient stops at NaN and at ±3.
                name: "hardsigmoid", node: "Hardsigmoid", reads: (true, false), wgpu: 42,
                py: _hardsigmoid, in_place: input,
                ints: [|x| refuse_integers(x, "hardsigmoid_cpu")?],
                cpu: |x| relu6(x + 3.0) / 6.0,
                grad: |g, x, _y, _from_result| {
                    let x = x()?;
                    if let Some(fused) = act_grad_fused(g, &x, ActGrad::Hardsigmoid)? {
                        return Ok(fused);
                    }
                    let inside = cmps(&x, BinaryOp::Gt, -3.0)?.binary(BinaryOp::LogicalAnd, &cmps(&x, BinaryOp::Lt, 3.0)?)?;
                    Tensor::where_(&inside, Arg::T(&muls(g, 1.0 / 6.0)?), Arg::S(f(0.0)))?
                },
            }
            Hardswish {} {
                // `x * clamp(x + 3, 0, 6) / 6` as written, so -inf gives NaN (-inf * 0) as in
                // PyTorch; the gradient passes whole from 3 up and at NaN.
                name: "hardswish", node: "Hardswish", reads: (true, false), wgpu: 43,
                py: _hardswish, in_place: input,
                ints: [|x| refuse_integers(x, "hardswish_cpu")?],
                cpu: |x| x * relu6(x + 3.0) / 6.0,
                grad: |g, x, _y, _from_result| {
                    let x = x()?;
                    if let Some(fused) = act_grad_fused(g, &x, ActGrad::Hardswish)? {
                        return Ok(fused);
                    }
                    let mid = mul(g, &adds(&x.binary_scalar(BinaryOp::Div, f(3.0), false)?, 0.5)?)?;
                    let upper = Tensor::where_(&cmps(&x, BinaryOp::Lt, 3.0)?, Arg::T(&mid), Arg::T(g))?;
                    Tensor::where_(&cmps(&x, BinaryOp::Le, -3.0)?, Arg::S(f(0.0)), Arg::T(&upper))?
                },
            }
            Mish {} {
                // `x * tanh(log1p(exp(x)))`, with no softplus threshold: -inf gives NaN.
                name: "mish", node: "Mish", reads: (true, false), wgpu: 44,
                py: _mish, in_place: input,
                ints: [|x| refuse_integers(x, "mish_cpu")?],
                cpu: |x| x.v_mish(),
                grad: |g, x, _y, _from_result| {
                    let x = x()?;
                    let t = un(&un(&un(&x, UnaryOp::Exp)?, UnaryOp::Log1p)?, UnaryOp::Tanh)?;
                    let s = un(&x, UnaryOp::Sigmoid)?;
                    mul(g, &t.binary(BinaryOp::Add, &mul(&mul(&x, &s)?, &one_minus(&mul(&t, &t)?)?)?)?)?
                },
            }
            LogSigmoid {} {
                // `min(x, 0) - log1p(exp(-|x|))`: no overflow either way.
                name: "log_sigmoid", node: "LogSigmoid", reads: (true, false), wgpu: 47,
                py: _logsigmoid, in_place: input,
                ints: [|x| refuse_integers(x, "log_sigmoid_cpu")?],
                cpu: |x| x.v_log_sigmoid(),
                grad: |g, x, _y, _from_result| if let Some(fused) = act_grad_fused(g, &x()?, ActGrad::LogSigmoid)? { fused } else {
                    mul(g, &un(&un(&x()?, UnaryOp::Neg)?, UnaryOp::Sigmoid)?)?
                },
            }
            }
        }
    };
}
#[allow(unused_imports)] // used by the Python bindings (feature `python`)
pub(crate) use unary_op_table;

/// selu's fixed alpha and scale (its kernel's and its gradient's).
pub const SELU_ALPHA: f64 = 1.6732632423543772;
pub const SELU_SCALE: f64 = 1.0507009873554805;

/// Whether an `in_place:` rule keeps the result (see `UnaryOp::inplace_keeps_result`).
macro_rules! keeps_result {
    (result) => {
        true
    };
    (input) => {
        false
    };
}

/// A declared op's device code: `none` for the ops with no device kernel.
macro_rules! device_code {
    (none) => {
        None
    };
    ($code:literal) => {
        Some(($code, 0.0, 0.0))
    };
}

/// Writes the enum and its facts (the kernels, gradients and integer forms are expanded where
/// they live).
macro_rules! define_unary_ops {
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
        /// A pointwise function of one tensor.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum UnaryOp {
            $(#[doc = concat!("`", $name, "`")] $V,)*
            $(#[doc = concat!("`", $pname, "`")] $PV { $($p: f64),* },)*
            /// `logical_not` (bool result; not differentiable).
            LogicalNot,
            /// `bitwise_not` (integers and bool; not differentiable).
            BitwiseNot,
            /// `x ** exponent` for a Python-number exponent.
            PowScalar(f64),
        }

        // The shader passes at most two parameters (`t_alpha`, `t_beta`).
        $(const _: () = assert!(<[&str]>::len(&[$(stringify!($p)),*]) <= 2, concat!($pname, " has more parameters than a shader takes"));)*

        impl UnaryOp {
            /// PyTorch's name of the op, for errors.
            pub fn name(self) -> &'static str {
                match self {
                    $(UnaryOp::$V => $name,)*
                    $(UnaryOp::$PV { .. } => $pname,)*
                    UnaryOp::LogicalNot => "logical_not",
                    UnaryOp::BitwiseNot => "bitwise_not",
                    UnaryOp::PowScalar(_) => "pow",
                }
            }

            /// The `grad_fn` node's name without its `Backward0` suffix.
            pub fn node_base(self) -> &'static str {
                match self {
                    $(UnaryOp::$V => $node,)*
                    $(UnaryOp::$PV { .. } => $pnode,)*
                    UnaryOp::PowScalar(_) => "Pow",
                    UnaryOp::LogicalNot | UnaryOp::BitwiseNot => "NotImplemented",
                }
            }

            /// Which of (input, output) the backward formula reads, so that only those are
            /// saved: an op that needs its output alone keeps working when its input is
            /// overwritten in place.
            pub(crate) fn backward_reads(self) -> (bool, bool) {
                match self {
                    $(UnaryOp::$V => ($ri, $ro),)*
                    $(UnaryOp::$PV { .. } => ($pri, $pro),)*
                    UnaryOp::LogicalNot | UnaryOp::BitwiseNot => (false, false),
                    UnaryOp::PowScalar(_) => (true, false),
                }
            }

            /// Ops whose in-place form keeps its result rather than its input, the gradient then
            /// reading the result (PyTorch's rule for `leaky_relu_` and the elu family, whose
            /// negative slopes it then refuses in backward).
            pub(crate) fn inplace_keeps_result(self) -> bool {
                match self {
                    $(UnaryOp::$PV { .. } => keeps_result!($keeps),)*
                    _ => false,
                }
            }

            /// Ops that keep integer dtypes (everything else computes in floating point).
            pub(crate) fn keeps_integers(self) -> bool {
                match self {
                    $(UnaryOp::$V => $ints,)*
                    UnaryOp::BitwiseNot => true,
                    _ => false,
                }
            }

            /// The op code of a declared op in the float shaders' `unary_op` switch, and its
            /// parameters in declaration order (as `t_alpha`, `t_beta`; zero where unused).
            #[cfg_attr(not(feature = "wgpu"), allow(dead_code))] // read by the wgpu backend and tests
            pub(crate) fn wgpu_kernel(self) -> Option<(u32, f64, f64)> {
                match self {
                    $(UnaryOp::$V => device_code!($code),)*
                    $(UnaryOp::$PV { $($p),* } => {
                        let params: &[f64] = &[$($p),*];
                        Some(($pcode, params.first().copied().unwrap_or(0.0), params.get(1).copied().unwrap_or(0.0)))
                    })*
                    _ => None,
                }
            }
        }

        impl UnaryOp {
            /// The declared op with parameters bound as `Tensor.<py>` (`"_leaky_relu"`), its
            /// parameters in declaration order; None for another name or count.
            pub fn with_params(py: &str, params: &[f64]) -> Option<UnaryOp> {
                match py {
                    $(stringify!($ppy) => {
                        #[allow(unused_mut, unused_variables)]
                        let mut values = params.iter().copied();
                        let op = UnaryOp::$PV { $($p: values.next()?),* };
                        values.next().is_none().then_some(op)
                    })*
                    _ => None,
                }
            }
        }

        /// Every declared op without parameters.
        pub const DECLARED: &[UnaryOp] = &[$(UnaryOp::$V,)*];
        /// Every declared op with parameters, at their Python defaults.
        #[allow(dead_code)] // read by tests
        pub const DECLARED_WITH_PARAMS: &[UnaryOp] = &[$(UnaryOp::$PV { $($p: $default),* },)*];

        /// The declared ops' names bound as `Tensor.X` and `torch.X`.
        pub const PY_METHODS: &[&str] = &[$($(stringify!($py),)*)*];
        /// The declared ops' names that also get `Tensor.X_`.
        pub const PY_IN_PLACE: &[&str] = &[$($(stringify!($ip),)*)*];
        /// The op of each name of `PY_IN_PLACE`, at the same index.
        pub const PY_IN_PLACE_OPS: &[UnaryOp] = &[$($({ let _ = stringify!($ip); UnaryOp::$V },)*)*];
    };
}

unary_op_table!(define_unary_ops);

/// The classes of floating-point values `isnan`, `isinf`, `isposinf`, `isneginf` and
/// `isfinite` mark (`Tensor::classify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatClass {
    Nan,
    Inf,
    PosInf,
    NegInf,
    Finite,
}

impl FloatClass {
    /// Whether `x` is of this class (every float dtype widens to float64 exactly).
    pub fn test(self, x: f64) -> bool {
        match self {
            FloatClass::Nan => x.is_nan(),
            FloatClass::Inf => x.is_infinite(),
            FloatClass::PosInf => x == f64::INFINITY,
            FloatClass::NegInf => x == f64::NEG_INFINITY,
            FloatClass::Finite => x.is_finite(),
        }
    }
}

// Kept in their own file to hold this one under the size of the others.
#[cfg(test)]
#[path = "unary_tests.rs"]
mod tests;
