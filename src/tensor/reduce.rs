//! Reductions (sum, mean, prod, max/min, arg-reductions, var/std, norm, logsumexp, all/any),
//! softmax and cumulative ops.

use crate::autograd::{record, record_named, GradMode, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::{wrap_dim, wrap_dims};
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, ReduceOp, Scalar, Tensor, UnaryOp};

impl Tensor {
    /// The dims a reduction covers (all of them for `None` or an empty list) and its output shape.
    pub fn reduction_shape(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<(Vec<usize>, Vec<usize>)> {
        let rdims: Vec<usize> = match dims {
            Some(d) if !d.is_empty() => wrap_dims(d, self.ndim())?,
            _ => (0..self.ndim()).collect(),
        };
        let rdims: Vec<usize> = rdims.into_iter().filter(|&d| d < self.ndim()).collect();
        let shape = (0..self.ndim())
            .filter_map(|d| match (rdims.contains(&d), keepdim) {
                (false, _) => Some(self.shape()[d]),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        Ok((rdims, shape))
    }

    /// Sum, product, max, min, all or any over `dims` (PyTorch's output dtypes: integer sums and
    /// products give int64, all/any give bool).
    pub fn reduce(&self, op: ReduceOp, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.reduce_raw(op, dims, keepdim)?
        };
        if crate::autograd::is_grad_enabled() && self.requires_grad() {
            let (rdims, _) = self.reduction_shape(dims, keepdim)?;
            let full = dims.is_none_or(|d| d.is_empty());
            match op {
                ReduceOp::Sum => record(Op::Sum { dims: rdims, keepdim, full }, &[self], &[&out], &[], &[]),
                ReduceOp::Prod => record(Op::Prod { dims: rdims, keepdim, full }, &[self], &[&out], &[0], &[0]),
                ReduceOp::Max | ReduceOp::Min => {
                    record(Op::Extremum { dims: rdims, keepdim, max: op == ReduceOp::Max, nan_ties: false }, &[self], &[&out], &[0], &[0])
                }
                ReduceOp::All | ReduceOp::Any => {}
            }
        }
        Ok(out)
    }

    /// `max()` / `min()` over all elements: amax's value, but a NaN result shares its gradient
    /// between the NaNs of the input (PyTorch's `evenly_distribute_backward`). Its own overload
    /// in PyTorch, with its own node (MaxBackward1 / MinBackward1; amax's is not) and its error
    /// for an empty input.
    pub fn extremum_all(&self, max: bool) -> Result<Tensor> {
        let name = if max { "max" } else { "min" };
        if self.numel() == 0 {
            return Err(Error::Runtime(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )));
        }
        let op = if max { ReduceOp::Max } else { ReduceOp::Min };
        let out = {
            let _raw = GradMode::disabled();
            self.reduce_raw(op, None, false)?
        };
        if crate::autograd::is_grad_enabled() && self.requires_grad() {
            let dims = (0..self.ndim()).collect();
            let node = if max { "MaxBackward1" } else { "MinBackward1" };
            record_named(Some(node), Op::Extremum { dims, keepdim: false, max, nan_ties: true }, &[self], &[&out], &[0], &[0]);
        }
        Ok(out)
    }

    fn reduce_raw(&self, op: ReduceOp, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let (rdims, shape) = self.reduction_shape(dims, keepdim)?;
        if matches!(op, ReduceOp::Max | ReduceOp::Min) {
            self.check_nonempty_reduction(if op == ReduceOp::Max { "amax" } else { "amin" }, dims, &rdims)?;
        }
        Ok(Tensor::from_array(self.backend().reduce(self.array(), op, &rdims, &shape)?))
    }

    /// PyTorch's errors for a max/min over no elements: without dims when the tensor is empty,
    /// or over a dim of size zero.
    fn check_nonempty_reduction(&self, name: &str, dims: Option<&[i64]>, rdims: &[usize]) -> Result<()> {
        if self.numel() != 0 {
            return Ok(());
        }
        if dims.is_none_or(|d| d.is_empty()) {
            return Err(Error::Runtime(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )));
        }
        match rdims.iter().find(|&&d| self.shape()[d] == 0) {
            Some(d) => Err(Error::Index(format!("{name}(): Expected reduction dim {d} to have non-zero size."))),
            None => Ok(()),
        }
    }

