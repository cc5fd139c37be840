"""Records PyTorch's results for tests/python/test_conv3d.py: the outputs and input gradients
(float64) of the calls in tests/conv3d_cases.py, the type and message of each error case, and
the repr of each layer. Run with a PyTorch install:

    /work/torchref/bin/python tests/record_conv3d.py
"""
import json
import pathlib

import torch

import conv3d_cases

fixture = {
    "cases": {name: conv3d_cases.run(torch, case) for name, case in conv3d_cases.cases(torch).items()},
    "errors": {expr: conv3d_cases.capture(torch, expr) for expr in conv3d_cases.ERRORS},
    "layers": {expr: repr(eval(expr, {"t": torch})) for expr in conv3d_cases.LAYERS},
}
out = pathlib.Path(__file__).parent / "fixtures" / "conv3d.json"
out.write_text(json.dumps(fixture, sort_keys=True) + "\n")
print(f"wrote {out}: {len(fixture['cases'])} cases, {len(fixture['errors'])} errors, {len(fixture['layers'])} layers")
