"""The wgpu backend from Python: device objects, transfers, factories with `device=`, the ops
with GPU kernels against the CPU, autograd over GPU tensors, PyTorch's errors for mixed devices
and for ops without a GPU kernel yet, and every recorded parity case run on the GPU.

Tests that need an adapter skip when `rstorch.wgpu.is_available()` is False; CI runs them on
Mesa's software Vulkan driver (lavapipe), which `make test` installs.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F

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


# ----- devices (no adapter needed) ---------------------------------------------------------------

def test_device_strings():
    d = rstorch.device("wgpu")
    assert d.type == "wgpu" and d.index is None and str(d) == "wgpu" and repr(d) == "device(type='wgpu')"
    d0 = rstorch.device("wgpu:0")
    assert d0.index == 0 and str(d0) == "wgpu:0" and repr(d0) == "device(type='wgpu', index=0)"
    assert rstorch.device("wgpu", 0) == d0 and rstorch.device(0) == d0
    # As in PyTorch, an unindexed device is not equal to an indexed one.
    assert d != d0 and d0 == "wgpu:0" and d0 != "cpu"
    assert len({d, d0, rstorch.device("wgpu:0")}) == 2
    assert rstorch.device("cpu") == "cpu"
    for bad in ["wgpu:", "wgpu:x", "wgpu:-1", "gpu", "wgpu:0:1"]:
        with pytest.raises(RuntimeError):
            rstorch.device(bad)
    with pytest.raises(RuntimeError, match="'wgpu'"):
        rstorch.device("cuda")
    with pytest.raises(RuntimeError, match="must not include an index"):
        rstorch.device("wgpu:0", 1)


@needs_gpu
def test_default_device():
    assert rstorch.get_default_device() == rstorch.device("cpu")
    rstorch.set_default_device("wgpu")
    try:
        assert rstorch.get_default_device() == rstorch.device("wgpu:0")
        assert rstorch.zeros(2).device.type == "wgpu" and rstorch.tensor([1.0]).device.type == "wgpu"
        assert rstorch.zeros(2, device="cpu").device.type == "cpu"
        assert rstorch.as_tensor(rstorch.ones(2, device="cpu")).device.type == "cpu"
    finally:
        rstorch.set_default_device(None)
    assert rstorch.zeros(2).device.type == "cpu"


def test_queries_never_raise():
    assert isinstance(rstorch.wgpu.is_available(), bool)
    assert rstorch.wgpu.is_built()
    assert rstorch.wgpu.device_count() >= int(rstorch.wgpu.is_available())


def test_no_adapter_is_a_clear_error():
    # With no Vulkan driver to load, wgpu finds no adapter: queries say so and using the device
    # raises a RuntimeError naming the problem, instead of crashing.
    env = dict(os.environ, VK_ICD_FILENAMES="/nonexistent.json", VK_DRIVER_FILES="/nonexistent.json",
               WGPU_BACKEND="vulkan")
    code = """
import rstorch
assert not rstorch.wgpu.is_available(), "found an adapter"
assert rstorch.wgpu.device_count() == 0
for make in (lambda: rstorch.zeros(2, device="wgpu"), lambda: rstorch.ones(2).to("wgpu"),
             lambda: rstorch.wgpu.synchronize()):
    try:
        make()
    except RuntimeError as e:
        assert "no GPU adapter" in str(e), str(e)
    else:
        raise AssertionError("no error")
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


# ----- transfers and factories -----------------------------------------------------------------

@needs_gpu
def test_to_and_cpu_round_trip_every_dtype():
    for dt in [rstorch.float32, rstorch.float64, rstorch.float16, rstorch.bfloat16, rstorch.int64,
               rstorch.int32, rstorch.int16, rstorch.int8, rstorch.uint8, rstorch.bool]:
        x = rstorch.arange(-7, 8).reshape(3, 5).to(dt)
        g = x.to("wgpu")
        assert g.device == rstorch.device("wgpu:0") and g.device.index == 0
        assert g.dtype is dt and g.shape == x.shape and not g.is_cpu and g.is_wgpu
        back = g.cpu()
        assert back.device.type == "cpu"
        assert back.tolist() == x.tolist()
        assert g.t().tolist() == x.t().tolist()  # a strided view reads back through its strides
    g = rstorch.ones(3, device="wgpu")
    assert g.to("wgpu") is g and g.to("wgpu:0") is g
    # A cast on the way to or from the device runs on the CPU side of the transfer.
    assert rstorch.ones(3).to(rstorch.device("wgpu"), rstorch.float64).dtype is rstorch.float64
    if rstorch.wgpu.supports_float64():
        d = g.to(rstorch.float64)  # a cast on the device
        assert d.device.type == "wgpu" and d.dtype is rstorch.float64 and d.cpu().tolist() == [1.0] * 3
    else:
        with pytest.raises(NotImplementedError, match="to\\(float64\\)"):
            g.to(rstorch.float64)  # casts to float64 need the adapter's float64 shaders
    assert g.to(rstorch.zeros(1)).device.type == "cpu"
    assert g.to(device="cpu", dtype=rstorch.int32).tolist() == [1, 1, 1]


@needs_gpu
def test_factories_take_device():
    for t in [rstorch.zeros(2, 3, device="wgpu"), rstorch.ones(2, 3, device="wgpu"),
              rstorch.empty(2, 3, device="wgpu"), rstorch.full((2, 3), 1.5, device="wgpu"),
              rstorch.rand(2, 3, device="wgpu"), rstorch.randn(2, 3, device="wgpu"),
              rstorch.tensor([[1.0, 2, 3], [4, 5, 6]], device="wgpu"),
              rstorch.as_tensor(np.ones((2, 3)), device="wgpu"),
              rstorch.eye(2, 3, device="wgpu"), rstorch.randint(0, 5, (2, 3), device="wgpu")]:
        assert t.device.type == "wgpu" and tuple(t.shape) == (2, 3)
    assert rstorch.zeros(2, 3, device="wgpu").tolist() == [[0.0] * 3] * 2
    assert rstorch.arange(4, device="wgpu").cpu().tolist() == [0, 1, 2, 3]
    assert rstorch.linspace(0, 1, 5, device="wgpu").device.type == "wgpu"
    g = rstorch.ones(2, 3, device="wgpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf
    # *_like and new_* follow the input's device, as in PyTorch.
    for t in [rstorch.zeros_like(g), rstorch.ones_like(g), rstorch.full_like(g, 2.0), rstorch.rand_like(g),
              rstorch.randn_like(g), g.new_zeros(4), g.new_ones(4), g.new_full((4,), 3.0), g.new_tensor([1.0])]:
        assert t.device.type == "wgpu", t
    # The same seed draws the same numbers on either device.
    rstorch.manual_seed(3)
    a = rstorch.randn(5)
    rstorch.manual_seed(3)
    assert rstorch.randn(5, device="wgpu").cpu().tolist() == a.tolist()


@needs_gpu
def test_read_back_only_when_asked():
    g = rstorch.tensor([[1.5, -2.0], [3.0, 4.0]], device="wgpu")
    assert g.sum().item() == 6.5
    assert g.tolist() == [[1.5, -2.0], [3.0, 4.0]]
    assert repr(g) == "tensor([[ 1.5000, -2.0000],\n        [ 3.0000,  4.0000]], device='wgpu:0')"
    assert float(g[1, 0]) == 3.0 and bool(g.sum() > 0 if False else g.sum())
    with pytest.raises(TypeError, match="can't convert wgpu:0 device type tensor to numpy"):
        g.numpy()
    assert g.numpy(force=True).tolist() == [[1.5, -2.0], [3.0, 4.0]]
    rstorch.wgpu.synchronize()
    assert rstorch.wgpu.device_count() >= 1 and isinstance(rstorch.wgpu.get_device_name(), str)
    assert isinstance(rstorch.wgpu.supports_float16(), bool)



@needs_gpu
def test_kernel_counter_counts_launches():
    g = rstorch.arange(1000, dtype=rstorch.float32, device="wgpu")
    before = launched()
    h = g * 2
    assert launched() - before == 1
    before = launched()
    h.cpu()  # a buffer copy, no kernel
    assert launched() - before == 0



@needs_gpu
def test_a_linear_layers_backward_copies_no_gradient():
    """A linear layer's backward is the bias sum and the weight product: the leaves keep the
    gradients they receive, with no copy kernels."""
    lin = nn.Linear(50, 10).to("wgpu")
    y = lin(rstorch.randn(64, 50).to("wgpu"))
    loss = y.sum()
    before = launched()
    loss.backward()
    assert launched() - before == 2
    assert lin.weight.grad.stride() == (50, 1)


# ----- kernels ------------------------------------------------------------------------------------

UNARY = ["neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc", "exp", "exp2", "log", "log2",
         "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
         "cosh", "tanh", "sigmoid", "erf", "reciprocal", "square"]


@needs_gpu
@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    x, g = pair(4, 6, seed=1)
    if name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        x, g = x.abs() + 0.1, g.abs() + 0.1
    if name in ("asin", "acos"):
        x, g = x.tanh(), g.tanh()
    close(getattr(g.t(), name)(), getattr(x.t(), name)())


@needs_gpu
def test_activations_and_powers():
    x, g = pair(5, 7, seed=2)
    for fn in [F.gelu, lambda t: F.gelu(t, approximate="tanh"), F.silu, F.softplus,
               lambda t: F.softplus(t, beta=2.0, threshold=1.0), lambda t: F.leaky_relu(t, 0.2), F.elu,
               lambda t: t ** 3, lambda t: t ** 0.5, lambda t: t.abs() ** -1.5, lambda t: 2 ** t,
               lambda t: t.clamp(-0.5, 0.5), lambda t: t.clamp(min=0.1)]:
        close(fn(g), fn(x))


@needs_gpu
def test_binary_broadcasting_and_scalars():
    a, ga = pair(3, 1, 4, seed=3)
    b, gb = pair(5, 4, seed=4, positive=True)
    for fn in [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
               lambda x, y: x // y, lambda x, y: x % y, lambda x, y: x ** y, rstorch.maximum,
               rstorch.minimum, rstorch.atan2, lambda x, y: 2.5 - x * 3 + y / 2, lambda x, y: 1 / y,
               lambda x, y: x * rstorch.tensor(2.0)]:
        close(fn(ga, gb), fn(a, b))
    # Non-contiguous operands: a transposed and a sliced view.
    c, gc = pair(6, 8, seed=5)
    close(gc.t()[::2, 1:4] + gc[1:4, ::2].t(), c.t()[::2, 1:4] + c[1:4, ::2].t())


@needs_gpu
def test_in_place_ops_and_copies():
    x, g = pair(4, 5, seed=6)
    x, g = x.clone(), g.clone()
    for t in (x, g):
        t[:, 1:3] *= 2
        t.add_(1).mul_(0.5)
        t[0] = rstorch.tensor([9.0, 8, 7, 6, 5])
    close(g, x)
    host = rstorch.zeros(4, 5)
    host.copy_(g)
    assert host.tolist() == x.tolist()
    close(rstorch.cat([g, g * 2], 1), rstorch.cat([x, x * 2], 1))
    close(rstorch.stack([g, g]), rstorch.stack([x, x]))


@needs_gpu
@pytest.mark.parametrize("dims", [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_mean_max_min(dims, keepdim):
    x, g = pair(5, 6, 7, seed=7)
    for name in ["sum", "mean", "amax", "amin"]:
        if dims is None:
            got, want = getattr(g, name)(), getattr(x, name)()
        else:
            got, want = getattr(g, name)(dims, keepdim=keepdim), getattr(x, name)(dims, keepdim=keepdim)
        close(got, want)
    # Strided input, and a long row split across workgroups: same bits every time.
    close(g.transpose(0, 2).sum(1), x.transpose(0, 2).sum(1))
    big, gbig = pair(3, 50_000, seed=8)
    s1, s2 = gbig.sum(1), gbig.sum(1)
    assert s1.tolist() == s2.tolist()
    close(s1, big.double().sum(1).float())


@needs_gpu
def test_matmul_shapes():
    for sa, sb in [((3, 5), (5, 2)), ((70, 33), (33, 65)), ((5,), (5, 3)), ((4, 5), (5,)), ((5,), (5,)),
                   ((2, 3, 4, 5), (5, 6)), ((2, 1, 4, 5), (3, 5, 2))]:
        a, ga = pair(*sa, seed=9)
        b, gb = pair(*sb, seed=10)
        close(ga @ gb, a @ b)
    a, ga = pair(6, 4, seed=11)
    close(ga.t() @ ga, a.t() @ a)
    close(rstorch.mm(ga, ga.t()), rstorch.mm(a, a.t()))
    close(rstorch.bmm(ga.expand(3, 6, 4), ga.t().expand(3, 4, 6)), rstorch.bmm(a.expand(3, 6, 4), a.t().expand(3, 4, 6)))


@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float32, rstorch.float16, rstorch.bfloat16], ids=str)
def test_products_of_many_tiles_match_the_cpu(dt):
    """Products of 256 or more 128x128 output tiles, mostly full, run the wide kernel (8x8
    outputs per thread, double-buffered 8-deep slices): against the CPU for edges that cut tiles
    and slices, operands walked along either dim (transposed A, transposed B, both), a broadcast
    batch and offsets."""
    rng = np.random.default_rng(5)

    both = lambda *shape: pair_in(dt, rng, *shape)
    check = lambda got, want: close_in(dt, got, want)

    T = lambda x: x.transpose(-1, -2)
    a, ga = both(64, 200, 37)
    b, gb = both(64, 37, 250)
    check(ga @ gb, a @ b)
    at, gat = both(64, 37, 200)
    bt, gbt = both(64, 250, 37)
    check(T(gat) @ gb, T(at) @ b)
    check(ga @ T(gbt), a @ T(bt))
    check(T(gat) @ T(gbt), T(at) @ T(bt))
    w, gw = both(37, 250)
    check(ga @ gw, a @ w)  # B broadcast over the batch (batch stride 0)
    x, gx = both(64, 210, 40)
    y, gy = both(64, 40, 260)
    check(gx[:, 5:205, 3:40] @ gy[:, 3:40, 7:257], x[:, 5:205, 3:40] @ y[:, 3:40, 7:257])
    p, gp = both(2048, 9)
    q, gq = both(9, 2048)
    check(gp @ gq, p @ q)


@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float32, rstorch.float16, rstorch.bfloat16], ids=str)
def test_linear_and_conv_add_their_bias_in_the_product_kernel(dt):
    """F.linear (addmm) and conv2d add their bias as the product kernel stores each element
    (both the 64-wide and the wide kernel): one kernel for the linear layer, two (patches,
    product) for an unpadded convolution; grouped convolutions, whose bias does not follow one
    batch stride, add it after. Against the CPU."""
    rng = np.random.default_rng(9)

    both = lambda *shape: pair_in(dt, rng, *shape)
    check = lambda got, want: close_in(dt, got, want)

    for rows, cols, inner in [(37, 21, 13), (2048, 2048, 9)]:
        x, gx = both(rows, inner)
        w, gw = both(cols, inner)
        b, gb = both(cols)
        before = launched()
        got = F.linear(gx, gw, gb)
        if dt is rstorch.float32:
            assert launched() - before == 1
        check(got, F.linear(x, w, b))
    for groups, padding in [(1, 0), (1, 1), (2, 1)]:
        x, gx = both(3, 4, 9, 8)
        w, gw = both(6, 4 // groups, 3, 3)
        b, gb = both(6)
        before = launched()
        got = F.conv2d(gx, gw, gb, padding=padding, groups=groups)
        if dt is rstorch.float32 and padding == 0:
            assert launched() - before == 2
        check(got, F.conv2d(x, w, b, padding=padding, groups=groups))


@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float16, rstorch.bfloat16], ids=str)
def test_half_matmul_reads_its_operands_in_place(dt):
    """A float16 or bfloat16 product widens its operands as the kernel reads them: its buffers
    are the float32 product and the rounded result, no float32 copies of the operands."""
    a = rstorch.randn(40, 30).to(dt).to("wgpu")
    b = rstorch.randn(30, 20).to(dt).to("wgpu")
    (a @ b).cpu()
    rstorch.wgpu.synchronize()
    stats = rstorch.wgpu.memory_stats()
    before = stats["buffers_created"] + stats["buffers_reused"]
    out = a @ b
    stats = rstorch.wgpu.memory_stats()
    assert stats["buffers_created"] + stats["buffers_reused"] - before == 2
    assert out.dtype is dt


DTYPES = [rstorch.float32, rstorch.float16, rstorch.bfloat16, rstorch.int64, rstorch.int32, rstorch.int16,
          rstorch.int8, rstorch.uint8, rstorch.bool]


def same(got, want):
    """Exact equality of a GPU result with the CPU's: values, dtype and shape."""
    assert got.device.type == "wgpu", f"result on {got.device}"
    assert got.dtype is want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    assert got.cpu().tolist() == want.tolist()


@needs_gpu
@pytest.mark.parametrize("src", DTYPES, ids=str)
def test_casts_between_dtypes(src):
    x = rstorch.tensor([[-3.7, -1.0, -0.5, 0.0], [0.5, 1.5, 2.5, 126.9], [-129.0, 255.0, 70000.0, 3e9]])
    if src is rstorch.uint8:
        x = x.abs()
    x = x.to(src)
    g = x.to("wgpu")
    for dst in DTYPES:
        same(g.to(dst), x.to(dst))
        same(g.t().to(dst), x.t().to(dst))  # strided source
    # Into a strided destination of a sub-word dtype: neighbours sharing a word survive.
    host = rstorch.zeros(5, 4, dtype=src)
    dev = host.to("wgpu")
    host[1:4:2, ::3] = x[:2, :2]
    dev[1:4:2, ::3] = g[:2, :2]
    same(dev, host)


@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float16, rstorch.bfloat16], ids=str)
def test_half_precision_computes_in_float32(dt):
    x = rstorch.randn(4, 5).to(dt)
    g = x.to("wgpu")
    for fn in [lambda a: a * 2 + 1, lambda a: a.exp(), lambda a: a.sum(1), lambda a: a > 0, lambda a: a.sigmoid(),
               lambda a: a.softmax(-1), lambda a: a.max(1)[0], lambda a: a.to(rstorch.float32) + a]:
        want, got = fn(x), fn(g)
        assert got.dtype is want.dtype and got.device.type == "wgpu"
        # Results round once to the half type: at most one of its ulps apart (drivers' builtins).
        np.testing.assert_allclose(got.cpu().float().numpy(), want.float().numpy(), rtol=1e-2, atol=1e-3)


@needs_gpu
def test_int64_arithmetic_is_exact():
    big = 2 ** 40 + 3
    a = rstorch.tensor([-7, -1, 0, 1, 7, big, -big, 2 ** 62, -(2 ** 62), 123456789012])
    b = rstorch.tensor([2, 3, -5, 4, -3, 7, -13, 3, 5, -1000003])
    ga, gb = a.to("wgpu"), b.to("wgpu")
    for fn in [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x // y, lambda x, y: x % y,
               lambda x, y: x * 3 + y // 2 - x % 3, rstorch.maximum, rstorch.minimum, lambda x, y: x & y,
               lambda x, y: x | y, lambda x, y: x ^ y, lambda x, y: -x, lambda x, y: x.abs(), lambda x, y: x.sign(),
               lambda x, y: ~x, lambda x, y: x == y, lambda x, y: x < y, lambda x, y: x >= big,
               lambda x, y: x.to(rstorch.int32) + y.to(rstorch.int8), lambda x, y: x + True]:
        same(fn(ga, gb), fn(a, b))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ga // rstorch.zeros(10, dtype=rstorch.int64, device="wgpu")
    # Mixed integer and float operands compute in float, as on the CPU.
    close(ga.float() / 3 + gb, a.float() / 3 + b)
    close(ga[:5] * 0.5, a[:5] * 0.5)


@needs_gpu
def test_comparisons_logical_ops_and_where():
    x = rstorch.tensor([[float("nan"), -1.0, 0.0, 2.0], [3.0, -0.0, float("inf"), 2.0]])
    y = rstorch.tensor([0.0, -1.0, 1.0, float("nan")])
    gx, gy = x.to("wgpu"), y.to("wgpu")
    for fn in [lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a < b, lambda a, b: a <= b,
               lambda a, b: a > b, lambda a, b: a >= b, lambda a, b: a.t() > 0.5, lambda a, b: 1 < a,
               lambda a, b: (a > 0) & (b < 1), lambda a, b: (a > 0) | (b < 1), lambda a, b: (a > 0) ^ (b < 1),
               lambda a, b: rstorch.logical_and(a, b), lambda a, b: rstorch.logical_not(a), lambda a, b: ~(a > 0),
               lambda a, b: (a > 0).any(), lambda a, b: (a > 0).all(), lambda a, b: (a > 0).any(1),
               lambda a, b: (a == a).all(0), lambda a, b: (a > 0).sum(), lambda a, b: (a > 0).sum(0),
               lambda a, b: rstorch.where(a > b, a, b), lambda a, b: rstorch.where(a > 0, 1.5, b),
               lambda a, b: rstorch.where(b == b, a, 0), lambda a, b: a.masked_fill(a != a, -1.0),
               lambda a, b: a.masked_fill(b > 0, 7)]:
        want, got = fn(x, y), fn(gx, gy)
        if want.dtype is rstorch.bool or not want.dtype.is_floating_point:
            same(got, want)
        else:
            close(got, want)
    assert bool(((gx > 100) & (gy > 100)).any()) is False
    assert (rstorch.zeros(0, device="wgpu") > 0).all().item() is True
    # An odd-sized bool result: invocations share words of the output.
    a, g = pair(7, 13, seed=20)
    same(g > 0.1, a > 0.1)
    same((g > 0)[::2, 1::3], (a > 0)[::2, 1::3])


@needs_gpu
def test_argmax_and_max_with_indices():
    x = rstorch.tensor([[1.0, 3.0, 3.0, -1.0], [float("nan"), 2.0, float("nan"), 5.0], [0.0, 0.0, 0.0, 0.0]])
    g = x.to("wgpu")
    for dim in [0, 1, -1]:
        for keepdim in [False, True]:
            for fn in [rstorch.max, rstorch.min]:
                (v, i), (gv, gi) = fn(x, dim, keepdim), fn(g, dim, keepdim)
                close(gv, v)
                same(gi, i)
        same(g.argmax(dim), x.argmax(dim))
        same(g.argmin(dim), x.argmin(dim))
    same(g.argmax(), x.argmax())
    big, gbig = pair(3, 1000, seed=21)  # rows long enough for a workgroup each
    same(gbig.argmax(1), big.argmax(1))
    same(gbig.t().argmin(0), big.t().argmin(0))


@needs_gpu
def test_index_ops():
    x, g = pair(5, 6, seed=22)
    i = rstorch.tensor([4, 0, 4, 2])
    gi = i.to("wgpu")
    close(g.index_select(1, gi), x.index_select(1, i))
    close(g.t().index_select(0, gi), x.t().index_select(0, i))
    idx = rstorch.tensor([[0, 5, 5], [1, 1, 0], [2, 3, 4], [5, 5, 5], [0, 0, 0]])
    close(rstorch.gather(g, 1, idx.to("wgpu")), rstorch.gather(x, 1, idx))
    src, gsrc = pair(5, 3, seed=23)
    close(g.scatter_add(1, idx.to("wgpu"), gsrc), x.scatter_add(1, idx, src))
    close(g.scatter(1, idx.to("wgpu"), gsrc), x.scatter(1, idx, src))
    close(g.scatter(1, idx.to("wgpu"), 2.5), x.scatter(1, idx, 2.5))
    rows, grows = pair(4, 6, seed=24)
    close(g.index_add(0, gi, grows, alpha=2.0), x.index_add(0, i, rows, alpha=2.0))
    close(g[gi], x[i])
    close(g[gi, gi], x[i, i])
    close(g[g > 0], x[x > 0])
    same(g.nonzero(), x.nonzero())
    ints = rstorch.arange(30).reshape(5, 6)
    same(ints.to("wgpu").scatter_add(1, idx.to("wgpu"), ints.to("wgpu")[:, :3]), ints.scatter_add(1, idx, ints[:, :3]))
    # Writes through indices: repeated positions keep the last value, as on the CPU.
    h, d = x.clone(), g.clone()
    h[i] = rstorch.arange(4.0).unsqueeze(1).expand(4, 6)
    d[gi] = rstorch.arange(4.0, device="wgpu").unsqueeze(1).expand(4, 6)
    close(d, h)
    h[x > 1] = 0.0
    d[g > 1] = 0.0
    close(d, h)
    with pytest.raises(IndexError):
        g.index_select(0, rstorch.tensor([5], device="wgpu"))


@needs_gpu
def test_index_gradients():
    for dev in ["cpu", "wgpu"]:
        w = rstorch.arange(12.0).reshape(4, 3).to(dev).requires_grad_()
        i = rstorch.tensor([3, 0, 3, 3, 1], device=dev)
        t = rstorch.tensor([[2], [0], [1], [2]], device=dev)
        (w[i].sum(0) * 2 + w.index_select(0, i).pow(2).sum() + w.gather(1, t).sum()).sum().backward()
        if dev == "cpu":
            want = w.grad
        else:
            close(w.grad, want)


@needs_gpu
def test_cumulative_sort_and_topk():
    x = rstorch.tensor([[3.0, float("nan"), 1.0, 3.0, -2.0, 1.0], [0.5, 0.5, 0.5, -1.0, float("nan"), 2.0]])
    g = x.to("wgpu")
    for dim in [0, 1]:
        close(g.cumsum(dim), x.cumsum(dim))
        close(g.cumprod(dim), x.cumprod(dim))
        for descending in [False, True]:
            (v, i), (gv, gi) = x.sort(dim, descending=descending), g.sort(dim, descending=descending)
            close(gv, v)
            same(gi, i)
    a, ga = pair(7, 300, seed=25)  # a network wider than one pass of the workgroup
    (v, i), (gv, gi) = a.sort(1), ga.sort(1)
    close(gv, v)
    same(gi, i)
    (v, i), (gv, gi) = a.t().topk(3, dim=0), ga.t().topk(3, dim=0)
    close(gv, v)
    same(gi, i)
    close(ga.t().cumsum(0), a.t().cumsum(0))


# ----- float64 ---------------------------------------------------------------------------------------

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


SPECIALS = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 5e-324, 1e-310, 1e300, -1e300]


def _f64_inputs(name, rng):
    """Each function over its whole useful range, plus the special values."""
    wide = rng.standard_normal(4000) * np.exp(rng.uniform(-20, 20, 4000))
    ranges = {
        "exp": rng.uniform(-746, 710, 4000), "exp2": rng.uniform(-1076, 1025, 4000),
        "expm1": np.concatenate([rng.uniform(-50, 710, 2000), rng.uniform(-1e-3, 1e-3, 2000)]),
        "log": np.exp(rng.uniform(-740, 709, 4000)), "log2": np.exp(rng.uniform(-740, 709, 4000)),
        "log10": np.exp(rng.uniform(-740, 709, 4000)),
        "log1p": np.concatenate([rng.uniform(-1, 1e3, 2000), rng.uniform(-1e-3, 1e-3, 2000)]),
        "sin": rng.uniform(-1e5, 1e5, 4000), "cos": rng.uniform(-1e5, 1e5, 4000), "tan": rng.uniform(-100, 100, 4000),
        "asin": rng.uniform(-1, 1, 4000), "acos": rng.uniform(-1, 1, 4000), "atan": wide,
        "sinh": rng.uniform(-711, 711, 4000), "cosh": rng.uniform(-711, 711, 4000), "tanh": rng.uniform(-30, 30, 4000),
        "erf": rng.uniform(-7, 7, 4000), "sigmoid": rng.uniform(-700, 700, 4000),
        "sqrt": np.abs(wide), "rsqrt": np.abs(wide) + 1e-300, "reciprocal": wide,
    }
    x = ranges.get(name, wide)
    specials = SPECIALS
    if name in ("sin", "cos", "tan"):
        # Both reductions by pi / 2 (three exact parts below 2^20 pi / 2, Payne-Hanek above).
        specials = SPECIALS + TRIG_LARGE
    return np.concatenate([x, rng.uniform(-3, 3, 500), specials])


# Around the switch between the two reductions, the largest doubles, and the double closest to
# a multiple of pi / 2 (6381956970095103 * 2^797: its remainder is about 2^-61 times it).
TRIG_LARGE = [1.6e6, -1.6e6, 1647098.9999999998, 1647099.0, 2.0 ** 20, 2.0 ** 53, 2.0 ** 53 + 2.0, 2.0 ** 1023,
              1.7976931348623157e308, -1.7976931348623157e308, 6381956970095103 * 2.0 ** 797,
              -6381956970095103 * 2.0 ** 797, 5.319372648e9, 1e22, 1e150]


@needs_f64
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_float64_trig_of_large_arguments(name):
    """sin, cos and tan of float64 beyond the three-part reduction (|x| from 1.6e6 to the largest
    double, Payne-Hanek reduction on the device) within 1e-12 relative of the CPU, strided too."""
    rng = np.random.default_rng(44)
    mags = np.concatenate([10.0 ** rng.uniform(6.2, 300, 6000), 10.0 ** rng.uniform(6.2, 17, 2000),
                           2.0 ** rng.integers(21, 1024, 500) * rng.uniform(1, 2, 500)])
    x, g = pair64(np.concatenate([mags * rng.choice([-1.0, 1.0], mags.size), TRIG_LARGE]))
    close64(getattr(g, name)(), getattr(x, name)(), rtol=1e-12)
    x2, g2 = x[:8000].reshape(80, 100), g[:8000].reshape(80, 100)
    close64(getattr(g2.t()[::3], name)(), getattr(x2.t()[::3], name)(), rtol=1e-12)


@needs_f64
@pytest.mark.parametrize("name", UNARY)
def test_float64_unary_matches_the_cpu(name):
    x, g = pair64(_f64_inputs(name, np.random.default_rng(40)))
    close64(getattr(g, name)(), getattr(x, name)())
    # A strided view.
    x2, g2 = x[:4000].reshape(40, 100), g[:4000].reshape(40, 100)
    close64(getattr(g2.t()[::3], name)(), getattr(x2.t()[::3], name)())


@needs_f64
def test_float64_activations_powers_and_binary_ops():
    rng = np.random.default_rng(41)
    x, g = pair64(rng.uniform(-8, 8, 3000))
    # gelu and softplus subtract nearly equal numbers for large negative inputs, on the CPU as
    # here: an ulp of 1 apart in erf or tanh shows as an absolute error of about 1e-16.
    for fn in [F.gelu, lambda t: F.gelu(t, approximate="tanh"), F.silu, F.softplus,
               lambda t: F.softplus(t, beta=2.0, threshold=1.0), lambda t: F.leaky_relu(t, 0.2), F.elu,
               lambda t: t ** 3, lambda t: t ** 0.5, lambda t: t.abs() ** -1.5, lambda t: t.abs() ** 7.3,
               lambda t: 2 ** t, lambda t: t.clamp(-0.5, 0.5), F.relu, lambda t: F.hardtanh(t)]:
        close64(fn(g), fn(x), atol=1e-15)
    a, ga = pair64(rng.standard_normal((3, 1, 40)) * 10)
    b, gb = pair64(rng.uniform(0.1, 5, (5, 40)))
    for fn in [lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q, lambda p, q: p / q, lambda p, q: p // q,
               lambda p, q: p % q, lambda p, q: p.abs() ** q, rstorch.maximum, rstorch.minimum, rstorch.atan2,
               lambda p, q: rstorch.atan2(q - 2.5, p), lambda p, q: 2.5 - p * 3 + q / 2,
               lambda p, q: p * rstorch.tensor(2.0, dtype=rstorch.float64), lambda p, q: p + 1e-12]:
        close64(fn(ga, gb), fn(a, b))
    for fn in [lambda p, q: p < q, lambda p, q: p >= 0.25, lambda p, q: p == p.round(), lambda p, q: (p > 0) & (q > 1)]:
        same(fn(ga, gb), fn(a, b))
    # Values that float32 could not tell apart.
    c, gc = pair64([1.0, 1.0 + 2 ** -52, 1e300, 2.0 ** 60 + 1])
    same(gc > 1.0, c > 1.0)
    assert (gc * 3).cpu().tolist() == (c * 3).tolist()
    # Mixed dtypes promote to float64, as on the CPU.
    i = rstorch.arange(40) * 1234567
    close64(ga + i.to("wgpu"), a + i)
    close64(ga[0, 0] * rstorch.ones(40, device="wgpu"), a[0, 0] * rstorch.ones(40))


@needs_f64
def test_float64_reductions_matmul_and_softmax():
    rng = np.random.default_rng(42)
    x, g = pair64(rng.standard_normal((5, 6, 7)))
    for dims in [None, 0, 1, -1, (0, 2), (0, 1, 2)]:
        for name in ["sum", "mean", "amax", "amin", "prod"]:
            args = () if dims is None else (dims,)
            close64(getattr(g, name)(*args), getattr(x, name)(*args))
    close64(g.transpose(0, 2).sum(1), x.transpose(0, 2).sum(1))
    big, gbig = pair64(rng.standard_normal((3, 50_000)))
    close64(gbig.sum(1), big.sum(1), atol=1e-12)
    same(g.argmax(1), x.argmax(1))
    same(g.argmin(-1), x.argmin(-1))
    v, i = g.max(2)
    close64(v, x.max(2)[0])
    same(i, x.max(2)[1])
    close64(g.cumsum(1), x.cumsum(1))
    close64(g.cumprod(2), x.cumprod(2))
    (v, i), (gv, gi) = x.sort(1), g.sort(1)
    close64(gv, v)
    same(gi, i)
    close64(g.softmax(-1), x.softmax(-1))
    close64(F.log_softmax(g, 1), F.log_softmax(x, 1))
    close64(g.var(1), x.var(1))
    close64(g.norm(), x.norm())
    for sa, sb in [((3, 5), (5, 2)), ((70, 33), (33, 65)), ((5,), (5, 3)), ((2, 3, 4, 5), (5, 6)),
                   ((2, 1, 4, 5), (3, 5, 2))]:
        a, ga = pair64(rng.standard_normal(sa))
        b, gb = pair64(rng.standard_normal(sb))
        close64(ga @ gb, a @ b)
    a, ga = pair64(rng.standard_normal((6, 4)))
    close64(ga.t() @ ga, a.t() @ a)
    lin = nn.Linear(4, 3).double()
    glin = nn.Linear(4, 3).double().to("wgpu")
    glin.load_state_dict({k: v.to("wgpu") for k, v in lin.state_dict().items()})
    close64(glin(ga), lin(a))


@needs_f64
def test_float64_casts_and_index_ops():
    x = rstorch.tensor([[-3.7, -1.0, -0.5, 0.0], [0.5, 1.5, 2.5, 126.9], [-129.0, 255.0, 70000.0, 3e9]],
                       dtype=rstorch.float64)
    g = x.to("wgpu")
    for dt in DTYPES:
        src = x.abs() if dt is rstorch.uint8 else x
        same(src.to("wgpu").to(dt), src.to(dt))
        same(src.to("wgpu").t().to(dt), src.t().to(dt))
        same(src.to(dt).to("wgpu").to(rstorch.float64), src.to(dt).to(rstorch.float64))
    big = rstorch.tensor([2 ** 62 + 1, -(2 ** 53) - 1, 123456789012345])
    same(big.to("wgpu").double(), big.double())
    special = rstorch.tensor([1e300, -1e-300, float("nan"), 3.4028235e38, 1 + 2 ** -30], dtype=rstorch.float64)
    got = special.to("wgpu").float()
    assert got.dtype is rstorch.float32
    np.testing.assert_array_equal(got.cpu().numpy(), special.float().numpy())
    i = rstorch.tensor([2, 0, 2])
    same(g.index_select(0, i.to("wgpu")), x.index_select(0, i))
    same(g[i.to("wgpu")], x[i])
    same(g[g > 1], x[x > 1])
    same(rstorch.where(g > 0, g, 0.5), rstorch.where(x > 0, x, 0.5))
    same(g.index_add(0, i.to("wgpu"), g, alpha=2.0), x.index_add(0, i, x, alpha=2.0))


@needs_f64
def test_float64_gradcheck_on_the_gpu():
    rng = np.random.default_rng(43)

    def inputs(*shape):
        return rstorch.tensor(rng.standard_normal(shape), device="wgpu").requires_grad_()

    a, b = inputs(3, 4), inputs(4, 2)
    assert rstorch.autograd.gradcheck(lambda p, q: (p.exp() * p.sin()).sum(1).log1p().tanh() @ q[:3], (a, b))
    assert rstorch.autograd.gradcheck(lambda p, q: (p @ q).softmax(-1), (a, b))
    # Non-contiguous (transposed, sliced) and broadcast inputs.
    c = inputs(4, 3)
    assert rstorch.autograd.gradcheck(lambda p, q: (p.t() * q[:, :1]).sigmoid(), (c, inputs(3, 2)))
    assert rstorch.autograd.gradcheck(lambda p, q: F.gelu(p[::2] + q) / (1 + q.abs()), (inputs(4, 3), inputs(3)))
    assert rstorch.autograd.gradgradcheck(lambda p: (p.tanh() ** 2).sum(0), (inputs(2, 3),))


def test_float64_without_the_feature_is_a_clear_error():
    # A device opened without float64 shaders: float64 tensors still move to and from it; ops on
    # them raise NotImplementedError naming the features that are missing.
    code = """
import rstorch
if not rstorch.wgpu.is_available():
    print("ok")
    raise SystemExit
assert not rstorch.wgpu.supports_float64()
g = rstorch.ones(2, 3, dtype=rstorch.float64).to("wgpu")
assert g.cpu().tolist() == [[1.0] * 3] * 2
p = rstorch.zeros(2, 3, dtype=rstorch.float64).to("wgpu").requires_grad_()
p.grad = g.clone()


def step(opt):
    opt.step()


for fn in (lambda: g.exp(), lambda: g + g, lambda: g.sum(), lambda: g @ g.t(), lambda: g.float(),
           lambda: rstorch.ones(2).to("wgpu").double(), lambda: g.sort(),
           lambda: step(rstorch.optim.SGD([p], lr=0.1, momentum=0.9)), lambda: step(rstorch.optim.Adam([p]))):
    try:
        fn()
    except NotImplementedError as e:
        assert "SHADER_F64" in str(e) and "float64" in str(e), str(e)
    else:
        raise AssertionError("no error")
assert (rstorch.ones(2, device="wgpu") * 2).cpu().tolist() == [2.0, 2.0]
print("ok")
"""
    env = dict(os.environ, RSTORCH_WGPU_NO_F64="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


@needs_gpu
def test_gather_and_index_select_with_indices_on_the_gpu():
    x, g = pair(5, 6, seed=45)
    idx = rstorch.tensor([[0, 5, 5], [1, 1, 0], [2, 3, 4], [5, 5, 5], [0, 0, 0]])
    for dt in [rstorch.int64, rstorch.int32, rstorch.int16, rstorch.int8, rstorch.uint8]:
        i = idx.to(dt)
        same(g.gather(1, i.to("wgpu")), x.gather(1, i))
        same(g.t().gather(0, i.t().to("wgpu")), x.t().gather(0, i.t()))  # strided source and index
        same(g.index_select(1, i[:, 1].to("wgpu")), x.index_select(1, i[:, 1]))
        same(g.index_select(0, i[::2, 0].to("wgpu")), x.index_select(0, i[::2, 0]))
    ints = rstorch.arange(30).reshape(5, 6) * (2 ** 40)
    same(ints.to("wgpu").gather(1, idx.to("wgpu")), ints.gather(1, idx))
    same(g.index_select(0, rstorch.tensor([], dtype=rstorch.int64, device="wgpu")),
         x.index_select(0, rstorch.tensor([], dtype=rstorch.int64)))
    # Out of range (or negative) indices raise the CPU's error, type and words.
    for bad in [rstorch.tensor([[0, 6, 1]]), rstorch.tensor([[0, -1, 1]])]:
        with pytest.raises(RuntimeError) as want:
            x.gather(1, bad)
        with pytest.raises(type(want.value), match=str(want.value)):
            g.gather(1, bad.to("wgpu"))
    for bad in [rstorch.tensor([5]), rstorch.tensor([-1])]:
        with pytest.raises(IndexError) as want:
            x.index_select(0, bad)
        with pytest.raises(IndexError, match=str(want.value)):
            g.index_select(0, bad.to("wgpu"))


@needs_gpu
@pytest.mark.parametrize("seed", range(3))
def test_scatter_with_indices_on_the_gpu(seed):
    """scatter (tensor and number sources) with indices on the GPU: the device checks their
    range and writes through them, of repeated targets the last in index order winning as on
    the CPU; random shapes and dims, strided self, index and source, every value and index dtype;
    out of range and negative indices raise the CPU's error, type and words."""
    rng = np.random.default_rng(900 + seed)
    ndim = int(rng.integers(1, 4))
    shape = [int(v) for v in rng.integers(1, 7, ndim)]
    d = int(rng.integers(0, ndim))
    ishape = [int(rng.integers(1, n + 1)) for n in shape]
    ishape[d] = int(rng.integers(1, 12))  # longer than the dim: repeated targets
    data = rng.standard_normal(shape).astype(np.float32)
    idx = rstorch.tensor(rng.integers(0, shape[d], ishape))
    src_data = rng.standard_normal([n + 1 for n in ishape]).astype(np.float32)
    for dt in DTYPES + [rstorch.float64] * rstorch.wgpu.supports_float64():
        x = rstorch.tensor(data * 10).to(dt)
        src = rstorch.tensor(src_data * 10).to(dt)
        g, gsrc = x.to("wgpu"), src.to("wgpu")
        for idt in [rstorch.int64, rstorch.int32, rstorch.int16, rstorch.int8, rstorch.uint8]:
            i = idx.to(idt)
            same(g.scatter(d, i.to("wgpu"), gsrc), x.scatter(d, i, src))
            same(g.scatter(d, i.to("wgpu"), 3), x.scatter(d, i, 3))
        # Strided self, index and source (transposed), and a sliced index.
        dd = {0: ndim - 1, ndim - 1: 0}.get(d, d)
        gi = idx.to("wgpu").transpose(0, -1)
        same(g.transpose(0, -1).scatter(dd, gi, gsrc.transpose(0, -1)),
             x.transpose(0, -1).scatter(dd, idx.transpose(0, -1), src.transpose(0, -1)))
        gw = rstorch.tensor(rng.integers(0, shape[d], ishape[:-1] + [2 * ishape[-1]]), device="wgpu")[..., ::2]
        assert ishape[-1] == 1 or not gw.is_contiguous()
        same(g.scatter(d, gw, gsrc), x.scatter(d, gw.cpu(), src))
    # Gradients flow as on the CPU.
    for dev in ["cpu", "wgpu"]:
        a = rstorch.tensor(data, device=dev, requires_grad=True)
        b = rstorch.tensor(src_data, device=dev, requires_grad=True)
        (a.scatter(d, idx.to(dev), b) * 2).sum().backward()
        if dev == "cpu":
            want = (a.grad, b.grad)
        else:
            close(a.grad, want[0])
            close(b.grad, want[1])
    # Out of range (or negative) indices raise the CPU's error, type and words.
    x, g = pair(3, 4, seed=seed)
    for bad in [rstorch.tensor([[0, 4, 1]]), rstorch.tensor([[0, -1, 1]]), rstorch.tensor([[9]])]:
        for value in [rstorch.ones(1, 3), 2.0]:
            with pytest.raises((RuntimeError, IndexError)) as want:
                x.scatter(1, bad, value)
            gv = value.to("wgpu") if isinstance(value, rstorch.Tensor) else value
            with pytest.raises(type(want.value), match=str(want.value)) as got:
                g.scatter(1, bad.to("wgpu"), gv)
            assert type(got.value) is type(want.value)
    # An empty index changes nothing.
    same(g.scatter(1, rstorch.zeros(3, 0, dtype=rstorch.int64, device="wgpu"), 1.0), x.scatter(1, rstorch.zeros(3, 0, dtype=rstorch.int64), 1.0))


# ----- integer reductions and long sorts ---------------------------------------------------------------

INT_DTYPES = [rstorch.int64, rstorch.int32, rstorch.int16, rstorch.int8, rstorch.uint8, rstorch.bool]


@needs_gpu
@pytest.mark.parametrize("dt", INT_DTYPES, ids=str)
def test_integer_reductions_scans_and_sorts(dt):
    rng = np.random.default_rng(44)
    x = rstorch.tensor(rng.integers(0 if dt in (rstorch.uint8, rstorch.bool) else -100, 100, (4, 7, 9))).to(dt)
    g = x.to("wgpu")
    for dims in [None, 0, 2, (0, 2)]:
        for name in ["sum", "prod", "amax", "amin"]:
            if name in ("amax", "amin") and dt is rstorch.bool:
                continue
            args = () if dims is None else (dims,)
            same(getattr(g, name)(*args), getattr(x, name)(*args))
    for dim in [0, 1, -1]:
        same(g.cumsum(dim), x.cumsum(dim))
        if dt is not rstorch.bool:  # argmax and max(dim) take no bool (as in PyTorch)
            same(g.argmax(dim), x.argmax(dim))
            same(g.argmin(dim), x.argmin(dim))
            v, i = g.max(dim)
            same(v, x.max(dim)[0])
            same(i, x.max(dim)[1])
            same(g.cumprod(dim), x.cumprod(dim))
            for descending in [False, True]:
                (sv, si), (gv, gi) = x.sort(dim, descending=descending), g.sort(dim, descending=descending)
                same(gv, sv)
                same(gi, si)
    same(g.transpose(0, 2).sum(1), x.transpose(0, 2).sum(1))
    if dt is not rstorch.bool:
        same(g.argmax(), x.argmax())


@needs_gpu
def test_int64_reductions_are_exact_and_wrap():
    big = 2 ** 62 + 12345
    x = rstorch.tensor([[big, 3, -big, 2 ** 53 + 1], [big, big, 7, -(2 ** 63)]])
    g = x.to("wgpu")
    for fn in [lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.prod(1), lambda t: t.amax(0), lambda t: t.amin(1),
               lambda t: t.cumsum(1), lambda t: t.cumprod(0), lambda t: t.argmax(1), lambda t: t.sort(1)[1],
               lambda t: t.sort(0, descending=True)[0]]:
        same(fn(g), fn(x))
    # Long rows are folded in chunks by two passes.
    n = rstorch.arange(300_000) * (2 ** 31 + 7)
    same(n.to("wgpu").sum(), n.sum())
    flags = rstorch.rand(3, 70_000) > 0.3
    same(flags.to("wgpu").sum(1), flags.sum(1))


@needs_gpu
def test_integer_pow():
    a = rstorch.tensor([-3, -1, 0, 1, 2, 3, 7, 2 ** 20])
    b = rstorch.tensor([3, 4, 0, 9, 62, 41, 5, 3])
    for dt in [rstorch.int64, rstorch.int32, rstorch.int8, rstorch.uint8]:
        x, y = a.to(dt), b.to(dt)
        same(x.to("wgpu") ** y.to("wgpu"), x ** y)
        same(x.to("wgpu") ** 3, x ** 3)
        same(2 ** y.to("wgpu"), 2 ** y)
    same(a.to("wgpu").pow(0), a.pow(0))
    # A tensor of negative exponents computes (truncating toward zero, as on the CPU and in
    # PyTorch); a negative number as the exponent is refused.
    for e in ([1, -1, 1, 1, 1, 1, 1, 1], [-1] * 8, [-2] * 8):
        same(a.to("wgpu") ** rstorch.tensor(e, device="wgpu"), a ** rstorch.tensor(e))
    assert (a ** rstorch.tensor([-1] * 8)).tolist() == [0, -1, 0, 1, 0, 0, 0, 0]
    msg = "Integers to negative integer powers are not allowed."
    with pytest.raises(RuntimeError, match=msg):
        a.to("wgpu") ** -2


@needs_gpu
@pytest.mark.parametrize("n", [1025, 3000, 4096])
def test_sort_rows_longer_than_one_workgroup(n):
    rng = np.random.default_rng(n)
    # Few distinct values (ties keep their order), NaNs, and both signs of zero.
    raw = rng.integers(-20, 20, (3, n)).astype(np.float32)
    raw[0, ::97] = np.nan
    raw[1, ::5] = -0.0
    x = rstorch.tensor(raw)
    g = x.to("wgpu")
    for dim, descending in [(1, False), (1, True), (-1, False)]:
        (v, i), (gv, gi) = x.sort(dim, descending=descending), g.sort(dim, descending=descending)
        close(gv, v)
        same(gi, i)
    (v, i), (gv, gi) = x.t().sort(0), g.t().sort(0)  # strided rows
    same(gi, i)
    ints = rstorch.tensor(np.nan_to_num(raw, nan=7.0)).to(rstorch.int64) * (2 ** 40)
    (v, i), (gv, gi) = ints.sort(1, descending=True), ints.to("wgpu").sort(1, descending=True)
    same(gv, v)
    same(gi, i)
    (v, i), (gv, gi) = x.topk(5, 1), g.topk(5, 1)
    same(gi, i)
    if rstorch.wgpu.supports_float64():
        d = x.double() + rstorch.tensor(rng.standard_normal((3, n))) * 1e-12
        (v, i), (gv, gi) = d.sort(1), d.to("wgpu").sort(1)
        same(gi, i)
        np.testing.assert_array_equal(gv.cpu().numpy(), v.numpy())


@needs_gpu
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding=2, dilation=2, groups=2),
                                dict(stride=(2, 1), padding=(0, 2))], ids=str)
def test_conv2d_forward_and_gradients(kw):
    grads = {}
    for dev in ["cpu", "wgpu"]:
        rstorch.manual_seed(1)
        x = rstorch.randn(3, 4, 9, 8, device=dev, requires_grad=True)
        w = rstorch.randn(6, 4 // kw.get("groups", 1), 3, 3, device=dev, requires_grad=True)
        b = rstorch.randn(6, device=dev, requires_grad=True)
        y = F.conv2d(x, w, b, **kw)
        cot = rstorch.randn(*y.shape).to(dev)
        (y * cot).sum().backward()
        grads[dev] = [y, x.grad, w.grad, b.grad]
    for g, c in zip(grads["wgpu"], grads["cpu"]):
        close(g, c)


@needs_gpu
def test_conv_transpose2d_and_pooling():
    x, gx = pair(2, 3, 5, 5, seed=30)
    w, gw = pair(3, 4, 3, 3, seed=31)
    close(F.conv_transpose2d(gx, gw, stride=2, padding=1, output_padding=1),
          F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1))
    x, gx = pair(2, 3, 9, 7, seed=32)
    x[0, 0, 1, 1] = float("nan")
    gx = x.to("wgpu")
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, ceil_mode=True),
               dict(kernel_size=2, dilation=2)]:
        (v, i), (gv, gi) = F.max_pool2d(x, return_indices=True, **kw), F.max_pool2d(gx, return_indices=True, **kw)
        close(gv, v)
        same(gi, i)
    ties = rstorch.zeros(1, 1, 4, 4)
    same(F.max_pool2d(ties.to("wgpu"), 2, return_indices=True)[1], F.max_pool2d(ties, 2, return_indices=True)[1])



@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float32, rstorch.float64], ids=str)
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=3, stride=2, dilation=2, ceil_mode=True), dict(kernel_size=(2, 3), stride=(1, 2))],
                         ids=str)
def test_max_pool2d_is_one_kernel_each_way(dt, kw):
    """max_pool2d's forward (maxima and positions) and its input gradient (each input element
    sums the gradients of the windows it won, in window order) are one kernel each, bitwise
    the CPU's, on a strided input with a NaN."""
    if dt is rstorch.float64 and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 shaders")
    x = rstorch.tensor(np.random.default_rng(2).standard_normal((2, 3, 13, 11))).to(dt).transpose(2, 3)
    x[1, 2, 4, 5] = float("nan")
    cot = rstorch.tensor(np.random.default_rng(3).standard_normal(F.max_pool2d(x, **kw).shape)).to(dt)
    results = []
    for dev in ["cpu", "wgpu"]:
        a = x.to(dev).contiguous().detach().requires_grad_()
        g = cot.to(dev)
        before = launched()
        v, i = F.max_pool2d(a, return_indices=True, **kw)
        if dev == "wgpu":
            assert launched() - before == 1
            before = launched()
        (grad,) = rstorch.autograd.grad(v, a, g)
        if dev == "wgpu":
            assert launched() - before == 1
        results.append([v, i, grad])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())


@needs_gpu
def test_max_pool2d_indices_changed_in_place_stop_the_backward():
    """The backward reads the positions max_pool2d returned: changed in place, they raise
    PyTorch's version error instead of sending gradients to the wrong elements."""
    a = rstorch.randn(1, 1, 4, 4, device="wgpu", requires_grad=True)
    v, i = F.max_pool2d(a, 2, return_indices=True)
    i.add_(0)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch.LongTensor \[1, 1, 2, 2\]\] is at version 1; expected version 0"):
        v.sum().backward()


@needs_gpu
def test_max_pool2d_double_backward_on_the_device():
    """With create_graph the gradient is itself differentiable (an index_add of the positions):
    second derivatives match the CPU's."""
    results = []
    for dev in ["cpu", "wgpu"]:
        rstorch.manual_seed(4)
        a = rstorch.randn(2, 2, 6, 6).to(dev).requires_grad_()
        y = F.max_pool2d(a, 3, stride=1, padding=1)
        (g,) = rstorch.autograd.grad((y * y).sum(), a, create_graph=True)
        (gg,) = rstorch.autograd.grad((g * g).sum(), a)
        results.append([g, gg])
    for got, want in zip(results[1], results[0]):
        close(got, want, tol=1e-5)


