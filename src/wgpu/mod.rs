//! The GPU backend. Until its wgpu implementation lands, `stub` stands in: no GPU tensor can
//! exist and every entry point says the build has no GPU backend.

mod stub;
pub use stub::*;
