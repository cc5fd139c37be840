"""PyTorch's checks and values for inputs at the edges (issue 20, part 4): non-native NumPy byte
orders, 16-bit float reductions, numbers that do not fit an integer dtype, integer division by
zero, integer powers, reduction dtypes and list / range indices. Every expected value and error
is what PyTorch 2.15 gives for the same call."""
import math
import re
import warnings

import numpy as np
import pytest

import rstorch as torch


def raises(exc, message):
    return pytest.raises(exc, match=re.escape(message))


def values(t):
    return t.tolist()


# ----- NumPy arrays of the other byte order -----------------------------------------------------

BYTE_ORDER = ("given numpy array has byte order different from the native byte order. "
              "Conversion between byte orders is currently not supported.")


@pytest.mark.parametrize("make", [torch.tensor, torch.as_tensor, torch.from_numpy])
@pytest.mark.parametrize("dtype", [">f4", ">i4", ">f8", ">f2", ">i8"])
def test_big_endian_arrays_are_refused_not_reinterpreted(make, dtype):
    arr = np.array([1, 2, 300], dtype=dtype)
    with raises(ValueError, BYTE_ORDER):
        make(arr)


def test_big_endian_other_entry_points():
    be = np.array([1.0, 2.0, 3.0, 4.0], dtype=">f4")
    with raises(ValueError, BYTE_ORDER):
        torch.tensor(be[::2])
    with raises(ValueError, BYTE_ORDER):
        torch.tensor(np.array(5.0, dtype=">f8"))
    with raises(ValueError, BYTE_ORDER):
        torch.as_tensor(be, dtype=torch.float64)


def test_arrays_without_byte_order_and_elementwise_reads_convert():
    # One-byte types have no order; a list of arrays is read element by element (as numbers).
    assert values(torch.from_numpy(np.array([1], dtype=">u1"))) == [1]
    assert values(torch.tensor(np.array([True], dtype=">?"))) == [True]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor([np.array([1.0, 2.0], dtype=">f4")] * 2)
    assert values(t) == [[1.0, 2.0], [1.0, 2.0]]
    # The native order of the same values works, and byteswapped copies convert.
    native = np.array([1.0, 2.0, 3.0], dtype=">f4").astype("=f4")
    assert values(torch.from_numpy(native)) == [1.0, 2.0, 3.0]


# ----- 16-bit floats accumulate in float32 ------------------------------------------------------

def test_half_mean_accumulates_in_float32():
    h = torch.full((100000,), 2.0, dtype=torch.float16)
    assert h.mean().item() == 2.0 and h.mean().dtype == torch.float16
    # The sum itself is beyond float16: inf, as in PyTorch.
    assert h.sum().item() == math.inf
    assert values(h.reshape(10, 10000).sum(1)) == [20000.0] * 10
    assert values(h.reshape(10, 10000).mean(1)) == [2.0] * 10
    assert torch.full((70000,), 1.0, dtype=torch.float16).mean().item() == 1.0
    assert torch.full((70000,), 1.0, dtype=torch.float16).sum().item() == math.inf


def test_bfloat16_mean_and_sum():
    b = torch.full((100000,), 2.0, dtype=torch.bfloat16)
    assert b.mean().item() == 2.0
    assert b.sum().item() == 199680.0  # 200000 rounded to bfloat16
    assert torch.full((1000,), 0.1, dtype=torch.bfloat16).sum().item() == 100.0
    assert torch.full((1000,), 0.1, dtype=torch.float16).sum().item() == 100.0


def test_half_var_std_norm_accumulate_in_float32():
    h = torch.full((100000,), 2.0, dtype=torch.float16)
    assert h.var().item() == 0.0
    assert h.norm().item() == 632.5
    assert h.norm().dtype == torch.float16
    assert torch.arange(1000, dtype=torch.float16).std().item() == 288.75
    assert torch.arange(1000, dtype=torch.bfloat16).float().std().item() == pytest.approx(288.82, abs=0.01)


