"""Index ops on the GPU whose indices never leave it: scatter_add, index_add, advanced indexing
(`x[idx]`, `x[idx] = v`), take, and the gradients of gathers and of max pooling. Each is checked
against the CPU (bitwise where the CPU sums in the same order) and against the device's
read-back counter: at most a word per index tensor (the range check's flag) comes back, never
the indices themselves.

Skips when `rstorch.wgpu.is_available()` is False; CI runs it on Mesa's lavapipe.
"""
import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F

needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")
pytestmark = needs_gpu


def same(got, want):
    assert got.device.type == "wgpu", f"result on {got.device}"
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.cpu().detach().numpy(), want.detach().numpy())


def read_back(fn):
    """fn's result and the bytes the device read back to the host while running it."""
    before = rstorch.wgpu.memory_stats()["bytes_read_back"]
    out = fn()
    rstorch.wgpu.synchronize()
    return out, rstorch.wgpu.memory_stats()["bytes_read_back"] - before


def test_read_back_counter_counts_reads():
    g = rstorch.arange(1000, dtype=rstorch.float32, device="wgpu")
    _, n = read_back(lambda: g.cpu())
    assert n == 4000
    _, n = read_back(lambda: g * 2)
    assert n == 0


@pytest.mark.parametrize("seed", range(3))
def test_scatter_add_and_index_add_follow_device_indices(seed):
    """Many repeated targets: the device sums each target's values in index order, as the CPU
    does, so the results are bitwise the CPU's; only the range flag comes back."""
    rng = np.random.default_rng(seed)
    x = rstorch.tensor(rng.standard_normal((50, 6)).astype(np.float32))
    idx = rstorch.tensor(rng.integers(0, 50, (4000, 6)))
    src = rstorch.tensor(rng.standard_normal((4000, 6)).astype(np.float32))
    g, gi, gs = x.to("wgpu"), idx.to("wgpu"), src.to("wgpu")
    got, n = read_back(lambda: g.scatter_add(0, gi, gs))
    same(got, x.scatter_add(0, idx, src))
    assert n <= 4
    rows = rstorch.tensor(rng.integers(-0, 50, 3000))
    rsrc = rstorch.tensor(rng.standard_normal((3000, 6)).astype(np.float32))
    got, n = read_back(lambda: g.index_add(0, rows.to("wgpu"), rsrc.to("wgpu"), alpha=0.5))
    same(got, x.index_add(0, rows, rsrc, alpha=0.5))
    assert n <= 4
    # Along an inner dim, a strided index, integers (exact in int64) and float64.
    cols = rstorch.tensor(rng.integers(0, 6, 40))[::2]
    csrc = rstorch.tensor(rng.standard_normal((50, 20)).astype(np.float32))
    same(g.index_add(1, cols.to("wgpu"), csrc.to("wgpu")), x.index_add(1, cols, csrc))
    ints = rstorch.tensor(rng.integers(-9, 9, (50, 6)))
    same(ints.to("wgpu").scatter_add(0, gi, ints.to("wgpu")[:1].expand(4000, 6).contiguous()),
         ints.scatter_add(0, idx, ints[:1].expand(4000, 6).contiguous()))
    if rstorch.wgpu.supports_float64():
        x64, s64 = x.double(), src.double()
        same(x64.to("wgpu").scatter_add(0, gi, s64.to("wgpu")), x64.scatter_add(0, idx, s64))


def test_scatter_add_and_index_add_raise_the_cpu_errors():
    x = rstorch.zeros(5, 4)
    g = x.to("wgpu")
    for bad in [rstorch.tensor([[0, 7, 1, 1]]), rstorch.tensor([[0, -1, 1, 1]])]:
        with pytest.raises(IndexError) as want:
            x.scatter_add(0, bad, rstorch.ones(1, 4))
        with pytest.raises(type(want.value), match=str(want.value)):
            g.scatter_add(0, bad.to("wgpu"), rstorch.ones(1, 4, device="wgpu"))
    for bad in [rstorch.tensor([0, 5]), rstorch.tensor([-1, 0])]:
        with pytest.raises(IndexError) as want:
            x.index_add(0, bad, rstorch.ones(2, 4))
        with pytest.raises(type(want.value), match=str(want.value)):
            g.index_add(0, bad.to("wgpu"), rstorch.ones(2, 4, device="wgpu"))


