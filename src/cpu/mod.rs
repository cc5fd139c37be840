//! CPU kernels. They take storage slices plus layouts and handle any strides; contiguous inputs
//! take fast paths compiled through the one SIMD layer in `simd`.

pub mod alloc;
pub mod arith;
pub mod attention;
mod backend;
pub mod bessel;
pub mod buffer;
pub mod cast;
pub mod conv;
pub mod elementwise;
pub(crate) mod index;
mod loss;
pub mod math;
pub mod matmul;
pub mod norm;
mod norm_ops;
pub mod num;
mod optim;
pub mod parallel;
pub mod pool;
mod rank;
pub mod reduce;
mod reduce_ops;
pub mod simd;
pub mod special;
pub mod special_fns;
pub mod unary;
pub mod vecmath;
mod vecmath_core;
mod vecmath_trig;
pub mod walk;
pub mod workers;
pub use backend::Cpu;