def test_half_cumsum_accumulates_in_float32():
    assert torch.full((5000,), 1.0, dtype=torch.float16).cumsum(0)[-1].item() == 5000.0
    assert torch.full((5000,), 1.0, dtype=torch.bfloat16).cumsum(0)[-1].item() == 4992.0
    assert values(torch.full((3000,), 0.1, dtype=torch.float16).cumsum(0)[-5:]) == [299.5, 299.75, 299.75, 299.75, 300.0]


# ----- numbers that do not fit an integer dtype --------------------------------------------------

def overflow(name):
    return raises(RuntimeError, f"value cannot be converted to type {name} without overflow")


@pytest.mark.parametrize("data", [[300], [256], [-256], [-1.0], [-0.5], [256.0], [math.nan], [math.inf]])
def test_tensor_data_out_of_uint8_raises(data):
    with overflow("uint8"):
        torch.tensor(data, dtype=torch.uint8)


def test_tensor_data_out_of_range_other_dtypes():
    with overflow("uint8"):
        torch.tensor(300, dtype=torch.uint8)
    with overflow("uint8"):
        torch.as_tensor([300], dtype=torch.uint8)
    with overflow("uint8"):
        torch.tensor([[1], [256]], dtype=torch.uint8)
    with overflow("uint8"):
        torch.tensor([np.int64(300)], dtype=torch.uint8)
    with overflow("int8"):
        torch.tensor([128], dtype=torch.int8)
    with overflow("int8"):
        torch.tensor([1.5, 300.0], dtype=torch.int8)
    with overflow("int16"):
        torch.tensor([40000], dtype=torch.int16)
    with overflow("int32"):
        torch.tensor([1e10], dtype=torch.int32)
    with overflow("int32"):
        torch.tensor([[1, 1e10]], dtype=torch.int32)
    with overflow("int64"):
        torch.tensor([1e19], dtype=torch.int64)
    with overflow("int64"):
        torch.tensor([math.nan], dtype=torch.int64)


def test_tensor_data_values_pytorch_accepts():
    # uint8 takes -255..-1 as two's complement; floats round toward zero; bool takes anything.
    assert values(torch.tensor([-1], dtype=torch.uint8)) == [255]
    assert values(torch.tensor([-129], dtype=torch.uint8)) == [127]
    assert values(torch.tensor([-255], dtype=torch.uint8)) == [1]
    assert values(torch.tensor([255.5], dtype=torch.uint8)) == [255]
    assert values(torch.tensor([True, 2], dtype=torch.uint8)) == [1, 2]
    assert values(torch.tensor([2], dtype=torch.bool)) == [True]
    assert values(torch.tensor([-2**63])) == [-2**63]
    # Floats overflow to inf in tensor() (no error).
    assert values(torch.tensor([1e40], dtype=torch.float32)) == [math.inf]
    assert values(torch.tensor([70000], dtype=torch.float16)) == [math.inf]
    # A NumPy array converts as NumPy does (wrapping), as in PyTorch.
    assert values(torch.tensor(np.array([300]), dtype=torch.uint8)) == [44]


def test_ints_beyond_int64_in_data():
    with raises(ValueError, "Overflow when unpacking long long"):
        torch.tensor([2**63])
    with raises(ValueError, "Overflow when unpacking long long"):
        torch.tensor([2**64], dtype=torch.int64)


