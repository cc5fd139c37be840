"""Records torchviz's drawings of the graphs of tests/viz_cases.py into fixtures/viz.json.

Run with a real PyTorch and torchviz:  /work/torchref/bin/python tests/record_viz.py
(`pip install torchviz graphviz`); tests/python/test_viz.py draws the same graphs with
rstorch.viz.make_dot and compares."""
import json
import pathlib
import sys

import torch
from torchviz import make_dot

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import viz_cases  # noqa: E402

if __name__ == "__main__":
    drawn = viz_cases.cases(torch, make_dot)
    (HERE / "fixtures" / "viz.json").write_text(json.dumps(drawn, indent=1, sort_keys=True) + "\n")
    print(f"{len(drawn)} graphs")
