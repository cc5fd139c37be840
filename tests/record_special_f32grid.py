"""Records PyTorch's float32 accuracy for the Bessel family (J0, J1, Y0, Y1, K0, K1, the scaled K,
I0, I1 and the scaled I), ndtri, erfinv, gammaln, digamma, erfcx, log_ndtr, airy_ai and
spherical_bessel_j0 on a dense grid, for tests/python/test_special_f32grid.py:
    /path/to/venv-with-torch/bin/python tests/record_special_f32grid.py
writes tests/fixtures/special_f32grid.json: per function, PyTorch's largest error in float32 ulps
(f32grid_common.max_ulp) against PyTorch's float64 result at the same inputs, where it is, and
PyTorch's float32 results at the special values (repr strings). The grid: every 4093rd float32
bit pattern of both signs (about 1M points, every binade)."""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import f32grid_common as g  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "special_f32grid.json")
NAMES = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "ndtri", "i0", "i1", "i0e", "i1e", "erfinv",
         "gammaln", "digamma", "erfcx", "log_ndtr", "airy_ai", "spherical_bessel_j0"]
STRIDE = 4093
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), -1.0, -1e-45, 1e-45, 1.1754943508222875e-38,
            3.4028234663852886e38, -3.4028234663852886e38, 8.0, 2.0, 0.5, 100.0, 1e4, 1.0, 0.9999999403953552,
            5.960464477539063e-08, 1.5]


def grid():
    bits = np.arange(0, 0x7F800000, STRIDE, dtype=np.uint32)
    pos = bits.view(np.float32)
    return np.concatenate([pos, -pos])


def main():
    x = grid()
    xt = torch.from_numpy(x)
    sp = torch.tensor(SPECIALS, dtype=torch.float32)
    ops = {}
    for name in NAMES:
        f = getattr(torch.special, name)
        err, i = g.max_ulp(f(xt).numpy(), f(xt.double()).numpy())
        ops[name] = {"torch_max_ulp": err, "at": repr(float(x[i])), "torch_specials": [repr(v) for v in f(sp).tolist()]}
        print(f"{name:27s} {err:.4g} ulp at {float(x[i])!r}")
    meta = {"torch": torch.__version__, "grid_points": int(x.size), "stride": STRIDE}
    with open(OUT, "w") as fh:
        json.dump({"meta": meta, "specials": [repr(v) for v in np.float32(SPECIALS).tolist()], "ops": ops}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
