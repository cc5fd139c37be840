"""Records the accuracy of PyTorch's CPU transcendental functions for tests/python/test_vecmath.py:
    /path/to/venv-with-torch/bin/python tests/record_vecmath.py
writes tests/fixtures/vecmath.json. For each op and dtype (float32, float64): sample inputs over
the whole useful range (uniform over the typical range plus log-uniform magnitudes across every
binade of the domain), their exact values (mpmath at 40 digits, as two float64 words), PyTorch's
largest error on them in ulps of the dtype, and PyTorch's results at the special values (NaN,
+-inf, +-0, subnormals, the largest floats). Floats are stored as their repr."""
import json
import math
import os
import random

import mpmath as mp
import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "vecmath.json")
mp.mp.dps = 40
N_UNIFORM, N_LOG = 300, 300
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, -1e-45, 1.1754943508222875e-38,
            3.4028234663852886e38, -3.4028234663852886e38, 1e-300, 5e-324, 1.7976931348623157e308]

SQ2PI = mp.sqrt(2 / mp.pi)
# gelu's tanh form as x sigmoid(2u), the same function: 1 + tanh(u) would cancel in the left tail
# beyond mpmath's 40 digits.
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def softplus(x):
    return x if x > 20 else mp.log1p(mp.exp(x))


