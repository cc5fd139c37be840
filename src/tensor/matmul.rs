//! Matrix products with PyTorch's rules: `matmul` (1-D, 2-D and broadcast batched), mm, bmm,
//! addmm, dot, outer, mv and einsum.

use crate::autograd::{record, record_named, GradMode, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::broadcast_shapes;
use crate::tensor::{BinaryOp, Scalar, Tensor};

impl Tensor {
    /// Batched product of `[.., m, k] @ [.., k, n]` with equal batch shapes (already broadcast),
    /// recorded as the node `name` (MmBackward0 by default).
    fn bmm_raw(&self, other: &Tensor, name: Option<&str>) -> Result<Tensor> {
        let out = {
            let _raw = GradMode::disabled();
            self.bmm_kernel(other)?
        };
        record_named(name, Op::Matmul, &[self, other], &[&out], &[0, 1], &[]);
        Ok(out)
    }

    fn bmm_kernel(&self, other: &Tensor) -> Result<Tensor> {
        crate::device::common_device(&[self, other], false)?;
        let nd = self.ndim();
        let batch_shape = &self.shape()[..nd - 2];
        let mut out_shape = batch_shape.to_vec();
        out_shape.extend([self.shape()[nd - 2], other.shape()[nd - 1]]);
        crate::tensor::check_alloc(&out_shape, self.dtype())?;
        crate::tensor::check_alloc(batch_shape, DType::I64)?;
        Ok(Tensor::from_array(self.backend().matmul(self.array(), other.array())?))
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
            return Err(Error::Runtime("self must be a matrix".into()));
        }
        if other.ndim() != 2 {
            return Err(Error::Runtime("mat2 must be a matrix".into()));
        }
        if self.shape()[1] != other.shape()[0] {
            return Err(Error::MatmulShape { m: self.shape()[0], k1: self.shape()[1], k2: other.shape()[0], n: other.shape()[1] });
        }
        self.check_same_dtype(other, "mm")?;
        self.bmm_raw(other, None)
    }

    pub fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 3 {
            return Err(Error::Runtime("batch1 must be a 3D tensor".into()));
        }
        if other.ndim() != 3 {
            return Err(Error::Runtime("batch2 must be a 3D tensor".into()));
        }
        let (b, k) = (self.shape()[0], self.shape()[2]);
        if other.shape()[0] != b || other.shape()[1] != k {
            return Err(Error::Runtime(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{}, {}].",
                other.shape()[0],
                other.shape()[1]
            )));
        }
        self.check_same_dtype(other, "bmm")?;
        self.bmm_raw(other, Some("BmmBackward0"))
    }

    /// `torch.matmul`, by PyTorch's steps (so its graph has PyTorch's nodes): dot, mv, mm;
    /// a batch times a matrix or vector folded into one mm or mv; else broadcast batches
    /// reshaped for one bmm.
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        let (da, db) = (self.ndim(), other.ndim());
        if da == 0 || db == 0 {
            return Err(Error::Runtime(format!("both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")));
        }
        self.check_same_dtype(other, "matmul")?;
        let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        match (da, db) {
            (1, 1) => self.dot(other),
            (2, 2) => self.mm(other),
            (1, 2) => {
                // PyTorch's node for this squeeze is its squeeze_(dim) overload's.
                let out = self.unsqueeze(0)?.mm(other)?;
                out.view_op(out.layout().squeeze_dims(&[0]), super::view::ViewKind::Same("SqueezeBackward4"))
            }
            (2, 1) => self.mv(other),
            _ if self.should_fold(other) => {
                // The larger operand's batch folds into the rows of one matrix: a 2-D or 1-D
                // left operand multiplies the transposed right one.
                let transpose = db > da;
                let t1 = if transpose { other.transpose(-2, -1)? } else { self.clone() };
                let t2 = match (transpose, da) {
                    (false, _) => other.clone(),
                    (true, 2) => self.t()?,
                    (true, _) => self.clone(),
                };
                let sizes = t1.shape();
                let mut out_shape = sizes[..sizes.len() - 1].to_vec();
                let rows: usize = out_shape.iter().product();
                let folded = t1.reshape(&[rows as i64, sizes[sizes.len() - 1] as i64])?;
                if t2.ndim() == 1 {
                    return folded.mv(&t2)?.unsafe_view(out_shape);
                }
                out_shape.push(t2.shape()[1]);
                let out = folded.mm(&t2)?.unsafe_view(out_shape)?;
                if transpose {
                    out.transpose(-2, -1)?.contiguous()
                } else {
                    Ok(out)
                }
            }
            _ => {
                let n = if da > 1 { self.shape()[da - 2] } else { 1 };
                let k1 = self.shape()[da - 1];
                let (k2, p) = if db > 1 { (other.shape()[db - 2], other.shape()[db - 1]) } else { (other.shape()[0], 1) };
                let batch = broadcast_shapes(&self.shape()[..da.saturating_sub(2)], &other.shape()[..db.saturating_sub(2)])?;
                let batches: usize = batch.iter().product();
                let expand_to = |t: &Tensor, rows: usize, cols: usize| -> Result<Tensor> {
                    let mut size = batch.clone();
                    size.extend([rows, cols]);
                    t.expand(&to_i64(&size))?.reshape(&[batches as i64, rows as i64, cols as i64])
                };
                let a = expand_to(self, n, k1)?;
                let b = if db == 1 { expand_to(&other.unsqueeze(1)?, k2, 1)? } else { expand_to(other, k2, p)? };
                let mut out_shape = batch.clone();
                if da > 1 {
                    out_shape.push(n);
                }
                if db > 1 {
                    out_shape.push(p);
                }
                let out = a.bmm(&b)?;
                let out = if db == 1 { out.squeeze_dims(&[-1])? } else { out };
                out.unsafe_view(out_shape)
            }
        }
    }

    /// Whether `matmul` folds the batch of the larger operand (3-D or more, against one of
    /// 1-D or 2-D) into one matrix: always when the smaller one needs a gradient (its
    /// gradient is then one product, not a batch summed), else where no copy is needed.
    fn should_fold(&self, other: &Tensor) -> bool {
        let (da, db) = (self.ndim(), other.ndim());
        let first_larger = da >= db;
        let (big, small_dim) = if first_larger { (self, db) } else { (other, da) };
        if !(big.ndim() >= 3 && small_dim <= 2) {
            return false;
        }
        let small_needs_grad = if first_larger { other.requires_grad() } else { self.requires_grad() };
        if small_needs_grad {
            return true;
        }
        if da == 2 {
            return false;
        }
        if big.numel() == 0 {
            return true;
        }
        // The larger one, transposed where it is the right operand, folds without a copy when
        // its leading dims are contiguous with each other.
        let mut shape = big.shape().to_vec();
        let mut strides = big.strides().to_vec();
        if !first_larger {
            let nd = shape.len();
            shape.swap(nd - 2, nd - 1);
            strides.swap(nd - 2, nd - 1);
        }
        (0..shape.len() - 2).all(|i| strides[i] == strides[i + 1] * shape[i + 1])
    }

    /// `mv(vec)`: a matrix times a vector.
    pub fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        if self.ndim() != 2 || vec.ndim() != 1 {
            return Err(Error::Runtime("vector + matrix @ vector expected, got matrix and vector of other dims".into()));
        }
        if self.shape()[1] != vec.shape()[0] {
            return Err(Error::Runtime(format!(
                "size mismatch, got input ({}), mat ({}x{}), vec ({})",
                self.shape()[0],
                self.shape()[0],
                self.shape()[1],
                vec.shape()[0]
            )));
        }
        crate::autograd::named("MvBackward0", &[self, vec], || self.mm(&vec.unsqueeze(1)?)?.squeeze_dims(&[1]))
    }

    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        crate::autograd::named("DotBackward0", &[self, other], || {
            if self.ndim() != 1 || other.ndim() != 1 {
                return Err(Error::Runtime(format!("1D tensors expected, but got {}D and {}D tensors", self.ndim(), other.ndim())));
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

    /// `torch.inner`: products summed over the last dim of both (a number operand
    /// multiplies), by PyTorch's steps: both permuted with the summed dim inner, reshaped to
    /// matrices for one mm (dot for two vectors), reshaped to `self.shape[:-1] +
    /// other.shape[:-1]`. A summed dim of size 1 is summed away first.
    pub fn inner(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.binary(BinaryOp::Mul, other);
        }
        let (n1, n2) = (self.ndim(), other.ndim());
        let (k1, k2) = (self.shape()[n1 - 1], other.shape()[n2 - 1]);
        if k1 != k2 {
            return Err(Error::Runtime(format!(
                "inner() the last dimension must match on both input tensors but got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            )));
        }
        let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        let t1 = if k2 == 1 { self.sum(Some(&[-1]), true)? } else { self.clone() };
        let csize = if k2 == 1 { 1 } else { k1 as i64 };
        let mut shape = to_i64(&self.shape()[..n1 - 1]);
        shape.extend(to_i64(&other.shape()[..n2 - 1]));
        let p2: Vec<i64> = std::iter::once(n2 as i64 - 1).chain(0..n2 as i64 - 1).collect();
        let t1 = t1.permute(&(0..n1 as i64).collect::<Vec<_>>())?;
        let t2 = other.permute(&p2)?;
        if n1 == 1 && n2 == 1 {
            return t1.dot(&t2)?.reshape(&shape);
        }
        let rows: usize = self.shape()[..n1 - 1].iter().product();
        let cols: usize = other.shape()[..n2 - 1].iter().product();
        t1.reshape(&[rows as i64, csize])?.mm(&t2.reshape(&[csize, cols as i64])?)?.reshape(&shape)
    }

    /// `outer(vec2)`: self viewed as a column times `vec2`.
    pub fn outer(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(Error::Runtime("outer: expected 1D tensors".into()));
        }
        self.reshape(&[self.numel() as i64, 1])?.binary(BinaryOp::Mul, other)
    }

    /// `addmm(input, m1, m2, beta, alpha)` = beta * input + alpha * (m1 @ m2), one op with its
    /// own node (AddmmBackward0), in one kernel where the backend has one (`Backend::addmm`).
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
                    a.dtype().title_name(),
                    b.dtype().title_name()
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
        let (beta, alpha) = (beta_s.to_f64(), alpha_s.to_f64());
        crate::device::common_device(&[self, m1, m2], false)?;
        crate::tensor::check_alloc(&[m1.shape()[0], m2.shape()[1]], m1.dtype())?;
        if let Some(out) = m1.backend().addmm(self.array(), m1.array(), m2.array(), beta, alpha)? {
            return Ok(Tensor::from_array(out));
        }
        // No fused kernel for these operands: the product, then the scaled sum.
        let prod = m1.mm(m2)?;
        let prod = if alpha == 1.0 { prod } else { prod.binary_scalar(BinaryOp::Mul, alpha_s, false)? };
        if beta == 0.0 {
            return Ok(prod);
        }
        let b = if beta == 1.0 { bias.clone() } else { bias.binary_scalar(BinaryOp::Mul, beta_s, false)? };
        prod.binary(BinaryOp::Add, &b)
    }

    /// `torch.einsum` with explicit (`->`) or implicit output, and `...` for broadcast dims.
    pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
        crate::tensor::einsum::einsum(equation, operands)
    }
}
