//! What an optimizer update asks of a backend: the entry point, its flag bits and
//! hyperparameters, as `shaders/optim.wgsl` takes them and `cpu::optim` interprets them.

use super::array::Array;

/// Flag bits of `shaders/optim.wgsl` (see there).
pub mod flags {
    pub const MAXIMIZE: u32 = 1;
    pub const DECAY: u32 = 2;
    pub const STATE: u32 = 4;
    pub const FRESH: u32 = 8;
    pub const NESTEROV: u32 = 16;
    pub const DECOUPLED: u32 = 32;
    pub const CENTERED: u32 = 64;
}

/// One update: the entry point (`sgd`, `adam`, `rmsprop`, `adagrad`), its flags and its
/// hyperparameters in the order the shader lists them (in float64; float32 parameters' updates
/// round them to float32 on every backend).
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub entry: &'static str,
    pub flags: u32,
    pub h: [f64; 8],
}

/// One parameter's part of a multi-tensor optimizer step: its update, the parameter, its
/// gradient and its state arrays (in the order the update names them).
pub struct StepJob<'a> {
    pub step: Step,
    pub param: &'a Array,
    pub grad: &'a Array,
    pub state: Vec<&'a Array>,
}
