"""The lazy layers: LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*.
Each is its eager class built with 0 input features/channels and placeholder parameters, which
the first forward sizes from the input; the 3-d ones exist when their eager class does."""
import rstorch
from ...autograd.grad_mode import no_grad
from . import batchnorm, conv, conv3d, instancenorm
from .lazy import LazyModuleMixin
from .linear import Linear
from ..parameter import UninitializedBuffer, UninitializedParameter

__all__ = ["LazyLinear"]


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # bias=False: the placeholder below stands in for it.
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    _spatial_dims = None

    def _lazy_setup(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            with no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_conv(eager, spatial_dims):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        # Through the mixin, which registers its hooks after the eager constructor has run.
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                                 device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)
    return _lazy_class(eager, _LazyConvMixin, __init__, _spatial_dims=spatial_dims)


def _lazy_conv_transpose(eager, spatial_dims):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                                 dilation, padding_mode, device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)
    return _lazy_class(eager, _LazyConvMixin, __init__, _spatial_dims=spatial_dims)


class _LazyNormMixin(LazyModuleMixin):
    def _lazy_setup(self, affine, track_running_stats, bias, device, dtype):
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = rstorch.tensor(0, dtype=rstorch.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for name in ("weight", "bias", "running_mean", "running_var"):
                    t = getattr(self, name)
                    if t is not None:
                        t.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(eager):
    # Every lazy norm defaults to affine and tracked statistics, the lazy instance norms too (unlike
    # the eager InstanceNorms), as in PyTorch.
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        # Built without affine parameters or running statistics; the placeholders stand in for them.
        LazyModuleMixin.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
        self._lazy_setup(affine, track_running_stats, bias, device, dtype)
    return _lazy_class(eager, _LazyNormMixin, __init__)


def _lazy_class(eager, mixin, init, **attrs):
    name = "Lazy" + eager.__name__
    namespace = {"cls_to_become": eager, "__init__": init, "__module__": __name__, "__qualname__": name,
                 "__doc__": f"A {eager.__name__} whose input size is inferred at the first forward.", **attrs}
    return type(name, (mixin, eager), namespace)


_EAGER = [
    (conv, "Conv1d", lambda c: _lazy_conv(c, 1)), (conv, "Conv2d", lambda c: _lazy_conv(c, 2)),
    (conv3d, "Conv3d", lambda c: _lazy_conv(c, 3)),
    (conv, "ConvTranspose1d", lambda c: _lazy_conv_transpose(c, 1)),
    (conv, "ConvTranspose2d", lambda c: _lazy_conv_transpose(c, 2)),
    (conv3d, "ConvTranspose3d", lambda c: _lazy_conv_transpose(c, 3)),
    (batchnorm, "BatchNorm1d", _lazy_norm), (batchnorm, "BatchNorm2d", _lazy_norm),
    (batchnorm, "BatchNorm3d", _lazy_norm), (instancenorm, "InstanceNorm1d", _lazy_norm),
    (instancenorm, "InstanceNorm2d", _lazy_norm), (instancenorm, "InstanceNorm3d", _lazy_norm),
]
for _module, _name, _make in _EAGER:
    globals()["Lazy" + _name] = _make(getattr(_module, _name))
    __all__.append("Lazy" + _name)
del _module, _name, _make
