"""Concater (`concat`), Forker (`fork`), Demultiplexer (`demux`), Multiplexer (`mux`) and Zipper
(`zip`)."""
import copy as copymodule
import warnings
from collections import deque
from collections.abc import Sized

from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import StreamWrapper, _check_unpickable_fn, _no_valid_length

__all__ = [
    "ConcaterIterDataPipe", "DemultiplexerIterDataPipe", "ForkerIterDataPipe",
    "MultiplexerIterDataPipe", "ZipperIterDataPipe",
]


def _all_sized(datapipes):
    return all(isinstance(dp, Sized) for dp in datapipes)


@functional_datapipe("concat")
class ConcaterIterDataPipe(IterDataPipe):
    """Yields the items of each input pipe in turn."""

    def __init__(self, *datapipes):
        if len(datapipes) == 0:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `IterDataPipe`")
        self.datapipes = datapipes

    def __iter__(self):
        for dp in self.datapipes:
            yield from dp

    def __len__(self):
        if _all_sized(self.datapipes):
            return sum(len(dp) for dp in self.datapipes)
        raise _no_valid_length(self)


class _ChildDataPipe(IterDataPipe):
    """One output of `fork`/`demux`. Its iterators are those of the shared container: starting
    a child a second time starts a new round for all children (the container resets)."""

    _is_child_datapipe = True

    def __init__(self, main_datapipe, instance_id):
        if not isinstance(main_datapipe, _Container):
            raise AssertionError("main_datapipe must implement _ContainerTemplate")
        self.main_datapipe = main_datapipe
        self.instance_id = instance_id

    def __iter__(self):
        return self.main_datapipe.get_next_element_by_instance(self.instance_id)

    def __len__(self):
        return self.main_datapipe.get_length_by_instance(self.instance_id)

    def _set_main_datapipe_valid_iterator_id(self):
        main = self.main_datapipe
        if main._valid_iterator_id is None:
            main._valid_iterator_id = 0
        elif main._valid_iterator_id == self._valid_iterator_id:
            # This child already read the current round: a new round starts for all.
            main._valid_iterator_id += 1
            if not main.is_every_instance_exhausted():
                warnings.warn("Some child DataPipes are not exhausted when __iter__ is called. "
                              "We are resetting the buffer and each child DataPipe will read "
                              "from the start again.", UserWarning, stacklevel=2)
            main.reset()
        self._valid_iterator_id = main._valid_iterator_id
        return self._valid_iterator_id

    def _check_valid_iterator_id(self, iterator_id):
        return iterator_id == self._valid_iterator_id == self.main_datapipe._valid_iterator_id


class _Container(IterDataPipe):
    """The shared source behind the children of `fork`/`demux`; its buffers are rebuilt rather
    than copied when pickled."""

    _transient = ()

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in self._transient}
        hook = IterDataPipe.getstate_hook
        return hook(state) if hook is not None else state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.reset()


def _no_op(x):
    return x


_COPIES = {None: _no_op, "shallow": copymodule.copy, "deep": copymodule.deepcopy}


@functional_datapipe("fork")
class ForkerIterDataPipe(IterDataPipe):
    """Splits a pipe into `num_instances` children that each yield every item. Items read by one
    child and not yet by another wait in a buffer of at most `buffer_size` (-1: unbounded).
    `copy` ("shallow"/"deep") gives each child its own copy of every item."""

    def __new__(cls, datapipe, num_instances, buffer_size=1000, copy=None):
        if num_instances < 1:
            raise ValueError(f"Expected `num_instances` larger than 0, but {num_instances} is found")
        if num_instances == 1:
            return datapipe
        container = _ForkerIterDataPipe(datapipe, num_instances, buffer_size, copy)
        return [_ChildDataPipe(container, i) for i in range(num_instances)]


