"""The profiler's recording: ranges (one per op call or `record_function` block) with their start
and end in nanoseconds, thread, input shapes and nesting.

rstorch's ops reach the Rust core from many places at once (each `Tensor` method and operator
slot, each `_C` function, and the aliases modules took of them at import), so there is no single
Python call to put a check in. Instead, while at least one profiler records, every op entry point
is replaced by a wrapper that opens and closes a range around the call, and the originals are put
back when the last profiler stops: with no profiler active the ops are the bare core functions,
costing nothing at all.

Profilers may nest: all of them read one shared stream of ranges, each the part recorded between
its own start and stop."""
import functools
import sys
import threading
import types
from time import perf_counter_ns

from .. import _C

Tensor = _C.Tensor


class ProfilerEvent:
    """One recorded range (PyTorch's legacy profiler event): created by the profiler only."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise TypeError("rstorch.autograd.ProfilerEvent: No constructor defined!")


class _Range(ProfilerEvent):
    __slots__ = ("_name", "start_ns", "end_ns", "thread", "native_thread", "shapes", "parent", "user")

    def __init__(self, name, thread, native_thread, shapes, parent, user):
        self._name = name
        self.thread = thread
        self.native_thread = native_thread
        self.shapes = shapes
        self.parent = parent
        self.user = user
        self.end_ns = None
        self.start_ns = perf_counter_ns()

    def name(self):
        return self._name

    def thread_id(self):
        return self.thread

    def cpu_elapsed_us(self, other):
        return (other.start_ns - self.start_ns) / 1000.0


class _State:
    """The shared stream: `on` while a profiler records; `ranges` in the order they opened."""

    def __init__(self):
        self.on = False
        self.ranges = []
        self.profilers = 0
        self.shapes = 0
        self.generation = 0
        self.lock = threading.Lock()
        self.threads = {}
        self.patches = []
        # perf_counter_ns() when the core began timing backward nodes (their records count from it).
        self.node_anchor = 0


_state = _State()
_local = threading.local()


def _stack():
    """This thread's open ranges, innermost last (a stale stack of an earlier stream is dropped)."""
    if getattr(_local, "generation", -1) != _state.generation:
        _local.generation = _state.generation
        _local.stack = []
        with _state.lock:
            _local.thread = _state.threads.setdefault(threading.get_ident(), len(_state.threads) + 1)
        _local.native = threading.get_native_id()
    return _local.stack


def _shapes_of(args):
    return [list(a.shape) if isinstance(a, Tensor) else [] for a in args]


def recording():
    """Whether a profiler records now."""
    return _state.on


def open_range(name, args=(), user=False, inner=False):
    """Opens a range on this thread; None when nothing records, when `name` repeats its own
    enclosing op (a Python function over the core function of the same op: one event, as PyTorch
    has), or for an `inner` kernel called by an op (the op's event is the one PyTorch has)."""
    if not _state.on:
        return None
    stack = _stack()
    parent = stack[-1] if stack else None
    if parent is not None and not user and not parent.user and (inner or parent._name == name):
        return None
    shapes = _shapes_of(args) if _state.shapes else []
    r = _Range(name, _local.thread, _local.native, shapes, parent, user)
    stack.append(r)
    _state.ranges.append(r)
    return r


def close_range(r):
    if r is None or r.end_ns is not None:
        return
    end = perf_counter_ns()
    r.end_ns = end
    stack = _stack()
    if stack and stack[-1] is r:
        stack.pop()
    elif r in stack:
        # Closed out of order (a record_function exited across threads or generators).
        stack.remove(r)


def _wrap(fn, name, inner=False):
    def op(*args, **kwargs):
        r = open_range(name, args, inner=inner)
        if r is None:
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        finally:
            close_range(r)
    return _named(op, fn)


def _wrap_engine(fn, name):
    """`autograd::backward` and `autograd::grad`: the call's range, and inside it one range per
    node the engine evaluated (PyTorch's `autograd::engine::evaluate_function: <node>` around
    `<node>`), from the core's records of this thread."""
    def op(*args, **kwargs):
        r = open_range(name, args)
        try:
            return fn(*args, **kwargs)
        finally:
            stack = _stack()
            parent = r if r is not None else (stack[-1] if stack else None)
            close_range(r)
            _add_node_ranges(parent)
    return _named(op, fn)


def _add_node_ranges(parent):
    thread = parent.thread if parent is not None else _local.thread
    native = parent.native_thread if parent is not None else _local.native
    anchor = _state.node_anchor
    for node, start, end in _C._backward_records():
        outer = _Range("autograd::engine::evaluate_function: " + node, thread, native, [], parent, False)
        inner = _Range(node, thread, native, [], outer, False)
        for r in (outer, inner):
            r.start_ns, r.end_ns = anchor + start, anchor + end
            _state.ranges.append(r)


