"""Turning int-or-sequence layer arguments into tuples, as the layer constructors store them."""
import collections.abc
from itertools import repeat

__all__ = ["_single", "_pair", "_triple", "_reverse_repeat_tuple"]


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n = 2: F.pad wants the last dimension's amounts first."""
    return tuple(x for x in reversed(t) for _ in range(n))
