"""Records PyTorch's behaviour of its sampling API for tests/python/test_random.py: for each
expression (written against a module named `torch`), the exception type and first line of its
message, or the result's dtype and shape. The values themselves differ by generator, so only
these are recorded. Run with a PyTorch install:

    /work/torchref/bin/python tests/record_random.py
"""
import json
import pathlib

import torch

CASES = [
    # bernoulli
    "torch.bernoulli(torch.tensor([1.5]))",
    "torch.bernoulli(torch.tensor([-0.5]))",
    "torch.bernoulli(torch.tensor([0.2, 0.7]))",
    "torch.bernoulli(torch.tensor([0.2], dtype=torch.float64))",
    "torch.bernoulli(torch.tensor([0.5]), 0.3)",
    "torch.bernoulli(torch.tensor([1, 0]))",
    "torch.zeros(3).bernoulli_(1.5)",
    "torch.zeros(3).bernoulli_(-0.1)",
    "torch.zeros(3).bernoulli_(torch.tensor([1.5, 0, 0]))",
    "torch.zeros(2, 3).bernoulli_(torch.tensor([0.5, 0, 1]))",
    "torch.zeros(3, dtype=torch.long).bernoulli_(0.5)",
    "torch.zeros(3, dtype=torch.long).bernoulli()",
    "torch.zeros(2, 2).bernoulli()",
    "torch.zeros(2, 2).bernoulli(0.5)",
    # normal
    "torch.normal(torch.zeros(2), torch.tensor([-1.0, 1.0]))",
    "torch.normal(0.0, -1.0, size=(2,))",
    "torch.normal(torch.zeros(2), -1.0)",
    "torch.normal(torch.zeros(2), -0.5)",
    "torch.normal(0.0, torch.tensor([-1.0, 1.0]))",
    "torch.normal(0.0, 1.0)",
    "torch.normal(0.0, 1.0, (2, 3))",
    "torch.normal(2, 3, size=(2,))",
    "torch.normal(0, 1, (2,), dtype=torch.float64)",
    "torch.normal(torch.zeros(2, dtype=torch.long), 1.0)",
    "torch.normal(torch.zeros(2), torch.ones(3))",
    "torch.normal(torch.zeros(2, 3), torch.ones(3))",
    "torch.normal(torch.zeros(2), torch.ones(2, dtype=torch.float64))",
    "torch.normal(torch.zeros(2, 3), 1.0)",
    "torch.normal(torch.zeros(3), torch.ones(1))",
    "torch.normal(0.0, torch.ones(3, dtype=torch.float64))",
    "torch.normal(torch.zeros(3, dtype=torch.float64))",
    # poisson
    "torch.poisson(torch.tensor([-1.0]))",
    "torch.poisson(torch.tensor([1]))",
    "torch.poisson(torch.tensor([2.0], dtype=torch.float64))",
    "torch.poisson(torch.ones(2, 3))",
    # in-place fills
    "torch.zeros(3).exponential_(0)",
    "torch.zeros(3).exponential_(-1)",
    "torch.zeros(2, dtype=torch.long).exponential_()",
    "torch.zeros(3, dtype=torch.float64).exponential_(2)",
    "torch.zeros(3).geometric_(0)",
    "torch.zeros(3).geometric_(1)",
    "torch.zeros(3).geometric_(1.5)",
    "torch.zeros(2, dtype=torch.long).geometric_(0.5)",
    "torch.zeros(3).log_normal_(1, 0)",
    "torch.zeros(3).log_normal_(1, -1)",
    "torch.zeros(2, dtype=torch.long).log_normal_()",
    "torch.zeros(2, dtype=torch.long).cauchy_()",
    "torch.zeros(2, dtype=torch.int32).cauchy_()",
    "torch.zeros(3).cauchy_(0, -1)",
    "torch.zeros(3).cauchy_(0, 0)",
    "torch.zeros(3).random_(5, 2)",
    "torch.zeros(3).random_(0)",
    "torch.zeros(2, dtype=torch.uint8).random_(300)",
    "torch.zeros(2, dtype=torch.uint8).random_(-1, 3)",
    "torch.zeros(2, dtype=torch.int8).random_(0, 200)",
    "torch.zeros(3, dtype=torch.int16).random_(2)",
    "torch.zeros(3, dtype=torch.bool).random_()",
    # generator state
    "torch.set_rng_state(torch.zeros(3))",
    "torch.set_rng_state([1])",
    "torch.Generator().set_state(torch.zeros(3))",
    "torch.Generator().set_state([1])",
    "torch.get_rng_state()",
    "torch.Generator().get_state()",
]


def describe(expr):
    try:
        r = eval(expr, {"torch": torch})
    except Exception as e:  # noqa: BLE001 - recording whatever PyTorch raises
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    return {"dtype": str(r.dtype), "shape": list(r.shape)}


# The largest value `random_()` draws per dtype (PyTorch: 2**digits for floating point).
def random_max(dtype):
    torch.manual_seed(0)
    return torch.zeros(200000, dtype=dtype).random_().max().item()


def main():
    out = {
        "cases": {expr: describe(expr) for expr in CASES},
        "random_max": {str(d): random_max(d) for d in (torch.float16, torch.bfloat16, torch.bool, torch.int8)},
        "signatures": {},
    }
    import inspect
    import torch.random as R
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"):
        out["signatures"][name] = [p.name for p in inspect.signature(getattr(R, name)).parameters.values()]
    path = pathlib.Path(__file__).parent / "fixtures" / "random.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
