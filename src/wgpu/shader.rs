//! What a kernel launch names: a WGSL shader's source and the shape of its bind group, from
//! which the context compiles (and caches) its pipelines.

/// A WGSL shader and the shape of its bind group: binding 0 is always the uniform parameters,
/// then one storage buffer per entry (`true` = written).
pub(crate) struct Shader {
    pub name: &'static str,
    pub source: &'static str,
    pub storage: &'static [bool],
    /// Compiled without naga's runtime checks (every index into a workgroup or local array
    /// clamped, every storage access checked where the device does not, a counter bounding every
    /// loop): without them the float32 product on an H100 ran 1.6x faster (BENCHMARKS.md).
    /// Only for kernels whose every index is in range by construction (their own edge checks
    /// guard the storage accesses) and whose loops end.
    pub trusted: bool,
}
