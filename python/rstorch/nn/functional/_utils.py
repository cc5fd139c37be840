"""Argument normalisation shared by the functional ops: int-or-tuple sizes and reductions."""
import collections.abc
import warnings


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
    """The `reduction` string the deprecated `size_average` / `reduce` flags stand for, with PyTorch's
    deprecation warning (losses and loss layers alike) when either is given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction
