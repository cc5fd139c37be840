"""The composite ops declared with numbers, parameters and in-place forms (`src/ops/composite.rs`):
copysign, float_power, isclose and xlogy against PyTorch's recorded values, dtypes, signs, gradients and
grad_fn nodes (fixtures/unary_ops.json, written by tests/record_unary_ops.py); gradcheck and
gradgradcheck in float64 on non-contiguous, broadcast and expanded inputs; the in-place forms;
PyTorch's errors; and the ops on the wgpu device."""
import json
import math
import pathlib

import pytest

import rstorch
from rstorch.autograd import gradcheck, gradgradcheck

ALL_CASES = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "unary_ops.json").read_text())["cases"]
CASES = [c for c in ALL_CASES if "args" in c]
NEW = ["copysign", "float_power", "isclose", "xlogy"]
GRAD = dict(eps=1e-6, atol=1e-5, rtol=1e-3)
nan, inf = math.nan, math.inf


def case_id(c):
    kinds = "-".join(a["dtype"] if "t" in a else type(a["n"]).__name__ for a in c["args"])
    return f"{c['op']}-{kinds}{'-grad' if 'grad' in c else ''}{'-' + str(c['kwargs']) if c['kwargs'] else ''}"


def build(args, device="cpu"):
    out = []
    for a in args:
        if "n" in a:
            out.append(a["n"])
        else:
            t = rstorch.tensor(a["t"], dtype=getattr(rstorch, a["dtype"])).reshape(a["shape"]).to(device)
            out.append(t.requires_grad_() if a["grad"] else t)
    return out


def same(got, want, rtol, signs=None):
    """Equal within `rtol` (NaN as NaN, infinities and zeros exactly with their sign); `signs`
    also compares every sign bit, NaN's included."""
    assert len(got) == len(want), (got, want)
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, bool):
            assert g is w, (i, got, want)
        elif math.isnan(w):
            assert math.isnan(g), (i, got, want)
        elif math.isinf(w) or w == 0.0:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (i, got, want)
        else:
            assert abs(g - w) <= rtol * abs(w), (i, g, w)
        if signs is not None:
            assert math.copysign(1.0, g) == signs[i], (i, got, signs)


def flat(t):
    return t.detach().reshape(-1).tolist()


def rtol_of(dtype):
    return {"float64": 4e-16, "float32": 1.2e-7, "float16": 1e-3, "bfloat16": 8e-3}.get(dtype, 0)


def test_registry_binds_the_ops():
    names, in_place = rstorch._C._composite_ops()
    assert set(NEW) <= set(names)
    # (heaviside_ is tested in test_tensorfns.py)
    assert in_place == ["hypot_", "xlogy_", "copysign_", "float_power_", "heaviside_"]
    for name in NEW:
        assert getattr(rstorch, name) is getattr(rstorch._C, name)
        assert callable(getattr(rstorch.Tensor, name))
    assert not hasattr(rstorch.Tensor, "isclose_")


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_values_match_pytorch(case):
    args = build(case["args"])
    y = getattr(rstorch, case["op"])(*args, **case["kwargs"])
    assert str(y.dtype) == "rstorch." + case["dtype"]
    assert list(y.shape) == case["shape"]
    # float_power computes in float64 through the platform's pow: a few ulp
    rtol = 3e-15 if case["op"] == "float_power" else rtol_of(case["dtype"])
    same(flat(y), case["y"], rtol, case["sign"] if case["op"] == "copysign" else None)
    if isinstance(args[0], rstorch.Tensor):
        method = getattr(args[0], case["op"])(*args[1:], **case["kwargs"])
        assert flat(method) == flat(y) or any(math.isnan(v) for v in flat(y))
    if "grad_fn" not in case:
        assert y.grad_fn is None
        return
    assert type(y.grad_fn).__name__ == case["grad_fn"]
    nxt = [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions]
    assert nxt == case["next"]
    y.sum().backward()
    for a, want in zip(args, case["grad"]):
        if want is None:
            assert not isinstance(a, rstorch.Tensor) or a.grad is None
        else:
            same(flat(a.grad), want, 1e-13 if a.dtype is rstorch.float64 else 2e-7)


def test_copysign_nan_signs():
    # PyTorch 2.15: the result's NaN takes `other`'s sign; a number's NaN sign is read.
    neg_nan = -rstorch.tensor([nan, nan, nan])
    assert math.copysign(1, neg_nan[0].item()) == -1
    got = rstorch.copysign(neg_nan, rstorch.tensor([1.0, -1.0, -2.0]))
    assert [math.copysign(1, v) for v in got.tolist()] == [1.0, -1.0, -1.0]
    got = rstorch.copysign(rstorch.tensor([1.0, nan]), -nan)
    assert [math.copysign(1, v) for v in got.tolist()] == [-1.0, -1.0]
    got = rstorch.copysign(rstorch.tensor([1.0, nan], dtype=rstorch.float64), float("-nan"))
    assert [math.copysign(1, v) for v in got.tolist()] == [-1.0, -1.0]


def away_from_zero(*shape):
    """Float64 values of either sign, at least 0.3 from 0 (copysign's kink)."""
    t = rstorch.rand(*shape, dtype=rstorch.float64) * 2 + 0.3
    return t * (rstorch.rand(*shape, dtype=rstorch.float64) > 0.5).double().mul(2).sub(1)


def positive(*shape):
    return rstorch.rand(*shape, dtype=rstorch.float64) * 2 + 0.5


GRAD_OPS = {
    # op: (first operand, second operand)
    "copysign": (away_from_zero, away_from_zero),
    "hypot": (lambda *s: rstorch.rand(*s, dtype=rstorch.float64) * 4 - 2, lambda *s: rstorch.rand(*s, dtype=rstorch.float64) * 4 - 2),
    "float_power": (positive, lambda *s: rstorch.rand(*s, dtype=rstorch.float64) * 4 - 2),
    "xlogy": (lambda *s: rstorch.rand(*s, dtype=rstorch.float64) * 4 - 2, positive),
}
# Numbers the second operand takes in the gradient checks (xlogy's log needs a positive one).
NUMBERS = {"xlogy": [2, 0.5, 3.5], "hypot": []}  # hypot takes no number


@pytest.mark.parametrize("op", sorted(GRAD_OPS))
def test_gradcheck(op):
    rstorch.manual_seed(0)
    f = getattr(rstorch, op)
    first, second = GRAD_OPS[op]
    pairs = [
        (first(3, 4), second(3, 4)),
        (first(4, 3).t(), second(3, 8)[:, ::2]),  # non-contiguous
        (first(3, 1), second(4)),  # broadcast
    ]
    assert not pairs[1][0].is_contiguous() and not pairs[1][1].is_contiguous()
    for a, b in pairs:
        a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
        assert gradcheck(f, (a, b), **GRAD)
        assert gradgradcheck(f, (a, b), **GRAD)
    # a stride-0 (expanded) operand: its gradient sums over the expanded rows
    row, b = first(1, 4).requires_grad_(), second(3, 4).requires_grad_()
    assert gradcheck(lambda r, b: f(r.expand(3, 4), b), (row, b), **GRAD)
    assert gradgradcheck(lambda r, b: f(r.expand(3, 4), b), (row, b), **GRAD)
    # a number as either operand
    a = first(3, 4).requires_grad_()
    for n in NUMBERS.get(op, [-1.5, 2, 0.5]):
        assert gradcheck(lambda a: f(a, n), (a,), **GRAD)
        assert gradgradcheck(lambda a: f(a, n), (a,), **GRAD)
    if op in ("float_power", "xlogy"):
        e = second(3, 4).requires_grad_()
        assert gradcheck(lambda e: f(2.5, e), (e,), **GRAD)
        assert gradgradcheck(lambda e: f(2.5, e), (e,), **GRAD)


def test_float_power_of_float32_differentiates_through_the_cast():
    a = rstorch.tensor([0.5, 1.5, 2.0], requires_grad=True)
    y = rstorch.float_power(a, 2.5)
    assert y.dtype is rstorch.float64
    y.sum().backward()
    assert a.grad.dtype is rstorch.float32
    same(a.grad.tolist(), [2.5 * v ** 1.5 for v in [0.5, 1.5, 2.0]], 2e-7)


def test_isclose_is_not_differentiable():
    a = rstorch.tensor([1.0, 2.0], requires_grad=True)
    out = rstorch.isclose(a, a.detach() + 1e-9)
    assert out.dtype is rstorch.bool and out.grad_fn is None and not out.requires_grad
    assert out.tolist() == [True, True]


def test_in_place_forms():
    x = rstorch.tensor([1.0, -2.0, 0.0, 3.5])
    for other in [-1.0, rstorch.tensor([-1.0, 1.0, -0.0, 2.0]), rstorch.tensor(-3.0, dtype=rstorch.float64)]:
        y = x.clone()
        assert y.copysign_(other) is y
        assert y.dtype is rstorch.float32
        same(y.tolist(), rstorch.copysign(x, other).tolist(), 0, [math.copysign(1, v) for v in rstorch.copysign(x, other).tolist()])
    d = rstorch.tensor([2.0, 3.0, 0.5], dtype=rstorch.float64)
    for e in [2, 0.5, rstorch.tensor([1.0, 2.0, 3.0]), rstorch.tensor([1, 2, 3])]:
        y = d.clone()
        assert y.float_power_(e) is y
        assert y.tolist() == rstorch.float_power(d, e).tolist()
    assert d.clone().float_power_(exponent=2).tolist() == [4.0, 9.0, 0.25]
    p = rstorch.tensor([0.0, 2.0, 3.0])
    for other in [2.5, rstorch.tensor([0.5, 2.0, 4.0]), rstorch.tensor([1, 2, 3])]:
        y = p.clone()
        assert y.xlogy_(other) is y and y.dtype is rstorch.float32
        assert y.tolist() == rstorch.xlogy(p, other).tolist()
        y = p.clone()
        assert y.hypot_(rstorch.tensor([3.0, 1.5, 4.0])) is y
        assert y.tolist() == rstorch.hypot(p, rstorch.tensor([3.0, 1.5, 4.0])).tolist()
    assert x.clone().copysign_(other=-1).tolist() == [-1.0, -2.0, -0.0, -3.5]


def test_in_place_on_a_non_leaf_records_the_node():
    leaf = rstorch.tensor([-2.0, 3.0, 0.5], dtype=rstorch.float64, requires_grad=True)
    z = leaf * 1.0
    z.copysign_(-1.0)
    assert type(z.grad_fn).__name__ == "CopysignBackward1"
    z.sum().backward()
    assert leaf.grad.tolist() == [1.0, -1.0, -1.0]
    leaf = rstorch.tensor([2.0, 3.0], dtype=rstorch.float64, requires_grad=True)
    z = leaf * 1.0
    z.float_power_(2)
    assert type(z.grad_fn).__name__ == "PowBackward0"
    z.sum().backward()
    assert leaf.grad.tolist() == [4.0, 6.0]
    # PyTorch 2.15: xlogy_ with a number is the (Tensor, Scalar) overload's node
    leaf = rstorch.tensor([2.0, 3.0], dtype=rstorch.float64, requires_grad=True)
    z = leaf * 1.0
    z.xlogy_(math.e)
    assert type(z.grad_fn).__name__ == "XlogyBackward2"
    z.sum().backward()
    same(leaf.grad.tolist(), [1.0, 1.0], 1e-15)


def raises(exc, message):
    return pytest.raises(exc, match="^" + __import__("re").escape(message))


def test_in_place_errors():
    # PyTorch 2.15's messages
    with raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        rstorch.tensor([1, 2]).copysign_(-1)
    with raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        rstorch.tensor([1, 2]).xlogy_(2.0)
    with raises(RuntimeError, "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"):
        rstorch.tensor([1.0, 2.0]).float_power_(2)
    with raises(RuntimeError, "the base given to float_power_ has dtype Long but the operation's result requires dtype Double"):
        rstorch.tensor([1, 2]).float_power_(rstorch.tensor([2.0, 3.0]))
    with raises(RuntimeError, "output with shape [2] doesn't match the broadcast shape [2, 2]"):
        rstorch.tensor([1.0, 2.0]).copysign_(rstorch.ones(2, 2))
    with raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation."):
        rstorch.tensor([1.0, 2.0], requires_grad=True).copysign_(-1.0)


def test_argument_errors():
    t = rstorch.tensor([1.0])
    with raises(TypeError, "float_power() received an invalid combination of arguments - got (int, int), but expected one of:"):
        rstorch.float_power(2, 3)
    with raises(TypeError, "copysign() received an invalid combination of arguments - got (float, Tensor), but expected one of:"):
        rstorch.copysign(2.0, t)
    with raises(TypeError, "copysign() received an invalid combination of arguments - got (Tensor, str), but expected one of:"):
        rstorch.copysign(t, "a")
    with raises(TypeError, "copysign() received an invalid combination of arguments - got (Tensor, NoneType), but expected one of:"):
        rstorch.copysign(t, None)
    with raises(TypeError, "copysign() received an invalid combination of arguments - got (str), but expected one of:"):
        t.copysign("a")
    with raises(TypeError, "copysign_() received an invalid combination of arguments - got (str), but expected one of:"):
        t.copysign_("a")
    with raises(TypeError, "float_power() received an invalid combination of arguments - got (str), but expected one of:"):
        t.float_power("a")
    with raises(TypeError, "isclose(): argument 'other' (position 2) must be Tensor, not float"):
        rstorch.isclose(t, 1.0)
    with raises(TypeError, "isclose(): argument 'other' (position 1) must be Tensor, not float"):
        t.isclose(1.0)
    with raises(TypeError, "isclose(): argument 'other' (position 2) must be Tensor, not bool"):
        rstorch.isclose(t, True)
    with raises(TypeError, "logaddexp(): argument 'input' (position 1) must be Tensor, not float"):
        rstorch.logaddexp(2.0, t)
    with raises(TypeError, "hypot(): argument 'other' (position 2) must be Tensor, not float"):
        rstorch.hypot(t, 2.0)
    with raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"):
        rstorch.copysign(rstorch.ones(2), rstorch.ones(3))
    with raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"):
        rstorch.float_power(rstorch.ones(2), rstorch.ones(3))
    assert not hasattr(t, "logaddexp_") and not hasattr(t, "isclose_")