# name: (PyTorch function, exact function, {dtype: (uniform range, log-uniform magnitude range, signs)})
OPS = {
    "exp": (torch.exp, mp.exp, {"float32": ((-103, 88), (1e-30, 88), "+-"), "float64": ((-745, 709), (1e-300, 709), "+-")}),
    "expm1": (torch.expm1, mp.expm1, {"float32": ((-20, 88), (1e-40, 88), "+-"), "float64": ((-40, 709), (1e-300, 709), "+-")}),
    "log": (torch.log, mp.log, {"float32": ((0, 10), (1e-44, 3e38), "+"), "float64": ((0, 10), (1e-320, 1e308), "+")}),
    "log2": (torch.log2, lambda x: mp.log(x, 2), {"float32": ((0, 10), (1e-44, 3e38), "+"), "float64": ((0, 10), (1e-320, 1e308), "+")}),
    "log10": (torch.log10, mp.log10, {"float32": ((0, 10), (1e-44, 3e38), "+"), "float64": ((0, 10), (1e-320, 1e308), "+")}),
    "log1p": (torch.log1p, mp.log1p, {"float32": ((-1, 1), (1e-44, 3e38), "+-1"), "float64": ((-1, 1), (1e-320, 1e308), "+-1")}),
    "sin": (torch.sin, mp.sin, {"float32": ((-10, 10), (1e-44, 3e38), "+-"), "float64": ((-10, 10), (1e-320, 1e300), "+-")}),
    "cos": (torch.cos, mp.cos, {"float32": ((-10, 10), (1e-44, 3e38), "+-"), "float64": ((-10, 10), (1e-320, 1e300), "+-")}),
    "tan": (torch.tan, mp.tan, {"float32": ((-10, 10), (1e-44, 3e38), "+-"), "float64": ((-10, 10), (1e-320, 1e300), "+-")}),
    "asin": (torch.asin, mp.asin, {"float32": ((-1, 1), (1e-44, 1), "+-"), "float64": ((-1, 1), (1e-320, 1), "+-")}),
    "acos": (torch.acos, mp.acos, {"float32": ((-1, 1), (1e-44, 1), "+-"), "float64": ((-1, 1), (1e-320, 1), "+-")}),
    "atan": (torch.atan, mp.atan, {"float32": ((-10, 10), (1e-44, 3e38), "+-"), "float64": ((-10, 10), (1e-320, 1e308), "+-")}),
    "sinh": (torch.sinh, mp.sinh, {"float32": ((-89, 89), (1e-44, 89), "+-"), "float64": ((-710, 710), (1e-320, 710), "+-")}),
    "cosh": (torch.cosh, mp.cosh, {"float32": ((-89, 89), (1e-44, 89), "+-"), "float64": ((-710, 710), (1e-320, 710), "+-")}),
    "tanh": (torch.tanh, mp.tanh, {"float32": ((-10, 10), (1e-44, 3e38), "+-"), "float64": ((-20, 20), (1e-320, 1e308), "+-")}),
    "asinh": (torch.asinh, mp.asinh, {"float32": ((-10, 10), (1e-44, 3e38), "+-"), "float64": ((-10, 10), (1e-320, 1e308), "+-")}),
    "acosh": (torch.acosh, mp.acosh, {"float32": ((1, 10), (1, 3e38), "+"), "float64": ((1, 10), (1, 1e308), "+")}),
    "atanh": (torch.atanh, mp.atanh, {"float32": ((-1, 1), (1e-44, 1), "+-"), "float64": ((-1, 1), (1e-320, 1), "+-")}),
    "erf": (torch.erf, mp.erf, {"float32": ((-5, 5), (1e-44, 10), "+-"), "float64": ((-7, 7), (1e-320, 10), "+-")}),
    "erfc": (torch.erfc, mp.erfc, {"float32": ((-5, 10), (1e-44, 10), "+-"), "float64": ((-7, 27), (1e-320, 27), "+-")}),
    "sigmoid": (torch.sigmoid, lambda x: 1 / (1 + mp.exp(-x)), {"float32": ((-80, 30), (1e-44, 80), "+-"), "float64": ((-700, 40), (1e-320, 700), "+-")}),
    "gelu": (F.gelu, lambda x: x * mp.erfc(-x / mp.sqrt(2)) / 2, {"float32": ((-12, 12), (1e-44, 12), "+-"), "float64": ((-37, 12), (1e-320, 37), "+-")}),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda x: x / (1 + mp.exp(-2 * SQ2PI * (x + mp.mpf("0.044715") * x ** 3))),
                  {"float32": ((-12, 12), (1e-44, 12), "+-"), "float64": ((-12, 12), (1e-320, 12), "+-")}),
    "silu": (F.silu, lambda x: x / (1 + mp.exp(-x)), {"float32": ((-80, 30), (1e-44, 80), "+-"), "float64": ((-700, 40), (1e-320, 700), "+-")}),
    "softplus": (F.softplus, softplus, {"float32": ((-80, 30), (1e-44, 80), "+-"), "float64": ((-700, 40), (1e-320, 700), "+-")}),
    "mish": (F.mish, lambda x: x * mp.tanh(mp.log1p(mp.exp(x))), {"float32": ((-40, 30), (1e-44, 80), "+-"), "float64": ((-700, 40), (1e-320, 700), "+-")}),
    "elu": (F.elu, lambda x: x if x > 0 else mp.expm1(x), {"float32": ((-20, 5), (1e-44, 80), "+-"), "float64": ((-40, 5), (1e-320, 700), "+-")}),
    "selu": (F.selu, lambda x: SELU_S * (x if x > 0 else SELU_A * mp.expm1(x)), {"float32": ((-20, 5), (1e-44, 80), "+-"), "float64": ((-40, 5), (1e-320, 700), "+-")}),
    "celu": (lambda x: F.celu(x, alpha=0.5), lambda x: x if x > 0 else mp.expm1(x / mp.mpf(0.5)) * mp.mpf(0.5),
             {"float32": ((-20, 5), (1e-44, 80), "+-"), "float64": ((-40, 5), (1e-320, 700), "+-")}),
    "logsigmoid": (F.logsigmoid, lambda x: -mp.log1p(mp.exp(-x)), {"float32": ((-30, 80), (1e-44, 80), "+-"), "float64": ((-40, 700), (1e-320, 700), "+-")}),
}


def ulp(v, dtype):
    """The ulp of `dtype` at the exact value v (subnormal ulps below the normal range)."""
    e = math.frexp(abs(v))[1] - 1 if v != 0 else -10000
    return 2.0 ** (max(e, -126) - 23) if dtype == "float32" else 2.0 ** (max(e, -1022) - 52)


def error(got, want, dtype, lo=0.0):
    if math.isinf(want) or math.isinf(got):
        return 0.0 if got == want else math.inf
    return abs((got - want) - lo) / ulp(want, dtype)


