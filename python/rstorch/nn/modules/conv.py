"""Convolution layers: Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d."""
import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module, _place
from .utils import _pair, _reverse_repeat_tuple, _single

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """Holds the weight, bias and hyper-parameters shared by every convolution layer."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # Non-zero padding modes pad explicitly with F.pad, which takes per-dimension
        # (before, after) amounts starting from the last dimension.
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    slot = 2 * (len(kernel_size) - 1 - i)
                    self._reversed_padding_repeated_twice[slot] = total // 2
                    self._reversed_padding_repeated_twice[slot + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(_C.empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        _place(self, device)

    def reset_parameters(self):
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias
        # takes the same bound.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        parts = [f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"]
        if self.padding != (0,) * len(self.padding):
            parts.append(f"padding={self.padding}")
        if self.dilation != (1,) * len(self.dilation):
            parts.append(f"dilation={self.dilation}")
        if self.output_padding != (0,) * len(self.output_padding):
            parts.append(f"output_padding={self.output_padding}")
        if self.groups != 1:
            parts.append(f"groups={self.groups}")
        if self.bias is None:
            parts.append("bias=False")
        if self.padding_mode != "zeros":
            parts.append(f"padding_mode={self.padding_mode}")
        return ", ".join(parts)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _ConvForward(_ConvNd):
    _conv = None  # the functional form, set by each subclass
    _tuple = None

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return type(self)._conv(padded, weight, bias, self.stride, type(self)._tuple(0), self.dilation,
                                    self.groups)
        return type(self)._conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvForward):
    """1-D convolution over (N, C, L) or unbatched (C, L) input."""

    _conv = staticmethod(F.conv1d)
    _tuple = staticmethod(_single)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        padding = padding if isinstance(padding, str) else _single(padding)
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), padding,
                         _single(dilation), False, _single(0), groups, bias, padding_mode, device, dtype)


class Conv2d(_ConvForward):
    """2-D convolution over (N, C, H, W) or unbatched (C, H, W) input."""

    _conv = staticmethod(F.conv2d)
    _tuple = staticmethod(_pair)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        padding = padding if isinstance(padding, str) else _pair(padding)
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), padding,
                         _pair(dilation), False, _pair(0), groups, bias, padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    def _require_zeros_padding(self, padding_mode):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims,
                        dilation=None):
        """The output_padding that makes the result `output_size` (the layer's own when None)."""
        if output_size is None:
            return _single(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        requested = output_size
        output_size = list(output_size)
        if len(output_size) == num_spatial_dims + 2 or (len(output_size) == num_spatial_dims + 1
                                                        and not has_batch):
            output_size = output_size[-num_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                f"{num_spatial_dims} or {num_spatial_dims + (2 if has_batch else 1)} elements "
                f"(got {len(output_size)})")
        spatial = input.shape[input.dim() - num_spatial_dims:]
        smallest, largest = [], []
        for d in range(num_spatial_dims):
            dil = 1 if dilation is None else dilation[d]
            smallest.append((spatial[d] - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1)
            largest.append(smallest[d] + stride[d] - 1)
        for d in range(num_spatial_dims):
            if not smallest[d] <= output_size[d] <= largest[d]:
                raise ValueError(
                    f"requested an output size of {requested}, but valid sizes range from {smallest} to "
                    f"{largest} (for an input of {spatial})")
        result = [output_size[d] - smallest[d] for d in range(num_spatial_dims)]
        return result


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution (the gradient of conv1d with respect to its input)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        self._require_zeros_padding(padding_mode)
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), _single(padding),
                         _single(dilation), True, _single(output_padding), groups, bias, padding_mode, device,
                         dtype)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              1, self.dilation)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution (the gradient of conv2d with respect to its input)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        self._require_zeros_padding(padding_mode)
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding),
                         _pair(dilation), True, _pair(output_padding), groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              2, self.dilation)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)
