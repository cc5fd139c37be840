"""Records torch.special's Bessel, error-function, incomplete-gamma, zeta and orthogonal-polynomial
functions for tests/python/test_special2.py:
    /work/torchref/bin/python tests/record_special2.py
writes tests/fixtures/special2.json (floats as their repr, so NaN and the infinities survive).

For each function and input: PyTorch's float64 and float32 values, and the reference from mpmath
at 60 significant digits rounded to float64 (None where the function is not real there; then
PyTorch's value is the specification), PyTorch's float64 gradients at points inside the domain,
its grad_fn names, and the dtype it gives integer inputs.
"""
import json
import math
import os

import mpmath as mp
import torch

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "special2.json")
INF, NAN = math.inf, math.nan
mp.mp.dps = 60

SIGNED = [-INF, -1e300, -800.0, -700.0, -100.0, -40.0, -30.5, -25.0, -24.9, -12.3, -5.0, -2.404825557695773, -1.0, -0.5,
          -1e-5, -1e-300, -0.0, 0.0, 1e-300, 1e-10, 1e-5, 0.1, 0.5, 0.9, 1.0, 1.5, 2.0, 2.404825557695773, 3.0, 3.8317059702075125,
          5.0, 7.5, 10.0, 12.3, 17.0, 24.9, 25.0, 25.1, 30.5, 50.0, 99.0, 200.0, 700.0, 713.0, 1e4, 1e8, 1e15, 1e300, INF, NAN]
POSITIVE = [x for x in SIGNED if not x < 0 and not (x == 0 and math.copysign(1, x) < 0)] + [-1.0, -0.0]
AIRY = [-INF, -1e6, -1000.0, -100.0, -30.0, -20.0, -10.5, -10.0, -9.9, -5.0, -2.338107410459767, -1.0, -0.5, -1e-10, 0.0,
        1e-10, 0.3, 0.999, 1.0, 1.001, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 104.0, 110.0, 1e10, INF, NAN]
PROB = [0.0, 5e-324, 1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.01, 0.1, 0.2, 0.2499, 0.25, 0.3, 0.4999, 0.5, 0.5001,
        0.6, 0.75, 0.7501, 0.9, 0.99, 0.999999, 1.0 - 2.0 ** -52, 1.0 - 2.0 ** -53, 1.0, -0.1, 1.1, INF, -INF, NAN]
ERFCX = [-INF, -30.0, -26.6, -26.0, -10.0, -3.0, -1.0, -0.5, -1e-10, -0.0, 0.0, 1e-10, 0.3, 0.5, 1.0, 2.0, 3.5, 5.0, 10.0,
         25.9, 26.0, 26.1, 30.0, 100.0, 1e5, 1e10, 1e100, 1e300, 1.7e308, INF, NAN]
LOG_NDTR = [-INF, -1e300, -1e10, -1e4, -40.0, -38.0, -20.0, -8.0, -5.0, -3.0, -1.0, -0.1, -0.0, 0.0, 0.1, 1.0, 3.0, 5.0,
            8.0, 10.0, 20.0, 38.0, 40.0, 1e10, INF, NAN]


def sign_odd(f):
    return lambda x: f(x)


def real_or_none(v):
    if isinstance(v, mp.mpc):
        if abs(v.imag) > 0:
            return None
        v = v.real
    return float(v)


def ref_scaled(f, scale):
    return lambda x: f(x) * scale(x)


