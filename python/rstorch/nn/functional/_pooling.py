"""Pooling: max, average and adaptive average, the core's ops with their checks and nodes
(`ops::nn::max_pool`, `ops::nn::avg_pool`); this file maps PyTorch's signatures to them."""
from ... import _C
from ._utils import _pair, _single


def _stride(stride, parse):
    """`stride` parsed, or None for PyTorch's default (None or empty: the kernel size)."""
    return None if stride is None or stride == [] or stride == () else parse(stride)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    stride = _stride(stride, _pair)
    return _C._max_pool_with_indices(input, 2, _pair(kernel_size), stride, _pair(padding), _pair(dilation), ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = _C._max_pool_with_indices(input, 1, _single(kernel_size), _stride(stride, _single), _single(padding),
                                             _single(dilation), ceil_mode)
    return (out, indices) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C._avg_pool2d(input, _pair(kernel_size), _stride(stride, _pair), _pair(padding), ceil_mode,
                          count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    stride = _stride(stride, _single)
    return _C._avg_pool1d(input, _single(kernel_size)[0], None if stride is None else stride[0],
                          _single(padding)[0], ceil_mode, count_include_pad)


def adaptive_avg_pool2d(input, output_size):
    return _C._adaptive_avg_pool2d(input, _pair(output_size))


def adaptive_avg_pool1d(input, output_size):
    (o,) = _single(output_size)
    return _C._adaptive_avg_pool1d(input, o)
