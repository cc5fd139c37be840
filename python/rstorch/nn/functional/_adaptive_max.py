"""Adaptive max pooling: the max (and its flat index in the input plane) over PyTorch's adaptive
bins. The op, its checks and node are the core's (`ops::nn::adaptive_max`)."""
from ... import _C
from ._utils import _pair, _single


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return _C._adaptive_max_pool2d(input, _pair(output_size))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    (o,) = _single(output_size)
    return _C._adaptive_max_pool1d(input, o)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out
