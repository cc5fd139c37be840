//! The wgpu backend's stand-in for builds without the `wgpu` feature: no wgpu tensor can exist
//! (`WgpuStorage` has no values), and every entry point that would make one says why.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{BinaryOp, ReduceOp, Scalar, Tensor, UnaryOp};

fn not_built() -> Error {
    Error::Runtime("rstorch was built without its wgpu backend (the `wgpu` cargo feature): wgpu devices are not available".into())
}

/// Uninhabited: storage on a device this build cannot reach.
pub enum WgpuStorage {}

impl WgpuStorage {
    pub fn dtype(&self) -> DType {
        match *self {}
    }

    pub fn len(&self) -> usize {
        match *self {}
    }

    pub fn is_empty(&self) -> bool {
        match *self {}
    }

    pub fn device(&self) -> Device {
        match *self {}
    }

    pub fn read_into(&self, _start: usize, _dst: &mut [u8]) -> Result<()> {
        match *self {}
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub created: u64,
    pub reused: u64,
    pub in_use_bytes: u64,
    pub cached_bytes: u64,
    pub read_backs: u64,
    pub read_back_bytes: u64,
    pub launches: u64,
}

pub fn is_available() -> bool {
    false
}

pub fn device_count() -> usize {
    0
}

pub fn adapter_name(_ordinal: usize) -> Result<String> {
    Err(not_built())
}

pub fn supports_f16(_ordinal: usize) -> Result<bool> {
    Err(not_built())
}

pub fn supports_f64(_ordinal: usize) -> Result<bool> {
    Err(not_built())
}

pub fn synchronize(_ordinal: usize) -> Result<()> {
    Err(not_built())
}

pub fn pool_stats(_ordinal: usize) -> Result<PoolStats> {
    Err(not_built())
}

pub fn empty_cache(_ordinal: usize) -> Result<()> {
    Err(not_built())
}

pub fn alloc(_ordinal: usize, _dtype: DType, _len: usize, _zeroed: bool) -> Result<WgpuStorage> {
    Err(not_built())
}

pub fn upload(_ordinal: usize, _bytes: &[u8], _dtype: DType) -> Result<WgpuStorage> {
    Err(not_built())
}

pub enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

pub fn unary(_x: &Tensor, _op: UnaryOp) -> Result<Tensor> {
    Err(not_built())
}

pub fn binary<'a>(
    _op: BinaryOp,
    _a: Operand<'a>,
    _b: Operand<'a>,
    _shape: &[usize],
    _device: Device,
    _compute: DType,
    _out: DType,
) -> Result<Tensor> {
    Err(not_built())
}

pub fn where_<'a>(_cond: &Tensor, _a: Operand<'a>, _b: Operand<'a>, _shape: &[usize], _dtype: DType) -> Result<Tensor> {
    Err(not_built())
}

pub fn arg_reduce(_x: &Tensor, _dim: usize, _max: bool) -> Result<Tensor> {
    Err(not_built())
}

pub fn take(_src: &Tensor, _offsets: &[usize], _shape: &[usize]) -> Result<Tensor> {
    Err(not_built())
}

pub fn gather_index(
    _src: &Tensor,
    _src_at: &crate::layout::Layout,
    _dim: usize,
    _index: &Tensor,
    _index_at: &crate::layout::Layout,
    _shape: &[usize],
) -> Result<Option<Tensor>> {
    Err(not_built())
}

pub fn put(_dst: &Tensor, _offsets: &[usize], _values: &Tensor) -> Result<()> {
    Err(not_built())
}

pub fn add_at(_out: &Tensor, _targets: &[usize], _src: &Tensor, _src_offsets: &[usize]) -> Result<()> {
    Err(not_built())
}

pub struct IndexTerm<'a> {
    pub index: &'a Tensor,
    pub at: crate::layout::Layout,
    pub stride: usize,
    pub size: usize,
}

