"""layer_norm and batch_norm on the wgpu backend: fused kernels each way, against the CPU's fused
kernels (outputs and the gradients of input, weight and bias), with the CPU's nodes, the same
bits on every run, the data kept on the device, and PyTorch's error for mixed devices.

The whole module skips when `rstorch.wgpu.is_available()` is False (CI runs it on lavapipe).
"""
import copy

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F

pytestmark = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")

# float32: results within 1e-5 of the CPU's, relative to the largest value compared (the GPU sums
# in another order, and its sqrt and division may round differently).
TOL = 1e-5
# Half types compute in float32 and round once: a few of their ulps.
HALF_TOL = {rstorch.float16: 4e-3, rstorch.bfloat16: 3e-2}


def close(got, want, tol=TOL):
    assert got.device.type == "wgpu", f"result on {got.device}"
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    g = got.detach().cpu().float().numpy()
    w = want.detach().float().numpy()
    scale = max(float(np.abs(w).max()) if w.size else 0.0, 1.0)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale)


def bits(t):
    return t.detach().cpu().float().numpy().tobytes()


def rand(rng, *shape, scale=1.0, shift=0.0):
    return (rng.standard_normal(shape) * scale + shift).astype(np.float32)


def readbacks():
    return rstorch.wgpu.memory_stats()["read_backs"]


# ----- layer_norm ------------------------------------------------------------------------------------

def _layer_norm_run(dev, data, normalized, w, b, cot, dtype, view):
    """layer_norm of `view(data)` on `dev`: the output and the gradients of x, weight and bias
    from the output gradient `cot` (given in the output's layout transposed when `view` is)."""
    x = rstorch.tensor(data).to(dtype).to(dev).requires_grad_()
    weight = None if w is None else rstorch.tensor(w).to(dtype).to(dev).requires_grad_()
    bias = None if b is None else rstorch.tensor(b).to(dtype).to(dev).requires_grad_()
    y = F.layer_norm(view(x), normalized, weight, bias, eps=1e-5)
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    leaves = [t for t in (x, weight, bias) if t is not None]
    grads = rstorch.autograd.grad(y, leaves, rstorch.tensor(cot).to(dtype).to(dev))
    return y, grads


LAYER_CASES = [
    # (input shape, normalized shape)
    ((4, 7), (7,)),
    ((2, 3, 5, 6), (5, 6)),
    ((3, 3000), (3000,)),  # rows longer than a workgroup
    ((5, 1), (1,)),  # rows of one element
    ((6, 257), (257,)),
    ((2, 2, 300), (2, 300)),
    ((10, 20, 48), (48,)),  # the weight's and bias's gradients sum chunks of rows, the last short
    ((70, 3), (3,)),
]


@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("shape,normalized", LAYER_CASES, ids=str)
def test_layer_norm_matches_the_cpu(shape, normalized, affine):
    rng = np.random.default_rng(sum(shape))
    data = rand(rng, *shape, scale=3.0, shift=1.5)
    w = rand(rng, *normalized) if affine in ("both", "weight") else None
    b = rand(rng, *normalized) if affine in ("both", "bias") else None
    cot = rand(rng, *shape)
    out = {dev: _layer_norm_run(dev, data, normalized, w, b, cot, rstorch.float32, lambda t: t) for dev in ["cpu", "wgpu"]}
    (y, grads), (y_cpu, grads_cpu) = out["wgpu"], out["cpu"]
    assert y.is_contiguous()
    close(y, y_cpu)
    assert len(grads) == len(grads_cpu)
    for g, want in zip(grads, grads_cpu):
        close(g, want)


@pytest.mark.parametrize("shape", [(0, 5), (2, 0, 5)], ids=str)
def test_norms_of_empty_batches(shape):
    """No rows: empty outputs, and zero gradients for the weight and bias (written, not left as
    whatever the pooled buffers held)."""
    for dev in ["wgpu", "cpu"]:
        # Dirty the pool with buffers of the gradients' size first.
        rstorch.full((5,), 7.0, device=dev).exp()
        x = rstorch.zeros(shape, device=dev, requires_grad=True)
        w, b = rstorch.ones(5, device=dev, requires_grad=True), rstorch.ones(5, device=dev, requires_grad=True)
        y = F.layer_norm(x, (5,), w, b)
        assert tuple(y.shape) == shape
        dx, dw, db = rstorch.autograd.grad(y, [x, w, b], rstorch.ones(shape, device=dev))
        assert tuple(dx.shape) == shape
        assert dw.cpu().tolist() == [0.0] * 5 and db.cpu().tolist() == [0.0] * 5


