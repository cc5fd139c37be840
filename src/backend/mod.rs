//! The device interface. Once the tensor layer has checked an op's arguments, decided its dtypes
//! and shapes and taken care of autograd, it asks the backend of the operands' device for the
//! values: `cpu::Cpu` and the wgpu backend implement `Backend` over `Array`s (storage and
//! layout), never building tensors or recording autograd. The trait's default methods are the
//! "unavailable" backend: a build without the `wgpu` feature serves wgpu devices with them.

mod array;
mod optim_step;
pub mod pool_stats;

pub use array::Array;
pub use optim_step::{flags as step_flags, Step, StepJob};

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
use crate::scalar::Scalar;
use crate::storage::{not_on_device, Storage};
use pool_stats::PoolStats;

/// An elementwise operand: an array already broadcast (by its layout) to the result's shape,
/// or a number.
pub enum Operand<'a> {
    Array(&'a Array),
    Scalar(Scalar),
}

/// One term of `index_offsets`: an integer index array on the device, viewed by `at` at the
/// offsets' shape, selecting along a dim of `stride` and `size`.
pub struct IndexTerm<'a> {
    pub index: &'a Array,
    pub at: Layout,
    pub stride: usize,
    pub size: usize,
}

/// The results of `layer_norm_backward` / `batch_norm_backward`: the gradients asked for.
pub type NormGrads = (Option<Array>, Option<Array>, Option<Array>);

/// The results of `attention_backward`: dq, dk, dv and (when wanted) the scores' gradient.
pub type AttnGrads = (Array, Array, Array, Option<Array>);

/// What an op asks of a device. Every method has the "unavailable" default.
pub trait Backend: Sync {
    /// The device type, as PyTorch spells it in errors.
    fn name(&self) -> &'static str;

    // ----- the devices ------------------------------------------------------------------------

    /// Whether a device of this backend exists.
    fn is_available(&self) -> bool {
        false
    }

    fn device_count(&self) -> usize {
        0
    }

    /// Whether device `ordinal` is a real GPU, the kind PyTorch programs reach as `cuda`: not
    /// the host, and not a GPU emulated on the CPU (lavapipe, llvmpipe, SwiftShader, WARP).
    fn is_real_gpu(&self, _ordinal: usize) -> bool {
        false
    }

    /// Whether the host reads this backend's values without waiting for a device (host
    /// memory). An op may then choose its path by the data (interpolate's matrix product needs
    /// all inputs finite); elsewhere asking would stall the device's queue, so it takes the path
    /// that is right for any data.
    fn reads_values_without_waiting(&self) -> bool {
        false
    }

    fn adapter_name(&self, _ordinal: usize) -> Result<String> {
        Err(unavailable(self.name()))
    }

    fn supports_f16(&self, _ordinal: usize) -> Result<bool> {
        Err(unavailable(self.name()))
    }

    fn supports_f64(&self, _ordinal: usize) -> Result<bool> {
        Err(unavailable(self.name()))
    }

    /// Waits for every kernel recorded so far.
    fn synchronize(&self, _ordinal: usize) -> Result<()> {
        Err(unavailable(self.name()))
    }

    fn pool_stats(&self, _ordinal: usize) -> Result<PoolStats> {
        Err(unavailable(self.name()))
    }

    /// Gives cached buffers back to the driver.
    fn empty_cache(&self, _ordinal: usize) -> Result<()> {
        Err(unavailable(self.name()))
    }

    // ----- storage ----------------------------------------------------------------------------

    /// Storage for `len` elements of `dtype` on `device`, zero-filled when `zeroed` (else of
    /// unspecified values).
    fn alloc(&self, _device: Device, _dtype: DType, _len: usize, _zeroed: bool) -> Result<Storage> {
        Err(unavailable(self.name()))
    }

    /// Storage on `device` holding `bytes` (whole elements of `dtype`).
    fn upload(&self, _device: Device, _bytes: &[u8], _dtype: DType) -> Result<Storage> {
        Err(unavailable(self.name()))
    }

    /// Copies elements `start..` of `x`'s storage into `dst` (bytes of whole elements).
    fn download(&self, _x: &Array, _start: usize, _dst: &mut [u8]) -> Result<()> {
        Err(unavailable(self.name()))
    }

    /// A new contiguous array of `x`'s values converted to `dtype`.
    fn copy_as(&self, x: &Array, _dtype: DType) -> Result<Array> {
        Err(not_on_device("copy", x.device()))
    }

    /// Writes `src` into `dst` (same shape and device) through both layouts, converting to
    /// `dst`'s dtype; bumps `dst`'s version.
    fn copy(&self, _src: &Array, _dst: &Array) -> Result<()> {
        Err(unavailable(self.name()))
    }
    // ----- elementwise ------------------------------------------------------------------------

    fn unary(&self, x: &Array, _op: UnaryOp) -> Result<Array> {
        Err(not_on_device("unary", x.device()))
    }

    /// `op(dst)` written over dst's memory (dst's dtype kept) where this backend has such a
    /// kernel for the case: true when it wrote, false (nothing touched) where the tensor layer
    /// must compute out of place and copy.
    fn unary_inplace(&self, _dst: &Array, _op: UnaryOp) -> Result<bool> {
        Ok(false)
    }

    /// A bool array marking the elements of the floating-point `x` that are of `class`, where
    /// this backend has a kernel for it; None where it has not: the tensor layer then composes
    /// the marks from comparisons.
    fn classify(&self, x: &Array, _class: FloatClass) -> Result<Option<Array>> {
        Err(not_on_device("isnan", x.device()))
    }

    /// `a op b` computed in `compute` into a new array of `shape` and dtype `out` on `device`.
    #[allow(clippy::too_many_arguments)]
    fn binary(
        &self,
        op: BinaryOp,
        _a: Operand<'_>,
        _b: Operand<'_>,
        _shape: &[usize],
        device: Device,
        _compute: DType,
        _out: DType,
    ) -> Result<Array> {
        Err(not_on_device(op.name(), device))
    }

    /// `dst op= b` written into dst's memory where this backend has such a kernel for the
    /// case (b of dst's dtype and shape, or a number; no shared memory): true when it wrote,
    /// false (nothing touched) where the tensor layer must compute out of place and copy.
    fn binary_inplace(&self, _op: BinaryOp, _dst: &Array, _b: Operand<'_>) -> Result<bool> {
        Ok(false)
    }

    /// `cond ? a : b` into a new array of `shape` and `dtype`.
    fn where_(&self, cond: &Array, _a: Operand<'_>, _b: Operand<'_>, _shape: &[usize], _dtype: DType) -> Result<Array> {
        Err(not_on_device("where", cond.device()))
    }

    // ----- reductions and scans ---------------------------------------------------------------

    /// `op` over `rdims` into a new array of `out_shape` (the kept dims), with PyTorch's
    /// result dtype: bool for all/any, int64 sums and products of integers and bool, else x's.
    fn reduce(&self, x: &Array, _op: ReduceOp, _rdims: &[usize], _out_shape: &[usize]) -> Result<Array> {
        Err(not_on_device("reduce", x.device()))
    }

    /// The sum of `x * x` (float32 or float64) over `rdims`, into a new array of `out_shape`,
    /// equal to `reduce` of the squares. None where this backend has no such kernel: the
    /// tensor layer then squares and sums.
    fn sum_squares(&self, _x: &Array, _rdims: &[usize], _out_shape: &[usize]) -> Result<Option<Array>> {
        Ok(None)
    }

    /// The index (int64) of the max (or min) along `dim`, removed from the shape.
    fn arg_reduce(&self, x: &Array, _dim: usize, _max: bool) -> Result<Array> {
        Err(not_on_device("argmax", x.device()))
    }

    /// Running sum (or product) along `dim`.
    fn cumulative(&self, x: &Array, _dim: usize, _product: bool) -> Result<Array> {
        Err(not_on_device("cumsum", x.device()))
    }

