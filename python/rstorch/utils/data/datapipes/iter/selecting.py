"""Filter (`filter`)."""
from typing import TypeVar

from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import StreamWrapper, _check_unpickable_fn, validate_input_col

__all__ = ["FilterIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


@functional_datapipe("filter")
class FilterIterDataPipe(IterDataPipe[_T_co]):
    """Keeps the items for which `filter_fn` (of the item, or of its columns `input_col`) returns
    True; `filter_fn` must return a bool."""

    def __init__(self, datapipe, filter_fn, input_col=None):
        super().__init__()
        self.datapipe = datapipe
        _check_unpickable_fn(filter_fn)
        self.filter_fn = filter_fn
        self.input_col = input_col
        validate_input_col(filter_fn, input_col)

    def _apply_filter_fn(self, data):
        if self.input_col is None:
            return self.filter_fn(data)
        if isinstance(self.input_col, (list, tuple)):
            return self.filter_fn(*(data[c] for c in self.input_col))
        return self.filter_fn(data[self.input_col])

    def __iter__(self):
        for data in self.datapipe:
            keep = self._apply_filter_fn(data)
            if not isinstance(keep, bool):
                raise ValueError("Boolean output is required for `filter_fn` of "
                                 "FilterIterDataPipe, got", type(keep))
            if keep:
                yield data
            else:
                StreamWrapper.close_streams(data)  # a dropped file is closed now, not at GC
