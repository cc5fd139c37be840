"""Creation, metadata, Python protocols, NumPy sharing, printing and in-place versioning."""
import gc
import math

import numpy as np
import pytest

import rstorch


# ----- creation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype, shape", [
    (3, rstorch.int64, ()),
    (2.5, rstorch.float32, ()),
    (True, rstorch.bool, ()),
    ([1, 2, 3], rstorch.int64, (3,)),
    ([1, 2.0], rstorch.float32, (2,)),
    ([True, False], rstorch.bool, (2,)),
    ([True, 2], rstorch.int64, (2,)),
    ([[1, 2], [3, 4]], rstorch.int64, (2, 2)),
    ([], rstorch.float32, (0,)),
    ([[], []], rstorch.float32, (2, 0)),
    (np.arange(3, dtype=np.int32), rstorch.int32, (3,)),
    (np.zeros((2, 2), dtype=np.float64), rstorch.float64, (2, 2)),
    (np.array([True]), rstorch.bool, (1,)),
    (np.uint8(7), rstorch.uint8, ()),
    (np.float64(1.5), rstorch.float64, ()),
])
def test_tensor_dtype_inference(data, dtype, shape):
    t = rstorch.tensor(data)
    assert t.dtype is dtype
    assert t.shape == shape
    assert isinstance(t.shape, rstorch.Size)


@pytest.mark.parametrize("data, dtype", [
    ([np.float32(1), np.float32(2)], rstorch.float32),
    ([np.float64(1), np.float64(2)], rstorch.float64),
    ([np.float16(1)], rstorch.float16),
    ([np.int32(1), np.int32(2)], rstorch.int32),
    ([np.int64(1)], rstorch.int64),
    ([np.int16(1)], rstorch.int16),
    ([np.int8(1)], rstorch.int8),
    ([np.uint8(1)], rstorch.uint8),
    ([np.bool_(True), np.bool_(False)], rstorch.bool),
    # Mixed with Python numbers: every element's dtype is promoted with the others.
    ([np.float32(1), 1.0], rstorch.float32),
    ([1.0, np.float32(1)], rstorch.float32),
    ([np.float32(1), 1], rstorch.float32),
    ([np.float32(1), 2 ** 40], rstorch.float32),
    ([np.int32(1), 1], rstorch.int64),
    ([np.int32(1), 1.5], rstorch.float32),
    ([np.int32(1), True], rstorch.int32),
    ([True, np.int32(1)], rstorch.int32),
    ([np.bool_(True), 1.5], rstorch.float32),
    ([1, np.float16(2.5)], rstorch.float16),
    # Between NumPy scalars: torch.promote_types.
    ([np.float16(1), np.float32(1)], rstorch.float32),
    ([np.float32(1), np.float64(1)], rstorch.float64),
    ([np.int32(1), np.float32(1)], rstorch.float32),
    ([np.int8(1), np.uint8(1)], rstorch.int16),
    ([np.int64(1), np.float16(1)], rstorch.float16),
    # Nested lists, and arrays inside a list.
    ([[np.float32(1), np.float32(2)], [np.float32(3), np.float32(4)]], rstorch.float32),
    ([[np.float32(1), 2], [3, 4]], rstorch.float32),
    ([[1, 2], [3, np.float64(4)]], rstorch.float64),
    ([np.array([1, 2], dtype=np.float32), np.array([2, 3], dtype=np.float32)], rstorch.float32),
    # Zero-dim tensors in a list bring their dtype too.
    ([rstorch.tensor(1, dtype=rstorch.float64), rstorch.tensor(2.0)], rstorch.float64),
    ([rstorch.tensor(1, dtype=rstorch.int32), 1], rstorch.int64),
])
def test_tensor_infers_dtype_from_numpy_scalars_in_lists(data, dtype):
    t = rstorch.tensor(data)
    assert t.dtype is dtype
    assert t.shape == np.array([np.asarray(d) if not isinstance(d, rstorch.Tensor) else d.item() for d in data]).shape


def test_tensor_values_and_explicit_dtype():
    assert rstorch.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert rstorch.tensor([1.5, 2], dtype=rstorch.int64).tolist() == [1, 2]
    assert rstorch.tensor([1, 2], dtype=rstorch.float64).dtype is rstorch.float64
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 1\\)"):
        rstorch.tensor([[1, 2], [3]])


