//! The CPU behind the device interface: host storage and the kernels of this module, run on the
//! `Array`s the tensor layer hands over.

use crate::backend::{Array, Backend, NormGrads, Operand, StepJob};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::attention_dims::AttnDims;
use crate::ops::binary::BinaryOp;
use crate::ops::conv_geometry::ConvGeom;
use crate::ops::pool_geometry::PoolGeom;
use crate::ops::reduce::ReduceOp;
use crate::ops::reduction::Reduction;
use crate::ops::unary::{FloatClass, UnaryOp};
use crate::storage::{CpuStorage, Storage};

/// The host: SIMD and rayon-parallel kernels over host memory.
pub struct Cpu;

impl Backend for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn is_available(&self) -> bool {
        true
    }

    fn device_count(&self) -> usize {
        1
    }

    fn reads_values_without_waiting(&self) -> bool {
        true
    }

    fn alloc(&self, _device: Device, dtype: DType, len: usize, _zeroed: bool) -> Result<Storage> {
        // Host memory is always handed out zeroed.
        Ok(Storage::Cpu(CpuStorage::zeros(dtype, len)?))
    }

    fn upload(&self, _device: Device, bytes: &[u8], dtype: DType) -> Result<Storage> {
        let mut s = CpuStorage::zeros(dtype, bytes.len() / dtype.size_in_bytes())?;
        s.as_bytes_mut().copy_from_slice(bytes);
        Ok(Storage::Cpu(s))
    }

    fn download(&self, x: &Array, start: usize, dst: &mut [u8]) -> Result<()> {
        let st = x.storage().read();
        let bytes = st.cpu("download")?.as_bytes();
        let begin = start * x.dtype().size_in_bytes();
        let src = bytes.get(begin..begin + dst.len()).ok_or_else(|| Error::Runtime("download: past the end of the storage".into()))?;
        dst.copy_from_slice(src);
        Ok(())
    }

    fn copy_as(&self, x: &Array, dtype: DType) -> Result<Array> {
        super::cast::copy_as(x, dtype)
    }

    fn binary(
        &self,
        op: BinaryOp,
        a: Operand<'_>,
        b: Operand<'_>,
        shape: &[usize],
        _device: Device,
        compute: DType,
        out: DType,
    ) -> Result<Array> {
        super::arith::binary(op, a, b, shape, compute, out)
    }

    fn binary_inplace(&self, op: BinaryOp, dst: &Array, b: Operand<'_>) -> Result<bool> {
        super::arith::binary_inplace(op, dst, b)
    }

    fn where_(&self, cond: &Array, a: Operand<'_>, b: Operand<'_>, shape: &[usize], dtype: DType) -> Result<Array> {
        super::arith::where_(cond, a, b, shape, dtype)
    }

    fn reduce(&self, x: &Array, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Array> {
        super::reduce_ops::reduce_op(x, op, rdims, out_shape)
    }

    fn sum_squares(&self, x: &Array, rdims: &[usize], out_shape: &[usize]) -> Result<Option<Array>> {
        super::reduce_ops::sum_squares(x, rdims, out_shape).map(Some)
    }

    fn softmax(&self, x: &Array, dim: usize, log: bool) -> Result<Array> {
        super::norm_ops::softmax_op(x, dim, log)
    }

    fn softmax_backward(&self, g: &Array, y: &Array, dim: usize, log: bool) -> Result<Array> {
        super::norm_ops::softmax_backward_op(g, y, dim, log)
    }

    fn logsumexp(&self, x: &Array, dim: usize, out_shape: &[usize]) -> Result<Option<Array>> {
        super::norm_ops::logsumexp_op(x, dim, out_shape).map(Some)
    }

    fn attention(&self, q: &Array, k: &Array, v: &Array, mask: Option<&Array>, dims: &AttnDims) -> Result<Option<(Array, Array)>> {
        super::attention::attention_op(q, k, v, mask, dims).map(Some)
    }

    fn attention_backward(
        &self,
        q: &Array,
        k: &Array,
        v: &Array,
        mask: Option<&Array>,
        saved: (&Array, &Array, &Array),
        dims: &AttnDims,
        want_mask: bool,
    ) -> Result<Option<crate::backend::AttnGrads>> {
        super::attention::attention_backward_op(q, k, v, mask, saved, dims, want_mask).map(Some)
    }

    fn layer_norm(&self, x: &Array, cols: usize, weight: Option<&Array>, bias: Option<&Array>, eps: f64) -> Result<(Array, Array, Array)> {
        super::norm_ops::layer_norm_op(x, cols, weight, bias, eps)
    }

    fn batch_norm(
        &self,
        x: &Array,
        weight: Option<&Array>,
        bias: Option<&Array>,
        running: Option<(&Array, &Array)>,
        training: bool,
        eps: f64,
    ) -> Result<(Array, Array, Array, Array)> {
        super::norm_ops::batch_norm_op(x, weight, bias, running, training, eps)
    }

    fn layer_norm_backward(
        &self,
        x: &Array,
        g: &Array,
        weight: Option<&Array>,
        stats: (&Array, &Array),
        cols: usize,
        want: [bool; 3],
    ) -> Result<NormGrads> {
        super::norm_ops::layer_norm_backward_op(x, g, weight, stats, cols, want)
    }

    fn batch_norm_backward(
        &self,
        x: &Array,
        g: &Array,
        weight: Option<&Array>,
        stats: (&Array, &Array),
        training: bool,
        want_x: bool,
    ) -> Result<(Option<Array>, Array, Array)> {
        super::norm_ops::batch_norm_backward_op(x, g, weight, stats, training, want_x)
    }

    fn nll_loss(
        &self,
        scores: &Array,
        target: &Array,
        weight: Option<&Array>,
        classes: usize,
        ignore_index: i64,
        reduction: Reduction,
        out_shape: &[usize],
        keep: bool,
    ) -> Result<Option<(Array, Array, Array)>> {
        super::loss::nll_loss(scores, target, weight, classes, ignore_index, reduction, out_shape, keep)
    }

    fn lstm_cell(&self, gx: &Array, gh: &Array, c: &Array, keep: bool) -> Result<Option<(Array, Array, Array)>> {
        super::rnn_cell::lstm_forward_op(gx, gh, c, keep).map(Some)
    }

    fn lstm_cell_backward(&self, saved: &Array, c: &Array, dh: &Array, dc: &Array) -> Result<Option<(Array, Array)>> {
        super::rnn_cell::lstm_backward_op(saved, c, dh, dc).map(Some)
    }

    fn gru_cell(&self, gx: &Array, gh: &Array, h: &Array, keep: bool) -> Result<Option<(Array, Array)>> {
        super::rnn_cell::gru_forward_op(gx, gh, h, keep).map(Some)
    }

    fn gru_cell_backward(&self, saved: &Array, h: &Array, dy: &Array) -> Result<Option<(Array, Array, Array)>> {
        super::rnn_cell::gru_backward_op(saved, h, dy).map(Some)
    }

    fn conv2d(
        &self,
        x: &Array,
        weight: &Array,
        bias: Option<&Array>,
        g: &ConvGeom,
        keep_patches: bool,
    ) -> Result<Option<(Array, Option<Array>)>> {
        super::conv::conv2d_op(x, weight, bias, g, keep_patches).map(Some)
    }

    fn conv_transpose2d(&self, dy: &Array, weight: &Array, g: &ConvGeom) -> Result<Option<Array>> {
        super::conv::conv_transpose2d_op(dy, weight, g).map(Some)
    }

    fn conv2d_weight_grad(&self, x: &Array, dy: &Array, g: &ConvGeom, patches: Option<&Array>) -> Result<Option<Array>> {
        super::conv::conv2d_weight_grad_op(x, dy, g, patches).map(Some)
    }

    fn max_pool2d(&self, x: &Array, g: &PoolGeom, out_shape: &[usize]) -> Result<Option<(Array, Array)>> {
        super::pool::max_pool2d_op(x, g, out_shape).map(Some)
    }

    fn arg_reduce(&self, x: &Array, dim: usize, max: bool) -> Result<Array> {
        super::reduce_ops::arg_reduce(x, dim, max)
    }

    fn cumulative(&self, x: &Array, dim: usize, product: bool) -> Result<Array> {
        super::reduce_ops::cumulative(x, dim, product)
    }

    fn sort(&self, x: &Array, dim: usize, descending: bool) -> Result<Array> {
        super::reduce_ops::sort(x, dim, descending)
    }

    fn rank_indices(&self, x: &Array, dim: usize, rank: Option<usize>) -> Result<Option<Array>> {
        super::rank::rank_indices(x, dim, rank).map(Some)
    }

    fn flip(&self, x: &Array, dims: &[usize]) -> Result<Option<Array>> {
        super::flip::flip(x, dims).map(Some)
    }

    fn cat(&self, parts: &[&Array], dim: usize, shape: &[usize]) -> Result<Option<Array>> {
        super::cat::cat(parts, dim, shape)
    }

    fn topk_indices(&self, x: &Array, dim: usize, k: usize, largest: bool) -> Result<Option<Array>> {
        super::rank::topk_indices(x, dim, k, largest).map(Some)
    }

    fn matmul(&self, a: &Array, b: &Array) -> Result<Array> {
        super::matmul::matmul(a, b)
    }

    fn addmm(&self, input: &Array, a: &Array, b: &Array, beta: f64, alpha: f64) -> Result<Option<Array>> {
        super::matmul::addmm(input, a, b, beta, alpha)
    }

    fn unary(&self, x: &Array, op: UnaryOp) -> Result<Array> {
        super::unary::unary(x, op)
    }

    fn unary_inplace(&self, dst: &Array, op: UnaryOp) -> Result<bool> {
        super::unary::unary_inplace(dst, op)
    }

    fn classify(&self, x: &Array, class: FloatClass) -> Result<Option<Array>> {
        super::unary::classify(x, class).map(Some)
    }

    fn take(&self, src: &Array, offsets: &[usize], shape: &[usize]) -> Result<Array> {
        super::index::take(src, offsets, shape)
    }

    fn gather_index(
        &self,
        src: &Array,
        src_at: &Layout,
        dim: usize,
        index: &Array,
        index_at: &Layout,
        shape: &[usize],
    ) -> Result<Option<Array>> {
        super::index::gather_index(src, src_at, dim, index, index_at, shape)
    }

    fn put(&self, dst: &Array, offsets: &[usize], values: &Array) -> Result<()> {
        super::index::put(dst, offsets, values)
    }

    fn add_at(&self, out: &Array, targets: &[usize], src: &Array) -> Result<()> {
        super::index::add_at(out, targets, src)
    }

    fn index_add(&self, out: &Array, dim: usize, idx: &[usize], src: &Array) -> Result<()> {
        super::index::index_add(out, dim, idx, src)
    }

    fn optimizer_steps(&self, jobs: &[StepJob<'_>]) -> Result<()> {
        super::optim::optimizer_steps(jobs)
    }

    fn copy(&self, src: &Array, dst: &Array) -> Result<()> {
        if src.shape() != dst.shape() {
            return Err(Error::Runtime("copy: operands differ in shape".into()));
        }
        if src.dtype() == dst.dtype() {
            return crate::with_dtype!(src.dtype(), T => src.with_slice::<T, _>("copy_", |s, sl| {
                dst.with_slice_mut::<T, _>("copy_", |d, dl| super::elementwise::assign(d, dl, s, sl, |x| x))
            })?);
        }
        crate::with_dtype!(src.dtype(), S => crate::with_dtype!(dst.dtype(), D => {
            src.with_slice::<S, _>("copy_", |s, sl| {
                dst.with_slice_mut::<D, _>("copy_", |d, dl| super::elementwise::assign(d, dl, s, sl, super::cast::convert::<S, D>))
            })?
        }))
    }
}
