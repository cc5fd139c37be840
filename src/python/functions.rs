//! Module-level functions of `rstorch._C`: factories, random numbers, joins, threads, dtypes.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::device::Device;
use crate::dtype::{result_type, DType, Operand, DEFAULT_FLOAT};
use crate::random::Generator;
use crate::tensor::arith::Arg;
use crate::tensor::{Scalar, Tensor};

use super::convert::{from_numpy, index_int, int_args, scalar_of, shape_arg, tensor_from_data, to_tensor, NumpyUse};
use super::dtype::{dtype_object, extract_device, extract_opt_device, extract_opt_dtype, PyDType};
use super::gil::run;
use super::tensor_object::PyTensor;

#[pyclass(name = "Generator", module = "rstorch", frozen)]
pub struct PyGenerator {
    pub generator: Generator,
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<PyGenerator> {
        if let Some(d) = device {
            extract_device(d)?;
        }
        Ok(PyGenerator { generator: Generator::new(67280421310721) })
    }

    fn manual_seed<'py>(slf: &Bound<'py, Self>, seed: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().generator.manual_seed(seed_value(seed)?);
        Ok(slf.clone())
    }

    fn initial_seed(&self) -> u64 {
        self.generator.initial_seed()
    }

    fn seed(&self) -> u64 {
        let s = fresh_seed();
        self.generator.manual_seed(s);
        s
    }

    /// The generator's state as a uint8 tensor (`set_state` takes it back).
    fn get_state(&self) -> PyResult<PyTensor> {
        rng_state(&self.generator)
    }

    fn set_state<'py>(slf: &Bound<'py, Self>, new_state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        set_rng_state_of(&slf.get().generator, new_state)?;
        Ok(slf.clone())
    }

    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<super::dtype::PyDevice>> {
        super::dtype::device_object(py, crate::Device::Cpu)
    }
}

fn rng_state(gen: &Generator) -> PyResult<PyTensor> {
    let bytes = gen.lock().state_bytes();
    let n = bytes.len();
    Ok(PyTensor::wrap(Tensor::from_vec(bytes, &[n])?))
}

/// Restores a state `rng_state` gave; anything but a CPU uint8 tensor is PyTorch's TypeError, a
/// wrong size or content its RuntimeError.
fn set_rng_state_of(gen: &Generator, state: &Bound<'_, PyAny>) -> PyResult<()> {
    let t = match state.cast::<PyTensor>() {
        Ok(t) => t.get().tensor(),
        Err(_) => return Err(PyTypeError::new_err(format!("expected a torch.ByteTensor, but got {}", state.get_type().name()?))),
    };
    if t.dtype() != DType::U8 || t.device() != Device::Cpu {
        return Err(PyTypeError::new_err("RNG state must be a torch.ByteTensor"));
    }
    let bytes = t.contiguous()?.to_vec::<u8>()?;
    let rng = crate::random::Rng::from_state_bytes(&bytes).ok_or_else(|| {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "Expected a CPUGeneratorImplState of size {} but found the input RNG state size to be {}",
            crate::random::Rng::STATE_BYTES,
            bytes.len()
        ))
    })?;
    gen.set_state(rng);
    Ok(())
}

#[pyfunction]
fn get_rng_state() -> PyResult<PyTensor> {
    rng_state(Generator::default_generator())
}

#[pyfunction]
fn set_rng_state(new_state: &Bound<'_, PyAny>) -> PyResult<()> {
    set_rng_state_of(Generator::default_generator(), new_state)
}

fn seed_value(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let v: i128 = seed.extract().map_err(|_| PyTypeError::new_err("seed must be an int"))?;
    if !(-(1i128 << 63)..(1i128 << 64)).contains(&v) {
        return Err(PyValueError::new_err("Overflow when unpacking long"));
    }
    Ok(v as u64)
}

fn fresh_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

fn generator_of(g: Option<&Bound<'_, PyAny>>) -> PyResult<Generator> {
    match g {
        Some(g) if !g.is_none() => Ok(g.cast::<PyGenerator>()?.get().generator.clone()),
        _ => Ok(Generator::default_generator().clone()),
    }
}

/// The device factories use when called without one (`set_default_device`); None is the CPU.
static DEFAULT_DEVICE: std::sync::RwLock<Option<Device>> = std::sync::RwLock::new(None);

