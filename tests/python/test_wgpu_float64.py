"""The wgpu backend's float64 kernels (where the adapter has them) against the CPU: special values,
large trigonometric arguments, reductions, optimizers and autograd in float64.

Tests that need an adapter skip when `rstorch.wgpu.is_available()` is False."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F

from _wgpu_helpers import DTYPES, UNARY, close, close64, needs_f64, needs_gpu, pair, pair64, same


# ----- float64 ---------------------------------------------------------------------------------------

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