REF_UNARY = {
    "i0e": lambda x: mp.besseli(0, x) * mp.exp(-abs(x)),
    "i1": lambda x: mp.besseli(1, x),
    "i1e": lambda x: mp.besseli(1, x) * mp.exp(-abs(x)),
    "ndtri": lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1) if 0 < p < 1 else None,
    "log_ndtr": lambda x: mp.log(mp.ncdf(x)) if x <= 0 else mp.log1p(-mp.ncdf(-x)),
    "erfcx": lambda x: mp.exp(x * x) * mp.erfc(x),
    "bessel_j0": lambda x: mp.besselj(0, x),
    "bessel_j1": lambda x: mp.besselj(1, x),
    "bessel_y0": lambda x: mp.bessely(0, x) if x > 0 else None,
    "bessel_y1": lambda x: mp.bessely(1, x) if x > 0 else None,
    "modified_bessel_i0": lambda x: mp.besseli(0, x),
    "modified_bessel_i1": lambda x: mp.besseli(1, x),
    "modified_bessel_k0": lambda x: mp.besselk(0, x) if x > 0 else None,
    "modified_bessel_k1": lambda x: mp.besselk(1, x) if x > 0 else None,
    "scaled_modified_bessel_k0": lambda x: mp.besselk(0, x) * mp.exp(x) if x > 0 else None,
    "scaled_modified_bessel_k1": lambda x: mp.besselk(1, x) * mp.exp(x) if x > 0 else None,
    "spherical_bessel_j0": lambda x: mp.sin(x) / x if x != 0 else mp.mpf(1),
    "airy_ai": lambda x: mp.airyai(x),
}
UNARY_INPUTS = {name: SIGNED for name in REF_UNARY}
UNARY_INPUTS.update({"ndtri": PROB, "erfcx": ERFCX, "log_ndtr": LOG_NDTR, "airy_ai": AIRY})
for name in ["bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
             "scaled_modified_bessel_k1"]:
    UNARY_INPUTS[name] = POSITIVE
# Points where PyTorch defines a finite gradient (away from poles and overflow).
GRAD_INPUTS = {
    "i0e": [-3.0, -0.5, 0.0, 0.7, 2.0, 40.0],
    "i1": [-3.0, -0.5, 0.0, 0.7, 2.0, 10.0],
    "i1e": [-3.0, -0.5, 0.0, 0.7, 2.0, 40.0],
    "ndtri": [0.01, 0.2, 0.5, 0.7, 0.95],
    "log_ndtr": [-30.0, -3.0, -0.5, 0.0, 1.0, 4.0],
    "erfcx": [-3.0, -0.5, 0.0, 0.7, 2.0, 30.0],
    "bessel_j0": [-3.0, -0.5, 0.0, 0.7, 2.0, 30.0],
    "bessel_j1": [-3.0, -0.5, 0.0, 0.7, 2.0, 30.0],
    "bessel_y0": [0.3, 0.7, 2.0, 6.0, 30.0],
    "bessel_y1": [0.3, 0.7, 2.0, 6.0, 30.0],
    "modified_bessel_i0": [-3.0, -0.5, 0.0, 0.7, 2.0, 10.0],
    "modified_bessel_i1": [-3.0, -0.5, 0.0, 0.7, 2.0, 10.0],
    "modified_bessel_k0": [0.3, 0.7, 2.0, 6.0, 30.0],
    "modified_bessel_k1": [0.3, 0.7, 2.0, 6.0, 30.0],
}

POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]
POLY_X = [-INF, -3.0, -1.5, -1.0, -0.999, -0.7, -0.3, -0.0, 0.0, 0.2, 0.5, 0.75, 0.999, 1.0, 1.2, 2.0, 5.0, INF, NAN]
POLY_N = [-3.0, -1.0, 0.0, 1.0, 2.0, 2.7, 3.0, 5.0, 6.0, 7.0, 12.0, 30.0, 70.0, 200.0, NAN]


