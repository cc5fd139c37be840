//! Matrix products with PyTorch's rules: `matmul` (1-D, 2-D and broadcast batched), mm, bmm,
//! addmm, dot, outer, mv and einsum.

use crate::cpu::matmul::{addmm_gemm, batched_gemm, batched_int_matmul, MatRef};
use crate::dtype::DType;
use crate::autograd::{record, GradMode, Op};
use crate::error::{Error, Result};
use crate::shape::broadcast_shapes;
use crate::tensor::{BinaryOp, Scalar, Tensor};

impl Tensor {
    /// Batched product of `[.., m, k] @ [.., k, n]` with equal batch shapes (already broadcast).
    fn bmm_raw(&self, other: &Tensor) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.bmm_kernel(other)?
        };
        record(Op::Matmul, &[self, other], &[&out], &[0, 1], &[]);
        Ok(out)
    }

    fn bmm_kernel(&self, other: &Tensor) -> Result<Tensor> {
        if !crate::device::common_device(&[self, other], false)?.is_cpu() {
            return crate::wgpu::matmul(self, other);
        }
        let nd = self.ndim();
        let (m, k, n) = (self.shape()[nd - 2], self.shape()[nd - 1], other.shape()[nd - 1]);
        let batch_shape = &self.shape()[..nd - 2];
        let mut out_shape = batch_shape.to_vec();
        out_shape.extend([m, n]);
        crate::tensor::check_alloc(&out_shape, self.dtype())?;
        crate::tensor::check_alloc(batch_shape, DType::I64)?;
        let batches: usize = batch_shape.iter().product();
        let mats = |t: &Tensor| -> Vec<MatRef> {
            let l = t.layout();
            let bl = crate::layout::Layout {
                shape: l.shape[..nd - 2].to_vec(),
                strides: l.strides[..nd - 2].to_vec(),
                offset: l.offset,
            };
            let offs = if batches == 0 { vec![] } else { crate::cpu::reduce::element_offsets(&bl) };
            offs.into_iter().map(|o| MatRef { offset: o, rs: l.strides[nd - 2], cs: l.strides[nd - 1] }).collect()
        };
        let (am, bm) = (mats(self), mats(other));
        let mut shape = batch_shape.to_vec();
        shape.extend([m, n]);
        let dt = self.dtype();
        let data = match dt {
            DType::F32 => Tensor::from_vec(self.with_slice::<f32, _>("matmul", |a, _| other.with_slice::<f32, _>("matmul", |b, _| batched_gemm(a, &am, b, &bm, m, k, n)))??, &shape)?,
            DType::F64 => Tensor::from_vec(self.with_slice::<f64, _>("matmul", |a, _| other.with_slice::<f64, _>("matmul", |b, _| batched_gemm(a, &am, b, &bm, m, k, n)))??, &shape)?,
            DType::F16 => Tensor::from_vec(self.with_slice::<half::f16, _>("matmul", |a, _| other.with_slice::<half::f16, _>("matmul", |b, _| batched_gemm(a, &am, b, &bm, m, k, n)))??, &shape)?,
            DType::BF16 => return self.to_dtype(DType::F32)?.bmm_kernel(&other.to_dtype(DType::F32)?)?.to_dtype(dt),
            _ => crate::with_arith_dtype!(dt, T => Tensor::from_vec(self.with_slice::<T, _>("matmul", |a, _| other.with_slice::<T, _>("matmul", |b, _| batched_int_matmul(a, &am, b, &bm, m, k, n)))??, &shape)?),
        };
        Ok(data)
    }

    fn check_same_dtype(&self, other: &Tensor, what: &str) -> Result<()> {
        if self.dtype() != other.dtype() {
            return Err(Error::Runtime(format!(
                "{what}: expected m1 and m2 to have the same dtype, but got: {} != {}",
                self.dtype().name(),
                other.dtype().name()
            )));
        }
        Ok(())
    }

    pub fn mm(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 2 {
            return Err(Error::Runtime(format!("self must be a matrix")));
        }
        if other.ndim() != 2 {
            return Err(Error::Runtime(format!("mat2 must be a matrix")));
        }
        if self.shape()[1] != other.shape()[0] {
            return Err(Error::MatmulShape { m: self.shape()[0], k1: self.shape()[1], k2: other.shape()[0], n: other.shape()[1] });
        }
        self.check_same_dtype(other, "mm")?;
        self.bmm_raw(other)
    }

    pub fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        crate::autograd::named("BmmBackward0", &[self, other], || {
            if self.ndim() != 3 {
                return Err(Error::Runtime(format!("batch1 must be a 3D tensor")));
            }
            if other.ndim() != 3 {
                return Err(Error::Runtime(format!("batch2 must be a 3D tensor")));
            }
            let (b, m, k) = (self.shape()[0], self.shape()[1], self.shape()[2]);
            if other.shape()[0] != b || other.shape()[1] != k {
                return Err(Error::Runtime(format!(
                    "Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{}, {}].",
                    other.shape()[0],
                    other.shape()[1]
                )));
            }
            let _ = m;
            self.check_same_dtype(other, "bmm")?;
            self.bmm_raw(other)
        })
    }

    /// `torch.matmul`.
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        let (da, db) = (self.ndim(), other.ndim());
        if da == 0 || db == 0 {
            return Err(Error::Runtime(format!(
                "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
            )));
        }
        self.check_same_dtype(other, "matmul")?;
        match (da, db) {
            (1, 1) => self.dot(other),
            (2, 2) => self.mm(other),
            (1, 2) => {
                // PyTorch's node for this squeeze is its squeeze_(dim) overload's.
                let out = self.unsqueeze(0)?.mm(other)?;
                Ok(out.view_op(out.layout().squeeze_dims(&[0]), super::view::ViewKind::Same("SqueezeBackward4")))
            }
            (2, 1) => {
                if self.shape()[1] != other.shape()[0] {
                    return Err(Error::Runtime(format!(
                        "size mismatch, got input ({}), mat ({}x{}), vec ({})",
                        self.shape()[0], self.shape()[0], self.shape()[1], other.shape()[0]
                    )));
                }
                crate::autograd::named("MvBackward0", &[self, other], || self.mm(&other.unsqueeze(1)?)?.squeeze_dims(&[1]))
            }
            _ => {
                let a = if da == 1 { self.unsqueeze(0)? } else { self.clone() };
                let b = if db == 1 { other.unsqueeze(1)? } else { other.clone() };
                let (na, nb) = (a.ndim(), b.ndim());
                let (m, k1) = (a.shape()[na - 2], a.shape()[na - 1]);
                let (k2, n) = (b.shape()[nb - 2], b.shape()[nb - 1]);
                if k1 != k2 {
                    return Err(Error::MatmulShape { m, k1, k2, n });
                }
                let batch = broadcast_shapes(&a.shape()[..na - 2], &b.shape()[..nb - 2])?;
                let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
                let mut sa = batch.clone();
                sa.extend([m, k1]);
                let mut sb = batch.clone();
                sb.extend([k2, n]);
                let out = a.expand(&to_i64(&sa))?.bmm_raw(&b.expand(&to_i64(&sb))?)?;
                let out = if da == 1 { out.squeeze_dims(&[-2])? } else { out };
                if db == 1 {
                    return out.squeeze_dims(&[-1]);
                }
                // PyTorch folds the batch into one matrix product and views the result back.
                Ok(if da == 1 { out } else { crate::autograd::composite("UnsafeViewBackward0", &[self, other], vec![out]).pop().expect("one output in, one out") })
            }
        }
    }

    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        crate::autograd::named("DotBackward0", &[self, other], || {
            if self.ndim() != 1 || other.ndim() != 1 {
                return Err(Error::Runtime(format!(
                    "1D tensors expected, but got {}D and {}D tensors",
                    self.ndim(),
                    other.ndim()
                )));
            }
            if self.numel() != other.numel() {
                return Err(Error::Runtime(format!(
                    "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                    self.numel(), other.numel(), self.numel(), other.numel()
                )));
            }
            self.check_same_dtype(other, "dot")?;
            self.unsqueeze(0)?.mm(&other.unsqueeze(1)?)?.reshape(&[])
        })
    }

    /// `torch.inner`: products summed over the last dim of both, as one matrix product viewed
    /// back to `self.shape[:-1] + other.shape[:-1]` (a number operand multiplies).
    pub fn inner(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.binary(BinaryOp::Mul, other);
        }
        let (k1, k2) = (self.shape()[self.ndim() - 1], other.shape()[other.ndim() - 1]);
        if k1 != k2 {
            return Err(Error::Runtime(format!(
                "inner() the last dimension must match on both input tensors but got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            )));
        }
        let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        let mut shape = to_i64(&self.shape()[..self.ndim() - 1]);
        shape.extend(to_i64(&other.shape()[..other.ndim() - 1]));
        let out = if self.ndim() == 1 && other.ndim() == 1 {
            self.dot(other)?
        } else {
            self.reshape(&[-1, k1 as i64])?.mm(&other.reshape(&[-1, k2 as i64])?.t()?)?
        };
        out.view(&shape)
    }

    pub fn outer(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(Error::Runtime("outer: expected 1D tensors".into()));
        }
        self.unsqueeze(1)?.binary(BinaryOp::Mul, &other.unsqueeze(0)?)
    }

    /// `addmm(input, m1, m2, beta, alpha)` = beta * input + alpha * (m1 @ m2), one op with its
    /// own node (AddmmBackward0): on the CPU the broadcast `beta * input` is written into the
    /// output first and gemm accumulates the product into it.
    pub fn addmm(&self, m1: &Tensor, m2: &Tensor, beta: Scalar, alpha: Scalar) -> Result<Tensor> {
        for (t, name) in [(m1, "self"), (m2, "mat2")] {
            if t.ndim() != 2 {
                return Err(Error::Runtime(format!("addmm: {name} must be a matrix, got {}-D tensor", t.ndim())));
            }
        }
        let (m, k, n) = (m1.shape()[0], m1.shape()[1], m2.shape()[1]);
        if m2.shape()[0] != k {
            return Err(Error::Runtime(format!("addmm: mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {}x{n})", m2.shape()[0])));
        }
        for (a, b) in [(m1, m2), (self, m1)] {
            if a.dtype() != b.dtype() {
                return Err(Error::Runtime(format!(
                    "self and mat2 must have the same dtype, but got {} and {}",
                    crate::tensor::arith::title_name(a.dtype()),
                    crate::tensor::arith::title_name(b.dtype())
                )));
            }
        }
        let out = {
            let _raw = GradMode::disabled();
            // Checks that the input broadcasts to [m, n] (PyTorch's expand error), even when
            // beta = 0 leaves it unread.
            let bias = self.expand(&[m as i64, n as i64])?;
            self.addmm_kernel(&bias, m1, m2, beta, alpha)?
        };
        let saves: Vec<usize> = [m2.requires_grad().then_some(1), m1.requires_grad().then_some(2)].into_iter().flatten().collect();
        let transposed = [m1.is_transposed_matrix(), m2.is_transposed_matrix()];
        record(Op::Addmm { beta: beta.to_f64(), alpha: alpha.to_f64(), transposed }, &[self, m1, m2], &[&out], &saves, &[]);
        Ok(out)
    }

    /// `addmm`'s values; `bias` is the input broadcast to the output's shape.
    fn addmm_kernel(&self, bias: &Tensor, m1: &Tensor, m2: &Tensor, beta_s: Scalar, alpha_s: Scalar) -> Result<Tensor> {
        let dt = m1.dtype();
        let (beta, alpha) = (beta_s.to_f64(), alpha_s.to_f64());
        let cpu_float = matches!(dt, DType::F32 | DType::F64 | DType::F16);
        if !cpu_float || !crate::device::common_device(&[self, m1, m2], false)?.is_cpu() {
            // Other dtypes and devices: the product, then the scaled sum.
            let prod = m1.mm(m2)?;
            let prod = if alpha == 1.0 { prod } else { prod.binary_scalar(BinaryOp::Mul, alpha_s, false)? };
            if beta == 0.0 {
                return Ok(prod);
            }
            let b = if beta == 1.0 { bias.clone() } else { bias.binary_scalar(BinaryOp::Mul, beta_s, false)? };
            return prod.binary(BinaryOp::Add, &b);
        }
        let (m, k, n) = (m1.shape()[0], m1.shape()[1], m2.shape()[1]);
        crate::tensor::check_alloc(&[m, n], dt)?;
        // beta * input is computed on the input's own (small) shape before broadcasting.
        let bias = match beta {
            0.0 => None,
            1.0 => Some(bias.clone()),
            b => Some(self.binary_scalar(BinaryOp::Mul, Scalar::Float(b), false)?.expand(&[m as i64, n as i64])?),
        };
        let mat = |t: &Tensor| MatRef { offset: t.layout().offset, rs: t.layout().strides[0], cs: t.layout().strides[1] };
        let (am, bm) = (mat(m1), mat(m2));
        macro_rules! run {
            ($t:ty) => {{
                let dst = bias.map(|b| b.with_slice::<$t, _>("addmm", |s, l| crate::cpu::cast::convert_strided::<$t, $t>(s, l))).transpose()?;
                let alpha = Scalar::Float(alpha).to_element::<$t>();
                let data = m1.with_slice::<$t, _>("addmm", |a, _| m2.with_slice::<$t, _>("addmm", |b, _| addmm_gemm(dst, a, am, b, bm, m, k, n, alpha)))??;
                Tensor::from_vec(data, &[m, n])
            }};
        }
        match dt {
            DType::F32 => run!(f32),
            DType::F64 => run!(f64),
            _ => run!(half::f16),
        }
    }

    /// `torch.einsum` with explicit (`->`) or implicit output, and `...` for broadcast dims.
    pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
        crate::tensor::einsum::einsum(equation, operands)
    }
}
