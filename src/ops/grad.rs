//! Small tensor-op helpers for writing gradient formulas.

pub use crate::cpu::act_grad::ActGrad;
use crate::cpu::fused_pointwise::Fused2;
use crate::error::{Error, Result};
use crate::ops::pointwise2::on_cpu;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor, UnaryOp};

pub fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.binary(BinaryOp::Mul, b)
}

/// `a * s` for a number `s`.
pub fn muls(a: &Tensor, s: f64) -> Result<Tensor> {
    a.binary_scalar(BinaryOp::Mul, f(s), false)
}

/// `a + s` for a number `s`.
pub fn adds(a: &Tensor, s: f64) -> Result<Tensor> {
    a.binary_scalar(BinaryOp::Add, f(s), false)
}

/// `a op s` for a comparison `op` and a number `s` (a bool mask).
pub fn cmps(a: &Tensor, op: BinaryOp, s: f64) -> Result<Tensor> {
    a.binary_scalar(op, f(s), false)
}

/// `1 - a`.
pub fn one_minus(a: &Tensor) -> Result<Tensor> {
    Tensor::ones(&[], a.dtype())?.binary(BinaryOp::Sub, a)
}

pub fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.binary(BinaryOp::Div, b)
}

/// The gradients of `Op::Pointwise2` for the operands `need` asks for: lerp's `g (1 - w)` and
/// `g w`; a loss's `g ∂/∂x` (in one pass where no graph is built) and for `y` its negation
/// (`-x g` for binary_cross_entropy_with_logits).
pub fn pointwise2_grads(
    kind: Fused2,
    g: &Tensor,
    x: &dyn Fn() -> Result<Tensor>,
    y: &dyn Fn() -> Result<Tensor>,
    need: [bool; 2],
) -> Result<[Option<Tensor>; 2]> {
    if let Fused2::Lerp { weight } = kind {
        return Ok([need[0].then(|| muls(g, 1.0 - weight)).transpose()?, need[1].then(|| muls(g, weight)).transpose()?]);
    }
    let (x, y) = (x()?, y()?);
    let fused = if crate::autograd::is_grad_enabled() || !on_cpu(&[g, &x, &y]) {
        None
    } else {
        crate::cpu::fused_pointwise::fused2_grad(g.array(), x.array(), y.array(), kind)?.map(Tensor::from_array)
    };
    let gx = match fused {
        Some(gx) => gx,
        None => {
            // The composite form, differentiable again under create_graph.
            let d = || x.binary(BinaryOp::Sub, &y);
            let slope = match kind {
                Fused2::Mse => muls(&d()?, 2.0)?,
                Fused2::SmoothL1 { beta } => {
                    d()?.binary_scalar(BinaryOp::Div, f(beta), false)?.clamp_scalar(Some(f(-1.0)), Some(f(1.0)))?
                }
                Fused2::Huber { delta } => d()?.clamp_scalar(Some(f(-delta)), Some(f(delta)))?,
                Fused2::BceWithLogits => un(&x, UnaryOp::Sigmoid)?.binary(BinaryOp::Sub, &y)?,
                Fused2::Lerp { .. } => unreachable!("returned above"),
            };
            mul(g, &slope)?
        }
    };
    let gy = match (need[1], kind) {
        (false, _) => None,
        // The target's gradient, PyTorch's `-x g`.
        (true, Fused2::BceWithLogits) => Some(mul(g, &x.unary(UnaryOp::Neg)?)?),
        (true, _) => Some(gx.unary(UnaryOp::Neg)?),
    };
    Ok([need[0].then_some(gx), gy])
}

/// An activation's input gradient `g * f'(v)` as one CPU pass (`cpu::act_grad`), where no
/// graph is being built (create_graph needs the formula's ops) and both operands are float32
/// or float64 CPU tensors of one dtype and shape; None otherwise.
pub fn act_grad_fused(g: &Tensor, v: &Tensor, kind: ActGrad) -> Result<Option<Tensor>> {
    let cpu = g.device() == crate::device::Device::Cpu && v.device() == crate::device::Device::Cpu;
    if crate::autograd::is_grad_enabled() || !cpu {
        return Ok(None);
    }
    Ok(crate::cpu::act_grad::activation_backward(g.array(), v.array(), kind)?.map(Tensor::from_array))
}

pub fn un(a: &Tensor, op: UnaryOp) -> Result<Tensor> {
    a.unary(op)
}

/// The gradients of `maximum(a, b)` (`max`) or `minimum(a, b)`: each side loses its share only
/// where the other strictly wins, and ties split it. A NaN compares as neither, so both sides of
/// a NaN get the gradient.
pub fn extremum_grads(g: &Tensor, a: &Tensor, b: &Tensor, max: bool) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let (a_loses, b_loses) = if max { (BinaryOp::Lt, BinaryOp::Gt) } else { (BinaryOp::Gt, BinaryOp::Lt) };
    let half_ties = muls(&a.binary(BinaryOp::Eq, b)?.to_dtype(g.dtype())?, 0.5)?;
    let one = Tensor::ones(&[], g.dtype())?;
    let share = |loses: BinaryOp| one.binary(BinaryOp::Sub, &a.binary(loses, b)?.to_dtype(g.dtype())?)?.binary(BinaryOp::Sub, &half_ties);
    Ok((Some(mul(g, &share(a_loses)?)?), Some(mul(g, &share(b_loses)?)?)))
}

