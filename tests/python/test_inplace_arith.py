"""In-place add_/sub_/mul_/div_ (and +=, -=, *=, /=): where nothing records them and the result
keeps the tensor's dtype and shape they write straight into its memory (one pass, no
temporary). The values must be those of the out-of-place op, bit for bit, on every layout of
either operand, and the general path's errors and autograd must be unchanged."""
import numpy as np
import pytest

import rstorch

OPS = ["add_", "sub_", "mul_", "div_"]
OUT_OF_PLACE = {"add_": "add", "sub_": "sub", "mul_": "mul", "div_": "div"}


def others(dtype, shape):
    rng = np.random.default_rng(1)
    full = rstorch.from_numpy(rng.standard_normal(shape).astype(dtype) + 1.5)
    yield "contiguous", full
    yield "transposed", rstorch.from_numpy(rng.standard_normal(shape[::-1]).astype(dtype) + 1.5).t()
    yield "row", rstorch.from_numpy(rng.standard_normal(shape[-1:]).astype(dtype) + 1.5)
    yield "column", rstorch.from_numpy(rng.standard_normal((shape[0], 1)).astype(dtype) + 1.5)
    yield "zero-dim", rstorch.tensor(1.75, dtype=rstorch.float64)
    yield "number", 0.3
    yield "int number", 3
    yield "strided", rstorch.from_numpy(rng.standard_normal((shape[0], 2 * shape[1])).astype(dtype) + 1.5)[:, ::2]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("self_kind", ["contiguous", "transposed", "sliced"])
def test_values_as_out_of_place(op, dtype, self_kind):
    shape = (67, 1031)  # large enough to split across threads, ragged rows
    rng = np.random.default_rng(0)
    for name, other in others(dtype, shape):
        base = rstorch.from_numpy(rng.standard_normal((shape[0], shape[1] + 5)).astype(dtype))
        if self_kind == "contiguous":
            x = rstorch.from_numpy(rng.standard_normal(shape).astype(dtype))
        elif self_kind == "transposed":
            x = rstorch.from_numpy(rng.standard_normal(shape[::-1]).astype(dtype)).t()
        else:
            x = base[:, 2:-3]
        want = getattr(x, OUT_OF_PLACE[op])(other)
        v = x._version
        r = getattr(x, op)(other)
        assert r is x
        assert x._version > v
        assert x.dtype == want.dtype
        assert np.array_equal(np.asarray(x.tolist()), np.asarray(want.tolist())), (op, name, self_kind)
        if self_kind == "sliced":
            # Written through the view: the base sees it, its other columns do not change.
            assert np.array_equal(np.asarray(base[:, 2:-3].tolist()), np.asarray(want.tolist()))


@pytest.mark.parametrize("op", ["__iadd__", "__isub__", "__imul__", "__itruediv__"])
def test_operators_write_in_place(op):
    x = rstorch.arange(12, dtype=rstorch.float32).reshape(3, 4)
    alias = x.view(12)
    y = rstorch.full((4,), 2.0)
    want = getattr(rstorch, {"__iadd__": "add", "__isub__": "sub", "__imul__": "mul", "__itruediv__": "div"}[op])(x, y)
    getattr(x, op)(y)
    assert x.tolist() == want.tolist()
    assert alias.tolist() == want.reshape(12).tolist()


def test_alpha():
    x = rstorch.linspace(-1, 1, 1000)
    y = rstorch.linspace(3, 4, 1000)
    want = rstorch.add(x, y, alpha=-0.5)
    x.add_(y, alpha=-0.5)
    assert x.tolist() == want.tolist()
    x.sub_(y, alpha=2)
    assert x.tolist() == rstorch.sub(want, y, alpha=2).tolist()


def test_self_as_other():
    x = rstorch.linspace(-1, 1, 5000)
    want = x * x
    x.mul_(x)
    assert x.tolist() == want.tolist()
    x = rstorch.linspace(-1, 1, 100).reshape(10, 10)
    want = x + x.t()
    x.add_(x.t())
    assert x.tolist() == want.tolist()


def test_general_path_errors_and_dtypes():
    i = rstorch.arange(6)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(0.5)
    i.add_(2)
    assert i.tolist() == [2, 3, 4, 5, 6, 7] and i.dtype == rstorch.int64
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        i.div_(2)
    h = rstorch.ones(4, dtype=rstorch.float16)
    h.mul_(3.0)
    assert h.tolist() == [3.0] * 4 and h.dtype == rstorch.float16
    f = rstorch.ones(3)
    f.add_(rstorch.ones(3, dtype=rstorch.float64))  # float64 result cast back to float32
    assert f.dtype == rstorch.float32 and f.tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        rstorch.ones(3).add_(rstorch.ones(2, 3))
    e = rstorch.ones(1).expand(4)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.mul_(2.0)
    leaf = rstorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.mul_(2.0)
    with rstorch.no_grad():
        leaf.mul_(2.0)
    assert leaf.tolist() == [2.0] * 3 and leaf.requires_grad


def test_recorded_in_place_ops_keep_their_gradients():
    a = rstorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = rstorch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x = a * 1.0
    x.mul_(b)
    x.add_(b, alpha=2.0)
    x.div_(2.0)
    x.sum().backward()
    assert a.grad.tolist() == [0.25, -0.5, 1.0]
    assert b.grad.tolist() == [1.5, 2.0, 2.5]
    # An untracked write (the direct path) still bumps the version that backward checks.
    w = rstorch.tensor([1.0, 2.0], requires_grad=True)
    s = w.exp()  # exp saves its result
    with rstorch.no_grad():
        s.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()