def _wrap_indexing(fn, names):
    """`t[key]` and `t[key] = v`: the op PyTorch records depends on the key."""
    basic, sliced, advanced = names

    def op(self, key, *rest):
        name = basic if isinstance(key, int) else sliced if isinstance(key, slice) else advanced
        r = open_range(name, (self,))
        if r is None:
            return fn(self, key, *rest)
        try:
            return fn(self, key, *rest)
        finally:
            close_range(r)
    return _named(op, fn)


def _named(op, fn):
    try:
        return functools.wraps(fn)(op)
    except (AttributeError, TypeError):
        return op


# Operators, by PyTorch's recorded names.
_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div",
    "__itruediv__": "div_", "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide",
    "__ifloordiv__": "floor_divide_", "__mod__": "remainder", "__rmod__": "remainder", "__imod__": "remainder_",
    "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_", "__matmul__": "matmul", "__rmatmul__": "matmul",
    "__and__": "__and__", "__rand__": "__and__", "__iand__": "__iand__", "__or__": "__or__", "__ror__": "__or__",
    "__ior__": "__ior__", "__xor__": "__xor__", "__rxor__": "__xor__", "__ixor__": "__ixor__",
    "__lshift__": "__lshift__", "__rlshift__": "__lshift__", "__ilshift__": "__ilshift__",
    "__rshift__": "__rshift__", "__rrshift__": "__rshift__", "__irshift__": "__irshift__",
    "__neg__": "neg", "__pos__": "positive", "__abs__": "abs", "__invert__": "bitwise_not",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__bool__": "is_nonzero", "__float__": "item", "__int__": "item", "__index__": "item",
}
_INDEXING = {"__getitem__": ("aten::select", "aten::slice", "aten::index"),
             "__setitem__": ("aten::copy_", "aten::copy_", "aten::index_put_")}
# Tensor methods that read metadata or manage the tensor object rather than run an op.
_NOT_OPS = frozenset("""
    dim ndimension size stride numel nelement element_size is_contiguous is_floating_point is_complex
    is_signed is_shared is_pinned data_ptr storage_offset get_device untyped_storage storage register_hook
    retain_grad requires_grad_ tolist numpy share_memory_ backward_hook type is_set_to
""".split())
# `_C` functions that are no ops: flags, registries, seeds, devices, I/O.
_C_NOT_OPS = frozenset("""
    _binary_ops _unary_ops _composite_ops _record_function _profile_backward _backward_records _simd_level
    _cuda_device_count _storage_from_bytes _tensor_bytes _bump_versions can_cast promote_types result_type manual_seed seed initial_seed
""".split())
_C_NOT_OP_PREFIXES = ("_wgpu", "_set_", "_is_", "_safetensors", "get_", "set_", "is_")
# `_C`'s private op functions under the names PyTorch records for them.
_C_NAMES = {
    "_linear": "aten::linear", "_bilinear": "aten::bilinear", "_convolution": "aten::convolution",
    "_conv_transpose": "aten::convolution", "_cross_entropy": "aten::cross_entropy_loss",
    "_backward": "autograd::backward", "_grad": "autograd::grad", "_layer_norm": "aten::layer_norm",
    "_batch_norm": "aten::batch_norm", "_group_norm": "aten::group_norm", "_embedding": "aten::embedding",
    "_dropout": "aten::dropout", "_feature_dropout": "aten::feature_dropout", "_nll_loss": "aten::nll_loss_nd",
    "_mse_loss": "aten::mse_loss", "_l1_loss": "aten::l1_loss", "_smooth_l1_loss": "aten::smooth_l1_loss",
    "_huber_loss": "aten::huber_loss", "_kl_div": "aten::kl_div", "_pad": "aten::pad",
    "_binary_cross_entropy": "aten::binary_cross_entropy",
    "_binary_cross_entropy_with_logits": "aten::binary_cross_entropy_with_logits",
    "_scaled_dot_product_attention": "aten::scaled_dot_product_attention", "_prelu": "aten::prelu",
    "_glu": "aten::glu", "_interpolate": "aten::upsample", "_pairwise_distance": "aten::pairwise_distance",
    "_max_pool_with_indices": "aten::max_pool_with_indices",
}
# `_C` kernels shared by several ops (max pooling of every rank, each interpolation mode): inside
# one of those ops' events they are that op's work, with no event of their own.
_C_INNER = frozenset(("_max_pool_with_indices", "_interpolate"))
# nn.functional functions PyTorch records under another name.
_F_NAMES = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd", "softmax": "softmax"}


