"""Affine maps: linear and bilinear."""
import rstorch
from ._utils import as_node


def linear(input, weight, bias=None):
    # PyTorch's steps, so the graph has its nodes: one addmm for a matrix (and, flattened,
    # for any contiguous input), else matmul and the bias added in place.
    if bias is not None and weight.dim() == 2 and input.dim() > 0:
        if input.dim() == 2:
            return rstorch.addmm(bias, input, weight.t())
        if input.is_contiguous() and (input.dim() == 3 or bias.dim() == 1):
            rows = 1
            for n in input.shape[:-1]:
                rows *= n
            out = rstorch.addmm(bias, input.reshape(rows, input.shape[-1]), weight.t())
            return as_node("UnsafeViewBackward0", (out,), out.view(*input.shape[:-1], out.shape[1]))
    out = input.matmul(weight.t())
    if bias is not None:
        out.add_(bias)
    return out


def bilinear(input1, input2, weight, bias=None):
    # PyTorch's steps: both inputs flattened to rows, one trilinear product (its node
    # TrilinearBackward0), viewed back to the batch shape, plus the bias.
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    for k, (t, expected) in enumerate([(input1, weight.shape[1]), (input2, weight.shape[2])], 1):
        if t.shape[-1] != expected:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got {t.shape[-1]} but "
                               f"expected {expected}")
    rows1 = input1.reshape(-1, input1.shape[-1])
    rows2 = input2.reshape(-1, input2.shape[-1])
    out = as_node("TrilinearBackward0", (rows1, weight, rows2), rstorch.einsum("bi,oij,bj->bo", rows1, weight, rows2))
    out = out.view(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias
