"""rstorch.save's PyTorch zip format and rstorch.load's weights_only rules, against files written by
PyTorch 2.15 (tests/record_torch_objects.py) and by PyTorch's rules for what rstorch writes
(tests/check_zip_save_in_torch.py loads rstorch's files in real PyTorch)."""
import io
import json
import pathlib
import pickle
import pickletools
import zipfile

import numpy as np
import pytest

import rstorch
from rstorch import nn, optim
from rstorch import serialization

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "torch_objects"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


@pytest.fixture(autouse=True)
def _no_leftover_globals(monkeypatch):
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", raising=False)
    monkeypatch.delenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", raising=False)
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


def refusal(path, **kwargs):
    with pytest.raises(pickle.UnpicklingError) as info:
        rstorch.load(path, **kwargs)
    return f"UnpicklingError: {info.value}"


# ----- files written by PyTorch ------------------------------------------------------------------

def test_whole_module_from_pytorch(monkeypatch):
    exp = EXPECTED["linear"]
    path = FIXTURES / "linear.pt"
    assert refusal(path) == exp["refusal"]
    for load in (lambda: rstorch.load(path, weights_only=False),
                 lambda: rstorch.load(path, pickle_module=pickle)):
        model = load()
        assert type(model) is nn.Linear
        np.testing.assert_array_equal(model.weight.detach().numpy(), exp["weight"])
        assert type(model.weight) is nn.Parameter and model.weight.requires_grad
        out = model(rstorch.tensor(exp["input"], dtype=rstorch.float64))
        np.testing.assert_allclose(out.detach().numpy(), exp["output"], rtol=1e-15)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    assert type(rstorch.load(path)) is nn.Linear
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    # The class allowed by name (rstorch's class answers for PyTorch's path) loads it weights-only.
    with serialization.safe_globals([nn.Linear]):
        model = rstorch.load(path)
    assert type(model) is nn.Linear and model.out_features == 2
    assert refusal(path) == exp["refusal"]


def test_numpy_array_from_pytorch():
    exp = EXPECTED["numpy"]
    path = FIXTURES / "numpy.pt"
    assert refusal(path) == exp["refusal"]
    out = rstorch.load(path, weights_only=False)
    assert out["scale"] == 0.5
    np.testing.assert_array_equal(out["array"], exp["array"])
    assert out["array"].dtype == np.int64
    allowed = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.int64))]
    serialization.add_safe_globals(allowed)
    assert serialization.get_safe_globals() == allowed
    np.testing.assert_array_equal(rstorch.load(path)["array"], exp["array"])


def test_adam_state_dict_from_pytorch():
    exp = EXPECTED["adam"]
    assert exp["refusal"] is None
    sd = rstorch.load(FIXTURES / "adam.pt")
    st = sd["state"][0]
    assert float(st["step"]) == exp["step"]
    np.testing.assert_array_equal(st["exp_avg"].numpy(), exp["exp_avg"])
    np.testing.assert_array_equal(st["exp_avg_sq"].numpy(), exp["exp_avg_sq"])
    group = {k: list(v) if isinstance(v, tuple) else v for k, v in sd["param_groups"][0].items()}
    assert group == exp["param_groups"][0]
    w = nn.Parameter(rstorch.tensor([1.0, -2.0, 3.0], dtype=rstorch.float64))
    opt = optim.Adam([w], lr=0.1)
    opt.load_state_dict(sd)
    (w ** 2).sum().backward()
    opt.step()  # continues from PyTorch's moments


# ----- files written by rstorch ------------------------------------------------------------------

def saved(obj, name="ckpt"):
    buf = io.BytesIO()
    rstorch.save(obj, buf)
    return buf.getvalue()


def test_layout_is_pytorchs():
    base = rstorch.arange(12.0).reshape(3, 4)
    data = saved({"base": base, "row": base[1], "t": base.t(), "p": nn.Parameter(rstorch.ones(2)),
                  "i": rstorch.arange(3)})
    z = zipfile.ZipFile(io.BytesIO(data))
    names = z.namelist()
    assert names == ["archive/data.pkl", "archive/.format_version", "archive/.storage_alignment",
                     "archive/byteorder", "archive/data/0", "archive/data/1", "archive/data/2",
                     "archive/version", "archive/.data/serialization_id"]
    assert z.read("archive/version") == b"3\n" and z.read("archive/byteorder") == b"little"
    assert z.read("archive/.storage_alignment") == b"64"
    # Three storages for five tensors: the views share the first; data starts 64-byte aligned.
    assert len(z.read("archive/data/0")) == 48
    for info in z.infolist():
        if "/data/" in info.filename:
            start = info.header_offset + 30 + len(info.filename) + len(info.extra)
            assert start % 64 == 0
            assert data[info.header_offset + 30:info.header_offset + 30 + len(info.filename)] == \
                info.filename.encode()
    globals_ = {arg for op, arg, _ in pickletools.genops(z.read("archive/data.pkl")) if op.name == "GLOBAL"}
    assert globals_ == {"torch._utils _rebuild_tensor_v2", "torch._utils _rebuild_parameter",
                        "torch FloatStorage", "torch LongStorage", "collections OrderedDict"}
    out = rstorch.load(io.BytesIO(data))  # the data-only reader
    out["base"].add_(1)
    assert out["row"].tolist() == [5.0, 6.0, 7.0, 8.0] and out["t"][0, 2].item() == 9.0
    assert type(out["p"]) is nn.Parameter


