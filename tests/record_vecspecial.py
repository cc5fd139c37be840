"""Records the accuracy of PyTorch's CPU special functions for tests/python/test_vecspecial.py:
    /path/to/venv-with-torch/bin/python tests/record_vecspecial.py
writes tests/fixtures/vecspecial.json, in the form of tests/record_vecmath.py's fixture (whose
helpers it uses): for each op and dtype, sample inputs over the whole domain (uniform, every binade
of the magnitudes, and the approach to the ends of the domain), their exact values (mpmath at 40
digits, two float64 words), PyTorch's largest error on them in ulps, and PyTorch's results at the
special values."""
import json
import math
import os
import random
import sys

import mpmath as mp
import torch

sys.path.insert(0, os.path.dirname(__file__))
from record_vecmath import error, exact  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "vecspecial.json")
N = 400
F32_MAX, F32_TINY = 3.4028234663852886e38, 1.401298464324817e-45


def erfinv_samples(rng, dtype):
    """Uniform on (-1, 1), log-uniform magnitudes from the smallest subnormal, and 1 - d for d
    log-uniform down to the last float below 1."""
    lo = F32_TINY if dtype == "float32" else 5e-324
    eps = 2.0 ** -24 if dtype == "float32" else 2.0 ** -53
    xs = [rng.uniform(-1, 1) for _ in range(N)]
    xs += [math.exp(rng.uniform(math.log(lo), 0)) * rng.choice((1, -1)) for _ in range(N)]
    xs += [(1 - math.exp(rng.uniform(math.log(eps), 0))) * rng.choice((1, -1)) for _ in range(N)]
    return xs


def trigamma_samples(rng, dtype):
    """Uniform on (0, 20) and (-20, 0), and log-uniform magnitudes from 1e-30 to the largest float."""
    hi = F32_MAX if dtype == "float32" else 1e300
    xs = [rng.uniform(0, 20) for _ in range(N)] + [rng.uniform(-20, 0) for _ in range(N // 4)]
    return xs + [math.exp(rng.uniform(math.log(1e-30), math.log(hi))) for _ in range(N)]


OPS = {"trigamma": (lambda x: torch.polygamma(1, x), lambda x: mp.polygamma(1, x), trigamma_samples,
                    [0.0, -0.0, -1.0, -2.0, 1.0, 0.5, float("inf"), float("-inf"), float("nan"), 1e-45, 1e-300, 5e-324, 1e300]),
       "erfinv": (torch.erfinv, mp.erfinv, erfinv_samples,
                  [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, float("inf"), float("-inf"), float("nan"), 1e-45, -1e-45, 5e-324,
                   1e-300, 0.9999999403953552, 1 - 2.0 ** -53, -(1 - 2.0 ** -53), 0.5, -0.5])}


def record(torch_fn, f, sampler, specials, dtype, rng):
    t = getattr(torch, dtype)
    # Rounded to the dtype first: the exact values are those of the inputs the test will give.
    xs = torch.tensor(sampler(rng, dtype), dtype=t).tolist()
    pairs = [exact(f, x) for x in xs]
    top = F32_MAX if dtype == "float32" else math.inf
    keep = [i for i, (w, _) in enumerate(pairs) if abs(w) < top]
    xs, want, lo = [xs[i] for i in keep], [pairs[i][0] for i in keep], [pairs[i][1] for i in keep]
    got = torch_fn(torch.tensor(xs, dtype=t)).tolist()
    errs = [error(g, w, dtype, c) for g, w, c in zip(got, want, lo)]
    worst = max(range(len(errs)), key=lambda i: errs[i])
    sp = torch.tensor(specials, dtype=t).tolist()
    return {"x": [repr(v) for v in xs], "exact": [repr(v) for v in want], "exact_lo": [repr(v) for v in lo], "torch_max_ulp": errs[worst],
            "torch_worst_x": repr(xs[worst]), "specials": [repr(v) for v in sp], "torch_specials": [repr(v) for v in torch_fn(torch.tensor(sp, dtype=t)).tolist()]}


def main():
    torch.set_num_threads(1)
    mp.mp.dps = 40
    rng = random.Random(23)
    out = {"torch": torch.__version__, "ops": {}}
    for name in sorted(OPS):
        torch_fn, f, sampler, specials = OPS[name]
        out["ops"][name] = {d: record(torch_fn, f, sampler, specials, d, rng) for d in ("float32", "float64")}
        print(name, {d: round(v["torch_max_ulp"], 3) for d, v in out["ops"][name].items()})
    with open(OUT, "w") as fh:
        json.dump(out, fh)
        fh.write("\n")


if __name__ == "__main__":
    main()
