//! Operators and pointwise math methods of Tensor: the arithmetic, comparison, logical and bitwise
//! operators and methods with their in-place forms, pow, add/sub with alpha, div with a rounding
//! mode, clamp, round, the parametric activations, where, frac, lerp and addcmul/addcdiv; and
//! `Other`, the tensor-or-number operand the other op modules share.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::dtype::DType;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor, UnaryOp};

use super::convert::{scalar_of, to_tensor};
use super::gil::run;
use super::tensor_object::PyTensor;

/// The other operand of a binary op: a tensor or a number.
pub(super) enum Other {
    T(Tensor),
    S(Scalar),
}

impl Other {
    /// The operand as the tensor ops take it.
    pub(super) fn arg(&self) -> Arg<'_> {
        match self {
            Other::T(t) => Arg::T(t),
            Other::S(s) => Arg::S(*s),
        }
    }
}

/// `obj` as an operand; None means "not ours" (an operator returns NotImplemented).
pub(super) fn other_of(obj: &Bound<'_, PyAny>) -> Option<Other> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(Other::T(t.get().tensor().clone()));
    }
    scalar_of(obj).map(Other::S)
}

/// The `other` of an op taking only tensors; anything else is PyTorch's argument TypeError.
pub(super) fn tensor_only(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Other> {
    match obj.cast::<PyTensor>() {
        Ok(t) => Ok(Other::T(t.get().tensor())),
        Err(_) => {
            Err(PyTypeError::new_err(format!("{name}(): argument 'other' (position 1) must be Tensor, not {}", obj.get_type().name()?)))
        }
    }
}

/// A `Number` argument of `method` (`alpha`, ...): a Python or NumPy number, or a zero-dim tensor,
/// which PyTorch reads as its value; anything else is PyTorch's TypeError.
pub(super) fn number_arg(method: &str, arg: &str, obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    if let Some(s) = scalar_of(obj) {
        return Ok(s);
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.get().tensor();
        if t.ndim() == 0 {
            return Ok(t.item()?);
        }
    }
    Err(PyTypeError::new_err(format!("{method}(): argument '{arg}' must be Number, not {}", obj.get_type().name()?)))
}

/// `obj` as an operand: a tensor, a number, or data converted to a tensor.
pub(super) fn other_strict(obj: &Bound<'_, PyAny>) -> PyResult<Other> {
    if let Some(o) = other_of(obj) {
        return Ok(o);
    }
    Ok(Other::T(to_tensor(obj)?))
}

/// clamp's `min` and `max` as operands (None for one absent), and the element count the op
/// touches (for `run`'s choice of releasing the GIL).
fn clamp_bounds(
    t: &Tensor,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Option<Other>, Option<Other>, usize)> {
    let lo = min.filter(|m| !m.is_none()).map(other_strict).transpose()?;
    let hi = max.filter(|m| !m.is_none()).map(other_strict).transpose()?;
    let bound_numel = |o: &Option<Other>| match o {
        Some(Other::T(b)) => b.numel(),
        _ => 0,
    };
    let n = t.numel().max(bound_numel(&lo)).max(bound_numel(&hi));
    Ok((lo, hi, n))
}

impl PyTensor {
    pub(super) fn binop(&self, py: Python<'_>, op: BinaryOp, other: &Other, reflected: bool) -> PyResult<Tensor> {
        let t = &self.tensor();
        Ok(match other {
            Other::T(o) if reflected => run(py, t.numel().max(o.numel()), || o.binary(op, t))?,
            Other::T(o) => run(py, t.numel().max(o.numel()), || t.binary(op, o))?,
            // `number / t` is `reciprocal(t) * number`, as PyTorch computes it.
            Other::S(s) if reflected && op == BinaryOp::Div => {
                run(py, t.numel(), || t.unary(UnaryOp::Reciprocal)?.binary_scalar(BinaryOp::Mul, *s, false))?
            }
            Other::S(s) => run(py, t.numel(), || t.binary_scalar(op, *s, reflected))?,
        })
    }

    /// An operator: NotImplemented for operands we do not know.
    fn operator(&self, py: Python<'_>, op: BinaryOp, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<Py<PyAny>> {
        match other_of(other) {
            Some(o) => Ok(Py::new(py, PyTensor::wrap(self.binop(py, op, &o, reflected)?))?.into_any()),
            None => Ok(py.NotImplemented()),
        }
    }

    pub(super) fn inplace(&self, py: Python<'_>, op: BinaryOp, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = &self.tensor();
        let o = other_strict(other)?;
        run(py, t.numel(), || t.binary_(op, o.arg()))?;
        Ok(())
    }

    pub(super) fn method(&self, py: Python<'_>, op: BinaryOp, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.binop(py, op, &other_strict(other)?, false)?))
    }

    /// `self + alpha * other` (or `-` when `sub`).
    fn add_alpha(
        &self,
        py: Python<'_>,
        name: &str,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
        sub: bool,
    ) -> PyResult<Tensor> {
        let op = if sub { BinaryOp::Sub } else { BinaryOp::Add };
        let o = self.alpha_scaled(py, name, other, alpha)?;
        self.binop(py, op, &o, false)
    }

    /// `alpha * other`, add's and sub's second operand (`other` itself without alpha).
    fn alpha_scaled(&self, py: Python<'_>, name: &str, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> PyResult<Other> {
        let o = other_strict(other)?;
        let alpha = alpha.filter(|a| !a.is_none()).map(|a| number_arg(name, "alpha", a)).transpose()?;
        if let Some(a) = alpha {
            let me = &self.tensor();
            let r = crate::tensor::arith::result_dtype(me, &o.arg());
            crate::tensor::scalar_check::check_alpha(a, r)?;
        }
        Ok(match (alpha, o) {
            (None, o) => o,
            (Some(a), Other::T(t)) => Other::T(run(py, t.numel(), || t.binary_scalar(BinaryOp::Mul, a, false))?),
            (Some(Scalar::Int(a)), Other::S(Scalar::Int(s))) => Other::S(Scalar::Int(s.wrapping_mul(a))),
            (Some(a), Other::S(s)) => Other::S(Scalar::Float(s.to_f64() * a.to_f64())),
        })
    }
}

macro_rules! operators {
    ($($name:ident, $rname:ident, $iname:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    self.operator(py, $op, other, false)
                }
                fn $rname(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    self.operator(py, $op, other, true)
                }
                fn $iname(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<()> {
                    self.inplace(py, $op, other)
                }
            )*
        }
    };
}

operators! {
    __add__, __radd__, __iadd__ => BinaryOp::Add;
    __sub__, __rsub__, __isub__ => BinaryOp::Sub;
    __mul__, __rmul__, __imul__ => BinaryOp::Mul;
    __truediv__, __rtruediv__, __itruediv__ => BinaryOp::Div;
    __floordiv__, __rfloordiv__, __ifloordiv__ => BinaryOp::FloorDiv;
    __mod__, __rmod__, __imod__ => BinaryOp::Rem;
    __and__, __rand__, __iand__ => BinaryOp::BitAnd;
    __or__, __ror__, __ior__ => BinaryOp::BitOr;
    __xor__, __rxor__, __ixor__ => BinaryOp::BitXor;
}

/// Unary methods `x.name()` (in-place forms are written in Python over `copy_`).
macro_rules! unary_methods {
    ($($name:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>) -> PyResult<PyTensor> {
                    let t = &self.tensor();
                    Ok(PyTensor::wrap(run(py, t.numel(), || t.unary($op))?))
                }
            )*
        }
    };
}

// The declared unary ops are bound from their declarations (`src/python/unary.rs`); these
// are the operators and the ops PyTorch binds differently.
unary_methods! {
    __neg__ => UnaryOp::Neg;
    __abs__ => UnaryOp::Abs;
    __invert__ => UnaryOp::BitwiseNot;
    logical_not => UnaryOp::LogicalNot;
    bitwise_not => UnaryOp::BitwiseNot;
    silu => UnaryOp::Silu;
}

