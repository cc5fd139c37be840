"""rstorch: a deep-learning framework with PyTorch's API, a Rust core and a Python front.

    import rstorch as torch
"""
from . import _C
from ._C import (
    Tensor, dtype, device, Generator,
    bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
    tensor, as_tensor, from_numpy, zeros, ones, empty, full, arange, linspace, eye,
    rand, randn, randint, randperm, manual_seed, initial_seed, seed,
    cat, stack, einsum, set_num_threads, get_num_threads, result_type, promote_types, can_cast,
    set_default_device, get_default_device, get_rng_state, set_rng_state, default_generator,
)
from ._C import where as where, is_grad_enabled
from .autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_inference_mode_enabled
from ._size import Size
from . import _tensor, _sampling, return_types
from . import _shared_memory
from ._sampling import bernoulli, normal, poisson
from ._memory_format import memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d

_tensor.install()
_sampling.install()
_shared_memory.install()
from . import _tensorfns  # noqa: E402
_tensorfns.install()
# Legacy tensor types and `Tensor.type` taking them (`_legacy_types.py`).
from . import _legacy_types  # noqa: E402
_legacy_types.install()

__version__ = "0.1.0"

# Aliases PyTorch provides.
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
concat = concatenate = cat

# Functions that are the Tensor methods of the same name (`rstorch.exp(x)` is `x.exp()`): the
# unary and binary ops declared in the core's registry (`src/ops/unary.rs`, `src/ops/binary.rs`),
# then the others.
_METHOD_FUNCTIONS = list(_C._unary_ops()[0]) + list(_C._binary_ops()) + """
    add sub subtract div divide pow logical_not bitwise_not round
    square clamp clip clamp_min clamp_max
    sum prod mean all any amax amin max min argmax argmin var std norm logsumexp softmax
    log_softmax cumsum cumprod
    reshape flatten unflatten squeeze unsqueeze transpose swapaxes t permute movedim narrow select
    unbind chunk split unfold flip roll tril triu ravel
    index_select gather scatter scatter_add index_add masked_fill masked_select nonzero sort argsort
    topk matmul mm bmm mv dot inner outer addmm numel is_floating_point is_complex clone detach
    frac lerp addcmul addcdiv median kthvalue broadcast_to tile diag diagonal trace take
    multinomial isnan isinf isposinf isneginf isfinite nan_to_num nan_to_num_ allclose as_strided
""".split()
for _name in _METHOD_FUNCTIONS:
    globals()[_name] = getattr(Tensor, _name)
# Reductions, scans, counting and searches written over the core's ops (`_reductions.py`).
from . import _reductions  # noqa: E402
_reductions.install()
for _reduction in _reductions._FUNCTIONS:
    globals()[_reduction] = getattr(_reductions, _reduction)
del _reduction
# Linear algebra beside torch.linalg and the products with a bias (`_linalg_methods.py`).
from . import _linalg_methods  # noqa: E402
_linalg_methods.install()
for _linalg_name in _linalg_methods._FUNCTIONS:
    globals()[_linalg_name] = getattr(_linalg_methods, _linalg_name)
for _linalg_name in _linalg_methods._REMOVED_TEXTS:
    globals()[_linalg_name] = _linalg_methods._removed(_linalg_name)
del _linalg_name
# The composite ops declared in `src/ops/composite.rs` are functions of their own (`input` may be
# a number where PyTorch takes one: `float_power(2, t)`).
for _name in _C._composite_ops()[0]:
    globals()[_name] = getattr(_C, _name)
del _name
# The functions of `_tensorfns.py` and `_scatter_ops.py`, and `torch.X_` for the in-place
# forms PyTorch also has as functions (`torch.exp_(x)` is `x.exp_()`).
from . import _scatter_ops  # noqa: E402
_scatter_ops.install()
globals().update({_n: getattr(_tensorfns, _n) for _n in _tensorfns.TORCH_FUNCTIONS})
globals().update({_n: getattr(_scatter_ops, _n) for _n in _scatter_ops.TORCH_FUNCTIONS})
globals().update({_n: getattr(Tensor, _n) for _n in _tensorfns.TORCH_IN_PLACE if hasattr(Tensor, _n)})
globals().update({_n: _tensorfns.accept_numpy_names(globals()[_n]) for _n in ("cat", "concat", "concatenate", "stack")})


def pow(input, exponent):
    """`input ** exponent`; `input` may be a number when `exponent` is a tensor."""
    if not isinstance(input, Tensor) and isinstance(exponent, Tensor):
        return exponent.__rpow__(input)
    return Tensor.pow(input, exponent)


