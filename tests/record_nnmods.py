"""Records PyTorch's outputs, gradients, buffers, reprs and errors for tests/nnmods_cases.py into
fixtures/nnmods.json. Run with a real PyTorch:  /work/torchref/bin/python tests/record_nnmods.py
tests/python/test_nnmods.py replays every case on rstorch."""
import json
import pathlib

import torch
import torch.nn as nn
import torch.nn.functional as F

import nnmods_cases

values = {name: nnmods_cases.run(torch, fn, shapes)
          for name, (fn, shapes) in nnmods_cases.value_cases(torch, F, nn).items()}
reprs = {name: repr(m) for name, m in nnmods_cases.repr_cases(nn).items()}
errors = {name: nnmods_cases.capture(fn) for name, fn in nnmods_cases.error_cases(torch, F, nn).items()}
out = pathlib.Path(__file__).resolve().parent / "fixtures" / "nnmods.json"
out.write_text(json.dumps({"torch": torch.__version__, "values": values, "reprs": reprs, "errors": errors},
                          indent=1) + "\n")
print(f"{len(values)} value cases, {len(reprs)} reprs, {len(errors)} error cases -> {out}")