def test_layer_norm_of_non_contiguous_input_and_gradient():
    rng = np.random.default_rng(3)
    data = rand(rng, 300, 2, 5, scale=2.0)  # viewed as (5, 2, 300): every dim strided
    w, b = rand(rng, 300), rand(rng, 300)
    cot = rand(rng, 300, 2, 5)
    view = lambda t: t.permute(2, 1, 0)  # noqa: E731
    results = {}
    for dev in ["cpu", "wgpu"]:
        x = rstorch.tensor(data).to(dev).requires_grad_()
        weight, bias = rstorch.tensor(w).to(dev).requires_grad_(), rstorch.tensor(b).to(dev).requires_grad_()
        assert not view(x).is_contiguous()
        y = F.layer_norm(view(x), (300,), weight, bias)
        g = rstorch.tensor(cot).to(dev).permute(2, 1, 0)
        assert not g.is_contiguous()
        results[dev] = (y, rstorch.autograd.grad(y, [x, weight, bias], g))
    close(results["wgpu"][0], results["cpu"][0])
    for g, want in zip(results["wgpu"][1], results["cpu"][1]):
        close(g, want)


@pytest.mark.parametrize("dt", [rstorch.float16, rstorch.bfloat16], ids=str)
def test_layer_norm_half_precision(dt):
    rng = np.random.default_rng(11)
    data, w, b, cot = rand(rng, 6, 300, scale=2.0), rand(rng, 300), rand(rng, 300), rand(rng, 6, 300)
    out = {dev: _layer_norm_run(dev, data, (300,), w, b, cot, dt, lambda t: t) for dev in ["cpu", "wgpu"]}
    close(out["wgpu"][0], out["cpu"][0], tol=HALF_TOL[dt])
    for g, want in zip(out["wgpu"][1], out["cpu"][1]):
        assert g.dtype is dt
        close(g, want, tol=HALF_TOL[dt])


def test_layer_norm_is_deterministic():
    rng = np.random.default_rng(5)
    data, w, b, cot = rand(rng, 64, 3000, scale=4.0, shift=2.0), rand(rng, 3000), rand(rng, 3000), rand(rng, 64, 3000)
    runs = [_layer_norm_run("wgpu", data, (3000,), w, b, cot, rstorch.float32, lambda t: t) for _ in range(2)]
    assert bits(runs[0][0]) == bits(runs[1][0])
    for g0, g1 in zip(runs[0][1], runs[1][1]):
        assert bits(g0) == bits(g1)


def test_layer_norm_statistics_are_accurate_for_a_large_mean():
    """Two passes (mean, then squared deviations): an offset of 1e4 does not cancel the
    variance of unit-scale data away."""
    rng = np.random.default_rng(8)
    data = rand(rng, 4, 1000, shift=1e4)
    x = rstorch.tensor(data)
    close(F.layer_norm(x.to("wgpu"), (1000,)), F.layer_norm(x, (1000,)), tol=2e-3)
    ref = (data - data.astype(np.float64).mean(1, keepdims=True)) / data.astype(np.float64).std(1, keepdims=True)
    np.testing.assert_allclose(F.layer_norm(x.to("wgpu"), (1000,)).cpu().numpy(), ref, atol=2e-3)


# ----- batch_norm ------------------------------------------------------------------------------------

def _batch_norm_run(dev, data, affine, training, running, cot, dtype=rstorch.float32, view=lambda t: t):
    """batch_norm of `view(data)` on `dev`: output, gradients of (x, weight, bias) and the running
    statistics after the call (None when not given)."""
    channels = view(rstorch.tensor(data)).shape[1]
    rng = np.random.default_rng(channels)
    x = rstorch.tensor(data).to(dtype).to(dev).requires_grad_()
    weight = bias = None
    if affine:
        weight = rstorch.tensor(rand(rng, channels)).to(dtype).to(dev).requires_grad_()
        bias = rstorch.tensor(rand(rng, channels)).to(dtype).to(dev).requires_grad_()
    rm = rv = None
    if running:
        rm = rstorch.tensor(rand(rng, channels)).to(dtype).to(dev)
        rv = rstorch.tensor(np.abs(rand(rng, channels)) + 0.5).to(dtype).to(dev)
    y = F.batch_norm(view(x), rm, rv, weight, bias, training=training, momentum=0.1, eps=1e-5)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    leaves = [t for t in (x, weight, bias) if t is not None]
    grads = rstorch.autograd.grad(y, leaves, rstorch.tensor(cot).to(dtype).to(dev))
    return y, grads, (rm, rv)


# (2, 3, 3000) sums each channel in 3 chunks, the last short; (3, 2, 20, 80) in 5.
BATCH_SHAPES = [(8, 3), (4, 3, 5, 6), (2, 3, 3000), (3, 4, 1), (2, 1, 2, 2), (5, 300, 2), (3, 2, 20, 80)]


# (training, running statistics given): evaluation needs them.
MODES = [(True, True), (True, False), (False, True)]


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("training,running", MODES, ids=["train", "train_no_running", "eval"])
@pytest.mark.parametrize("shape", BATCH_SHAPES, ids=str)
def test_batch_norm_matches_the_cpu(shape, training, running, affine):
    rng = np.random.default_rng(sum(shape) + training)
    data = rand(rng, *shape, scale=2.0, shift=-1.0)
    cot = rand(rng, *shape)
    out = {dev: _batch_norm_run(dev, data, affine, training, running, cot) for dev in ["cpu", "wgpu"]}
    (y, grads, stats), (y_cpu, grads_cpu, stats_cpu) = out["wgpu"], out["cpu"]
    close(y, y_cpu)
    assert len(grads) == len(grads_cpu)
    for g, want in zip(grads, grads_cpu):
        close(g, want)
    if running:
        for s, want in zip(stats, stats_cpu):
            close(s, want)


def test_batch_norm_in_evaluation_with_one_value_per_channel():
    rng = np.random.default_rng(2)
    data, cot = rand(rng, 1, 5), rand(rng, 1, 5)
    out = {dev: _batch_norm_run(dev, data, True, False, True, cot) for dev in ["cpu", "wgpu"]}
    close(out["wgpu"][0], out["cpu"][0])
    for g, want in zip(out["wgpu"][1], out["cpu"][1]):
        close(g, want)


def test_batch_norm_of_channels_last_input():
    """A non-contiguous (N, C, H, W) view of channels-last data, and a permuted gradient."""
    rng = np.random.default_rng(4)
    data, cot = rand(rng, 3, 4, 5, 6, scale=3.0), rand(rng, 3, 4, 5, 6)
    view = lambda t: t.permute(0, 3, 1, 2)  # noqa: E731
    out = {}
    for dev in ["cpu", "wgpu"]:
        x = rstorch.tensor(data).to(dev).requires_grad_()
        w, b = rstorch.ones(6, device=dev).mul(1.5).requires_grad_(), rstorch.zeros(6, device=dev).add(0.25).requires_grad_()
        rm, rv = rstorch.zeros(6, device=dev), rstorch.ones(6, device=dev)
        assert not view(x).is_contiguous()
        y = F.batch_norm(view(x), rm, rv, w, b, training=True)
        out[dev] = (y, rstorch.autograd.grad(y, [x, w, b], rstorch.tensor(cot).to(dev).permute(0, 3, 1, 2)), rm, rv)
    close(out["wgpu"][0], out["cpu"][0])
    for g, want in zip(out["wgpu"][1], out["cpu"][1]):
        close(g, want)
    close(out["wgpu"][2], out["cpu"][2])
    close(out["wgpu"][3], out["cpu"][3])


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dt", [rstorch.float16, rstorch.bfloat16], ids=str)
def test_batch_norm_half_precision(dt, training):
    rng = np.random.default_rng(12)
    data, cot = rand(rng, 4, 3, 8, 8, scale=2.0), rand(rng, 4, 3, 8, 8)
    out = {dev: _batch_norm_run(dev, data, True, training, True, cot, dtype=dt) for dev in ["cpu", "wgpu"]}
    close(out["wgpu"][0], out["cpu"][0], tol=HALF_TOL[dt])
    for g, want in zip(out["wgpu"][1], out["cpu"][1]):
        assert g.dtype is dt
        close(g, want, tol=HALF_TOL[dt])


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_is_deterministic(training):
    rng = np.random.default_rng(6)
    data, cot = rand(rng, 16, 8, 20, 20, scale=3.0, shift=5.0), rand(rng, 16, 8, 20, 20)
    runs = [_batch_norm_run("wgpu", data, True, training, True, cot) for _ in range(2)]
    assert bits(runs[0][0]) == bits(runs[1][0])
    for g0, g1 in zip(runs[0][1], runs[1][1]):
        assert bits(g0) == bits(g1)
    for s0, s1 in zip(runs[0][2], runs[1][2]):
        assert bits(s0) == bits(s1)


def test_batch_norm_input_gradient_only_and_parameter_gradients_only():
    """The backward kernel with and without the input's gradient."""
    rng = np.random.default_rng(9)
    data, cot = rand(rng, 4, 3, 7), rand(rng, 4, 3, 7)
    for pick in [lambda x, w, b: [x], lambda x, w, b: [w, b], lambda x, w, b: [b]]:
        got = {}
        for dev in ["cpu", "wgpu"]:
            x = rstorch.tensor(data).to(dev).requires_grad_()
            w = rstorch.tensor(rand(np.random.default_rng(1), 3)).to(dev).requires_grad_()
            b = rstorch.zeros(3, device=dev).requires_grad_()
            y = F.batch_norm(x, None, None, w, b, training=True)
            got[dev] = rstorch.autograd.grad(y, pick(x, w, b), rstorch.tensor(cot).to(dev))
        for g, want in zip(got["wgpu"], got["cpu"]):
            close(g, want)


# ----- the fused path: on the device, few buffers, same nodes ---------------------------------------

def test_forward_and_backward_stay_on_the_device():
    rng = np.random.default_rng(10)
    x = rstorch.tensor(rand(rng, 4, 3, 6, 6)).to("wgpu").requires_grad_()
    w, b = rstorch.ones(6, device="wgpu", requires_grad=True), rstorch.zeros(6, device="wgpu", requires_grad=True)
    bw, bb = rstorch.ones(3, device="wgpu", requires_grad=True), rstorch.zeros(3, device="wgpu", requires_grad=True)
    rm, rv = rstorch.zeros(3, device="wgpu"), rstorch.ones(3, device="wgpu")
    rstorch.wgpu.synchronize()
    before = readbacks()
    y = F.layer_norm(x, (6,), w, b)
    z = F.batch_norm(y, rm, rv, bw, bb, training=True)
    z = F.batch_norm(z, rm, rv, bw, bb, training=False)
    (z * z).sum().backward()
    rstorch.wgpu.synchronize()
    assert readbacks() == before, "layer_norm / batch_norm read device data back to the host"
    assert x.grad.device.type == "wgpu" and w.grad.device.type == "wgpu" and bw.grad.device.type == "wgpu"
    # The counter does count reads (the check above can fail).
    x.grad.cpu()
    assert readbacks() > before


def test_forward_allocates_only_its_outputs():
    """The fused forward allocates its output and statistics, where a composed one would
    allocate every intermediate (batch norm's chunk sums share the variance's buffer)."""
    x = rstorch.ones(8, 300, device="wgpu").requires_grad_()
    w, b = rstorch.ones(300, device="wgpu"), rstorch.zeros(300, device="wgpu")

    def requests():
        s = rstorch.wgpu.memory_stats()
        return s["buffers_created"] + s["buffers_reused"]

    before = requests()
    F.layer_norm(x, (300,), w, b)
    assert requests() - before == 3
    before = requests()
    F.batch_norm(x, None, None, w, b, training=True)
    # out, mean, rstd and variance
    assert requests() - before == 4


