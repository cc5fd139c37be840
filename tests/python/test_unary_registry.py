"""The op registry (`src/ops/unary.rs`, `src/ops/composite.rs`): every declared name is bound
as `torch.X`, `Tensor.X` and (where declared) `Tensor.X_`; and the ops added through the
registry alone (atanh, asinh, acosh; logaddexp, logaddexp2, hypot, xlogy) against PyTorch's
recorded values (fixtures/unary_ops.json, written by tests/record_unary_ops.py), their
gradients (gradcheck in float64 on non-contiguous and broadcast inputs), `grad_fn` names,
in-place forms and wgpu kernels."""
import json
import math
import pathlib

import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck

ALL_CASES = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "unary_ops.json").read_text())["cases"]
CASES = [c for c in ALL_CASES if "x" in c]
BINARY = ["logaddexp", "logaddexp2", "hypot", "xlogy"]
BINARY_CASES = [c for c in ALL_CASES if "a" in c and c["op"] in BINARY]
ADDED = ["atanh", "asinh", "acosh"]
ALIASES = {"atanh": "arctanh", "asinh": "arcsinh", "acosh": "arccosh"}
# Tolerance against PyTorch's values, relative (float32 within a few ulp, float64 within ~10).
RTOL = {"float32": 4e-7, "float64": 2e-15, "int64": 4e-7}


def same(got, want, rtol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if math.isnan(w):
            assert math.isnan(g), (got, want)
        elif math.isinf(w) or w == 0.0:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (got, want)
        else:
            assert abs(g - w) <= rtol * abs(w), (g, w, got, want)


def test_registry_names_are_bound():
    methods, in_place = rstorch._C._unary_ops()
    assert set(in_place) <= set(methods)
    for name in methods:
        assert getattr(rstorch, name) is getattr(rstorch.Tensor, name), name
    for name in in_place:
        assert callable(getattr(rstorch.Tensor, name + "_")), name
    for name in ADDED:
        assert name in methods and ALIASES[name] in methods and name in in_place


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['op']}-{c['dtype']}-{'grad' if 'grad' in c else 'values'}")
def test_values_match_pytorch(case):
    x = rstorch.tensor(case["x"], dtype=getattr(rstorch, case["dtype"]))
    y = getattr(rstorch, case["op"])(x)
    if case["dtype"] == "int64":
        assert str(y.dtype).replace("rstorch.", "torch.") == case["out_dtype"]
    else:
        assert y.dtype is x.dtype
    same(y.tolist(), case["y"], RTOL[case["dtype"]])
    # the alias and the method give the same
    assert getattr(x, ALIASES[case["op"]])().tolist() == y.tolist() or any(math.isnan(v) for v in y.tolist())
    if "grad" in case:
        xg = x.clone().requires_grad_()
        out = getattr(rstorch, case["op"])(xg)
        assert type(out.grad_fn).__name__ == case["grad_fn"]
        out.sum().backward()
        same(xg.grad.tolist(), case["grad"], 1e-13)


def domain(op, *shape):
    """Float64 inputs inside the op's domain, away from its edges."""
    t = rstorch.rand(*shape, dtype=rstorch.float64)
    if op == "atanh":
        return t * 1.6 - 0.8
    if op == "acosh":
        return t * 3 + 1.2
    return t * 6 - 3


@pytest.mark.parametrize("op", ADDED)
def test_gradcheck_noncontiguous_and_broadcast(op):
    rstorch.manual_seed(0)
    f = getattr(rstorch, op)
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
    contiguous = domain(op, 3, 4).requires_grad_()
    transposed = domain(op, 4, 3).t().detach().requires_grad_()
    assert not transposed.is_contiguous()
    sliced = domain(op, 3, 8)[:, ::2].detach().requires_grad_()
    row = domain(op, 1, 4).requires_grad_()
    for x in [contiguous, transposed, sliced]:
        assert gradcheck(f, (x,), **kw)
        assert gradgradcheck(f, (x,), **kw)
    # a broadcast (stride-0) input: the gradient sums over the expanded rows
    assert gradcheck(lambda r: f(r.expand(3, 4)), (row,), **kw)
    assert gradcheck(lambda r: f(r.expand(3, 4)) * r, (row,), **kw)


@pytest.mark.parametrize("op", ADDED)
def test_in_place(op):
    x = domain(op, 5)
    want = getattr(rstorch, op)(x)
    for name in [op, ALIASES[op]]:
        y = x.clone()
        assert getattr(y, name + "_")() is y
        assert y.tolist() == want.tolist()
    # in place on a non-leaf keeps the gradient right (the formula reads the saved input)
    leaf = domain(op, 5).requires_grad_()
    z = leaf * 1.0
    getattr(z, op + "_")()
    z.sum().backward()
    ref = leaf.detach().clone().requires_grad_()
    getattr(rstorch, op)(ref).sum().backward()
    same(leaf.grad.tolist(), ref.grad.tolist(), 1e-15)


needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")


@needs_gpu
@pytest.mark.parametrize("case", [c for c in CASES if c["dtype"] != "int64" and "grad" not in c],
                         ids=lambda c: f"{c['op']}-{c['dtype']}")
def test_wgpu_kernels(case):
    dt = getattr(rstorch, case["dtype"])
    if dt is rstorch.float64 and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 on this adapter")
    x = rstorch.tensor(case["x"], dtype=dt)
    got = getattr(rstorch, case["op"])(x.to("wgpu"))
    assert got.device.type == "wgpu" and got.dtype is dt
    # The device's log is not the CPU's: a few ulp in float32, ~1e-15 in float64.
    same(got.cpu().tolist(), case["y"], 4e-6 if dt is rstorch.float32 else 1e-14)


@needs_gpu
@pytest.mark.parametrize("op", ADDED)
def test_wgpu_gradient(op):
    x = domain(op, 12).float()
    xd = x.to("wgpu").requires_grad_()
    getattr(rstorch, op)(xd).sum().backward()
    xc = x.clone().requires_grad_()
    getattr(rstorch, op)(xc).sum().backward()
    assert xd.grad.device.type == "wgpu"
    same(xd.grad.cpu().tolist(), xc.grad.tolist(), 1e-5)


def flat(rows):
    return [v for row in rows for v in (row if isinstance(row, list) else [row])]


def test_composite_names_are_bound():
    names, in_place = rstorch._C._composite_ops()
    # the number/parameter/in-place ones are tested in test_composite_ops.py, fmax, fmin and
    # heaviside in test_tensorfns.py
    # torch.special's functions of two operands are bound privately (rstorch/special.py names
    # them), and tested in test_special2.py.
    special = ["_special_zeta", "_special_xlog1py"] + ["_special_" + n for n in [
        "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
        "legendre_polynomial_p"]]
    assert sorted(names) == sorted(BINARY + ["copysign", "float_power", "isclose", "fmax", "fmin", "heaviside"] + special)
    assert set(in_place) == {"copysign_", "float_power_", "hypot_", "xlogy_", "heaviside_"}
    for name in names:
        # `torch.X` is a function of its own (it takes `input`), `Tensor.X` the method
        assert getattr(rstorch, name) is getattr(rstorch._C, name), name
        assert callable(getattr(rstorch.Tensor, name)), name
    for name in in_place:
        assert callable(getattr(rstorch.Tensor, name)), name


@pytest.mark.parametrize("case", BINARY_CASES, ids=lambda c: f"{c['op']}-{c['dtype']}-{'grad' if 'grad_a' in c else 'values'}")
def test_composite_values_match_pytorch(case):
    dt = getattr(rstorch, case["dtype"])
    a, b = rstorch.tensor(case["a"], dtype=dt), rstorch.tensor(case["b"], dtype=dt)
    y = getattr(rstorch, case["op"])(a, b)
    assert y.dtype is dt and list(y.shape) == [len(case["a"]), len(case["b"])]
    same(flat(y.tolist()), flat(case["y"]), 1e-6 if dt is rstorch.float32 else 1e-14)
    if "grad_a" in case:
        a.requires_grad_()
        b.requires_grad_()
        out = getattr(a, case["op"])(b)
        assert type(out.grad_fn).__name__ == case["grad_fn"]
        assert [e[0] is not None for e in out.grad_fn.next_functions] == [True, True]
        out.sum().backward()
        same(flat(a.grad.tolist()), flat(case["grad_a"]), 1e-13)
        same(flat(b.grad.tolist()), flat(case["grad_b"]), 1e-13)


