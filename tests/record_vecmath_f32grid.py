"""Records PyTorch's float32 accuracy on the dense grid of tests/f32grid_common.py for
tests/python/test_vecmath_f32grid.py:
    /path/to/venv-with-torch/bin/python tests/record_vecmath_f32grid.py
writes tests/fixtures/vecmath_f32grid.json: for each function of the exp/log/activation and erf
families, asin, acos and atanh, PyTorch's largest error in float32 ulps over the grid (and the input where it is), and PyTorch's
results at the special values (stored as repr strings)."""
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import f32grid_common as g  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "vecmath_f32grid.json")

TORCH = {
    "exp": torch.exp, "exp2": torch.exp2, "expm1": torch.expm1, "log": torch.log, "log2": torch.log2,
    "log10": torch.log10, "log1p": torch.log1p, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": F.silu,
    "softplus": F.softplus, "mish": F.mish, "elu": F.elu, "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=g.CELU_ALPHA), "logsigmoid": F.logsigmoid,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "erf": torch.erf, "erfc": torch.erfc, "gelu": F.gelu,
    "asin": torch.asin, "acos": torch.acos, "atanh": torch.atanh,
}


def main():
    x = g.grid()
    xt = torch.from_numpy(x)
    sp = torch.tensor(g.SPECIALS, dtype=torch.float32)
    ops = {}
    for name, f in TORCH.items():
        err, i = g.max_ulp(f(xt).numpy(), g.reference(name, x))
        ops[name] = {"torch_max_ulp": err, "at": repr(float(x[i])), "torch_specials": [repr(v) for v in f(sp).tolist()]}
        print(f"{name:11s} {err:.4g} ulp at {float(x[i])!r}")
    meta = {"torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(), "grid_points": int(x.size)}
    with open(OUT, "w") as fh:
        json.dump({"meta": meta, "specials": [repr(v) for v in np.float32(g.SPECIALS).tolist()], "ops": ops}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
