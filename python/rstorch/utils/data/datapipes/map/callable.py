"""Mapper (`map`) of MapDataPipes."""
from typing import TypeVar

from .._decorator import functional_datapipe
from ..datapipe import MapDataPipe
from ..utils.common import _check_unpickable_fn

__all__ = ["MapperMapDataPipe", "default_fn"]

_T_co = TypeVar("_T_co", covariant=True)


def default_fn(data):
    return data


@functional_datapipe("map")
class MapperMapDataPipe(MapDataPipe[_T_co]):
    """`fn` applied to each item, when it is read."""

    def __init__(self, datapipe, fn=default_fn):
        super().__init__()
        self.datapipe = datapipe
        _check_unpickable_fn(fn)
        self.fn = fn

    def __len__(self):
        return len(self.datapipe)

    def __getitem__(self, index):
        return self.fn(self.datapipe[index])
