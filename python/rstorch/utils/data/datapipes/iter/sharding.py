"""ShardingFilter (`sharding_filter`): each of N instances (DataLoader workers, distributed
ranks) keeps every N-th item."""
import enum
from collections.abc import Sized

from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import _no_valid_length

__all__ = ["SHARDING_PRIORITIES", "ShardingFilterIterDataPipe"]


class SHARDING_PRIORITIES(enum.IntEnum):
    DEFAULT = 1
    DISTRIBUTED = 2
    MULTIPROCESSING = 3


class _ShardingIterDataPipe(IterDataPipe):
    def apply_sharding(self, num_of_instances, instance_id, sharding_group):
        raise NotImplementedError


@functional_datapipe("sharding_filter")
class ShardingFilterIterDataPipe(_ShardingIterDataPipe):
    """Keeps item i when `i % num_of_instances == instance_id`. Sharding can be applied per
    group (distributed, then multiprocessing); the groups combine into one global instance id,
    the higher-priority group varying fastest. `sharding_group_filter` restricts it to one
    group."""

    def __init__(self, source_datapipe, sharding_group_filter=None):
        super().__init__()
        self.source_datapipe = source_datapipe
        self.sharding_group_filter = sharding_group_filter
        self.groups = {}
        self.num_of_instances = 1
        self.instance_id = 0
        self._update_num_of_instances()

    def apply_sharding(self, num_of_instances, instance_id,
                       sharding_group=SHARDING_PRIORITIES.DEFAULT):
        if instance_id >= num_of_instances:
            raise ValueError(f"instance_id({instance_id}) should be smaller than "
                             f"num_of_instances({num_of_instances})")
        default = SHARDING_PRIORITIES.DEFAULT
        has_default = default in self.groups
        mixing = (not has_default and bool(self.groups)) if sharding_group == default else has_default
        if mixing:
            raise RuntimeError("ShardingFilter cannot mix DEFAULT and non DEFAULT groups")
        self.groups[sharding_group] = (num_of_instances, instance_id)
        self._update_num_of_instances()

    def _update_num_of_instances(self):
        self.num_of_instances, self.instance_id = 1, 0
        for group in sorted(self.groups, reverse=True):
            if self.sharding_group_filter is not None and group != self.sharding_group_filter:
                continue
            n, i = self.groups[group]
            self.instance_id += self.num_of_instances * i
            self.num_of_instances *= n

    def __iter__(self):
        for i, item in enumerate(self.source_datapipe):
            if i % self.num_of_instances == self.instance_id:
                yield item

    def __len__(self):
        if isinstance(self.source_datapipe, Sized):
            n = len(self.source_datapipe)
            return n // self.num_of_instances + (
                1 if self.instance_id < n % self.num_of_instances else 0)
        raise _no_valid_length(self)
