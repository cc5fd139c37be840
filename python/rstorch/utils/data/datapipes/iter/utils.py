"""IterableWrapper: the usual source of an IterDataPipe pipeline."""
import copy
import warnings
from collections.abc import Sized
from typing import TypeVar

from ..datapipe import IterDataPipe
from ..utils.common import _no_valid_length

__all__ = ["IterableWrapperIterDataPipe"]

_T = TypeVar("_T")


class IterableWrapperIterDataPipe(IterDataPipe[_T]):
    """Yields the items of `iterable`. With `deepcopy` (default) each iteration reads a deep copy,
    so in-place changes made downstream never reach the source data."""

    def __init__(self, iterable, deepcopy=True):
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self):
        source = self.iterable
        if self.deepcopy:
            try:
                source = copy.deepcopy(self.iterable)
            except TypeError:
                warnings.warn("The input iterable can not be deepcopied, please be aware of "
                              "in-place modification would affect source data.", stacklevel=2)
        yield from source

    def __len__(self):
        if isinstance(self.iterable, Sized):
            return len(self.iterable)
        raise _no_valid_length(self)
