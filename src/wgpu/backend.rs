//! The wgpu backend behind the device interface: each method is one entry point of a kernel
//! family's launcher (`ops`, `reduce`, `matmul`, `softmax`, `attention`, `norm`, `loss`, `pooling`, `optim`).

use crate::backend::pool_stats::PoolStats;
use crate::backend::{Array, AttnGrads, Backend, IndexTerm, NormGrads, Operand, StepJob};
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
use crate::storage::Storage;

use super::{attention, context, loss, matmul, norm, operands, ops, optim, pooling, positions, reduce, rnn_cell, softmax, storage};

/// The GPU backend: Vulkan, Metal or DX12 through wgpu.
pub struct Wgpu;

fn ordinal(device: Device) -> Result<usize> {
    match device {
        Device::Wgpu(i) => Ok(i),
        Device::Cpu => Err(Error::Runtime("wgpu: expected a wgpu device".into())),
    }
}

impl Backend for Wgpu {
    fn name(&self) -> &'static str {
        "wgpu"
    }

    fn is_available(&self) -> bool {
        context::is_available()
    }

    fn device_count(&self) -> usize {
        context::device_count()
    }

    fn is_real_gpu(&self, ordinal: usize) -> bool {
        context::is_real_gpu(ordinal)
    }

    fn adapter_name(&self, ordinal: usize) -> Result<String> {
        context::adapter_name(ordinal)
    }

    fn supports_f16(&self, ordinal: usize) -> Result<bool> {
        context::supports_f16(ordinal)
    }

    fn supports_f64(&self, ordinal: usize) -> Result<bool> {
        context::supports_f64(ordinal)
    }

    fn synchronize(&self, ordinal: usize) -> Result<()> {
        context::synchronize(ordinal)
    }

    fn pool_stats(&self, ordinal: usize) -> Result<PoolStats> {
        context::pool_stats(ordinal)
    }

    fn empty_cache(&self, ordinal: usize) -> Result<()> {
        context::empty_cache(ordinal)
    }

    fn alloc(&self, device: Device, dtype: DType, len: usize, zeroed: bool) -> Result<Storage> {
        Ok(Storage::Wgpu(storage::alloc(ordinal(device)?, dtype, len, zeroed)?))
    }

    fn upload(&self, device: Device, bytes: &[u8], dtype: DType) -> Result<Storage> {
        Ok(Storage::Wgpu(storage::upload(ordinal(device)?, bytes, dtype)?))
    }

    fn download(&self, x: &Array, start: usize, dst: &mut [u8]) -> Result<()> {
        match &*x.storage().read() {
            Storage::Wgpu(s) => s.read_into(start, dst),
            Storage::Cpu(_) => Err(Error::Runtime("wgpu download: expected a wgpu array".into())),
        }
    }

    fn copy_as(&self, x: &Array, dtype: DType) -> Result<Array> {
        operands::copied_as(x, dtype)
    }

    fn copy(&self, src: &Array, dst: &Array) -> Result<()> {
        ops::copy_strided(src, dst)?;
        dst.storage().bump_version();
        Ok(())
    }

    fn unary(&self, x: &Array, op: UnaryOp) -> Result<Array> {
        ops::unary(x, op)
    }

    fn classify(&self, _x: &Array, _class: FloatClass) -> Result<Option<Array>> {
        // No kernel of its own: the comparisons the tensor layer composes run on the device.
        Ok(None)
    }

    fn binary(
        &self,
        op: BinaryOp,
        a: Operand<'_>,
        b: Operand<'_>,
        shape: &[usize],
        device: Device,
        compute: DType,
        out: DType,
    ) -> Result<Array> {
        ops::binary(op, a, b, shape, device, compute, out)
    }

    fn where_(&self, cond: &Array, a: Operand<'_>, b: Operand<'_>, shape: &[usize], dtype: DType) -> Result<Array> {
        ops::where_(cond, a, b, shape, dtype)
    }

    fn reduce(&self, x: &Array, op: ReduceOp, rdims: &[usize], out_shape: &[usize]) -> Result<Array> {
        reduce::reduce_op(x, op, rdims, out_shape)
    }

    fn arg_reduce(&self, x: &Array, dim: usize, max: bool) -> Result<Array> {
        // Integers and bool compare the same in int64.
        if x.dtype().is_floating_point() {
            return reduce::arg_reduce(x, dim, max);
        }
        reduce::arg_reduce(&operands::copied_as(x, DType::I64)?, dim, max)
    }

    fn cumulative(&self, x: &Array, dim: usize, product: bool) -> Result<Array> {
        reduce::cumulative(x, dim, product)
    }

    fn sort(&self, x: &Array, dim: usize, descending: bool) -> Result<Array> {
        // Integer and bool keys order the same in int64.
        if x.dtype().is_floating_point() {
            return reduce::sort(x, dim, descending);
        }
        reduce::sort(&operands::copied_as(x, DType::I64)?, dim, descending)
    }

    fn rank_indices(&self, _x: &Array, _dim: usize, _rank: Option<usize>) -> Result<Option<Array>> {
        // No selection kernel: the tensor layer reads the ranks off the sort, on the device.
        Ok(None)
    }

    fn matmul(&self, a: &Array, b: &Array) -> Result<Array> {
        matmul::matmul(a, b)
    }

    fn matmul_add(&self, a: &Array, b: &Array, bias: Option<&Array>) -> Result<Array> {
        matmul::matmul_add(a, b, bias)
    }

    fn addmm(&self, input: &Array, a: &Array, b: &Array, beta: f64, alpha: f64) -> Result<Option<Array>> {
        // The product kernel adds an input of the operands' float dtype as it stores each
        // element, but scales neither.
        if !a.dtype().is_floating_point() || input.dtype() != a.dtype() || alpha != 1.0 || beta != 1.0 {
            return Ok(None);
        }
        matmul::matmul_add(a, b, Some(input)).map(Some)
    }

    fn softmax(&self, x: &Array, dim: usize, log: bool) -> Result<Array> {
        softmax::softmax(x, dim, log)
    }

    fn softmax_backward(&self, g: &Array, y: &Array, dim: usize, log: bool) -> Result<Array> {
        softmax::softmax_backward(g, y, dim, log)
    }

    fn attention(&self, q: &Array, k: &Array, v: &Array, mask: Option<&Array>, dims: &AttnDims) -> Result<Option<(Array, Array)>> {
        attention::attention(q, k, v, mask, dims)
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
    ) -> Result<Option<AttnGrads>> {
        attention::attention_backward(q, k, v, mask, saved, dims, want_mask)
    }

    fn layer_norm(&self, x: &Array, cols: usize, weight: Option<&Array>, bias: Option<&Array>, eps: f64) -> Result<(Array, Array, Array)> {
        norm::layer_norm(x, cols, weight, bias, eps)
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
        norm::layer_norm_backward(x, g, weight, stats, cols, want)
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
        norm::batch_norm(x, weight, bias, running, training, eps)
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
        norm::batch_norm_backward(x, g, weight, stats, training, want_x)
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
        _keep: bool,
    ) -> Result<Option<(Array, Array, Array)>> {
        // The slopes and picks come from the same kernel: made whether kept or not.
        loss::nll_loss(scores, target, weight, classes, ignore_index, reduction, out_shape)
    }

    fn lstm_cell(&self, gx: &Array, gh: &Array, c: &Array, keep: bool) -> Result<Option<(Array, Array, Array)>> {
        rnn_cell::lstm_forward(gx, gh, c, keep).map(Some)
    }

    fn lstm_cell_backward(&self, saved: &Array, c: &Array, dh: &Array, dc: &Array) -> Result<Option<(Array, Array)>> {
        rnn_cell::lstm_backward(saved, c, dh, dc).map(Some)
    }

    fn gru_cell(&self, gx: &Array, gh: &Array, h: &Array, keep: bool) -> Result<Option<(Array, Array)>> {
        rnn_cell::gru_forward(gx, gh, h, keep).map(Some)
    }

    fn gru_cell_backward(&self, saved: &Array, h: &Array, dy: &Array) -> Result<Option<(Array, Array, Array)>> {
        rnn_cell::gru_backward(saved, h, dy).map(Some)
    }

    /// The convolutions are composed by the tensor layer from strided views, `matmul` and
    /// `col2im`: no kernel of their own.
    fn conv2d(
        &self,
        _x: &Array,
        _weight: &Array,
        _bias: Option<&Array>,
        _g: &ConvGeom,
        _keep_patches: bool,
    ) -> Result<Option<(Array, Option<Array>)>> {
        Ok(None)
    }

    fn conv_transpose2d(&self, _dy: &Array, _weight: &Array, _g: &ConvGeom) -> Result<Option<Array>> {
        Ok(None)
    }

    fn conv2d_weight_grad(&self, _x: &Array, _dy: &Array, _g: &ConvGeom, _patches: Option<&Array>) -> Result<Option<Array>> {
        Ok(None)
    }

    /// The kernel pools float32 and float64; the tensor layer composes the other dtypes.
    fn max_pool2d(&self, x: &Array, g: &PoolGeom, out_shape: &[usize]) -> Result<Option<(Array, Array)>> {
        if !matches!(x.dtype(), DType::F32 | DType::F64) {
            return Ok(None);
        }
        pooling::max_pool2d(x, g, out_shape).map(Some)
    }

    fn max_pool2d_backward(&self, grad: &Array, positions: &Array, g: &PoolGeom, shape: &[usize]) -> Result<Array> {
        pooling::max_pool2d_backward(grad, positions, g, shape)
    }

    fn col2im(&self, cols: &Array, g: &PoolGeom, shape: &[usize]) -> Result<Array> {
        pooling::col2im(cols, g, shape)
    }

    fn indices_stay_on_device(&self) -> bool {
        true
    }

    fn take(&self, src: &Array, offsets: &[usize], shape: &[usize]) -> Result<Array> {
        ops::take(src, offsets, shape)
    }

    fn take_at(&self, src: &Array, offsets: &Array, shape: &[usize]) -> Result<Array> {
        ops::take_at(src, offsets, shape)
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
        ops::gather_index(src, src_at, dim, index, index_at, shape)
    }

    fn put(&self, dst: &Array, offsets: &[usize], values: &Array) -> Result<()> {
        ops::put(dst, offsets, values)
    }

    fn put_at_positions(&self, out: &Array, targets: &Array, src: &Array) -> Result<()> {
        positions::put_at_positions(out, targets, src)
    }

    fn add_at(&self, out: &Array, targets: &[usize], src: &Array) -> Result<()> {
        ops::add_at(out, targets, src)
    }

    fn index_add(&self, out: &Array, dim: usize, idx: &[usize], src: &Array) -> Result<()> {
        ops::index_add(out, dim, idx, src)
    }

    fn add_at_positions(&self, out: &Array, targets: &Array, src: &Array) -> Result<()> {
        positions::add_at_positions(out, targets, src)
    }

    fn scatter_index(&self, out: &Array, dim: usize, index: &Array, src: &Array) -> Result<bool> {
        ops::scatter_index(out, dim, index, src)
    }

    fn index_offsets(&self, walk: &Layout, terms: &[IndexTerm<'_>], wrap: bool) -> Result<Option<Array>> {
        ops::index_offsets(walk, terms, wrap)
    }

    fn index_offsets_of_checked(&self, walk: &Layout, terms: &[IndexTerm<'_>]) -> Result<Array> {
        ops::index_offsets_of_checked(walk, terms)
    }

    fn optimizer_steps(&self, jobs: &[StepJob<'_>]) -> Result<()> {
        optim::optimizer_steps(jobs)
    }
}