@pytest.mark.parametrize("op", BINARY)
def test_composite_gradcheck(op):
    rstorch.manual_seed(0)
    f = getattr(rstorch, op)
    kw = dict(eps=1e-6, atol=1e-5, rtol=1e-3)

    def pos(*shape):
        return rstorch.rand(*shape, dtype=rstorch.float64) * 2 + 0.5

    def any_sign(*shape):
        return rstorch.rand(*shape, dtype=rstorch.float64) * 4 - 2

    first = any_sign if op != "hypot" else pos
    pairs = [
        (first(3, 4), pos(3, 4)),
        (first(4, 3).t(), pos(3, 8)[:, ::2]),  # non-contiguous
        (first(3, 1), pos(4)),  # broadcast
    ]
    for a, b in pairs:
        a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
        assert gradcheck(f, (a, b), **kw)
        assert gradgradcheck(f, (a, b), **kw)
    # a stride-0 (expanded) operand: its gradient sums over the expanded rows
    row, b = first(1, 4).requires_grad_(), pos(3, 4).requires_grad_()
    assert gradcheck(lambda r, b: f(r.expand(3, 4), b), (row, b), **kw)


@needs_gpu
@pytest.mark.parametrize("op", BINARY)
def test_composite_on_wgpu(op):
    case = next(c for c in BINARY_CASES if c["op"] == op and c["dtype"] == "float32")
    a, b = rstorch.tensor(case["a"]), rstorch.tensor(case["b"])
    got = getattr(rstorch, op)(a.to("wgpu"), b.to("wgpu"))
    assert got.device.type == "wgpu"
    # the device's exp and log are not the CPU's: a few ulp
    same(flat(got.cpu().tolist()), flat(case["y"]), 1e-5)


def test_in_place_forms_refuse_a_result_self_cannot_hold():
    torch = rstorch
    # PyTorch 2.15: the float result of atanh_ / pow_(0.5) cannot go into an int64 tensor, nor
    # square_'s int64 into a bool one; logical_not_ writes its bools into any dtype.
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).atanh_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).pow_(0.5)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        torch.tensor([True, False]).square_()
    x = torch.tensor([1, 0])
    assert x.logical_not_() is x and x.dtype == torch.int64 and x.tolist() == [0, 1]
    y = torch.tensor([1.0, 0.0])
    assert y.logical_not_().tolist() == [0.0, 1.0]
    z = torch.tensor([1, 2])
    assert z.square_().tolist() == [1, 4] and z.dtype == torch.int64


# PyTorch's float-only activation kernels refuse integer and bool inputs (its other float
# functions take them as floats); relu6, hardtanh and threshold keep integers.
FLOAT_ONLY = {
    "leaky_relu": "leaky_relu_cpu", "elu": "elu_cpu", "celu": "elu_cpu", "selu": "elu_cpu", "mish": "mish_cpu",
    "hardsigmoid": "hardsigmoid_cpu", "hardswish": "hardswish_cpu", "silu": "silu_cpu", "gelu": "GeluKernelImpl",
    "softplus": "softplus_cpu", "logsigmoid": "log_sigmoid_cpu",
}


@pytest.mark.parametrize("name", sorted(FLOAT_ONLY))
@pytest.mark.parametrize("dtype,title", [(rstorch.int64, "Long"), (rstorch.int32, "Int"), (rstorch.bool, "Bool")])
def test_float_only_activations_refuse_integers(name, dtype, title):
    x = rstorch.tensor([1, 0], dtype=dtype)
    message = f'"{FLOAT_ONLY[name]}" not implemented for \'{title}\''
    with pytest.raises(NotImplementedError, match=message):
        getattr(F, name)(x)
    if name not in ("gelu", "softplus", "logsigmoid"):
        with pytest.raises(NotImplementedError, match=message):
            getattr(F, name)(x, inplace=True)
    if name == "gelu":
        with pytest.raises(NotImplementedError, match=message):
            F.gelu(x, approximate="tanh")
    assert getattr(F, name)(x.float()).dtype == rstorch.float32


def test_integer_keeping_activations():
    x = rstorch.tensor([-3, 2, 9])
    assert F.relu6(x).tolist() == [0, 2, 6] and F.relu6(x).dtype == rstorch.int64
    assert F.threshold(x, 1, 5).tolist() == [5, 2, 9]
