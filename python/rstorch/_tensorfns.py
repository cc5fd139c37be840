"""Tensor methods and `torch` functions PyTorch defines over others: elementwise compositions
(logit, ldexp, gcd, frexp, signbit, ...), predicates, the in-place and alias names, the geometry
changes in place (`t_`, `transpose_`, ...) and the splits. The scatters and index writes are in
`_scatter_ops.py`. `install()` binds them on `Tensor`; `TORCH_FUNCTIONS` are the ones
`rstorch/__init__.py` exports as `torch.X`."""
import builtins
import functools
import math

from . import _C
from ._tensor import _in_place

Tensor = _C.Tensor


def _floating(dtype):
    return dtype in (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _integral(dtype):
    return dtype in (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)


# ----- elementwise compositions --------------------------------------------------------------------

def polygamma(n, input):
    """The n-th derivative of digamma (`torch.polygamma(n, input)`)."""
    if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return input._polygamma(n=builtins.float(n))


def _polygamma_method(self, n):
    return polygamma(n, self)


def _polygamma_(self, n):
    return self._assign_(polygamma(n, self))


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension `p`, elementwise:
    `p (p - 1) / 4 log(pi) + sum_i lgamma(input - i / 2)` (PyTorch 2.15 does not check that the
    elements exceed (p - 1) / 2)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    steps = _C.arange(0, p, dtype=input.dtype, device=input.device) * -0.5
    total = (input.unsqueeze(-1) + steps).lgamma().sum(-1)
    return total + p * (p - 1) / 4 * math.log(math.pi)


def logit(input, eps=None):
    """`log(p / (1 - p))`, `p` clamped to `[eps, 1 - eps]` when `eps` is given (the gradient is 0
    outside that range, as the clamp's)."""
    x = input if _floating(input.dtype) else input.to(_C.float32)
    if eps is not None:
        x = x.clamp(eps, 1 - eps)
    # As a difference of logs: the gradient 1/x + 1/(1 - x) is infinite, not NaN, at 0 and 1.
    return x.log() - (-x).log1p()


def ldexp(input, other):
    """`input * 2 ** other`, in a floating dtype."""
    two = _C.tensor(2.0, dtype=input.dtype if _floating(input.dtype) else _C.float32)
    return input * two.pow(other)


def _check_integral(name, *tensors):
    for t in tensors:
        if not _integral(t.dtype):
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_title(t.dtype)}\'')


def _title(dtype):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "bool": "Bool", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
            "uint8": "Byte"}[str(dtype).rpartition(".")[2]]


def gcd(input, other):
    """The greatest common divisor, non-negative, of integer tensors: Euclid's algorithm on the
    whole tensor until every remainder is 0."""
    _check_integral("gcd", input, other)
    a, b = (input + other * 0).abs(), (other + input * 0).abs()
    while builtins.bool((b != 0).any()):
        nz = b != 0
        safe = _C.where(nz, b, b * 0 + 1)
        a, b = _C.where(nz, b, a), _C.where(nz, a.remainder(safe), b)
    return a


def lcm(input, other):
    """`|a b| / gcd(a, b)`, 0 where either is 0."""
    g = gcd(input, other)
    safe = _C.where(g == 0, g * 0 + 1, g)
    return (input.floor_divide(safe) * other).abs()


def nextafter(input, other):
    """The next float after `input` towards `other`, in `input`'s dtype (float32 or float64)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_title(input.dtype)} but found {_title(other.dtype)}")
    if not _floating(input.dtype):
        raise RuntimeError(f'"nextafter_cpu" not implemented for \'{_title(input.dtype)}\'')
    import numpy as np
    a, b = input.detach().cpu().numpy(), other.detach().cpu().numpy()
    return _C.from_numpy(np.ascontiguousarray(np.nextafter(a, b))).to(input.device)


def frexp(input):
    """`(mantissa, exponent)` with `input = mantissa * 2 ** exponent` and `0.5 <= |mantissa| < 1`
    (0, infinities and NaN give themselves and exponent 0)."""
    from .return_types import frexp as frexp_type
    if not _floating(input.dtype):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    import numpy as np
    m, e = np.frexp(input.detach().cpu().numpy())
    mantissa = _C.from_numpy(np.ascontiguousarray(m)).to(input.device)
    exponent = _C.from_numpy(np.ascontiguousarray(e.astype(np.int32))).to(input.device)
    return frexp_type(mantissa, exponent)


def signbit(input):
    """Whether the sign bit is set: -0.0 and negative NaNs included."""
    if input.dtype == _C.bool:
        return input.new_zeros(input.shape, dtype=_C.bool)
    if not _floating(input.dtype):
        return input < 0
    return input.new_ones(input.shape).copysign(input) < 0


def sgn(input):
    """`sign` (real tensors: the same)."""
    return input.sign()


def positive(input):
    if input.dtype == _C.bool:
        raise NotImplementedError("The `+` operator, on a bool tensor is not supported.")
    return input


def isreal(input):
    """Every element of a real tensor is real."""
    return input.new_ones(input.shape, dtype=_C.bool)


def angle(input):
    """The argument of a real number: pi below 0, 0 otherwise (+0.0 for -0.0; NaN kept); integers
    give float. Its gradient is 0."""
    x = input if _floating(input.dtype) else input.to(_C.float32)
    zero = (x * 0).abs()
    return _C.where(x < 0, zero + math.pi, zero)


def is_signed(input):
    return input.dtype not in (_C.uint8, _C.bool)


def is_nonzero(input):
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def _false(input, *args, **kwargs):
    return False


def _self(input, *args, **kwargs):
    return input


def get_device(input):
    """-1 for a CPU tensor, else the device's index."""
    dev = input.device
    return -1 if dev.type == "cpu" else (dev.index or 0)


def _shift_operands(name, input, other):
    if not isinstance(other, Tensor):
        other = _C.tensor(other, dtype=input.dtype, device=input.device)
    for t in (input, other):
        if not (_integral(t.dtype)):
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_title(t.dtype)}\'')
    bits = {_C.uint8: 8, _C.int8: 8, _C.int16: 16, _C.int32: 32, _C.int64: 64}[input.dtype]
    return other.to(input.dtype), bits


def bitwise_left_shift(input, other):
    """`input << other` on integers, wrapping; 0 for shifts outside [0, bits)."""
    if not isinstance(input, Tensor):
        input = _C.tensor(input, dtype=other.dtype, device=other.device)
    other, bits = _shift_operands("lshift", input, other)
    valid = (other >= 0) & (other < bits)
    power = _C.where(valid, other, other * 0).to(_C.int64)
    factor = (power * 0 + 2).pow(power).to(input.dtype)
    return _C.where(valid, input * factor, input * 0)


def bitwise_right_shift(input, other):
    """`input >> other` on integers, arithmetic (towards -inf); the sign fills shifts of
    `bits - 1` and more."""
    if not isinstance(input, Tensor):
        input = _C.tensor(input, dtype=other.dtype, device=other.device)
    other, bits = _shift_operands("rshift", input, other)
    # Shifting a signed value by bits - 1 leaves its sign, whose fill the division cannot give.
    valid = (other >= 0) & (other < (bits if input.dtype == _C.uint8 else bits - 1))
    power = _C.where(valid, other, other * 0).to(_C.int64)
    factor = (power * 0 + 2).pow(power).to(input.dtype)
    sign_fill = _C.where(input < 0, input * 0 - 1, input * 0)
    return _C.where(valid, input.floor_divide(factor), sign_fill)