INDEXES = [
    lambda t: (t([0, 4, -1, 2, 2]),),
    lambda t: (t([[0, -5], [3, 3]]), slice(None), t([1, -1])),
    lambda t: (slice(None), t([1, 1, 5, -6])),
    lambda t: (slice(1, 4), t([0, 2]), t([[6], [1], [0]])),
    lambda t: (t([1, 3]), 2),
    lambda t: (Ellipsis, t([0, 6, 6])),
]


@pytest.mark.parametrize("which", range(len(INDEXES)))
def test_advanced_indexing_on_the_device(which):
    """Reads, number and tensor writes (repeated positions: the last write wins, as on the CPU)
    and gradients through both, on contiguous and strided tensors."""
    rng = np.random.default_rng(which)
    data = rng.standard_normal((5, 6, 7)).astype(np.float32)
    for strided in [False, True]:
        x = rstorch.tensor(data)
        if strided:
            x = x.transpose(0, 1).contiguous().transpose(0, 1)
        g = x.to("wgpu")
        if strided:
            g = g.transpose(0, 1).contiguous().transpose(0, 1)
        ix = INDEXES[which](rstorch.tensor)
        gx = INDEXES[which](lambda v: rstorch.tensor(v, device="wgpu"))
        got, n = read_back(lambda: g[gx])
        same(got, x[ix])
        assert n <= 8 * len(gx)
        y, gy = x.clone(), g.clone()
        y[ix] = 3.5
        gy[gx] = 3.5
        same(gy, y)
        v = rstorch.tensor(rng.standard_normal(x[ix].shape).astype(np.float32))
        y[ix] = v
        _, n = read_back(lambda: gy.__setitem__(gx, v.to("wgpu")))
        same(gy, y)
        assert n <= 8 * len(gx)
    # Gradients: through the read, and through a write into a non-leaf.
    grads = {}
    for dev in ["cpu", "wgpu"]:
        a = rstorch.tensor(data, device=dev, requires_grad=True)
        v = rstorch.tensor(rng.standard_normal(x[ix].shape).astype(np.float32), device=dev, requires_grad=True)
        w = rstorch.arange(a.numel(), dtype=rstorch.float32, device=dev).reshape(a.shape)
        idx = INDEXES[which](lambda t: rstorch.tensor(t, device=dev))
        read = a[idx]
        assert read.grad_fn.name() == "IndexBackward0"
        c = a * 1
        c[idx] = v * 2
        ((read * read).sum() + (c * w).sum()).backward()
        grads[dev] = (a.grad, v.grad, c.grad_fn.name())
    assert grads["wgpu"][2] == grads["cpu"][2]
    np.testing.assert_allclose(grads["wgpu"][0].cpu().numpy(), grads["cpu"][0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(grads["wgpu"][1].cpu().numpy(), grads["cpu"][1].numpy(), rtol=1e-6)


def test_writes_through_views_and_errors():
    """A write through a view's index records CopySlices as on the CPU; indices out of range
    raise the CPU's error."""
    for dev in ["cpu", "wgpu"]:
        a = rstorch.arange(18.0, device=dev).reshape(3, 6).requires_grad_()
        c = a * 1
        c[1][rstorch.tensor([0, 2, 2], device=dev)] = 7.0
        assert c.grad_fn.name() == "torch::autograd::CopySlices"
        (c * c).sum().backward()
        if dev == "cpu":
            want = a.grad
        else:
            same(a.grad, want)
    x = rstorch.zeros(4, 5)
    g = x.to("wgpu")
    for ix in [(rstorch.tensor([4]),), (slice(None), rstorch.tensor([0, -6])), (rstorch.tensor([0]), rstorch.tensor([9]))]:
        gx = tuple(t.to("wgpu") if isinstance(t, rstorch.Tensor) else t for t in ix)
        with pytest.raises(IndexError) as want:
            x[ix]
        with pytest.raises(IndexError, match=str(want.value)):
            g[gx]
        with pytest.raises(IndexError) as want:
            x[ix] = 1.0
        with pytest.raises(IndexError, match=str(want.value)):
            g[gx] = 1.0


def test_take_on_the_device():
    x = rstorch.tensor(np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32))
    g = x.to("wgpu")
    idx = rstorch.tensor([[0, -1, 7], [23, 3, 3]])
    got, n = read_back(lambda: g.t().take(idx.to("wgpu")))
    same(got, x.t().take(idx))
    assert n <= 8
    grads = []
    for dev in ["cpu", "wgpu"]:
        a = x.detach().to(dev).requires_grad_()
        (a.t().take(idx.to(dev)) * 3).sum().backward()
        grads.append(a.grad)
    same(grads[1], grads[0])
    with pytest.raises(IndexError) as want:
        x.take(rstorch.tensor([24]))
    with pytest.raises(IndexError, match=str(want.value)):
        g.take(rstorch.tensor([24], device="wgpu"))


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1), dict(kernel_size=3, stride=2, dilation=2)])
def test_max_pool_gradient_stays_on_the_device(kw):
    """The maxima's positions feed the backward on the device (overlapping windows sum into
    one input element in order, bitwise as the CPU's); nothing is read back."""
    x = rstorch.tensor(np.random.default_rng(1).standard_normal((2, 3, 11, 11)).astype(np.float32))
    grads = []
    for dev in ["cpu", "wgpu"]:
        a = x.detach().to(dev).requires_grad_()

        def step():
            out = F.max_pool2d(a, **kw)
            assert out.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
            (out * out).sum().backward()

        _, n = read_back(step)
        if dev == "wgpu":
            assert n == 0
        grads.append(a.grad)
    same(grads[1], grads[0])