def test_path_names_the_archive(tmp_path):
    rstorch.save([rstorch.ones(1)], tmp_path / "run.pth")
    assert zipfile.ZipFile(tmp_path / "run.pth").namelist()[0] == "run/data.pkl"


def test_any_picklable_object_round_trips():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = optim.Adam(model.parameters(), lr=0.01)
    model(rstorch.randn(2, 3)).sum().backward()
    opt.step()
    obj = {"model": model, "array": np.linspace(0, 1, 5), "opt": opt.state_dict(),
           "size": rstorch.Size([2, 3]), "dtype": rstorch.float16, "device": rstorch.device("cpu"),
           "bytes": b"\x00\xff", "set": {1, 2}, "complex": 1 + 2j}
    data = saved(obj)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch\.nn\.modules\.container\.Sequential"):
        rstorch.load(io.BytesIO(data))
    out = rstorch.load(io.BytesIO(data), weights_only=False)
    x = rstorch.randn(5, 3)
    np.testing.assert_array_equal(out["model"](x).detach().numpy(), model(x).detach().numpy())
    np.testing.assert_array_equal(out["array"], obj["array"])
    assert out["size"] == obj["size"] and isinstance(out["size"], rstorch.Size)
    assert out["dtype"] is rstorch.float16 and out["device"] == rstorch.device("cpu")
    assert (out["bytes"], out["set"], out["complex"]) == (b"\x00\xff", {1, 2}, 1 + 2j)
    # Weights-only reads the plain values protocol 2 writes with globals (bytes, set, complex).
    plain = rstorch.load(io.BytesIO(saved({k: obj[k] for k in ("bytes", "set", "complex", "size", "dtype")})))
    assert plain == {k: obj[k] for k in ("bytes", "set", "complex", "size", "dtype")}
    # An optimizer state dict alone is weights-only data, as in PyTorch.
    sd = rstorch.load(io.BytesIO(saved(opt.state_dict())))
    np.testing.assert_array_equal(sd["state"][0]["exp_avg"].numpy(), opt.state_dict()["state"][0]["exp_avg"].numpy())


def test_a_view_reaching_further_than_the_first_declares_the_whole_extent():
    base = rstorch.arange(10.0)
    out = rstorch.load(io.BytesIO(saved([base[:2], base[5:], base[3:4]])))
    assert [t.tolist() for t in out] == [[0.0, 1.0], [5.0, 6.0, 7.0, 8.0, 9.0], [3.0]]
    out[1][0] = -1.0
    assert out[0].tolist() == [0.0, 1.0] and out[1][0].item() == -1.0


def test_non_leaf_tensors_are_refused_as_in_pytorch():
    x = rstorch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        saved({"y": x * 2})


def test_safe_globals_context_restores_the_list():
    serialization.add_safe_globals([nn.ReLU])
    with serialization.safe_globals([nn.Linear]):
        assert serialization.get_safe_globals() == [nn.ReLU, nn.Linear]
    assert serialization.get_safe_globals() == [nn.ReLU]
    serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_weights_only_with_a_pickle_module_is_refused():
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        rstorch.load(FIXTURES / "adam.pt", pickle_module=pickle, weights_only=True)


def test_force_weights_only_env_wins(monkeypatch):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError):
        rstorch.load(FIXTURES / "linear.pt", weights_only=False)


def test_empty_tensors_and_protocols():
    ones = rstorch.ones(4)
    obj = [rstorch.zeros(0), rstorch.zeros(0, 3, dtype=rstorch.int64), ones[4:], ones[1:]]
    for protocol in (2, 3, 4, 5):
        buf = io.BytesIO()
        rstorch.save(obj, buf, pickle_protocol=protocol)
        buf.seek(0)
        out = rstorch.load(buf)
        assert [tuple(t.shape) for t in out] == [(0,), (0, 3), (0,), (3,)]
        assert out[1].dtype == rstorch.int64 and out[3].tolist() == [1.0, 1.0, 1.0]