#[pymethods]
impl PyTensor {
    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }

    fn __pow__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        match other_of(other) {
            Some(o) => Ok(Py::new(py, PyTensor::wrap(self.power(py, &o)?))?.into_any()),
            None => Ok(py.NotImplemented()),
        }
    }

    fn __rpow__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        self.operator(py, BinaryOp::Pow, other, true)
    }

    fn __ipow__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let _ = modulo;
        let r = self.power(py, &other_strict(other)?)?;
        Ok(self.tensor().assign_(&r)?)
    }

    /// `x ** 2`, keeping integer dtypes as PyTorch does.
    fn square(&self, py: Python<'_>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.power(py, &Other::S(Scalar::Int(2)))?))
    }

    fn pow(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.power(py, &other_strict(exponent)?)?))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.operator(py, BinaryOp::Eq, other, false)
    }

    fn __ne__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.operator(py, BinaryOp::Ne, other, false)
    }

    fn __lt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.operator(py, BinaryOp::Lt, other, false)
    }

    fn __le__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.operator(py, BinaryOp::Le, other, false)
    }

    fn __gt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.operator(py, BinaryOp::Gt, other, false)
    }

    fn __ge__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.operator(py, BinaryOp::Ge, other, false)
    }

    #[pyo3(signature = (other, *, alpha=None))]
    fn add(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.add_alpha(py, "add", other, alpha, false)?))
    }

    #[pyo3(signature = (other, *, alpha=None))]
    fn add_<'py>(slf: &Bound<'py, Self>, other: &Bound<'py, PyAny>, alpha: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let o = me.alpha_scaled(slf.py(), "add_", other, alpha)?;
        let t = &me.tensor();
        run(slf.py(), t.numel(), || t.binary_(BinaryOp::Add, o.arg()))?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (other, *, alpha=None))]
    fn sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.add_alpha(py, "sub", other, alpha, true)?))
    }

    #[pyo3(signature = (other, *, alpha=None))]
    fn subtract(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        self.sub(py, other, alpha)
    }

    #[pyo3(signature = (other, *, alpha=None))]
    fn sub_<'py>(slf: &Bound<'py, Self>, other: &Bound<'py, PyAny>, alpha: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let o = me.alpha_scaled(slf.py(), "sub_", other, alpha)?;
        let t = &me.tensor();
        run(slf.py(), t.numel(), || t.binary_(BinaryOp::Sub, o.arg()))?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn div(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rounding_mode: Option<&str>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.divide_mode(py, other, rounding_mode)?))
    }

    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rounding_mode: Option<&str>) -> PyResult<PyTensor> {
        self.div(py, other, rounding_mode)
    }

    #[pyo3(signature = (other, *, rounding_mode=None))]
    fn div_<'py>(slf: &Bound<'py, Self>, other: &Bound<'py, PyAny>, rounding_mode: Option<&str>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        if rounding_mode.is_none() {
            me.inplace(slf.py(), BinaryOp::Div, other)?;
            return Ok(slf.clone());
        }
        let r = me.divide_mode(slf.py(), other, rounding_mode)?;
        me.assign_result(slf.py(), &r)?;
        Ok(slf.clone())
    }

    /// `self op number` through the op's Scalar overload (`op`: "add", "sub", "mul", "div"),
    /// as PyTorch's own composite ops compute it: node `{Op}Backward1`, listing self only.
    /// For functions written in Python that mirror those ops.
    fn _scalar_op(&self, py: Python<'_>, op: &str, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let op = match op {
            "add" => BinaryOp::Add,
            "sub" => BinaryOp::Sub,
            "mul" => BinaryOp::Mul,
            "div" => BinaryOp::Div,
            _ => return Err(PyRuntimeError::new_err(format!("_scalar_op: unknown op {op}"))),
        };
        let s = scalar_of(other).ok_or_else(|| PyTypeError::new_err("_scalar_op: expected a number"))?;
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || crate::tensor::arith::binary_scalar_overload(t, s, op))?))
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clamp(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.clamp_impl(py, min, max)?))
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clip(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        self.clamp(py, min, max)
    }

    #[pyo3(signature = (min=None, max=None))]
    fn clamp_<'py>(slf: &Bound<'py, Self>, min: Option<&Bound<'py, PyAny>>, max: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, Self>> {
        let t = &slf.get().tensor();
        let (lo, hi, n) = clamp_bounds(t, min, max)?;
        run(slf.py(), n, || t.clamp_(lo.as_ref().map(Other::arg), hi.as_ref().map(Other::arg)))?;
        Ok(slf.clone())
    }

    fn clamp_min(&self, py: Python<'_>, min: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let (t, min) = (&self.tensor(), other_strict(min)?);
        Ok(PyTensor::wrap(run(py, t.numel(), || t.clamp_min(min.arg()))?))
    }

    fn clamp_min_<'py>(slf: &Bound<'py, Self>, min: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let (t, min) = (&slf.get().tensor(), other_strict(min)?);
        run(slf.py(), t.numel(), || t.clamp_min_(min.arg()))?;
        Ok(slf.clone())
    }

    fn clamp_max(&self, py: Python<'_>, max: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let (t, max) = (&self.tensor(), other_strict(max)?);
        Ok(PyTensor::wrap(run(py, t.numel(), || t.clamp_max(max.arg()))?))
    }

    fn clamp_max_<'py>(slf: &Bound<'py, Self>, max: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let (t, max) = (&slf.get().tensor(), other_strict(max)?);
        run(slf.py(), t.numel(), || t.clamp_max_(max.arg()))?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (decimals=0))]
    fn round(&self, py: Python<'_>, decimals: i64) -> PyResult<PyTensor> {
        let t = &self.tensor();
        if decimals == 0 {
            return Ok(PyTensor::wrap(run(py, t.numel(), || t.unary(UnaryOp::Round))?));
        }
        let scale = Scalar::Float(10f64.powi(decimals as i32));
        let r = t.binary_scalar(BinaryOp::Mul, scale, false)?.unary(UnaryOp::Round)?.binary_scalar(BinaryOp::Div, scale, false)?;
        Ok(PyTensor::wrap(r))
    }

    /// gelu and its tanh approximation, for `nn.functional` (the other activations with
    /// parameters are declared in `crate::ops::unary`).
    #[pyo3(signature = (approximate="none"))]
    fn gelu(&self, py: Python<'_>, approximate: &str) -> PyResult<PyTensor> {
        let op = match approximate {
            "none" => UnaryOp::Gelu,
            "tanh" => UnaryOp::GeluTanh,
            other => return Err(PyRuntimeError::new_err(format!("approximate argument must be either none or tanh, got {other}"))),
        };
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.unary(op))?))
    }

    /// `x.where(condition, other)`: x where condition holds, else other.
    #[pyo3(name = "where")]
    fn where_method(&self, py: Python<'_>, condition: &PyTensor, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let y = other_strict(other)?;
        let t = &self.tensor();
        let c = &condition.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || match &y {
            Other::T(o) => Tensor::where_(c, Arg::T(t), Arg::T(o)),
            Other::S(s) => Tensor::where_(c, Arg::T(t), Arg::S(*s)),
        })?))
    }
    // ----- pointwise ops of several tensors -------------------------------------------------------

    fn frac(&self, py: Python<'_>) -> PyResult<PyTensor> {
        let t = &self.tensor();
        Ok(PyTensor::wrap(run(py, t.numel(), || t.frac())?))
    }

    fn lerp(&self, py: Python<'_>, end: &PyTensor, weight: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.lerp_impl(py, end, weight)?))
    }

    fn lerp_<'py>(slf: &Bound<'py, Self>, end: &PyTensor, weight: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let r = me.lerp_impl(slf.py(), end, weight)?;
        me.assign_result(slf.py(), &r)?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (tensor1, tensor2, *, value=None))]
    fn addcmul(&self, py: Python<'_>, tensor1: &PyTensor, tensor2: &PyTensor, value: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.addc_impl(py, tensor1, tensor2, value, false)?))
    }

    #[pyo3(signature = (tensor1, tensor2, *, value=None))]
    fn addcmul_<'py>(
        slf: &Bound<'py, Self>,
        tensor1: &PyTensor,
        tensor2: &PyTensor,
        value: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let r = me.addc_impl(slf.py(), tensor1, tensor2, value, false)?;
        me.assign_result(slf.py(), &r)?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (tensor1, tensor2, *, value=None))]
    fn addcdiv(&self, py: Python<'_>, tensor1: &PyTensor, tensor2: &PyTensor, value: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        Ok(PyTensor::wrap(self.addc_impl(py, tensor1, tensor2, value, true)?))
    }

    #[pyo3(signature = (tensor1, tensor2, *, value=None))]
    fn addcdiv_<'py>(
        slf: &Bound<'py, Self>,
        tensor1: &PyTensor,
        tensor2: &PyTensor,
        value: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let me = slf.get();
        let r = me.addc_impl(slf.py(), tensor1, tensor2, value, true)?;
        me.assign_result(slf.py(), &r)?;
        Ok(slf.clone())
    }
}