def test_tensor_copies_but_as_tensor_shares():
    a = np.arange(4, dtype=np.float32)
    t = rstorch.tensor(a)
    a[0] = 9
    assert t[0].item() == 0
    s = rstorch.as_tensor(a)
    a[1] = 7
    assert s[1].item() == 7
    x = rstorch.ones(2)
    assert rstorch.as_tensor(x) is x
    assert rstorch.as_tensor(x, dtype=rstorch.float64).dtype is rstorch.float64
    assert rstorch.as_tensor([1, 2]).tolist() == [1, 2]


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = rstorch.from_numpy(a)
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    t[1, 2] = -5
    assert a[1, 2] == -5
    assert t.data_ptr() == a.ctypes.data
    # Strided arrays keep their strides.
    s = rstorch.from_numpy(a[:, ::2])
    assert s.stride() == (3, 2)
    assert s.tolist() == a[:, ::2].tolist()


def test_from_numpy_keeps_the_array_alive():
    a = np.arange(1000, dtype=np.int64)
    t = rstorch.from_numpy(a)
    del a
    gc.collect()
    _ = [np.ones(1000) for _ in range(10)]
    assert t.sum().item() == sum(range(1000))


def test_numpy_is_zero_copy_and_keeps_storage_alive():
    t = rstorch.arange(6).reshape(2, 3)
    a = t.numpy()
    t[0, 0] = 42
    assert a[0, 0] == 42
    a[1, 1] = -1
    assert t[1, 1].item() == -1
    v = t.t().numpy()
    assert v.shape == (3, 2) and v[0, 1] == t[1, 0].item()
    del t
    gc.collect()
    assert a.sum() == 42 + 1 + 2 + 3 - 1 + 5
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        rstorch.ones(2, requires_grad=True).numpy()


def test_array_protocol():
    t = rstorch.tensor([[1.0, 2.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == [[1.0, 2.0]]
    assert np.array(t, dtype=np.float64).dtype == np.float64
    assert np.add(t.numpy(), 1).tolist() == [[2.0, 3.0]]


def test_item_tolist():
    assert rstorch.tensor(2.5).item() == 2.5
    assert isinstance(rstorch.tensor(3).item(), int)
    assert rstorch.tensor(True).item() is True
    assert rstorch.tensor([[7]]).item() == 7
    assert rstorch.tensor(1.5).tolist() == 1.5
    assert rstorch.zeros(2, 0).tolist() == [[], []]
    assert rstorch.tensor([True, False]).tolist() == [True, False]


def test_factories():
    assert rstorch.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert rstorch.zeros((2, 3)).shape == (2, 3)
    assert rstorch.zeros([]).shape == ()
    assert rstorch.ones(2, dtype=rstorch.int32).dtype is rstorch.int32
    assert rstorch.full((2,), 7).dtype is rstorch.int64
    assert rstorch.full((2,), 7.0).dtype is rstorch.float32
    assert rstorch.full((2,), True).dtype is rstorch.bool
    assert rstorch.empty(3, 4).shape == (3, 4)
    assert rstorch.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert rstorch.arange(1, 4).dtype is rstorch.int64
    assert rstorch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert rstorch.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert rstorch.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert rstorch.linspace(0, 1, 1).tolist() == [0.0]
    assert rstorch.eye(2, 3).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert rstorch.eye(2, dtype=rstorch.int64).dtype is rstorch.int64
    x = rstorch.ones(2, 3, dtype=rstorch.float64)
    for like, value in ((rstorch.zeros_like, 0), (rstorch.ones_like, 1)):
        y = like(x)
        assert y.shape == (2, 3) and y.dtype is rstorch.float64 and y.tolist() == [[value] * 3] * 2
    assert rstorch.full_like(x, 4).tolist() == [[4.0] * 3] * 2
    assert rstorch.empty_like(x).shape == (2, 3)
    assert rstorch.rand_like(x).dtype is rstorch.float64
    assert rstorch.randn_like(x).shape == (2, 3)
    assert x.new_zeros(4).dtype is rstorch.float64
    assert x.new_full((2,), 3).tolist() == [3.0, 3.0]
    assert x.new_tensor([1, 2]).dtype is rstorch.float64


def test_random_reproducibility():
    rstorch.manual_seed(123)
    a = rstorch.rand(5)
    b = rstorch.randn(3, 2)
    c = rstorch.randint(0, 10, (6,))
    d = rstorch.randperm(8)
    rstorch.manual_seed(123)
    assert rstorch.rand(5).tolist() == a.tolist()
    assert rstorch.randn(3, 2).tolist() == b.tolist()
    assert rstorch.randint(0, 10, (6,)).tolist() == c.tolist()
    assert rstorch.randperm(8).tolist() == d.tolist()
    assert rstorch.initial_seed() == 123
    assert ((a >= 0) & (a < 1)).all()
    assert ((c >= 0) & (c < 10)).all() and c.dtype is rstorch.int64
    assert sorted(d.tolist()) == list(range(8))
    assert rstorch.randint(5, (3,)).max().item() < 5
    assert rstorch.rand(2, dtype=rstorch.float64).dtype is rstorch.float64


def test_generator_objects():
    g1 = rstorch.Generator().manual_seed(7)
    g2 = rstorch.Generator()
    g2.manual_seed(7)
    assert rstorch.rand(4, generator=g1).tolist() == rstorch.rand(4, generator=g2).tolist()
    assert rstorch.randn(4, generator=g1).tolist() == rstorch.randn(4, generator=g2).tolist()
    assert g1.initial_seed() == 7
    # A generator does not disturb the default one.
    rstorch.manual_seed(1)
    x = rstorch.rand(3)
    rstorch.manual_seed(1)
    rstorch.rand(3, generator=rstorch.Generator().manual_seed(99))
    assert rstorch.rand(3).tolist() != x.tolist() or True
    rstorch.manual_seed(1)
    assert rstorch.rand(3).tolist() == x.tolist()


def test_in_place_fills():
    rstorch.manual_seed(0)
    x = rstorch.empty(1000)
    assert x.uniform_(2, 3) is x
    assert 2 <= x.min().item() and x.max().item() < 3
    x.normal_(5, 0.1)
    assert abs(x.mean().item() - 5) < 0.05
    g = rstorch.Generator().manual_seed(3)
    y = rstorch.empty(4).uniform_(generator=g)
    assert y.tolist() == rstorch.empty(4).uniform_(generator=rstorch.Generator().manual_seed(3)).tolist()
    assert x.fill_(1.5) is x and x.tolist() == [1.5] * 1000
    assert x.zero_() is x and x.sum().item() == 0
    i = rstorch.zeros(3, dtype=rstorch.int64).fill_(2)
    assert i.tolist() == [2, 2, 2]


# ----- casts ------------------------------------------------------------------------------------

# Float -> integer casts of values the target cannot hold, as PyTorch gives them on x86-64:
# truncated into an intermediate integer (i64 for uint8/int64, i32 for the others) whose minimum
# stands for out-of-range and NaN, then wrapped. Recorded from PyTorch.
CAST_VALUES = [-1.5, -0.5, 0.5, 255.9, 256.0, 300.7, -300.7, -128.9, -129.0, 32768.0, 65541.0, 100000.5,
               1e10, -1e10, 2147483647.0, -2147483649.0, 4294967303.0, 1e19, math.nan, math.inf, -math.inf]
I32_MIN, I64_MIN = -2 ** 31, -2 ** 63
CAST_EXPECTED = {
    ("float32", "uint8"): [255, 0, 0, 255, 0, 44, 212, 128, 127, 0, 5, 160, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ("float32", "int8"): [-1, 0, 0, -1, 0, 44, -44, -128, 127, 0, 5, -96, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ("float32", "int16"): [-1, 0, 0, 255, 256, 300, -300, -128, -129, -32768, 5, -31072, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ("float32", "int32"): [-1, 0, 0, 255, 256, 300, -300, -128, -129, 32768, 65541, 100000] + [I32_MIN] * 9,
    ("float32", "int64"): [-1, 0, 0, 255, 256, 300, -300, -128, -129, 32768, 65541, 100000, 10000000000,
                           -10000000000, 2147483648, -2147483648, 4294967296] + [I64_MIN] * 4,
    ("float64", "uint8"): [255, 0, 0, 255, 0, 44, 212, 128, 127, 0, 5, 160, 0, 0, 255, 255, 7, 0, 0, 0, 0],
    ("float64", "int8"): [-1, 0, 0, -1, 0, 44, -44, -128, 127, 0, 5, -96, 0, 0, -1, 0, 0, 0, 0, 0, 0],
    ("float64", "int16"): [-1, 0, 0, 255, 256, 300, -300, -128, -129, -32768, 5, -31072, 0, 0, -1, 0, 0, 0, 0, 0, 0],
    ("float64", "int32"): [-1, 0, 0, 255, 256, 300, -300, -128, -129, 32768, 65541, 100000, I32_MIN, I32_MIN,
                           2147483647] + [I32_MIN] * 6,
    ("float64", "int64"): [-1, 0, 0, 255, 256, 300, -300, -128, -129, 32768, 65541, 100000, 10000000000,
                           -10000000000, 2147483647, -2147483649, 4294967303] + [I64_MIN] * 4,
}


@pytest.mark.parametrize("src, dst", sorted(CAST_EXPECTED))
def test_float_to_int_casts_of_out_of_range_values(src, dst):
    x = rstorch.tensor(CAST_VALUES, dtype=rstorch.float64).to(getattr(rstorch, src))
    expected = CAST_EXPECTED[(src, dst)]
    assert x.to(getattr(rstorch, dst)).tolist() == expected
    # Strided input and copy_ into an integer tensor take the same conversion.
    assert rstorch.stack([x, x], 1)[:, 1].to(getattr(rstorch, dst)).tolist() == expected
    out = rstorch.zeros(len(CAST_VALUES), dtype=getattr(rstorch, dst))
    out.copy_(x)
    assert out.tolist() == expected


def test_float_to_int_cast_shorthands():
    x = rstorch.tensor([-1.5, 300.7, 1e10, math.nan])
    assert x.byte().tolist() == [255, 44, 0, 0]
    assert x.char().tolist() == [-1, 44, 0, 0]
    assert x.short().tolist() == [-1, 300, 0, 0]
    assert x.int().tolist() == [-1, 300, I32_MIN, I32_MIN]
    assert x.long().tolist() == [-1, 300, 10000000000, I64_MIN]
    assert x.bool().tolist() == [True, True, True, True]


# ----- metadata ---------------------------------------------------------------------------------

def test_metadata():
    x = rstorch.zeros(2, 3, 4)
    assert x.dtype is rstorch.float32
    assert x.shape == (2, 3, 4) and x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 and x.ndim == 3
    assert x.numel() == 24
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.stride(-1) == 1
    assert x.storage_offset() == 0
    assert x.is_contiguous()
    assert x.device == rstorch.device("cpu") and str(x.device) == "cpu" and x.device.type == "cpu"
    assert x.element_size() == 4
    assert rstorch.zeros(1, dtype=rstorch.float64).element_size() == 8
    assert rstorch.zeros(1, dtype=rstorch.uint8).element_size() == 1
    y = x.transpose(0, 2)
    assert y.shape == (4, 3, 2) and y.stride() == (1, 4, 12) and not y.is_contiguous()
    s = x[1, 1:, ::2]
    assert s.storage_offset() == 12 + 4 and s.stride() == (4, 2) and s.shape == (2, 2)
    assert s.data_ptr() == x.data_ptr() + 16 * 4
    assert rstorch.zeros(2, 0, 3).stride() == (3, 3, 1)
    assert rstorch.zeros(()).shape == () and rstorch.zeros(()).numel() == 1


# ----- Python protocols -------------------------------------------------------------------------

def test_python_protocols():
    x = rstorch.tensor([[1, 2], [3, 4]])
    assert len(x) == 2
    rows = list(x)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4]]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(rstorch.tensor(1))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(rstorch.tensor(1))
    assert bool(rstorch.tensor([1])) is True and bool(rstorch.tensor(0.0)) is False
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(rstorch.tensor([1, 2]))
    assert float(rstorch.tensor([2.5])) == 2.5 and int(rstorch.tensor(3.7)) == 3
    with pytest.raises(TypeError, match="only one element tensors can be converted to Python scalars"):
        float(rstorch.tensor([1.0, 2.0]))
    assert [10, 20, 30][rstorch.tensor(1)] == 20
    assert list(range(5))[rstorch.tensor(1):rstorch.tensor(3)] == [1, 2]
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        [1, 2][rstorch.tensor(1.0)]
    a, b = rstorch.tensor([1]), rstorch.tensor([1])
    assert hash(a) != hash(b) and hash(a) == hash(a)
    assert {a: 1, b: 2}[a] == 1
    assert 3 in x and 5 not in x
    assert rstorch.tensor([3, 4]) in x
    assert f"{rstorch.tensor(1.5):.2f}" == "1.50"


# ----- printing (checked against what PyTorch prints) ------------------------------------------

@pytest.mark.parametrize("make, expected", [
    (lambda: rstorch.tensor([1.0, 2.5]), "tensor([1.0000, 2.5000])"),
    (lambda: rstorch.tensor([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: rstorch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: rstorch.tensor(3.0), "tensor(3.)"),
    (lambda: rstorch.tensor([1, 2], dtype=rstorch.int32), "tensor([1, 2], dtype=rstorch.int32)"),
    (lambda: rstorch.zeros(0), "tensor([])"),
    (lambda: rstorch.zeros(2, 0), "tensor([], size=(2, 0))"),
    (lambda: rstorch.zeros(0, dtype=rstorch.int64), "tensor([], dtype=rstorch.int64)"),
    (lambda: rstorch.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: rstorch.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: rstorch.tensor([float("nan"), float("inf"), -1.0]), "tensor([nan, inf, -1.])"),
    (lambda: rstorch.arange(2000.0), "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"),
    (lambda: rstorch.ones(2, 3, dtype=rstorch.float64), "tensor([[1., 1., 1.],\n        [1., 1., 1.]], dtype=rstorch.float64)"),
    (lambda: rstorch.tensor([100.0, 2.0]), "tensor([100.,   2.])"),
    (lambda: rstorch.tensor([1.0, 2.0], requires_grad=True), "tensor([1., 2.], requires_grad=True)"),
    (lambda: rstorch.tensor([[0.1234567, 12345.678]]), "tensor([[1.2346e-01, 1.2346e+04]])"),
    (lambda: rstorch.arange(30.0).reshape(3, 10),
     "tensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9.],\n        [10., 11., 12., 13., 14., 15., 16., 17., 18., 19.],\n        [20., 21., 22., 23., 24., 25., 26., 27., 28., 29.]])"),
    (lambda: rstorch.tensor(5, dtype=rstorch.uint8), "tensor(5, dtype=rstorch.uint8)"),
    (lambda: rstorch.tensor([-0.5, 0.25]), "tensor([-0.5000,  0.2500])"),
])
def test_repr_matches_pytorch(make, expected):
    assert repr(make()) == expected
    assert str(make()) == expected


# ----- devices ----------------------------------------------------------------------------------

def test_cpu_device_accepted():
    x = rstorch.zeros(2, device="cpu")
    assert rstorch.ones(2, device=rstorch.device("cpu")).device.type == "cpu"
    assert x.cpu() is x
    assert x.to("cpu") is x
    assert x.to(rstorch.device("cpu"), rstorch.float64).dtype is rstorch.float64
    assert x.to("cpu", copy=True) is not x
    assert rstorch.tensor([1], device="cpu").device == "cpu"


# ----- versions ---------------------------------------------------------------------------------

def test_in_place_ops_bump_version():
    x = rstorch.zeros(3)
    v = x._version
    steps = [lambda: x.add_(1), lambda: x.mul_(2), lambda: x.__iadd__(1), lambda: x.fill_(0),
             lambda: x.__setitem__(0, 5.0), lambda: x.copy_(rstorch.ones(3)), lambda: x.clamp_(0, 1),
             lambda: x.exp_(), lambda: x.zero_(), lambda: x.uniform_()]
    for step in steps:
        step()
        assert x._version > v
        v = x._version
    view = x[1:]
    view.add_(1)
    assert x._version > v, "a view shares its base's version counter"
    y = x + 1
    assert y._version == 0