    /// The int64 permutation sorting each line along `dim` (stable).
    fn sort(&self, x: &Array, _dim: usize, _descending: bool) -> Result<Array> {
        Err(not_on_device("sort", x.device()))
    }

    /// Per lane along `dim`, the int64 index of the element of 0-based rank `rank`, or for None
    /// of the median (the lower middle element, or the first NaN of a lane holding one), with
    /// `dim` removed; ties resolve as `sort` orders them. None where this backend has no such
    /// kernel: the tensor layer then reads the ranks off `sort`.
    fn rank_indices(&self, x: &Array, _dim: usize, _rank: Option<usize>) -> Result<Option<Array>> {
        Err(not_on_device("kthvalue", x.device()))
    }

    /// Per lane along `dim`, the int64 indices of the `k` largest (or smallest) elements, best
    /// first, shaped as `x` with `dim` moved last and `k` long: the first `k` of `sort`'s order
    /// (NaN above every number, ties by index). None where this backend has no such kernel:
    /// the tensor layer then narrows `sort`.
    fn topk_indices(&self, _x: &Array, _dim: usize, _k: usize, _largest: bool) -> Result<Option<Array>> {
        Ok(None)
    }

    /// `x` with `dims` (at least one, of more than zero elements in all) reversed, in a new
    /// array in `x`'s memory order. None where this backend has no such kernel: the tensor
    /// layer then reverses with `index_select`.
    fn flip(&self, _x: &Array, _dims: &[usize]) -> Result<Option<Array>> {
        Ok(None)
    }

    /// `parts` (at least one, of one dtype, each of `shape` but along `dim`) joined along `dim`
    /// into a new contiguous array of `shape`. None where this backend has no such kernel (or
    /// not for these parts): the tensor layer then copies each part into its place.
    fn cat(&self, _parts: &[&Array], _dim: usize, _shape: &[usize]) -> Result<Option<Array>> {
        Ok(None)
    }

    // ----- matrix products --------------------------------------------------------------------

    fn matmul(&self, a: &Array, _b: &Array) -> Result<Array> {
        Err(not_on_device("matmul", a.device()))
    }

    /// `a @ b + bias` with `bias` broadcast to the product's shape.
    fn matmul_add(&self, a: &Array, _b: &Array, _bias: Option<&Array>) -> Result<Array> {
        Err(not_on_device("addmm", a.device()))
    }

    /// addmm's `beta * input + alpha * (a @ b)` of an `[m, k]` and a `[k, n]` matrix, `input`
    /// broadcasting to `[m, n]` (unread for beta = 0), where this backend has a fused kernel for
    /// these operands, beta and alpha; None where it has not: the tensor layer then composes the
    /// product, its scaling and the sum.
    fn addmm(&self, input: &Array, _a: &Array, _b: &Array, _beta: f64, _alpha: f64) -> Result<Option<Array>> {
        Err(not_on_device("addmm", input.device()))
    }

    // ----- network layers ---------------------------------------------------------------------

    fn softmax(&self, x: &Array, _dim: usize, log: bool) -> Result<Array> {
        Err(not_on_device(if log { "log_softmax" } else { "softmax" }, x.device()))
    }

    fn softmax_backward(&self, g: &Array, _y: &Array, _dim: usize, log: bool) -> Result<Array> {
        Err(not_on_device(if log { "log_softmax_backward" } else { "softmax_backward" }, g.device()))
    }

    /// `log(Σ exp(x))` along `dim` of a float32 or float64 `x`, into a new array of
    /// `out_shape`, in one fused pass per lane. None where this backend has no such kernel: the
    /// tensor layer composes it from max, exp and sum then.
    fn logsumexp(&self, _x: &Array, _dim: usize, _out_shape: &[usize]) -> Result<Option<Array>> {
        Ok(None)
    }

    /// Fused attention without dropout (`AttnDims`): `(out, lse)`, the output `(batch, L, Ev)`
    /// and each query row's logsumexp `(batch, L)`, over float32 / float64 operands (`mask` an
    /// additive float mask viewed at `(batch dims..., L, S)`). None where this backend has no
    /// fused kernel: the tensor layer composes the attention from matmul and softmax then.
    fn attention(&self, _q: &Array, _k: &Array, _v: &Array, _mask: Option<&Array>, _dims: &AttnDims) -> Result<Option<(Array, Array)>> {
        Ok(None)
    }