pub fn index_offsets(_walk: &crate::layout::Layout, _terms: &[IndexTerm<'_>], _wrap: bool) -> Result<Option<Tensor>> {
    Err(not_built())
}

pub fn index_offsets_of_checked(_walk: &crate::layout::Layout, _terms: &[IndexTerm<'_>]) -> Result<Tensor> {
    Err(not_built())
}

pub fn take_at(_src: &Tensor, _offsets: &Tensor, _shape: &[usize]) -> Result<Tensor> {
    Err(not_built())
}

pub fn add_at_positions(_out: &Tensor, _targets: &Tensor, _src: &Tensor) -> Result<()> {
    Err(not_built())
}

pub fn put_at_positions(_out: &Tensor, _targets: &Tensor, _src: &Tensor) -> Result<()> {
    Err(not_built())
}

pub fn copy_strided(_src: &Tensor, _dst: &Tensor) -> Result<()> {
    Err(not_built())
}

pub fn reduce(_x: &Tensor, _op: ReduceOp, _rdims: &[usize], _out_shape: &[usize]) -> Result<Tensor> {
    Err(not_built())
}

pub fn matmul(_a: &Tensor, _b: &Tensor) -> Result<Tensor> {
    Err(not_built())
}

pub fn matmul_add(_a: &Tensor, _b: &Tensor, _bias: Option<&Tensor>) -> Result<Tensor> {
    Err(not_built())
}

pub fn softmax(_x: &Tensor, _dim: usize, _log: bool) -> Result<Tensor> {
    Err(not_built())
}

pub fn scatter_index(_out: &Tensor, _dim: usize, _index: &Tensor, _src: &Tensor) -> Result<bool> {
    Err(not_built())
}

pub fn softmax_backward(_g: &Tensor, _y: &Tensor, _dim: usize, _log: bool) -> Result<Tensor> {
    Err(not_built())
}

pub fn max_pool2d(_x: &Tensor, _g: &crate::cpu::pool::PoolGeom, _out_shape: &[usize]) -> Result<(Tensor, Tensor)> {
    Err(not_built())
}

pub fn max_pool2d_backward(_grad: &Tensor, _positions: &Tensor, _g: &crate::cpu::pool::PoolGeom, _shape: &[usize]) -> Result<Tensor> {
    Err(not_built())
}

pub fn nll_loss(
    _scores: &Tensor,
    _target: &Tensor,
    _weight: Option<&Tensor>,
    _classes: usize,
    _ignore_index: i64,
    _reduction: crate::tensor::loss::Reduction,
    _out_shape: &[usize],
) -> Result<Option<(Tensor, Tensor, Tensor)>> {
    Err(not_built())
}

pub fn col2im(_cols: &Tensor, _g: &crate::cpu::pool::PoolGeom, _shape: &[usize]) -> Result<Tensor> {
    Err(not_built())
}

pub fn cumulative(_x: &Tensor, _dim: usize, _product: bool) -> Result<Tensor> {
    Err(not_built())
}

pub fn sort(_x: &Tensor, _dim: usize, _descending: bool) -> Result<Tensor> {
    Err(not_built())
}

/// The optimizer launcher's stand-in.
pub mod optim {
    use super::not_built;
    use crate::error::Result;
    use crate::tensor::Tensor;

    pub use crate::wgpu::optim_step::{flags, Step};

    pub fn optimizer_step(_step: &Step, _param: &Tensor, _grad: &Tensor, _state: &[&Tensor]) -> Result<()> {
        Err(not_built())
    }
}

pub fn layer_norm(
    _x: &Tensor,
    _cols: usize,
    _weight: Option<&Tensor>,
    _bias: Option<&Tensor>,
    _eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    Err(not_built())
}

pub fn layer_norm_backward(
    _x: &Tensor,
    _g: &Tensor,
    _weight: Option<&Tensor>,
    _stats: (&Tensor, &Tensor),
    _cols: usize,
    _want: [bool; 3],
) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
    Err(not_built())
}

pub fn batch_norm(
    _x: &Tensor,
    _weight: Option<&Tensor>,
    _bias: Option<&Tensor>,
    _running: Option<(&Tensor, &Tensor)>,
    _training: bool,
    _eps: f64,
) -> Result<(Tensor, Tensor, Tensor, Tensor)> {
    Err(not_built())
}

pub fn batch_norm_backward(
    _x: &Tensor,
    _g: &Tensor,
    _weight: Option<&Tensor>,
    _stats: (&Tensor, &Tensor),
    _training: bool,
    _want_x: bool,
) -> Result<(Option<Tensor>, Tensor, Tensor)> {
    Err(not_built())
}
