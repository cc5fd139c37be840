//! rstorch's core: tensors over shared strided storage, CPU kernels (SIMD + rayon), the optional
//! wgpu GPU backend and the PyTorch-compatible op surface, usable from Rust alone; `python` adds
//! the `_C` extension.

pub mod autograd;
pub mod backend;
pub mod cpu;
pub mod device;
pub mod dispatch;
pub mod dtype;
pub mod error;
pub mod layout;
pub mod ops;
pub mod optim;
pub mod random;
pub mod result_layout;
pub mod scalar;
pub mod serialize;
pub mod shape;
pub mod storage;
pub mod tensor;
pub mod wgpu;

pub use device::Device;
pub use dtype::DType;
pub use error::{Error, Result};
pub use tensor::{Scalar, Tensor};

/// Large freed blocks are recycled instead of faulted in afresh (see `cpu::alloc`).
#[global_allocator]
static ALLOCATOR: cpu::alloc::RecyclingAllocator = cpu::alloc::RecyclingAllocator;

#[cfg(feature = "python")]
mod python;
