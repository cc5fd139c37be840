"""3-d convolution layers: Conv3d and ConvTranspose3d, on the shared layer machinery of conv.py."""
from .. import functional as F
from .conv import _ConvForward, _ConvTransposeNd
from .utils import _triple

__all__ = ["Conv3d", "ConvTranspose3d"]


class Conv3d(_ConvForward):
    """3-D convolution over (N, C, D, H, W) or unbatched (C, D, H, W) input."""

    _conv = staticmethod(F.conv3d)
    _tuple = staticmethod(_triple)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        padding = padding if isinstance(padding, str) else _triple(padding)
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), padding,
                         _triple(dilation), False, _triple(0), groups, bias, padding_mode, device, dtype)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution (the gradient of conv3d with respect to its input)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        self._require_zeros_padding(padding_mode)
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), _triple(padding),
                         _triple(dilation), True, _triple(output_padding), groups, bias, padding_mode, device,
                         dtype)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              3, self.dilation)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)
