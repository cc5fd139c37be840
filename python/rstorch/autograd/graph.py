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