def test_setitem_fill_full_out_of_range_raise():
    x = torch.zeros(3, dtype=torch.uint8)
    with overflow("uint8_t"):
        x[0] = 300
    with overflow("uint8_t"):
        x[:] = 300
    with overflow("uint8_t"):
        x[0] = 300.0
    with overflow("uint8_t"):
        x[x == 0] = 300
    with overflow("uint8_t"):
        x[torch.tensor([0])] = 300
    with overflow("uint8_t"):
        x.fill_(300)
    with overflow("uint8_t"):
        x.fill_(-1.0)
    with overflow("uint8_t"):
        x.fill_(math.nan)
    with overflow("int8_t"):
        torch.zeros(1, dtype=torch.int8).fill_(128)
    with overflow("int8_t"):
        torch.zeros(1, dtype=torch.int8).fill_(-128.9)
    with overflow("int16_t"):
        torch.zeros(1, dtype=torch.int16).fill_(40000)
    with overflow("int"):
        torch.zeros(1, dtype=torch.int32).fill_(2**31)
    with overflow("int"):
        torch.zeros(1, dtype=torch.int32).fill_(1e10)
    with overflow("int64_t"):
        torch.zeros(1, dtype=torch.int64).fill_(math.inf)
    with overflow("float"):
        torch.zeros(1).fill_(1e300)
    with overflow("uint8_t"):
        torch.full((2,), 300, dtype=torch.uint8)
    with overflow("int"):
        torch.full((2,), 1e10, dtype=torch.int32)
    with overflow("float"):
        torch.full((1,), 1e300)
    with overflow("uint8_t"):
        torch.full_like(torch.zeros(1, dtype=torch.uint8), 300)
    with overflow("uint8_t"):
        torch.zeros(1, dtype=torch.uint8).new_full((1,), 300)
    assert values(x) == [0, 0, 0]


def test_setitem_fill_values_pytorch_accepts():
    x = torch.zeros(3, dtype=torch.uint8)
    x[0] = -1
    assert values(x) == [255, 0, 0]
    assert values(torch.zeros(1, dtype=torch.uint8).fill_(-255)) == [1]
    assert values(torch.zeros(1, dtype=torch.int8).fill_(127.9)) == [127]
    assert values(torch.zeros(1, dtype=torch.float16).fill_(70000)) == [math.inf]
    assert values(torch.zeros(1, dtype=torch.float16).fill_(1e300)) == [math.inf]
    assert values(torch.zeros(1, dtype=torch.bool).fill_(2.5)) == [True]
    assert values(torch.zeros(1).fill_(math.inf)) == [math.inf]
    # A tensor value is converted, not checked (as in PyTorch).
    y = torch.zeros(1, dtype=torch.uint8)
    y[0] = torch.tensor(300)
    assert values(y) == [44]


def test_value_arguments_of_ops_out_of_range_raise():
    u8 = torch.zeros(3, dtype=torch.uint8)
    mask = torch.tensor([True, False, True])
    with overflow("uint8_t"):
        u8.masked_fill(mask, 300)
    with overflow("uint8_t"):
        u8.scatter(0, torch.tensor([0]), 300)
    with overflow("uint8_t"):
        torch.where(mask, u8, 300)
    with overflow("uint8_t"):
        u8.addcmul(torch.ones(3, dtype=torch.uint8), torch.ones(3, dtype=torch.uint8), value=300)
    with overflow("uint8_t"):
        u8 ** 300
    with overflow("uint8_t"):
        u8.pow(256)
    with overflow("uint8_t"):
        u8.sub(1, alpha=300)
    with overflow("int"):
        torch.zeros(2, dtype=torch.int32).add(1, alpha=2**40)
    with overflow("int8_t"):
        torch.zeros(2, dtype=torch.int8).add(torch.ones(2, dtype=torch.int8), alpha=200)
    with raises(RuntimeError, "For integral input tensors, argument alpha must not be a floating point number."):
        torch.zeros(2, dtype=torch.int8).add(torch.ones(2, dtype=torch.int8), alpha=2.5)
    assert values(u8.masked_fill(mask, -1)) == [255, 0, 255]
    assert values(torch.where(torch.tensor([True]), 300, 5)) == [300]


def test_arithmetic_with_numbers_wraps_as_in_pytorch():
    u8 = torch.zeros(3, dtype=torch.uint8)
    assert values(u8 + 300) == [44, 44, 44]
    assert values(u8 + -1) == [255, 255, 255]
    assert values(300 - u8) == [44, 44, 44]
    assert values(u8.add_(300)) == [44, 44, 44]
    assert values(torch.zeros(3, dtype=torch.int8) + 1000) == [-24, -24, -24]
    assert values(torch.zeros(2, dtype=torch.int32) + 2**40) == [0, 0]
    assert values(torch.zeros(3, dtype=torch.uint8) < 300) == [True] * 3
    assert values(torch.zeros(3, dtype=torch.uint8) == -1) == [False] * 3
    assert values(torch.zeros(1, dtype=torch.uint8).add(torch.ones(1, dtype=torch.uint8), alpha=2)) == [2]
    r = torch.zeros(1, dtype=torch.uint8).add(1, alpha=2)
    assert r.dtype == torch.uint8 and values(r) == [2]


