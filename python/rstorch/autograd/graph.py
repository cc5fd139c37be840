"""`grad_fn` objects: one Python class per node kind (`AddBackward0`, `AccumulateGrad`, ...),
one wrapper object per live node, so graph walks can use identity."""
import weakref


_classes = {}
_wrappers = weakref.WeakValueDictionary()


class Node:
    """A node of the autograd graph, as `tensor.grad_fn` returns it."""

    __slots__ = ("_c", "metadata", "__weakref__")

    def name(self):
        return self._c.name()

    @property
    def next_functions(self):
        return self._c.next_functions

    @property
    def variable(self):
        v = self._c.variable
        if v is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'variable'")
        return v

    @property
    def saved_tensors(self):
        # Only the node of a Python Function has it, as in PyTorch (graph tools test hasattr).
        saved = self._c._function_saved_tensors()
        if saved is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'saved_tensors'")
        return saved

    def __getattr__(self, name):
        # PyTorch's `_saved_<name>` attributes: what a built-in op's node saved for backward.
        if name.startswith(_SAVED_PREFIX):
            saved, error, tensor_names = _saved_attributes(self)
            key = name[len(_SAVED_PREFIX):]
            if key in saved:
                return saved[key]
            if error is not None and key in tensor_names:
                raise error
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        return sorted(set(super().__dir__()) | {_SAVED_PREFIX + k for k in _saved_attributes(self)[0]})

    def register_hook(self, fn):
        from ..utils.hooks import RemovableHandle
        return RemovableHandle(self._c._remove_hook, self._c.register_hook(fn))

    def register_prehook(self, fn):
        from ..utils.hooks import RemovableHandle
        return RemovableHandle(self._c._remove_hook, self._c.register_prehook(fn))

    def __call__(self, *grads):
        return self._c(grads)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


def _wrap_node(c):
    key = c._key()
    w = _wrappers.get(key)
    if w is not None:
        return w
    name = c.name()
    cls = _classes.get(name)
    if cls is None:
        # Nodes PyTorch names with their C++ namespace ("torch::autograd::CopySlices") have a
        # class named without it.
        cls = _classes[name] = type(name.rsplit("::", 1)[-1], (Node,), {"__slots__": ()})
    w = cls.__new__(cls)
    w._c = c
    w.metadata = {}
    _wrappers[key] = w
    return w


class SavedTensor:
    """A tensor a node saved for its backward, as PyTorch's `grad_fn._raw_saved_*` give it. Only
    the graph makes them: rstorch's nodes keep their saved tensors in the Rust core and hand out
    the tensors themselves (`ctx.saved_tensors`)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")


_SAVED_PREFIX = "_saved_"
# PyTorch's names for the inputs a node saves (derivatives.yaml's argument names), where they
# are not `self` (one input) or `self, other` (two); the inputs in rstorch's recording order.
_INPUT_NAMES = {
    "MmBackward0": ("self", "mat2"),
    "BmmBackward0": ("self", "mat2"),
    "AddmmBackward0": ("self", "mat1", "mat2"),
    "PowBackward1": ("self", "exponent"),
    "WhereBackward0": ("condition", "self", "other"),
    "IndexSelectBackward0": ("self", "index"),
    "GatherBackward0": ("self", "index"),
    "ScatterBackward0": ("self", "index", "src"),
    "ScatterAddBackward0": ("self", "index", "src"),
    "IndexAddBackward0": ("self", "index", "source"),
    "NllLossBackward0": ("self", "target"),
    "ConvolutionBackward0": ("input", "weight", "bias"),
    "NativeLayerNormBackward0": ("input", "weight", "bias"),
    "NativeBatchNormBackward0": ("input", "weight", "bias"),
}
# Intermediate results a node keeps, under PyTorch's names (others are rstorch's own).
_BUFFER_NAMES = {
    "NativeLayerNormBackward0": ("mean", "rstd"),
    "NativeBatchNormBackward0": ("save_mean", "save_invstd"),
}
# Nodes whose inputs' shapes PyTorch keeps as `<input>_sym_sizes`, by input position.
_SIZES = {
    "SumBackward0": (0,), "SumBackward1": (0,), "MeanBackward0": (0,), "MeanBackward1": (0,),
    "ExpandBackward0": (0,), "ViewBackward0": (0,), "UnsafeViewBackward0": (0,), "ReshapeAliasBackward0": (0,),
    "SqueezeBackward0": (0,), "AmaxBackward0": (0,), "AminBackward0": (0,),
    "MmBackward0": (0, 1), "AddmmBackward0": (1, 2), "IndexSelectBackward0": (0,),
}


def _saved_attributes(node):
    """`(saved, error, tensor_names)`: `name -> value` of what `node` saved (tensors per input
    (`self`, `other`, ...) and output (`result`), kept intermediates, the op's other arguments);
    once its tensors were freed, the error reading one raises and the names they may have."""
    parts = node._c._saved()
    if parts is None:
        return {}, None, ()
    inputs, outputs, buffers, attrs, shapes = parts
    name = node.name()
    names = _INPUT_NAMES.get(name) or (("self",) if len(shapes) == 1 else ("self", "other"))
    names = list(names) + [f"input{i}" for i in range(len(names), len(shapes))]
    # t() is recorded as a permute of two dims: PyTorch's TBackward0 keeps no `dims`.
    saved = {} if name == "TBackward0" else dict(attrs)
    saved.update((f"{names[i]}_sym_sizes", shapes[i]) for i in _SIZES.get(name, ()) if i < len(shapes))
    if isinstance(inputs, BaseException):
        return saved, inputs, (*names, "result", *_BUFFER_NAMES.get(name, ()))
    saved.update((names[i], t) for i, t in enumerate(inputs) if t is not None)
    saved.update(("result" if len(outputs) == 1 else f"result{i}", t) for i, t in enumerate(outputs) if t is not None)
    saved.update(zip(_BUFFER_NAMES.get(name, ()), buffers))
    return saved, None, ()
