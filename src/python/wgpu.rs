//! `_C` functions behind `rstorch.wgpu`: adapter queries, synchronisation and pool statistics.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::dispatch::gpu;

/// Whether this build includes the wgpu backend at all.
#[pyfunction]
fn _wgpu_is_built() -> bool {
    cfg!(feature = "wgpu")
}

/// Whether an adapter exists and its device opens.
#[pyfunction]
fn _wgpu_is_available(py: Python<'_>) -> bool {
    py.detach(|| gpu().is_available())
}

#[pyfunction]
fn _wgpu_device_count(py: Python<'_>) -> usize {
    py.detach(|| gpu().device_count())
}

/// How many devices `cuda:N` names: the real GPUs, which lead wgpu's adapter list.
pub fn cuda_device_count() -> usize {
    let gpu = gpu();
    (0..gpu.device_count()).take_while(|&i| gpu.is_real_gpu(i)).count()
}

#[pyfunction]
fn _cuda_device_count(py: Python<'_>) -> usize {
    py.detach(cuda_device_count)
}

#[pyfunction]
fn _wgpu_device_name(py: Python<'_>, ordinal: usize) -> PyResult<String> {
    Ok(py.detach(|| gpu().adapter_name(ordinal))?)
}

#[pyfunction]
fn _wgpu_supports_f16(py: Python<'_>, ordinal: usize) -> PyResult<bool> {
    Ok(py.detach(|| gpu().supports_f16(ordinal))?)
}

#[pyfunction]
fn _wgpu_supports_f64(py: Python<'_>, ordinal: usize) -> PyResult<bool> {
    Ok(py.detach(|| gpu().supports_f64(ordinal))?)
}

#[pyfunction]
fn _wgpu_synchronize(py: Python<'_>, ordinal: usize) -> PyResult<()> {
    Ok(py.detach(|| gpu().synchronize(ordinal))?)
}

#[pyfunction]
fn _wgpu_empty_cache(ordinal: usize) -> PyResult<()> {
    Ok(gpu().empty_cache(ordinal)?)
}

#[pyfunction]
fn _wgpu_pool_stats(py: Python<'_>, ordinal: usize) -> PyResult<Bound<'_, PyDict>> {
    let s = gpu().pool_stats(ordinal)?;
    let d = PyDict::new(py);
    d.set_item("buffers_created", s.created)?;
    d.set_item("buffers_reused", s.reused)?;
    d.set_item("bytes_in_use", s.in_use_bytes)?;
    d.set_item("bytes_cached", s.cached_bytes)?;
    d.set_item("read_backs", s.read_backs)?;
    d.set_item("bytes_read_back", s.read_back_bytes)?;
    d.set_item("kernels_launched", s.launches)?;
    Ok(d)
}

/// Switches the timing of wgpu kernels for the profiler on or off.
#[pyfunction]
fn _wgpu_kernel_timing(on: bool) {
    crate::wgpu::timing::set_enabled(on);
}

/// Whether the device of `ordinal` can time kernels (its adapter offers timestamp queries).
#[pyfunction]
fn _wgpu_kernel_timing_supported(py: Python<'_>, ordinal: usize) -> PyResult<bool> {
    #[cfg(feature = "wgpu")]
    let supported = py.detach(|| crate::wgpu::supports_timestamps(ordinal))?;
    #[cfg(not(feature = "wgpu"))]
    let supported = {
        let _ = (py, ordinal);
        false
    };
    Ok(supported)
}

/// Drains the kernel times logged so far: (entry point, shader, launch and start in ns relative to now, duration in ns).
#[pyfunction]
fn _wgpu_kernel_times() -> Vec<(&'static str, &'static str, i64, i64, u64)> {
    crate::wgpu::timing::drain()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_wgpu_is_built, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_is_available, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_device_count, m)?)?;
    m.add_function(wrap_pyfunction!(_cuda_device_count, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_device_name, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_supports_f16, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_supports_f64, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_empty_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_pool_stats, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_kernel_timing, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_kernel_timing_supported, m)?)?;
    m.add_function(wrap_pyfunction!(_wgpu_kernel_times, m)?)?;
    Ok(())
}
