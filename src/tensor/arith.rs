//! Binary ops with broadcasting and PyTorch's type promotion: arithmetic, comparisons, logical
//! and bitwise ops, their in-place forms, `where`, `clamp`, and the pointwise ops built on
//! them (frac, lerp, addcmul, addcdiv).

use std::borrow::Cow;

use crate::autograd::{record_named, record_shown, GradMode, Op};
use crate::backend::Array;
use crate::device::Device;
use crate::dtype::{result_type, DType, Operand};
use crate::error::{Error, Result};
use crate::shape::broadcast_shapes;
use crate::tensor::{BinaryOp, Scalar, Tensor};

/// An operand of a binary op: a tensor or a Python number.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    T(&'a Tensor),
    S(Scalar),
}

impl<'a> Arg<'a> {
    fn operand(&self) -> Operand {
        match self {
            Arg::T(t) if t.ndim() == 0 => Operand::ZeroDim(t.dtype()),
            Arg::T(t) => Operand::Tensor(t.dtype()),
            Arg::S(s) => Operand::Scalar(s.category()),
        }
    }

    /// The operand as a tensor of `dtype` (scalars become zero-dim tensors).
    /// The operand's shape (a number's is `[]`).
    fn shape(&self) -> &[usize] {
        match self {
            Arg::T(t) => t.shape(),
            Arg::S(_) => &[],
        }
    }

    /// A tensor on `device` as an array broadcast to `shape`; None for numbers and zero-dim
    /// tensors of another device, which travel as numbers.
    /// A tensor already of that shape lends its own array (no layout copy for a small op).
    fn on(&self, device: Device, shape: &[usize]) -> Option<Cow<'a, Array>> {
        match *self {
            Arg::T(t) if t.device() == device && t.shape() == shape => Some(Cow::Borrowed(t.array())),
            Arg::T(t) if t.device() == device => Some(Cow::Owned(t.array().broadcast_to(shape))),
            _ => None,
        }
    }

    /// The backend operand of this argument, given its array from `on`.
    fn backend_operand<'t>(&self, on: &'t Option<Cow<'_, Array>>) -> Result<crate::backend::Operand<'t>> {
        use crate::backend::Operand;
        Ok(match (on, self) {
            (Some(a), _) => Operand::Array(a),
            (None, Arg::S(s)) => Operand::Scalar(*s),
            (None, Arg::T(t)) => Operand::Scalar(t.item()?),
        })
    }
}

/// The dtype ops compute in and the dtype they return.
fn op_dtypes(op: BinaryOp, a: &Arg, b: &Arg) -> Result<(DType, DType)> {
    let common = result_type(&[a.operand(), b.operand()]);
    Ok(match op {
        _ if op.is_comparison() => (common, DType::Bool),
        _ if op.is_logical() => (DType::Bool, DType::Bool),
        BinaryOp::Igamma | BinaryOp::Igammac if !common.is_floating_point() => {
            return Err(Error::NotImplemented(format!("\"{}_cpu\" not implemented for '{}'", op.name(), common.title_name())))
        }
        _ if op.is_float_only() && !common.is_floating_point() => (DType::F32, DType::F32),
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor if common.is_floating_point() => {
            return Err(Error::Runtime(format!(
                "\"bitwise_{}_cpu\" not implemented for '{}'",
                match op {
                    BinaryOp::BitAnd => "and",
                    BinaryOp::BitOr => "or",
                    _ => "xor",
                },
                common.title_name()
            )))
        }
        BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Fmod | BinaryOp::Pow if common == DType::Bool => {
            return Err(Error::NotImplemented(format!(
                "\"{}\" not implemented for 'Bool'",
                match op {
                    BinaryOp::FloorDiv => "div_floor_cpu",
                    BinaryOp::Rem => "remainder_cpu",
                    BinaryOp::Fmod => "fmod_cpu",
                    _ => "pow",
                }
            )))
        }
        BinaryOp::Sub if common == DType::Bool => {
            return Err(Error::Runtime(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
                    .into(),
            ))
        }
        _ => (common, common),
    })
}

/// Whether a result of dtype `from` may be written into a tensor of dtype `to` (PyTorch's
/// `canCast`: no float into an integer, no non-bool into bool).
pub(crate) fn can_cast(from: DType, to: DType) -> bool {
    from.category() <= to.category()
}

