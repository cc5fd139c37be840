"""Affine maps: linear and bilinear. The ops, their checks and PyTorch's graph (addmm, the
flattened batch's UnsafeViewBackward0, TrilinearBackward0) are the core's (`ops::nn::linear`)."""
from ... import _C


def linear(input, weight, bias=None):
    return _C._linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    return _C._bilinear(input1, input2, weight, bias)
