//! Matrix products with PyTorch's rules: `matmul` (1-D, 2-D and broadcast batched), mm, bmm,
//! addmm, dot, outer, mv and einsum.

use crate::cpu::matmul::{batched_gemm, batched_int_matmul, MatRef};
use crate::dtype::{DType, Operand, result_type};
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
            (1, 2) => self.unsqueeze(0)?.mm(other)?.squeeze_dims(&[0]),
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

    pub fn outer(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(Error::Runtime("outer: expected 1D tensors".into()));
        }
        self.unsqueeze(1)?.binary(BinaryOp::Mul, &other.unsqueeze(0)?)
    }

    /// `addmm(input, m1, m2, beta, alpha)` = beta * input + alpha * (m1 @ m2).
    pub fn addmm(&self, m1: &Tensor, m2: &Tensor, beta: Scalar, alpha: Scalar) -> Result<Tensor> {
        crate::autograd::named("AddmmBackward0", &[self, m1, m2], || {
            let prod = m1.mm(m2)?;
            let prod = if alpha.to_f64() == 1.0 { prod } else { prod.binary_scalar(BinaryOp::Mul, alpha, false)? };
            if beta.to_f64() == 0.0 {
                let shape = broadcast_shapes(self.shape(), prod.shape())?;
                if shape != prod.shape() {
                    return Err(Error::Runtime(format!("The expanded size of the tensor must match")));
                }
                return Ok(prod);
            }
            let bias = if beta.to_f64() == 1.0 { self.clone() } else { self.binary_scalar(BinaryOp::Mul, beta, false)? };
            let out = prod.binary(BinaryOp::Add, &bias)?;
            if out.shape() != prod.shape() {
                return Err(Error::Runtime(format!(
                    "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension 1.",
                    prod.shape()[1], self.shape().last().copied().unwrap_or(1)
                )));
            }
            let _ = result_type(&[Operand::Tensor(self.dtype())]);
            Ok(out)
        })
    }

    /// `torch.einsum` with explicit (`->`) or implicit output, and `...` for broadcast dims.
    pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
        crate::tensor::einsum::einsum(equation, operands)
    }
}