/// The dtype `t op other` computes in (PyTorch's `result_type`).
pub fn result_dtype(t: &Tensor, other: &Arg) -> DType {
    result_type(&[Arg::T(t).operand(), other.operand()])
}

pub fn binary(a: Arg, b: Arg, op: BinaryOp) -> Result<Tensor> {
    binary_recorded(a, b, op, false)
}

/// `t op number` as PyTorch's own composite ops compute it, through the op's Scalar overload:
/// its node is `AddBackward1` (`SubBackward1`, `MulBackward1`, `DivBackward1`) and lists only
/// the tensor. (From Python, `t * 2` takes the tensor overload: MulBackward0 lists both.)
pub fn binary_scalar_overload(t: &Tensor, s: Scalar, op: BinaryOp) -> Result<Tensor> {
    binary_recorded(Arg::T(t), Arg::S(s), op, true)
}

fn binary_recorded(a: Arg, b: Arg, op: BinaryOp, scalar_overload: bool) -> Result<Tensor> {
    let out = {
        let _raw = GradMode::disabled();
        binary_raw(a, b, op)?
    };
    if crate::autograd::is_grad_enabled() {
        // Python numbers become zero-dim tensors so every formula sees two tensor inputs.
        let as_tensor = |x: Arg| match x {
            Arg::T(t) => Ok(t.clone()),
            Arg::S(s) => Tensor::scalar_tensor(s, out.dtype()),
        };
        let (ta, tb) = (as_tensor(a)?, as_tensor(b)?);
        // Save only what the needed gradients read: an in-place update of an operand whose
        // value no formula needs (x.mul_(3)) must not trip the version check.
        let saves: Vec<usize> = match op {
            BinaryOp::Add | BinaryOp::Sub => vec![],
            BinaryOp::Mul => [tb.requires_grad().then_some(0), ta.requires_grad().then_some(1)].into_iter().flatten().collect(),
            BinaryOp::Div if !tb.requires_grad() => vec![1],
            _ => vec![0, 1],
        };
        let (a_number, b_number) = (matches!(a, Arg::S(_)), matches!(b, Arg::S(_)));
        // Which operands PyTorch's node lists: a number taken by an overload of its own is not
        // an input there; a number first in a commutative op is listed second (`t + 2`).
        let shown: Option<&[usize]> = match (a_number, b_number, op) {
            _ if scalar_overload => Some(&[0]),
            (true, false, BinaryOp::Add | BinaryOp::Mul) => Some(&[1, 0]),
            (true, false, BinaryOp::Sub | BinaryOp::Pow | BinaryOp::Rem) => Some(&[1]),
            (false, true, BinaryOp::Rem | BinaryOp::FloorDiv | BinaryOp::Fmod) => Some(&[0]),
            _ => None,
        };
        let (op, name) = match op {
            BinaryOp::Add if scalar_overload => (Op::Binary(op), Some("AddBackward1")),
            BinaryOp::Sub if scalar_overload => (Op::Binary(op), Some("SubBackward1")),
            BinaryOp::Mul if scalar_overload => (Op::Binary(op), Some("MulBackward1")),
            BinaryOp::Div if scalar_overload => (Op::Binary(op), Some("DivBackward1")),
            BinaryOp::FloorDiv => (Op::NotImplemented { forward: "floor_divide" }, None),
            BinaryOp::Rem if a_number => (Op::NotImplemented { forward: "remainder" }, None),
            BinaryOp::Rem => (Op::Binary(op), Some(if b_number { "RemainderBackward0" } else { "RemainderBackward1" })),
            BinaryOp::Fmod => (Op::Binary(op), Some(if b_number { "FmodBackward0" } else { "FmodBackward1" })),
            // A number raised to a tensor, or minus one: PyTorch's overloads taking the number.
            BinaryOp::Pow if a_number => (Op::Binary(op), Some("PowBackward2")),
            BinaryOp::Sub if a_number => (Op::Binary(op), Some("RsubBackward1")),
            _ => (Op::Binary(op), None),
        };
        record_shown(name, op, &[&ta, &tb], &[&out], &saves, &[], shown);
    }
    Ok(out)
}