def test_keywords():
    t = rstorch.tensor([1.0, -2.0])
    assert rstorch.copysign(input=t, other=-1).tolist() == [-1.0, -2.0]
    assert rstorch.float_power(input=t, exponent=2).tolist() == [1.0, 4.0]
    assert t.float_power(exponent=2).tolist() == [1.0, 4.0]
    assert t.copysign(other=1.0).tolist() == [1.0, 2.0]
    assert rstorch.isclose(input=t, other=t + 1e-3, rtol=0.0, atol=0.0, equal_nan=True).tolist() == [False, False]
    assert rstorch.isclose(t, t + 0.5, 0.0, 1.0).tolist() == [True, True]


def test_empty_and_zero_dim():
    assert list(rstorch.copysign(rstorch.empty(0, 3), rstorch.tensor([1.0, -2.0, 3.0])).shape) == [0, 3]
    y = rstorch.float_power(rstorch.tensor(3), 2)
    assert y.dim() == 0 and y.item() == 9.0 and y.dtype is rstorch.float64


needs_gpu = pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")


@needs_gpu
@pytest.mark.parametrize("case", [c for c in CASES if "grad" not in c and all(
    a.get("dtype", "float32") in ("float32", "int64", "bool") for a in c["args"])], ids=case_id)
def test_on_wgpu(case):
    if case["dtype"] == "float64" and not rstorch.wgpu.supports_float64():
        pytest.skip("no float64 on this adapter")
    args = build(case["args"], "wgpu")
    y = getattr(rstorch, case["op"])(*args, **case["kwargs"])
    assert y.device.type == "wgpu" and str(y.dtype) == "rstorch." + case["dtype"]
    # the device's pow is not the CPU's: a few ulp
    same(flat(y.cpu()), case["y"], 1e-14 if case["op"] == "float_power" else rtol_of(case["dtype"]))


@needs_gpu
def test_gradient_on_wgpu():
    a = rstorch.tensor([-2.0, 0.5, 3.0, -0.25])
    b = rstorch.tensor([1.0, -1.0, -2.0, 3.0])
    ad, bd = a.to("wgpu").requires_grad_(), b.to("wgpu").requires_grad_()
    rstorch.copysign(ad, bd).sum().backward()
    assert ad.grad.device.type == "wgpu"
    assert ad.grad.cpu().tolist() == [-1.0, -1.0, -1.0, -1.0] and bd.grad.cpu().tolist() == [0.0] * 4


def test_xlogy_gradient_at_zero_input_is_log_other():
    # PyTorch 2.15 (recorded by hand with /work/torchref): d/dx xlogy(x, y) at x = 0 is log(y)
    # where that log is finite, 0 where y <= 0; NaN stays NaN. (At y = inf PyTorch says inf; rstorch 0.)
    cases = [((0.0, 2.0), 0.0, 0.6931471805599453), ((0.0, 0.5), 0.0, -0.6931471805599453), ((0.0, 0.0), 0.0, 0.0),
             ((0.0, -1.0), 0.0, 0.0), ((1.0, 0.0), float("-inf"), float("-inf")), ((-1.0, 1.0), -0.0, 0.0)]
    for (xv, yv), value, grad in cases:
        x = rstorch.tensor([xv], dtype=rstorch.float64, requires_grad=True)
        y = rstorch.tensor([yv], dtype=rstorch.float64, requires_grad=True)
        z = rstorch.xlogy(x, y)
        z.sum().backward()
        assert z.item() == value and math.copysign(1, z.item()) == math.copysign(1, value), (xv, yv, z.item())
        assert x.grad.item() == grad, (xv, yv, x.grad.item())
    x = rstorch.tensor([0.0], dtype=rstorch.float64, requires_grad=True)
    rstorch.xlogy(x, rstorch.tensor([float("nan")], dtype=rstorch.float64)).sum().backward()
    assert math.isnan(x.grad.item())
