"""Affine maps: linear and bilinear."""
import rstorch


def linear(input, weight, bias=None):
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    out = rstorch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias
