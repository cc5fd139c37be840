//! The GPU backend: wgpu devices, a buffer pool, batched command submission and one launcher
//! per WGSL shader (`shaders/*.wgsl`). Without the `wgpu` feature, `stub` stands in and every
//! entry point says the build has no GPU backend.

#[cfg(feature = "wgpu")]
mod batch;
#[cfg(feature = "wgpu")]
mod context;
#[cfg(feature = "wgpu")]
mod elementwise;
#[cfg(feature = "wgpu")]
mod float_shaders;
#[cfg(feature = "wgpu")]
mod image;
#[cfg(feature = "wgpu")]
mod loss;
#[cfg(feature = "wgpu")]
mod matmul;
#[cfg(feature = "wgpu")]
mod norm;
#[cfg(feature = "wgpu")]
mod ops;
#[cfg(feature = "wgpu")]
pub mod optim;
mod optim_step;
#[cfg(feature = "wgpu")]
mod pool;
#[cfg(feature = "wgpu")]
mod reduce;
#[cfg(feature = "wgpu")]
mod softmax;
#[cfg(feature = "wgpu")]
mod storage;
#[cfg(feature = "wgpu")]
mod strided;

#[cfg(feature = "wgpu")]
pub use context::{adapter_name, device_count, empty_cache, is_available, pool_stats, supports_f16, supports_f64, synchronize, PoolStats};
#[cfg(feature = "wgpu")]
pub use ops::{
    add_at, add_at_positions, arg_reduce, batch_norm, batch_norm_backward, binary, col2im, copy_strided, cumulative, gather_index,
    index_offsets, index_offsets_of_checked, layer_norm, layer_norm_backward, matmul, matmul_add, max_pool2d, max_pool2d_backward,
    nll_loss, put, put_at_positions, reduce, scatter_index, softmax, softmax_backward, sort, take, take_at, unary, where_, IndexTerm,
    Operand,
};
#[cfg(feature = "wgpu")]
pub use storage::{alloc, upload, WgpuStorage};

#[cfg(not(feature = "wgpu"))]
mod stub;
#[cfg(not(feature = "wgpu"))]
pub use stub::*;
