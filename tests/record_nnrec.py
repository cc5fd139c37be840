"""Records PyTorch's results of the cases in tests/nnrec_cases.py (recurrent cells, Transformer
decoder, EmbeddingBag, nn.utils weight/spectral norm, parametrize, functional_call, fusion) into
fixtures/nnrec.json for tests/python/test_nnrec.py.
Run with the reference PyTorch: /work/torchref/bin/python tests/record_nnrec.py"""
import json
import pathlib

import torch

import nnrec_cases

out = {name: nnrec_cases.capture(fn) for name, fn in nnrec_cases.cases(torch).items()}
path = pathlib.Path(__file__).parent / "fixtures" / "nnrec.json"
path.write_text(json.dumps(out) + "\n")
print(f"wrote {path}: {len(out)} cases, {sum('error' in v for v in out.values())} errors")