/// A factory's `device=` argument, or the default device.
fn factory_device(device: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Device>> {
    Ok(match extract_opt_device(device)? {
        Some(d) => Some(d),
        None => *DEFAULT_DEVICE.read().unwrap_or_else(|e| e.into_inner()),
    })
}

#[pyfunction]
#[pyo3(signature = (device))]
fn set_default_device(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let d = extract_opt_device(device)?.filter(|d| !d.is_cpu());
    *DEFAULT_DEVICE.write().unwrap_or_else(|e| e.into_inner()) = d;
    Ok(())
}

#[pyfunction]
fn get_default_device(py: Python<'_>) -> PyResult<Py<super::dtype::PyDevice>> {
    let d = DEFAULT_DEVICE.read().unwrap_or_else(|e| e.into_inner()).unwrap_or(Device::Cpu);
    super::dtype::device_object(py, d)
}

/// Common keywords of factories: puts the tensor on `device` (made on the CPU, it is uploaded
/// once) and applies `requires_grad`, so the result is a leaf.
fn finish(t: Tensor, device: Option<&Bound<'_, PyAny>>, requires_grad: bool) -> PyResult<Py<PyTensor>> {
    let t = match factory_device(device)? {
        Some(d) => t.to_device(d)?,
        None => t,
    };
    if requires_grad {
        t.set_requires_grad(true)?;
    }
    Python::attach(|py| {
        let obj = Bound::new(py, PyTensor::wrap(t))?;
        if requires_grad {
            super::tensor_object::remember_object(&obj)?;
        }
        Ok(obj.unbind())
    })
}

#[pyfunction]
#[pyo3(signature = (data, *, dtype=None, device=None, requires_grad=false, pin_memory=false))]
fn tensor(
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = pin_memory;
    let t = tensor_from_data(data, extract_opt_dtype(dtype)?)?;
    finish(t, device, requires_grad)
}

/// Shares memory with tensors and NumPy arrays of the requested dtype; copies otherwise.
#[pyfunction]
#[pyo3(signature = (data, dtype=None, device=None))]
fn as_tensor(data: &Bound<'_, PyAny>, dtype: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let py = data.py();
    let dtype = extract_opt_dtype(dtype)?;
    let explicit = extract_opt_device(device)?;
    let device = factory_device(device)?;
    let place = |t: Tensor| -> PyResult<Tensor> {
        Ok(match device {
            Some(d) => t.to_device(d)?,
            None => t,
        })
    };
    if let Ok(t) = data.cast::<PyTensor>() {
        let inner = &t.get().tensor();
        // A tensor keeps its device unless one is named (the default device does not apply).
        let device = explicit;
        let same_device = device.is_none_or(|d| d == inner.device());
        let place = |t: Tensor| -> PyResult<Tensor> {
            Ok(match device {
                Some(d) => t.to_device(d)?,
                None => t,
            })
        };
        return match dtype {
            Some(d) if d != inner.dtype() => Ok(Py::new(py, PyTensor::wrap(place(inner.copy_as(d)?)?))?.into_any()),
            _ if same_device => Ok(t.clone().into_any().unbind()),
            _ => Ok(Py::new(py, PyTensor::wrap(place(inner.clone())?))?.into_any()),
        };
    }
    if let Ok(arr) = data.cast::<numpy::PyUntypedArray>() {
        let t = from_numpy(arr, NumpyUse::ShareIfPossible)?;
        let t = match dtype {
            Some(d) => t.to_dtype(d)?,
            None => t,
        };
        return Ok(Py::new(py, PyTensor::wrap(place(t)?))?.into_any());
    }
    Ok(Py::new(py, PyTensor::wrap(place(tensor_from_data(data, dtype)?)?))?.into_any())
}

#[pyfunction(name = "from_numpy")]
fn from_numpy_fn(arr: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let arr = arr.cast::<numpy::PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!("expected np.ndarray (got {})", arr.get_type().name().map(|n| n.to_string()).unwrap_or_default()))
    })?;
    Ok(PyTensor::wrap(from_numpy(arr, NumpyUse::Share)?))
}

