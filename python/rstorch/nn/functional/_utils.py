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


def check_output_size(input, sizes):
    """Fails as PyTorch does when a new output of `sizes` (spatial) for `input` cannot exist: its
    bytes past a signed 64-bit size. Ops that build their result in several steps call it before
    any work whose size follows the output's, so a huge request fails at once instead of after
    per-axis work or with a later step's error. (Sizes that fit but cannot be had fail where the
    memory is asked for, with the allocator's error.)"""
    shape = [*input.shape[:-len(sizes)], *sizes]
    nbytes = input.element_size()
    for s in shape:
        nbytes *= s
    if nbytes > 2**63 - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape}")


def reduction_from_legacy(size_average, reduce, reduction):
    """The `reduction` string the deprecated `size_average` / `reduce` flags stand for."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def as_node(name, inputs, out):
    """`out`, computed from `inputs` by recorded ops, as the output of one node named `name`
    (PyTorch's node of the op). Every tensor the op read that may need a gradient is in
    `inputs`; None entries are left out."""
    return rstorch._C._composite(name, [t for t in inputs if t is not None], out)