class _ForkerIterDataPipe(_Container):
    _transient = ("_datapipe_iterator", "buffer", "child_pointers", "buffer_start", "end_ptr",
                  "_child_stop")

    def __init__(self, datapipe, num_instances, buffer_size=1000, copy=None):
        self.main_datapipe = datapipe
        self.num_instances = num_instances
        self.buffer_size = buffer_size
        if buffer_size < 0:
            warnings.warn("Unlimited buffer size is set for `fork`, please be aware of OOM at "
                          "random places", UserWarning, stacklevel=3)
        if copy not in _COPIES:
            raise ValueError(f"Unknown copy method `{copy}` requested, choose one of None, "
                             "`shallow` or `deep`.")
        self.copy_fn = _COPIES[copy]
        self.reset()

    def __len__(self):
        return len(self.main_datapipe)

    def get_length_by_instance(self, instance_id):
        return len(self.main_datapipe)

    def reset(self):
        self._datapipe_iterator = None
        self.buffer = deque()  # items [buffer_start, buffer_start + len) of the source
        self.buffer_start = 0
        self.child_pointers = [0] * self.num_instances  # items each child has read
        self.end_ptr = None  # the source's length, once it ran out
        self._child_stop = [True] * self.num_instances

    def is_every_instance_exhausted(self):
        return self.end_ptr is not None and all(self._child_stop)

    def get_next_element_by_instance(self, instance_id):
        if self._datapipe_iterator is None and self._child_stop[instance_id]:
            self._datapipe_iterator = iter(self.main_datapipe)
            self._child_stop = [False] * self.num_instances
        try:
            while not self._child_stop[instance_id]:
                pos = self.child_pointers[instance_id]
                if pos == self.end_ptr:
                    break
                if pos < self.buffer_start + len(self.buffer):
                    value = self.buffer[pos - self.buffer_start]
                else:
                    try:
                        value = next(self._datapipe_iterator)
                    except StopIteration:
                        self.end_ptr = pos
                        self._datapipe_iterator = None
                        break
                    self.buffer.append(value)
                self.child_pointers[instance_id] = pos + 1
                slowest = min(self.child_pointers)
                while self.buffer_start < slowest:
                    self.buffer.popleft()
                    self.buffer_start += 1
                if 0 <= self.buffer_size < len(self.buffer):
                    raise BufferError("ForkerIterDataPipe buffer overflow,"
                                      f"buffer size {self.buffer_size} is insufficient.")
                yield self.copy_fn(value)
        finally:
            self._child_stop[instance_id] = True
            if all(self._child_stop):
                self._datapipe_iterator = None
                self._cleanup()

    def _cleanup(self):
        while self.buffer:
            StreamWrapper.close_streams(self.buffer.popleft())


@functional_datapipe("demux")
class DemultiplexerIterDataPipe(IterDataPipe):
    """Splits a pipe into `num_instances` children by `classifier_fn(item)`, the index of the
    child that gets the item (None drops it when `drop_none`). Items waiting for a child that
    has not read them yet are buffered, at most `buffer_size` in all (-1: unbounded)."""

    def __new__(cls, datapipe, num_instances, classifier_fn, drop_none=False, buffer_size=1000):
        if num_instances < 1:
            raise ValueError(f"Expected `num_instances` larger than 0, but {num_instances} is found")
        _check_unpickable_fn(classifier_fn)
        container = _DemultiplexerIterDataPipe(datapipe, num_instances, classifier_fn, drop_none,
                                               buffer_size)
        return [_ChildDataPipe(container, i) for i in range(num_instances)]


