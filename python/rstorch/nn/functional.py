"""Functional forms of activations and layers (`rstorch.nn.functional`)."""
from .. import _C

Tensor = _C.Tensor


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def gelu(input, approximate="none"):
    return input.gelu(approximate=approximate)


def silu(input, inplace=False):
    return input.silu_() if inplace else input.silu()


def softplus(input, beta=1.0, threshold=20.0):
    return input.softplus(beta=beta, threshold=threshold)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    out = input._leaky_relu(negative_slope)
    return input.copy_(out) if inplace else out


def elu(input, alpha=1.0, inplace=False):
    out = input._elu(alpha)
    return input.copy_(out) if inplace else out


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.log_softmax(dim, dtype=dtype)
