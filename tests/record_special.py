"""Records torch.special values and gradients from PyTorch for tests/python/test_special.py:
    /path/to/venv-with-torch/bin/python tests/record_special.py
writes tests/fixtures/special.json (floats as their repr, so NaN and the infinities survive)."""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "fixtures", "special.json")
INF, NAN = float("inf"), float("nan")
INPUTS = {
    "entr": [-3.0, -1e-300, 0.0, 1e-300, 1e-8, 0.3, 1.0, 2.5, 40.0, INF, NAN],
    "ndtr": [-40.0, -8.0, -3.0, -0.5, 0.0, 0.5, 3.0, 8.0, 40.0, INF, -INF, NAN],
}


def encode(t):
    return [repr(float(v)) for v in t.tolist()]


def value_and_gradient(name, values):
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    y = getattr(torch.special, name)(x)
    y.backward(torch.ones_like(y))
    return {"x": encode(x.detach()), "y": encode(y.detach()), "grad": encode(x.grad)}


def main():
    out = {name: value_and_gradient(name, values) for name, values in INPUTS.items()}
    of_integers = torch.special.entr(torch.tensor([0, 1, 2]))
    out["entr_int"] = {"x": [0, 1, 2], "y": encode(of_integers), "dtype": str(of_integers.dtype)}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
