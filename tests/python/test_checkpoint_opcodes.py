"""The .pt reader refuses pickles whose opcodes would modify a rebuilt tensor, Parameter or storage
(BUILD, SETITEM(S), APPEND(S) on them) or call anything but the rebuild functions, as PyTorch's
weights-only unpickler refuses what it cannot vouch for; real checkpoints (state dicts with their
`_metadata`, nested dicts and lists) still load."""
import collections
import io
import pickle
import struct

import pytest
import rstorch
from rstorch import nn
from test_serialization import CHECKPOINT, _p, storage_pickle, zip_checkpoint

DATA = {"data/0": struct.pack("<4f", 1, 2, 3, 4)}
TENSOR = storage_pickle()[:-1]                      # pushes the tensor [[1, 2], [3, 4]]
STORAGE = b"(" + _p("storage") + b"ctorch\nFloatStorage\n" + _p("0") + _p("cpu") + _p(4) + b"tQ"
PARAMETER = b"ctorch._utils\n_rebuild_parameter\n(" + TENSOR[2:] + b"\x88ccollections\nOrderedDict\n)RtR"
FLOAT32 = b"ctorch\nfloat32\n"


def load(body):
    return rstorch.load(io.BytesIO(zip_checkpoint(b"\x80\x02" + body + b".", DATA)))


@pytest.mark.parametrize("body, opcode", [
    # BUILD with a dict state would set attributes (`requires_grad`, `data`, `grad`) ...
    (TENSOR + b"}" + _p("requires_grad") + b"\x88sb", "BUILD"),
    # ... and with a tuple state PyTorch's legacy path calls `set_` with the file's geometry.
    (TENSOR + b"(" + STORAGE + _p(0) + _p((8,)) + _p((1,)) + b"tb", "BUILD"),
    (TENSOR + b"N}" + _p("data") + TENSOR[2:] + b"s\x86b", "BUILD"),
    (PARAMETER + b"}" + _p("requires_grad") + b"\x89sb", "BUILD"),
    (STORAGE + b"}" + _p("flat") + _p(0) + b"sb", "BUILD"),
    (FLOAT32 + b"}" + _p("itemsize") + _p(1) + b"sb", "BUILD"),
    (b"ctorch\nSize\n" + _p((2,)) + b"\x85R}" + _p("x") + _p(1) + b"sb", "BUILD"),
    (b"}" + b"}" + _p("x") + _p(1) + b"sb", "BUILD"),
    (b"]" + b"}" + _p("x") + _p(1) + b"sb", "BUILD"),
    # SETITEM on a tensor would write its elements.
    (TENSOR + _p(0) + _p(7.0) + b"s", "SETITEM"),
    (TENSOR + b"(" + _p(0) + _p(7.0) + _p(1) + _p(8.0) + b"u", "SETITEMS"),
    (PARAMETER + _p(0) + _p(7.0) + b"s", "SETITEM"),
    (STORAGE + _p(0) + _p(7.0) + b"s", "SETITEM"),
    (b"ccollections\nOrderedDict\n)R" + FLOAT32 + b"(" + _p("a") + _p(1) + b"u", "SETITEMS"),
    (b"]" + _p(0) + _p(1) + b"s", "SETITEM"),
    (TENSOR + _p(1.0) + b"a", "APPEND"),
    (b"}" + b"(" + _p(1) + b"e", "APPENDS"),
])
def test_opcodes_that_modify_rebuilt_objects_are_refused(body, opcode):
    with pytest.raises(pickle.UnpicklingError, match=f"Can only {opcode} "):
        load(body)


def test_refusals_name_the_object():
    with pytest.raises(pickle.UnpicklingError, match="but got <class 'rstorch.Tensor'>"):
        load(TENSOR + b"q\x00" + _p(0) + _p(7.0) + b"s")
    with pytest.raises(pickle.UnpicklingError, match="but got <class 'rstorch.nn.parameter.Parameter'>"):
        load(PARAMETER + b"}b")


@pytest.mark.parametrize("body", [
    FLOAT32 + b")R",                                   # a dtype is not a function
    TENSOR + b")R",                                    # nor is a tensor
    b"ctorch\nFloatStorage\n)R",
])
def test_reduce_calls_only_the_rebuild_functions(body):
    with pytest.raises(pickle.UnpicklingError, match="reduce|called directly"):
        load(body)


def test_a_state_dict_with_metadata_still_loads():
    # What torch.save writes for a state dict: an OrderedDict filled by SETITEMS, then BUILD with
    # its `_metadata`.
    meta = b"ccollections\nOrderedDict\n)R(" + _p("") + b"}" + _p("version") + _p(1) + b"su"
    body = (b"}(" + _p("sd") + b"ccollections\nOrderedDict\n)R(" + _p("w") + TENSOR + b"u}"
            + _p("_metadata") + meta + b"sb" + _p("list") + b"](" + _p(1) + TENSOR + b"e" + b"u")
    out = load(body)
    assert type(out["sd"]) is collections.OrderedDict and out["sd"]["w"].tolist() == [[1, 2], [3, 4]]
    assert out["sd"]._metadata == {"": {"version": 1}}
    assert out["list"][0] == 1 and out["list"][1].tolist() == [[1, 2], [3, 4]]


def test_ordered_dict_state_must_be_attribute_names():
    with pytest.raises(pickle.UnpicklingError, match="attribute names"):
        load(b"ccollections\nOrderedDict\n)R" + _p((None, {"x": 1})) + b"b")
    with pytest.raises(pickle.UnpicklingError, match="attribute names"):
        load(b"ccollections\nOrderedDict\n)R}" + _p(1) + _p(2) + b"sb")


def test_real_pytorch_checkpoint_still_loads():
    ck = rstorch.load(CHECKPOINT)
    assert ck["model"]._metadata[""] == {"version": 1}
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model.load_state_dict(ck["model"])
