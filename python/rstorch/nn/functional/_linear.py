"""Affine maps: linear and bilinear."""
import rstorch
from ._utils import as_node


def linear(input, weight, bias=None):
    if bias is None or weight.dim() != 2 or input.dim() == 0:
        out = input.matmul(weight.t())
        return out if bias is None else out + bias
    if input.dim() == 2:
        return rstorch.addmm(bias, input, weight.t())
    # Other ranks: one addmm over the rows, viewed back (PyTorch's node for that view is
    # UnsafeViewBackward0).
    rows = rstorch.addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
    return as_node("UnsafeViewBackward0", (rows,), rows.view(*input.shape[:-1], weight.shape[0]))


def bilinear(input1, input2, weight, bias=None):
    out = rstorch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias
