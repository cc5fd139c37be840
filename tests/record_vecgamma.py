"""Records PyTorch's float32 lgamma and digamma for tests/python/test_vecspecial.py:
    /path/to/venv-with-torch/bin/python tests/record_vecgamma.py
writes tests/fixtures/vecgamma.json in tests/record_vecspecial.py's form (whose `record` it uses):
sample inputs over the whole domain (uniform on (-20, 20), every binade of the magnitudes of both
signs, and the approach to lgamma's zeros at 1 and 2 and first negative ones, digamma's positive
zero and the poles), their exact values (mpmath, two float64 words), PyTorch's largest error in
ulps, and PyTorch's results at the special values. Float32 only: float64 keeps its kernels."""
import json
import math
import os
import random
import sys

import mpmath as mp
import torch

sys.path.insert(0, os.path.dirname(__file__))
from record_vecspecial import F32_MAX, N, record  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "vecgamma.json")
# lgamma's zeros at 1, 2 and its first negative ones, digamma's positive zero, and poles.
NEAR = [1.0, 2.0, -2.457024738220800, -2.747682646727737, -3.143580888349980, -3.955294284858598,
        1.4616321449683622, -1.0, -3.0, -10.0]


def samples(rng, dtype):
    xs = [rng.uniform(-20, 20) for _ in range(N)]
    xs += [math.exp(rng.uniform(math.log(1e-44), math.log(F32_MAX))) * rng.choice((1, -1)) for _ in range(N)]
    xs += [c + math.exp(rng.uniform(math.log(1e-7), 0)) * rng.choice((1, -1)) for c in NEAR for _ in range(N // 10)]
    return xs


def lgamma(x):
    return mp.re(mp.loggamma(x))


SPECIALS = {
    "lgamma": [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, 0.5, -0.5, 1e-45, -1e-45, 4e36, 3e38, -3e38,
               float("inf"), float("-inf"), float("nan")],
    "digamma": [0.0, -0.0, 1.0, -1.0, -2.0, 0.5, -0.5, 1e-45, -1e-45, 1e30, -1e30,
                float("inf"), float("-inf"), float("nan")],
}
OPS = {"lgamma": (torch.lgamma, lgamma), "digamma": (torch.digamma, mp.digamma)}


def main():
    torch.set_num_threads(1)
    mp.mp.dps = 40
    rng = random.Random(23)
    out = {"torch": torch.__version__, "ops": {}}
    for name in sorted(OPS):
        torch_fn, f = OPS[name]
        out["ops"][name] = {"float32": record(torch_fn, f, samples, SPECIALS[name], "float32", rng)}
        print(name, round(out["ops"][name]["float32"]["torch_max_ulp"], 3))
    with open(OUT, "w") as fh:
        json.dump(out, fh)
        fh.write("\n")


if __name__ == "__main__":
    main()