macro_rules! filled_factory {
    ($name:ident, $value:expr) => {
        #[pyfunction]
        #[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false, out=None, layout=None, pin_memory=false))]
        fn $name(
            size: &Bound<'_, PyTuple>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            out: Option<&Bound<'_, PyAny>>,
            layout: Option<&Bound<'_, PyAny>>,
            pin_memory: bool,
        ) -> PyResult<Py<PyTensor>> {
            let _ = (out, layout, pin_memory);
            let dtype = extract_opt_dtype(dtype)?.unwrap_or(DEFAULT_FLOAT);
            let shape = shape_arg(&int_args(size)?, dtype)?;
            let py = size.py();
            let t = match factory_device(device)? {
                // Zeros and empty tensors are made on the device itself (no upload).
                Some(d) if !d.is_cpu() && $value == Scalar::Int(0) => Tensor::zeros_on(&shape, dtype, d)?,
                _ => run(py, shape.iter().product(), || Tensor::full(&shape, $value, dtype))?,
            };
            finish(t, device, requires_grad)
        }
    };
}
filled_factory!(zeros, Scalar::Int(0));
filled_factory!(ones, Scalar::Int(1));
filled_factory!(empty, Scalar::Int(0));

#[pyfunction]
#[pyo3(signature = (size, fill_value, *, dtype=None, device=None, requires_grad=false))]
fn full(
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    let value = match scalar_of(fill_value) {
        Some(v) => v,
        None => to_tensor(fill_value)?.item()?,
    };
    let inferred = match value {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => DEFAULT_FLOAT,
    };
    let dtype = extract_opt_dtype(dtype)?.unwrap_or(inferred);
    let value = value.checked_for(dtype, crate::tensor::scalar_check::Spelling::Cpp)?;
    let shape = shape_arg(&super::convert::int_list(size)?, dtype)?;
    finish(Tensor::full(&shape, value, dtype)?, device, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (start, end=None, step=None, *, dtype=None, device=None, requires_grad=false))]
fn arange(
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    let num = |o: &Bound<'_, PyAny>| -> PyResult<Scalar> {
        scalar_of(o)
            .or_else(|| o.cast::<PyTensor>().ok().and_then(|t| t.get().tensor().item().ok()))
            .ok_or_else(|| PyTypeError::new_err("arange() expects numbers"))
    };
    let (s, e) = match end.filter(|e| !e.is_none()) {
        Some(e) => (num(start)?, num(e)?),
        None => (Scalar::Int(0), num(start)?),
    };
    let st = match step {
        Some(v) => num(v)?,
        None => Scalar::Int(1),
    };
    let any_float = [s, e, st].iter().any(|v| matches!(v, Scalar::Float(_)));
    let dtype = extract_opt_dtype(dtype)?.unwrap_or(if any_float { DEFAULT_FLOAT } else { DType::I64 });
    finish(Tensor::arange(s, e, st, dtype)?, device, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, *, dtype=None, device=None, requires_grad=false))]
fn linspace(
    start: f64,
    end: f64,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    let dtype = extract_opt_dtype(dtype)?.unwrap_or(DEFAULT_FLOAT);
    finish(Tensor::linspace(start, end, steps, dtype)?, device, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (n, m=None, *, dtype=None, device=None, requires_grad=false))]
fn eye(
    n: i64,
    m: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    let dtype = extract_opt_dtype(dtype)?.unwrap_or(DEFAULT_FLOAT);
    let shape = shape_arg(&[n, m.unwrap_or(n)], dtype)?;
    finish(Tensor::eye(shape[0], shape[1], dtype)?, device, requires_grad)
}

macro_rules! random_factory {
    ($name:ident, |$shape:ident, $dtype:ident, $gen:ident| $body:expr) => {
        #[pyfunction]
        #[pyo3(signature = (*size, generator=None, dtype=None, device=None, requires_grad=false))]
        fn $name(
            size: &Bound<'_, PyTuple>,
            generator: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
        ) -> PyResult<Py<PyTensor>> {
            let $dtype = extract_opt_dtype(dtype)?.unwrap_or(DEFAULT_FLOAT);
            if !$dtype.is_floating_point() {
                return Err(PyTypeError::new_err(format!("\"{}\" not implemented for '{}'", stringify!($name), ($dtype).title_name())));
            }
            let $shape = shape_arg(&int_args(size)?, $dtype)?;
            let $gen = generator_of(generator)?;
            let py = size.py();
            let t = py.detach(|| $body)?;
            finish(t, device, requires_grad)
        }
    };
}
random_factory!(rand, |shape, dtype, gen| Tensor::rand_uniform(&shape, 0.0, 1.0, dtype, &gen));
random_factory!(randn, |shape, dtype, gen| Tensor::rand_normal(&shape, 0.0, 1.0, dtype, &gen));

