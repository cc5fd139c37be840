"""torch.special's Bessel, error-function, incomplete-gamma, zeta and orthogonal-polynomial functions
against tests/fixtures/special2.json (tests/record_special2.py): float64 values against mpmath's
60-digit references (PyTorch's own float64 values are off by up to 1e-7 for J and Y), PyTorch's
values where the function is not real, float32 results at least as close as PyTorch's, PyTorch's
gradients, node names, dtypes and errors; then gradcheck and gradgradcheck."""
import builtins
import json
import math
import os

import numpy as np
import pytest

import rstorch
import rstorch.special as special

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "special2.json")
with open(FIXTURE) as f:
    CASES = json.load(f)
UNARY, BINARY = CASES["unary"], CASES["binary"]
# The float32 checks round inputs such as 1e300 to float32 on purpose (to inf).
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")

# (rtol, atol) against the 60-digit references. J, Y and Ai oscillate: near their zeros only an
# absolute error of order the rounding of their O(1) terms is attainable; elsewhere relative.
TOL = {name: (1e-13, 0.0) for name in list(UNARY) + list(BINARY)}
TOL.update({name: (1e-13, 3e-16) for name in ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai",
                                               "spherical_bessel_j0"]})
# The polynomials' values grow to 1e30 and more, their recurrences cancel: absolute error in
# units of the largest term.
TOL.update({name: (1e-12, 1e-13) for name in BINARY if "polynomial" in name})
TOL.update({"gammainc": (1e-12, 1e-300), "gammaincc": (1e-12, 1e-300), "zeta": (1e-13, 0.0)})


def floats(texts):
    return np.array([math.nan if t is None else float(t) for t in texts])


def t64(values):
    return rstorch.tensor(np.asarray(values, dtype=np.float64), dtype=rstorch.float64)


def check_against_reference(name, got, torch_values, ref_texts, where):
    rtol, atol = TOL[name]
    for i, (g, t, r) in enumerate(zip(got, torch_values, ref_texts)):
        if r is None or not math.isfinite(float(r)):
            # Off the real domain, at poles and at infinities: PyTorch's value.
            want = t if r is None else float(r)
            if math.isnan(want):
                assert math.isnan(g), (name, where(i), g, want)
            elif not math.isfinite(want) or r is None:
                assert g == want or abs(g - want) <= 1e-13 * abs(want), (name, where(i), g, want)
            continue
        r = float(r)
        bound = rtol * abs(r) + max(atol, 1e-320)
        if "polynomial" in name:
            bound = rtol * abs(r) + atol * max(1.0, abs(r))
        assert abs(g - r) <= bound, (name, where(i), g, r, abs(g - r) / max(abs(r), 1e-300))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float64_values(name):
    case = UNARY[name]
    x = floats(case["x"])
    got = getattr(special, name)(t64(x)).numpy()
    check_against_reference(name, got, floats(case["y64"]), case["ref"], lambda i: x[i])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32_is_float64_rounded_and_no_worse_than_pytorch(name):
    case = UNARY[name]
    x32 = floats(case["x"]).astype(np.float32)
    fn = getattr(special, name)
    got = fn(rstorch.tensor(x32)).numpy()
    exact = fn(t64(x32.astype(np.float64))).numpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, exact.astype(np.float32))
    torch32 = floats(case["y32"])
    with np.errstate(invalid="ignore", over="ignore"):
        ours = np.abs(got.astype(np.float64) - exact)
        theirs = np.abs(torch32 - exact)
    finite = np.isfinite(exact) & np.isfinite(got)
    assert np.all(ours[finite] <= np.maximum(np.nan_to_num(theirs[finite], nan=np.inf), np.abs(exact[finite]) * 2.0 ** -24 + 1e-45))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_nodes_dtypes_and_gradients(name):
    case = UNARY[name]
    fn = getattr(special, name)
    assert str(fn(rstorch.tensor([1, 2])).dtype).replace("rstorch", "torch") == case["int_dtype"]
    if case["grad_fn"] is None:
        x = t64([0.5, 1.5]).requires_grad_()
        y = fn(x)
        assert y.grad_fn is None and not y.requires_grad
        return
    x = t64(floats(case["grad_x"])).requires_grad_()
    y = fn(x)
    assert type(y.grad_fn).__name__ == case["grad_fn"]
    (g,) = rstorch.autograd.grad(y.sum(), x)
    # PyTorch's J and Y (and so their derivatives) are accurate to about 1e-7 only.
    rtol = 1e-6 if "bessel_j" in name or "bessel_y" in name else 1e-10
    np.testing.assert_allclose(g.numpy(), floats(case["grad"]), rtol=rtol, atol=1e-300)


