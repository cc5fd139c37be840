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

from _wgpu_helpers import DTYPES, TOL, UNARY, close, close_in, launched, needs_gpu, pair, pair_in, same


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
    # `cuda` is PyTorch's name for the GPU (test_cuda.py); the other PyTorch device types are not
    # rstorch's.
    with pytest.raises(RuntimeError, match="'wgpu'"):
        rstorch.device("mps")
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
def test_tril_and_triu_stay_on_the_device():
    x, g = pair(4, 6, seed=3)
    for k in (-1, 0, 2):
        for out, want in ((g.tril(k), x.tril(k)), (g.triu(k), x.triu(k))):
            assert out.device.type == "wgpu"
            close(out, want)


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
