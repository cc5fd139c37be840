"""Collectives of picklable Python objects (MPI's pickle-based lower-case calls)."""
from ._checks import group_or_none, peer


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every process's `object_list` becomes (in place) the source's."""
    pg = group_or_none(group, "broadcast_object_list")
    if pg is None:
        return
    root = peer(pg, src, group_src, "src")
    received = pg.comm.bcast(list(object_list) if pg.rank() == root else None, root)
    object_list[:] = received[:len(object_list)] + object_list[len(received):]


def all_gather_object(object_list, obj, group=None):
    """`object_list[i]` becomes group rank i's `obj`."""
    pg = group_or_none(group, "all_gather_object")
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must have {pg.size()} entries, got {len(object_list)}")
    object_list[:] = pg.comm.allgather(obj)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """On the destination, `object_gather_list[i]` becomes group rank i's `obj`."""
    pg = group_or_none(group, "gather_object")
    if pg is None:
        return
    root = peer(pg, dst, group_dst, "dst")
    if pg.rank() == root:
        if object_gather_list is None or len(object_gather_list) != pg.size():
            raise ValueError("Argument ``object_gather_list`` must be specified on destination rank "
                             f"with {pg.size()} entries.")
    elif object_gather_list is not None:
        raise ValueError("Argument ``object_gather_list`` must NOT be specified on non-destination ranks.")
    gathered = pg.comm.gather(obj, root)
    if pg.rank() == root:
        object_gather_list[:] = gathered


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """`scatter_object_output_list[0]` becomes the source's input entry for this rank."""
    pg = group_or_none(group, "scatter_object_list")
    if pg is None:
        return
    root = peer(pg, src, group_src, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    scatter_object_output_list[0] = pg.comm.scatter(
        list(scatter_object_input_list) if pg.rank() == root else None, root)
