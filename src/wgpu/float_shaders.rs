//! The modules of the float kernels (softmax, norms, pooling, col2im): one source compiled for
//! float32 and, on devices with float64 shaders, for float64.

use crate::dtype::DType;
use crate::error::{Error, Result};

use super::context::Context;
use super::shader::Shader;

/// An operand of the float kernels: its buffer and the element its contiguous data starts at.
pub(crate) type Operand<'a> = (&'a wgpu::Buffer, usize);

/// One kernel source as a float32 and a float64 module.
pub(crate) struct FloatShaders {
    pub f32: Shader,
    pub f64: Shader,
}

impl FloatShaders {
    /// The module computing in `dtype` (float32 or float64), for the error of `op`.
    pub fn of(&'static self, ctx: &Context, dtype: DType, op: &str) -> Result<&'static Shader> {
        match dtype {
            DType::F32 => Ok(&self.f32),
            DType::F64 => ctx.require_f64(op).map(|_| &self.f64),
            d => Err(Error::Runtime(format!("wgpu {op}: no kernel computes in {}", d.name()))),
        }
    }
}

/// The `FloatShaders` named `$name` of `shaders/$file`s, with `$storage` the written flags of its
/// storage bindings: each type's prelude first, workgroup_sum.wgsl after, and for float64
/// f64.wgsl's math last.
macro_rules! float_shaders {
    ($name:literal, $storage:expr, $($file:literal),+) => {
        $crate::wgpu::float_shaders::FloatShaders {
            f32: $crate::wgpu::shader::Shader {
                name: concat!($name, "_f32"),
                source: concat!(include_str!("shaders/float_f32.wgsl"), $(include_str!(concat!("shaders/", $file)),)+ include_str!("shaders/workgroup_sum.wgsl")),
                storage: $storage,
                trusted: false,
            },
            f64: $crate::wgpu::shader::Shader {
                name: concat!($name, "_f64"),
                source: concat!(include_str!("shaders/float_f64.wgsl"), $(include_str!(concat!("shaders/", $file)),)+ include_str!("shaders/workgroup_sum.wgsl"), include_str!("shaders/f64.wgsl")),
                storage: $storage,
                trusted: false,
            },
        }
    };
}
pub(crate) use float_shaders;