/// `div(other, rounding_mode="floor")`: the floored quotient, whose gradient is zero (unlike
/// `floor_divide`'s, which PyTorch leaves undefined).
pub fn div_floor(a: Arg, b: Arg) -> Result<Tensor> {
    let out = {
        let _raw = GradMode::disabled();
        binary_raw(a, b, BinaryOp::FloorDiv)?
    };
    record_rounded_quotient(a, b, &out)?;
    Ok(out)
}

/// Records `out`, a rounded quotient of `a` by `b`, as PyTorch's `div(..., rounding_mode=)`
/// node: DivBackward2, whose gradient is zero for both operands. Floored and truncated
/// quotients are both piecewise constant, so floor division's formula (that zero) serves both.
fn record_rounded_quotient(a: Arg, b: Arg, out: &Tensor) -> Result<()> {
    if crate::autograd::is_grad_enabled() {
        let as_tensor = |x: Arg| match x {
            Arg::T(t) => Ok(t.clone()),
            Arg::S(s) => Tensor::scalar_tensor(s, out.dtype()),
        };
        let (ta, tb) = (as_tensor(a)?, as_tensor(b)?);
        record_named(Some("DivBackward2"), Op::Binary(BinaryOp::FloorDiv), &[&ta, &tb], &[out], &[], &[]);
    }
    Ok(())
}

/// `div(other, rounding_mode="trunc")` of integers: the quotient rounded toward zero, exactly
/// (the dividend less its truncated remainder divides evenly). A zero divisor is PyTorch's
/// ZeroDivisionError, as for `//`.
pub fn div_trunc_integer(a: Arg, b: Arg) -> Result<Tensor> {
    let r = binary(a, b, BinaryOp::Fmod)?;
    let even = match a {
        Arg::T(t) => t.binary(BinaryOp::Sub, &r)?,
        Arg::S(s) => r.binary_scalar(BinaryOp::Sub, s, true)?,
    };
    binary(Arg::T(&even), b, BinaryOp::FloorDiv)
}

/// How `div` rounds its quotient (`rounding_mode`); no mode is true division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundingMode {
    /// Toward zero.
    Trunc,
    /// Toward negative infinity.
    Floor,
}

impl RoundingMode {
    /// PyTorch's spelling of a mode; another is its RuntimeError.
    pub fn parse(mode: &str) -> Result<RoundingMode> {
        match mode {
            "trunc" => Ok(RoundingMode::Trunc),
            "floor" => Ok(RoundingMode::Floor),
            m => Err(Error::Runtime(format!("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"))),
        }
    }
}

/// `div(a, b, rounding_mode=mode)`: floored or truncated (exact for integers; for floats the
/// truncated true quotient, in the promoted dtype), either way one DivBackward2 node with a zero
/// gradient. Bool operands have no truncated division, as in PyTorch.
pub fn div_rounded(a: &Tensor, b: Arg, mode: RoundingMode) -> Result<Tensor> {
    match mode {
        RoundingMode::Floor => div_floor(Arg::T(a), b),
        RoundingMode::Trunc => {
            let common = result_dtype(a, &b);
            if common == DType::Bool {
                return Err(Error::NotImplemented("\"div_trunc_cpu\" not implemented for 'Bool'".into()));
            }
            if !common.is_floating_point() {
                return div_trunc_integer(Arg::T(a), b);
            }
            let out = {
                let _raw = GradMode::disabled();
                binary(Arg::T(a), b, BinaryOp::Div)?.unary(crate::tensor::UnaryOp::Trunc)?.to_dtype(common)?
            };
            record_rounded_quotient(Arg::T(a), b, &out)?;
            Ok(out)
        }
    }
}

/// The device of an op's tensor operands (zero-dim CPU tensors join any device as scalars).
fn args_device(args: &[&Arg]) -> Result<Device> {
    let tensors: Vec<&Tensor> = args
        .iter()
        .filter_map(|x| match x {
            Arg::T(t) => Some(*t),
            Arg::S(_) => None,
        })
        .collect();
    crate::device::common_device(&tensors, true)
}

/// An integer tensor to a number's power: PyTorch refuses a negative number and one that does
/// not fit the tensor's dtype (a tensor of exponents, or a number raised to a tensor, computes:
/// negative powers of integers truncate toward zero).
fn check_integer_power(b: &Arg, compute: DType) -> Result<()> {
    if let Arg::S(s) = b {
        if !compute.is_floating_point() && s.to_f64() < 0.0 {
            return Err(Error::Runtime("Integers to negative integer powers are not allowed.".into()));
        }
        if compute != DType::Bool {
            s.checked_for(compute, crate::tensor::scalar_check::Spelling::Cpp)?;
        }
    }
    Ok(())
}