    /// The gradients of `attention` from `(out, lse, g)`: `(dq, dk, dv, dscores)`, the scores'
    /// gradient `(batch, L, S)` only when `want_mask`. None where this backend has no kernel.
    #[allow(clippy::too_many_arguments)]
    fn attention_backward(
        &self,
        _q: &Array,
        _k: &Array,
        _v: &Array,
        _mask: Option<&Array>,
        _saved: (&Array, &Array, &Array),
        _dims: &AttnDims,
        _want_mask: bool,
    ) -> Result<Option<AttnGrads>> {
        Ok(None)
    }

    /// `(y, mean, rstd)` of a layer norm over the last `cols` elements of each row.
    fn layer_norm(
        &self,
        x: &Array,
        _cols: usize,
        _weight: Option<&Array>,
        _bias: Option<&Array>,
        _eps: f64,
    ) -> Result<(Array, Array, Array)> {
        Err(not_on_device("layer_norm", x.device()))
    }

    fn layer_norm_backward(
        &self,
        x: &Array,
        _g: &Array,
        _weight: Option<&Array>,
        _stats: (&Array, &Array),
        _cols: usize,
        _want: [bool; 3],
    ) -> Result<NormGrads> {
        Err(not_on_device("layer_norm_backward", x.device()))
    }

    /// `(y, mean, rstd, var)` of a batch norm over dim 1, updating `running` when training.
    fn batch_norm(
        &self,
        x: &Array,
        _weight: Option<&Array>,
        _bias: Option<&Array>,
        _running: Option<(&Array, &Array)>,
        _training: bool,
        _eps: f64,
    ) -> Result<(Array, Array, Array, Array)> {
        Err(not_on_device("batch_norm", x.device()))
    }

    /// `(dx, dweight, dbias)`; `dx` when `want_x`.
    fn batch_norm_backward(
        &self,
        x: &Array,
        _g: &Array,
        _weight: Option<&Array>,
        _stats: (&Array, &Array),
        _training: bool,
        _want_x: bool,
    ) -> Result<(Option<Array>, Array, Array)> {
        Err(not_on_device("batch_norm_backward", x.device()))
    }

    /// nll_loss of the float32 or float64 `scores` (rows of `classes`) against the int64 `target`
    /// (one per row), with optional per-class `weight`s: the loss (of `out_shape`: one per row
    /// without reduction), and per row the slope d loss / d score at the target and that target
    /// (`(rows, 1)`, 0 where ignored), as the backward needs them (only where `keep`: else those
    /// two may come back empty). None where a target is out of range: the tensor layer then
    /// finds it for the error.
    #[allow(clippy::too_many_arguments)]
    fn nll_loss(
        &self,
        scores: &Array,
        _target: &Array,
        _weight: Option<&Array>,
        _classes: usize,
        _ignore_index: i64,
        _reduction: Reduction,
        _out_shape: &[usize],
        _keep: bool,
    ) -> Result<Option<(Array, Array, Array)>> {
        Err(not_on_device("nll_loss", scores.device()))
    }

    /// One LSTM time step's pointwise cell (`ops::nn::rnn_cell`) from the gate pre-activations
    /// `gx` and `gh` (rows, 4H) and the cell state `c` (rows, H), all float32 or all float64
    /// (the tensor layer composes half precision from elementwise ops): `(h', c',
    /// saved)`, `saved` (rows, 5H: the activated gates and tanh c', as `cpu::rnn_cell` lays them
    /// out) when `keep`, else (0, 5H). None where this backend has no fused kernel for these
    /// operands: the tensor layer composes the step from elementwise ops.
    fn lstm_cell(&self, _gx: &Array, _gh: &Array, _c: &Array, _keep: bool) -> Result<Option<(Array, Array, Array)>> {
        Ok(None)
    }

