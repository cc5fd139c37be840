"""Records PyTorch's results for tests/membound2_cases.py into tests/fixtures/membound2.json:

    /path/to/torch/python tests/record_membound2.py
"""
import json
import pathlib
import sys
import warnings

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from membound2_cases import capture, cases  # noqa: E402

warnings.simplefilter("ignore")
out = {name: capture(fn) for name, fn in cases(torch).items()}
path = pathlib.Path(__file__).parent / "fixtures" / "membound2.json"
path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
print(f"{len(out)} cases -> {path}")
