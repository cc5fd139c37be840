//! The wgpu backend's stand-in for builds without the `wgpu` feature: every method of the backend
//! is the trait's "unavailable" one (no wgpu tensor can exist: `storage_stub.rs`).

/// The wgpu backend of a build without it: every method is the trait's "unavailable" one.
pub struct Wgpu;

impl crate::backend::Backend for Wgpu {
    fn name(&self) -> &'static str {
        "wgpu"
    }
}
