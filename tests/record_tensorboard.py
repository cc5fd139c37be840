"""Records what PyTorch's SummaryWriter writes, as read back by tensorboard's own EventAccumulator,
for tests/python/test_tensorboard.py. Run with the reference PyTorch and the tensorboard package:
PYTHONPATH=<dir with tensorboard> /work/torchref/bin/python tests/record_tensorboard.py"""
import json
import pathlib
import tempfile

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

import tb_program  # tests/tb_program.py: the program and the reader shared with the replaying test

with tempfile.TemporaryDirectory() as d:
    out = {"main": tb_program.main_program(SummaryWriter, torch.tensor, d + "/main"),
           "purge": tb_program.purge_program(SummaryWriter, torch.tensor, d + "/purge"),
           "media": tb_program.media_program(SummaryWriter, torch.tensor, d + "/media")}
path = pathlib.Path(__file__).parent / "fixtures" / "tensorboard.json"
path.write_text(json.dumps(out, indent=0, default=lambda v: np.asarray(v).tolist()) + "\n")
print(f"wrote {path}")