    pub fn sum(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        self.reduce(ReduceOp::Sum, dims, keepdim)
    }

    pub fn mean(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        crate::autograd::named(if dims.is_some_and(|d| !d.is_empty()) { "MeanBackward1" } else { "MeanBackward0" }, &[self], || {
            if !self.dtype().is_floating_point() {
                return Err(Error::NotImplemented(format!(
                    "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                    self.dtype().title_name()
                )));
            }
            if self.dtype().is_half() {
                // 16-bit floats accumulate in float32 and divide there: the sum alone may
                // overflow (100000 twos) where the mean does not.
                return self.to_dtype(DType::F32)?.mean(dims, keepdim)?.to_dtype(self.dtype());
            }
            let (rdims, _) = self.reduction_shape(dims, keepdim)?;
            let n: usize = rdims.iter().map(|&d| self.shape()[d]).product();
            self.sum(dims, keepdim)?.binary_scalar(BinaryOp::Div, Scalar::Float(n as f64), false)
        })
    }

    /// Values and int64 indices of the max (or min) along `dim`; the first index wins ties, a
    /// NaN wins over numbers.
    pub fn max_min_dim(&self, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
        if self.device().is_cpu() && self.ndim() > 0 && !self.dtype().is_half() {
            // Values and indices in one pass (`cpu::extremum`), the gradient scattered to the
            // indices by one node.
            let d = wrap_dim(dim, self.ndim())?;
            if self.shape()[d] == 0 {
                return Err(Error::Index(format!(
                    "{}(): Expected reduction dim {d} to have non-zero size.",
                    if max { "max" } else { "min" }
                )));
            }
            let (_, shape) = self.reduction_shape(Some(&[d as i64]), keepdim)?;
            let (v, i) = crate::cpu::extremum::max_min_dim(self.array(), d, max, &shape)?;
            let (values, indices) = (Tensor::from_array(v), Tensor::from_array(i));
            let node = if max { "MaxBackward0" } else { "MinBackward0" };
            record_named(Some(node), Op::IndexedExtremum { dim: d, keepdim, max }, &[self], &[&values, &indices], &[], &[1]);
            return Ok((values, indices));
        }
        crate::autograd::named_pair(if max { "MaxBackward0" } else { "MinBackward0" }, &[self], || {
            let t = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
            let d = wrap_dim(dim, t.ndim())?;
            if t.shape()[d] == 0 {
                return Err(Error::Index(format!(
                    "{}(): Expected reduction dim {} to have non-zero size.",
                    if max { "max" } else { "min" },
                    d
                )));
            }
            let dt = t.dtype();
            if dt.is_half() {
                let (v, i) = t.to_dtype(DType::F32)?.max_min_dim(dim, keepdim, max)?;
                return Ok((v.to_dtype(dt)?, i));
            }
            let (_, mut shape) = t.reduction_shape(Some(&[d as i64]), keepdim)?;
            if self.ndim() == 0 {
                shape.clear();
            }
            let shape_i64: Vec<i64> = shape.iter().map(|&v| v as i64).collect();
            let indices = Tensor::from_array(t.backend().arg_reduce(t.array(), d, max)?).reshape(&shape_i64)?;
            let kept_shape: Vec<i64> = t.reduction_shape(Some(&[d as i64]), true)?.1.iter().map(|&v| v as i64).collect();
            let values = t.gather(d as i64, &indices.reshape(&kept_shape)?)?;
            let values = values.reshape(&shape_i64)?;
            Ok((values, indices))
        })
    }