def poly_ref(name, x, n):
    """The polynomial by its three-term recurrence in 60-digit arithmetic (exact enough)."""
    if math.isnan(n) or n < 0:
        return None
    n = int(n)
    x = mp.mpf(x)
    if name.startswith("shifted_"):
        name, x = name[len("shifted_"):], 2 * x - 1
    first = {"chebyshev_polynomial_t": x, "chebyshev_polynomial_u": 2 * x, "chebyshev_polynomial_v": 2 * x - 1,
             "chebyshev_polynomial_w": 2 * x + 1, "hermite_polynomial_h": 2 * x, "hermite_polynomial_he": x,
             "laguerre_polynomial_l": 1 - x, "legendre_polynomial_p": x}[name]

    def step(k, p, q):
        if name.startswith("chebyshev"):
            return 2 * x * p - q
        if name == "hermite_polynomial_h":
            return 2 * x * p - 2 * k * q
        if name == "hermite_polynomial_he":
            return x * p - k * q
        if name == "laguerre_polynomial_l":
            return ((2 * k + 1 - x) * p - k * q) / (k + 1)
        return ((2 * k + 1) * x * p - k * q) / (k + 1)

    if n == 0:
        return mp.mpf(1)
    q, p = mp.mpf(1), first
    for k in range(1, n):
        q, p = p, step(k, p, q)
    return p


def ref_float(v):
    if v is None:
        return None
    v = real_or_none(v)
    return None if v is None else repr(v)


def encode(t):
    return [repr(float(v)) for v in t.reshape(-1).tolist()]


def reference(f, *args, dps=60):
    if any(isinstance(a, float) and (math.isnan(a) or math.isinf(a)) for a in args):
        return None
    try:
        with mp.workdps(dps):
            return ref_float(f(*[mp.mpf(a) for a in args]))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def unary_case(name):
    xs = UNARY_INPUTS[name]
    f = getattr(torch.special, name)
    x64 = torch.tensor(xs, dtype=torch.float64)
    case = {
        "x": encode(x64),
        "y64": encode(f(x64)),
        "y32": encode(f(x64.float())),
        # erfinv(2p - 1) near p = 0 needs the digits of 2p - 1 + 1.
        "ref": [reference(REF_UNARY[name], v, dps=700 if name == "ndtri" else 60) for v in xs],
        "int_dtype": str(f(torch.tensor([1, 2])).dtype),
    }
    g = torch.tensor(GRAD_INPUTS.get(name, [0.5, 1.5]), dtype=torch.float64, requires_grad=True)
    y = f(g)
    case["grad_fn"] = type(y.grad_fn).__name__ if y.grad_fn is not None else None
    if y.grad_fn is not None:
        (grad,) = torch.autograd.grad(y.sum(), g)
        case["grad_x"], case["grad"] = encode(g.detach()), encode(grad)
    return case


ZETA_X = [-1.0, 0.5, 1.0, 1.0 + 1e-10, 1.5, 2.0, 3.0, 4.5, 10.0, 30.0, 100.0, INF, NAN]
ZETA_Q = [-3.0, -2.5, -1.5, -0.0, 0.0, 1e-5, 0.5, 1.0, 2.0, 7.5, 100.0, 1e9, INF, NAN]
GAMMA_A = [-1.0, 0.0, 1e-10, 0.01, 0.5, 1.0, 1.5, 3.0, 9.9, 10.0, 20.5, 100.0, 1000.0, 1e5, INF, NAN]
GAMMA_X = [-1.0, 0.0, 1e-300, 1e-10, 0.01, 0.5, 1.0, 2.0, 5.0, 9.0, 10.0, 11.0, 25.0, 100.0, 120.0, 1000.0, 1e5, 1e10,
           INF, NAN]
XLOG1PY_X = [-INF, -2.0, -0.0, 0.0, 1e-300, 0.5, 3.0, INF, NAN]
XLOG1PY_Y = [-INF, -2.0, -1.0, -0.5, -0.0, 0.0, 1e-20, 1.0, 1e300, INF, NAN]

REF_BINARY = {
    "zeta": lambda x, q: mp.zeta(x, q) if x > 1 and q > 0 else None,
    "gammainc": lambda a, x: mp.gammainc(a, 0, x, regularized=True) if a > 0 and x >= 0 else None,
    "gammaincc": lambda a, x: mp.gammainc(a, x, mp.inf, regularized=True) if a > 0 and x >= 0 else None,
    "xlog1py": lambda x, y: 0 if x == 0 else (x * mp.log1p(y) if y > -1 else None),
}
BINARY_GRID = {"zeta": (ZETA_X, ZETA_Q), "gammainc": (GAMMA_A, GAMMA_X), "gammaincc": (GAMMA_A, GAMMA_X),
               "xlog1py": (XLOG1PY_X, XLOG1PY_Y)}