fn binary_raw(a: Arg, b: Arg, op: BinaryOp) -> Result<Tensor> {
    let (compute, out) = op_dtypes(op, &a, &b)?;
    if op == BinaryOp::Pow && !compute.is_floating_point() {
        check_integer_power(&b, compute)?;
    }
    let device = args_device(&[&a, &b])?;
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    crate::tensor::check_alloc(&shape, out)?;
    crate::tensor::check_alloc(&shape, if compute.is_half() { DType::F32 } else { compute })?;
    let integer = !compute.is_floating_point() && compute != DType::Bool;
    if integer && matches!(op, BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Fmod) {
        let zero = match b {
            Arg::T(t) => t.eq_scalar_any(Scalar::Int(0))?,
            Arg::S(s) => s.to_i64() == 0,
        };
        if zero {
            return Err(Error::Runtime("ZeroDivisionError".into()));
        }
    }
    let (va, vb) = (a.on(device, &shape), b.on(device, &shape));
    let order = result_order_of(&shape, &[&a, &b]);
    let arrays: Vec<&Array> = [&va, &vb].into_iter().filter_map(|v| v.as_deref()).collect();
    let result = crate::result_layout::compute_in_order(order, &shape, &arrays, |xs, pshape| {
        let mut permuted = xs.iter();
        let (pa, pb) = (va.as_ref().map(|_| permuted.next()), vb.as_ref().map(|_| permuted.next()));
        crate::dispatch::of(device).binary(op, permuted_operand(pa, &a)?, permuted_operand(pb, &b)?, pshape, device, compute, out)
    })?;
    Ok(Tensor::from_array(result))
}

/// The backend operand of `x` in `compute_in_order`'s kernel: its permuted array where it has
/// one (`p`), else its number.
fn permuted_operand<'t>(p: Option<Option<&'t Array>>, x: &Arg) -> Result<crate::backend::Operand<'t>> {
    match p.flatten() {
        Some(arr) => Ok(crate::backend::Operand::Array(arr)),
        None => x.backend_operand(&None),
    }
}

/// The memory order of an elementwise result over `args` (`result_layout`'s rule): tensors
/// vote with their layouts; a number (or a zero-dim tensor of another device) is an operand
/// of shape [], as PyTorch wraps one.
fn result_order_of(shape: &[usize], args: &[&Arg]) -> Option<crate::result_layout::ResultOrder> {
    let scalar = crate::layout::Layout { shape: vec![], strides: vec![], offset: 0 };
    let layouts: Vec<&crate::layout::Layout> = args
        .iter()
        .map(|x| match x {
            Arg::T(t) => t.layout(),
            Arg::S(_) => &scalar,
        })
        .collect();
    crate::result_layout::result_order(shape, &layouts)
}

impl Tensor {
    /// A zero-dim tensor holding `s` as `dtype`.
    pub fn scalar_tensor(s: Scalar, dtype: DType) -> Result<Tensor> {
        crate::with_dtype!(dtype, T => Tensor::from_vec(vec![s.to_element::<T>()], &[]))
    }

    pub fn binary(&self, op: BinaryOp, other: &Tensor) -> Result<Tensor> {
        binary(Arg::T(self), Arg::T(other), op)
    }

    /// `self op s`, or `s op self` when `reflected`.
    pub fn binary_scalar(&self, op: BinaryOp, s: Scalar, reflected: bool) -> Result<Tensor> {
        if reflected {
            binary(Arg::S(s), Arg::T(self), op)
        } else {
            binary(Arg::T(self), Arg::S(s), op)
        }
    }

    /// `self op= other` in place; the result must be castable to self's dtype.
    pub fn binary_(&self, op: BinaryOp, other: Arg) -> Result<()> {
        if self.binary_in_memory(op, &other)? {
            return Ok(());
        }
        self.assign_result_(&binary(Arg::T(self), other, op)?)
    }

