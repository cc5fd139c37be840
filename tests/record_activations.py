"""Records PyTorch's values of the pointwise activations of `nn.functional` declared in the core's
op registry (`src/ops/unary.rs`, `with_params`) into fixtures/activations.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_activations.py
tests/python/test_activation_ops.py replays every case on rstorch. A case is {fn, kwargs, dtype,
x, y, sign, grad, grad_fn, grad_fn_inplace}: `y` is F.fn(x, **kwargs) and `sign` each value's sign
bit (-0.0 and the sign of NaN aside, which PyTorch does not define); `grad` is the gradient of
each element on its own (a one-element tensor: PyTorch's vectorized CPU loops disagree with its
own formula at NaN for some ops, hardtanh's gradient there being 0 in a long tensor and 1 in a
short one; the formula is the spec); `grad_fn` names the node. Where there is an inplace=True
form, `grad_inplace` and `grad_fn_inplace` are its gradient (on a non-leaf, element by element)
and node: leaky_relu_ and the elu family compute their gradient from the result, which loses
the digits of `alpha * exp(x)` far below zero.
"""
import json
import math
import pathlib

import torch
import torch.nn.functional as F

SPECIAL = [-math.inf, -1e30, -100.0, -25.0, -20.0, -3.0, -2.5, -1.0, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.5,
           1.0, 2.5, 3.0, 6.0, 7.0, 20.0, 25.0, 100.0, 1e30, math.inf, math.nan]

CASES = [
    ("threshold", {"threshold": 0.5, "value": -2.0}, [0.49, 0.5, 0.51]),
    ("threshold", {"threshold": -1.0, "value": 9.0}, []),
    ("hardtanh", {}, [-1.0, 1.0]),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}, [-0.5, 2.0]),
    ("relu6", {}, []),
    ("hardsigmoid", {}, [-3.0, 3.0, -2.999, 2.999]),
    ("hardswish", {}, [-3.0, 3.0, -2.999, 2.999]),
    ("mish", {}, [-40.0, 19.0, 21.0, 89.0, 710.0]),
    ("celu", {}, []),
    ("celu", {"alpha": 0.7}, [-1e-10]),
    ("celu", {"alpha": 2.5}, []),
    ("selu", {}, [-1e-10]),
    ("logsigmoid", {}, [-40.0, 40.0, -800.0, 800.0]),
    ("elu", {}, []),
    ("elu", {"alpha": 0.3}, []),
    ("leaky_relu", {"negative_slope": 0.2}, []),
    ("softplus", {"beta": 2.0, "threshold": 5.0}, [2.4, 2.6]),
]
HAS_INPLACE = {"threshold", "hardtanh", "relu6", "hardsigmoid", "hardswish", "mish", "celu", "selu", "elu",
               "leaky_relu"}


def sign(v):
    return None if math.isnan(v) else math.copysign(1.0, v)


def main():
    cases = []
    for fn, kwargs, extra in CASES:
        f = getattr(F, fn)
        for dtype in ["float32", "float64"]:
            dt = getattr(torch, dtype)
            xs = SPECIAL + extra
            y = f(torch.tensor(xs, dtype=dt), **kwargs)
            grads, grads_inplace = [], []
            for v in xs:
                x = torch.tensor([v], dtype=dt, requires_grad=True)
                out = f(x, **kwargs)
                grad_fn = type(out.grad_fn).__name__
                out.sum().backward()
                grads.append(x.grad.item())
                if fn in HAS_INPLACE:
                    x = torch.tensor([v], dtype=dt, requires_grad=True)
                    out = f(x * 1, inplace=True, **kwargs)
                    inplace = type(out.grad_fn).__name__
                    out.sum().backward()
                    grads_inplace.append(x.grad.item())
            case = {"fn": fn, "kwargs": kwargs, "dtype": dtype, "x": xs, "y": y.tolist(),
                    "sign": [sign(v) for v in y.tolist()], "grad": grads, "grad_fn": grad_fn}
            if fn in HAS_INPLACE:
                case.update(grad_inplace=grads_inplace, grad_fn_inplace=inplace)
            cases.append(case)
    out = pathlib.Path(__file__).resolve().parent / "fixtures" / "activations.json"
    out.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} cases -> {out}")


if __name__ == "__main__":
    main()