def test_nodes_match_the_cpu():
    def nexts(t):
        return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]

    seen = {}
    for dev in ["cpu", "wgpu"]:
        x = rstorch.ones(3, 4, device=dev, requires_grad=True)
        w = rstorch.ones(4, device=dev, requires_grad=True)
        y = F.layer_norm(x, (4,), w, None)
        z = F.batch_norm(x, None, None, None, w, training=True)
        assert y.grad_fn.name() == "NativeLayerNormBackward0" and z.grad_fn.name() == "NativeBatchNormBackward0"
        seen[dev] = (nexts(y), nexts(z))
    assert seen["wgpu"] == seen["cpu"]
    assert seen["wgpu"][0][:2] == ["AccumulateGrad", "AccumulateGrad"]


def test_mixed_devices_raise_pytorchs_error():
    x = rstorch.ones(2, 3, device="wgpu")
    w = rstorch.ones(3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        F.layer_norm(x, (3,), w)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        rstorch._C._layer_norm(x, 1, w, None, 1e-5)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        F.batch_norm(x, rstorch.zeros(3), rstorch.ones(3), training=False)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        rstorch._C._batch_norm(x, None, None, rstorch.zeros(3), rstorch.ones(3), False, 1e-5)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        rstorch._C._batch_norm(x.cpu(), rstorch.ones(3, device="wgpu"), None, None, None, True, 1e-5)


def test_second_derivatives_match_the_cpu():
    """create_graph: the gradients are differentiable tensor ops on the device too."""
    rng = np.random.default_rng(13)
    data, w = rand(rng, 4, 3, 5), rand(rng, 3)
    second = {}
    for dev in ["cpu", "wgpu"]:
        x = rstorch.tensor(data).to(dev).requires_grad_()
        weight = rstorch.tensor(w).to(dev).requires_grad_()
        y = F.batch_norm(x, None, None, weight, None, training=True)
        z = F.layer_norm(x, (5,))
        (gx, gw) = rstorch.autograd.grad((y * y * y).sum() + (z * z * z).sum(), [x, weight], create_graph=True)
        second[dev] = rstorch.autograd.grad(gx.pow(2).sum() + gw.pow(2).sum(), [x, weight])
    for g, want in zip(second["wgpu"], second["cpu"]):
        close(g, want, tol=1e-4)


needs_f64 = pytest.mark.skipif(not (rstorch.wgpu.is_available() and rstorch.wgpu.supports_float64()), reason="no float64 on the adapter")


def close64(got, want, tol=1e-12):
    """float64 results: dtype kept, values within `tol` of the CPU's relative to the largest."""
    assert got.dtype is rstorch.float64 and got.device.type == "wgpu"
    g, w = got.detach().cpu().numpy(), want.detach().numpy()
    scale = max(float(np.abs(w).max()) if w.size else 0.0, 1.0)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale)


@needs_f64
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("shape", [(4, 3, 5), (3, 2, 20, 80), (6, 1)], ids=str)
def test_float64_runs_the_fused_kernels_in_float64(shape, training):
    """float64 layer and batch norm: the fused kernels computing in float64, within 1e-12 of
    the CPU (far tighter than float32 could be), the statistics kept in float64."""
    rng = np.random.default_rng(14)
    data = (rng.standard_normal(shape) * 3 + 1e3)
    cot = rng.standard_normal(shape)
    normalized = shape[1:]
    w = rng.standard_normal(normalized)
    lay = {dev: _layer_norm_run(dev, data, normalized, w, None, cot, rstorch.float64, lambda t: t) for dev in ["cpu", "wgpu"]}
    bat = {dev: _batch_norm_run(dev, data, True, training, True, cot, dtype=rstorch.float64) for dev in ["cpu", "wgpu"]}
    for out in (lay, bat):
        close64(out["wgpu"][0], out["cpu"][0])
        assert len(out["wgpu"][1]) == len(out["cpu"][1])
        for g, want in zip(out["wgpu"][1], out["cpu"][1]):
            close64(g, want, tol=1e-10)
    for s, want in zip(bat["wgpu"][2], bat["cpu"][2]):
        close64(s, want)



