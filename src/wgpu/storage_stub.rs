//! The storage of wgpu tensors in a build without the `wgpu` feature: uninhabited, as no such
//! tensor can exist.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;

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