BINARY_GRID.update({name: (POLY_X, POLY_N) for name in POLYS})
# (a, b) points with finite gradients, and which operands PyTorch differentiates.
BINARY_GRAD = {
    "zeta": ([2.0, 3.5, 5.0], [0.5, 1.0, 4.0], [False, True]),
    "gammainc": ([0.5, 2.0, 7.0], [0.3, 1.0, 6.0], [False, True]),
    "gammaincc": ([0.5, 2.0, 7.0], [0.3, 1.0, 6.0], [False, True]),
    "xlog1py": ([-1.5, 0.0, 2.0], [-0.5, 0.0, 3.0], [True, True]),
}


def binary_case(name):
    xs, ys = BINARY_GRID[name]
    pairs = [(x, y) for x in xs for y in ys]
    f = getattr(torch.special, name)
    a = torch.tensor([p[0] for p in pairs], dtype=torch.float64)
    b = torch.tensor([p[1] for p in pairs], dtype=torch.float64)
    ref = REF_BINARY.get(name) or (lambda x, n, name=name: poly_ref(name, x, n))
    case = {"a": encode(a), "b": encode(b), "y64": encode(f(a, b)), "y32": encode(f(a.float(), b.float())),
            # mpmath's Hurwitz zeta loses digits at 60 (ζ(30, 100) is off in the 13th): 120 there.
            "ref": [reference(ref, x, y, dps=120 if name == "zeta" else 60) if name in REF_BINARY else ref_float(poly_ref(name, x, y))
                    if not (math.isnan(x) or math.isinf(x)) else None for x, y in pairs]}
    try:
        case["int_dtype"] = str(f(torch.tensor([1, 2]), torch.tensor([2, 3])).dtype)
    except Exception as e:  # igamma refuses integers
        case["int_error"] = [type(e).__name__, str(e)]
    if name in BINARY_GRAD:
        ga, gb, which = BINARY_GRAD[name]
        ta = torch.tensor(ga, dtype=torch.float64).reshape(-1, 1).requires_grad_(which[0])
        tb = torch.tensor(gb, dtype=torch.float64).requires_grad_(which[1])
        y = f(ta, tb)
        case["grad_fn"] = type(y.grad_fn).__name__
        grads = torch.autograd.grad(y.sum(), [t for t, w in zip((ta, tb), which) if w])
        case["grad_a"], case["grad_b"], case["which"] = ga, gb, which
        case["grads"] = [encode(g) for g in grads]
        if not which[0]:
            try:
                free = ta.detach().requires_grad_()
                torch.autograd.grad(f(free, tb).sum(), free)
            except Exception as e:
                case["input_grad_error"] = [type(e).__name__, str(e)]
    else:
        t = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
        y = f(t, t)
        case["grad_fn"] = None if y.grad_fn is None else type(y.grad_fn).__name__
        case["requires_grad"] = y.requires_grad
    # The overloads taking a number: their nodes and values.
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    over = {}
    for label, args in (("tensor_number", (torch.tensor([2.5, 3.0], dtype=torch.float64, requires_grad=True), 2.0)),
                        ("number_tensor", (3.0, x))):
        try:
            y = f(*args)
            over[label] = {"y": encode(y.detach()), "dtype": str(y.dtype),
                           "grad_fn": None if y.grad_fn is None else type(y.grad_fn).__name__}
        except Exception as e:
            over[label] = {"error": [type(e).__name__, str(e)]}
    case["overloads"] = over
    return case


def main():
    out = {"unary": {name: unary_case(name) for name in REF_UNARY},
           "binary": {name: binary_case(name) for name in BINARY_GRID}}
    with open(OUT, "w") as fh:
        json.dump(out, fh, indent=0)
        fh.write("\n")


if __name__ == "__main__":
    main()