@needs_f64
def test_float64_gradcheck_on_the_gpu():
    """The fused float64 kernels' gradients against finite differences (PyTorch's defaults),
    with a transposed input and a broadcast weight."""
    rng = np.random.default_rng(18)

    def leaf(*shape):
        return rstorch.tensor(rng.standard_normal(shape), device="wgpu").requires_grad_()

    x, w, b = leaf(5, 4, 3), leaf(4), leaf(4)
    assert rstorch.autograd.gradcheck(lambda x, w, b: F.layer_norm(x.transpose(1, 2), (4,), w, b), (x, w, b))
    assert rstorch.autograd.gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))
    rm, rv = rstorch.zeros(4, dtype=rstorch.float64, device="wgpu"), rstorch.ones(4, dtype=rstorch.float64, device="wgpu")
    assert rstorch.autograd.gradcheck(lambda x, w: F.batch_norm(x, rm, rv, w.expand(4), None, training=False), (x, leaf(1)))

@needs_f64
def test_float64_forward_allocates_only_its_outputs():
    x = rstorch.ones(8, 300, dtype=rstorch.float64, device="wgpu")

    def requests():
        s = rstorch.wgpu.memory_stats()
        return s["buffers_created"] + s["buffers_reused"]

    before = requests()
    F.layer_norm(x, (300,))
    assert requests() - before == 3
    before = requests()
    F.batch_norm(x, None, None, training=True)
    assert requests() - before == 4


# ----- batch norm over few channels of many elements ---------------------------------------------------

def test_batch_norm_of_one_channel_of_many_chunks():
    """One channel of 600,000 elements: 293 chunk sums, more than a workgroup's threads, folded
    in order; mean, variance and gradients as on the CPU, the same bits on every run."""
    rng = np.random.default_rng(17)
    data, cot = rand(rng, 3, 1, 200_000, scale=2.0, shift=4.0), rand(rng, 3, 1, 200_000)
    runs = [_batch_norm_run(dev, data, True, True, True, cot) for dev in ["cpu", "wgpu", "wgpu"]]
    (y_cpu, grads_cpu, stats_cpu), (y, grads, stats), (y2, grads2, _) = runs
    close(y, y_cpu)
    for g, want in zip(grads, grads_cpu):
        close(g, want, tol=1e-4)
    for s, want in zip(stats, stats_cpu):
        close(s, want)
    assert bits(y) == bits(y2)
    for g0, g1 in zip(grads, grads2):
        assert bits(g0) == bits(g1)


# ----- modules ---------------------------------------------------------------------------------------

def _train_step(model, x, target, dev):
    model = copy.deepcopy(model).to(dev)
    opt = rstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = F.mse_loss(model(x.to(dev)), target.to(dev))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return model, loss


def test_layer_norm_module_trains_a_step_as_on_the_cpu():
    rstorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 300), nn.LayerNorm(300), nn.ReLU(), nn.Linear(300, 4))
    rng = np.random.default_rng(15)
    x, target = rstorch.tensor(rand(rng, 16, 8)), rstorch.tensor(rand(rng, 16, 4))
    gpu, loss_gpu = _train_step(model, x, target, "wgpu")
    cpu, loss_cpu = _train_step(model, x, target, "cpu")
    close(loss_gpu, loss_cpu, tol=1e-5)
    for p, q in zip(gpu.parameters(), cpu.parameters()):
        close(p, q, tol=1e-5)


def test_batch_norm_module_trains_a_step_as_on_the_cpu():
    rstorch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
    rng = np.random.default_rng(16)
    x, target = rstorch.tensor(rand(rng, 5, 3, 6, 6)), rstorch.tensor(rand(rng, 5, 2))
    gpu, loss_gpu = _train_step(model, x, target, "wgpu")
    cpu, loss_cpu = _train_step(model, x, target, "cpu")
    close(loss_gpu, loss_cpu, tol=1e-5)
    for p, q in zip(gpu.parameters(), cpu.parameters()):
        close(p, q, tol=1e-5)
    bn_gpu, bn_cpu = gpu[1], cpu[1]
    close(bn_gpu.running_mean, bn_cpu.running_mean)
    close(bn_gpu.running_var, bn_cpu.running_var)
    assert int(bn_gpu.num_batches_tracked) == int(bn_cpu.num_batches_tracked) == 1
    # Evaluation uses the running statistics on both.
    gpu.eval(), cpu.eval()
    close(gpu(x.to("wgpu")), cpu(x))
