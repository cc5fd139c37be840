"""Argument normalisation shared by the functional ops: int-or-tuple sizes and reductions."""
import collections.abc

import rstorch


def _ntuple(n, name):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            t = tuple(x)
            if len(t) == 1:
                return t * n
            if len(t) != n:
                raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {x!r}")
            return t
        return (x,) * n
    return parse


_single = _ntuple(1, "argument")
_pair = _ntuple(2, "argument")


def reduction_from_legacy(size_average, reduce, reduction):
    """The `reduction` string the deprecated `size_average` / `reduce` flags stand for."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def reduce_loss(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


# An optional input that was not given, which PyTorch's node lists as a None edge (a
# convolution's missing bias); a plain None among `as_node`'s inputs is left out instead.
NONE_EDGE = object()


def optional(t):
    """`t`, or NONE_EDGE where it is None."""
    return NONE_EDGE if t is None else t


def as_node(name, inputs, out):
    """`out`, computed from `inputs` by recorded ops, as the output of one node named `name`
    (PyTorch's node of the op). Every tensor the op read that may need a gradient is in
    `inputs`; None entries are left out, NONE_EDGE entries become None edges."""
    return rstorch._C._composite(name, [None if t is NONE_EDGE else t for t in inputs if t is not None], out)