    /// The backward of `lstm_cell`: `(d gates, d c)` from its `saved`, `c` and the gradients of
    /// h' and c'. None as for `lstm_cell`.
    fn lstm_cell_backward(&self, _saved: &Array, _c: &Array, _dh: &Array, _dc: &Array) -> Result<Option<(Array, Array)>> {
        Ok(None)
    }

    /// One GRU time step's pointwise cell from `gx` and `gh` (rows, 3H) and the state `h`:
    /// `(h', saved)`, `saved` (rows, 4H) when `keep`, else (0, 4H). None as for `lstm_cell`.
    fn gru_cell(&self, _gx: &Array, _gh: &Array, _h: &Array, _keep: bool) -> Result<Option<(Array, Array)>> {
        Ok(None)
    }

    /// The backward of `gru_cell`: `(d gx, d gh, d h)` from its `saved`, `h` and the gradient
    /// of h'. None as for `lstm_cell`.
    fn gru_cell_backward(&self, _saved: &Array, _h: &Array, _dy: &Array) -> Result<Option<(Array, Array, Array)>> {
        Ok(None)
    }

    /// conv2d of the float32 or float64 image `x` (N, C, H, W) with `weight` and `bias` (one
    /// dtype) as `g` describes it: the result (N, O, oh, ow) and, when `keep_patches`, the patch
    /// matrices (`g.batch_patches()` elements, laid out as this backend's `conv2d_weight_grad`
    /// reads them). None where this backend has no convolution kernels: the tensor layer then
    /// composes the convolution from strided views, `matmul` and `col2im`.
    fn conv2d(
        &self,
        x: &Array,
        _weight: &Array,
        _bias: Option<&Array>,
        _g: &ConvGeom,
        _keep_patches: bool,
    ) -> Result<Option<(Array, Option<Array>)>> {
        Err(not_on_device("conv2d", x.device()))
    }

    /// The transpose of `conv2d` with respect to its image: `dy` (N, O, oh, ow) spread back
    /// through `weight` onto the image (N, C, H, W) of `g`. None as for `conv2d`.
    fn conv_transpose2d(&self, dy: &Array, _weight: &Array, _g: &ConvGeom) -> Result<Option<Array>> {
        Err(not_on_device("conv_transpose2d", dy.device()))
    }

    /// The gradient of `conv2d` for its weight, from its image `x` and the gradient `dy` of its
    /// result; `patches`: those `conv2d` kept for `x`, if it did. None as for `conv2d`.
    fn conv2d_weight_grad(&self, x: &Array, _dy: &Array, _g: &ConvGeom, _patches: Option<&Array>) -> Result<Option<Array>> {
        Err(not_on_device("convolution_backward", x.device()))
    }

    /// `(values, positions)` of 2-d max pooling: the maxima and their flat positions within each
    /// input plane (int64). None where this backend has no kernel for x's dtype: the tensor layer
    /// then pools a float32 copy (half types) or int64 windows.
    fn max_pool2d(&self, x: &Array, _g: &PoolGeom, _out_shape: &[usize]) -> Result<Option<(Array, Array)>> {
        Err(not_on_device("max_pool2d", x.device()))
    }

    fn max_pool2d_backward(&self, grad: &Array, _positions: &Array, _g: &PoolGeom, _shape: &[usize]) -> Result<Array> {
        Err(not_on_device("max_pool2d_backward", grad.device()))
    }

    /// Sums columns of patches back into images (the adjoint of im2col).
    fn col2im(&self, cols: &Array, _g: &PoolGeom, _shape: &[usize]) -> Result<Array> {
        Err(not_on_device("col2im", cols.device()))
    }

    // ----- indexing ---------------------------------------------------------------------------

    /// Whether index work on this backend's devices stays there: positions made, checked and used
    /// by the device (`index_offsets`, `take_at`, `scatter_index`, the `*_at_positions` kernels),
    /// with only a flag or a count read back, because reading indices back means waiting for the
    /// device. False where indices lie in host memory: the tensor layer then reads them itself and
    /// hands over storage offsets (`take`, `put`, `add_at`, `index_add`).
    fn indices_stay_on_device(&self) -> bool {
        false
    }

