"""The 3-d pooling layers, max unpooling, power-average pooling: MaxPool3d, AvgPool3d,
AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool1d/2d/3d, LPPool1d/2d/3d."""
from .. import functional as F
from .module import Module
from .pooling import _AdaptiveAvgPoolNd, _AdaptiveMaxPoolNd, _AvgPoolWithDivisor, _MaxPoolNd
from .utils import _pair, _single, _triple

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d"]


class MaxPool3d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(_AvgPoolWithDivisor):
    """Mean over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mean over an `output_size` grid of near-equal bins of the last three dimensions."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max over an `output_size` grid of near-equal bins of the last three dimensions."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _parse = None  # the int-or-tuple parser of the layer's rank, set by each subclass
    _unpool = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        parse = type(self)._parse
        self.kernel_size = parse(kernel_size)
        self.stride = parse(stride if stride is not None else kernel_size)
        self.padding = parse(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return type(self)._unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Places each maximum of a MaxPool1d back at its index; zeros elsewhere."""

    _parse = staticmethod(_single)
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Places each maximum of a MaxPool2d back at its index; zeros elsewhere."""

    _parse = staticmethod(_pair)
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Places each maximum of a MaxPool3d back at its index; zeros elsewhere."""

    _parse = staticmethod(_triple)
    _unpool = staticmethod(F.max_unpool3d)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _pool = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return type(self)._pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """The p-norm over sliding windows of the last dimension."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """The p-norm over sliding windows of the last two dimensions."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """The p-norm over sliding windows of the last three dimensions."""

    _pool = staticmethod(F.lp_pool3d)


class _FractionalMaxPoolNd(Module):
    _pool = None
    _parse = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        parse = type(self)._parse
        self.kernel_size = parse(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = parse(output_size) if output_size is not None else None
        self.output_ratio = parse(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                                _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max over windows at pseudo-random fractional strides of the last two dimensions."""

    _pool = staticmethod(F.fractional_max_pool2d)
    _parse = staticmethod(_pair)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max over windows at pseudo-random fractional strides of the last three dimensions."""

    _pool = staticmethod(F.fractional_max_pool3d)
    _parse = staticmethod(_triple)


__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