@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float32, rstorch.float64], ids=str)
def test_conv_input_gradient_sums_patches_in_one_kernel(dt):
    """A convolution's input gradient is a matmul and one col2im kernel (each image element
    sums its taps' patch gradients in tap order), for strides, padding, dilation and groups."""
    if dt is rstorch.float64 and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 shaders")
    rng = np.random.default_rng(6)
    for kw in [dict(), dict(stride=2, padding=1), dict(stride=(2, 3), padding=(2, 1), dilation=(2, 1), groups=2)]:
        x = rstorch.tensor(rng.standard_normal((2, 4, 11, 10))).to(dt)
        w = rstorch.tensor(rng.standard_normal((6, 4 // kw.get("groups", 1), 3, 3))).to(dt)
        y = F.conv2d(x, w, **kw)
        cot = rstorch.tensor(rng.standard_normal(y.shape)).to(dt)
        grads = []
        for dev in ["cpu", "wgpu"]:
            a, g = x.detach().to(dev).requires_grad_(), cot.to(dev)
            out = F.conv2d(a, w.to(dev), **kw)
            before = launched()
            grads.append(rstorch.autograd.grad(out, a, g)[0])
            if dev == "wgpu":
                # Grouped weights broadcast over two batch dims, which the matmul copies first.
                assert launched() - before == (2 if kw.get("groups", 1) == 1 else 3)
        close(grads[1], grads[0], tol=1e-4 if dt is rstorch.float32 else 1e-10)


@needs_gpu
def test_conv_weight_gradient_reuses_the_forward_patches():
    """A forward pass whose weight needs a gradient keeps its patch matrices on the device: the
    weight gradient is two layout copies and a matmul, with no second unfolding of the image,
    and matches the CPU (for half types, which keep nothing, too)."""
    rng = np.random.default_rng(8)
    for dt in [rstorch.float32, rstorch.float16]:
        x = rstorch.tensor(rng.standard_normal((3, 4, 10, 9))).to(dt)
        w = rstorch.tensor(rng.standard_normal((5, 4, 3, 3))).to(dt)
        cot = rstorch.tensor(rng.standard_normal((3, 5, 4, 4))).to(dt)
        grads = []
        for dev in ["cpu", "wgpu"]:
            a, g = w.to(dev).requires_grad_(), cot.to(dev)
            out = F.conv2d(x.to(dev), a, stride=2)
            before = launched()
            grads.append(rstorch.autograd.grad(out, a, g)[0])
            if dev == "wgpu" and dt is rstorch.float32:
                assert launched() - before == 3
        close_in(dt, grads[1], grads[0])


OPTIMIZERS = [
    lambda ps: rstorch.optim.SGD(ps, lr=0.1),
    lambda ps: rstorch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, maximize=True),
    lambda ps: rstorch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    lambda ps: rstorch.optim.Adam(ps, lr=0.01, weight_decay=0.1),
    lambda ps: rstorch.optim.Adam(ps, lr=0.01, amsgrad=True),
    lambda ps: rstorch.optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    lambda ps: rstorch.optim.RMSprop(ps, lr=0.01),
    lambda ps: rstorch.optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1),
    lambda ps: rstorch.optim.RMSprop(ps, lr=0.01, centered=True),
    lambda ps: rstorch.optim.Adagrad(ps, lr=0.1, lr_decay=0.01, weight_decay=0.1),
]
OPTIMIZER_IDS = ["sgd", "sgd_momentum", "sgd_nesterov", "adam", "amsgrad", "adamw", "rmsprop", "rmsprop_all",
                 "rmsprop_centered", "adagrad"]


@needs_gpu
@pytest.mark.parametrize("make", OPTIMIZERS, ids=OPTIMIZER_IDS)
def test_optimizer_steps_run_on_the_gpu(make):
    params = {}
    for dev in ["cpu", "wgpu"]:
        rstorch.manual_seed(4)
        w = rstorch.randn(5, 3, device=dev, requires_grad=True)
        b = rstorch.randn(3, device=dev, requires_grad=True)
        x = rstorch.randn(8, 5, device=dev)
        opt = make([w, b])
        for _ in range(4):
            opt.zero_grad()
            ((x @ w + b).tanh() ** 2).sum().backward()
            opt.step()
        params[dev] = [w, b]
    for g, c in zip(params["wgpu"], params["cpu"]):
        close(g, c, tol=1e-4)


# ----- integer matmul --------------------------------------------------------------------------------

def int_values(rng, dt, shape):
    """Random values over the whole range of an integer dtype (products and sums overflow)."""
    if dt is rstorch.bool:
        return rstorch.tensor(rng.integers(0, 2, shape).astype(bool))
    info = np.iinfo(str(dt).split(".")[1])
    return rstorch.tensor(rng.integers(info.min, info.max, shape, endpoint=True, dtype=info.dtype))


@needs_gpu
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", INT_DTYPES, ids=str)
def test_integer_matmul_matches_the_cpu(dt, seed):
    """mm, matmul, bmm, dot and mv of integers are exact and wrap as on the CPU, for random
    shapes and for transposed, sliced and broadcast operands."""
    rng = np.random.default_rng(100 + seed)
    m, k, n, b = (int(v) for v in rng.integers(1, 40, 4))

    def both(x):
        return x, x.to("wgpu")

    a, ga = both(int_values(rng, dt, (m, k)))
    w, gw = both(int_values(rng, dt, (k, n)))
    v, gv = both(int_values(rng, dt, (k,)))
    same(ga @ gw, a @ w)
    same(rstorch.mm(ga, gw), rstorch.mm(a, w))
    same(rstorch.mv(ga, gv), rstorch.mv(a, v))
    same(rstorch.dot(gv, gv), rstorch.dot(v, v))
    same(gv @ gw, v @ w)
    same(gv @ gv, v @ v)
    # Non-contiguous: transposes, steps and offsets.
    t, gt = both(int_values(rng, dt, (2 * n + 1, k + 3)))
    tv, gtv = t[1::2, 2:k + 2].t(), gt[1::2, 2:k + 2].t()
    same(ga @ gtv, a @ tv)
    same(gtv.t() @ ga.t(), tv.t() @ a.t())
    same(rstorch.mv(gt[:, 1:k + 1], gv), rstorch.mv(t[:, 1:k + 1], v))
    same(rstorch.dot(gt[0, 1:k + 1], gtv[:, -1]), rstorch.dot(t[0, 1:k + 1], tv[:, -1]))
    # Batched: bmm, broadcast batch dims, an expanded (zero-stride) operand, a batch times a matrix.
    x, gx = both(int_values(rng, dt, (b, m, k)))
    y, gy = both(int_values(rng, dt, (b, k, n)))
    same(rstorch.bmm(gx, gy), rstorch.bmm(x, y))
    same(rstorch.bmm(gx, gy.transpose(1, 2).contiguous().transpose(1, 2)), rstorch.bmm(x, y))
    same(rstorch.bmm(ga.expand(b, m, k), gy), rstorch.bmm(a.expand(b, m, k), y))
    same(gx @ gw, x @ w)
    same(gx @ gv, x @ v)
    same(gx[:, None] @ gy[None, :2], x[:, None] @ y[None, :2])
    # Empty products and empty outputs.
    e, ge = both(rstorch.zeros(m, 0, dtype=dt))
    same(ge @ ge.t(), e @ e.t())
    same(ge.t() @ ga[:, :3], e.t() @ a[:, :3])


@needs_gpu
def test_integer_matmul_wraps_like_int64():
    big = 2 ** 62 + 7
    a = rstorch.tensor([[big, big, -(2 ** 63)], [3, -5, 2 ** 40]])
    b = rstorch.tensor([[3, 2 ** 40], [5, -1], [1, 2 ** 33]])
    same(a.to("wgpu") @ b.to("wgpu"), a @ b)
    for dt, v in [(rstorch.int8, 127), (rstorch.uint8, 255), (rstorch.int16, 32767), (rstorch.int32, 2 ** 31 - 1)]:
        x = rstorch.full((3, 9), v, dtype=dt)
        same(x.to("wgpu") @ x.to("wgpu").t(), x @ x.t())


@needs_gpu
def test_integer_matmul_bad_input_raises_the_cpus_errors():
    a = rstorch.ones(2, 3, dtype=rstorch.int32)
    for fn in [lambda t: t @ t, lambda t: rstorch.mm(t, t.float()), lambda t: t @ t.t().long(),
               lambda t: rstorch.bmm(t, t.t()), lambda t: rstorch.dot(t[0], t[1, :2]), lambda t: rstorch.mv(t, t[:, 0]),
               lambda t: rstorch.mm(t, t.t().to(rstorch.int8))]:
        with pytest.raises(RuntimeError) as want:
            fn(a)
        with pytest.raises(type(want.value)) as got:
            fn(a.to("wgpu"))
        assert str(got.value) == str(want.value)


# ----- integer pooling and convolution ------------------------------------------------------------

POOLS = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, ceil_mode=True),
         dict(kernel_size=2, dilation=2), dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 1), ceil_mode=True)]


@needs_gpu
@pytest.mark.parametrize("dt", INT_DTYPES, ids=str)
def test_integer_max_pool2d_matches_the_cpu(dt):
    rng = np.random.default_rng(7)
    for shape in [(2, 3, 9, 7), (1, 5, 6), tuple(int(s) for s in rng.integers(4, 12, 4))]:
        x = int_values(rng, dt, shape)
        # Ties too: a narrow range of values repeats within windows.
        for src in [x, (x.long() % 3).to(dt)]:
            for view in [src, src.transpose(-1, -2)]:
                for kw in POOLS:
                    (v, i) = F.max_pool2d(view, return_indices=True, **kw)
                    (gv, gi) = F.max_pool2d(view.to("wgpu"), return_indices=True, **kw)
                    same(gv, v)
                    same(gi, i)
    x = int_values(rng, dt, (2, 4, 8))
    same(F.max_pool1d(x.to("wgpu"), 3, stride=2, padding=1), F.max_pool1d(x, 3, stride=2, padding=1))
    same(nn.MaxPool2d(2)(x.unsqueeze(0).to("wgpu")), nn.MaxPool2d(2)(x.unsqueeze(0)))


@needs_gpu
def test_max_pool2d_windows_holding_only_the_minimum():
    # Every tap of a window at the dtype's minimum (or -inf): the position is the window's first
    # tap inside the input, never one in the padding.
    for x in [rstorch.full((1, 1, 4, 5), -(2 ** 63)), rstorch.full((1, 4, 5), float("-inf")),
              rstorch.full((2, 4, 5), float("-inf"), dtype=rstorch.float64)]:
        x[..., 2, 3] = 0
        for kw in POOLS:
            (v, i), (gv, gi) = F.max_pool2d(x, return_indices=True, **kw), F.max_pool2d(x.to("wgpu"), return_indices=True, **kw)
            same(gv, v)
            same(gi, i)


@needs_gpu
@pytest.mark.parametrize("dt", INT_DTYPES, ids=str)
def test_integer_convolution_raises_the_cpus_error(dt):
    # The CPU has no integer convolution (nor has PyTorch): the GPU raises the same error.
    x = rstorch.ones(1, 2, 5, 5, dtype=dt)
    w = rstorch.ones(3, 2, 3, 3, dtype=dt)
    for fn in [lambda x, w: F.conv2d(x, w), lambda x, w: F.conv2d(x, w, rstorch.ones(3, dtype=dt), padding=1),
               lambda x, w: F.conv1d(x[:, :, 0], w[:, :, 0]), lambda x, w: F.conv_transpose2d(x, w.transpose(0, 1)),
               lambda x, w: nn.functional.conv2d(x.transpose(2, 3), w, stride=2)]:
        with pytest.raises(RuntimeError) as want:
            fn(x, w)
        with pytest.raises(type(want.value)) as got:
            fn(x.to("wgpu"), w.to("wgpu"))
        assert str(got.value) == str(want.value) and "not implemented for" in str(got.value)
        assert not isinstance(got.value, NotImplementedError)


@pytest.mark.skipif(not (rstorch.wgpu.is_available() and rstorch.wgpu.supports_float64()),
                    reason="no wgpu adapter with float64 shaders")
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("make", OPTIMIZERS, ids=OPTIMIZER_IDS)
def test_float64_optimizer_steps_match_the_cpu(make, seed):
    """Float64 parameters update in float64 on the GPU: the same values as the CPU's (to a few
    ulp; float32 arithmetic would be off by about 1e-7), for random shapes, several parameters
    and non-contiguous gradients."""
    rng = np.random.default_rng(200 + seed)
    shapes = [tuple(int(s) for s in rng.integers(1, 9, int(rng.integers(1, 4)))) for _ in range(3)]
    start = [rng.standard_normal(s) for s in shapes]
    steps = [[rng.standard_normal(s[::-1]) for s in shapes] for _ in range(5)]
    params = {}
    for dev in ["cpu", "wgpu"]:
        ps = [rstorch.tensor(x, device=dev, requires_grad=True) for x in start]
        opt = make(ps)
        for grads in steps:
            for p, g in zip(ps, grads):
                # Transposed views: gradients need not be contiguous.
                p.grad = rstorch.tensor(g, device=dev).permute(*reversed(range(g.ndim)))
            opt.step()
        params[dev] = ps
        for p in ps:
            assert p.dtype is rstorch.float64 and p.device.type == dev
            for v in opt.state[p].values():
                if isinstance(v, rstorch.Tensor) and v.ndim:
                    assert v.dtype is rstorch.float64 and v.device.type == dev
    for g, c in zip(params["wgpu"], params["cpu"]):
        assert g.device.type == "wgpu"
        np.testing.assert_allclose(g.detach().cpu().numpy(), c.detach().numpy(), rtol=1e-12, atol=1e-14)


