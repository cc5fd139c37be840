use pyo3::prelude::*;
#[pymodule]
fn _C(m: &Bound<'_, PyModule>) -> PyResult<()> { let _ = m; Ok(()) }
