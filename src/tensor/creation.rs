//! Factories: filled tensors, ranges, identity matrices and random tensors.

use crate::cpu::buffer::{collect_n, filled, with_capacity, written_output};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::random::Generator;
use crate::tensor::{Scalar, Tensor};
use crate::with_dtype;

impl Tensor {
    pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        let n = elements(shape, dtype)?;
        with_dtype!(dtype, T => Tensor::from_vec(filled(n, value.to_element::<T>())?, shape))
    }

    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        let n = elements(shape, dtype)?;
        with_dtype!(dtype, T => Tensor::from_vec(filled(n, <T as Element>::zero())?, shape))
    }

    pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::full(shape, Scalar::Int(1), dtype)
    }

    /// `arange(start, end, step)`; values are computed as `start + i * step`.
    pub fn arange(start: Scalar, end: Scalar, step: Scalar, dtype: DType) -> Result<Tensor> {
        let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
        let g = crate::tensor::scalar_check::fmt_g;
        if !st.is_finite() {
            // A NaN step would otherwise make an empty range, an infinite one a one-element one.
            return Err(Error::Runtime(format!("step must be finite but got {}", g(st))));
        }
        if st == 0.0 {
            return Err(Error::Runtime("step must be nonzero".into()));
        }
        if !(s.is_finite() && e.is_finite()) {
            return Err(Error::Runtime(format!("unsupported range: {} -> {}", g(s), g(e))));
        }
        if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
            return Err(Error::Runtime("upper bound and lower bound inconsistent with step sign".into()));
        }
        let len = ((e - s) / st).ceil().max(0.0);
        if len > (isize::MAX as f64) / 8.0 {
            return Err(Error::SizeOverflow(format!("arange of {len} elements")));
        }
        let n = len as usize;
        if dtype.is_floating_point() {
            with_dtype!(dtype, T => Tensor::from_vec(collect_n(n, (0..n).map(|i| T::from_f64(s + i as f64 * st)))?, &[n]))
        } else {
            let (s, st) = (start.to_i64(), step.to_i64());
            with_dtype!(dtype, T => Tensor::from_vec(collect_n(n, (0..n as i64).map(|i| T::from_i64(s.wrapping_add(i.wrapping_mul(st)))))?, &[n]))
        }
    }

    /// `linspace(start, end, steps)`, symmetric from both ends as PyTorch computes it.
    pub fn linspace(start: f64, end: f64, steps: i64, dtype: DType) -> Result<Tensor> {
        if steps < 0 {
            return Err(Error::Runtime("number of steps must be non-negative".into()));
        }
        let n = crate::shape::checked_shape(&[steps], dtype.size_in_bytes())?[0];
        let step = if n > 1 { (end - start) / (n - 1) as f64 } else { 0.0 };
        // Like PyTorch: the first half counts up from `start`, the rest down from `end`
        // (a single step is `start`).
        let half = if n == 1 { 1 } else { n / 2 };
        let vals = (0..n).map(|i| if i < half { start + step * i as f64 } else { end - step * (n - 1 - i) as f64 });
        with_dtype!(dtype, T => Tensor::from_vec(collect_n(n, vals.map(T::from_f64))?, &[n]))
    }

    pub fn eye(n: usize, m: usize, dtype: DType) -> Result<Tensor> {
        let total = elements(&[n, m], dtype)?;
        with_dtype!(dtype, T => {
            let mut v = filled(total, <T as Element>::zero())?;
            for i in 0..n.min(m) {
                v[i * m + i] = <T as Element>::one();
            }
            Tensor::from_vec(v, &[n, m])
        })
    }

    /// Uniform values in [low, high).
    pub fn rand_uniform(shape: &[usize], low: f64, high: f64, dtype: DType, gen: &Generator) -> Result<Tensor> {
        let n = elements(shape, dtype)?;
        let mut g = gen.lock();
        with_dtype!(dtype, T => {
            let v: Vec<T> = if dtype == DType::F64 {
                collect_n(n, (0..n).map(|_| T::from_f64(low + (high - low) * g.next_f64())))?
            } else {
                collect_n(n, (0..n).map(|_| T::from_f64(low + (high - low) * g.next_f32() as f64)))?
            };
            Tensor::from_vec(v, shape)
        })
    }

    /// Normal values with `mean` and `std`.
    pub fn rand_normal(shape: &[usize], mean: f64, std: f64, dtype: DType, gen: &Generator) -> Result<Tensor> {
        let n = elements(shape, dtype)?;
        let mut g = gen.lock();
        with_dtype!(dtype, T => {
            let at = |z: f64| T::from_f64(mean + std * z);
            let v: Vec<T> = written_output(n, |out| {
                if dtype == DType::F64 {
                    g.fill_normal::<false, T>(out, at)
                } else {
                    g.fill_normal::<true, T>(out, at)
                }
            })?;
            Tensor::from_vec(v, shape)
        })
    }

    /// Integers uniform in [low, high).
    pub fn randint(low: i64, high: i64, shape: &[usize], dtype: DType, gen: &Generator) -> Result<Tensor> {
        if high <= low {
            return Err(Error::Runtime(format!("random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")));
        }
        if !dtype.is_floating_point() {
            // Both ends must be values of the dtype (no wrapping into it).
            let (lo, hi) = if dtype == DType::Bool { (0, 1) } else { crate::tensor::scalar_check::int_range(dtype) };
            let name = dtype.cpp_name();
            if low < lo || low > hi {
                return Err(Error::Runtime(format!("from is out of bounds for {name}")));
            }
            if high - 1 > hi {
                return Err(Error::Runtime(format!("to - 1 is out of bounds for {name}")));
            }
        }
        let n = elements(shape, dtype)?;
        let span = (high as i128 - low as i128) as u64;
        let mut g = gen.lock();
        with_dtype!(dtype, T => Tensor::from_vec(collect_n(n, (0..n).map(|_| T::from_i64(low.wrapping_add(g.below(span) as i64))))?, shape))
    }

    /// A random permutation of 0..n (Fisher-Yates).
    pub fn randperm(n: usize, dtype: DType, gen: &Generator) -> Result<Tensor> {
        let mut v = with_capacity::<i64>(n)?;
        v.extend(0..n as i64);
        let mut g = gen.lock();
        for i in (1..n).rev() {
            let j = g.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
        drop(g);
        Tensor::from_vec(v, &[n])?.to_dtype(dtype)
    }
}

/// The element count of a new `shape` tensor of `dtype`, with PyTorch's overflow error when its
/// bytes do not fit a signed 64-bit size.
fn elements(shape: &[usize], dtype: DType) -> Result<usize> {
    Ok(crate::shape::checked_bytes(shape, dtype.size_in_bytes())? / dtype.size_in_bytes())
}
