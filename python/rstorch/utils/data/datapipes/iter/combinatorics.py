"""Sampler and Shuffler (`shuffle`)."""
import random
from collections.abc import Sized
from typing import TypeVar

from ...sampler import SequentialSampler
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import _no_valid_length

__all__ = ["SamplerIterDataPipe", "ShufflerIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


class SamplerIterDataPipe(IterDataPipe[_T_co]):
    """Yields what `sampler(*sampler_args, data_source=datapipe, **sampler_kwargs)` yields (for
    the default SequentialSampler, the indices 0..len-1)."""

    def __init__(self, datapipe, sampler=SequentialSampler, sampler_args=None,
                 sampler_kwargs=None):
        if not isinstance(datapipe, Sized):
            raise AssertionError("Sampler class requires input datapipe implemented `__len__`")
        super().__init__()
        self.datapipe = datapipe
        self.sampler_args = () if sampler_args is None else sampler_args
        self.sampler_kwargs = {} if sampler_kwargs is None else sampler_kwargs
        self.sampler_kwargs["data_source"] = self.datapipe
        self.sampler = sampler(*self.sampler_args, **self.sampler_kwargs)

    def __iter__(self):
        return iter(self.sampler)

    def __len__(self):
        if isinstance(self.sampler, Sized):
            return len(self.sampler)
        raise _no_valid_length(self)


def _draw_seed():
    """A seed from rstorch's global generator, so `rstorch.manual_seed` fixes shuffle orders."""
    import rstorch
    return int(rstorch.empty((), dtype=rstorch.int64).random_().item())


@functional_datapipe("shuffle")
class ShufflerIterDataPipe(IterDataPipe[_T_co]):
    """Shuffles through a buffer of `buffer_size` items: once the buffer is full, each new item
    takes the place of a randomly chosen one, which is yielded; the rest leaves in random order.
    `set_shuffle(False)` passes items through; `set_seed(s)` fixes the next iteration's order
    (else each iteration draws a seed from rstorch's global generator). DataLoader calls both."""

    def __init__(self, datapipe, *, buffer_size=10000, unbatch_level=0):
        super().__init__()
        self._buffer = []
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        self.datapipe = datapipe if unbatch_level == 0 else datapipe.unbatch(
            unbatch_level=unbatch_level)
        self.buffer_size = buffer_size
        self._enabled = True
        self._seed = None
        self._rng = random.Random()

    def set_shuffle(self, shuffle=True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed):
        self._seed = seed
        return self

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        buf, rng = self._buffer, self._rng
        for x in self.datapipe:
            if len(buf) < self.buffer_size:
                buf.append(x)
                continue
            i = rng.randint(0, len(buf) - 1)
            out, buf[i] = buf[i], x
            yield out
        while buf:
            yield buf.pop(rng.randint(0, len(buf) - 1))

    def __len__(self):
        if isinstance(self.datapipe, Sized):
            return len(self.datapipe)
        raise _no_valid_length(self)

    def reset(self):
        self._buffer = []
        if self._enabled:
            # A seed given by set_seed serves one iteration; later ones draw their own.
            seed = self._seed if self._seed is not None else _draw_seed()
            self._rng.seed(seed)
            self._seed = None