def rsub(input, other, alpha=1):
    """`other - alpha * input`."""
    return (input * alpha).neg().add(other) if isinstance(other, Tensor) else (input * -alpha) + other


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    out = _C.tensor(s, dtype=dtype or _C.float32, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def fill(input, value):
    """A tensor like `input` full of `value` (a number or a 0-d tensor)."""
    return input.clone().fill_(value)


def adjoint(input):
    """The conjugate transpose of the last two dims (a view; real tensors: `mT`)."""
    return input.transpose(-2, -1)


def real(input):
    return input


def imag(input):
    raise TypeError("imag is not implemented for tensors with non-complex dtypes.")


def typename(obj):
    """PyTorch's name of a tensor's type (`torch.FloatTensor`), else the object's type name."""
    if isinstance(obj, Tensor):
        names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
        return f"torch.{names[str(obj.dtype).rpartition('.')[2]]}Tensor"
    module = getattr(type(obj), "__module__", "builtins")
    return type(obj).__qualname__ if module in ("builtins", None) else f"{module}.{type(obj).__qualname__}"


def _resize_(self, *sizes, memory_format=None):
    """Gives `self` the shape `sizes`, keeping its first elements (new ones uninitialized)."""
    if len(sizes) == 1 and not isinstance(sizes[0], builtins.int):
        sizes = tuple(sizes[0])
    n = 1
    for s in sizes:
        n *= s
    if n == self.numel() and self.is_contiguous():
        return self.set_(self.reshape(sizes))
    fresh = _C.empty(n, dtype=self.dtype, device=self.device)
    keep = min(n, self.numel())
    if keep:
        fresh[:keep] = self.detach().reshape(-1)[:keep]
    return self.set_(fresh.reshape(sizes))


def _apply_(self, callable):
    """Replaces each element by `callable(element)` (CPU tensors, Python numbers)."""
    if self.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    return self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))


def _map_(self, tensor, callable):
    """Replaces each element by `callable(element, other's element)` (`tensor` broadcast)."""
    if self.device.type != "cpu":
        raise TypeError("map_ is only implemented on CPU tensors")
    other = tensor.broadcast_to(self.shape).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    return self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))


def _new(self, *args, device=None):
    """The legacy constructor: sizes give an uninitialized tensor, data a tensor of it, both
    of `self`'s dtype and device."""
    if not args:
        return _C.empty(0, dtype=self.dtype, device=device or self.device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].to(self.dtype)
    if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return _C.empty(*args, dtype=self.dtype, device=device or self.device)
    return _C.tensor(args[0], dtype=self.dtype, device=device or self.device)


def _equal(self, other):
    from .functional import equal
    return equal(self, other)


def _copy_variant(name):
    view = getattr(Tensor, name)

    def copy(input, *args, **kwargs):
        out = view(input, *args, **kwargs)
        return tuple(o.clone() for o in out) if isinstance(out, (tuple, list)) else out.clone()
    copy.__name__ = name + "_copy"
    copy.__doc__ = f"`{name}` as a new tensor (no view)."
    return copy


# The `torch.X_copy` functions: the views, copied.
_COPY_VARIANTS = """as_strided detach diagonal expand permute select squeeze t transpose unbind unfold
                    unsqueeze view split split_with_sizes""".split()


# ----- geometry ----------------------------------------------------------------------------------

def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def moveaxis(input, source, destination):
    """`movedim`, the dims given one by one or as sequences of one length."""
    if isinstance(source, builtins.int) and isinstance(destination, builtins.int):
        return input.movedim(source, destination)
    n = input.dim()
    src = [s % n for s in ([source] if isinstance(source, builtins.int) else source)]
    dst = [s % n for s in ([destination] if isinstance(destination, builtins.int) else destination)]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain "
                           f"the same number of dims as destination ({list(destination)} dims)")
    order = [None] * n
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(k for k in range(n) if k not in src)
    return input.permute([o if o is not None else next(rest) for o in order])