/// `randint(high, size)` or `randint(low, high, size)`.
#[pyfunction]
#[pyo3(signature = (*args, size=None, generator=None, dtype=None, device=None, requires_grad=false))]
fn randint(
    args: &Bound<'_, PyTuple>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    let mut ints = vec![];
    let mut size_obj = size.cloned();
    for a in args.iter() {
        if a.is_instance_of::<pyo3::types::PyInt>() || a.cast::<PyTensor>().is_ok() {
            ints.push(index_int(&a)?);
        } else {
            size_obj = Some(a);
        }
    }
    let (low, high) = match ints.as_slice() {
        [h] => (0, *h),
        [l, h] => (*l, *h),
        _ => return Err(PyTypeError::new_err("randint() expects (high, size) or (low, high, size)")),
    };
    let size_obj = size_obj.ok_or_else(|| PyTypeError::new_err("randint() missing required argument 'size'"))?;
    let dtype = extract_opt_dtype(dtype)?.unwrap_or(DType::I64);
    let shape = shape_arg(&super::convert::int_list(&size_obj)?, dtype)?;
    finish(Tensor::randint(low, high, &shape, dtype, &generator_of(generator)?)?, device, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (n, *, generator=None, dtype=None, device=None, requires_grad=false))]
fn randperm(
    n: i64,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    if n < 0 {
        return Err(PyValueError::new_err(format!("n must be non-negative, got{n}")));
    }
    let dtype = extract_opt_dtype(dtype)?.unwrap_or(DType::I64);
    finish(Tensor::randperm(n as usize, dtype, &generator_of(generator)?)?, device, requires_grad)
}

#[pyfunction]
fn manual_seed(seed: &Bound<'_, PyAny>) -> PyResult<()> {
    Generator::default_generator().manual_seed(seed_value(seed)?);
    Ok(())
}

#[pyfunction]
fn initial_seed() -> u64 {
    Generator::default_generator().initial_seed()
}