def test_clamp_bounds_beyond_the_dtype_saturate():
    assert values(torch.ones(2, dtype=torch.int8).clamp(max=1000)) == [1, 1]
    assert values(torch.zeros(1, dtype=torch.uint8).clamp(min=-1)) == [0]
    assert values(torch.tensor([5], dtype=torch.uint8).clamp(0, 300)) == [5]


def test_randint_bounds_must_fit_the_dtype():
    with raises(RuntimeError, "to - 1 is out of bounds for unsigned char"):
        torch.randint(0, 300, (3,), dtype=torch.uint8)
    with raises(RuntimeError, "from is out of bounds for signed char"):
        torch.randint(-200, 5, (3,), dtype=torch.int8)
    with raises(RuntimeError, "to - 1 is out of bounds for int"):
        torch.randint(0, 2**40, (3,), dtype=torch.int32)
    with raises(RuntimeError, "to - 1 is out of bounds for bool"):
        torch.randint(0, 300, (3,), dtype=torch.bool)
    assert torch.randint(0, 256, (50,), dtype=torch.uint8).max().item() <= 255


# ----- integer division by zero -----------------------------------------------------------------

A, Z = [5, -5, 7], [0, 2, 0]


@pytest.mark.parametrize("op", [
    lambda a, z: a // z,
    lambda a, z: a % z,
    lambda a, z: torch.div(a, z, rounding_mode="trunc"),
    lambda a, z: torch.div(a, z, rounding_mode="floor"),
    lambda a, z: torch.div(a, 0, rounding_mode="trunc"),
    lambda a, z: torch.div(a, 0, rounding_mode="floor"),
    lambda a, z: a.clone().div_(z, rounding_mode="trunc"),
    lambda a, z: torch.remainder(a, z),
    lambda a, z: torch.remainder(a, 0),
    lambda a, z: torch.remainder(5, z),
    lambda a, z: torch.fmod(a, z),
    lambda a, z: torch.fmod(a, 0),
    lambda a, z: torch.floor_divide(a, z),
    lambda a, z: 5 // z,
    lambda a, z: a.to(torch.uint8) // 0,
    lambda a, z: a.to(torch.int32).div(z.to(torch.int32), rounding_mode="floor"),
    lambda a, z: a.to(torch.uint8).div(z.to(torch.uint8), rounding_mode="trunc"),
])
def test_integer_division_by_zero_raises(op):
    with raises(RuntimeError, "ZeroDivisionError"):
        op(torch.tensor(A), torch.tensor(Z))


def test_integer_division_values():
    assert values(torch.div(torch.tensor([7, -7]), torch.tensor([2, 2]), rounding_mode="trunc")) == [3, -3]
    assert values(torch.div(torch.tensor([7, -7]), torch.tensor([2, 2]), rounding_mode="floor")) == [3, -4]
    assert values(torch.div(torch.tensor([7, -7, 7, -7]), torch.tensor([-2, -2, 3, 3]), rounding_mode="trunc")) == [-3, 3, 2, -2]
    # Exact for values float32 cannot hold.
    big = 2**40 + 1
    assert values(torch.div(torch.tensor([big]), 1, rounding_mode="trunc")) == [big]
    assert torch.div(torch.tensor([7], dtype=torch.int32), 2, rounding_mode="trunc").dtype == torch.int32
    with raises(NotImplementedError, "\"div_trunc_cpu\" not implemented for 'Bool'"):
        torch.tensor([True]).div(torch.tensor([True]), rounding_mode="trunc")
    with raises(NotImplementedError, "\"div_floor_cpu\" not implemented for 'Bool'"):
        torch.tensor([True]).div(torch.tensor([True]), rounding_mode="floor")


