//! The GPU backend: wgpu devices, a buffer pool, batched command submission and one launcher
//! per WGSL shader (`shaders/*.wgsl`). Without the `wgpu` feature, `stub` stands in and every
//! entry point says the build has no GPU backend.

#[cfg(feature = "wgpu")]
mod batch;
#[cfg(feature = "wgpu")]
mod buffer_pool;
#[cfg(feature = "wgpu")]
mod context;
#[cfg(feature = "wgpu")]
mod elementwise;
#[cfg(feature = "wgpu")]
mod float_shaders;
#[cfg(feature = "wgpu")]
mod future;
#[cfg(feature = "wgpu")]
mod loss;
#[cfg(feature = "wgpu")]
mod matmul;
#[cfg(feature = "wgpu")]
mod norm;
#[cfg(feature = "wgpu")]
mod operands;
#[cfg(feature = "wgpu")]
mod ops;
#[cfg(feature = "wgpu")]
pub mod optim;
mod optim_step;
#[cfg(feature = "wgpu")]
mod pooling;
#[cfg(feature = "wgpu")]
mod reduce;
#[cfg(feature = "wgpu")]
mod shader;
#[cfg(feature = "wgpu")]
mod softmax;
#[cfg(feature = "wgpu")]
mod storage;
#[cfg(feature = "wgpu")]
mod strided;

#[cfg(feature = "wgpu")]
pub use buffer_pool::PoolStats;
#[cfg(feature = "wgpu")]
pub use context::{adapter_name, device_count, empty_cache, is_available, pool_stats, supports_f16, supports_f64, synchronize};
#[cfg(feature = "wgpu")]
pub use loss::nll_loss;
#[cfg(feature = "wgpu")]
pub use matmul::{matmul, matmul_add};
#[cfg(feature = "wgpu")]
pub use norm::{batch_norm, batch_norm_backward, layer_norm, layer_norm_backward};
#[cfg(feature = "wgpu")]
pub use ops::{
    add_at, add_at_positions, binary, copy_strided, gather_index, index_offsets, index_offsets_of_checked, put, put_at_positions,
    scatter_index, take, take_at, unary, where_, IndexTerm, Operand,
};
#[cfg(feature = "wgpu")]
pub use pooling::{col2im, max_pool2d, max_pool2d_backward};
#[cfg(feature = "wgpu")]
pub use reduce::{arg_reduce, cumulative, reduce, sort};
#[cfg(feature = "wgpu")]
pub use softmax::{softmax, softmax_backward};
#[cfg(feature = "wgpu")]
pub use storage::{alloc, upload, WgpuStorage};

#[cfg(not(feature = "wgpu"))]
mod stub;
#[cfg(not(feature = "wgpu"))]
pub use stub::*;
