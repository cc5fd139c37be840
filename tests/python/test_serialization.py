"""rstorch.save / rstorch.load: round trips of every dtype and structure, PyTorch checkpoints
(tests/record_torch_checkpoint.py), files that try to run code, and corrupt or hostile files."""
import ast
import collections
import io
import json
import os
import pathlib
import pickle
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rstorch
from rstorch import nn, optim

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"
CHECKPOINT = FIXTURES / "torch_checkpoint.pt"
EXPECTED = np.load(FIXTURES / "torch_checkpoint_expected.npz")
CLEAN = (RuntimeError, ValueError, pickle.UnpicklingError)
DTYPES = [rstorch.float32, rstorch.float64, rstorch.float16, rstorch.bfloat16, rstorch.int64,
          rstorch.int32, rstorch.int16, rstorch.int8, rstorch.uint8, rstorch.bool]


def values(t):
    t = t.detach()
    if t.dtype == rstorch.bfloat16:
        t = t.float()
    return t.numpy()


def assert_same(a, b):
    """Deep equality of loaded and saved objects: same types, same containers, equal tensors."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, rstorch.Tensor):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        assert a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(values(a), values(b))
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys())
        for k in a:
            assert_same(a[k], b[k])
        assert getattr(a, "_metadata", None) == getattr(b, "_metadata", None)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, float) and a != a:
        assert b != b
    else:
        assert a == b


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    rstorch.save(obj, buf)
    buf.seek(0)
    return rstorch.load(buf, **load_kwargs)


# ----- round trips -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_dtype_round_trips(dtype):
    base = rstorch.arange(-6, 6).reshape(3, 4)
    t = (base > 0) if dtype == rstorch.bool else (base * 37 if dtype.is_floating_point else base * 11).to(dtype)
    if dtype.is_floating_point:
        t = t / 7
    out = roundtrip({"t": t, "scalar": t[1, 2], "empty": t[:0]})
    assert_same(out, {"t": t, "scalar": t[1, 2], "empty": t[:0]})


def test_extreme_values_are_bit_exact():
    f = rstorch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1e-45, 3.4e38])
    i = rstorch.tensor([-(2**63), 2**63 - 1, 0])
    out = roundtrip([f, i, f.double(), f.half(), f.bfloat16()])
    assert out[0].numpy().tobytes() == f.numpy().tobytes()
    assert out[1].tolist() == i.tolist()
    assert out[3].numpy().tobytes() == f.half().numpy().tobytes()


def test_nested_structures_keep_their_types():
    t = rstorch.randn(2, 3)
    obj = collections.OrderedDict(
        a=[1, 2.5, "x", None, True, (3, (4,), [t])],
        b={1: "one", (2, 3): t, 4.5: False, None: "none", "s": {"deep": {"er": [t.t()]}}},
        c=(), d=[], e={}, f=float("nan"), g=-2**70, h="ünï\u0000code", i={1, 2}, j=frozenset({"a"}),
        size=rstorch.Size([2, 3]), dtype=rstorch.bfloat16, device=rstorch.device("cpu"),
    )
    out = roundtrip(obj)
    assert_same(out, obj)
    assert isinstance(out["size"], rstorch.Size)


def test_shared_tensors_are_stored_once_and_stay_one_object():
    t = rstorch.randn(1000)
    buf = io.BytesIO()
    rstorch.save({"a": t, "b": [t, t]}, buf)
    one = io.BytesIO()
    rstorch.save({"a": t}, one)
    assert len(buf.getvalue()) - len(one.getvalue()) < 1000  # not another 4000 bytes of data
    buf.seek(0)
    out = rstorch.load(buf)
    assert out["a"] is out["b"][0] is out["b"][1]


def test_tensor_names_never_clash():
    t = rstorch.ones(2)
    obj = {"__metadata__": t + 1, "a.b": t + 2, "a": {"b": t + 3}, "": t + 4}
    out = roundtrip(obj)
    assert_same(out, obj)


def test_views_are_saved_as_their_values():
    base = rstorch.arange(24.0).reshape(4, 6)
    obj = {"t": base.t(), "row": base[2], "col": base[:, 1], "step": base[::2, ::3]}
    out = roundtrip(obj)
    assert_same(out, obj)
    # As in PyTorch, views keep their geometry and share the one storage they were saved with.
    assert out["t"].stride() == (1, 6) and out["step"].stride() == (12, 3)
    out["row"].add_(100)
    assert out["col"][2].item() == 113 and out["t"][1, 2].item() == 113
    # .safetensors paths store each view as its own contiguous values.
    path = FIXTURES.parent / "_views.safetensors"
    try:
        rstorch.save(obj, path)
        again = rstorch.load(path)
        assert_same(again, obj)
        assert again["t"].is_contiguous()
    finally:
        path.unlink(missing_ok=True)


def test_parameters_and_requires_grad_survive():
    p = nn.Parameter(rstorch.randn(3))
    frozen = nn.Parameter(rstorch.randn(2), requires_grad=False)
    leaf = rstorch.randn(2, requires_grad=True)
    out = roundtrip([p, frozen, leaf, leaf.detach()])
    assert type(out[0]) is nn.Parameter and out[0].requires_grad
    assert type(out[1]) is nn.Parameter and not out[1].requires_grad
    assert type(out[2]) is rstorch.Tensor and out[2].requires_grad
    assert not out[3].requires_grad


def test_model_state_dict_round_trip_through_a_path(tmp_path):
    torch = rstorch
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
    model(torch.randn(5, 3))  # moves the BatchNorm running statistics
    sd = model.state_dict()
    path = tmp_path / "model.pt"
    torch.save(sd, path)
    loaded = torch.load(path, map_location="cpu")
    assert isinstance(loaded, collections.OrderedDict)
    assert_same(loaded, sd)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
    fresh.load_state_dict(loaded)
    fresh.eval(), model.eval()
    x = torch.randn(4, 3)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())
    # str paths too; a .pt file is PyTorch's zip format, a .safetensors path an ordinary
    # safetensors file named by the state_dict keys.
    torch.save(sd, str(path))
    assert zipfile.ZipFile(path).namelist()[0] == "model/data.pkl"
    assert_same(torch.load(str(path)), sd)
    path = tmp_path / "model.safetensors"
    torch.save(sd, path)
    assert_same(torch.load(path), sd)
    raw = path.read_bytes()
    header = json.loads(raw[8:8 + struct.unpack("<Q", raw[:8])[0]])
    assert set(header) - {"__metadata__"} == set(sd)


def test_adam_state_dict_round_trip_continues_training():
    def make():
        rstorch.manual_seed(0)
        model = nn.Linear(4, 3)
        return model, optim.Adam(model.parameters(), lr=0.05, betas=(0.8, 0.95), amsgrad=True)

    def step(model, opt, x):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()

    xs = [rstorch.randn(6, 4) for _ in range(4)]
    model, opt = make()
    for x in xs[:2]:
        step(model, opt, x)
    sd = opt.state_dict()
    out = roundtrip({"model": model.state_dict(), "opt": sd})
    assert_same(out["opt"], sd)
    assert isinstance(out["opt"]["param_groups"][0]["betas"], tuple)
    assert list(out["opt"]["state"]) == [0, 1]  # int keys stay ints

    model2, opt2 = make()
    model2.load_state_dict(out["model"])
    opt2.load_state_dict(out["opt"])
    for x in xs[2:]:
        step(model, opt, x)
        step(model2, opt2, x)
    for a, b in zip(model.parameters(), model2.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_file_objects_are_read_from_their_position(tmp_path):
    path = tmp_path / "f.bin"
    with open(path, "wb") as fh:
        fh.write(b"prefix")
        rstorch.save({"x": rstorch.ones(2)}, fh)
    with open(path, "rb") as fh:
        fh.read(6)
        assert rstorch.load(fh)["x"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("where", ["cpu", None, rstorch.device("cpu"), {"cuda:0": "cpu"}])
def test_map_location_cpu_is_accepted(where):
    assert roundtrip({"x": rstorch.ones(1)}, map_location=where)["x"].tolist() == [1.0]


def test_map_location_elsewhere_is_refused():
    with pytest.raises(RuntimeError, match="cuda"):
        roundtrip({"x": rstorch.ones(1)}, map_location="cuda")


def test_objects_that_are_not_data_are_refused_at_save(tmp_path):
    # The zip format pickles: what pickle cannot name (a lambda) is refused as PyTorch's is.
    with pytest.raises((pickle.PicklingError, AttributeError), match="lambda"):
        rstorch.save({"f": lambda: 0}, io.BytesIO())
    # The safetensors format holds data only.
    with pytest.raises(TypeError, match="lambda|function"):
        rstorch.save({"f": lambda: 0}, tmp_path / "f.safetensors")
    with pytest.raises(TypeError, match="Linear"):
        rstorch.save(nn.Linear(2, 2), tmp_path / "m.safetensors")
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        rstorch.save(loop, tmp_path / "loop.safetensors")


def test_foreign_safetensors_file_loads_as_a_dict():
    header = json.dumps({"b": {"dtype": "I32", "shape": [2], "data_offsets": [0, 8]},
                         "a": {"dtype": "F64", "shape": [], "data_offsets": [8, 16]}}).encode()
    data = struct.pack("<Q", len(header)) + header + struct.pack("<2i", 7, -8) + struct.pack("<d", 2.5)
    out = rstorch.load(io.BytesIO(data))
    assert list(out) == ["b", "a"]
    assert out["b"].dtype == rstorch.int32 and out["b"].tolist() == [7, -8]
    assert out["a"].dtype == rstorch.float64 and out["a"].item() == 2.5 and out["a"].shape == ()


def test_import_stays_cheap():
    import subprocess
    import sys
    # Against what the interpreter had loaded before (a site hook may import zipfile itself).
    code = "import sys; before = set(sys.modules); import rstorch; " \
           "print(any(m in sys.modules and m not in before for m in ('zipfile', 'pickletools', " \
           "'rstorch.serialization', 'rstorch._torch_checkpoint')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----- PyTorch checkpoints -----------------------------------------------------------------------

def walk(obj, path=""):
    if isinstance(obj, rstorch.Tensor):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "nested":
                yield from walk(v, f"{path}/{k}" if path else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}/{i}")


def test_torch_checkpoint_loads_every_tensor():
    ck = rstorch.load(CHECKPOINT)
    tensors = dict(walk(ck))
    expected = {k for k in EXPECTED.files if not k.startswith("__") and not k.endswith(":dtype")}
    assert set(tensors) == expected
    for path, t in tensors.items():
        assert str(t.dtype).split(".")[-1] == str(EXPECTED[path + ":dtype"]), path
        want = EXPECTED[path]
        assert tuple(t.shape) == want.shape, path
        np.testing.assert_array_equal(values(t), want, err_msg=path)


def test_torch_checkpoint_structure_and_plain_values():
    ck = rstorch.load(CHECKPOINT, map_location="cpu", weights_only=True)
    assert ck["nested"] == ast.literal_eval(str(EXPECTED["__nested__"]))
    assert isinstance(ck["model"], collections.OrderedDict)
    assert ck["model"]._metadata[""] == {"version": 1}
    assert list(ck["model"]) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                 "1.running_var", "1.num_batches_tracked", "2.weight", "2.bias"]
    assert ck["opt"]["param_groups"][0]["betas"] == (0.8, 0.9)
    assert sorted(ck["opt"]["state"]) == list(range(6))
    assert ck["dtype"] is rstorch.bfloat16
    assert ck["size"] == rstorch.Size([2, 3]) and isinstance(ck["size"], rstorch.Size)
    assert type(ck["param"]) is nn.Parameter and ck["param"].requires_grad
    assert type(ck["frozen"]) is nn.Parameter and not ck["frozen"].requires_grad


def test_torch_checkpoint_views_share_storage():
    ck = rstorch.load(CHECKPOINT)
    base, row, col, tr = ck["base"], ck["row"], ck["column"], ck["transposed"]
    assert not tr.is_contiguous() and tr.stride() == (1, 6)
    assert row.storage_offset() == 12 and col.stride() == (6,)
    base.add_(100)
    assert row.tolist() == [v + 100 for v in range(12, 18)]
    assert tr[1, 0].item() == 101 and col[3].item() == 119


def test_torch_checkpoint_state_dict_loads_into_a_model():
    ck = rstorch.load(CHECKPOINT)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model.load_state_dict(ck["model"])
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), EXPECTED["model/0.weight"])


def test_torch_checkpoint_resaved_by_rstorch_is_equal():
    ck = rstorch.load(CHECKPOINT)
    again = roundtrip(ck)
    assert_same(again, ck)


# ----- files that try to run code ----------------------------------------------------------------

def zip_checkpoint(pkl, extra=None, name="archive"):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{name}/data.pkl", pkl)
        z.writestr(f"{name}/byteorder", "little")
        z.writestr(f"{name}/version", "3\n")
        for k, v in (extra or {}).items():
            z.writestr(f"{name}/{k}", v)
    return buf.getvalue()


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _payloads(marker):
    cmd = f"touch {marker}".encode()
    expr = b"__import__('os').system('" + cmd + b"')"
    return {
        "global_os_system": b"\x80\x02cos\nsystem\nX" + struct.pack("<I", len(cmd)) + cmd + b"\x85R.",
        "builtins_eval": b"\x80\x02cbuiltins\neval\nX" + struct.pack("<I", len(expr)) + expr + b"\x85R.",
        "stack_global_posix": b"\x80\x04\x8c\x05posix\x8c\x06system\x93X" + struct.pack("<I", len(cmd)) + cmd
                              + b"\x85R.",
        "reduce_of_a_class": pickle.dumps({"a": _Payload(marker)}, protocol=2),
        "inst_opcode": b"(S'" + cmd + b"'\nios\nsystem\n.",
        "nested_in_tensor_args": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(cos\nsystem\nX"
                                 + struct.pack("<I", len(cmd)) + cmd + b"\x85RK\x00)))tR.",
    }


@pytest.mark.parametrize("case", sorted(_payloads("x")))
def test_malicious_checkpoint_is_refused_and_nothing_runs(case, tmp_path):
    marker = tmp_path / "pwned"
    data = zip_checkpoint(_payloads(marker)[case])
    # Weights-only is the default, as in PyTorch; weights_only=False is a full unpickle (below).
    for kwargs in ({}, {"weights_only": True}, {"weights_only": None}):
        with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL (os|posix|builtins)"):
            rstorch.load(io.BytesIO(data), **kwargs)
    assert not marker.exists()


def test_the_payloads_do_run_under_a_plain_unpickler(tmp_path):
    # Proves the test above can fail: the same bytes run their command when unpickled naively.
    marker = tmp_path / "pwned"
    pickle.loads(_payloads(marker)["global_os_system"])
    assert marker.exists()


def test_bare_pickle_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "pwned"
    for pkl in (pickle.dumps(_Payload(marker)), pickle.dumps(_Payload(marker), protocol=5)):
        with pytest.raises(pickle.UnpicklingError, match="bare pickle"):
            rstorch.load(io.BytesIO(pkl))
    assert not marker.exists()


def test_refused_globals_are_named():
    data = zip_checkpoint(b"\x80\x02csubprocess\nPopen\n)R.")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL subprocess\.Popen"):
        rstorch.load(io.BytesIO(data))


def test_allowed_callables_cannot_be_modified_by_build():
    # BUILD on a global the loader hands out would rewrite it for later loads.
    data = zip_checkpoint(b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n}X\x08\x00\x00\x00__call__K\x01sb.")
    with pytest.raises(pickle.UnpicklingError):
        rstorch.load(io.BytesIO(data))
    assert rstorch.load(CHECKPOINT)["base"].shape == (4, 6)


# ----- corrupt and hostile files -----------------------------------------------------------------

def _p(value):
    """The opcodes that push `value` (a plain value), without the protocol header and STOP."""
    return pickle.dumps(value, protocol=2)[2:-1]


def storage_pickle(storage="FloatStorage", numel=4, offset=0, size=(2, 2), stride=(2, 1), key="0"):
    """A data.pkl of one tensor, written opcode by opcode the way torch.save writes it."""
    pid = b"(" + _p("storage") + b"ctorch\n" + storage.encode() + b"\n" + _p(key) + _p("cpu") + _p(numel) + b"tQ"
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + pid + _p(offset) + _p(tuple(size))
            + _p(tuple(stride)) + b"\x89ccollections\nOrderedDict\n)RtR.")


def test_hand_written_checkpoint_loads():
    data = zip_checkpoint(storage_pickle(), {"data/0": struct.pack("<4f", 1, 2, 3, 4)})
    assert rstorch.load(io.BytesIO(data)).tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("kwargs,match", [
    (dict(offset=1), "storage"),
    (dict(size=(3, 2)), "storage"),
    (dict(stride=(1 << 62, 1)), "overflow|storage"),
    (dict(size=(1 << 40, 1 << 40), stride=(0, 0)), "elements|overflow"),
    (dict(numel=5), "bytes"),
    (dict(numel=1 << 60), "bytes"),
    (dict(storage="UntypedStorage"), "Unsupported global"),
    (dict(key="../0"), "no entry"),
    (dict(size=(2,), stride=(1, 1)), "sizes|strides"),
    (dict(offset=-1), "offset"),
])
def test_inconsistent_tensor_records_are_refused(kwargs, match):
    data = zip_checkpoint(storage_pickle(**kwargs), {"data/0": struct.pack("<4f", 1, 2, 3, 4)})
    with pytest.raises(pickle.UnpicklingError, match=match):
        rstorch.load(io.BytesIO(data))


def test_zip_entry_declaring_more_than_it_holds_is_refused():
    pkl = storage_pickle()
    good = zip_checkpoint(pkl, {"data/0": struct.pack("<4f", 1, 2, 3, 4)})
    # Patch the declared uncompressed size of data/0 in its central-directory record.
    name = b"archive/data/0"
    cd = good.rindex(b"PK\x01\x02", 0, good.rindex(name))
    bad = bytearray(good)
    bad[cd + 24:cd + 28] = struct.pack("<I", 0xFFFFFFF0)
    with pytest.raises(pickle.UnpicklingError, match="declares|larger|zip|unreadable"):
        rstorch.load(io.BytesIO(bytes(bad)))


def test_deflate_bomb_is_refused_without_inflating_it():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data.pkl", storage_pickle(numel=(1 << 22)))
        z.writestr("archive/data/0", b"\0" * (1 << 24))  # 16 MiB of zeros, about 16 KB deflated
    data = buf.getvalue()
    assert len(data) < 64 << 10
    assert rstorch.load(io.BytesIO(data)).tolist() == [[0, 0], [0, 0]]
    # Within deflate's ratio this entry is honest; what the loader must not do is hand the
    # unpickler more than the entry's declared size or exceed the size in the pickle.
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("archive/data/0")
    assert info.file_size <= info.compress_size * 1100
    lying = bytearray(data)
    cd = data.rindex(b"PK\x01\x02", 0, data.rindex(b"archive/data/0"))
    lying[cd + 20:cd + 24] = struct.pack("<I", 100)  # claim 100 compressed bytes for 16 MiB
    with pytest.raises(pickle.UnpicklingError, match="declares|zip|unreadable"):
        rstorch.load(io.BytesIO(bytes(lying)))


def test_pickle_declaring_a_huge_bytes_object_is_refused():
    pkl = b"\x80\x04\x8e" + struct.pack("<Q", 1 << 50) + b"abc."  # BINBYTES8 of 2**50 bytes
    with pytest.raises(pickle.UnpicklingError, match="malformed"):
        rstorch.load(io.BytesIO(zip_checkpoint(pkl)))


def test_legacy_and_unknown_formats_are_refused():
    with pytest.raises(pickle.UnpicklingError, match="legacy"):
        rstorch.load(FIXTURES / "torch_legacy.pt")
    with pytest.raises(RuntimeError, match="truncated"):
        rstorch.load(io.BytesIO(b"\x01\x02"))
    with pytest.raises(RuntimeError, match="not an rstorch"):
        rstorch.load(io.BytesIO(b"hello world, this is text"))
    with pytest.raises(pickle.UnpicklingError, match="no data.pkl"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("readme.txt", "hi")
        rstorch.load(io.BytesIO(buf.getvalue()))


def safetensors_bytes(header, data):
    h = json.dumps(header).encode() if isinstance(header, dict) else header
    return struct.pack("<Q", len(h)) + h + data


@pytest.mark.parametrize("blob,match", [
    (struct.pack("<Q", 1 << 62) + b"{}", "invalid safetensors|HeaderTooLarge|not an rstorch"),
    (struct.pack("<Q", 50_000_000) + b"{" + b" " * 100, "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                        "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
     "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 80]}}, b"\0" * 8),
     "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8),
     "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "F32", "shape": [1 << 62, 1 << 62], "data_offsets": [0, 8]}},
                       b"\0" * 8), "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "F31", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8),
     "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8),
     "no rstorch equivalent"),
    (safetensors_bytes(b'{"a": \xff\xfe}', b""), "invalid safetensors"),
    (safetensors_bytes(b'{"a": [1, 2', b""), "invalid safetensors"),
    (safetensors_bytes({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 7),
     "invalid safetensors"),
])
def test_corrupt_safetensors_are_clean_errors(blob, match):
    with pytest.raises(RuntimeError, match=match):
        rstorch.load(io.BytesIO(blob))


@pytest.mark.parametrize("structure", [
    "not json", '{"@": "tensor", "key": "missing"}', '{"@": "dict", "items": [[[1], 2]]}',
    '{"@": "nope", "items": []}', '{"@": "dict", "items": [1]}', '{"@": "dtype", "name": "os"}',
    '{"@": "size", "items": [-1]}', "[" * 100000 + "]" * 100000,
])
def test_invalid_structure_metadata_is_a_clean_error(structure):
    data = rstorch._C._safetensors_save([], {"rstorch.version": "1", "rstorch.structure": structure})
    with pytest.raises(RuntimeError):
        rstorch.load(io.BytesIO(data))


# ----- mutation: any damage gives a clean error or a correct load -------------------------------

def _saved_file():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    obj = {"sd": model.state_dict(), "misc": (1, "two", [3.0, None]),
           "types": [rstorch.arange(4).to(d) for d in DTYPES]}
    buf = io.BytesIO()
    rstorch.save(obj, buf)
    return buf.getvalue()


SAVED = _saved_file()
TORCH_FILE = CHECKPOINT.read_bytes()
TORCH_PKL_START = TORCH_FILE.index(b"\x80\x02")


def load_or_clean_error(data):
    try:
        out = rstorch.load(io.BytesIO(data))
    except CLEAN:
        return None
    # Whatever loads must be usable: every tensor readable.
    for _, t in walk(out if isinstance(out, dict) else {"x": out}):
        t.detach().numpy() if t.dtype != rstorch.bfloat16 else t.float().numpy()
    return out


# RSTORCH_FUZZ=thorough is the long run `make fuzz` makes (about 7 minutes of these tests on one
# core); RSTORCH_FUZZ_EXAMPLES sets the count per test.
THOROUGH = os.environ.get("RSTORCH_FUZZ") == "thorough"
mutation = settings(max_examples=int(os.environ.get("RSTORCH_FUZZ_EXAMPLES", "30000")) if THOROUGH else 300,
                    deadline=None, suppress_health_check=[HealthCheck.too_slow])


@mutation
@given(st.data())
def test_bit_flips_in_rstorch_files(data):
    blob = bytearray(SAVED)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] ^= 1 << data.draw(st.integers(0, 7))
    load_or_clean_error(bytes(blob))


@mutation
@given(st.integers(0, len(SAVED) - 1))
def test_truncated_rstorch_files(n):
    with pytest.raises(CLEAN):
        rstorch.load(io.BytesIO(SAVED[:n]))


@mutation
@given(st.data())
def test_bit_flips_in_torch_checkpoints(data):
    blob = bytearray(TORCH_FILE)
    # Aim half of the flips at the pickle, where the interesting decisions are.
    lo = data.draw(st.sampled_from([0, TORCH_PKL_START]))
    hi = len(blob) - 1 if lo == 0 else TORCH_PKL_START + 2000
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(lo, hi))
        blob[i] ^= 1 << data.draw(st.integers(0, 7))
    load_or_clean_error(bytes(blob))


@mutation
@given(st.data())
def test_mutated_pickles_inside_valid_zips(data):
    pkl = bytearray(zipfile.ZipFile(CHECKPOINT).read("torch_checkpoint/data.pkl"))
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        i = data.draw(st.integers(0, len(pkl) - 1))
        if op == "flip":
            pkl[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "cut":
            del pkl[i:i + data.draw(st.integers(1, 16))]
        else:
            pkl[i:i] = data.draw(st.binary(min_size=1, max_size=8))
        if not pkl:
            pkl = bytearray(b".")
    storages = {n.split("/", 1)[1]: zipfile.ZipFile(CHECKPOINT).read(n)
                for n in zipfile.ZipFile(CHECKPOINT).namelist() if "/data/" in n}
    load_or_clean_error(zip_checkpoint(bytes(pkl), storages))


@mutation
@given(st.integers(0, len(TORCH_FILE) - 1))
def test_truncated_torch_checkpoints(n):
    with pytest.raises(CLEAN):
        rstorch.load(io.BytesIO(TORCH_FILE[:n]))
