"""The wgpu backend's integer kernels against the CPU: integer reductions and sorts of any row
length, optimizer steps, exact integer matmul, and integer pooling and convolution.

Tests that need an adapter skip when `rstorch.wgpu.is_available()` is False."""

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F

from _wgpu_helpers import close, close_in, launched, needs_gpu, pair, same


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
