"""Records PyTorch's values of the ops added through the op registry (unary declarations and
composite declarations) into fixtures/unary_ops.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_unary_ops.py
tests/python/test_unary_registry.py replays every case on rstorch and compares. A case is
{op, dtype, x, y, grad (of y.sum() in float64), grad_fn} for a unary op and
{op, dtype, a, b, y, grad_a, grad_b, grad_fn} for a binary one (a of shape (n, 1) against b of
shape (m,): broadcast).
"""
import json
import math
import pathlib

import torch

INPUTS = {
    "atanh": [-1.0, -0.999, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.25, 0.5, 0.9, 0.999999, 1.0, 1.5, -2.0,
              math.inf, -math.inf, math.nan],
    "asinh": [-1e30, -1e10, -3.0, -1.0, -1e-8, -0.0, 0.0, 1e-12, 0.5, 1.0, 2.5, 100.0, 1e5, 1e10, 1e30,
              math.inf, -math.inf, math.nan],
    "acosh": [0.0, 0.5, 0.999, 1.0, 1.0 + 1e-7, 1.001, 1.5, 2.0, 10.0, 1e5, 1e10, 1e30, -1.0,
              math.inf, -math.inf, math.nan],
}
# Where the gradient is finite: the open domain.
GRAD_INPUTS = {
    "atanh": [-0.9, -0.5, -0.1, 0.0, 0.2, 0.7],
    "asinh": [-5.0, -1.0, 0.0, 0.3, 2.0, 40.0],
    "acosh": [1.1, 1.5, 2.0, 3.0, 10.0, 100.0],
}

BINARY = ["logaddexp", "logaddexp2", "hypot", "xlogy"]
BINARY_A = [-math.inf, -30.0, -1.5, -0.0, 0.0, 0.5, 2.0, 80.0, math.inf, math.nan]
BINARY_B = [-math.inf, -2.0, -0.0, 0.0, 1e-3, 0.5, 2.0, 100.0, math.inf, math.nan]
GRAD_A = [-2.0, -0.5, 0.3, 1.0, 4.0]
GRAD_B = [0.2, 1.0, 2.5, 7.0]


def main():
    cases = []
    for op, xs in INPUTS.items():
        for dtype in ["float32", "float64"]:
            x = torch.tensor(xs, dtype=getattr(torch, dtype))
            y = getattr(torch, op)(x)
            cases.append({"op": op, "dtype": dtype, "x": x.tolist(), "y": y.tolist()})
        x = torch.tensor(GRAD_INPUTS[op], dtype=torch.float64, requires_grad=True)
        y = getattr(torch, op)(x)
        y.sum().backward()
        cases.append({"op": op, "dtype": "float64", "x": x.tolist(), "y": y.tolist(), "grad": x.grad.tolist(),
                      "grad_fn": type(y.grad_fn).__name__})
        # integer inputs compute in the default float dtype
        xi = torch.tensor([1, 2, 3] if op != "atanh" else [0, 1, -1])
        yi = getattr(torch, op)(xi)
        cases.append({"op": op, "dtype": "int64", "x": xi.tolist(), "y": yi.tolist(), "out_dtype": str(yi.dtype)})
    for op in BINARY:
        for dtype in ["float32", "float64"]:
            a = torch.tensor(BINARY_A, dtype=getattr(torch, dtype)).reshape(-1, 1)
            b = torch.tensor(BINARY_B, dtype=getattr(torch, dtype))
            y = getattr(torch, op)(a, b)
            cases.append({"op": op, "dtype": dtype, "a": a.tolist(), "b": b.tolist(), "y": y.tolist()})
        a = torch.tensor(GRAD_A, dtype=torch.float64).reshape(-1, 1).requires_grad_()
        b = torch.tensor(GRAD_B, dtype=torch.float64).requires_grad_()
        y = getattr(torch, op)(a, b)
        y.sum().backward()
        cases.append({"op": op, "dtype": "float64", "a": a.tolist(), "b": b.tolist(), "y": y.tolist(),
                      "grad_a": a.grad.tolist(), "grad_b": b.grad.tolist(), "grad_fn": type(y.grad_fn).__name__})
    path = pathlib.Path(__file__).resolve().parent / "fixtures" / "unary_ops.json"
    body = ",\n".join(" " + json.dumps(c) for c in cases)
    path.write_text(f'{{"torch": {json.dumps(torch.__version__)}, "cases": [\n{body}\n]}}\n')
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
