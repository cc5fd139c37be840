"""Records PyTorch's float32 accuracy on a dense grid of the whole float32 range, the bound for
native float32 kernels (issue 23 item 2): per function, PyTorch's largest error in ulps
against float64 on every STEP-th float32 bit pattern of both signs, and PyTorch's results at the
special values. It also records the largest error on the grid's points within 2^24 in
magnitude, where rstorch's float32 kernels take a cheaper reduction by π/2. Run with PyTorch's Python: /work/torchref/bin/python tests/record_vecmath_f32.py
(writes tests/fixtures/vecmath_f32.json, read by tests/python/test_vecmath_f32.py)."""
import json
import pathlib

import numpy as np
import torch

STEP = 4099
# rstorch's SMALL_ARGUMENT (src/cpu/vecmath_trig.rs): tensors within it take the cheap reduction.
SMALL = 16777216.0
OPS = ["sin", "cos", "tan"]
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, -1e-45, 1.1754943508222875e-38,
            3.4028234663852886e38, -3.4028234663852886e38, 1e30, -1e30, 131072.0, 131072.015625, 1e10,
            16777216.0, 1.5707963705062866, 3.1415927410125732, 0.7853981852531433, 2.0 ** -20]


def grid():
    pos = np.arange(0, 0x7F800000, STEP, dtype=np.uint32).view(np.float32)
    return np.concatenate([pos, -pos])


def ulp_errors(got32, want64):
    """|got - want| in float32 ulps at want (subnormal ulps below the normal range); a result
    that should be inf or NaN and is not (or the reverse) counts as inf."""
    got = got32.astype(np.float64)
    w32 = want64.astype(np.float32)
    e = np.maximum(np.frexp(np.abs(want64))[1] - 1, -126)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - want64) / np.ldexp(1.0, e - 23)
    special = ~np.isfinite(w32) | ~np.isfinite(got32)
    same = (got32 == w32) | (np.isnan(got32) & np.isnan(w32))
    err[special] = np.where(same[special], 0.0, np.inf)
    return err


def main():
    x = grid()
    tx = torch.from_numpy(x)
    out = {"step": STEP, "small": SMALL, "specials": SPECIALS, "ops": {}}
    for name in OPS:
        f = getattr(torch, name)
        got = f(tx).numpy()
        want = f(tx.double()).numpy()
        err = ulp_errors(got, want)
        i = int(np.argmax(err))
        small = np.abs(x) <= SMALL
        j = int(np.argmax(np.where(small, err, -1.0)))
        sp = f(torch.tensor(SPECIALS, dtype=torch.float32)).tolist()
        out["ops"][name] = {"torch_max_ulp": float(err[i]), "torch_worst_x": float(x[i]),
                            "torch_max_ulp_small": float(err[j]), "torch_worst_x_small": float(x[j]),
                            "torch_specials": [repr(v) for v in sp]}
        print(name, err[i], x[i], "within 2^24:", err[j], x[j])
    path = pathlib.Path(__file__).resolve().parent / "fixtures" / "vecmath_f32.json"
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
