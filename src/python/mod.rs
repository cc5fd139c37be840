//! The `rstorch._C` extension module. Only this directory uses PyO3.
#![allow(non_snake_case)] // the module is `_C`, as PyTorch names its extension

mod activation;
mod arith;
mod autograd;
mod binary;
mod composite;
mod convert;
mod dtype;
mod errors;
mod float_class;
mod functions;
mod gil;
mod index_ops;
mod nn;
mod nn_functional;
mod optim;
mod products;
mod reduce;
mod rnn;
mod saved;
mod serialize;
mod spatial;
mod strided;
mod tensor;
mod tensor_object;
mod unary;
mod wgpu;

use pyo3::prelude::*;

use crate::dtype::DType;

#[pymodule]
fn _C(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<tensor_object::PyTensor>()?;
    m.add_class::<dtype::PyDType>()?;
    m.add_class::<dtype::PyDevice>()?;
    for d in DType::ALL {
        m.add(d.name(), dtype::dtype_object(py, d))?;
    }
    activation::register(m)?;
    errors::register(m)?;
    functions::register(m)?;
    autograd::register(m)?;
    nn::register(m)?;
    nn_functional::register(m)?;
    optim::register(m)?;
    serialize::register(m)?;
    spatial::register(m)?;
    wgpu::register(m)?;
    unary::register(m)?;
    binary::register(m)?;
    composite::register(m)?;
    rnn::register(m)?;
    Ok(())
}
