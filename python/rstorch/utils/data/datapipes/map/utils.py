"""SequenceWrapper: a sequence or mapping as a MapDataPipe."""
import copy
import warnings
from typing import TypeVar

from ..datapipe import MapDataPipe

__all__ = ["SequenceWrapperMapDataPipe"]

_T = TypeVar("_T")


class SequenceWrapperMapDataPipe(MapDataPipe[_T]):
    """Item k is `sequence[k]`. With `deepcopy` (default) the pipe holds its own deep copy, so
    later changes to `sequence` do not show through."""

    def __init__(self, sequence, deepcopy=True):
        self.sequence = sequence
        if deepcopy:
            try:
                self.sequence = copy.deepcopy(sequence)
            except TypeError:
                warnings.warn("The input sequence can not be deepcopied, please be aware of "
                              "in-place modification would affect source data", stacklevel=2)

    def __getitem__(self, index):
        return self.sequence[index]

    def __len__(self):
        return len(self.sequence)