impl PyTensor {
    /// Writes an op's result into self, with PyTorch's cast check.
    pub(super) fn assign_result(&self, py: Python<'_>, r: &Tensor) -> PyResult<()> {
        let t = &self.tensor();
        run(py, t.numel(), || t.assign_result_(r))?;
        Ok(())
    }

    fn power(&self, py: Python<'_>, exponent: &Other) -> PyResult<Tensor> {
        let t = &self.tensor();
        match exponent {
            // Float exponents of float tensors have a fast path (x * x for 2).
            // So is x ** ±0.5 of bfloat16 (sqrt and rsqrt there, as in PyTorch).
            Other::S(s)
                if t.dtype().is_floating_point() && (!t.dtype().is_half() || t.dtype() == DType::BF16 && s.to_f64().abs() == 0.5) =>
            {
                Ok(run(py, t.numel(), || t.unary(UnaryOp::PowScalar(s.to_f64())))?)
            }
            Other::S(Scalar::Float(f)) if !t.dtype().is_floating_point() => {
                Ok(run(py, t.numel(), || t.to_dtype(DType::F32)?.unary(UnaryOp::PowScalar(*f)))?)
            }
            o => self.binop(py, BinaryOp::Pow, o, false),
        }
    }

    fn divide_mode(&self, py: Python<'_>, other: &Bound<'_, PyAny>, mode: Option<&str>) -> PyResult<Tensor> {
        let o = other_strict(other)?;
        let Some(mode) = mode else { return self.binop(py, BinaryOp::Div, &o, false) };
        let mode = crate::tensor::arith::RoundingMode::parse(mode)?;
        let t = &self.tensor();
        Ok(match &o {
            Other::T(x) => run(py, t.numel().max(x.numel()), || crate::tensor::arith::div_rounded(t, Arg::T(x), mode))?,
            Other::S(s) => run(py, t.numel(), || crate::tensor::arith::div_rounded(t, Arg::S(*s), mode))?,
        })
    }

    fn clamp_impl(&self, py: Python<'_>, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        let t = &self.tensor();
        let (lo, hi, n) = clamp_bounds(t, min, max)?;
        Ok(run(py, n, || t.clamp(lo.as_ref().map(Other::arg), hi.as_ref().map(Other::arg)))?)
    }

    fn lerp_impl(&self, py: Python<'_>, end: &PyTensor, weight: &Bound<'_, PyAny>) -> PyResult<Tensor> {
        let (t, e) = (&self.tensor(), &end.tensor());
        let w = other_strict(weight)?;
        Ok(run(py, t.numel().max(e.numel()), || t.lerp(e, w.arg()))?)
    }

    fn addc_impl(
        &self,
        py: Python<'_>,
        tensor1: &PyTensor,
        tensor2: &PyTensor,
        value: Option<&Bound<'_, PyAny>>,
        divide: bool,
    ) -> PyResult<Tensor> {
        let value = match value {
            None => Scalar::Int(1),
            Some(v) => scalar_of(v).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "value must be a number, not {}",
                    v.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?,
        };
        let (t, a, b) = (&self.tensor(), &tensor1.tensor(), &tensor2.tensor());
        Ok(run(py, t.numel().max(a.numel()).max(b.numel()), || t.addc(a, b, value, divide))?)
    }
}