    /// `binary_` without a temporary where nothing records it and the result keeps self's
    /// dtype and shape: the backend writes into self's memory (one pass instead of computing
    /// out of place and copying). False, self untouched, where it does not apply.
    fn binary_in_memory(&self, op: BinaryOp, other: &Arg) -> Result<bool> {
        let (compute, out) = op_dtypes(op, &Arg::T(self), other)?;
        if compute != self.dtype() || out != self.dtype() {
            return Ok(false);
        }
        let operand = match other {
            Arg::T(t)
                if t.device() != self.device() || t.shares_storage(self) || broadcast_shapes(self.shape(), t.shape())? != self.shape() =>
            {
                return Ok(false)
            }
            Arg::T(t) => crate::backend::Operand::Array(t.array()),
            Arg::S(s) => crate::backend::Operand::Scalar(*s),
        };
        // Checked last, so that errors come in the order of the general path.
        let tracked = match other {
            Arg::T(t) => self.check_inplace(t)?,
            Arg::S(_) => self.check_inplace(self)?,
        };
        if tracked {
            return Ok(false);
        }
        crate::dispatch::of(self.device()).binary_inplace(op, self.array(), operand)
    }

    /// Writes the out-of-place result of an op into self, as its in-place form does: PyTorch
    /// refuses a result whose dtype self cannot hold (`atanh_` of an integer tensor).
    pub fn assign_result_(&self, result: &Tensor) -> Result<()> {
        if !can_cast(result.dtype(), self.dtype()) {
            return Err(Error::Runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                result.dtype().title_name(),
                self.dtype().title_name()
            )));
        }
        self.assign_(result)
    }

    fn eq_scalar_any(&self, s: Scalar) -> Result<bool> {
        self.binary_scalar(BinaryOp::Eq, s, false)?.any_true()
    }

    /// Whether any element is non-zero.
    pub fn any_true(&self) -> Result<bool> {
        // Folded where the values are; one bool comes back.
        let _raw = crate::autograd::GradMode::disabled();
        Ok(self.reduce(crate::tensor::ReduceOp::Any, None, false)?.item()? == Scalar::Bool(true))
    }

    /// `torch.where(cond, self, other)`.
    pub fn where_(cond: &Tensor, a: Arg, b: Arg) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            Tensor::where_raw(cond, a, b)?
        };
        if crate::autograd::is_grad_enabled() {
            let as_tensor = |x: Arg| match x {
                Arg::T(t) => Ok(t.clone()),
                Arg::S(s) => Tensor::scalar_tensor(s, out.dtype()),
            };
            let (ta, tb) = (as_tensor(a)?, as_tensor(b)?);
            // The condition has no gradient: PyTorch lists only the two values.
            crate::autograd::record_shown(None, Op::Where, &[cond, &ta, &tb], &[&out], &[0], &[], Some(&[1, 2]));
        }
        Ok(out)
    }

    fn where_raw(cond: &Tensor, a: Arg, b: Arg) -> Result<Tensor> {
        let device = args_device(&[&Arg::T(cond), &a, &b])?;
        let dtype = result_type(&[a.operand(), b.operand()]);
        let with_tensor = matches!(a, Arg::T(_)) || matches!(b, Arg::T(_));
        if !dtype.is_floating_point() && with_tensor {
            // A number written into an integer tensor's dtype must fit it (PyTorch's fill check).
            for x in [&a, &b] {
                if let Arg::S(s) = x {
                    s.checked_for(dtype, crate::tensor::scalar_check::Spelling::Cpp)?;
                }
            }
        }
        let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
        crate::tensor::check_alloc(&shape, dtype)?;
        let c = if cond.device() == device { cond.clone() } else { cond.to_device(device)? };
        let c = c.array().broadcast_to(&shape);
        // The values in the result's dtype (converted before they are broadcast).
        let converted = |x: &Arg| -> Result<Option<Tensor>> {
            Ok(match x {
                Arg::T(t) => Some(t.to_dtype(dtype)?),
                Arg::S(_) => None,
            })
        };
        let (ca, cb) = (converted(&a)?, converted(&b)?);
        let (a, b) = (ca.as_ref().map_or(a, Arg::T), cb.as_ref().map_or(b, Arg::T));
        let (va, vb) = (a.on(device, &shape), b.on(device, &shape));
        let order = result_order_of(&shape, &[&Arg::T(cond), &a, &b]);
        let mut arrays: Vec<&Array> = vec![&c];
        arrays.extend([&va, &vb].into_iter().filter_map(|v| v.as_deref()));
        let result = crate::result_layout::compute_in_order(order, &shape, &arrays, |xs, pshape| {
            let mut permuted = xs[1..].iter();
            let (pa, pb) = (va.as_ref().map(|_| permuted.next()), vb.as_ref().map(|_| permuted.next()));
            crate::dispatch::of(device).where_(&xs[0], permuted_operand(pa, &a)?, permuted_operand(pb, &b)?, pshape, dtype)
        })?;
        Ok(Tensor::from_array(result))
    }

    /// `frac`: `x - trunc(x)`, for floating point tensors.
    pub fn frac(&self) -> Result<Tensor> {
        crate::autograd::named("FracBackward0", &[self], || {
            if !self.dtype().is_floating_point() {
                return Err(Error::NotImplemented(format!("\"frac_cpu\" not implemented for '{}'", self.dtype().title_name())));
            }
            self.binary(BinaryOp::Sub, &self.unary(crate::tensor::UnaryOp::Trunc)?)
        })
    }

    /// `lerp(end, weight)`: `self + weight * (end - self)`, taken from `end`'s side when
    /// |weight| >= 0.5 (as PyTorch computes it, so that weight 1 gives `end` exactly). All
    /// tensors share self's floating dtype; half precision computes in float32.
    pub fn lerp(&self, end: &Tensor, weight: Arg) -> Result<Tensor> {
        let (name, kernel) = match weight {
            Arg::T(_) => ("LerpBackward1", "lerp_kernel_tensor"),
            Arg::S(_) => ("LerpBackward0", "lerp_kernel_scalar"),
        };
        if let Arg::S(w) = weight {
            // One pass, recorded as one node (float32/float64 CPU operands of one shape).
            let kind = crate::cpu::fused_pointwise::Fused2::Lerp { weight: w.to_f64() };
            if let Some(out) = crate::ops::pointwise2::pointwise2(self, end, kind, Some(name))? {
                return Ok(out);
            }
        }
        let mut inputs = vec![self, end];
        if let Arg::T(w) = weight {
            inputs.push(w);
        }
        crate::autograd::named(name, &inputs, || {
            let dt = self.dtype();
            if end.dtype() != dt {
                return Err(Error::Runtime(format!("expected dtype {} for `end` but got dtype {}", dt.cpp_name(), end.dtype().cpp_name())));
            }
            if let Arg::T(w) = weight {
                if w.dtype() != dt {
                    return Err(Error::Runtime(format!(
                        "expected dtype {} for `weight` but got dtype {}",
                        dt.cpp_name(),
                        w.dtype().cpp_name()
                    )));
                }
            }
            if !dt.is_floating_point() {
                return Err(Error::NotImplemented(format!("\"{kernel}\" not implemented for '{}'", dt.title_name())));
            }
            // Shapes are checked in argument order, so the error names them as PyTorch does.
            let shape = broadcast_shapes(self.shape(), end.shape())?;
            if let Arg::T(w) = weight {
                broadcast_shapes(&shape, w.shape())?;
            }
            let up = |t: &Tensor| if dt.is_half() { t.to_dtype(DType::F32) } else { Ok(t.clone()) };
            let (a, b) = (up(self)?, up(end)?);
            let diff = b.binary(BinaryOp::Sub, &a)?;
            let out = match weight {
                Arg::S(w) => {
                    let w = w.to_f64();
                    if w.abs() < 0.5 {
                        a.binary(BinaryOp::Add, &diff.binary_scalar(BinaryOp::Mul, Scalar::Float(w), false)?)?
                    } else {
                        b.binary(BinaryOp::Sub, &diff.binary_scalar(BinaryOp::Mul, Scalar::Float(1.0 - w), false)?)?
                    }
                }
                Arg::T(w) => {
                    let w = up(w)?;
                    let small = w.unary(crate::tensor::UnaryOp::Abs)?.binary_scalar(BinaryOp::Lt, Scalar::Float(0.5), false)?;
                    let from_self = a.binary(BinaryOp::Add, &w.binary(BinaryOp::Mul, &diff)?)?;
                    let rest = w.binary_scalar(BinaryOp::Sub, Scalar::Int(1), true)?;
                    let from_end = b.binary(BinaryOp::Sub, &diff.binary(BinaryOp::Mul, &rest)?)?;
                    Tensor::where_(&small, Arg::T(&from_self), Arg::T(&from_end))?
                }
            };
            out.to_dtype(dt)
        })
    }

    /// `addcmul(t1, t2, value)` (`self + value * t1 * t2`) or, when `divide`, `addcdiv`
    /// (`self + value * t1 / t2`), in the dtype the three tensors promote to; `value` is taken
    /// in that dtype (truncated for integers).
    pub fn addc(&self, t1: &Tensor, t2: &Tensor, value: Scalar, divide: bool) -> Result<Tensor> {
        let name = if divide { "AddcdivBackward0" } else { "AddcmulBackward0" };
        if crate::ops::pointwise2::fusable_forward(&[self, t1, t2]) {
            if let Some(out) = crate::cpu::fused_pointwise::addc(self.array(), t1.array(), t2.array(), value.to_f64(), divide)? {
                return Ok(Tensor::from_array(out));
            }
        }
        crate::autograd::named(name, &[self, t1, t2], || {
            if divide && !t1.dtype().is_floating_point() && !t2.dtype().is_floating_point() {
                return Err(Error::Runtime(
                    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.".into(),
                ));
            }
            broadcast_shapes(&broadcast_shapes(self.shape(), t1.shape())?, t2.shape())?;
            let dt = result_type(&[Arg::T(self).operand(), Arg::T(t1).operand(), Arg::T(t2).operand()]);
            if !dt.is_floating_point() {
                value.checked_for(dt, crate::tensor::scalar_check::Spelling::Cpp)?;
            }
            let value = if dt.is_floating_point() {
                Scalar::Float(value.to_f64())
            } else if dt == DType::Bool {
                Scalar::Bool(value.to_f64() != 0.0)
            } else {
                Scalar::Int(value.to_i64())
            };
            let a = t1.to_dtype(dt)?;
            let scaled = if value.to_f64() == 1.0 { a } else { a.binary_scalar(BinaryOp::Mul, value, false)? };
            let term = scaled.binary(if divide { BinaryOp::Div } else { BinaryOp::Mul }, &t2.to_dtype(dt)?)?;
            self.to_dtype(dt)?.binary(BinaryOp::Add, &term)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_rounds_toward_zero_or_down() {
        let a = Tensor::from_vec(vec![-7i64, 7], &[2]).unwrap();
        let trunc = div_rounded(&a, Arg::S(Scalar::Int(2)), RoundingMode::Trunc).unwrap();
        assert_eq!(trunc.to_vec::<i64>().unwrap(), [-3, 3]);
        let floor = div_rounded(&a, Arg::S(Scalar::Int(2)), RoundingMode::Floor).unwrap();
        assert_eq!(floor.to_vec::<i64>().unwrap(), [-4, 3]);
    }

    #[test]
    fn both_float_modes_are_one_zero_gradient_node() {
        // PyTorch 2.15: div(x, -0.3, rounding_mode='trunc') is DivBackward2, as 'floor' is.
        for (mode, quotient) in [(RoundingMode::Trunc, [6.0, -1.0]), (RoundingMode::Floor, [6.0, -2.0])] {
            let x = Tensor::from_vec(vec![-2.0f64, 0.5], &[2]).unwrap();
            x.set_requires_grad(true).unwrap();
            let y = div_rounded(&x, Arg::S(Scalar::Float(-0.3)), mode).unwrap();
            assert_eq!(y.to_vec::<f64>().unwrap(), quotient);
            assert_eq!(y.grad_fn().unwrap().name(), "DivBackward2");
            let g = crate::autograd::grad(&[y.sum(None, false).unwrap()], &[None], &[x], false, false, false).unwrap();
            assert_eq!(g[0].as_ref().expect("a gradient").to_vec::<f64>().unwrap(), [0.0, 0.0]);
        }
    }

    #[test]
    fn bool_and_unknown_modes_are_pytorchs_errors() {
        let b = Tensor::from_vec(vec![true], &[1]).unwrap();
        let e = div_rounded(&b, Arg::T(&b), RoundingMode::Trunc).unwrap_err();
        assert!(matches!(e, Error::NotImplemented(_)), "{e}");
        let e = RoundingMode::parse("round").unwrap_err();
        assert_eq!(e.to_string(), "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
    }
}
