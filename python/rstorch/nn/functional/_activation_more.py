"""The shrink activations, randomized leaky ReLU, and the in-place (trailing underscore) forms of
the activations. Each is composed from ops the core already differentiates."""
import rstorch
from . import _activation as _act
from ._activation import celu, elu, hardtanh, leaky_relu, selu

# Per floating dtype: PyTorch's name for it and its largest finite value, which softshrink's range
# error quotes.
_RANGE = {"float64": ("Double", "1.79769e+308"), "float32": ("Float", "3.40282e+38"), "float16": ("Half", "65504"),
          "bfloat16": ("BFloat16", "3.38953e+38")}


def hardshrink(input, lambd=0.5):
    # x where |x| > lambd, else 0 (NaN stays NaN: the comparison is false for it).
    return input.masked_fill(input.abs() <= lambd, 0)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        name, largest = _RANGE.get(str(input.dtype).rsplit(".", 1)[-1], _RANGE["float32"])
        raise RuntimeError(f"lambda must be in range [0, {largest}] for input dtype {name}, but found {lambd:g}")
    # x - clamp(x, -lambd, lambd) is x - lambd above lambd, x + lambd below -lambd and 0 between,
    # with gradient 1 outside the band and 0 inside.
    return input - input.clamp(-lambd, lambd)


def _rrelu_out(input, lower, upper, training):
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        # In eval the slope is fixed at the mean of the sampling range.
        return input._leaky_relu((lower + upper) / 2)
    # In training every non-positive element gets its own slope drawn from U(lower, upper); the
    # slope is a constant to autograd, so the gradient there is that slope.
    slopes = rstorch.empty_like(input).uniform_(lower, upper)
    return input.where(input > 0, input * slopes)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    out = _rrelu_out(input, lower, upper, training)
    return input._assign_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return input._assign_(_rrelu_out(input, lower, upper, training))


def relu_(input):
    return input.relu_()


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):
    return _act.threshold(input, threshold, value, inplace=True)
