"""The wgpu backend's fused softmax and log_softmax (and the half-precision kernels around them)
against the CPU: values, gradients, strided inputs and the buffers they allocate.

Tests that need an adapter skip when `rstorch.wgpu.is_available()` is False."""

import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F

from _wgpu_helpers import _half_close, close, close64, needs_f64, needs_gpu, pair64, same


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
