"""Padding: pad (constant, reflect, replicate, circular), shared by pooling, convolution,
attention and the layers. The op, its checks and nodes are the core's (`ops::nn::pad`)."""
from ... import _C


def pad(input, pad, mode="constant", value=None):
    return _C._pad(input, list(pad), mode, value)
