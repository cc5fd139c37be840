"""Argument checks every collective makes, with PyTorch's exception types and messages."""
import warnings

import rstorch

from ._state import GroupMember, _resolve


def check_tensor(param, name):
    if not isinstance(param, rstorch.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(param)} instead.")


def check_tensor_list(param, name):
    if not isinstance(param, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(param)} instead.")
    if not all(isinstance(p, rstorch.Tensor) for p in param):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(param)} with elements of type {[type(p) for p in param]}.")


def group_or_none(group, op_name):
    """The ProcessGroup to run on, or None (after PyTorch's warning) on a process outside it."""
    pg = _resolve(group)
    if pg is None:
        world = GroupMember.WORLD
        warnings.warn(f"Running {op_name} on global rank {world.rank() if world is not None else -1} "
                      "which does not belong to the given group.", stacklevel=3)
    return pg


def peer(pg, global_rank, group_rank, what):
    """A peer's rank within `pg`, given as a global rank or (group_*) as a group rank."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is not None:
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
        return group_rank
    if global_rank is None:
        global_rank = 0
    if global_rank not in pg.ranks:
        if pg is GroupMember.WORLD:
            raise RuntimeError(f"Invalid {what} rank: {global_rank} (the group has ranks 0 to {pg.size() - 1})")
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg.ranks.index(global_rank)


def same_layout(tensors, reference, what):
    """Every tensor in a list must have the reference's dtype and number of elements."""
    for i, t in enumerate(tensors):
        if t.dtype != reference.dtype:
            raise TypeError(f"{what}: tensor {i} has dtype {t.dtype}, expected {reference.dtype}")
        if t.numel() != reference.numel():
            raise ValueError(f"{what}: tensor {i} has {t.numel()} elements, expected {reference.numel()}")


def list_length(tensors, size, what):
    if len(tensors) != size:
        raise ValueError(f"{what}: expected a list of {size} tensors (the group size), got {len(tensors)}")
