"""In-place unary ops (`x.exp_()`, `x.relu_()`, every declared op's `X_`): on a dense float view
they map self's memory in one pass (no temporary, no copy back), also while autograd records
them when the op's formula reads at most its result. Values must be the out-of-place op's, bit
for bit, on every layout; gradients, node names, version checks and errors must be the general
path's."""
import numpy as np
import pytest

import rstorch

IN_PLACE = rstorch._C._unary_ops()[1]
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40, 1e-310, 88.5, -104.0, 0.5, -0.5, 1.0, -1.0]


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = a.reshape(-1)
    flat[: len(SPECIALS)] = np.array(SPECIALS, dtype=dtype)
    return a


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def out_of_place(x, name):
    return getattr(x, name)()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "permuted", "sliced"])
def test_values_as_out_of_place(dtype, kind):
    shape = (67, 1031)  # large enough to split across threads, ragged rows
    for i, name in enumerate(IN_PLACE):
        base = rstorch.from_numpy(values(dtype, (shape[0], shape[1] + 5), i))
        x = {
            "contiguous": lambda: rstorch.from_numpy(values(dtype, shape, i)),
            "transposed": lambda: rstorch.from_numpy(values(dtype, shape[::-1], i)).t(),
            "permuted": lambda: rstorch.from_numpy(values(dtype, (1031, 67, 1), i)).permute(2, 1, 0),
            "sliced": lambda: base[:, 2:-3],
        }[kind]()
        before = base.numpy().copy()
        want = out_of_place(x, name)
        version = x._version
        r = getattr(x, name + "_")()
        assert r is x
        assert x._version > version
        assert x.dtype == want.dtype
        assert same(x.numpy(), want.numpy()), (name, kind)
        if kind == "sliced":
            # Written through the view: the base's other columns do not change.
            after = base.numpy()
            assert same(after[:, :2], before[:, :2]) and same(after[:, -3:], before[:, -3:]), name


@pytest.mark.parametrize("name", IN_PLACE)
def test_recorded_gradient_and_node_as_out_of_place(name):
    rng = np.random.default_rng(3)
    w = rstorch.from_numpy(rng.uniform(0.1, 0.6, (5, 7))).requires_grad_()
    a = w * 1.5
    y = getattr(a, name + "_")()
    assert y is a
    y.sum().backward()
    got = w.grad.numpy().copy()
    w.grad = None
    b = out_of_place(w * 1.5, name)
    b.sum().backward()
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    assert np.allclose(got, w.grad.numpy(), rtol=1e-12, atol=0, equal_nan=True), name


def test_recorded_through_a_chain_of_in_place_ops():
    x = np.array([0.5, -1.0, 2.0])
    w = rstorch.tensor(x, dtype=rstorch.float64, requires_grad=True)
    a = w * 2
    a.neg_().exp_()  # neg_ saves nothing; exp_ keeps a at its new version
    a.sum().backward()
    assert np.allclose(w.grad.numpy(), -2 * np.exp(-2 * x), rtol=1e-12)
    # relu_ keeps its result, which sigmoid_ then overwrites: reported, as PyTorch does.
    a = w * 2
    a.relu_().sigmoid_()
    with pytest.raises(RuntimeError, match="which is output 0 of Relu, is at version 2"):
        a.sum().backward()


def test_overwriting_a_saved_input_is_reported():
    w = rstorch.rand(4, requires_grad=True)
    a = w * 2
    s = a.sin()  # saves a
    a.relu_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


def test_overwriting_the_saved_result_is_reported():
    w = rstorch.rand(4, requires_grad=True)
    a = w * 2
    a.exp_()  # its node keeps a as its result
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        a.sum().backward()


def test_errors_of_the_general_path():
    w = rstorch.rand(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.exp_()
    with rstorch.no_grad():
        w.relu_()  # allowed where nothing records
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        rstorch.rand(1, 3).expand(2, 3).exp_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        rstorch.arange(4).exp_()
    i = rstorch.tensor([-2, 3])
    i.relu_()
    assert i.dtype == rstorch.int64 and i.tolist() == [0, 3]


def test_input_reading_formula_on_a_recorded_view_keeps_its_values():
    # sin_ reads its input: the general path keeps a copy of it; through a view of a base.
    w = rstorch.tensor([0.3, 1.2, -0.7, 2.0], dtype=rstorch.float64, requires_grad=True)
    a = w * 1.0
    v = a[1:3]
    v.sin_()
    a.sum().backward()
    assert np.allclose(w.grad.numpy(), [1.0, np.cos(1.2), np.cos(-0.7), 1.0], rtol=1e-12)


PARAM_ACTIVATIONS = [
    ("leaky_relu", (0.2,)), ("elu", (0.7,)), ("celu", (1.3,)), ("selu", ()), ("threshold", (0.1, -2.0)),
    ("hardtanh", (-0.5, 0.25)), ("relu6", ()), ("hardsigmoid", ()), ("hardswish", ()), ("mish", ()),
]


@pytest.mark.parametrize("name,params", PARAM_ACTIVATIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_with_parameters_in_place(name, params, dtype):
    F = rstorch.nn.functional
    for kind in ("contiguous", "transposed", "sliced"):
        base = rstorch.from_numpy(values(dtype, (37, 70), 5))
        x = {"contiguous": base.clone(), "transposed": base.t(), "sliced": base[:, 3:-2]}[kind]
        want = getattr(F, name)(x, *params)
        r = getattr(F, name)(x, *params, inplace=True)
        assert r is x
        assert same(x.numpy(), want.numpy()), (name, kind)
    # Recorded: the gradient is the out-of-place one (leaky_relu and the elu family keep their
    # result for it, the others fall back to a copy of their input).
    rng = np.random.default_rng(4)
    w = rstorch.from_numpy(rng.standard_normal((4, 6))).requires_grad_()
    a = w * 1.0
    getattr(F, name)(a, *params, inplace=True).sum().backward()
    got = w.grad.numpy().copy()
    w.grad = None
    getattr(F, name)(w * 1.0, *params).sum().backward()
    assert np.allclose(got, w.grad.numpy(), rtol=1e-12, atol=0), name


def test_leaky_relu_in_place_refuses_a_negative_slope_in_backward():
    w = rstorch.rand(3, requires_grad=True)
    a = w * 1.0
    rstorch.nn.functional.leaky_relu(a, -0.1, inplace=True)
    with pytest.raises(RuntimeError, match="negative slope"):
        a.sum().backward()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clamp_in_place_with_numbers(dtype):
    for lo, hi in [(-0.5, 0.75), (None, 0.1), (-0.2, None), (1.0, -1.0), (float("nan"), 1.0), (-1, 2)]:
        for kind in ("contiguous", "transposed", "sliced"):
            base = rstorch.from_numpy(values(dtype, (37, 70), 6))
            x = {"contiguous": base.clone(), "transposed": base.t(), "sliced": base[:, 3:-2]}[kind]
            want = x.clamp(lo, hi)
            version = x._version
            assert x.clamp_(lo, hi) is x
            assert x._version > version
            assert same(x.numpy(), want.numpy()), (lo, hi, kind)
    w = rstorch.rand(5, requires_grad=True)
    with rstorch.no_grad():
        w.clamp_(0.2, 0.4)
    assert float(w.min()) >= np.float32(0.2) and float(w.max()) <= np.float32(0.4)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.clamp_(0.0, 1.0)
