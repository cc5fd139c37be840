//! The wgpu backend's stand-in for builds without the `wgpu` feature: no wgpu tensor can exist
//! (`WgpuStorage` has no values), and every method of the backend says why.

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

/// The wgpu backend of a build without it: every method is the trait's "unavailable" one.
pub struct Wgpu;

impl crate::backend::Backend for Wgpu {
    fn name(&self) -> &'static str {
        "wgpu"
    }
}
