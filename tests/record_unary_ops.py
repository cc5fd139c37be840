"""Records PyTorch's values of the ops added through the op registry (unary declarations and
composite declarations) into fixtures/unary_ops.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_unary_ops.py
tests/python/test_unary_registry.py replays every case on rstorch and compares. A case is
{op, dtype, x, y, grad (of y.sum() in float64), grad_fn} for a unary op and
{op, dtype, a, b, y, grad_a, grad_b, grad_fn} for a binary one (a of shape (n, 1) against b of
shape (m,): broadcast). The composite ops taking numbers and parameters (copysign, float_power,
isclose) record {op, args, kwargs, dtype, shape, y, sign, grad, grad_fn, next}: each of `args` is
{t: values, dtype, shape, grad: requires_grad} or {n: a Python number}; `sign` is each output's
sign bit (that of NaN and -0.0 included), `grad` the gradient of y.sum() per tensor argument
that requires it, `next` the node's next_functions by name.
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


NUMBER_OPS = ["copysign", "float_power", "isclose", "xlogy"]
SIGNED = [-math.inf, -3.5, -1.0, -1e-30, -0.0, 0.0, 1e-30, 2.0, 7.25, math.inf, math.nan]


def tensor_arg(values, dtype, shape=None, grad=False):
    return {"t": values, "dtype": dtype, "shape": shape if shape is not None else [len(values)], "grad": grad}


def record(op, args, **kwargs):
    """Runs torch.op(*args, **kwargs) and returns the case."""
    built = []
    for a in args:
        if "n" in a:
            built.append(a["n"])
        else:
            t = torch.tensor(a["t"], dtype=getattr(torch, a["dtype"])).reshape(a["shape"])
            built.append(t.requires_grad_() if a["grad"] else t)
    y = getattr(torch, op)(*built, **kwargs)
    flat = y.detach().reshape(-1).tolist()
    case = {"op": op, "args": args, "kwargs": kwargs, "dtype": str(y.dtype).removeprefix("torch."),
            "shape": list(y.shape), "y": flat, "sign": [math.copysign(1.0, v) for v in flat]}
    if y.grad_fn is not None:
        case["grad_fn"] = type(y.grad_fn).__name__
        case["next"] = [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions]
        y.sum().backward()
        case["grad"] = [b.grad.reshape(-1).tolist() if isinstance(b, torch.Tensor) and b.requires_grad else None
                        for b in built]
    return case


def number_op_cases():
    cases = []
    col = len(SIGNED)
    # copysign: every sign against every sign (-0.0 and NaN included), then numbers, then dtypes
    for dtype in ["float32", "float64"]:
        cases.append(record("copysign", [tensor_arg(SIGNED, dtype, [col, 1]), tensor_arg(SIGNED, dtype)]))
    for n in [-1, 0, -0.0, 2.5, True, False, -3, math.inf, -math.inf, math.nan]:
        cases.append(record("copysign", [tensor_arg(SIGNED, "float32"), {"n": n}]))
    for da, va, db, vb in [("int64", [1, -2, 3, 0], "int64", [-1, 1, 0, -5]), ("int64", [1, -2, 3, 0], "float32", [-1.0, 1.0, -0.0, 0.0]),
                           ("bool", [True, False, True, True], "bool", [True, True, False, True]),
                           ("float16", [1.5, -2.0, 0.0, 65504.0], "float32", [-1.0, 1.0, -0.0, -2.0]),
                           ("float32", [1.5, -2.0, 0.0, 3.0], "float64", [-1.0, 1.0, -0.0, -2.0]),
                           ("uint8", [3, 0, 255, 7], "int8", [-1, 1, 0, -128]),
                           ("bfloat16", [1.5, -2.0, 0.0, 3.0], "int64", [-1, 1, 0, -2])]:
        cases.append(record("copysign", [tensor_arg(va, da), tensor_arg(vb, db)]))
    cases.append(record("copysign", [tensor_arg([1, -2, 3], "int64"), {"n": -1.5}]))
    cases.append(record("copysign", [tensor_arg([1.5, -2.0], "float16"), {"n": -1}]))
    cases.append(record("copysign", [tensor_arg(3, "int32", []), {"n": -1}]))
    cases.append(record("copysign", [tensor_arg([1.0, 2.0], "float32"), tensor_arg(-1.0, "float64", [])]))
    # gradients: 0 where the input is 0, NaN where it is infinite or NaN, 0 for `other`
    grad_a = [-2.0, -0.0, 0.0, 0.5, 3.0, math.inf, -math.inf, math.nan]
    cases.append(record("copysign", [tensor_arg(grad_a, "float64", [8, 1], True), tensor_arg([1.0, -1.0, -0.0, 2.0], "float64", [4], True)]))
    cases.append(record("copysign", [tensor_arg(grad_a, "float64", [8], True), {"n": -2.0}]))
    cases.append(record("copysign", [tensor_arg(grad_a, "float32", [8], True), tensor_arg([-1.0], "float64", [1])]))
    cases.append(record("copysign", [tensor_arg([1.0, -2.0], "float64"), tensor_arg([1.0, -1.0], "float64", [2], True)]))
    # float_power: in float64 whatever the operands (float32 widened first), either one a number
    base = [0.0, -0.0, 0.5, 1.1, 2.0, 3.0, -2.0, -0.5, math.inf, math.nan]
    expo = [0.0, -1.0, 0.5, 2.0, 2.5, -3.0, math.inf, math.nan]
    for dtype in ["float32", "float64"]:
        cases.append(record("float_power", [tensor_arg(base, dtype, [len(base), 1]), tensor_arg(expo, dtype)]))
    cases.append(record("float_power", [tensor_arg([2, 3, -2, 0], "int64", [4, 1]), tensor_arg([2, -1, 0, 3], "int64")]))
    cases.append(record("float_power", [tensor_arg([True, False], "bool"), tensor_arg([True, True], "bool")]))
    cases.append(record("float_power", [tensor_arg([1.1, 2.0], "float16"), tensor_arg([2.0, 0.5], "bfloat16")]))
    for n in [2, 0.5, -1, 3.5, 0, True, -0.5]:
        cases.append(record("float_power", [tensor_arg(base, "float32"), {"n": n}]))
        cases.append(record("float_power", [{"n": n}, tensor_arg(expo, "float32")]))
    cases.append(record("float_power", [tensor_arg([2, 3], "int64"), {"n": 2}]))
    cases.append(record("float_power", [{"n": 2}, tensor_arg([2, -3], "int64")]))
    gbase = [0.0, -0.0, 0.5, 1.5, 2.0, -2.0]
    gexpo = [0.0, 0.5, 1.0, 2.0, -1.0]
    cases.append(record("float_power", [tensor_arg(gbase, "float64", [6, 1], True), tensor_arg(gexpo, "float64", [5], True)]))
    cases.append(record("float_power", [tensor_arg([0.5, 1.5, 2.0], "float32", [3, 1], True), tensor_arg(gexpo, "float32", [5], True)]))
    cases.append(record("float_power", [tensor_arg(gbase, "float32", [6], True), {"n": 2}]))
    cases.append(record("float_power", [tensor_arg(gbase, "float64", [6], True), {"n": 0.5}]))
    cases.append(record("float_power", [{"n": 0.0}, tensor_arg([0.0, 1.0, -1.0, 2.0], "float64", [4], True)]))
    cases.append(record("float_power", [{"n": 2}, tensor_arg(gexpo, "float32", [5], True)]))
    cases.append(record("float_power", [tensor_arg([2.0, 3.0], "float64", [2], True), tensor_arg([1.0, 2.0], "float32")]))
    # xlogy with a number on either side (XlogyBackward2 / XlogyBackward1), integers promoted
    xs = [-1.5, -0.0, 0.0, 0.5, 2.0, math.inf, math.nan]
    for n in [0, 0.0, 2, 0.5, -1.0, math.inf, math.nan, True]:
        cases.append(record("xlogy", [tensor_arg(xs, "float32"), {"n": n}]))
        cases.append(record("xlogy", [{"n": n}, tensor_arg(xs, "float64")]))
    cases.append(record("xlogy", [tensor_arg([0, 1, 2], "int64"), {"n": 3}]))
    cases.append(record("xlogy", [{"n": 2}, tensor_arg([0, 1, 2], "int32")]))
    cases.append(record("xlogy", [tensor_arg([0, 1, 2], "int64"), tensor_arg([2, 0, 3], "int64")]))
    cases.append(record("xlogy", [tensor_arg([0.0, 1.5], "float16"), {"n": 2.5}]))
    cases.append(record("xlogy", [tensor_arg([0.0, 1.5, -2.0, 3.0], "float64", [4], True), {"n": 2.5}]))
    cases.append(record("xlogy", [{"n": 1.5}, tensor_arg([0.5, 1.0, 2.0, 4.0], "float64", [4], True)]))
    cases.append(record("xlogy", [{"n": 0}, tensor_arg([0.5, 1.0, 2.0], "float32", [3], True)]))
    # isclose: every value against every value, then tolerances, equal_nan, integers and bools
    close_a = [1.0, 1.0 + 1e-6, 1.0 + 1e-4, -1.0, 0.0, -0.0, 1e-9, math.inf, -math.inf, math.nan]
    for dtype in ["float32", "float64"]:
        for kw in [{}, {"rtol": 0.1, "atol": 0.0}, {"rtol": 0.0, "atol": 1e-8}, {"rtol": 0.0, "atol": 0.0},
                   {"equal_nan": True}, {"rtol": math.inf}]:
            cases.append(record("isclose", [tensor_arg(close_a, dtype, [10, 1]), tensor_arg(close_a, dtype)], **kw))
    ints = [0, 1, 2, 3, 100, -100, 2**40, 2**40 + 1]
    for kw in [{}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 0.34, "atol": 0.0}, {"rtol": 0.0, "atol": 1.5}]:
        cases.append(record("isclose", [tensor_arg(ints, "int64", [8, 1]), tensor_arg(ints, "int64")], **kw))
    cases.append(record("isclose", [tensor_arg([0, 250, 5, 255], "uint8", [4, 1]), tensor_arg([5, 255, 0, 250], "uint8")], atol=5, rtol=0))
    cases.append(record("isclose", [tensor_arg([True, False], "bool", [2, 1]), tensor_arg([True, False], "bool")]))
    cases.append(record("isclose", [tensor_arg([True, False], "bool", [2, 1]), tensor_arg([True, False], "bool")], atol=1))
    cases.append(record("isclose", [tensor_arg([1.0, 2.0], "float64", [2], True), tensor_arg([1.0, 2.5], "float64")]))
    return cases


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
    cases += number_op_cases()
    path = pathlib.Path(__file__).resolve().parent / "fixtures" / "unary_ops.json"
    body = ",\n".join(" " + json.dumps(c) for c in cases)
    path.write_text(f'{{"torch": {json.dumps(torch.__version__)}, "cases": [\n{body}\n]}}\n')
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
