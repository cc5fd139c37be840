"""Activation functions, softmax and its relatives."""
import warnings

from ... import _C


def _activation(input, op, params, inplace):
    """The declared op bound as `Tensor.<op>`, with `params`; in place, written over the input
    by the core (one pass where it can, else computed out of place and written back)."""
    return input._unary_param_(op, params) if inplace else getattr(input, op)(*params)


# The pointwise activations are primitive ops of the core (`src/ops/unary.rs`), each with its
# node, its gradient and its in-place rule.


def threshold(input, threshold, value, inplace=False):
    return _activation(input, "_threshold", [threshold, value], inplace)


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation(input, "_hardtanh", [min_val, max_val], inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _activation(input, "_leaky_relu", [negative_slope], inplace)


def elu(input, alpha=1.0, inplace=False):
    return _activation(input, "_elu", [alpha], inplace)


def selu(input, inplace=False):
    return _activation(input, "_selu", [], inplace)


def celu(input, alpha=1.0, inplace=False):
    return _activation(input, "_celu", [alpha], inplace)


def gelu(input, approximate="none"):
    return input.gelu(approximate=approximate)


def silu(input, inplace=False):
    return input.silu_() if inplace else input.silu()


def mish(input, inplace=False):
    return _activation(input, "_mish", [], inplace)


def hardsigmoid(input, inplace=False):
    return _activation(input, "_hardsigmoid", [], inplace)


def hardswish(input, inplace=False):
    return _activation(input, "_hardswish", [], inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return input.softplus(beta=beta, threshold=threshold)


def logsigmoid(input):
    return input._logsigmoid()


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def glu(input, dim=-1):
    return _C._glu(input, dim)


def prelu(input, weight):
    return _C._prelu(input, weight)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype=dtype)