    /// The elements at storage `offsets` of `src`, as a new array of `shape`.
    fn take(&self, src: &Array, _offsets: &[usize], _shape: &[usize]) -> Result<Array> {
        Err(not_on_device("index", src.device()))
    }

    /// `take` with the offsets in an int64 array on the device.
    fn take_at(&self, src: &Array, _offsets: &Array, _shape: &[usize]) -> Result<Array> {
        Err(not_on_device("index", src.device()))
    }

    /// `gather` with the index on the device; None when the kernel does not serve it.
    fn gather_index(
        &self,
        src: &Array,
        _src_at: &Layout,
        _dim: usize,
        _index: &Array,
        _index_at: &Layout,
        _shape: &[usize],
    ) -> Result<Option<Array>> {
        Err(not_on_device("gather", src.device()))
    }

    /// Writes `values` (in order) at storage `offsets` of `dst`.
    fn put(&self, dst: &Array, _offsets: &[usize], _values: &Array) -> Result<()> {
        Err(not_on_device("index_put_", dst.device()))
    }

    /// `put` with the offsets in an int64 array on the device.
    fn put_at_positions(&self, out: &Array, _targets: &Array, _src: &Array) -> Result<()> {
        Err(not_on_device("index_put_", out.device()))
    }

    /// Adds `src`'s elements (contiguous, one per target, in order: repeated targets sum the same
    /// way every run) into `out` at storage offsets `targets`.
    fn add_at(&self, out: &Array, _targets: &[usize], _src: &Array) -> Result<()> {
        Err(not_on_device("index_add_", out.device()))
    }

    /// `out[.., idx[j], ..] += src[.., j, ..]` along `dim`, in order of `j`, for the contiguous
    /// `out` and the contiguous `src` of out's shape but `idx.len()` along `dim` (indices checked).
    fn index_add(&self, out: &Array, _dim: usize, _idx: &[usize], _src: &Array) -> Result<()> {
        Err(not_on_device("index_add_", out.device()))
    }

    /// `add_at` with the offsets in an int64 array on the device.
    fn add_at_positions(&self, out: &Array, _targets: &Array, _src: &Array) -> Result<()> {
        Err(not_on_device("index_add_", out.device()))
    }

    /// `scatter_` along `dim` on the device; false when the kernel does not serve it.
    fn scatter_index(&self, out: &Array, _dim: usize, _index: &Array, _src: &Array) -> Result<bool> {
        Err(not_on_device("scatter_", out.device()))
    }

    /// The storage offsets (int64, of `walk`'s shape) that integer indices on the device select;
    /// None when an index is out of range (checked, and wrapped when `wrap`, on the device).
    fn index_offsets(&self, _walk: &Layout, terms: &[IndexTerm<'_>], _wrap: bool) -> Result<Option<Array>> {
        Err(not_on_device("index", terms.first().map_or(Device::Cpu, |t| t.index.device())))
    }

    /// `index_offsets` without the range check and its read back (indices known in range).
    fn index_offsets_of_checked(&self, _walk: &Layout, terms: &[IndexTerm<'_>]) -> Result<Array> {
        Err(not_on_device("index", terms.first().map_or(Device::Cpu, |t| t.index.device())))
    }

    // ----- optimizers -------------------------------------------------------------------------

    /// Applies every job's step in place to its parameter with its gradient and state
    /// (contiguous, one dtype, checked by the caller where the dtype is float32 or float64): one
    /// multi-tensor pass over a whole parameter list. A dtype without an update is refused
    /// before any array is read.
    fn optimizer_steps(&self, jobs: &[StepJob<'_>]) -> Result<()> {
        Err(not_on_device("optimizer step", jobs.first().map_or(Device::Cpu, |j| j.param.device())))
    }
}

/// The error of the "unavailable" backend.
pub fn unavailable(name: &str) -> Error {
    Error::Runtime(format!("rstorch was built without its {name} backend (the `{name}` cargo feature): {name} devices are not available"))
}
