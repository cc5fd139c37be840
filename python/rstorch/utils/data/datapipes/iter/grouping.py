"""Batcher (`batch`), UnBatcher (`unbatch`) and Grouper (`groupby`)."""
from collections import defaultdict
from collections.abc import Sized

from .._decorator import functional_datapipe
from ..datapipe import DataChunk, IterDataPipe
from ..utils.common import _check_unpickable_fn, _no_valid_length

__all__ = ["BatcherIterDataPipe", "GrouperIterDataPipe", "UnBatcherIterDataPipe"]


def _batch_count(n, batch_size, drop_last):
    return n // batch_size if drop_last else -(-n // batch_size)


@functional_datapipe("batch")
class BatcherIterDataPipe(IterDataPipe[DataChunk]):
    """Groups consecutive items into batches of `batch_size` (`wrapper_class`, a DataChunk);
    the last, shorter batch is kept unless `drop_last`."""

    def __init__(self, datapipe, batch_size, drop_last=False, wrapper_class=DataChunk):
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        super().__init__()
        self.datapipe = datapipe
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.wrapper_class = wrapper_class

    def __iter__(self):
        batch = []
        for x in self.datapipe:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)

    def __len__(self):
        if isinstance(self.datapipe, Sized):
            return _batch_count(len(self.datapipe), self.batch_size, self.drop_last)
        raise _no_valid_length(self)


@functional_datapipe("unbatch")
class UnBatcherIterDataPipe(IterDataPipe):
    """Undoes `unbatch_level` levels of batching (lists or DataChunks); -1 flattens fully."""

    def __init__(self, datapipe, unbatch_level=1):
        self.datapipe = datapipe
        self.unbatch_level = unbatch_level

    def __iter__(self):
        for element in self.datapipe:
            yield from self._dive(element, self.unbatch_level)

    def _dive(self, element, level):
        if level < -1:
            raise ValueError("unbatch_level must be -1 or >= 0")
        if level == 0:
            yield element
        elif isinstance(element, (list, DataChunk)):
            for item in element:
                yield from self._dive(item, level if level == -1 else level - 1)
        elif level == -1:
            yield element
        else:
            raise IndexError(f"unbatch_level {self.unbatch_level} exceeds the depth of the "
                             "DataPipe")


@functional_datapipe("groupby")
class GrouperIterDataPipe(IterDataPipe[DataChunk]):
    """Groups items by `group_key_fn(item)` into DataChunks. A group is yielded when it reaches
    `group_size`; when `buffer_size` items are buffered the largest group is yielded (or dropped
    when smaller than `guaranteed_group_size` and `drop_remaining`); what is left at the end is
    yielded group by group. `keep_key` yields `(key, group)`."""

    def __init__(self, datapipe, group_key_fn, *, keep_key=False, buffer_size=10000,
                 group_size=None, guaranteed_group_size=None, drop_remaining=False):
        _check_unpickable_fn(group_key_fn)
        self.datapipe = datapipe
        self.group_key_fn = group_key_fn
        self.keep_key = keep_key
        self.max_buffer_size = buffer_size
        self.buffer_elements = defaultdict(list)
        self.curr_buffer_size = 0
        self.group_size = group_size
        self.guaranteed_group_size = None
        if group_size is not None and buffer_size is not None:
            if not 0 < group_size <= buffer_size:
                raise AssertionError("group_size must be > 0 and <= buffer_size")
            self.guaranteed_group_size = group_size
        if guaranteed_group_size is not None:
            if group_size is None or not 0 < guaranteed_group_size <= group_size:
                raise AssertionError("guaranteed_group_size must be > 0 and <= group_size and "
                                     "group_size must be set")
            self.guaranteed_group_size = guaranteed_group_size
        self.drop_remaining = drop_remaining
        self.wrapper_class = DataChunk

    def _emit(self, key, items):
        chunk = self.wrapper_class(items)
        return (key, chunk) if self.keep_key else chunk

    def _take(self, key):
        items = self.buffer_elements.pop(key)
        self.curr_buffer_size -= len(items)
        return items

    def _evict_largest(self):
        """Removes the largest buffered group; returns it unless it is too small to keep."""
        key = max(self.buffer_elements, key=lambda k: len(self.buffer_elements[k]))
        size = len(self.buffer_elements[key])
        small = self.guaranteed_group_size is not None and size < self.guaranteed_group_size
        if small and not self.drop_remaining:
            raise RuntimeError("Failed to group items", str(self.buffer_elements[key]))
        items = self._take(key)
        return None if small else items

    def __iter__(self):
        for x in self.datapipe:
            key = self.group_key_fn(x)
            group = self.buffer_elements[key]
            group.append(x)
            self.curr_buffer_size += 1
            if self.group_size is not None and len(group) == self.group_size:
                yield self._emit(key, self._take(key))
            if self.curr_buffer_size == self.max_buffer_size:
                items = self._evict_largest()
                if items is not None:
                    # PyTorch pairs an evicted group with the key of the item just read.
                    yield self._emit(key, items)
        for key in tuple(self.buffer_elements):
            yield self._emit(key, self._take(key))

    def reset(self):
        self.curr_buffer_size = 0
        self.buffer_elements = defaultdict(list)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["buffer_elements"] = defaultdict(list)  # buffers start empty in a copy
        state["curr_buffer_size"] = 0
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state
