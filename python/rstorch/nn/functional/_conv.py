"""Convolutions: conv1d/conv2d/conv3d and their transposes. The op, its argument rules, unbatched
inputs and padding modes live in the Rust core (`Tensor::convolution`, `Tensor::conv_transpose`)."""
from ... import _C


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C._convolution(input, weight, bias, 1, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C._convolution(input, weight, bias, 2, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C._conv_transpose(input, weight, bias, 1, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C._conv_transpose(input, weight, bias, 2, stride, padding, output_padding, groups, dilation)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C._convolution(input, weight, bias, 3, stride, padding, dilation, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C._conv_transpose(input, weight, bias, 3, stride, padding, output_padding, groups, dilation)