def samples(rng, spec, dtype):
    (lo, hi), (mlo, mhi), signs = spec
    cast = (lambda v: float(torch.tensor(v, dtype=torch.float32))) if dtype == "float32" else float
    xs = [cast(rng.uniform(lo, hi)) for _ in range(N_UNIFORM)]
    for _ in range(N_LOG):
        m = math.exp(rng.uniform(math.log(mlo), math.log(mhi)))
        if signs == "+-1":  # log1p: magnitudes above 0, and below 0 up to -1
            xs.append(cast(m if rng.random() < 0.5 else -min(m, 1.0)))
        else:
            xs.append(cast(m if signs == "+" or rng.random() < 0.5 else -m))
    return xs


def exact(f, x):
    """f(x) in two float64 words (hi, lo): float64 errors below one ulp stay measurable."""
    try:
        v = f(mp.mpf(x))
    except (ValueError, ZeroDivisionError):
        return math.nan, 0.0
    hi = float(v)
    return hi, (float(v - hi) if math.isfinite(hi) else 0.0)


def record(name, torch_fn, f, spec, dtype, rng):
    xs = samples(rng, spec, dtype)
    pairs = [exact(f, x) for x in xs]
    keep = [i for i, (w, _) in enumerate(pairs) if math.isfinite(w)]
    xs, want, lo = [xs[i] for i in keep], [pairs[i][0] for i in keep], [pairs[i][1] for i in keep]
    got = torch_fn(torch.tensor(xs, dtype=getattr(torch, dtype))).tolist()
    errs = [error(g, w, dtype, c) for g, w, c in zip(got, want, lo)]
    worst = max(range(len(errs)), key=lambda i: errs[i])
    specials = [v for v in SPECIALS if dtype == "float64" or float(torch.tensor(v, dtype=torch.float32)) == v or math.isnan(v)]
    sp = torch_fn(torch.tensor(specials, dtype=getattr(torch, dtype))).tolist()
    return {"x": [repr(v) for v in xs], "exact": [repr(v) for v in want], "exact_lo": [repr(v) for v in lo], "torch_max_ulp": errs[worst],
            "torch_worst_x": repr(xs[worst]), "specials": [repr(v) for v in specials], "torch_specials": [repr(v) for v in sp]}


def record_atan2(dtype, rng):
    big = 3e38 if dtype == "float32" else 1e300
    cast = (lambda v: float(torch.tensor(v, dtype=torch.float32))) if dtype == "float32" else float
    def one():
        m = math.exp(rng.uniform(math.log(1e-30), math.log(big))) if rng.random() < 0.5 else rng.uniform(0, 4)
        return cast(m if rng.random() < 0.5 else -m)
    ys, xs = [one() for _ in range(N_UNIFORM + N_LOG)], [one() for _ in range(N_UNIFORM + N_LOG)]
    pairs = [exact(lambda v, x=x: mp.atan2(v, mp.mpf(x)), y) for y, x in zip(ys, xs)]
    want, lo = [p[0] for p in pairs], [p[1] for p in pairs]
    t = getattr(torch, dtype)
    got = torch.atan2(torch.tensor(ys, dtype=t), torch.tensor(xs, dtype=t)).tolist()
    errs = [error(g, w, dtype, c) for g, w, c in zip(got, want, lo)]
    sv = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0]
    sy, sx = [y for y in sv for _ in sv], [x for _ in sv for x in sv]
    sp = torch.atan2(torch.tensor(sy, dtype=t), torch.tensor(sx, dtype=t)).tolist()
    return {"y": [repr(v) for v in ys], "x": [repr(v) for v in xs], "exact": [repr(v) for v in want], "exact_lo": [repr(v) for v in lo],
            "torch_max_ulp": max(errs),
            "special_y": [repr(v) for v in sy], "special_x": [repr(v) for v in sx], "torch_specials": [repr(v) for v in sp]}


def main():
    torch.set_num_threads(1)
    rng = random.Random(23)
    out = {"torch": torch.__version__, "ops": {}}
    for name, (torch_fn, f, specs) in OPS.items():
        out["ops"][name] = {dtype: record(name, torch_fn, f, spec, dtype, rng) for dtype, spec in specs.items()}
    out["ops"]["atan2"] = {dtype: record_atan2(dtype, rng) for dtype in ("float32", "float64")}
    for name, per in out["ops"].items():
        print(name, {d: round(v["torch_max_ulp"], 3) for d, v in per.items()})
    with open(OUT, "w") as fh:
        json.dump(out, fh)
        fh.write("\n")


if __name__ == "__main__":
    main()
