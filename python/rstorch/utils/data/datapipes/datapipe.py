"""The DataPipe base classes: IterDataPipe (a stream, an IterableDataset) and MapDataPipe (indexed,
a Dataset), their functional-form registry, pickling hooks, and DataChunk."""
import functools
from typing import TypeVar

from ..dataset import Dataset, IterableDataset
from . import _hook_iterator, _typing

__all__ = ["DataChunk", "DFIterDataPipe", "IterDataPipe", "MapDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


class DataChunk(list):
    """A batch produced by `batch`/`groupby`: a list that remembers the items it was made from."""

    def __init__(self, items):
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent=""):
        return indent + "[" + ", ".join(str(i) for i in self) + "]"

    def raw_iterator(self):
        yield from self.items


class _DataPipeMeta(type):
    """Gives each DataPipe class the element type its generic base declares (`.type`)."""

    def __new__(mcls, name, bases, namespace, **kwargs):
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        declared = _typing.declared_type(cls, tuple(b for b in bases if isinstance(b, _DataPipeMeta)))
        if declared is not None and "type" not in namespace:
            cls.type = declared
        return cls


class _IterDataPipeMeta(_DataPipeMeta):
    """Also puts each `__iter__` a class defines under the single-iterator rule."""

    def __new__(mcls, name, bases, namespace, **kwargs):
        if "__iter__" in namespace:
            namespace["__iter__"] = _hook_iterator.hook_iter(namespace["__iter__"])
        return super().__new__(mcls, name, bases, namespace, **kwargs)


class _DataPipeCommon:
    """What IterDataPipe and MapDataPipe share. Each keeps its own registry and hooks on itself
    (`_root`), so `.map` of an IterDataPipe and of a MapDataPipe are different pipes."""

    type = _typing._ANY
    reinforce_type = _typing.reinforce_type

    def __getattr__(self, attribute_name):
        root = type(self)._root
        f = root.functions.get(attribute_name)
        if f is None:
            raise AttributeError(
                f"'{self.__class__.__name__}' object has no attribute '{attribute_name}")
        function = functools.partial(f, self)
        functools.update_wrapper(wrapper=function, wrapped=f, assigned=("__doc__",))
        return function

    @classmethod
    def register_function(cls, function_name, function):
        cls._root.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register, *args, **kwargs):
        functions = cls._root.functions
        if function_name in functions:
            raise Exception(  # noqa: TRY002 - PyTorch raises a plain Exception here
                f"Unable to add DataPipe function name {function_name} as it is already taken")
        function = functools.partial(_construct, cls_to_register)
        functools.update_wrapper(wrapper=function, wrapped=cls_to_register, assigned=("__doc__",))
        functions[function_name] = function

    def __getstate__(self):
        state = self.__dict__
        hook = type(self)._root.getstate_hook
        return hook(state) if hook is not None else state

    def __reduce_ex__(self, protocol):
        hook = type(self)._root.reduce_ex_hook
        if hook is not None:
            try:
                return hook(self)
            except NotImplementedError:
                pass
        return super().__reduce_ex__(protocol)

    @classmethod
    def set_getstate_hook(cls, hook_fn):
        root = cls._root
        if root.getstate_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing getstate_hook")
        root.getstate_hook = hook_fn

    @classmethod
    def set_reduce_ex_hook(cls, hook_fn):
        root = cls._root
        if root.reduce_ex_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing reduce_ex_hook")
        root.reduce_ex_hook = hook_fn

    def __repr__(self):
        if self.repr_hook is not None:
            return self.repr_hook(self)
        return self.__class__.__qualname__

    def __str__(self):
        if self.str_hook is not None:
            return self.str_hook(self)
        return self.__class__.__qualname__

    def __dir__(self):
        return list(super().__dir__()) + list(type(self)._root.functions)


def _construct(cls, source_dp, *args, **kwargs):
    return cls(source_dp, *args, **kwargs)


class IterDataPipe(_DataPipeCommon, IterableDataset[_T_co], metaclass=_IterDataPipeMeta):
    """Iterable-style DataPipe: a lazily computed stream of samples, chained through functional
    forms (`dp.map(fn).filter(pred)`). Only one iterator per pipe is valid at a time; `__iter__`
    calls `reset()` first."""

    functions = {}
    reduce_ex_hook = None
    getstate_hook = None
    str_hook = None
    repr_hook = None
    _valid_iterator_id = None
    _number_of_samples_yielded = 0

    def __iter__(self):
        return self

    def reset(self):
        """Restores the pipe's initial state (buffers, positions); a no-op unless overridden."""


class DFIterDataPipe(IterDataPipe):
    """Base of PyTorch's DataFrame pipes. Those pipes (and their tracing) need pandas and are not
    provided; this base exists so code that subclasses or type-checks against it imports."""

    def _is_dfpipe(self):
        return True


class MapDataPipe(_DataPipeCommon, Dataset[_T_co], metaclass=_DataPipeMeta):
    """Map-style DataPipe: `__getitem__(key)` returns a sample; chained through functional forms."""

    functions = {}
    reduce_ex_hook = None
    getstate_hook = None
    str_hook = None
    repr_hook = None


IterDataPipe._root = IterDataPipe
MapDataPipe._root = MapDataPipe
