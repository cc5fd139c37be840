"""Affine layers: Identity, Linear, Bilinear."""
import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module, _place

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input; takes and ignores any constructor arguments (a placeholder)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x A^T + b, with A of shape (out_features, in_features)."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_C.empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        _place(self, device)

    def reset_parameters(self):
        # kaiming_uniform_ with a=sqrt(5) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the
        # weight; the bias uses the same bound.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b, with A of shape (out_features, in1_features, in2_features)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_C.empty((out_features, in1_features, in2_features), dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        _place(self, device)

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name: MultiheadAttention's out_proj is one, as in PyTorch, so
    reprs and type checks match."""