def _tensor_op_name(name, value):
    if not isinstance(value, (types.FunctionType, types.MethodDescriptorType, types.WrapperDescriptorType)):
        return None
    if name in _OPERATORS:
        return "aten::" + _OPERATORS[name]
    if name.startswith("_") or name in _NOT_OPS:
        return None
    return "autograd::backward" if name == "backward" else "aten::" + name


def _c_op_name(name, value):
    if not isinstance(value, types.BuiltinFunctionType) or name in _C_NOT_OPS or name.startswith(_C_NOT_OP_PREFIXES):
        return None
    return _C_NAMES.get(name, "aten::" + name)


def _patch(owner, name, value):
    _state.patches.append((owner, name, owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)))
    setattr(owner, name, value)


def _install():
    """Puts a recording wrapper in every op entry point, and in the aliases rstorch's loaded
    modules hold of them."""
    wrappers = {}
    for name, value in list(Tensor.__dict__.items()):
        if name in _INDEXING and isinstance(value, types.WrapperDescriptorType):
            wrapper = _wrap_indexing(value, _INDEXING[name])
        else:
            op_name = _tensor_op_name(name, value)
            if op_name is None:
                continue
            wrapper = _wrap_engine(value, op_name) if op_name == "autograd::backward" else _wrap(value, op_name)
        wrappers[id(value)] = (value, wrapper)
        _patch(Tensor, name, wrapper)
    for name, value in list(vars(_C).items()):
        op_name = _c_op_name(name, value)
        if op_name is not None:
            engine = op_name in ("autograd::backward", "autograd::grad")
            wrapper = _wrap_engine(value, op_name) if engine else _wrap(value, op_name, inner=name in _C_INNER)
            wrappers[id(value)] = (value, wrapper)
            _patch(_C, name, wrapper)
    functional = sys.modules.get("rstorch.nn.functional")
    if functional is not None:
        for name in getattr(functional, "__all__", dir(functional)):
            value = getattr(functional, name, None)
            if isinstance(value, types.FunctionType) and not name.startswith("_") and id(value) not in wrappers:
                wrappers[id(value)] = (value, _wrap(value, "aten::" + _F_NAMES.get(name, name)))
    # Aliases: `rstorch.exp is Tensor.exp`, `F.relu`, `from .._C import cat`, ...
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "rstorch" or module_name.startswith("rstorch.")):
            continue
        if module is _C or module_name.startswith(("rstorch.autograd._profiler", "rstorch.autograd.profiler",
                                                   "rstorch.profiler")):
            continue
        for name, value in list(vars(module).items()):
            found = wrappers.get(id(value))
            if found is not None and found[0] is value:
                _patch(module, name, found[1])
            elif isinstance(value, type) and value.__module__ == module_name and value is not Tensor:
                _patch_static_methods(value, wrappers)


def _patch_static_methods(cls, wrappers):
    """Ops a class holds as static methods (`_conv = staticmethod(F.conv2d)`)."""
    for name, value in list(vars(cls).items()):
        if isinstance(value, staticmethod):
            found = wrappers.get(id(value.__func__))
            if found is not None and found[0] is value.__func__:
                _patch(cls, name, staticmethod(found[1]))


def _uninstall():
    while _state.patches:
        owner, name, original = _state.patches.pop()
        setattr(owner, name, original)


def start(record_shapes):
    """Starts recording for one profiler; returns where its part of the stream begins."""
    with _state.lock:
        if _state.profilers == 0:
            _state.generation += 1
            _state.ranges = []
            _state.threads = {}
            _install()
            # The core's clock starts inside the call: between the two readings.
            before = perf_counter_ns()
            _C._profile_backward(True)
            _state.node_anchor = (before + perf_counter_ns()) // 2
        _state.profilers += 1
        _state.shapes += bool(record_shapes)
        _state.on = True
        return len(_state.ranges), perf_counter_ns()


def stop(begin, record_shapes):
    """Stops one profiler's recording; returns its ranges (those it saw open and close)."""
    with _state.lock:
        stop_ns = perf_counter_ns()
        taken = [r for r in _state.ranges[begin:] if r.end_ns is not None and r.end_ns <= stop_ns]
        _state.profilers -= 1
        _state.shapes -= bool(record_shapes)
        if _state.profilers == 0:
            _state.on = False
            _C._profile_backward(False)
            _uninstall()
            _state.ranges = []
        return taken
