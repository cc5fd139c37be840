//! The Python bindings of every composite op declared in `crate::ops::composite`: `torch.X`
//! (a function of `input` and the second operand), `Tensor.X` and, where declared, `Tensor.X_`,
//! with the op's keyword parameters and defaults; and `_C._composite_ops()`, the names the
//! Python layer turns into `torch.X`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::ops::composite::{composite_op_table, functions, Operand, DECLARED};
use crate::tensor::arith::Arg;
use crate::tensor::{Scalar, Tensor};

use super::convert::scalar_of;
use super::gil::run;
use super::tensor_object::PyTensor;

/// An operand as the bindings took it from Python.
enum Held {
    T(Tensor),
    S(Scalar),
}

impl Held {
    fn arg(&self) -> Arg<'_> {
        match self {
            Held::T(t) => Arg::T(t),
            Held::S(s) => Arg::S(*s),
        }
    }

    fn numel(&self) -> usize {
        match self {
            Held::T(t) => t.numel(),
            Held::S(_) => 1,
        }
    }
}

/// `h` as the declared operand type `K` (checked when it was taken).
fn operand<'a, K: Operand<'a>>(h: &'a Held) -> K {
    K::of_arg(h.arg()).expect("a number only where the op takes one")
}

/// What the bindings check the operands against: the op's Python name, its operands' keyword
/// names and whether each may be a number.
struct Signature {
    name: &'static str,
    names: [&'static str; 2],
    numbers: [bool; 2],
}

impl Signature {
    /// The two operands: `own` is self in the method form, where `given` holds the second
    /// operand only; in the function form `given` holds both.
    fn operands(&self, own: Option<Tensor>, given: &[&Bound<'_, PyAny>]) -> PyResult<[Held; 2]> {
        let method = own.is_some();
        let mut held: Vec<Held> = own.map(Held::T).into_iter().collect();
        for (k, obj) in given.iter().enumerate() {
            let i = held.len();
            let got = match obj.cast::<PyTensor>() {
                Ok(t) => Some(Held::T(t.get().tensor())),
                Err(_) if self.numbers[i] => scalar_of(obj).map(Held::S),
                Err(_) => None,
            };
            match got {
                Some(h) => held.push(h),
                None => return Err(self.type_error(given, method, Some((k, i)))),
            }
        }
        if held.iter().all(|h| matches!(h, Held::S(_))) {
            return Err(self.type_error(given, method, None));
        }
        let second = held.pop().expect("two operands");
        let first = held.pop().expect("two operands");
        Ok([first, second])
    }

    /// PyTorch's TypeError: for an op without number overloads, the argument that is not a
    /// tensor; else the arguments given and the overloads (without PyTorch's `out=`).
    fn type_error(&self, given: &[&Bound<'_, PyAny>], method: bool, bad: Option<(usize, usize)>) -> PyErr {
        let type_name = |o: &Bound<'_, PyAny>| o.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
        if let (false, Some((k, i))) = (self.numbers.iter().any(|&n| n), bad) {
            let (name, arg, got) = (self.name, self.names[i], type_name(given[k]));
            return PyTypeError::new_err(format!("{name}(): argument '{arg}' (position {}) must be Tensor, not {got}", k + 1));
        }
        let got: Vec<String> = given.iter().map(|o| type_name(o)).collect();
        let [a, b] = self.names;
        let overloads: Vec<String> = if method {
            let mut v = vec![format!("(Tensor {b})")];
            if self.numbers[1] {
                v.push(format!("(Number {b})"));
            }
            v
        } else {
            let mut v = vec![format!("(Tensor {a}, Tensor {b})")];
            if self.numbers[0] {
                v.push(format!("(Number {a}, Tensor {b})"));
            }
            if self.numbers[1] {
                v.push(format!("(Tensor {a}, Number {b})"));
            }
            v
        };
        let list: String = overloads.iter().map(|o| format!("\n * {o}")).collect();
        PyTypeError::new_err(format!(
            "{}() received an invalid combination of arguments - got ({}), but expected one of:{list}",
            self.name,
            got.join(", ")
        ))
    }
}

macro_rules! bind_composite_ops {
    ($($(#[$doc:meta])* $name:ident $args:tt => [$($node:literal),*] $(, inplace: $ip:ident($rule:ident))? $body:block)*) => {
        $(bind_composite_ops!(@op $(#[$doc])* $name $args);)*
        $($(bind_composite_ops!(@in_place $ip $args);)?)*

        fn add_functions(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
    (@signature $name:ident $a:ident $ka:ty, $b:ident $kb:ty) => {
        Signature {
            name: stringify!($name),
            names: [stringify!($a), stringify!($b)],
            numbers: [<$ka as Operand<'_>>::NUMBER, <$kb as Operand<'_>>::NUMBER],
        }
    };
    (@op $(#[$doc:meta])* $name:ident ($a:ident: $ka:ty, $b:ident: $kb:ty $(, $p:ident: $pt:ty = $pd:literal)*)) => {
        #[pymethods]
        impl PyTensor {
            $(#[$doc])*
            #[pyo3(signature = ($b $(, $p = $pd)*))]
            fn $name(&self, py: Python<'_>, $b: &Bound<'_, PyAny> $(, $p: $pt)*) -> PyResult<PyTensor> {
                let sig = bind_composite_ops!(@signature $name $a $ka, $b $kb);
                let [x, y] = sig.operands(Some(self.tensor()), &[$b])?;
                let out = run(py, x.numel().max(y.numel()), || functions::$name(operand::<$ka>(&x), operand::<$kb>(&y) $(, $p)*))?;
                Ok(PyTensor::wrap(out))
            }
        }

        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = ($a, $b $(, $p = $pd)*))]
        fn $name(py: Python<'_>, $a: &Bound<'_, PyAny>, $b: &Bound<'_, PyAny> $(, $p: $pt)*) -> PyResult<PyTensor> {
            let sig = bind_composite_ops!(@signature $name $a $ka, $b $kb);
            let [x, y] = sig.operands(None, &[$a, $b])?;
            let out = run(py, x.numel().max(y.numel()), || functions::$name(operand::<$ka>(&x), operand::<$kb>(&y) $(, $p)*))?;
            Ok(PyTensor::wrap(out))
        }
    };
    (@in_place $ip:ident ($a:ident: $ka:ty, $b:ident: $kb:ty $(, $p:ident: $pt:ty = $pd:literal)*)) => {
        #[pymethods]
        impl PyTensor {
            #[pyo3(signature = ($b $(, $p = $pd)*))]
            fn $ip<'py>(slf: &Bound<'py, Self>, $b: &Bound<'py, PyAny> $(, $p: $pt)*) -> PyResult<Bound<'py, Self>> {
                let t = slf.get().tensor();
                let sig = bind_composite_ops!(@signature $ip $a $ka, $b $kb);
                let [_, y] = sig.operands(Some(t.clone()), &[$b])?;
                run(slf.py(), t.numel().max(y.numel()), || t.$ip(operand::<$kb>(&y) $(, $p)*))?;
                Ok(slf.clone())
            }
        }
    };
}

composite_op_table!(bind_composite_ops);

/// The declared composite ops' Python names: (those bound as `torch.X` and `Tensor.X`, those
/// with `Tensor.X_`).
#[pyfunction]
fn _composite_ops() -> (Vec<&'static str>, Vec<&'static str>) {
    (DECLARED.iter().map(|d| d.name).collect(), DECLARED.iter().filter_map(|d| d.in_place).collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions(m)?;
    m.add_function(wrap_pyfunction!(_composite_ops, m)?)
}