class _DemultiplexerIterDataPipe(_Container):
    _transient = ("_datapipe_iterator", "current_buffer_usage", "child_buffers",
                  "_child_stop", "main_datapipe_exhausted")

    def __init__(self, datapipe, num_instances, classifier_fn, drop_none, buffer_size):
        self.main_datapipe = datapipe
        self.num_instances = num_instances
        self.buffer_size = buffer_size
        if buffer_size < 0:
            warnings.warn("Unlimited buffer size is set for `demux`, please be aware of OOM at "
                          "random places", UserWarning, stacklevel=3)
        self.classifier_fn = classifier_fn
        self.drop_none = drop_none
        self.reset()

    def get_length_by_instance(self, instance_id):
        raise TypeError

    def reset(self):
        self._datapipe_iterator = None
        self.current_buffer_usage = 0
        self.child_buffers = [deque() for _ in range(self.num_instances)]
        self._child_stop = [True] * self.num_instances
        self.main_datapipe_exhausted = False

    def is_every_instance_exhausted(self):
        return self.main_datapipe_exhausted and all(self._child_stop)

    def _find_next(self, instance_id):
        """Reads the source until an item for `instance_id` comes, buffering the others."""
        while True:
            if self.main_datapipe_exhausted or self._child_stop[instance_id]:
                raise StopIteration
            if self._datapipe_iterator is None:
                raise ValueError("_datapipe_iterator has not been set, likely because this "
                                 "private method is called directly without invoking "
                                 "get_next_element_by_instance() first.")
            value = next(self._datapipe_iterator)
            target = self.classifier_fn(value)
            if target is None and self.drop_none:
                StreamWrapper.close_streams(value)
                continue
            if target is None or not 0 <= target < self.num_instances:
                raise ValueError("Output of the classification fn should be between 0 and "
                                 f"{self.num_instances - 1}. {target} is returned.")
            if target == instance_id:
                return value
            self.child_buffers[target].append(value)
            self.current_buffer_usage += 1
            if 0 <= self.buffer_size < self.current_buffer_usage:
                raise BufferError("DemultiplexerIterDataPipe buffer overflow, buffer size "
                                  f"{self.buffer_size} is insufficient.")

    def get_next_element_by_instance(self, instance_id):
        if self._datapipe_iterator is None and self._child_stop[instance_id]:
            self._datapipe_iterator = iter(self.main_datapipe)
            self.main_datapipe_exhausted = False
            self._child_stop = [False] * self.num_instances
        try:
            while not self._child_stop[instance_id]:
                own = self.child_buffers[instance_id]
                if own:
                    self.current_buffer_usage -= 1
                    yield own.popleft()
                    continue
                try:
                    value = self._find_next(instance_id)
                except StopIteration:
                    self._child_stop[instance_id] = True
                    self.main_datapipe_exhausted = True
                    self._datapipe_iterator = None
                    continue
                yield value
        finally:
            self._child_stop[instance_id] = True
            if all(self._child_stop):
                self._datapipe_iterator = None
            own = self.child_buffers[instance_id]
            while own:
                StreamWrapper.close_streams(own.popleft())


@functional_datapipe("mux")
class MultiplexerIterDataPipe(IterDataPipe):
    """Takes one item from each input in turn; stops at the first round in which an input runs
    out (that round's items are dropped)."""

    def __init__(self, *datapipes):
        self.datapipes = datapipes

    def __iter__(self):
        iterators = [iter(dp) for dp in self.datapipes]
        while iterators:
            round_items = []
            for it in iterators:
                try:
                    round_items.append(next(it))
                except StopIteration:
                    return
            yield from round_items

    def __len__(self):
        if _all_sized(self.datapipes):
            return min(len(dp) for dp in self.datapipes) * len(self.datapipes)
        raise _no_valid_length(self)


@functional_datapipe("zip")
class ZipperIterDataPipe(IterDataPipe[tuple]):
    """Yields tuples of one item from each input, until the shortest runs out."""

    def __init__(self, *datapipes):
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("All inputs are required to be `IterDataPipe` for `ZipIterDataPipe`.")
        super().__init__()
        self.datapipes = datapipes

    def __iter__(self):
        yield from zip(*(iter(dp) for dp in self.datapipes))

    def __len__(self):
        if _all_sized(self.datapipes):
            return min(len(dp) for dp in self.datapipes)
        raise _no_valid_length(self)
