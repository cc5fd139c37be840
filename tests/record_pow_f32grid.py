"""Records PyTorch's float32 pow accuracy on the grid of tests/pow_grid_common.py for
tests/python/test_quotient_pow.py:
    /path/to/venv-with-torch/bin/python tests/record_pow_f32grid.py
writes tests/fixtures/pow_f32grid.json: PyTorch's largest error in float32 ulps for pow(tensor,
tensor) and for each number exponent, and its results at the special pairs (repr strings)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import f32grid_common as g  # noqa: E402
import pow_grid_common as p  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "pow_f32grid.json")


def main():
    x = p.bases()
    y = p.exponents(x.size)
    xt = torch.from_numpy(x)
    cases = {}
    err, i = g.max_ulp(torch.pow(xt, torch.from_numpy(y)).numpy(), p.reference(x, y))
    cases["tensor"] = {"torch_max_ulp": err, "at": [repr(float(x[i])), repr(float(y[i]))]}
    for e in p.SCALAR_EXPONENTS:
        err, i = g.max_ulp((xt ** e).numpy(), p.reference(x, x * 0 + e))
        cases[repr(e)] = {"torch_max_ulp": err, "at": [repr(float(x[i])), repr(e)]}
    for k, v in cases.items():
        print(f"{k:8s} {v['torch_max_ulp']:.4g} ulp at {v['at']}")
    sx, sy = p.special_pairs()
    specials = torch.pow(torch.from_numpy(sx), torch.from_numpy(sy)).tolist()
    meta = {"torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(), "grid_points": int(x.size)}
    with open(OUT, "w") as fh:
        json.dump({"meta": meta, "cases": cases, "torch_specials": [repr(v) for v in specials]}, fh, indent=1)


if __name__ == "__main__":
    main()
