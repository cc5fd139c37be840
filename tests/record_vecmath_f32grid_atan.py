"""Records PyTorch's float32 atan accuracy on the dense grid of tests/f32grid_common.py for
tests/python/test_vecmath_f32grid_atan.py:
    /path/to/venv-with-torch/bin/python tests/record_vecmath_f32grid_atan.py
writes tests/fixtures/vecmath_f32grid_atan.json: PyTorch's largest error in float32 ulps over the
grid against numpy's float64 arctan (and the input where it is), and its results at the special
values (repr strings)."""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import f32grid_common as g  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "vecmath_f32grid_atan.json")


def main():
    x = g.grid()
    with np.errstate(all="ignore"):
        ref = np.arctan(x.astype(np.float64))
    err, i = g.max_ulp(torch.atan(torch.from_numpy(x)).numpy(), ref)
    sp = torch.tensor(g.SPECIALS, dtype=torch.float32)
    case = {"torch_max_ulp": err, "at": repr(float(x[i])), "torch_specials": [repr(v) for v in torch.atan(sp).tolist()]}
    print(f"atan {err:.4g} ulp at {float(x[i])!r}")
    meta = {"torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(), "grid_points": int(x.size)}
    with open(OUT, "w") as fh:
        json.dump({"meta": meta, "specials": [repr(v) for v in np.float32(g.SPECIALS).tolist()], "ops": {"atan": case}}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