    /// `argmax`/`argmin`; over the flattened tensor when `dim` is None.
    pub fn argmax_min(&self, dim: Option<i64>, keepdim: bool, max: bool) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            return Err(Error::NotImplemented(format!("{}(): does not support bool input", if max { "argmax" } else { "argmin" })));
        }
        let name = if max { "argmax" } else { "argmin" };
        match dim {
            Some(d) => {
                let w = wrap_dim(d, self.ndim())?;
                if self.ndim() > 0 && self.shape()[w] == 0 {
                    return Err(Error::Index(format!("{name}(): Expected reduction dim {w} to have non-zero size.")));
                }
                Ok(self.max_min_dim(d, keepdim, max)?.1)
            }
            None => {
                if self.numel() == 0 {
                    return Err(Error::Runtime(format!(
                        "{}(): Expected reduction dim to be specified for input.numel() == 0.",
                        if max { "argmax" } else { "argmin" }
                    )));
                }
                let flat = self.reshape(&[-1])?;
                let i = flat.max_min_dim(0, false, max)?.1;
                if keepdim {
                    i.reshape(&vec![1; self.ndim()])
                } else {
                    Ok(i)
                }
            }
        }
    }

    /// Variance with `correction` (1 = unbiased) over `dims`.
    pub fn var(&self, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        self.var_std(dims, correction, keepdim, false)
    }

    pub fn std(&self, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        self.var_std(dims, correction, keepdim, true)
    }

    /// var, or its square root when `std`, computed unrecorded and recorded as one node whose
    /// gradient is PyTorch's formula: `g * 2 (x - mean) / (n - correction)` (for std, `g` over
    /// twice the result first): two passes over x, where the gradients through the mean, the
    /// difference and its squares took six.
    fn var_std(&self, dims: Option<&[i64]>, correction: f64, keepdim: bool, std: bool) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Err(Error::NotImplemented("std and var only support floating point and complex dtypes".into()));
        }
        if self.dtype().is_half() {
            // In float32 throughout, as PyTorch accumulates 16-bit floats.
            return crate::autograd::named(if std { "StdBackward0" } else { "VarBackward0" }, &[self], || {
                self.to_dtype(DType::F32)?.var_std(dims, correction, keepdim, std)?.to_dtype(self.dtype())
            });
        }
        let (rdims, _) = self.reduction_shape(dims, keepdim)?;
        let out = {
            let _raw = GradMode::disabled();
            let n: usize = rdims.iter().map(|&d| self.shape()[d]).product();
            let mean = self.mean(dims, true)?;
            let dev = self.binary(BinaryOp::Sub, &mean)?;
            let ss = dev.sum_squares(dims, keepdim)?;
            let var = ss.binary_scalar(BinaryOp::Div, Scalar::Float((n as f64 - correction).max(0.0)), false)?;
            if std {
                var.unary(UnaryOp::Sqrt)?
            } else {
                var
            }
        };
        // As PyTorch's nodes: var keeps its input, std its result too.
        record(Op::Var { dims: rdims, correction, keepdim, std }, &[self], &[&out], &[0], if std { &[0] } else { &[] });
        Ok(out)
    }

    /// The `p`-norm over `dims` (`p` may be infinite).
    pub fn norm(&self, p: f64, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        crate::autograd::named("LinalgVectorNormBackward0", &[self], || {
            if !self.dtype().is_floating_point() {
                return Err(Error::NotImplemented(format!(
                    "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                    self.dtype().title_name()
                )));
            }
            if self.dtype().is_half() {
                // In float32 throughout, as PyTorch accumulates 16-bit floats.
                return self.to_dtype(DType::F32)?.norm(p, dims, keepdim)?.to_dtype(self.dtype());
            }
            // The root of a zero sum has an infinite slope, and PyTorch's gradient there is 0:
            // under autograd the root reads 1 where the sum is zero and its result is replaced
            // by that zero, so no infinity meets a zero gradient (at any order).
            let root = |s: Tensor, e: f64| -> Result<Tensor> {
                let pow = |t: &Tensor| if e == 0.5 { t.unary(UnaryOp::Sqrt) } else { t.unary(UnaryOp::PowScalar(e)) };
                if !(crate::autograd::is_grad_enabled() && s.requires_grad()) {
                    return pow(&s);
                }
                let zero = s.binary_scalar(BinaryOp::Eq, Scalar::Float(0.0), false)?;
                let safe = Tensor::where_(&zero, super::arith::Arg::S(Scalar::Float(1.0)), super::arith::Arg::T(&s))?;
                Tensor::where_(&zero, super::arith::Arg::T(&s), super::arith::Arg::T(&pow(&safe)?))
            };
            if p == 2.0 {
                // x * x is |x| * |x|, bit for bit and in its gradient.
                return root(self.sum_squares(dims, keepdim)?, 0.5);
            }
            let a = self.unary(UnaryOp::Abs)?;
            if p == 1.0 {
                a.sum(dims, keepdim)
            } else if p == f64::INFINITY {
                a.reduce(ReduceOp::Max, dims, keepdim)
            } else if p == f64::NEG_INFINITY {
                a.reduce(ReduceOp::Min, dims, keepdim)
            } else if p == 0.0 {
                // The count of non-zeros: its gradient is zero, but PyTorch still records it.
                let count = a.binary_scalar(BinaryOp::Ne, Scalar::Int(0), false)?.to_dtype(self.dtype())?.sum(dims, keepdim)?;
                crate::autograd::record(crate::autograd::Op::Fill { kind: "LinalgVectorNormBackward0" }, &[self], &[&count], &[], &[]);
                Ok(count)
            } else {
                root(a.unary(UnaryOp::PowScalar(p))?.sum(dims, keepdim)?, 1.0 / p)
            }
        })
    }

    /// `(x * x).sum(dims, keepdim)` of a float32 or float64 tensor: outside autograd in one
    /// pass through the backend's fused kernel (the same sums, bit for bit), else recorded as
    /// the square and the sum.
    fn sum_squares(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        if !(crate::autograd::is_grad_enabled() && self.requires_grad()) && matches!(self.dtype(), DType::F32 | DType::F64) {
            let (rdims, shape) = self.reduction_shape(dims, keepdim)?;
            if let Some(found) = self.backend().sum_squares(self.array(), &rdims, &shape)? {
                return Ok(Tensor::from_array(found));
            }
        }
        self.binary(BinaryOp::Mul, self)?.sum(dims, keepdim)
    }

    /// `log(sum(exp(x)))` over `dims`, computed stably.
    pub fn logsumexp(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if let Some(out) = self.logsumexp_fused(dims, keepdim)? {
            return Ok(out);
        }
        crate::autograd::named("LogsumexpBackward0", &[self], || {
            let x = if self.dtype().is_floating_point() { self.clone() } else { self.to_dtype(DType::F32)? };
            if x.numel() == 0 {
                // No max to shift by: the sums are empty (giving -inf) or there are no outputs.
                return x.sum(Some(dims), keepdim)?.unary(UnaryOp::Log);
            }
            let m = x.reduce(ReduceOp::Max, Some(dims), true)?;
            // An infinite max would give inf - inf: shift by zero there instead.
            let finite = m.unary(UnaryOp::Abs)?.binary_scalar(BinaryOp::Ne, Scalar::Float(f64::INFINITY), false)?;
            let m = Tensor::where_(&finite, super::arith::Arg::T(&m), super::arith::Arg::S(Scalar::Float(0.0)))?;
            let s = x.binary(BinaryOp::Sub, &m)?.unary(UnaryOp::Exp)?.sum(Some(dims), keepdim)?.unary(UnaryOp::Log)?;
            let m = if keepdim { m } else { m.squeeze_dims(dims)? };
            s.binary(BinaryOp::Add, &m)
        })
    }

    /// logsumexp over one dim of a float32 or float64 tensor through the backend's fused kernel
    /// (no shifted copy or exponentials written out), recorded as one node whose gradient is
    /// `g * exp(x - result)`, as PyTorch's. None where there is no such kernel or another case.
    fn logsumexp_fused(&self, dims: &[i64], keepdim: bool) -> Result<Option<Tensor>> {
        if !matches!(self.dtype(), DType::F32 | DType::F64) || dims.len() != 1 || self.ndim() == 0 || self.numel() == 0 {
            return Ok(None);
        }
        let (rdims, shape) = self.reduction_shape(Some(dims), keepdim)?;
        let found = {
            let _raw = GradMode::disabled();
            self.backend().logsumexp(self.array(), rdims[0], &shape)?
        };
        let Some(out) = found else { return Ok(None) };
        let out = Tensor::from_array(out);
        record(Op::Logsumexp { dims: rdims, keepdim }, &[self], &[&out], &[0], &[0]);
        Ok(Some(out))
    }

    /// `cumsum` (or `cumprod` when `product`) along `dim`; integers accumulate in int64.
    pub fn cumulative(&self, dim: i64, product: bool) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.cumulative_raw(dim, product)?
        };
        if crate::autograd::is_grad_enabled() && self.requires_grad() {
            let d = wrap_dim(dim, self.ndim().max(1))?;
            let op = if product { Op::Cumprod { dim: d } } else { Op::Cumsum { dim: d } };
            record(op, &[self], &[&out], &[0], &[0]);
        }
        Ok(out)
    }

    /// Sums from the end of each lane along `d` (cumsum's gradient): on the CPU outside
    /// create_graph one reversed scan, else flip, cumsum, flip.
    pub(crate) fn reverse_cumsum(&self, d: usize) -> Result<Tensor> {
        if !crate::autograd::is_grad_enabled()
            && self.device().is_cpu()
            && matches!(self.dtype(), DType::F32 | DType::F64)
            && self.ndim() > 0
        {
            return Ok(Tensor::from_array(crate::cpu::scan::scan(self.array(), d, false, true)?));
        }
        let d = d as i64;
        self.flip(&[d])?.cumulative(d, false)?.flip(&[d])
    }

    /// cumprod's input gradient along `d` from the incoming gradient `g` (self is the input `x`,
    /// `y` the result). On the CPU outside create_graph one pass (`cpu::scan::cumprod_backward`).
    /// Elsewhere, as PyTorch: without zeros in x `reverse_cumsum(g * y) / x`; with zeros, where
    /// that is 0/0, the sum over `j >= k` of `g_j` times the product of x over `i <= j, i != k`,
    /// built from the first zero of each lane (O(n)), or while a graph is being built from
    /// products of slices for every k (O(n^2), whose own gradient is cumprod's second one).
    pub(crate) fn cumprod_backward(&self, g: &Tensor, y: &Tensor, d: usize) -> Result<Tensor> {
        let x = self;
        if x.ndim() == 0 || x.shape()[d] <= 1 {
            return Ok(g.clone());
        }
        let cpu = x.device().is_cpu() && g.device().is_cpu() && y.device().is_cpu();
        let same = g.dtype() == x.dtype() && y.dtype() == x.dtype() && g.shape() == x.shape() && y.shape() == x.shape();
        if !crate::autograd::is_grad_enabled() && cpu && same && matches!(x.dtype(), DType::F32 | DType::F64) {
            return Ok(Tensor::from_array(crate::cpu::scan::cumprod_backward(g.array(), x.array(), y.array(), d)?));
        }
        let zero = x.binary_scalar(BinaryOp::Eq, Scalar::Int(0), false)?;
        if !zero.any_true()? {
            return g.binary(BinaryOp::Mul, y)?.reverse_cumsum(d)?.binary(BinaryOp::Div, x);
        }
        let (di, len) = (d as i64, x.shape()[d] as i64);
        if !crate::autograd::is_grad_enabled() {
            // Before a lane's first zero: reverse_cumsum(g * y) / x (y is 0 from that zero on).
            // At it: the same sum over the cumprod of x with that zero taken as one. After: 0.
            let seen = zero.cumulative(di, false)?;
            let before = seen.binary_scalar(BinaryOp::Eq, Scalar::Int(0), false)?;
            let first = zero.binary(BinaryOp::LogicalAnd, &seen.binary_scalar(BinaryOp::Eq, Scalar::Int(1), false)?)?;
            let one = Scalar::Int(1);
            let x_safe = Tensor::where_(&before, Arg::T(x), Arg::S(one))?;
            let a = g.binary(BinaryOp::Mul, y)?.reverse_cumsum(d)?.binary(BinaryOp::Div, &x_safe)?;
            let x_one = Tensor::where_(&first, Arg::S(one), Arg::T(x))?;
            let b = g.binary(BinaryOp::Mul, &x_one.cumulative(di, true)?)?.reverse_cumsum(d)?;
            let at_first = Tensor::where_(&first, Arg::T(&b), Arg::S(Scalar::Int(0)))?;
            return Tensor::where_(&before, Arg::T(&a), Arg::T(&at_first));
        }
        // grad_k = y_(k-1) * (g_k + sum over j > k of g_j * prod(x over k < i <= j)): every
        // factor a differentiable op of x (y_(k-1) through y's own node).
        let mut parts = Vec::with_capacity(len as usize);
        for k in 0..len {
            let mut part = g.narrow(di, k, 1)?;
            if k + 1 < len {
                let from_next = x.narrow(di, k + 1, len - k - 1)?.cumulative(di, true)?;
                let later = g.narrow(di, k + 1, len - k - 1)?.binary(BinaryOp::Mul, &from_next)?.sum(Some(&[di]), true)?;
                part = part.binary(BinaryOp::Add, &later)?;
            }
            if k > 0 {
                part = part.binary(BinaryOp::Mul, &y.narrow(di, k - 1, 1)?)?;
            }
            parts.push(part);
        }
        Tensor::cat(&parts, di)
    }

    fn cumulative_raw(&self, dim: i64, product: bool) -> Result<Tensor> {
        let t = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
        let d = wrap_dim(dim, t.ndim())?;
        let dt = t.dtype();
        let work = if dt.is_half() {
            DType::F32
        } else if !dt.is_floating_point() {
            DType::I64
        } else {
            dt
        };
        let t = t.to_dtype(work)?;
        if t.device().is_cpu() {
            // In x's shape directly (see `cpu::scan`).
            let out = Tensor::from_array(crate::cpu::scan::scan(t.array(), d, product, false)?);
            let out = if dt.is_half() { out.to_dtype(dt)? } else { out };
            return if self.ndim() == 0 { out.reshape(&[]) } else { Ok(out) };
        }
        // In the work dtype: float32 (the CPU accumulates it in float64), float64, int64.
        let moved = Tensor::from_array(t.backend().cumulative(t.array(), d, product)?);
        let last = moved.ndim() as i64 - 1;
        let out = moved.movedim(last, d as i64)?.contiguous()?;
        let out = if dt.is_half() { out.to_dtype(dt)? } else { out };
        if self.ndim() == 0 {
            out.reshape(&[])
        } else {
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_tensor_extrema_name_their_node_and_refuse_no_elements() {
        let x = Tensor::from_vec(vec![1.0f64, 4.0, 2.0], &[3]).unwrap();
        x.set_requires_grad(true).unwrap();
        let m = x.extremum_all(true).unwrap();
        assert_eq!(m.to_vec::<f64>().unwrap(), [4.0]);
        assert_eq!(m.grad_fn().unwrap().name(), "MaxBackward1");
        assert_eq!(x.extremum_all(false).unwrap().grad_fn().unwrap().name(), "MinBackward1");
        let empty = Tensor::from_vec(Vec::<f64>::new(), &[0, 3]).unwrap();
        let e = empty.extremum_all(false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        );
    }
}