#[pyfunction]
fn seed() -> u64 {
    let s = fresh_seed();
    Generator::default_generator().manual_seed(s);
    s
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (from_=0.0, to=1.0, *, generator=None))]
    fn uniform_<'py>(slf: &Bound<'py, Self>, from_: f64, to: f64, generator: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, Self>> {
        let t = &slf.get().tensor();
        let gen = generator_of(generator)?;
        crate::tensor::scalar_check::check_uniform_bounds(from_, to, t.dtype())?;
        let r = Tensor::rand_uniform(t.shape(), from_, to, t.dtype(), &gen)?;
        t.assign_(&r)?;
        Ok(slf.clone())
    }

    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    fn normal_<'py>(slf: &Bound<'py, Self>, mean: f64, std: f64, generator: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, Self>> {
        let t = &slf.get().tensor();
        let gen = generator_of(generator)?;
        crate::tensor::scalar_check::check_normal(std, t.dtype())?;
        let r = Tensor::rand_normal(t.shape(), mean, std, t.dtype(), &gen)?;
        t.assign_(&r)?;
        Ok(slf.clone())
    }

    fn fill_<'py>(slf: &Bound<'py, Self>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let t = &slf.get().tensor();
        match scalar_of(value) {
            Some(s) => t.fill_(Arg::S(s))?,
            None => t.fill_(Arg::T(&to_tensor(value)?))?,
        }
        Ok(slf.clone())
    }

    fn zero_<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        slf.get().tensor().zero_()?;
        Ok(slf.clone())
    }

    /// Fills `self` with draws of a scalar-parameter law (`kind` names it, `a` and `b` are its
    /// parameters); the Python front checks the parameters with PyTorch's messages first.
    #[pyo3(signature = (kind, a, b=0.0, *, generator=None))]
    fn _sample_law_<'py>(
        slf: &Bound<'py, Self>,
        kind: &str,
        a: f64,
        b: f64,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        use crate::tensor::sampling::Law;
        let law = match kind {
            "exponential" => Law::Exponential { lambd: a },
            "geometric" => Law::Geometric { p: a },
            "log_normal" => Law::LogNormal { mean: a, std: b },
            "cauchy" => Law::Cauchy { median: a, sigma: b },
            "bernoulli" => Law::Bernoulli { p: a },
            _ => return Err(PyValueError::new_err(format!("unknown law {kind}"))),
        };
        let t = &slf.get().tensor();
        let r = Tensor::sample_law(t.shape(), law, t.dtype(), &generator_of(generator)?)?;
        t.assign_(&r.to_device(t.device())?)?;
        Ok(slf.clone())
    }

    /// Poisson draws with the rates `self` holds (`tensor::sampling`).
    #[pyo3(signature = (*, generator=None))]
    fn _poisson(&self, py: Python<'_>, generator: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let (t, gen) = (&self.tensor(), generator_of(generator)?);
        Ok(PyTensor::wrap(run(py, t.numel(), || t.poisson(&gen))?))
    }

    /// 0/1 draws in `dtype` with the probabilities `self` holds (`tensor::sampling`).
    #[pyo3(signature = (dtype, *, generator=None))]
    fn _bernoulli_of(&self, py: Python<'_>, dtype: &PyDType, generator: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let (t, gen) = (&self.tensor(), generator_of(generator)?);
        Ok(PyTensor::wrap(run(py, t.numel(), || t.bernoulli_of(dtype.dtype, &gen))?))
    }

    /// `multinomial(num_samples, replacement=False, *, generator=None)`: category indices drawn
    /// per row by the weights (`tensor::sampling`).
    #[pyo3(signature = (num_samples, replacement=false, *, generator=None))]
    fn multinomial(&self, py: Python<'_>, num_samples: i64, replacement: bool, generator: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
        let (t, gen) = (&self.tensor(), generator_of(generator)?);
        Ok(PyTensor::wrap(run(py, t.numel(), || t.multinomial(num_samples, replacement, &gen))?))
    }
}

fn tensor_list(seq: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    seq.try_iter()?.map(|t| to_tensor(&t?)).collect()
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn cat(tensors: &Bound<'_, PyAny>, dim: i64) -> PyResult<PyTensor> {
    let ts = tensor_list(tensors)?;
    let py = tensors.py();
    Ok(PyTensor::wrap(run(py, ts.iter().map(|t| t.numel()).sum(), || Tensor::cat(&ts, dim))?))
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn stack(tensors: &Bound<'_, PyAny>, dim: i64) -> PyResult<PyTensor> {
    let ts = tensor_list(tensors)?;
    let py = tensors.py();
    Ok(PyTensor::wrap(run(py, ts.iter().map(|t| t.numel()).sum(), || Tensor::stack(&ts, dim))?))
}

/// `where(condition, input, other)`; `where(condition)` is `nonzero(as_tuple=True)`.
#[pyfunction(name = "where")]
#[pyo3(signature = (condition, input=None, other=None))]
fn where_fn(condition: &Bound<'_, PyAny>, input: Option<&Bound<'_, PyAny>>, other: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let py = condition.py();
    let c = to_tensor(condition)?;
    let (Some(x), Some(y)) = (input, other) else {
        let nz = c.nonzero()?;
        let cols = (0..c.ndim()).map(|k| nz.select(1, k as i64)).collect::<crate::Result<Vec<_>>>()?;
        return Ok(super::tensor_object::tensors_tuple(py, cols)?.into_any());
    };
    let arg = |o: &Bound<'_, PyAny>| -> PyResult<Result<Tensor, Scalar>> {
        if let Ok(t) = o.cast::<PyTensor>() {
            return Ok(Ok(t.get().tensor().clone()));
        }
        match scalar_of(o) {
            Some(s) => Ok(Err(s)),
            None => Ok(Ok(to_tensor(o)?)),
        }
    };
    let (a, b) = (arg(x)?, arg(y)?);
    let r = Tensor::where_(&c, as_arg(&a), as_arg(&b))?;
    Ok(Py::new(py, PyTensor::wrap(r))?.into_any())
}

#[pyfunction]
#[pyo3(signature = (equation, *operands))]
fn einsum(equation: &str, operands: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
    let ts = if operands.len() == 1 && operands.get_item(0)?.cast::<PyTensor>().is_err() {
        tensor_list(&operands.get_item(0)?)?
    } else {
        tensor_list(operands.as_any())?
    };
    Ok(PyTensor::wrap(Tensor::einsum(equation, &ts)?))
}

#[pyfunction]
fn set_num_threads(n: &Bound<'_, PyAny>) -> PyResult<()> {
    // PyTorch takes a C int.
    let n: i32 = n.extract().map_err(|e: PyErr| {
        if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(n.py()) {
            PyValueError::new_err("Overflow when unpacking long")
        } else {
            e
        }
    })?;
    if n <= 0 {
        return Err(PyValueError::new_err("Number of threads must be positive"));
    }
    crate::cpu::parallel::set_num_threads(n as usize)?;
    Ok(())
}

#[pyfunction]
fn get_num_threads() -> usize {
    crate::cpu::parallel::get_num_threads()
}

#[pyfunction]
fn _simd_level() -> &'static str {
    crate::cpu::simd::simd_level()
}

