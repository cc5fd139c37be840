"""Shuffler (`shuffle`) of MapDataPipes: an IterDataPipe over the items in random order."""
import random
from typing import TypeVar

from ..datapipe import IterDataPipe, MapDataPipe
from ..iter.combinatorics import _draw_seed

__all__ = ["ShufflerIterDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)


class ShufflerIterDataPipe(IterDataPipe[_T_co]):
    """Yields `datapipe[i]` for the keys `indices` (default: 0..len-1) in a random order, drawn
    at each iteration's start (from `set_seed`'s seed, else rstorch's global generator);
    `set_shuffle(False)` keeps the given order."""

    def __init__(self, datapipe, *, indices=None):
        super().__init__()
        self.datapipe = datapipe
        self.indices = list(range(len(datapipe))) if indices is None else indices
        self._enabled = True
        self._seed = None
        self._rng = random.Random()
        self._shuffled_indices = self.indices

    def set_shuffle(self, shuffle=True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed):
        self._seed = seed
        return self

    def __iter__(self):
        if not self._enabled:
            for i in self.indices:
                yield self.datapipe[i]
            return
        # Read from the end, so a pickled half-read pipe resumes where it was.
        while self._shuffled_indices:
            yield self.datapipe[self._shuffled_indices.pop()]

    def reset(self):
        seed = self._seed
        if self._enabled and seed is None:
            seed = _draw_seed()
        self._rng.seed(seed)
        self._seed = None
        self._shuffled_indices = self._rng.sample(self.indices, len(self.indices))

    def __len__(self):
        return len(self.datapipe)


MapDataPipe.register_datapipe_as_function("shuffle", ShufflerIterDataPipe)