# ----- fused softmax ---------------------------------------------------------------------------------

@needs_gpu
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_fused_softmax_matches_the_cpu(log, seed):
    """softmax and log_softmax of float32 over every dim of random shapes (rows longer than a
    workgroup included), of transposed and sliced inputs: values and gradients as on the CPU,
    with PyTorch's node, and the same bits on every run."""
    rng = np.random.default_rng(300 + seed)
    ndim = int(rng.integers(1, 5))
    shape = [int(s) for s in rng.integers(1, 6, ndim)]
    shape[int(rng.integers(0, ndim))] = int(rng.integers(200, 400))
    data = (rng.standard_normal(shape) * 8).astype(np.float32)
    x = rstorch.tensor(data)
    name = "log_softmax" if log else "softmax"
    for view in [lambda t: t, lambda t: t.transpose(0, -1), lambda t: t[..., ::2], lambda t: t.unsqueeze(-1).expand(*t.shape, 3)[..., 1:]]:
        for dim in range(-view(x).ndim, view(x).ndim):
            outs, cot = {}, None
            for dev in ["cpu", "wgpu"]:
                leaf = rstorch.tensor(data, device=dev, requires_grad=True)
                y = getattr(view(leaf), name)(dim)
                cot = rstorch.tensor(rng.standard_normal(y.shape).astype(np.float32)) if dev == "cpu" else cot
                (y * cot.to(dev)).sum().backward()
                outs[dev] = (y, leaf.grad)
            y, gx = outs["wgpu"]
            assert y.grad_fn.name() == ("LogSoftmaxBackward0" if log else "SoftmaxBackward0")
            assert y.is_contiguous() and y.shape == outs["cpu"][0].shape
            close(y, outs["cpu"][0], tol=1e-5)
            close(gx, outs["cpu"][1], tol=1e-4)
            again = getattr(view(x.to("wgpu")), name)(dim)
            assert again.cpu().numpy().tobytes() == y.detach().cpu().numpy().tobytes()


@needs_gpu
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dt", [rstorch.float32, rstorch.float16, rstorch.bfloat16], ids=str)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_fused_softmax_backward_matches_the_cpu(log, dt, seed):
    """The input gradient of softmax and log_softmax, one fused kernel per row on the GPU
    (float16 and bfloat16 computing in float32 and rounding once, as the CPU does): against the
    CPU over every dim of random shapes, with non-contiguous output gradients, the same bits on
    every run, and through create_graph (composed, differentiable ops) too."""
    rng = np.random.default_rng(500 + seed)
    ndim = int(rng.integers(1, 4))
    shape = [int(s) for s in rng.integers(1, 6, ndim)]
    shape[int(rng.integers(0, ndim))] = int(rng.integers(250, 600))
    data = (rng.standard_normal(shape) * 4).astype(np.float32)
    name = "log_softmax" if log else "softmax"
    tol = 1e-4 if dt is rstorch.float32 else (4e-3 if dt is rstorch.float16 else 3e-2)
    for dim in range(-ndim, ndim):
        # A transposed gradient: its storage holds the values in reversed dim order.
        cot_data = rng.standard_normal(shape[::-1]).astype(np.float32)
        grads = {}
        for dev in ["cpu", "wgpu"]:
            leaf = rstorch.tensor(data).to(dt).to(dev).requires_grad_()
            y = getattr(leaf, name)(dim)
            assert y.grad_fn.name() == ("LogSoftmaxBackward0" if log else "SoftmaxBackward0")
            cot = rstorch.tensor(cot_data).to(dt).to(dev).permute(*reversed(range(ndim)))
            assert ndim == 1 or not cot.is_contiguous()
            grads[dev] = rstorch.autograd.grad(y, leaf, cot)[0]
        g = grads["wgpu"]
        assert g.dtype is dt and g.shape == grads["cpu"].shape
        close(g.float(), grads["cpu"].float(), tol=tol)
        leaf = rstorch.tensor(data).to(dt).to("wgpu").requires_grad_()
        cot = rstorch.tensor(cot_data).to(dt).to("wgpu").permute(*reversed(range(ndim)))
        again = rstorch.autograd.grad(getattr(leaf, name)(dim), leaf, cot)[0]
        assert again.cpu().float().numpy().tobytes() == g.cpu().float().numpy().tobytes()
    # create_graph: the gradient is itself differentiable (second derivatives as on the CPU).
    x = rstorch.tensor(rng.standard_normal((3, 7)).astype(np.float32))
    second = {}
    for dev in ["cpu", "wgpu"]:
        leaf = x.to(dev).requires_grad_()
        y = getattr(leaf, name)(1)
        (gx,) = rstorch.autograd.grad((y * y).sum(), leaf, create_graph=True)
        assert gx.grad_fn is not None
        second[dev] = rstorch.autograd.grad(gx.pow(2).sum(), leaf)[0]
    close(second["wgpu"], second["cpu"], tol=1e-4)


@needs_gpu
def test_fused_softmax_backward_special_values_and_shapes():
    inf, nan = float("inf"), float("nan")
    x = rstorch.tensor([[1.0, -inf, 2.0], [0.0, 0.0, 0.0], [inf, 1.0, 2.0], [nan, 0.0, 1.0], [1e30, -1e30, 0.0]])
    cot = rstorch.tensor([[1.0, 2.0, -1.0]] * 5)
    for name in ["softmax", "log_softmax"]:
        for dim in [0, 1]:
            want = rstorch.autograd.grad(getattr(x.requires_grad_(), name)(dim), x, cot)[0]
            g = x.detach().to("wgpu").requires_grad_()
            close(rstorch.autograd.grad(getattr(g, name)(dim), g, cot.to("wgpu"))[0], want, tol=1e-6)
    for shape, dim in [((), 0), ((5, 0), 1), ((0, 5), 1), ((1, 70000), 1), ((70000, 2), 1)]:
        x = rstorch.randn(*shape)
        cot = rstorch.randn(*shape)
        for name in ["softmax", "log_softmax"]:
            want = rstorch.autograd.grad(getattr(x.requires_grad_(), name)(dim), x, cot)[0]
            g = x.detach().to("wgpu").requires_grad_()
            close(rstorch.autograd.grad(getattr(g, name)(dim), g, cot.to("wgpu"))[0], want, tol=1e-5)


@needs_gpu
def test_fused_softmax_special_values_and_shapes():
    inf, nan = float("inf"), float("nan")
    x = rstorch.tensor([[1.0, nan, 2.0], [-inf, -inf, -inf], [inf, 1.0, 2.0], [0.0, -inf, 1.0], [1e30, -1e30, 0.0]])
    for fn in [lambda t: t.softmax(1), lambda t: t.log_softmax(1), lambda t: t.softmax(0), lambda t: F.log_softmax(t, 0)]:
        close(fn(x.to("wgpu")), fn(x), tol=1e-6)
    for shape, dim in [((), 0), ((5, 0), 1), ((0, 5), 1), ((1, 70000), 1), ((70000, 2), 1)]:
        x = rstorch.randn(*shape)
        for name in ["softmax", "log_softmax"]:
            close(getattr(x.to("wgpu"), name)(dim), getattr(x, name)(dim), tol=1e-5)
    # Half precision computes in float32, rounding once, as on the CPU.
    x = rstorch.randn(6, 33)
    for dt in [rstorch.float16, rstorch.bfloat16]:
        for name in ["softmax", "log_softmax"]:
            same(getattr(x.to(dt).to("wgpu"), name)(1), getattr(x.to(dt), name)(1))
    with pytest.raises(NotImplementedError, match="softmax"):
        rstorch.ones(3, dtype=rstorch.int64, device="wgpu").softmax(0)
    with pytest.raises(IndexError):
        rstorch.ones(3, device="wgpu").softmax(1)



@needs_f64
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_float64_softmax_is_fused_and_matches_the_cpu(name):
    """float64 softmax and log_softmax run the fused kernels in float64 (exp and log from
    float64 arithmetic): values and input gradients within 1e-12 of the CPU's over every dim,
    special values included, one buffer per result, PyTorch's nodes."""
    rng = np.random.default_rng(77)
    data = rng.standard_normal((3, 300, 4)) * 20
    for dim in range(-3, 3):
        cot = rng.standard_normal(data.shape)
        outs = {}
        for dev in ["cpu", "wgpu"]:
            leaf = rstorch.tensor(data, device=dev, requires_grad=True)
            y = getattr(leaf, name)(dim)
            assert y.dtype is rstorch.float64
            assert y.grad_fn.name() == ("LogSoftmaxBackward0" if name == "log_softmax" else "SoftmaxBackward0")
            outs[dev] = (y, rstorch.autograd.grad(y, leaf, rstorch.tensor(cot, device=dev))[0])
        close64(outs["wgpu"][0], outs["cpu"][0], atol=1e-14)
        close64(outs["wgpu"][1], outs["cpu"][1], atol=1e-12)
    inf, nan = float("inf"), float("nan")
    x, g = pair64([[1.0, nan, 2.0], [-inf, -inf, -inf], [inf, 1.0, 2.0], [0.0, -inf, 1.0], [700.0, -700.0, 0.0]])
    for dim in [0, 1]:
        close64(getattr(g, name)(dim), getattr(x, name)(dim), atol=1e-300)
    # One kernel: the output is the only buffer a call asks for.
    g = rstorch.tensor(data, device="wgpu")
    stats = rstorch.wgpu.memory_stats()
    before = stats["buffers_created"] + stats["buffers_reused"]
    getattr(g, name)(1)
    stats = rstorch.wgpu.memory_stats()
    assert stats["buffers_created"] + stats["buffers_reused"] - before == 1

def _half_close(got, want, dt):
    """A half-precision GPU result against the CPU's: same dtype and shape, values within a few
    units in the last place of the dtype (the two sum in float32 in different orders)."""
    assert got.device.type == "wgpu", f"result on {got.device}"
    assert got.dtype is want.dtype is dt and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    eps = 2.0 ** -10 if dt is rstorch.float16 else 2.0 ** -7
    g, w = got.cpu().detach().float().numpy(), want.detach().float().numpy()
    np.testing.assert_allclose(g, w, rtol=4 * eps, atol=4 * eps * max(1.0, float(np.abs(w).max(initial=0))))


