"""What well-known public PyTorch programs use that rstorch lacked or did differently (the
programs and their runs are in BENCHMARKS.md, "Other real programs"): the calls of
tests/realprogs_cases.py against PyTorch's results (recorded by tests/record_realprogs.py into
fixtures/realprogs.json), and the parts that a recording cannot show (the CPU-only build's errors,
the reference PyTorch being a CUDA build)."""
import json
import math
import pathlib
import sys

import pytest

import rstorch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from realprogs_cases import cases  # noqa: E402
from tensorfns_cases import capture  # noqa: E402

RECORDED = json.loads((HERE.parent / "fixtures" / "realprogs.json").read_text())["cases"]
CASES = dict(cases())
RTOL = {"float64": 1e-12, "float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}


def same(got, want, name, dtype="float64"):
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (name, got, want)
        for key in want:
            same(got[key], want[key], name, want.get("dtype", dtype))
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (name, got, want)
        for g, w in zip(got, want):
            same(g, w, name, dtype)
    elif isinstance(want, float) and not isinstance(got, bool):
        assert (math.isnan(got) and math.isnan(want)) or abs(got - want) <= RTOL.get(dtype, 0) * abs(want), (name, got, want)
    else:
        assert got == want, (name, got, want)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_pytorch(name):
    same(capture(rstorch, CASES[name]), RECORDED[name], name)


def test_every_case_is_recorded():
    assert set(CASES) == set(RECORDED)


@pytest.mark.skipif(rstorch.cuda.is_available(), reason="the errors of a build without a GPU")
def test_cuda_legacy_types_without_gpu():
    # The reference PyTorch is a CUDA build on a host without a driver ("Found no NVIDIA
    # driver"); rstorch without a real GPU answers as PyTorch's CPU-only build does.
    with pytest.raises(TypeError, match=r"^type torch.cuda.FloatTensor not available. Torch not compiled with CUDA enabled.$"):
        rstorch.cuda.FloatTensor(2, 1)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        rstorch.ones(2).type(rstorch.cuda.FloatTensor)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        rstorch.ones(2).type("torch.cuda.LongTensor")
    assert repr(rstorch.cuda.FloatTensor) == "<class 'rstorch.cuda.FloatTensor'>"
    with pytest.raises(AttributeError, match="module 'rstorch.cuda' has no attribute 'NoSuchTensor'"):
        _ = rstorch.cuda.NoSuchTensor


def test_type_name_round_trips():
    # Tensor.type() names rstorch's own type; that name converts back, as torch's does in PyTorch.
    x = rstorch.ones(2, dtype=rstorch.int16)
    assert x.type() == "rstorch.ShortTensor"
    assert rstorch.ones(2).type(x.type()).dtype is rstorch.int16
    assert rstorch.ones(2).type("rstorch.DoubleTensor").dtype is rstorch.float64


OLD_STYLE_PROGRAM = """
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable
import torchvision.datasets as dsets
import torchvision.transforms as transforms
import matplotlib.pyplot as plt
from matplotlib import cm
from mpl_toolkits.mplot3d import Axes3D

cuda = torch.cuda.is_available()
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
train = dsets.MNIST(root="./mnist/", train=True, transform=transforms.ToTensor(), download=True)
images = Variable(torch.unsqueeze(train.train_data, dim=1)).type(Tensor)[:64] / 255.
labels = train.train_labels[:64]
padded = transforms.Pad(2)(train[0][0])
assert padded.shape == (1, 32, 32), padded.shape
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.5)
for step in range(20):
    valid = Variable(Tensor(images.size(0), 1).fill_(1.0), requires_grad=False)
    loss = nn.CrossEntropyLoss()(net(images), labels) + 0 * valid.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 0:
        first = loss.item()
fig, axes = plt.subplots(2, 3)
assert axes.shape == (2, 3)
for ax in axes[0, :]:
    ax.imshow(images[0].numpy().squeeze(), cmap=cm.rainbow)
Axes3D(fig).scatter([0], [0], [0])
print("LOSS", first, loss.item())
"""


def test_old_style_program_runs_with_the_stand_ins(tmp_path):
    # A program in the 2017-2018 style of PyTorch-GAN and MorvanZhou's tutorials, through
    # tools/run_as_torch.py with the stand-ins of tools/examples_standin, as BENCHMARKS.md's runs.
    import os
    import subprocess

    root = HERE.parent.parent
    (tmp_path / "main.py").write_text(OLD_STYLE_PROGRAM)
    # The rstorch under test: this checkout's python/, or the installed wheel the suite imports.
    rstorch_root = os.path.dirname(os.path.dirname(rstorch.__file__))
    env = dict(os.environ, RSTORCH_EXAMPLES_TRAIN="128", RSTORCH_EXAMPLES_TEST="32",
               PYTHONPATH=os.pathsep.join([str(root / "tools" / "examples_standin"), rstorch_root]))
    env.pop("RSTORCH_EXAMPLES_FRAMEWORK", None)
    proc = subprocess.run([sys.executable, str(root / "tools" / "run_as_torch.py"), str(tmp_path / "main.py")],
                          env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, last = map(float, proc.stdout.split("LOSS")[1].split())
    assert last < first
    assert "train_data has been renamed data" in proc.stderr
