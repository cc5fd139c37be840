"""Concater (`concat`) and Zipper (`zip`) of MapDataPipes."""
from collections.abc import Sized

from .._decorator import functional_datapipe
from ..datapipe import MapDataPipe

__all__ = ["ConcaterMapDataPipe", "ZipperMapDataPipe"]


def _check_inputs(datapipes):
    if len(datapipes) == 0:
        raise ValueError("Expected at least one DataPipe, but got nothing")
    if not all(isinstance(dp, MapDataPipe) for dp in datapipes):
        raise TypeError("Expected all inputs to be `MapDataPipe`")
    if not all(isinstance(dp, Sized) for dp in datapipes):
        raise TypeError("Expected all inputs to be `Sized`")


@functional_datapipe("concat")
class ConcaterMapDataPipe(MapDataPipe):
    """The inputs' items end to end: index i past the first input's length reads the next."""

    def __init__(self, *datapipes):
        _check_inputs(datapipes)
        self.datapipes = datapipes

    def __getitem__(self, index):
        for dp in self.datapipes:
            n = len(dp)
            if index < n:
                return dp[index]
            index -= n
        raise IndexError(f"Index {index + len(self)} is out of range.")

    def __len__(self):
        return sum(len(dp) for dp in self.datapipes)


@functional_datapipe("zip")
class ZipperMapDataPipe(MapDataPipe[tuple]):
    """Item i is the tuple of the inputs' items i; the length is the shortest input's."""

    def __init__(self, *datapipes):
        _check_inputs(datapipes)
        self.datapipes = datapipes

    def __getitem__(self, index):
        items = []
        for dp in self.datapipes:
            try:
                items.append(dp[index])
            except IndexError as e:
                raise IndexError(f"Index {index} is out of range for one of the input "
                                 f"MapDataPipes {dp}.") from e
        return tuple(items)

    def __len__(self):
        return min(len(dp) for dp in self.datapipes)
