"""What the wgpu tests share: the skip mark for machines without an adapter, the parity floor,
GPU-against-CPU comparisons, the kernel counter, and the same random tensor on both devices."""
import numpy as np
import pytest

import rstorch

needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")

# The parity floor for GPU results: drivers round builtins differently from the CPU kernels.
TOL = 1e-3


def close(got, want, tol=TOL):
    assert got.device.type == "wgpu", f"result on {got.device}"
    np.testing.assert_allclose(got.cpu().detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol,
                               equal_nan=True)


def launched():
    """Kernels launched on the default wgpu device so far."""
    return rstorch.wgpu.memory_stats()["kernels_launched"]


def pair_in(dt, rng, *shape):
    """The same random tensor of `dt` on the CPU and on the GPU."""
    x = rstorch.tensor(rng.standard_normal(shape).astype(np.float32)).to(dt)
    return x, x.to("wgpu")


def close_in(dt, got, want):
    """A GPU result against the CPU's: float32 within 1e-4, half types within a few units in
    their last place."""
    if dt is rstorch.float32:
        close(got, want, tol=1e-4)
    else:
        _half_close(got, want, dt)


def pair(*shape, seed=0, positive=False):
    """The same random float32 tensor on the CPU and on the GPU."""
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if positive:
        x = np.abs(x) + 0.1
    cpu = rstorch.tensor(x)
    return cpu, cpu.to("wgpu")


def _half_close(got, want, dt):
    """A half-precision GPU result against the CPU's: same dtype and shape, values within a few
    units in the last place of the dtype (the two sum in float32 in different orders)."""
    assert got.device.type == "wgpu", f"result on {got.device}"
    assert got.dtype is want.dtype is dt and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    eps = 2.0 ** -10 if dt is rstorch.float16 else 2.0 ** -7
    g, w = got.cpu().detach().float().numpy(), want.detach().float().numpy()
    np.testing.assert_allclose(g, w, rtol=4 * eps, atol=4 * eps * max(1.0, float(np.abs(w).max(initial=0))))


UNARY = ["neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc", "exp", "exp2", "log", "log2",
         "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
         "cosh", "tanh", "sigmoid", "erf", "reciprocal", "square"]


DTYPES = [rstorch.float32, rstorch.float16, rstorch.bfloat16, rstorch.int64, rstorch.int32, rstorch.int16,
          rstorch.int8, rstorch.uint8, rstorch.bool]


def same(got, want):
    """Exact equality of a GPU result with the CPU's: values, dtype and shape."""
    assert got.device.type == "wgpu", f"result on {got.device}"
    assert got.dtype is want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    assert got.cpu().tolist() == want.tolist()


needs_f64 = pytest.mark.skipif(not (rstorch.wgpu.is_available() and rstorch.wgpu.supports_float64()),
                               reason="the adapter has no float64 shaders")

# Float64 kernels compute in float64 with math functions of their own (range reduction and
# polynomials): within a few ulp of the CPU's libm.
F64_TOL = 1e-12


def close64(got, want, rtol=F64_TOL, atol=0.0):
    assert got.device.type == "wgpu" and got.dtype is rstorch.float64, (got.device, got.dtype)
    np.testing.assert_allclose(got.cpu().detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)


def pair64(values):
    cpu = rstorch.tensor(np.asarray(values, dtype=np.float64))
    return cpu, cpu.to("wgpu")