fn operand_of(o: &Bound<'_, PyAny>) -> PyResult<Operand> {
    if let Ok(t) = o.cast::<PyTensor>() {
        let t = &t.get().tensor();
        return Ok(if t.ndim() == 0 { Operand::ZeroDim(t.dtype()) } else { Operand::Tensor(t.dtype()) });
    }
    match scalar_of(o) {
        Some(s) => Ok(Operand::Scalar(s.category())),
        None => Err(PyTypeError::new_err("result_type() expects tensors or numbers")),
    }
}

#[pyfunction(name = "result_type")]
fn result_type_fn(py: Python<'_>, tensor: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyDType>> {
    Ok(dtype_object(py, result_type(&[operand_of(tensor)?, operand_of(other)?])))
}

#[pyfunction]
fn promote_types(py: Python<'_>, type1: &PyDType, type2: &PyDType) -> Py<PyDType> {
    dtype_object(py, DType::promote(type1.dtype, type2.dtype))
}

#[pyfunction]
fn can_cast(from_: &PyDType, to: &PyDType) -> bool {
    crate::tensor::arith::can_cast(from_.dtype, to.dtype)
}

fn as_arg(v: &Result<Tensor, Scalar>) -> Arg<'_> {
    match v {
        Ok(t) => Arg::T(t),
        Err(s) => Arg::S(*s),
    }
}

/// The strides a tensor made like `t` gets (preserve_format: the `*_like` factories).
#[pyfunction]
fn _preserved_strides(t: &PyTensor) -> PyResult<Vec<usize>> {
    Ok(crate::result_layout::preserved_strides(t.tensor().layout())?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()?;
    // `torch.default_generator`: a handle on the process-wide generator, sharing its state.
    m.add("default_generator", PyGenerator { generator: Generator::default_generator().clone() })?;
    m.add_function(wrap_pyfunction!(tensor, m)?)?;
    m.add_function(wrap_pyfunction!(as_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(from_numpy_fn, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(eye, m)?)?;
    m.add_function(wrap_pyfunction!(rand, m)?)?;
    m.add_function(wrap_pyfunction!(randn, m)?)?;
    m.add_function(wrap_pyfunction!(randint, m)?)?;
    m.add_function(wrap_pyfunction!(randperm, m)?)?;
    m.add_function(wrap_pyfunction!(manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(initial_seed, m)?)?;
    m.add_function(wrap_pyfunction!(seed, m)?)?;
    m.add_function(wrap_pyfunction!(get_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(set_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(where_fn, m)?)?;
    m.add_function(wrap_pyfunction!(einsum, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(_simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(result_type_fn, m)?)?;
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast, m)?)?;
    m.add_function(wrap_pyfunction!(set_default_device, m)?)?;
    m.add_function(wrap_pyfunction!(get_default_device, m)?)?;
    m.add_function(wrap_pyfunction!(_preserved_strides, m)?)?;
    Ok(())
}
