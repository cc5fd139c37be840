"""Records PyTorch's torch.fx results for tests/fx_cases.py into fixtures/fx.json: for each traced
module the node list, generated code, graph text and outputs; the same after graph edits and
transforms; fx's errors. Run with a real PyTorch:  /work/torchref/bin/python tests/record_fx.py
tests/python/test_fx.py replays every case on rstorch."""
import json
import pathlib
import sys

import torch
import torch.fx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import fx_cases  # noqa: E402

fx_cases.setup(torch)
traced = {name: fx_cases.record(torch, torch.fx.symbolic_trace(root), inputs)
          for name, (root, inputs) in fx_cases.modules(torch).items()}
edited = {name: fx_cases.record(torch, gm, inputs) for name, (gm, inputs) in fx_cases.edits(torch).items()}
errors = {name: fx_cases.capture(fn) for name, fn in fx_cases.errors(torch).items()}
out = pathlib.Path(__file__).resolve().parent / "fixtures" / "fx.json"
out.write_text(json.dumps({"torch": torch.__version__, "traced": traced, "edited": edited, "errors": errors},
                          indent=1) + "\n")
print(f"{len(traced)} traced, {len(edited)} edited, {len(errors)} errors -> {out}")
