"""Element types of DataPipes, for `argument_validation`, `runtime_validation` and
`reinforce_type`.

A DataPipe class declares what it yields through its generic base (`class P(IterDataPipe[int])`);
that becomes `P.type`. Types compare as PyTorch's DataPipe typing does: by equality after
expanding `Union`/`Optional` and `TypeVar` bounds or constraints, with `Any` (and an unbound
`TypeVar`) above everything and a generic's arguments compared one by one. Subclassing does not
make a subtype (`bool` is not an `int` here), which is how PyTorch's rules read.
"""
import types
import typing

__all__ = ["issubtype", "issubinstance"]

def _is_union(t):
    return typing.get_origin(t) in (typing.Union, types.UnionType)


def _expand(t):
    """The alternatives `t` stands for, or None when it is a single type."""
    if isinstance(t, typing.TypeVar):
        if t.__bound__ is not None:
            return [t.__bound__]
        return list(t.__constraints__) or [typing.Any]
    if _is_union(t):
        return list(typing.get_args(t))
    return None


def _norm(t):
    return type(None) if t is None else t


def issubtype(left, right, recursive=True):
    """Whether every value of type `left` is also one of type `right`."""
    left, right = _norm(left), _norm(right)
    if right is typing.Any or left == right:
        return True
    if typing.get_origin(right) is typing.Generic:
        return True
    if right is type(None):
        return False
    constraints = _expand(right) or [right]
    if typing.Any in constraints:
        return True
    if left is typing.Any:
        return False
    variants = _expand(left) or [left]
    return all(_within(_norm(v), [_norm(c) for c in constraints], recursive) for v in variants)


def _within(variant, constraints, recursive):
    if variant in constraints:
        return True
    parts = _expand(variant)
    if parts is not None:
        return all(_within(_norm(p), constraints, recursive) for p in parts)
    v_origin = typing.get_origin(variant) or variant
    v_args = typing.get_args(variant)
    for c in constraints:
        sub = _expand(c)
        if sub is not None:
            if _within(variant, [_norm(s) for s in sub], recursive):
                return True
            continue
        c_origin = typing.get_origin(c)
        if c_origin is None:
            if v_origin == c:
                return True
            continue
        if v_origin != c_origin:
            continue
        c_args = typing.get_args(c)
        if not recursive or not c_args:
            return True
        if len(v_args) == len(c_args) and all(issubtype(a, b) for a, b in zip(v_args, c_args)):
            return True
    return False


def issubinstance(data, data_type):
    """Whether the value `data` is of `data_type`, looking inside tuples, lists, sets and dicts."""
    if not issubtype(type(data), data_type, recursive=False):
        return False
    args = typing.get_args(data_type)
    if not args:
        return True
    if isinstance(data, tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return all(issubinstance(d, args[0]) for d in data)
        return len(args) == len(data) and all(issubinstance(d, t) for d, t in zip(data, args))
    if isinstance(data, (list, set, frozenset)):
        return all(issubinstance(d, args[0]) for d in data)
    if isinstance(data, dict):
        kt, vt = args
        return all(issubinstance(k, kt) and issubinstance(v, vt) for k, v in data.items())
    return True


class _DataPipeType:
    """The element type of a DataPipe (class or instance)."""

    def __init__(self, param):
        self.param = param

    def __repr__(self):
        p = self.param
        if isinstance(p, type) and not typing.get_args(p):
            return p.__name__ if p.__module__ == "builtins" else f"{p.__module__}.{p.__qualname__}"
        return repr(p)

    def __eq__(self, other):
        if isinstance(other, _DataPipeType):
            return self.param == other.param
        return NotImplemented

    def __hash__(self):
        return hash(self.param)

    def issubtype(self, other):
        if isinstance(other, _DataPipeType):
            return issubtype(self.param, other.param)
        if isinstance(other, type):
            return issubtype(self.param, other)
        raise TypeError(f"Expected '_DataPipeType' or 'type', but found {type(other)}")

    def issubtype_of_instance(self, other):
        return issubinstance(other, self.param)


_ANY = _DataPipeType(typing.Any)


def declared_type(cls, bases):
    """The element type a new DataPipe class declares through a subscripted base, else None."""
    for base in cls.__dict__.get("__orig_bases__", ()):
        origin = typing.get_origin(base)
        if isinstance(origin, type) and any(issubclass(origin, b) for b in bases):
            args = typing.get_args(base)
            if len(args) == 1:
                param = args[0]
                if isinstance(param, typing.TypeVar) and param.__bound__ is None and not (
                        param.__constraints__):
                    return None  # `IterDataPipe[T]`: no element type stated
                return _DataPipeType(param)
    return None


def reinforce_type(self, expected_type):
    """Narrows this DataPipe instance's element type to `expected_type`, a subtype of its
    declared one."""
    if isinstance(expected_type, tuple):
        expected_type = tuple[expected_type]
    if not (isinstance(expected_type, type) or typing.get_origin(expected_type) is not None
            or expected_type is typing.Any or isinstance(expected_type, typing.TypeVar)):
        raise TypeError(f"'expected_type' must be a type. Got {expected_type!r:.100}.")
    if not issubtype(expected_type, self.type.param):
        raise TypeError(f"Expected 'expected_type' as subtype of {self.type}, but found "
                        f"{_DataPipeType(expected_type)}")
    self.type = _DataPipeType(expected_type)
    return self