def test_gather_gradients_sum_in_order():
    """The backward of index_select and gather (index_add / scatter_add on the device) matches
    the CPU bitwise with many repeated indices, and reads nothing back."""
    rng = np.random.default_rng(7)
    w = rstorch.tensor(rng.standard_normal((30, 8)).astype(np.float32))
    rows = rstorch.tensor(rng.integers(0, 30, 2000))
    grads = []
    for dev in ["cpu", "wgpu"]:
        a = w.detach().to(dev).requires_grad_()
        r = rows.to(dev)
        out = a.index_select(0, r) * rstorch.arange(8.0, device=dev)
        out2 = a.gather(0, r[:240].reshape(30, 8))
        loss = out.sum() + (out2 * out2).sum()
        _, n = read_back(loss.backward)
        # The forward pass checked the indices: the backward does not read them again.
        assert n == 0
        grads.append(a.grad)
    same(grads[1], grads[0])


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5), (600, 300)])
def test_nonzero_and_masks_on_the_device(shape):
    """nonzero ranks the non-zero elements with a running count on the device: only the count
    (the result's shape) comes back, not the tensor; masks index and select through it."""
    rng = np.random.default_rng(len(shape))
    data = rng.standard_normal(shape).astype(np.float32)
    data[np.abs(data) < 0.5] = 0
    x = rstorch.tensor(data)
    g = x.to("wgpu")
    got, n = read_back(lambda: g.nonzero())
    same(got, x.nonzero())
    assert n <= 8
    mask = x > 0
    same(g[mask.to("wgpu")], x[mask])
    y, gy = x.clone(), g.clone()
    y[mask] = -1.0
    gy[mask.to("wgpu")] = -1.0
    same(gy, y)
    same(rstorch.zeros(shape, device="wgpu").nonzero(), rstorch.zeros(shape).nonzero())
    got, n = read_back(lambda: g.masked_select(mask.to("wgpu")))
    same(got, x.masked_select(mask))
    assert n <= 8
    grads = []
    for dev in ["cpu", "wgpu"]:
        a = x.detach().to(dev).requires_grad_()
        picked = a.masked_select(mask.to(dev))
        assert picked.grad_fn.name() == "MaskedSelectBackward0"
        (picked * picked).sum().backward()
        grads.append(a.grad)
    same(grads[1], grads[0])


