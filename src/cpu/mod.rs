//! CPU kernels. They take storage slices plus layouts and handle any strides; contiguous inputs
//! take fast paths compiled through the one SIMD layer in `simd`.

pub mod act_grad;
pub mod alloc;
pub mod arith;
pub mod attention;
mod backend;
pub mod bessel;
mod bessel_tables;
pub mod binary_math;
pub mod buffer;
pub mod cast;
pub mod cat;
pub mod clamp;
pub mod conv;
pub mod elementwise;
pub mod extremum;
pub mod flip;
#[cfg(target_arch = "x86_64")]
pub(crate) mod fold_f32;
pub mod fused_pointwise;
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
pub mod rnn_cell;
pub mod runs;
pub mod scan;
#[cfg(target_arch = "x86_64")]
mod scan_f32;
pub mod simd;
pub mod special;
mod special_f32_tables;
pub mod special_fns;
#[cfg(target_arch = "x86_64")]
mod transpose_avx512;
pub mod unary;
pub mod vecmath;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_asin;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_atan;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_atan_tables;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_erfc;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_erfc_tables;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_erfinv;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_erfinv_tables;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_gelu;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_gelu_tables;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_log;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vecmath_avx512_pow;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_softplus;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_tan;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_tan_tables;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_tanh;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_tanh_tables;
#[cfg(target_arch = "x86_64")]
mod vecmath_avx512_trig;
pub mod vecmath_bessel;
mod vecmath_core;
mod vecmath_erfcx;
pub(crate) mod vecmath_f32;
mod vecmath_f32erf;
mod vecmath_f32log;
mod vecmath_f32trig;
pub(crate) mod vecmath_gamma;
pub mod vecmath_special;
pub(crate) mod vecmath_trig;
pub mod walk;
pub mod workers;
pub use backend::Cpu;