def test_float_division_by_zero_gives_inf_and_nan():
    f = torch.tensor([1.0, -1.0, 0.0])
    for r in (torch.div(f, 0, rounding_mode="trunc"), torch.div(f, 0, rounding_mode="floor"), f // 0):
        v = values(r)
        assert v[:2] == [math.inf, -math.inf] and math.isnan(v[2])
    assert all(math.isnan(v) for v in values(f % 0))


def test_fmod():
    assert values(torch.fmod(torch.tensor([5, -5, 7, -7]), torch.tensor([3, 3, -3, -3]))) == [2, -2, 1, -1]
    r = values(torch.fmod(torch.tensor([5.0, -5.0, 1.0]), torch.tensor([3.0, 3.0, 0.0])))
    assert r[:2] == [2.0, -2.0] and math.isnan(r[2])
    assert values(torch.fmod(torch.tensor([5.0, -5.5]), 2)) == [1.0, -1.5]
    assert values(torch.tensor([5.0, -5.5]).fmod_(2)) == [1.0, -1.5]
    assert values(torch.tensor([5]).fmod(torch.tensor([2.5]))) == [0.0]
    assert values(torch.tensor([5], dtype=torch.uint8).fmod(300)) == [5]
    with raises(NotImplementedError, "\"fmod_cpu\" not implemented for 'Bool'"):
        torch.tensor([True]).fmod(torch.tensor([True]))
    x = torch.tensor([5.0, -3.0], requires_grad=True)
    y = torch.tensor([2.0, 2.0], requires_grad=True)
    z = torch.fmod(x, y)
    assert type(z.grad_fn).__name__ == "FmodBackward1"
    assert type(torch.fmod(x, 2).grad_fn).__name__ == "FmodBackward0"
    z.sum().backward()
    assert values(x.grad) == [1.0, 1.0] and values(y.grad) == [-2.0, 1.0]


# ----- integer powers ---------------------------------------------------------------------------

NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def test_integer_tensor_to_negative_number_raises():
    i = torch.tensor([1, 2, 3])
    for op in (lambda: i ** -1, lambda: i ** -2, lambda: i.pow(-1), lambda: i.clone().pow_(-1),
               lambda: torch.tensor([2], dtype=torch.uint8) ** -1, lambda: torch.tensor([True]) ** -1):
        with raises(RuntimeError, NEGATIVE_POWER):
            op()


def test_integer_powers_pytorch_computes():
    i = torch.tensor([1, 2, 3])
    assert values(i ** 0) == [1, 1, 1]
    assert values(i ** -1.0) == pytest.approx([1.0, 0.5, 1 / 3])
    # A tensor of exponents, or a number raised to a tensor: negative powers truncate.
    assert values(i ** torch.tensor([-1, 2, 1])) == [1, 4, 3]
    assert values(i ** torch.tensor(-1)) == [1, 0, 0]
    assert values(torch.tensor([1, -1]) ** torch.tensor([-1, -1])) == [1, -1]
    assert values(torch.tensor([0]) ** torch.tensor([-1])) == [0]
    assert values(torch.tensor([2], dtype=torch.int32) ** torch.tensor([-1], dtype=torch.int32)) == [0]
    assert values(2 ** torch.tensor([-1, 2])) == [0, 4]
    assert values(torch.pow(2, torch.tensor([-1, 2]))) == [0, 4]
    assert values((-2) ** torch.tensor([1, 2])) == [-2, 4]
    assert values(torch.tensor([2]) ** 70) == [0]


# ----- reduction dtypes -------------------------------------------------------------------------

def test_sum_dtype_is_the_result_dtype():
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    r = torch.tensor([100, 100], dtype=torch.int32).sum(dtype=torch.int8)
    assert r.dtype == torch.int8 and r.item() == -56
    r = torch.tensor([200, 100], dtype=torch.int32).sum(dtype=torch.uint8)
    assert r.dtype == torch.uint8 and r.item() == 44
    r = i.sum(dtype=torch.bool)
    assert r.dtype == torch.bool and r.item() is True
    assert i.sum().dtype == torch.int64
    assert i.sum(dtype=None).dtype == torch.int64
    r = i.sum(dtype=torch.float32)
    assert r.dtype == torch.float32 and r.item() == 6.0
    r = torch.sum(i, 0, dtype=torch.float64)
    assert r.dtype == torch.float64 and r.item() == 6.0
    r = torch.tensor([1.5, 2.5]).sum(dtype=torch.int64)
    assert r.dtype == torch.int64 and r.item() == 3
    assert torch.full((100000,), 2.0, dtype=torch.float16).sum(dtype=torch.float32).item() == 200000.0
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert type(x.sum(dtype=torch.float64).grad_fn).__name__ == "SumBackward0"


def test_prod_cumsum_mean_softmax_dtype():
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    r = torch.tensor([1.5, 2.5]).prod(dtype=torch.int32)
    assert r.dtype == torch.int32 and r.item() == 2
    assert i.prod(dtype=torch.float32).dtype == torch.float32
    assert i.prod(0, dtype=torch.float64).item() == 6.0
    r = torch.tensor([100, 100], dtype=torch.int32).cumsum(0, dtype=torch.int8)
    assert r.dtype == torch.int8 and values(r) == [100, -56]
    assert torch.tensor([1, 2], dtype=torch.int8).cumsum(0).dtype == torch.int64
    assert values(i.cumprod(0, dtype=torch.float64)) == [1.0, 2.0, 6.0]
    assert values(torch.tensor([1.5, 2.5]).cumsum(0, dtype=torch.int64)) == [1, 3]
    r = i.mean(dtype=torch.float32)
    assert r.dtype == torch.float32 and r.item() == 2.0
    with raises(NotImplementedError, "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: Long"):
        torch.tensor([1.5]).mean(dtype=torch.int64)
    with raises(NotImplementedError, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int"):
        i.mean()
    assert i.softmax(0, dtype=torch.float32).dtype == torch.float32
    assert torch.tensor([1.0, 2.5], dtype=torch.float16).softmax(0, dtype=torch.float32).dtype == torch.float32


# ----- list and range indices -------------------------------------------------------------------

def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def test_list_holding_a_tensor_is_a_tuple_of_indices():
    x = torch.arange(10) * 10
    x2 = x.reshape(2, 5)
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing is deprecated"):
        r = x2[[0, torch.tensor(1)]]
    assert r.shape == () and r.item() == 10
    assert values(_quiet(lambda: x2[[torch.tensor(1)]])) == [50, 60, 70, 80, 90]
    for idx in ([0, torch.tensor(1)], [torch.tensor(0), torch.tensor(1)], [torch.tensor([0, 1]), 1]):
        with raises(IndexError, "too many indices for tensor of dimension 1"):
            _quiet(lambda: x[idx])
    assert values(_quiet(lambda: x2[[slice(None), 1]])) == [10, 60]
    assert values(_quiet(lambda: x2[[None, 1]])) == [[50, 60, 70, 80, 90]]
    assert values(_quiet(lambda: x2[[..., 1]])) == [10, 60]
    assert values(_quiet(lambda: x2[[[0, 1], [1, 2]]])) == [10, 70]
    assert values(_quiet(lambda: x2[[np.array([0, 1]), 1]])) == [10, 60]
    assert values(_quiet(lambda: x2[[(0, 1), 1]])) == [10, 60]
    assert values(_quiet(lambda: x2[[range(2), 1]])) == [10, 60]
    assert values(_quiet(lambda: x[[torch.tensor(0), None]])) == [0]
    with raises(IndexError, "tensors used as indices must be long, int, byte or bool tensors"):
        _quiet(lambda: x[[torch.tensor(1.0)]])


def test_list_of_numbers_is_an_index_tensor():
    x = torch.arange(10) * 10
    assert values(x[[0, np.int64(2)]]) == [0, 20]
    assert values(x[[True, False] * 5]) == [0, 20, 40, 60, 80]
    assert values(x[[0, 1.5]]) == [0, 10]
    assert values(x[[1.5]]) == [10]
    assert values(x[[True, 1]]) == [10, 10]
    r = x[[]]
    assert r.dtype == torch.int64 and r.shape == (0,)
    # 32 entries or more: always an index tensor.
    assert x[[0] * 40].shape == (40,)


def test_range_index_reads():
    x = torch.arange(10) * 10
    x2 = x.reshape(2, 5)
    assert values(x[range(1, 4)]) == [10, 20, 30]
    assert values(x[range(8, 2, -2)]) == [80, 60, 40]
    assert values(x[range(-3, 0)]) == [70, 80, 90]
    r = x[range(0)]
    assert r.dtype == torch.int64 and r.shape == (0,)
    assert values(x2[range(0, 2), 1]) == [10, 60]
    assert values(x2[:, range(1, 4)]) == [[10, 20, 30], [60, 70, 80]]
    assert values(x2[range(2)]) == values(x2)
    assert values(x2[range(2), range(2)]) == [0, 60]
    assert values(x[(range(1, 3),)]) == [10, 20]
    with raises(IndexError, "index 10 is out of bounds for dimension 0 with size 10"):
        x[range(20)]


def test_list_and_range_index_writes():
    def written(idx, val=-1, shape=(10,)):
        y = torch.arange(10).reshape(shape).clone()
        _quiet(lambda: y.__setitem__(idx, val))
        return values(y)
    assert written([0, torch.tensor(1)], shape=(2, 5)) == [[0, -1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert written(range(1, 4)) == [0, -1, -1, -1, 4, 5, 6, 7, 8, 9]
    assert written(range(1, 4), torch.tensor([7, 8, 9])) == [0, 7, 8, 9, 4, 5, 6, 7, 8, 9]
    assert written(range(8, 2, -2)) == [0, 1, 2, 3, -1, 5, -1, 7, -1, 9]
    assert written((slice(None), range(1, 3)), shape=(2, 5)) == [[0, -1, -1, 3, 4], [5, -1, -1, 8, 9]]
    assert written((range(2), range(2)), shape=(2, 5)) == [[-1, 1, 2, 3, 4], [5, -1, 7, 8, 9]]
    assert written(range(0)) == list(range(10))
    assert written([1.5]) == [0, -1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert written([slice(1, 3)]) == [0, -1, -1, 3, 4, 5, 6, 7, 8, 9]
    with raises(IndexError, "too many indices for tensor of dimension 1"):
        written([0, torch.tensor(1)])


def test_clamp_bounds_beyond_the_other_side_raise():
    y = torch.tensor([1, 100, -100], dtype=torch.int8)
    u = torch.tensor([0, 11, 200], dtype=torch.uint8)
    assert y.clamp(-1000, 1000).tolist() == [1, 100, -100]
    assert y.clamp(min=127).tolist() == [127, 127, 127]
    assert u.clamp(min=-300).tolist() == [0, 11, 200]
    assert u.clone().clamp_(max=300).tolist() == [0, 11, 200]
    with raises(RuntimeError, "Clamp min value 200 is outside the representable range of Char"):
        y.clamp(min=200)
    with raises(RuntimeError, "Clamp min value 128 is outside the representable range of Char"):
        y.clamp(min=128)
    with raises(RuntimeError, "Clamp max value -129 is outside the representable range of Char"):
        y.clamp(max=-129)
    with raises(RuntimeError, "Clamp min value 2000 is outside the representable range of Char"):
        y.clamp(2000, 3000)
    with raises(RuntimeError, "Clamp min value 256 is outside the representable range of Byte"):
        u.clamp(min=256)
    with raises(RuntimeError, "Clamp max value -1 is outside the representable range of Byte"):
        u.clamp(max=-1)
    with raises(RuntimeError, "Clamp min value 200 is outside the representable range of Char"):
        y.clamp_min(200)
    with raises(RuntimeError, "Clamp max value -200 is outside the representable range of Char"):
        y.clamp_max(-200)
    assert y.clamp(max=1000.5).tolist() == [1.0, 100.0, -100.0]
