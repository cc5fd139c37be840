"""conv2d over strides, padding, dilation and groups against a direct numpy convolution: the
forward values, the input and weight gradients (the unfold and fold of the patch matrices, whose
unit-row-stride and strided-row paths differ), and gradcheck in float64."""

import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F
from test_nn_functional import _conv2d_reference as reference

GEOMETRIES = {
    "plain": dict(stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1),
    "padded": dict(stride=(1, 1), padding=(2, 1), dilation=(1, 1), groups=1),
    "column_stride": dict(stride=(1, 2), padding=(1, 1), dilation=(1, 1), groups=1),
    "row_stride": dict(stride=(2, 1), padding=(1, 0), dilation=(1, 1), groups=1),
    "dilated": dict(stride=(1, 1), padding=(1, 2), dilation=(2, 1), groups=1),
    "dilated_columns": dict(stride=(1, 1), padding=(0, 3), dilation=(1, 3), groups=2),
    "everything": dict(stride=(2, 3), padding=(2, 1), dilation=(2, 2), groups=2),
}


@pytest.mark.parametrize("name", GEOMETRIES)
def test_conv2d_matches_direct_convolution(name):
    geo = GEOMETRIES[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 9, 11))
    w = rng.standard_normal((6, 4 // geo["groups"], 3, 4))
    want = reference(x, w, **geo)
    xt = rstorch.tensor(x, requires_grad=True)
    wt = rstorch.tensor(w, requires_grad=True)
    y = F.conv2d(xt, wt, **geo)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-10, atol=1e-10)
    # conv2d is linear in each operand, so for the gradients of sum(y * g):
    # <dL/dx, dx> = sum(conv(dx, w) * g) and <dL/dw, dw> = sum(conv(x, dw) * g) for any dx, dw.
    g = rng.standard_normal(want.shape)
    y.backward(rstorch.tensor(g))
    dx = rng.standard_normal(x.shape)
    dw = rng.standard_normal(w.shape)
    np.testing.assert_allclose((xt.grad.numpy() * dx).sum(), (reference(dx, w, **geo) * g).sum(), rtol=1e-9)
    np.testing.assert_allclose((wt.grad.numpy() * dw).sum(), (reference(x, dw, **geo) * g).sum(), rtol=1e-9)


@pytest.mark.parametrize("name", ["padded", "row_stride", "everything"])
def test_conv2d_gradcheck(name):
    geo = GEOMETRIES[name]
    rng = np.random.default_rng(1)
    x = rstorch.tensor(rng.standard_normal((2, 4, 7, 6)), requires_grad=True)
    w = rstorch.tensor(rng.standard_normal((4, 4 // geo["groups"], 3, 2)), requires_grad=True)
    assert rstorch.autograd.gradcheck(lambda a, b: F.conv2d(a, b, **geo), (x, w), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_conv2d_float32_matches_float64():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 10, 12, 12))
    w = rng.standard_normal((20, 10, 5, 5))
    y32 = F.conv2d(rstorch.tensor(x, dtype=rstorch.float32), rstorch.tensor(w, dtype=rstorch.float32))
    np.testing.assert_allclose(y32.numpy(), reference(x, w, (1, 1), (0, 0), (1, 1), 1), rtol=1e-4, atol=1e-4)
