//! Inputs shared by the criterion benches.

// Each bench binary compiles its own copy of this module and uses only part of it.
#![allow(dead_code)]

use rstorch::random::Generator;
use rstorch::{DType, Tensor};

/// A contiguous f32 tensor of uniform values in [-1, 1), the same on every run.
pub fn rand_f32(shape: &[usize]) -> Tensor {
    Tensor::rand_uniform(shape, -1.0, 1.0, DType::F32, &Generator::new(0)).expect("rand_uniform")
}

/// Elements in the "large" elementwise and reduction cases: 16M f32 = 64 MiB, well past cache.
pub const LARGE: usize = 1 << 24;
