"""Batcher (`batch`) of MapDataPipes."""
from collections.abc import Sized

from .._decorator import functional_datapipe
from ..datapipe import DataChunk, MapDataPipe
from ..iter.grouping import _batch_count
from ..utils.common import _no_valid_length

__all__ = ["BatcherMapDataPipe"]


@functional_datapipe("batch")
class BatcherMapDataPipe(MapDataPipe[DataChunk]):
    """Item i is the batch of items `i*batch_size .. (i+1)*batch_size-1` (a `wrapper_class`);
    the last, shorter batch exists unless `drop_last`."""

    def __init__(self, datapipe, batch_size, drop_last=False, wrapper_class=DataChunk):
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        super().__init__()
        self.datapipe = datapipe
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.wrapper_class = wrapper_class

    def __getitem__(self, index):
        batch = []
        try:
            for i in range(index * self.batch_size, (index + 1) * self.batch_size):
                batch.append(self.datapipe[i])
        except IndexError as e:
            if self.drop_last or not batch:
                raise IndexError(f"Index {index} is out of bound.") from e
        return self.wrapper_class(batch)

    def __len__(self):
        if isinstance(self.datapipe, Sized):
            return _batch_count(len(self.datapipe), self.batch_size, self.drop_last)
        raise _no_valid_length(self)