@pytest.mark.parametrize("n", [1024, 1025, 40000, 300000])
def test_long_running_sums(n):
    """Rows longer than one thread's chunk scan in parallel chunks (a row of 40000 used to come
    back zero past element 21845 on lavapipe): exact for integers, within rounding for floats."""
    rng = np.random.default_rng(n)
    ints = rstorch.tensor(rng.integers(-3, 4, (2, n)))
    same(ints.to("wgpu").cumsum(1), ints.cumsum(1))
    same(ints.t().to("wgpu").cumsum(0), ints.t().cumsum(0))
    floats = rstorch.tensor(rng.uniform(0.5, 1.5, (n, 2)).astype(np.float32))
    np.testing.assert_allclose(floats.to("wgpu").cumsum(0).cpu().numpy(), floats.cumsum(0).numpy(), rtol=1e-4)
    # A float32 product of k factors is within k half-ulps (2^-24 each, relative) of the exact
    # one (the CPU's accumulates in float64; near 1 the GPU's float32 chunks drift by ~1e-3 at
    # 300000 factors, against a bound of 0.018 there, and a wrong chunk would be off by far more).
    near_one = rng.uniform(0.99, 1.01, n).astype(np.float32)
    exact = np.cumprod(near_one.astype(np.float64))
    got = rstorch.tensor(near_one, device="wgpu").cumprod(0).cpu().numpy()
    bound = (np.arange(1, n + 1) + 2) * 2.0**-24
    assert (np.abs(got / exact - 1) <= bound).all()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_picks_on_the_device(reduction):
    """cross_entropy / nll_loss on the GPU pick each row's score through offsets checked on the
    device: the node is the CPU's NllLossBackward0, values and gradients match it, and one flag
    word comes back for forward and backward together."""
    rng = np.random.default_rng(11)
    x = rstorch.tensor(rng.standard_normal((64, 10)).astype(np.float32))
    t = rstorch.tensor(rng.integers(0, 10, 64))
    for weight in [None, rstorch.tensor(rng.uniform(0.5, 2, 10).astype(np.float32))]:
        for ignore in [-100, 3]:
            got = {}
            for dev in ["cpu", "wgpu"]:
                a = x.detach().to(dev).requires_grad_()
                w = None if weight is None else weight.to(dev)

                def step():
                    loss = F.cross_entropy(a, t.to(dev), weight=w, ignore_index=ignore, reduction=reduction)
                    (loss * 3).sum().backward()
                    return loss

                loss, n = read_back(step) if dev == "wgpu" else (step(), 0)
                assert n <= 4
                got[dev] = (loss, a.grad, loss.grad_fn.name())
            assert got["wgpu"][2] == got["cpu"][2] == "NllLossBackward0"
            np.testing.assert_allclose(got["wgpu"][0].detach().cpu().numpy(), got["cpu"][0].detach().numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got["wgpu"][1].cpu().numpy(), got["cpu"][1].numpy(), rtol=1e-5, atol=1e-7)
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(rstorch.zeros(3, 4, device="wgpu"), rstorch.tensor([0, 7, 1], device="wgpu"))


@pytest.mark.parametrize("dt", [rstorch.float32, rstorch.float64], ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_is_one_kernel(dt, reduction):
    """nll_loss of (N, C) scores on the GPU is one kernel (targets checked, picked, weighted and
    summed in a fixed order), in float32 and float64, matching the CPU's float64 sums."""
    if dt is rstorch.float64 and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 shaders")
    rng = np.random.default_rng(12)
    x = rstorch.tensor(rng.standard_normal((300, 7))).to(dt)
    t = rstorch.tensor(rng.integers(0, 7, 300))
    t[::5] = -100
    w = rstorch.tensor(rng.uniform(0.5, 2, 7)).to(dt)
    for weight in [None, w]:
        gx, gt = x.to("wgpu"), t.to("wgpu")
        gw = None if weight is None else weight.to("wgpu")
        before = rstorch.wgpu.memory_stats()["kernels_launched"]
        got = F.nll_loss(gx, gt, weight=gw, reduction=reduction)
        assert rstorch.wgpu.memory_stats()["kernels_launched"] - before == 1
        want = F.nll_loss(x, t, weight=weight, reduction=reduction)
        tol = 1e-5 if dt is rstorch.float32 else 1e-12
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=tol, atol=tol)


def outcome(fn):
    """fn's result on the host, or its error's type and words."""
    try:
        return ("ok", fn().cpu().numpy())
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return ("err", type(e).__name__, str(e))


def assert_same_outcome(cpu, gpu, what):
    assert cpu[0] == gpu[0], (what, cpu, gpu)
    if cpu[0] == "ok":
        assert cpu[1].shape == gpu[1].shape, what
        np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-5, atol=1e-5, err_msg=str(what))
    else:
        assert cpu[1:] == gpu[1:], what


