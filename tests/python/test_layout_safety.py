"""Memory-safe layouts: no tensor's view reaches outside its storage, from any path that takes
sizes, strides and offsets from outside (checkpoints, `_strided_view`, `as_strided`, `set_`,
`from_numpy`) or derives them (views of views). Expected values and messages are PyTorch 2.x's."""
import io
import pickle
import struct
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import rstorch
from rstorch import _C
from test_serialization import storage_pickle, zip_checkpoint

CLEAN = (RuntimeError, ValueError, pickle.UnpicklingError)


def checkpoint(numel=8, **record):
    """A zip checkpoint of one float32 tensor over a storage of `numel` elements."""
    return zip_checkpoint(storage_pickle(numel=numel, **record),
                          {"data/0": struct.pack(f"<{numel}f", *range(numel))})


# ----- the .pt reader -----------------------------------------------------------------------------

def test_issue_example_stride_2_64_minus_1_is_refused_in_a_fresh_process(tmp_path):
    # Shape [2] with stride 2**64-1 once wrapped the storage extent to 0 and passed; writing
    # through numpy() then corrupted the heap. Run where a crash cannot take pytest down.
    path = tmp_path / "evil.pt"
    path.write_bytes(zip_checkpoint(storage_pickle(numel=8, size=(2,), stride=(2**64 - 1,)),
                                    {"data/0": struct.pack("<8f", *range(8))}))
    code = textwrap.dedent(f"""
        import pickle, rstorch
        try:
            w = rstorch.load({str(path)!r})
        except pickle.UnpicklingError as e:
            print("refused:", e)
        else:
            w.numpy()[:] = 7
            print("loaded", w.stride())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused:") and "int64" in out.stdout, out.stdout


@pytest.mark.parametrize("record", [
    {"size": (2,), "stride": (2**64 - 1,)},
    {"size": (2,), "stride": (2**63,)},
    {"size": (2,), "stride": (2**63 - 1,)},
    {"size": (1,), "stride": (2**64 - 1,)},
    {"size": (2, 2), "stride": (2**63, 2**63)},       # the two spans sum to 2**64
    {"size": (3,), "stride": (2**63 - 1,)},
    {"size": (2**32, 2**32), "stride": (2**32, 1)},
    {"size": (2,), "stride": (1,), "offset": 2**64 - 1},
    {"size": (2,), "stride": (1,), "offset": 2**63 - 1},
    {"size": (2**64 - 1,), "stride": (1,)},
    {"size": (0,), "stride": (1,), "offset": 2**63},
])
def test_checkpoint_geometry_outside_its_storage_is_refused(record):
    with pytest.raises(pickle.UnpicklingError, match="corrupt PyTorch checkpoint"):
        rstorch.load(io.BytesIO(checkpoint(**record)))


@pytest.mark.parametrize("record, values", [
    ({"size": (1, 4), "stride": (2**63 - 1, 1), "offset": 4}, [[4, 5, 6, 7]]),   # size-1 dims: any stride
    ({"size": (2, 2), "stride": (0, 3), "offset": 1}, [[1, 4], [1, 4]]),
    ({"size": (0, 5), "stride": (2**62, 2**62)}, []),
])
def test_checkpoint_geometry_inside_its_storage_loads(record, values):
    t = rstorch.load(io.BytesIO(checkpoint(**record)))
    assert t.tolist() == (values if values else [])
    t.numpy()[...] = 7
    assert (t.numpy() == 7).all()


@pytest.mark.parametrize("size, stride, offset", [
    ([2], [2**64 - 1], 0), ([2], [1], 2**64 - 1), ([2, 2], [2**63, 2**63], 0), ([2], [2**63 - 1], 0),
    ([2**64 - 1], [0], 0), ([4], [3], 0),
])
def test_strided_view_refuses_what_leaves_the_storage(size, stride, offset):
    flat = _C._storage_from_bytes(bytes(32), rstorch.float32)
    with pytest.raises(RuntimeError):
        _C._strided_view(flat, size, stride, offset)


# ----- as_strided ------------------------------------------------------------------------------------

X = rstorch.arange(12.)


@pytest.mark.parametrize("make, values, stride, offset", [
    (lambda: X.as_strided((3, 3), (1, 1)), [[0, 1, 2], [1, 2, 3], [2, 3, 4]], (1, 1), 0),
    (lambda: X.as_strided((2, 3), (3, 2), 2), [[2, 4, 6], [5, 7, 9]], (3, 2), 2),
    (lambda: X[4:].as_strided((2, 2), (0, 1)), [[4, 5], [4, 5]], (0, 1), 4),
    (lambda: X.view(3, 4).t().as_strided((2,), (5,), 1), [1, 6], (5,), 1),
    (lambda: rstorch.as_strided(X, (2,), (2,), 1), [1, 3], (2,), 1),
    (lambda: X.as_strided(size=[2], stride=[2], storage_offset=1), [1, 3], (2,), 1),
    (lambda: X.as_strided(rstorch.Size([2]), (rstorch.tensor(1),)), [0, 1], (1,), 0),
    (lambda: X.as_strided((), (), 7), 7, (), 7),
    # views of as_strided views
    (lambda: X.as_strided((3, 4), (4, 1)).t().narrow(0, 1, 2).select(1, 2), [9, 10], (1,), 9),
    (lambda: X.as_strided((4,), (2,), 1).unfold(0, 2, 1), [[1, 3], [3, 5], [5, 7]], (2, 2), 1),
    (lambda: X.as_strided((3, 3), (3, 1)).diagonal(), [0, 4, 8], (4,), 0),
    (lambda: X.as_strided((1, 3), (100, 1)).expand(2, 3), [[0, 1, 2], [0, 1, 2]], (0, 1), 0),
    (lambda: X.as_strided((2, 2), (2, 1))[:, ::2], [[0], [2]], (2, 2), 0),
])
def test_as_strided_views_the_storage(make, values, stride, offset):
    t = make()
    assert t.tolist() == values
    assert t.stride() == stride and t.storage_offset() == offset
    np.testing.assert_array_equal(t.numpy(), np.array(values, dtype=np.float32))


def test_as_strided_shares_memory_with_its_input():
    x = rstorch.zeros(6)
    v = x.as_strided((2, 2), (1, 2), 1)
    v.add_(1)
    assert x.tolist() == [0, 1, 1, 1, 1, 0]


@pytest.mark.parametrize("args, exc, match", [
    (((2,), (1,), 11), RuntimeError, (r"setStorage: sizes \[2\], strides \[1\], storage offset 11, and itemsize 4 "
                                      r"requiring a storage size of 52 are out of bounds for storage of size 48")),
    (((), (), 12), RuntimeError, "out of bounds for storage of size 48"),
    (((5,), (3,)), RuntimeError, "requiring a storage size of 52 are out of bounds"),
    (((2,), (-1,)), RuntimeError, r"as_strided: Negative strides are not supported at the moment, got strides: \[-1\]"),
    (((-2,), (1,)), RuntimeError, r"Storage size calculation overflowed with sizes=\[-2\] and strides=\[1\]"),
    (((2,), (1,), -1), RuntimeError, "Tensor: invalid storage offset -1"),
    (((2, 2), (1,)), RuntimeError, "mismatch in length of strides and shape"),
    (((2,), (2**63 - 1,)), RuntimeError, "Storage size calculation overflowed"),
    (((3,), (2**62,)), RuntimeError, "Storage size calculation overflowed"),
    (((2,), (1,), 2**62), RuntimeError, "Storage size calculation overflowed"),
    (((2**40, 2**40), (0, 0)), RuntimeError, "numel: integer multiplication overflow"),
    (((2,), (2**64 - 1,)), TypeError, "Overflow when unpacking long long"),
    (((2,), (2**63,)), TypeError, "Overflow when unpacking long long"),
    (((2.0,), (1,)), TypeError, "must be tuple of ints, but found element of type float"),
    ((2, 1), TypeError, "must be tuple of ints, not int"),
    (((2,), (1,), 1.5), TypeError, "must be int, not float"),
])
def test_as_strided_errors_are_pytorchs(args, exc, match):
    with pytest.raises(exc, match=match):
        X.as_strided(*args)


def test_as_strided_of_an_empty_shape_may_have_any_stride_and_offset():
    # PyTorch requires no storage for an empty view: its strides and offset are kept as given.
    e = X.as_strided((0, 5), (2**63 - 1, 2**63 - 1), 2**62)
    assert e.shape == (0, 5) and e.stride() == (2**63 - 1, 2**63 - 1) and e.storage_offset() == 2**62
    assert e.numpy().shape == (0, 5) and e.tolist() == []
    for v in (e.unsqueeze(1), e.t(), e[:, 1:], e.narrow(1, 5, 0), e.reshape(5, 0), e + 1, e.clone()):
        assert v.numel() == 0
    assert e.sum(0).tolist() == [0] * 5
    one = X.as_strided((1,), (2**63 - 1,), 3)
    assert one.tolist() == [3] and one.narrow(0, 1, 0).tolist() == []


@pytest.mark.parametrize("f, grad", [
    (lambda a: a.as_strided((2, 2), (1, 1)), [1, 5, 4, 0, 0, 0]),
    # output elements outside the input's own elements give it nothing
    (lambda a: a[2:].as_strided((3,), (1,), 0), [0, 0, 3, 0, 0, 0]),
    # input elements sharing storage split what reached it
    (lambda a: (a * 1)[:2].expand(3, 2).as_strided((2,), (1,), 0), [1, 2, 0, 0, 0, 0]),
    (lambda a: (a * 1).as_strided((2, 3), (0, 2), 1), [0, 5, 0, 7, 0, 9]),
    (lambda a: a.view(2, 3).t().as_strided((3,), (2,), 1), [0, 1, 0, 2, 0, 3]),
])
def test_as_strided_backward_is_pytorchs(f, grad):
    a = rstorch.arange(6.).requires_grad_()
    out = f(a)
    assert out.grad_fn.name() == "AsStridedBackward0"
    weights = rstorch.arange(1., 1 + out.numel()).reshape(out.shape)
    (out * weights).sum().backward()
    assert a.grad.tolist() == grad


def test_as_strided_gradcheck_and_gradgradcheck():
    a = rstorch.randn(5, dtype=rstorch.float64, requires_grad=True)
    f = lambda a: a.as_strided((3, 2), (1, 1), 1)
    assert rstorch.autograd.gradcheck(f, (a,))
    assert rstorch.autograd.gradgradcheck(f, (a,))


def test_in_place_through_an_as_strided_view_of_a_leaf_is_refused():
    leaf = rstorch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        leaf.as_strided((2,), (1,)).add_(1)


# ----- set_ --------------------------------------------------------------------------------------------

def test_set_forms():
    src = rstorch.arange(8.)
    x = rstorch.zeros(3)
    assert x.set_(src) is x
    assert x.shape == (8,) and x.data_ptr() == src.data_ptr()
    src.add_(1)
    assert x[0].item() == 1
    x = rstorch.zeros(3)
    x.set_(src, 1, (2, 2), (2, 1))
    assert x.tolist() == [[2, 3], [4, 5]] and x.storage_offset() == 1
    x.set_(src, 1, [2, 2])
    assert x.stride() == (2, 1)
    x.set_(source=src, storage_offset=2, size=(2,), stride=(3,))
    assert x.tolist() == [3, 6]
    assert x.set_().shape == (0,)


@pytest.mark.parametrize("args, exc, match", [
    ((7, (2,), (1,)), RuntimeError, ("storage offset 7, and itemsize 4 requiring a storage size of 36 are out of "
                                     "bounds for storage of size 32")),
    ((0, (3,), (4,)), RuntimeError, "out of bounds"),
    ((0, (2,), (-1,)), RuntimeError, r"Storage size calculation overflowed with sizes=\[2\] and strides=\[-1\]"),
    ((-1, (2,), (1,)), RuntimeError, "Tensor: invalid storage offset -1"),
    ((0, (2,), (2**63 - 1,)), RuntimeError, "Storage size calculation overflowed"),
    ((0, (2, 2), (1,)), RuntimeError, r"unequal size length \(2\) and stride length \(1\)"),
    ((0, (2,), (2**64 - 1,)), TypeError, "Overflow"),
    ((0, 2, 1), TypeError, "must be tuple of ints"),
])
def test_set_errors_are_pytorchs(args, exc, match):
    x = rstorch.zeros(3)
    with pytest.raises(exc, match=match):
        x.set_(rstorch.arange(8.), *args)
    assert x.tolist() == [0, 0, 0]


def test_set_type_and_autograd_rules():
    with pytest.raises(RuntimeError, match="Could not set tensor of type float to a tensor of type long int"):
        rstorch.zeros(3, dtype=rstorch.int64).set_(rstorch.ones(2))
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        rstorch.zeros(3).set_(3)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        rstorch.zeros(3).set_(rstorch.ones(2), 0)
    leaf = rstorch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        leaf.set_(rstorch.ones(2))
    with rstorch.no_grad():
        leaf.set_(rstorch.ones(2))
    assert leaf.requires_grad and leaf.tolist() == [1, 1]
    y = rstorch.zeros(3, requires_grad=True) * 2
    y.set_(rstorch.ones(2))
    assert y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for .*set_ is not implemented"):
        y.sum().backward()
    z = rstorch.zeros(2).set_(rstorch.ones(2, requires_grad=True))
    assert z.requires_grad


# ----- from_numpy -------------------------------------------------------------------------------------

NEGATIVE = "At least one stride in the given numpy array is negative"
ODD = "strides not a multiple of the element byte size"


@pytest.mark.parametrize("arr, match", [
    (np.arange(4.)[::-1], NEGATIVE),
    (np.zeros((1, 3))[::-1], NEGATIVE),
    (np.ndarray((3,), np.float32, np.zeros(16, np.uint8), 0, (5,)), ODD),
    (np.ndarray((1,), np.float32, np.zeros(16, np.uint8), 0, (5,)), ODD),
])
@pytest.mark.parametrize("convert", [rstorch.from_numpy, rstorch.as_tensor, rstorch.tensor])
def test_numpy_arrays_rstorch_cannot_view_raise(arr, match, convert):
    with pytest.raises(ValueError, match=match):
        convert(arr)


def test_numpy_zero_strides_give_a_broadcast_view():
    base = np.arange(3.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # broadcast_to's result is read-only
        t = rstorch.from_numpy(np.broadcast_to(base, (2**20, 3)))
        huge = rstorch.from_numpy(np.broadcast_to(np.zeros(1), (2**40,)))
    assert t.stride() == (0, 1) and t.shape == (2**20, 3)
    base[1] = 7
    assert t[123456].tolist() == [0, 7, 2]
    assert huge.shape == (2**40,) and huge.stride() == (0,)


def test_misaligned_arrays_are_copied_or_refused():
    raw = np.zeros(33, dtype=np.uint8)
    raw[1:9] = np.frombuffer(np.float64(2.5).tobytes(), np.uint8)
    mis = raw[1:].view(np.float64)
    assert not mis.flags.aligned
    with pytest.raises(ValueError, match="not aligned"):
        rstorch.from_numpy(mis)
    assert rstorch.tensor(mis).tolist() == [2.5, 0, 0, 0]
    assert rstorch.as_tensor(mis).tolist() == [2.5, 0, 0, 0]


def test_empty_arrays_with_any_strides():
    for arr in (np.zeros((0, 3))[::-1], np.zeros((3, 0)), np.zeros((0,), np.int8)):
        t = rstorch.from_numpy(arr)
        assert t.shape == arr.shape and t.numel() == 0 and t.numpy().shape == arr.shape


def test_read_only_arrays_warn_once_as_in_pytorch():
    # The warning is given once per process, so the process is a fresh one.
    code = textwrap.dedent("""
        import warnings, numpy as np, rstorch
        ro = np.arange(3.)
        ro.flags.writeable = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rstorch.tensor(ro)
            n_copy = len(caught)
            t = rstorch.from_numpy(ro)
            rstorch.as_tensor(ro)
        print(n_copy, len(caught), t.tolist(), str(caught[0].message)[:37])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.stdout.strip().split(maxsplit=5) == ["0", "1", "[0.0,", "1.0,", "2.0]", "The given NumPy array is not writable"], \
        out.stdout + out.stderr


# ----- views of views stay inside the storage --------------------------------------------------

def test_views_of_views_at_the_edges():
    x = rstorch.arange(5.)[::4]            # elements 0 and 4 of a 5-element storage
    assert x.narrow(0, 2, 0).storage_offset() == 8 and x.narrow(0, 2, 0).tolist() == []
    assert x[5:].tolist() == [] and x[::2**62].tolist() == [0]
    big = rstorch.arange(32.).as_strided((8,), (4,))
    assert big[::2**62].tolist() == [0]
    assert big[::2**62].numpy().tolist() == [0]
    w = rstorch.ones(1).expand(2**40)
    with pytest.raises(RuntimeError, match="overflow"):
        w.unfold(0, 2**39, 1)
    assert w.unfold(0, 2, 2**39).shape == (2, 2)
    d = rstorch.arange(9.).view(3, 3)
    assert d.diagonal(5).tolist() == [] and d.diagonal(-2).tolist() == [6]


def test_numpy_of_as_strided_views_writes_only_its_elements():
    base = rstorch.zeros(10)
    v = base.as_strided((2, 2), (4, 1), 1)
    v.numpy()[:] = 7
    assert base.tolist() == [0, 7, 7, 0, 0, 7, 7, 0, 0, 0]


def test_empty_views_past_the_end_of_their_storage_go_through_the_kernels():
    # Found by the ops fuzz: softmax of such a view sliced its storage from the offset and panicked.
    x = rstorch.arange(5.)[::4][2:]
    assert x.storage_offset() == 8 and x.shape == (0,)
    e = rstorch.arange(12.).as_strided((0, 3), (1, 1), 100)
    f = rstorch.nn.functional
    for make in (lambda: x.softmax(0), lambda: x.log_softmax(0), lambda: x.cumsum(0), lambda: x.clone(),
                 lambda: x.exp(), lambda: x.sort(0).values, lambda: x + 1, lambda: x.add_(1), lambda: x.fill_(2),
                 lambda: f.layer_norm(x.view(0, 1), (1,)), lambda: e.softmax(1), lambda: e.contiguous(),
                 lambda: f.max_pool1d(e.view(0, 1, 3), 2), lambda: e @ rstorch.ones(3, 2), lambda: e.t().clone()):
        assert make().numel() == 0
    assert x.sum().item() == 0 and x.numpy().shape == (0,)
