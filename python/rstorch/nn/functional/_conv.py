"""Convolutions: conv1d/conv2d and their transposes, on the Rust im2col + gemm kernels."""
from ... import _C
from ._utils import _pair, _single, as_node, optional


def _add_bias(out, bias):
    if bias is None:
        return out
    return out + bias.reshape([-1] + [1] * (out.dim() - 2))


def _convolution_node(out, input, weight, bias):
    """`out` as the output of one ConvolutionBackward0 node, PyTorch's node for every
    convolution and transposed convolution."""
    return as_node("ConvolutionBackward0", (input, weight, optional(bias)), out)


def _same_padding(weight, stride, dilation):
    """Per-axis (before, after) padding that keeps the input size; PyTorch pads the extra
    element, when the total is odd, after the input."""
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    pads = []
    for d, k in zip(dilation, weight.shape[2:]):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    return pads


def _conv_nd(name, input, weight, bias, stride, padding, dilation, groups, spatial):
    batched = input.dim() == spatial + 2
    if not batched:
        if input.dim() != spatial + 1:
            raise RuntimeError(
                f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
                f"but got input of size: {list(input.shape)}")
        input = input.unsqueeze(0)
    if weight.dim() != spatial + 2:
        raise RuntimeError(
            f"Expected {spatial + 2}-dimensional weight for {name}, but got weight of size {list(weight.shape)}")
    as_tuple = _single if spatial == 1 else _pair
    stride, dilation = as_tuple(stride), as_tuple(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * spatial
        elif padding == "same":
            pads = _same_padding(weight, stride, dilation)
            if any(a != b for a, b in pads):
                from ._padding import pad as _pad
                flat = [p for pair in reversed(pads) for p in pair]
                input = _pad(input, flat)
                padding = (0,) * spatial
            else:
                padding = tuple(a for a, _ in pads)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    padding = as_tuple(padding)
    if spatial == 1:
        # A 1-D convolution is a 2-D one over images of height 1.
        out = _C._conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, stride[0]), (0, padding[0]),
                         (1, dilation[0]), groups).squeeze(2)
    else:
        out = _C._conv2d(input, weight, bias, stride, padding, dilation, groups)
    if spatial == 1:
        out = _convolution_node(out, input, weight, bias)
    return out if batched else out.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd("conv1d", input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd("conv2d", input, weight, bias, stride, padding, dilation, groups, 2)


def _conv_transpose_nd(name, input, weight, bias, stride, padding, output_padding, groups, dilation, spatial):
    batched = input.dim() == spatial + 2
    if not batched:
        if input.dim() != spatial + 1:
            raise RuntimeError(
                f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
                f"but got input of size: {list(input.shape)}")
        input = input.unsqueeze(0)
    as_tuple = _single if spatial == 1 else _pair
    stride, padding, output_padding, dilation = map(as_tuple, (stride, padding, output_padding, dilation))
    if spatial == 1:
        out = _C._conv_transpose2d(input.unsqueeze(2), weight.unsqueeze(2), (1, stride[0]), (0, padding[0]),
                                   (0, output_padding[0]), groups, (1, dilation[0])).squeeze(2)
    else:
        out = _C._conv_transpose2d(input, weight, stride, padding, output_padding, groups, dilation)
    out = _convolution_node(_add_bias(out, bias), input, weight, bias)
    return out if batched else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd("conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd("conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 2)
