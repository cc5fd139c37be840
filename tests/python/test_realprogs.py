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
