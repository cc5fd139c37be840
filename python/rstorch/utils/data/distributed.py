"""DistributedSampler: each of num_replicas processes visits its own 1/num_replicas share of the
dataset, the shares (padded or truncated to equal length) partitioning one common order."""
import math

from .sampler import Sampler

__all__ = ["DistributedSampler"]

_NO_PROCESS_GROUP = ("Default process group has not been initialized, please make sure to call "
                     "init_process_group.")


def _process_group_value(name):
    """get_world_size() / get_rank() of rstorch.distributed's default group when one exists; a
    single process without one gets PyTorch's uninitialised-group error."""
    try:
        from ... import distributed as dist
    except ImportError:
        dist = None
    if dist is not None and dist.is_available() and dist.is_initialized():
        return getattr(dist, name)()
    raise ValueError(_NO_PROCESS_GROUP)


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _process_group_value("get_world_size")
        if rank is None:
            rank = _process_group_value("get_rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            # Drop the tail so every replica gets the same number of distinct samples.
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        import rstorch
        n = len(self.dataset)
        if self.shuffle:
            # Seeded by seed + epoch: every replica draws the same permutation.
            generator = rstorch.Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = rstorch.randperm(n, generator=generator).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            padding = self.total_size - len(indices)
            # Pad by repeating from the start (wrapping as often as needed) to divide evenly.
            indices += (indices * math.ceil(padding / len(indices)))[:padding] if padding > len(indices) \
                else indices[:padding]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Changes the shuffle order: call before each epoch's DataLoader iterator."""
        self.epoch = epoch