def remainder(input, other):
    """Python's `%` (the divisor's sign); `input` may be a number when `other` is a tensor."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return other.__rmod__(input)
    return Tensor.remainder(input, other)


def _stack_parts(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def atleast_1d(*tensors):
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    parts = tensors[0] if len(tensors) == 1 and not one else tensors
    out = tuple(t.reshape(1) if t.dim() == 0 else t for t in parts)
    return out[0] if one else out


def atleast_2d(*tensors):
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    parts = tensors[0] if len(tensors) == 1 and not one else tensors
    out = tuple(t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t for t in parts)
    return out[0] if one else out


def atleast_3d(*tensors):
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    parts = tensors[0] if len(tensors) == 1 and not one else tensors

    def lift(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        if t.dim() == 2:
            return t.unsqueeze(-1)
        return t
    out = tuple(lift(t) for t in parts)
    return out[0] if one else out


def hstack(tensors):
    """Joins along dim 1, or dim 0 for 1-D tensors (0-d ones count as 1-D)."""
    parts = atleast_1d(_stack_parts(tensors, "hstack"))
    return cat(parts, 0 if parts[0].dim() == 1 else 1)


def vstack(tensors):
    """Joins along dim 0, 1-D tensors (and 0-d ones) becoming rows."""
    return cat(atleast_2d(_stack_parts(tensors, "vstack")), 0)


row_stack = vstack


def dstack(tensors):
    """Joins along dim 2, lower-dim tensors lifted to 3-D first."""
    return cat(atleast_3d(_stack_parts(tensors, "dstack")), 2)


def column_stack(tensors):
    """Joins along dim 1, 0-d and 1-D tensors becoming columns."""
    parts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _stack_parts(tensors, "column_stack")]
    return cat(parts, 1)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def numel(input):
    return input.numel()


def _like(factory):
    def like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, **_):
        out = factory(*input.shape, dtype=dtype or input.dtype, device=device or input.device)
        return _in_layout_of(input, out, memory_format, requires_grad)
    like.__name__ = factory.__name__ + "_like"
    return like


def _in_layout_of(input, out, memory_format, requires_grad):
    """`out` (a new row-major tensor of input's shape) laid out as PyTorch's `*_like` factories
    lay out theirs: in input's memory order (preserve_format, the default), or row-major."""
    if memory_format is None or memory_format is preserve_format:
        strides = _C._preserved_strides(input)
        if tuple(strides) != out.stride():
            with no_grad():
                out = _scatter_ops.empty_strided(out.shape, strides, dtype=out.dtype, device=out.device).copy_(out)
    return out.requires_grad_(requires_grad) if requires_grad else out


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    out = full(input.shape, fill_value, dtype=dtype or input.dtype, device=device or input.device)
    return _in_layout_of(input, out, memory_format, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    out = rand(*input.shape, dtype=dtype or input.dtype, device=device or input.device)
    return _in_layout_of(input, out, memory_format, requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    out = randn(*input.shape, dtype=dtype or input.dtype, device=device or input.device)
    return _in_layout_of(input, out, memory_format, requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    out = randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device)
    return _in_layout_of(input, out, memory_format, requires_grad)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, name=None,
            disable=False, **kwargs):
    """rstorch runs every program eagerly: compiling gives back `model` itself (the function or
    module, which computes what its compiled form would), or, called without one, a decorator
    that does so."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return lambda m: m
    return model


def get_default_dtype():
    return float32


# The functions written in Python over the ops (`functional.py`), loaded on first use.
_FUNCTIONAL = ("broadcast_shapes", "broadcast_tensors", "meshgrid", "cartesian_prod", "block_diag", "tensordot",
               "chain_matmul", "unravel_index", "equal")


def __getattr__(name):
    # Submodules load on first use so that `import rstorch` stays fast.
    import importlib
    if name in ("nn", "autograd", "optim", "utils", "testing", "viz", "serialization", "wgpu",
                "cuda", "amp", "backends", "accelerator", "onnx", "random", "special", "jit", "distributed") or name == "multiprocessing":
        return importlib.import_module(f".{name}", __name__)
    if name in ("hub", "fx", "distributions", "func", "profiler"):
        return importlib.import_module(f".{name}", __name__)
    if name == "_assert":
        return importlib.import_module(".fx._symbolic_trace", __name__)._assert
    if name == "ops":
        return importlib.import_module("._ops", __name__).ops
    if name in ("autocast", "is_autocast_enabled", "get_autocast_dtype"):
        return getattr(importlib.import_module(".amp", __name__), name)
    if name in ("save", "load"):
        return getattr(importlib.import_module(".serialization", __name__), name)
    if name == "linalg":
        return importlib.import_module(".linalg", __name__)
    if name in _FUNCTIONAL:
        return getattr(importlib.import_module(".functional", __name__), name)
    if name == "pdist":
        # torch.pdist is nn.functional.pdist (one definition, loaded with nn on first use).
        return importlib.import_module(".nn.functional", __name__).pdist
    extras = importlib.import_module("._torch_extras", __name__)
    if name in extras.NAMES:
        return getattr(extras, name)
    raise AttributeError(f"module 'rstorch' has no attribute '{name}'")
