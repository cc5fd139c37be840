//! What a kernel launch names: a WGSL shader's source and the shape of its bind group, from
//! which the context compiles (and caches) its pipelines.

/// A WGSL shader and the shape of its bind group: binding 0 is always the uniform parameters,
/// then one storage buffer per entry (`true` = written).
pub(crate) struct Shader {
    pub name: &'static str,
    pub source: &'static str,
    pub storage: &'static [bool],
}
