"""Records the strides (and values) PyTorch gives the results of elementwise ops, clone and the
*_like factories on transposed, permuted, sliced and broadcast inputs into fixtures/layout.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_layout.py
tests/python/test_layout_preserve.py replays every case (tests/layout_cases.py) on rstorch.
"""
import json
import pathlib

import torch

from layout_cases import CASES, RANDOM, SETUP


def main():
    env = {"torch": torch}
    exec(SETUP, env)
    out = []
    for name, expr in CASES:
        y = eval(expr, env)
        out.append({"name": name, "expr": expr, "shape": list(y.shape), "stride": list(y.stride()),
                    "is_contiguous": y.is_contiguous(), "dtype": str(y.dtype).replace("torch.", ""),
                    "values": None if name in RANDOM else y.tolist()})
    path = pathlib.Path(__file__).parent / "fixtures" / "layout.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out)} cases -> {path}")


if __name__ == "__main__":
    main()
