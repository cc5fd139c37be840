"""Decorators of DataPipe classes: the functional-form registry, determinism marks, and type
validation of arguments and of produced items."""
import functools
import inspect
import typing

from . import _typing
from .datapipe import IterDataPipe, MapDataPipe, _DataPipeMeta

__all__ = [
    "argument_validation", "functional_datapipe", "guaranteed_datapipes_determinism",
    "non_deterministic", "runtime_validation", "runtime_validation_disabled",
]


class functional_datapipe:
    """Class decorator: `@functional_datapipe("name")` makes `dp.name(*args)` build
    `Cls(dp, *args)` for every DataPipe of the decorated class's kind (iter or map)."""

    def __init__(self, name, enable_df_api_tracing=False):
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        if issubclass(cls, IterDataPipe):
            if not isinstance(cls, _DataPipeMeta):
                raise TypeError("`functional_datapipe` can only decorate IterDataPipe")
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        return cls


# Set while a `guaranteed_datapipes_determinism` object is alive (from its construction, as in
# PyTorch, to the exit of its `with` block).
_determinism = False


class guaranteed_datapipes_determinism:
    """Context manager: building a DataPipe marked `non_deterministic` inside it raises."""

    def __init__(self):
        global _determinism
        self.prev = _determinism
        _determinism = True

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        global _determinism
        _determinism = self.prev


def _refuse(cls, detail):
    raise TypeError(
        f"{cls.__name__} is non-deterministic{detail}, but you set "
        "'guaranteed_datapipes_determinism'. You can turn off determinism for this DataPipe if "
        "that is acceptable for your application")


class non_deterministic:
    """Marks an IterDataPipe class as non-deterministic, always (`@non_deterministic`) or for the
    constructor arguments for which `fn(*args, **kwargs)` returns True
    (`@non_deterministic(fn)`)."""

    cls = None

    def __init__(self, arg):
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError("Only `IterDataPipe` can be decorated with `non_deterministic`, "
                                f"but {arg.__name__} is found")
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args, **kwargs):
        if self.cls is not None:
            # Stands in for the class: a call builds an instance.
            if _determinism:
                _refuse(self.cls, "")
            return self.cls(*args, **kwargs)
        # `@non_deterministic(fn)` applied to the class.
        cls = args[0]
        if not (isinstance(cls, type) and issubclass(cls, IterDataPipe)):
            raise TypeError(f"Only `IterDataPipe` can be decorated, but {cls.__name__} is found")
        self.cls = cls
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args, **kwargs):
        res = self.deterministic_fn(*args, **kwargs)
        if not isinstance(res, bool):
            raise TypeError("deterministic_fn of `non_deterministic` decorator is required to "
                            f"return a boolean value, but {type(res)} is found")
        if _determinism and res:
            _refuse(self.cls, " with the inputs")
        return self.cls(*args, **kwargs)


def _datapipe_hint(hint):
    """The DataPipe class a hint names (`IterDataPipe`, `IterDataPipe[int]`), else None."""
    base = typing.get_origin(hint) or hint
    if isinstance(base, _DataPipeMeta):
        return base
    return None


def argument_validation(f):
    """Checks, on each call of `f`, that every argument hinted as a DataPipe (`IterDataPipe[T]`)
    is an IterDataPipe whose element type (when it states one) is a subtype of the hint's.
    PyTorch 2.15's DataPipe typing is switched off, so there the check stops at an
    AttributeError; this is the check it documents."""
    signature = inspect.signature(f)
    hints = typing.get_type_hints(f)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            hint = hints.get(name)
            if hint is None or _datapipe_hint(hint) is None:
                continue
            if not isinstance(value, IterDataPipe):
                raise TypeError(
                    f"Expected argument '{name}' as an IterDataPipe, but found {type(value)}")
            args_of_hint = typing.get_args(hint)
            expected = (_typing._DataPipeType(args_of_hint[0]) if args_of_hint
                        else _datapipe_hint(hint).type)
            # A pipe that states no element type (Any) is not held against the hint.
            if value.type.param is not typing.Any and not value.type.issubtype(expected):
                raise TypeError(f"Expected type of argument '{name}' as a subtype of hint "
                                f"{expected}, but found {value.type}")
        return f(*args, **kwargs)

    return wrapper


_runtime_validation_enabled = True


class runtime_validation_disabled:
    """Context manager turning `runtime_validation` checks off (from construction to exit)."""

    def __init__(self):
        global _runtime_validation_enabled
        self.prev = _runtime_validation_enabled
        _runtime_validation_enabled = False

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        global _runtime_validation_enabled
        _runtime_validation_enabled = self.prev


def runtime_validation(f):
    """Decorates a DataPipe's `__iter__` so that each item it yields is checked against the
    pipe's element type (`self.type`)."""
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self):
        if not _runtime_validation_enabled:
            yield from f(self)
            return
        for d in f(self):
            if not self.type.issubtype_of_instance(d):
                raise RuntimeError(
                    f"Expected an instance as subtype of {self.type}, but found {d}({type(d)})")
            yield d

    return wrapper
