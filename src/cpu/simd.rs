//! The one SIMD layer: plain loops run inside `vectorized` are compiled for the best instruction
//! set the CPU has (AVX-512, else AVX2, else the baseline), chosen once at run time through pulp.

use std::sync::OnceLock;

fn arch() -> pulp::Arch {
    static ARCH: OnceLock<pulp::Arch> = OnceLock::new();
    *ARCH.get_or_init(pulp::Arch::new)
}

/// Runs `f` with the widest available vector instructions enabled, so LLVM vectorises its loops.
#[inline(always)]
pub fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    arch().dispatch(f)
}

/// The instruction set `vectorized` uses: "avx512", "avx2" or "scalar".
pub fn simd_level() -> &'static str {
    match arch() {
        pulp::Arch::V4(_) => "avx512",
        pulp::Arch::V3(_) => "avx2",
        _ => "scalar",
    }
}