GRAD_POINTS = {
    "i0e": [-2.0, -0.3, 0.6, 3.0], "i1": [-2.0, -0.3, 0.6, 3.0], "i1e": [-2.0, -0.3, 0.6, 3.0],
    "ndtri": [0.05, 0.3, 0.6, 0.9], "log_ndtr": [-6.0, -0.3, 0.6, 3.0], "erfcx": [-2.0, -0.3, 0.6, 3.0],
    "bessel_j0": [-2.0, -0.3, 0.6, 3.0], "bessel_j1": [-2.0, -0.3, 0.6, 3.0], "bessel_y0": [0.4, 1.3, 2.6, 7.0],
    "bessel_y1": [0.4, 1.3, 2.6, 7.0], "modified_bessel_i0": [-2.0, -0.3, 0.6, 3.0],
    "modified_bessel_i1": [-2.0, -0.3, 0.6, 3.0], "modified_bessel_k0": [0.4, 1.3, 2.6, 7.0],
    "modified_bessel_k1": [0.4, 1.3, 2.6, 7.0],
}


@pytest.mark.parametrize("name", sorted(GRAD_POINTS))
def test_unary_gradcheck_on_non_contiguous_and_broadcast_inputs(name):
    fn = getattr(special, name)
    base = t64([[v, v * 0.9] for v in GRAD_POINTS[name]]).requires_grad_()
    assert rstorch.autograd.gradcheck(lambda b: fn(b[:, 0]), (base,), eps=1e-6, atol=1e-6, rtol=1e-4)
    assert rstorch.autograd.gradcheck(lambda b: fn(b[:, :1].expand(4, 3)), (base,), eps=1e-6, atol=1e-6, rtol=1e-4)
    assert rstorch.autograd.gradgradcheck(lambda b: fn(b[:, 0]), (base,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float64_values(name):
    case = BINARY[name]
    a, b = floats(case["a"]), floats(case["b"])
    got = getattr(special, name)(t64(a), t64(b)).numpy()
    check_against_reference(name, got, floats(case["y64"]), case["ref"], lambda i: (a[i], b[i]))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float32_is_float64_rounded(name):
    case = BINARY[name]
    a, b = floats(case["a"]).astype(np.float32), floats(case["b"]).astype(np.float32)
    fn = getattr(special, name)
    got = fn(rstorch.tensor(a), rstorch.tensor(b)).numpy()
    assert got.dtype == np.float32
    if name != "xlog1py":  # composed of float32 ops, as PyTorch's
        np.testing.assert_array_equal(got, fn(t64(a.astype(np.float64)), t64(b.astype(np.float64))).numpy().astype(np.float32))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_dtypes_nodes_overloads_and_errors(name):
    case = BINARY[name]
    fn = getattr(special, name)
    ints = (rstorch.tensor([1, 2]), rstorch.tensor([2, 3]))
    if "int_error" in case:
        kind, message = case["int_error"]
        with pytest.raises(getattr(builtins, kind), match=message):
            fn(*ints)
    else:
        assert str(fn(*ints).dtype).replace("rstorch", "torch") == case["int_dtype"]
    for label, args in (("tensor_number", (t64([2.5, 3.0]).requires_grad_(), 2.0)),
                        ("number_tensor", (3.0, t64([0.5, 2.0]).requires_grad_()))):
        want = case["overloads"][label]
        if "error" in want:
            with pytest.raises(TypeError):
                fn(*args)
            continue
        y = fn(*args)
        np.testing.assert_allclose(y.detach().numpy(), floats(want["y"]), rtol=1e-13)
        assert str(y.dtype).replace("rstorch", "torch") == want["dtype"]
        assert (None if y.grad_fn is None else type(y.grad_fn).__name__) == want["grad_fn"]
    if "which" not in case:
        t = t64([0.5]).requires_grad_()
        y = fn(t, t)
        assert y.grad_fn is None and not y.requires_grad
        return
    ga, gb, which = case["grad_a"], case["grad_b"], case["which"]
    ta = t64(ga).reshape(-1, 1).requires_grad_(which[0])
    tb = t64(gb).requires_grad_(which[1])
    y = fn(ta, tb)
    assert type(y.grad_fn).__name__ == case["grad_fn"]
    grads = rstorch.autograd.grad(y.sum(), [t for t, w in zip((ta, tb), which) if w])
    for g, want in zip(grads, case["grads"]):
        np.testing.assert_allclose(g.numpy().reshape(-1), floats(want), rtol=1e-10)
    if "input_grad_error" in case:
        free = t64(ga).reshape(-1, 1).requires_grad_()
        with pytest.raises(NotImplementedError, match=case["input_grad_error"][1]):
            rstorch.autograd.grad(fn(free, tb).sum(), free)


@pytest.mark.parametrize("name", ["zeta", "gammainc", "gammaincc", "xlog1py"])
def test_binary_gradcheck_broadcast_and_non_contiguous(name):
    fn = getattr(special, name)
    a = t64({"zeta": [2.0, 3.5, 5.0], "xlog1py": [-1.5, 0.7, 2.0]}.get(name, [0.5, 2.0, 7.0])).reshape(3, 1)
    wide = t64([[0.3, 9.0], [1.0, 9.0], [2.5, 9.0], [6.0, 9.0]]).requires_grad_()
    if name == "xlog1py":
        a.requires_grad_()
        assert rstorch.autograd.gradcheck(lambda a, w: fn(a, w[:, 0]), (a, wide), eps=1e-6, atol=1e-6, rtol=1e-4)
        assert rstorch.autograd.gradgradcheck(lambda a, w: fn(a, w[:, 0]), (a, wide), eps=1e-6, atol=1e-5, rtol=1e-3)
    else:
        assert rstorch.autograd.gradcheck(lambda w: fn(a, w[:, 0]), (wide,), eps=1e-6, atol=1e-6, rtol=1e-4)
        assert rstorch.autograd.gradgradcheck(lambda w: fn(a, w[:, 0]), (wide,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_igamma_is_a_torch_function_and_a_tensor_method_with_in_place_forms():
    a, x = t64([0.5, 2.0, 7.0]), t64([0.3, 1.0, 6.0])
    p, q = rstorch.igamma(a, x), rstorch.igammac(a, x)
    np.testing.assert_allclose(a.igamma(x).numpy(), p.numpy(), rtol=0)
    np.testing.assert_allclose((p + q).numpy(), 1.0, rtol=1e-15)
    b = a.clone()
    b.igamma_(x)
    np.testing.assert_allclose(b.numpy(), p.numpy(), rtol=0)
    b = a.clone()
    b.igammac_(x)
    np.testing.assert_allclose(b.numpy(), q.numpy(), rtol=0)
    np.testing.assert_allclose(special.gammainc(a, x).numpy(), p.numpy(), rtol=0)
    with pytest.raises(TypeError):
        rstorch.igamma(a, 2.0)


def test_out_and_type_errors():
    x = t64([0.5, 1.5])
    out = rstorch.empty(2, dtype=rstorch.float64)
    assert special.i0e(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), special.i0e(x).numpy(), rtol=0)
    with pytest.raises(TypeError, match="must be Tensor"):
        special.bessel_j0(0.5)


def test_aliases_of_the_modified_bessel_functions():
    x = t64([-3.0, -0.5, 0.0, 0.7, 12.0, 40.0])
    np.testing.assert_array_equal(special.modified_bessel_i0(x).numpy(), special.i0(x).numpy())
    np.testing.assert_allclose(special.i1e(x).numpy(), (special.i1(x) * (-x.abs()).exp()).numpy(), rtol=1e-14)


@pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")
def test_the_device_refuses_the_kernels_it_lacks_and_runs_the_composed_ones():
    x = rstorch.tensor([0.5, 1.0]).to("wgpu")
    for call in (lambda: special.bessel_j0(x), lambda: special.zeta(x, x), lambda: rstorch.igamma(x, x),
                 lambda: special.legendre_polynomial_p(x, 2)):
        with pytest.raises(NotImplementedError, match="wgpu"):
            call()
    # xlog1py is composed of ops the device has.
    np.testing.assert_allclose(special.xlog1py(x, x).cpu().numpy(), special.xlog1py(x.cpu(), x.cpu()).numpy(), rtol=1e-6)
