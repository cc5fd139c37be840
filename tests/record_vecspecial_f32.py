"""Records PyTorch's float32 lgamma, digamma, erfcx and log_ndtr for tests/python/test_vecspecial.py:
    /path/to/venv-with-torch/bin/python tests/record_vecspecial_f32.py
writes tests/fixtures/vecspecial_f32.json in tests/record_vecspecial.py's form (whose `record` it
uses): sample inputs over the whole domain (uniform, every binade of the magnitudes of both signs,
and the approach to the points where the kernels change method or the function has a zero or a
pole), their exact values (mpmath, two float64 words), PyTorch's largest error in ulps, and
PyTorch's results and the exact values at the special values. Float32 only: float64 keeps its kernels."""
import json
import math
import os
import random
import sys

import mpmath as mp
import torch

sys.path.insert(0, os.path.dirname(__file__))
from record_vecmath import exact  # noqa: E402
from record_vecspecial import F32_MAX, N, record  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "vecspecial_f32.json")
# lgamma's zeros at 1, 2 and its first negative ones, digamma's positive zero, and poles.
GAMMA_NEAR = [1.0, 2.0, -2.457024738220800, -2.747682646727737, -3.143580888349980, -3.955294284858598,
        1.4616321449683622, -1.0, -3.0, -10.0]


# erfcx's and log_ndtr's changes of method (|x| = 1, erfc's fit's end 27.3 and its image under
# sqrt 2), and float32 erfcx's overflow near -9.4.
NORMAL_NEAR = [1.0, -1.0, 27.3, -27.3, 38.6, -38.6, -9.3, 0.0]


def sampler(width, near):
    def samples(rng, dtype):
        xs = [rng.uniform(-width, width) for _ in range(N)]
        xs += [math.exp(rng.uniform(math.log(1e-44), math.log(F32_MAX))) * rng.choice((1, -1)) for _ in range(N)]
        xs += [c + math.exp(rng.uniform(math.log(1e-7), 0)) * rng.choice((1, -1)) for c in near for _ in range(N // 10)]
        return xs
    return samples


def lgamma(x):
    return mp.re(mp.loggamma(x))


SPECIALS = {
    "lgamma": [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, 0.5, -0.5, 1e-45, -1e-45, 4e36, 3e38, -3e38,
               float("inf"), float("-inf"), float("nan")],
    "digamma": [0.0, -0.0, 1.0, -1.0, -2.0, 0.5, -0.5, 1e-45, -1e-45, 1e30, -1e30,
                float("inf"), float("-inf"), float("nan")],
    "erfcx": [0.0, -0.0, 1.0, -1.0, 1e-45, -1e-45, 9.3, -9.3, -9.4, 27.3, 40.0, -40.0, 3e38, -3e38,
              float("inf"), float("-inf"), float("nan")],
    "log_ndtr": [0.0, -0.0, 1.0, -1.0, 1e-45, -1e-45, 9.3, -9.3, 12.0, 40.0, -40.0, 3e38, -3e38,
                 float("inf"), float("-inf"), float("nan")],
}


def log_ndtr(x):
    # log1p above 0: log of 1 - 1e-32 would need more than the working digits.
    return mp.log1p(-mp.ncdf(-x)) if x > 0 else mp.log(mp.ncdf(x))


OPS = {"lgamma": (torch.lgamma, lgamma, sampler(20, GAMMA_NEAR)), "digamma": (torch.digamma, mp.digamma, sampler(20, GAMMA_NEAR)),
       "erfcx": (torch.special.erfcx, lambda x: mp.exp(x * x) * mp.erfc(x), sampler(40, NORMAL_NEAR)),
       "log_ndtr": (torch.special.log_ndtr, log_ndtr, sampler(40, NORMAL_NEAR))}


def main():
    torch.set_num_threads(1)
    mp.mp.dps = 40
    out = {"torch": torch.__version__, "ops": {}}
    for name in sorted(OPS):
        torch_fn, f, samples = OPS[name]
        # A generator per op: adding an op leaves the others' samples as they were.
        case = record(torch_fn, f, samples, SPECIALS[name], "float32", random.Random(name))
        # The special values' exact values too: PyTorch's are off by its own error (erfcx(-9.3)).
        case["specials_exact"] = [repr(exact(f, float(v))[0]) for v in case["specials"]]
        out["ops"][name] = {"float32": case}
        print(name, round(out["ops"][name]["float32"]["torch_max_ulp"], 3))
    with open(OUT, "w") as fh:
        json.dump(out, fh)
        fh.write("\n")


if __name__ == "__main__":
    main()