@needs_gpu
@pytest.mark.parametrize("dt", [rstorch.float16, rstorch.bfloat16], ids=str)
def test_half_matmul_matches_cpu(dt):
    """mm, matmul (vector, broadcast batched), bmm, addmm and linear of float16 and bfloat16 on
    the GPU: float32 products rounded once to the dtype, as the CPU computes them; strided
    operands; gradients; and the CPU's errors for bad shapes and mixed dtypes."""
    rng = np.random.default_rng(7)

    def both(*shape, transpose=False):
        x = rstorch.tensor(rng.standard_normal(shape).astype(np.float32)).to(dt)
        if transpose:
            return x.transpose(-2, -1), x.to("wgpu").transpose(-2, -1)
        return x, x.to("wgpu")

    for _ in range(4):
        m, k, n, b = (int(v) for v in rng.integers(2, 40, size=4))
        a, ga = both(m, k)
        w, gw = both(n, k, transpose=True)  # a k x n view with swapped strides
        assert not gw.is_contiguous()
        _half_close(ga @ gw, a @ w, dt)
        _half_close(rstorch.mm(ga, gw), rstorch.mm(a, w), dt)
        v, gv = both(k)
        _half_close(ga @ gv, a @ v, dt)
        _half_close(gv @ gw, v @ w, dt)
        x, gx = both(b, m, k)
        y, gy = both(b, n, k, transpose=True)
        _half_close(rstorch.bmm(gx, gy), rstorch.bmm(x, y), dt)
        _half_close(gx @ gw, x @ w, dt)
        z, gz = both(3, 1, m, k)
        _half_close(gz @ gy, z @ y, dt)  # broadcast batch dims
        c, gc = both(n)
        _half_close(rstorch.addmm(gc, ga, gw, beta=0.5, alpha=2.0), rstorch.addmm(c, a, w, beta=0.5, alpha=2.0), dt)
        lw, glw = both(n, k)
        _half_close(F.linear(gx, glw, gc), F.linear(x, lw, c), dt)
        _half_close(F.linear(ga, glw), F.linear(a, lw), dt)
    # Empty dims: an empty product, or zeros when the summed dim is empty.
    for (m, k, n) in [(0, 3, 2), (2, 0, 3), (2, 3, 0)]:
        a, ga = both(m, k)
        w, gw = both(k, n)
        _half_close(ga @ gw, a @ w, dt)
    # Gradients of a linear layer.
    grads = {}
    for dev in ["cpu", "wgpu"]:
        rstorch.manual_seed(3)
        x = rstorch.randn(6, 5).to(dt).to(dev).requires_grad_()
        w = rstorch.randn(4, 5).to(dt).to(dev).requires_grad_()
        bias = rstorch.randn(4).to(dt).to(dev).requires_grad_()
        out = F.linear(x, w, bias)
        assert out.grad_fn is not None
        (out * out).sum().backward()
        grads[dev] = [x.grad, w.grad, bias.grad]
    for g, c in zip(grads["wgpu"], grads["cpu"]):
        _half_close(g, c, dt)
    # The CPU's errors.
    a = rstorch.ones(2, 3, dtype=dt)
    for fn, err in [(lambda t: t @ t, RuntimeError),
                    (lambda t: t @ t.float().t(), RuntimeError),
                    (lambda t: rstorch.bmm(t, t), RuntimeError),
                    (lambda t: rstorch.mm(t, t.t().unsqueeze(0)), RuntimeError)]:
        with pytest.raises(err) as want:
            fn(a)
        with pytest.raises(err) as got:
            fn(a.to("wgpu"))
        assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


# ----- autograd ------------------------------------------------------------------------------------

@needs_gpu
def test_backward_matches_cpu():
    grads = {}
    for dev in ["cpu", "wgpu"]:
        rstorch.manual_seed(0)
        a = rstorch.randn(3, 4, device=dev, requires_grad=True)
        b = rstorch.randn(3, 4, device=dev, requires_grad=True)
        c = rstorch.randn(4, device=dev, requires_grad=True)
        (a * b + c).sum().backward()
        for t in (a, b, c):
            assert t.grad.device.type == dev
        grads[dev] = [a.grad, b.grad, c.grad]
    for g, c in zip(grads["wgpu"], grads["cpu"]):
        close(g, c)


@needs_gpu
def test_backward_through_a_transfer():
    x = rstorch.randn(3, 2, requires_grad=True)
    y = (x.to("wgpu") * 3).tanh().mean()
    y.backward()
    assert x.grad.device.type == "cpu"
    assert y.grad_fn is not None and x.to("wgpu").grad_fn.name() == "ToCopyBackward0"
    want = rstorch.autograd.grad((x * 3).tanh().mean(), x)[0]
    np.testing.assert_allclose(x.grad.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@needs_gpu
def test_module_to_wgpu_trains_like_the_cpu():
    """A two-layer MLP with MSE, updated by hand, on both devices from the same start."""
    rstorch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    gnet = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    gnet.load_state_dict(net.state_dict())
    params = list(gnet.parameters())
    assert gnet.to("wgpu") is gnet
    assert [p is q for p, q in zip(params, gnet.parameters())] == [True] * 4
    assert all(p.device.type == "wgpu" and isinstance(p, nn.Parameter) for p in gnet.parameters())
    x, gx = pair(32, 6, seed=12)
    y, gy = pair(32, 1, seed=13)
    losses = {"cpu": [], "wgpu": []}
    for model, xs, ys, dev in [(net, x, y, "cpu"), (gnet, gx, gy, "wgpu")]:
        for _ in range(5):
            loss = F.mse_loss(model(xs), ys)
            model.zero_grad()
            loss.backward()
            with rstorch.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            losses[dev].append(loss.item())
    np.testing.assert_allclose(losses["wgpu"], losses["cpu"], rtol=1e-4)
    assert losses["wgpu"][-1] < losses["wgpu"][0]
    for p, q in zip(gnet.parameters(), net.parameters()):
        close(p, q)
    gnet.cpu()
    assert all(p.device.type == "cpu" for p in gnet.parameters())
    # Constructors' device= initialise on the CPU, then move.
    for m in [nn.Linear(3, 2, device="wgpu"), nn.Conv2d(1, 2, 3, device="wgpu"), nn.LayerNorm(4, device="wgpu"),
              nn.BatchNorm1d(3, device="wgpu"), nn.Embedding(5, 2, device="wgpu")]:
        assert all(t.device.type == "wgpu" for t in list(m.parameters()) + list(m.buffers())), m


@needs_gpu
def test_steady_state_allocates_no_buffers():
    w = rstorch.randn(32, 16, device="wgpu", requires_grad=True)
    x = rstorch.randn(8, 32, device="wgpu")

    def step():
        loss = (x @ w).relu().pow(2).mean()
        loss.backward()
        with rstorch.no_grad():
            w.sub_(0.01 * w.grad)
        w.grad = None
        return loss.item()

    for _ in range(2):
        step()
    before = rstorch.wgpu.memory_stats()["buffers_created"]
    for _ in range(5):
        step()
    stats = rstorch.wgpu.memory_stats()
    assert stats["buffers_created"] == before, stats
    assert stats["buffers_reused"] > 0


# ----- errors --------------------------------------------------------------------------------------

@needs_gpu
def test_mixed_devices_raise_pytorchs_error():
    a = rstorch.ones(2, 3)
    g = rstorch.ones(2, 3, device="wgpu")
    msg = "Expected all tensors to be on the same device, but found at least two devices"
    for fn in [lambda: a + g, lambda: g * a, lambda: g @ a.t(), lambda: rstorch.cat([g, a]),
               lambda: nn.Linear(3, 2)(g)]:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    # Zero-dim CPU tensors are scalars, allowed with any device (as in PyTorch).
    assert (g * rstorch.tensor(2.0)).device.type == "wgpu"


@needs_gpu
def test_ops_without_a_gpu_kernel_say_so():
    # Optimizer steps of float16 and bfloat16 parameters (which the CPU lacks as well).
    for dt in [rstorch.float16, rstorch.bfloat16]:
        p = nn.Parameter(rstorch.ones(3, dtype=dt, device="wgpu"))
        p.grad = rstorch.ones(3, dtype=dt, device="wgpu")
        with pytest.raises(NotImplementedError, match=f"'optimizer step' on {dt.__str__().split('.')[-1]}.*'wgpu' backend") as e:
            rstorch.optim.SGD([p], lr=0.1).step()
        assert isinstance(e.value, RuntimeError)
    with pytest.raises(RuntimeError, match="Invalid device ordinal wgpu:7"):
        rstorch.ones(2, device="wgpu:7")


# ----- every recorded parity case on the GPU ----------------------------------------------------------

PARITY = pathlib.Path(__file__).resolve().parent.parent / "parity"
CASES = json.loads((PARITY / "cases.json").read_text())["cases"]
FIXTURES = np.load(PARITY / "fixtures.npz")


def _flatten(out):
    if isinstance(out, rstorch.Tensor):
        return [out]
    return [t for o in out for t in _flatten(o)]


# Cases that still stop with NotImplementedError on wgpu, and why. Strict both ways: a listed
# case must raise it, every other case must run and match PyTorch.
NOT_ON_WGPU_YET = {}
if rstorch.wgpu.is_available() and not rstorch.wgpu.supports_float64():
    NOT_ON_WGPU_YET.update({
        "f64_chain": "float64 arithmetic (the adapter has no float64 shaders)",
        "mm_f64": "float64 arithmetic (the adapter has no float64 shaders)",
    })


def _parity_params():
    for c in CASES:
        marks = []
        if c["name"] in NOT_ON_WGPU_YET:
            marks.append(pytest.mark.xfail(raises=NotImplementedError, strict=True,
                                           reason=NOT_ON_WGPU_YET[c["name"]]))
        yield pytest.param(c, id=c["name"], marks=marks)


@needs_gpu
@pytest.mark.parametrize("case", list(_parity_params()))
def test_parity_case_on_wgpu(case):
    """Each case matches PyTorch on the GPU (outputs and gradients, tolerance floor 1e-3); the
    cases of NOT_ON_WGPU_YET stop with NotImplementedError naming an op the GPU lacks: never a
    wrong value, a crash or a result quietly computed elsewhere."""
    name = case["name"]
    fn = eval(case["fn"])
    inputs = [rstorch.tensor(FIXTURES[f"{name}/in{i}"], requires_grad=g, device="wgpu")
              for i, g in enumerate(case["requires_grad"])]
    # Tensors a case makes itself (torch.arange(4.0)) go to the GPU too.
    rstorch.set_default_device("wgpu")
    try:
        outs = _flatten(fn(rstorch, *inputs))
        loss = None
        for j, o in enumerate(outs):
            if f"{name}/cot{j}" in FIXTURES:
                term = (o * rstorch.tensor(FIXTURES[f"{name}/cot{j}"], device=o.device)).sum()
                loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
    finally:
        rstorch.set_default_device(None)
    rtol, atol = (max(t, TOL) for t in case["tol"])
    for j, o in enumerate(outs):
        assert o.device.type == "wgpu", f"output {j} on {o.device}"
        want = FIXTURES[f"{name}/out{j}"]
        got = o.detach().cpu().numpy()
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want, err_msg=f"output {j}")
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"output {j}")
    if loss is None:
        return
    grtol, gatol = (max(t, TOL) for t in case["grad_tol"])
    for i, g in enumerate(case["requires_grad"]):
        if g:
            grad = inputs[i].grad
            assert grad is not None and grad.device.type == "wgpu", f"grad of input {i}"
            np.testing.assert_allclose(grad.cpu().numpy(), FIXTURES[f"{name}/grad{i}"], rtol=grtol, atol=gatol,
                                       equal_nan=True, err_msg=f"grad of input {i}")