def on(ix, dev):
    return tuple(t.to(dev) if isinstance(t, rstorch.Tensor) else t for t in ix)


def test_fuzz_python_indexing_against_the_cpu():
    """Random reads and writes through ints, slices, bool masks and integer tensors (in and out
    of range, empty dims included): the GPU gives the CPU's result or its error, words and all
    (empty results still check their indices)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        shape = tuple(int(v) for v in rng.integers(0, 5, int(rng.integers(1, 4))))
        x = rstorch.tensor(rng.standard_normal(shape).astype(np.float32))
        ix = []
        for size in shape:
            r = rng.random()
            if r < 0.3:
                ix.append(slice(None))
            elif r < 0.5 and size > 0:
                ix.append(int(rng.integers(-size, size)))
            elif r < 0.6:
                ix.append(slice(int(rng.integers(0, 3)), None, int(rng.integers(1, 3))))
            elif r < 0.7:
                ix.append(rstorch.tensor(rng.random(size) > 0.5))
            else:
                lo, hi = -size - (rng.random() < 0.1), size + (rng.random() < 0.1)
                values = rng.integers(lo, max(hi, lo + 1), int(rng.integers(0, 4)))
                ix.append(rstorch.tensor(values) if rng.random() < 0.8 else rstorch.tensor(int(values[0]) if len(values) else 0))
        ix = tuple(ix)
        results = {}
        for dev in ["cpu", "wgpu"]:
            y = x.to(dev).clone()

            def write():
                y[on(ix, dev)] = 7.0
                return y

            results[dev] = (outcome(lambda: x.to(dev)[on(ix, dev)]), outcome(write))
        assert_same_outcome(results["cpu"][0], results["wgpu"][0], ("read", shape, ix))
        assert_same_outcome(results["cpu"][1], results["wgpu"][1], ("write", shape, ix))


def test_fuzz_index_ops_against_the_cpu():
    """scatter_add, index_add, gather, index_select, take and scatter on random shapes (empty
    dims, repeated and out-of-range indices, float and integer values)."""
    rng = np.random.default_rng(1)
    for it in range(120):
        shape = [int(v) for v in rng.integers(0, 5, int(rng.integers(1, 4)))]
        dt = [rstorch.float32, rstorch.int64, rstorch.int32][it % 3]
        x = rstorch.tensor(rng.integers(-5, 5, shape)).to(dt)
        d = int(rng.integers(0, len(shape)))
        ishape = [int(rng.integers(0, s + 1)) for s in shape]
        ishape[d] = int(rng.integers(0, 6))
        lo, hi = -int(rng.random() < 0.1), shape[d] + int(rng.random() < 0.1)
        idx = rstorch.tensor(rng.integers(lo, max(hi, lo + 1), ishape))
        src = rstorch.tensor(rng.integers(-5, 5, [s + 1 for s in ishape])).to(dt)
        vec = rstorch.tensor(rng.integers(lo, max(hi, lo + 1), int(rng.integers(0, 6))))
        vshape = list(shape)
        vshape[d] = vec.numel()
        vsrc = rstorch.tensor(rng.integers(-5, 5, vshape)).to(dt)
        flat = rstorch.tensor(rng.integers(-x.numel() - 1, x.numel() + 1, int(rng.integers(0, 5))))
        ops = {
            "scatter_add": lambda X, I, S, V, VS, F: X.scatter_add(d, I, S),
            "index_add": lambda X, I, S, V, VS, F: X.index_add(d, V, VS, alpha=2),
            "gather": lambda X, I, S, V, VS, F: X.gather(d, I),
            "index_select": lambda X, I, S, V, VS, F: X.index_select(d, V),
            "take": lambda X, I, S, V, VS, F: X.take(F),
            "scatter": lambda X, I, S, V, VS, F: X.scatter(d, I, S),
        }
        args = (x, idx, src, vec, vsrc, flat)
        for name, op in ops.items():
            cpu = outcome(lambda: op(*args))
            gpu = outcome(lambda: op(*[a.to("wgpu") for a in args]))
            assert_same_outcome(cpu, gpu, (name, dt, shape, d, ishape))
