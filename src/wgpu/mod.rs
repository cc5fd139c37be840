//! The GPU backend: wgpu devices, a buffer pool, batched command submission and one launcher
//! per WGSL shader (`shaders/*.wgsl`), served to the tensor layer through `Backend` (`backend`).
//! Without the `wgpu` feature, `stub` stands in: storage that cannot exist and the trait's
//! "unavailable" methods.

#[cfg(feature = "wgpu")]
mod attention;
#[cfg(feature = "wgpu")]
mod backend;
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
mod optim;
#[cfg(feature = "wgpu")]
mod pooling;
#[cfg(feature = "wgpu")]
mod positions;
#[cfg(feature = "wgpu")]
mod reduce;
#[cfg(feature = "wgpu")]
mod rnn_cell;
#[cfg(feature = "wgpu")]
mod shader;
#[cfg(feature = "wgpu")]
mod softmax;
// Storage has a stand-in without the feature (no wgpu tensor can exist), under the same path.
#[cfg_attr(not(feature = "wgpu"), path = "storage_stub.rs")]
pub mod storage;
#[cfg(feature = "wgpu")]
mod strided;
// The kernel-time log exists without the feature too (it stays empty), so `_C` has one path.
pub mod timing;

#[cfg(feature = "wgpu")]
pub use backend::Wgpu;
#[cfg(feature = "wgpu")]
pub use context::supports_timestamps;

#[cfg(not(feature = "wgpu"))]
mod stub;
#[cfg(not(feature = "wgpu"))]
pub use stub::Wgpu;