def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees k times in the plane `dims`, from the first axis towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (d % input.dim() for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def narrow_copy(input, dim, start, length):
    return input.narrow(dim, start, length).clone()


def sum_to_size(self, *size):
    """Sums `self` down to `size`, which it must expand to."""
    if len(size) == 1 and not isinstance(size[0], builtins.int):
        size = tuple(size[0])
    shape = tuple(self.shape)
    if len(size) > len(shape) or any(s != 1 and s != d for s, d in zip(size[::-1], shape[::-1])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    lead = len(shape) - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    out = self.sum(dims, keepdim=True) if dims else self
    return out.reshape(size) if lead else out


def _geometry_in_place(name):
    out_of_place = getattr(Tensor, name)

    def method(self, *args, **kwargs):
        return _become(self, out_of_place(self, *args, **kwargs))
    method.__name__ = name + "_"
    return method


def _become(self, view):
    """The object takes the view's geometry over its own storage, as PyTorch's in-place view ops
    change the sizes and strides of the same tensor; while autograd records, with the view's
    history too (`set_` has no derivative)."""
    if view.requires_grad:
        return self._become_view_(view)
    return self.set_(view)


def _as_strided_(self, size, stride, storage_offset=None):
    return _become(self, self.as_strided(size, stride, storage_offset))


# ----- splits ------------------------------------------------------------------------------------

def tensor_split(input, indices_or_sections, dim=0):
    """Views split at the given indices, or into `n` parts whose sizes differ by at most one
    (the first `size % n` one longer)."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = dim % input.dim()
    size = input.shape[d]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        if spec.dtype != _C.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, "
                               f"but got {_title(spec.dtype)}")
        if spec.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                               f"or one-dimensional tensor, but got a tensor with {spec.dim()} dims")
        spec = spec.item() if spec.dim() == 0 else spec.tolist()
    if isinstance(spec, builtins.int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        q, r = divmod(size, spec)
        bounds, at = [], 0
        for i in range(spec - 1):
            at += q + (1 if i < r else 0)
            bounds.append(at)
    else:
        bounds = list(spec)
    # Python's slicing: part i is [bounds[i-1], bounds[i]), empty where that runs backwards.
    parts, start = [], 0
    for b in bounds + [size]:
        b = max(0, min(b + size if b < 0 else b, size))
        parts.append(input.narrow(d, start, max(b - start, 0)))
        start = b
    return tuple(parts)


def _directional_split(name, dim_of, min_dims):
    def split(input, indices_or_sections):
        if input.dim() < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                               f"tensor with {input.dim()} dimensions!")
        d = dim_of(input)
        if isinstance(indices_or_sections, builtins.int):
            n = indices_or_sections
            if n != 0 and input.shape[d] % n != 0 or n == 0:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {input.shape[d]} is not divisible by the split_size {n}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    return split


hsplit = _directional_split("hsplit", lambda t: 1 if t.dim() > 1 else 0, 1)
vsplit = _directional_split("vsplit", lambda t: 0, 2)
dsplit = _directional_split("dsplit", lambda t: 2, 3)


def split_with_sizes(input, split_sizes, dim=0):
    sizes = list(split_sizes)
    d = dim % input.dim() if input.dim() else 0
    if sum(sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} "
                           f"(input tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return tuple(input.split(sizes, dim))


unsafe_split_with_sizes = split_with_sizes


def unsafe_split(input, split_size, dim=0):
    return tuple(input.split(split_size, dim))


def unsafe_chunk(input, chunks, dim=0):
    return tuple(input.chunk(chunks, dim))


# ----- NumPy's argument names --------------------------------------------------------------------

# Methods with a `dim` (and `keepdim`) argument, which PyTorch also accepts as `axis` (`keepdims`).
_DIM_METHODS = """
    sum prod mean all any amax amin max min argmax argmin var std norm logsumexp softmax log_softmax
    cumsum cumprod squeeze unsqueeze flip roll sort argsort topk median kthvalue narrow select
    index_select gather scatter scatter_add index_add unbind chunk split diff count_nonzero nansum
""".split()


def _numpy_names(fn):
    @functools.wraps(fn)
    def method(*args, **kwargs):
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return method


def accept_numpy_names(fn):
    """`fn` also taking `axis=` for `dim=` and `keepdims=` for `keepdim=` (PyTorch's aliases)."""
    return _numpy_names(fn)


# Tensor methods that are the module functions above (`x.logit(eps)` is `logit(x, eps)`).
_METHODS = """
    mvlgamma logit ldexp gcd lcm nextafter frexp signbit sgn positive isreal angle is_signed
    is_nonzero is_same_size get_device swapdims moveaxis fliplr flipud rot90 narrow_copy
    tensor_split hsplit vsplit dsplit split_with_sizes unsafe_split unsafe_chunk bitwise_left_shift
    bitwise_right_shift adjoint
""".split()
# In-place forms computed out of place and written back (`_assign_`).
_IN_PLACE = "mvlgamma logit ldexp gcd lcm nextafter sgn bitwise_left_shift bitwise_right_shift".split()
# Names PyTorch gives an op that already has one.
_ALIASES = {"clip_": "clamp_", "divide_": "div_", "subtract_": "sub_", "swapaxes_": "swapdims_",
            "unsafe_split_with_sizes": "split_with_sizes", "conj_physical": "resolve_conj"}

# The `torch.X` functions of this module (and the in-place `torch.X_` of Tensor methods).
TORCH_FUNCTIONS = _METHODS + ["polygamma", "unsafe_split_with_sizes", "is_conj", "is_neg", "resolve_conj",
                              "resolve_neg", "conj", "conj_physical", "is_inference", "moveaxis", "rsub", "scalar_tensor", "fill",
                              "real", "imag", "typename"] + [f"{n}_copy" for n in _COPY_VARIANTS]

# PyTorch's `torch.X_` functions, each the Tensor method `X_`.
TORCH_IN_PLACE = """
    abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ as_strided_ asin_ asinh_ atan_ atanh_
    ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_
    expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_
    neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_
    trunc_ xlogy_ zero_
""".split()


def install():
    g = globals()
    for name in _METHODS:
        setattr(Tensor, name, g[name])
    Tensor.sum_to_size = sum_to_size
    Tensor.polygamma = _polygamma_method
    Tensor.polygamma_ = _polygamma_
    for name in _IN_PLACE:
        setattr(Tensor, name + "_", _in_place(name, composite=True))
    for name in ("t", "transpose", "squeeze", "unsqueeze", "swapdims"):
        setattr(Tensor, name + "_", _geometry_in_place(name))
    Tensor.as_strided_ = _as_strided_
    # A real tensor is its own conjugate: views that read the same data.
    for name in ("resolve_conj", "resolve_neg", "conj"):
        setattr(Tensor, name, _self)
    Tensor.conj_physical_ = _self
    for name in ("is_conj", "is_neg", "is_pinned", "is_coalesced"):
        setattr(Tensor, name, _false)
    Tensor.pin_memory = lambda self, device=None: self
    Tensor.is_set_to = lambda self, tensor: (self.data_ptr() == tensor.data_ptr() and self.shape == tensor.shape
                                             and self.stride() == tensor.stride() and self.dtype == tensor.dtype)
    Tensor.resize_ = _resize_
    Tensor.resize_as_ = lambda self, other, memory_format=None: _resize_(self, other.shape)
    Tensor.apply_ = _apply_
    Tensor.map_ = _map_
    Tensor.new = _new
    Tensor.equal = _equal
    Tensor.__lshift__ = bitwise_left_shift
    Tensor.__rshift__ = bitwise_right_shift
    Tensor.__rlshift__ = lambda self, other: bitwise_left_shift(other, self)
    Tensor.__rrshift__ = lambda self, other: bitwise_right_shift(other, self)
    Tensor.__ilshift__ = Tensor.bitwise_left_shift_
    Tensor.__irshift__ = Tensor.bitwise_right_shift_
    for name in _COPY_VARIANTS:
        g[name + "_copy"] = _copy_variant(name)
    for alias, name in _ALIASES.items():
        setattr(Tensor, alias, getattr(Tensor, name))
    for name in _DIM_METHODS:
        if hasattr(Tensor, name):
            setattr(Tensor, name, _numpy_names(getattr(Tensor, name)))
    g.update({n: getattr(Tensor, n) for n in ("is_conj", "is_neg", "resolve_conj", "resolve_neg", "conj",
                                               "conj_physical", "is_inference")})