/// The gradient of PyTorch's elu family, `scale * (x > 0 ? x : alpha * expm1(x * input_scale))`
/// (elu, celu, selu), from the input; or from the result, where the in-place form kept it
/// instead (`in_place: result` in `ops/unary.rs`): below zero exactly where the input was, with
/// `alpha * exp(x * input_scale) = result / scale + alpha`. PyTorch refuses that for a negative
/// alpha. A NaN takes the positive side's gradient, as in PyTorch.
pub fn elu_family_grad(
    g: &Tensor,
    x: &dyn Fn() -> Result<Tensor>,
    y: &dyn Fn() -> Result<Tensor>,
    from_result: bool,
    alpha: f64,
    scale: f64,
    input_scale: f64,
) -> Result<Tensor> {
    if from_result && alpha < 0.0 {
        return Err(in_place_negative_slope("elu"));
    }
    let v = if from_result { y()? } else { x()? };
    if let Some(fused) = act_grad_fused(g, &v, ActGrad::Elu { alpha, scale, input_scale, from_result })? {
        return Ok(fused);
    }
    let (negative, slope) = if from_result {
        let y = v;
        (cmps(&y, BinaryOp::Le, 0.0)?, muls(&adds(&y, alpha * scale)?, input_scale)?)
    } else {
        let x = v;
        let scaled = if input_scale == 1.0 { x.clone() } else { muls(&x, input_scale)? };
        (cmps(&x, BinaryOp::Le, 0.0)?, muls(&un(&scaled, UnaryOp::Exp)?, alpha * scale * input_scale)?)
    };
    mul(g, &Tensor::where_(&negative, Arg::T(&slope), Arg::S(f(scale)))?)
}

/// PyTorch's refusal of a result-based backward (an in-place leaky_relu_ / elu family form)
/// with a negative slope, whose result no longer tells the input's sign.
pub fn in_place_negative_slope(what: &str) -> Error {
    Error::Runtime(format!(
        "In-place {what} backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead."
    ))
}

/// PyTorch's error for a gradient it does not define (`zeta`'s first operand, `igamma`'s `a`).
pub fn no_derivative(what: &str) -> Error {
    Error::NotImplemented(format!("the derivative for '{what}' is not implemented."))
}

/// The gradient of a Bessel-type function of order one, `C1' = s·C0(x) - C1(x)/x` (J1, Y1, I1:
/// s = 1; K1: s = -1), from the functions of order zero and one. `at_zero`: the limit at 0 where
/// the quotient is 0/0 (J1 and I1: 1/2), computed away from 0 so no NaN reaches it.
pub fn order_one_grad(g: &Tensor, x: &Tensor, c0: UnaryOp, c1: UnaryOp, s: f64, at_zero: Option<f64>) -> Result<Tensor> {
    let Some(limit) = at_zero else {
        let d = muls(&un(x, c0)?, s)?.binary(BinaryOp::Sub, &div(&un(x, c1)?, x)?)?;
        return mul(g, &d);
    };
    let zero = cmps(x, BinaryOp::Eq, 0.0)?;
    let safe = Tensor::where_(&zero, Arg::S(f(1.0)), Arg::T(x))?;
    let d = muls(&un(&safe, c0)?, s)?.binary(BinaryOp::Sub, &div(&un(&safe, c1)?, &safe)?)?;
    mul(g, &Tensor::where_(&zero, Arg::S(f(limit)), Arg::T(&d))?)
}

/// igamma's and igammac's refusal of a gradient for `a` (PyTorch defines none), only where one
/// is needed.
pub fn igamma_input_grad(need: &dyn Fn(usize) -> bool) -> Result<Option<Tensor>> {
    if need(0) {
        return Err(no_derivative("igamma: input"));
    }
    Ok(None)
}

pub fn igammac_input_grad(need: &dyn Fn(usize) -> bool) -> Result<Option<Tensor>> {
    if need(0) {
        return Err(no_derivative("igammac: input"));
    }
    Ok(None)
}

/// `x^(a-1) e^-x / Γ(a)`, the derivative of `P(a, x)` in `x`.
pub fn igamma_density(a: &Tensor, x: &Tensor) -> Result<Tensor> {
    let log = mul(&adds(a, -1.0)?, &un(x, UnaryOp::Log)?)?.binary(BinaryOp::Sub, x)?.binary(BinaryOp::Sub, &un(a, UnaryOp::Lgamma)?)?;
    un(&log, UnaryOp::Exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elu_family_gradient_from_the_result_is_the_one_from_the_input() -> Result<()> {
        // celu(alpha = 2): elu with input_scale 1/2.
        let x = Tensor::from_vec(vec![-1.0f64, 2.0], &[2])?;
        let y = x.unary(UnaryOp::Celu { alpha: 2.0 })?;
        let g = Tensor::from_vec(vec![1.0f64, 1.0], &[2])?;
        let grad = |from_result| elu_family_grad(&g, &|| Ok(x.clone()), &|| Ok(y.clone()), from_result, 2.0, 1.0, 0.5);
        let (a, b) = (grad(false)?.to_vec::<f64>()?, grad(true)?.to_vec::<f64>()?);
        assert!((a[0] - (-0.5f64).exp()).abs() < 1e-15 && a[1] == 1.0);
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() < 1e-15);
        }
        // a negative alpha is refused from the result only
        let neg = |from_result| elu_family_grad(&g, &|| Ok(x.clone()), &|| Ok(y.clone()), from_result, -1.0, 1.0, 1.0);
        assert!(neg(false).is_ok());
        let err = neg(true).unwrap_err().to_string();
        assert!(err.contains("In-place elu backward calculation is triggered with a negative slope"));
        Ok(())
    }
}
