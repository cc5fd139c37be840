"""Mapper (`map`) and Collator (`collate`)."""
from collections.abc import Sized
from typing import TypeVar

from ..._collate import default_collate
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import _check_unpickable_fn, _no_valid_length, validate_input_col

__all__ = ["CollatorIterDataPipe", "MapperIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


def _apply_to_columns(fn, data, input_col, output_col):
    """`fn` of the whole item, or of the columns `input_col` selects, written back into the item:
    over the (first) input column, or at `output_col` (-1 appends)."""
    if input_col is None:
        return fn(data)
    if isinstance(input_col, (list, tuple)):
        result = fn(*(data[c] for c in input_col))
    else:
        result = fn(data[input_col])
    was_tuple = isinstance(data, tuple)
    out = list(data) if was_tuple else data
    if output_col is None:
        if isinstance(input_col, (list, tuple)):
            out[input_col[0]] = result
            for c in sorted(input_col[1:], reverse=True):
                del out[c]
        else:
            out[input_col] = result
    elif output_col == -1:
        out.append(result)
    else:
        out[output_col] = result
    return tuple(out) if was_tuple else out


@functional_datapipe("map")
class MapperIterDataPipe(IterDataPipe[_T_co]):
    """Applies `fn` to each item (or to its columns `input_col`, storing the result at
    `output_col`)."""

    def __init__(self, datapipe, fn, input_col=None, output_col=None):
        super().__init__()
        self.datapipe = datapipe
        _check_unpickable_fn(fn)
        self.fn = fn
        self.input_col = input_col
        if input_col is None and output_col is not None:
            raise ValueError("`output_col` must be None when `input_col` is None.")
        if isinstance(output_col, (list, tuple)):
            if len(output_col) > 1:
                raise ValueError("`output_col` must be a single-element list or tuple")
            output_col = output_col[0]
        self.output_col = output_col
        validate_input_col(fn, input_col)

    def _apply_fn(self, data):
        return _apply_to_columns(self.fn, data, self.input_col, self.output_col)

    def __iter__(self):
        for data in self.datapipe:
            yield self._apply_fn(data)

    def __len__(self):
        if isinstance(self.datapipe, Sized):
            return len(self.datapipe)
        raise _no_valid_length(self)


@functional_datapipe("collate")
class CollatorIterDataPipe(MapperIterDataPipe):
    """Collates each item (a batch) with `collate_fn`, or `conversion` when that is callable
    (default: `default_collate`). A dict of per-column conversions is for DataFrame batches,
    which need TorchArrow and are not supported."""

    def __init__(self, datapipe, conversion=default_collate, collate_fn=None):
        if collate_fn is not None:
            fn = collate_fn
        elif callable(conversion):
            fn = conversion
        else:
            raise NotImplementedError(
                "Collate with a dict of conversions works on DataFrame batches, which need "
                "TorchArrow; pass a callable `collate_fn` instead")
        super().__init__(datapipe, fn=fn)
