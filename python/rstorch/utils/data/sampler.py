"""Samplers: the order in which a DataLoader visits dataset indices."""
import numpy as np

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
    "WeightedRandomSampler", "BatchSampler",
]


def _rstorch():
    import rstorch
    return rstorch


def _fresh_generator():
    """A generator seeded from the global RNG, so unseeded samplers still follow manual_seed."""
    torch = _rstorch()
    seed = int(torch.randint(0, 2**62, (), dtype=torch.int64).item())
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator


def _is_positive_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


class Sampler:
    """Base class: `__iter__` yields indices (or lists of indices for batch samplers)."""

    def __init__(self, data_source=None):
        # Accepted for compatibility; samplers keep what they need themselves.
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or `num_samples` draws with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not _is_positive_int(self.num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        # Read on every use: the data source may change size between epochs.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        torch = _rstorch()
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            # Drawn in blocks of 32, as PyTorch does, so a partial epoch costs little.
            for _ in range(self.num_samples // 32):
                yield from torch.randint(0, n, (32,), dtype=torch.int64,
                                         generator=generator).tolist()
            rest = self.num_samples % 32
            if rest:
                yield from torch.randint(0, n, (rest,), dtype=torch.int64,
                                         generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from torch.randperm(n, generator=generator).tolist()
            yield from torch.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _rstorch().randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


def _multinomial(weights, num_samples, replacement, generator):
    """Indices drawn with probability proportional to `weights` (float64 numpy), using rstorch's RNG."""
    torch = _rstorch()
    if (weights < 0).any() or not np.isfinite(weights).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if weights.sum() <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > weights.size:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not replacement and num_samples > np.count_nonzero(weights):
        raise RuntimeError("invalid multinomial distribution (with replacement=False, "
                           "not enough non-negative category to sample)")
    u = torch.rand(num_samples if replacement else weights.size, dtype=torch.float64,
                   generator=generator).numpy()
    if replacement:
        cdf = np.cumsum(weights)
        # side="right" so a category of weight zero is never chosen.
        return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), weights.size - 1)
    # Without replacement: the k smallest of Exp(1)/w is a weighted draw without replacement.
    with np.errstate(divide="ignore"):
        keys = -np.log1p(-u) / weights
    return np.argsort(keys, kind="stable")[:num_samples]


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not _is_positive_int(num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        torch = _rstorch()
        weights_tensor = torch.as_tensor(weights, dtype=torch.float64)
        if weights_tensor.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        draws = _multinomial(self.weights.numpy(), self.num_samples, self.replacement,
                             self.generator)
        yield from draws.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of another sampler into lists of `batch_size`."""

    def __init__(self, sampler, batch_size, drop_last):
        if not _is_positive_int(batch_size):
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
