"""The convolutions' argument rules, unbatched inputs and padding modes, as PyTorch 2.15 has them
(expected messages, node names and values recorded from it). They live in the Rust core now, so
these also pin what a Rust caller of `Tensor::convolution` gets."""
import pytest

import rstorch as torch
import rstorch.nn.functional as F

X, W = torch.ones(1, 2, 5, 5), torch.ones(3, 2, 3, 3)
X1, W1 = torch.ones(1, 2, 7), torch.ones(3, 2, 3)
WT = torch.ones(2, 3, 3, 3)


def lengths(name, n, got):
    return (f"expected {name} to be a single integer value or a list of {n} values to match the convolution "
            f"dimensions, but got {name}={got}")


ERRORS = {
    "stride_length": (lambda: F.conv2d(X, W, stride=(1, 2, 3)), RuntimeError, lengths("stride", 2, "[1, 2, 3]")),
    "padding_length": (lambda: F.conv2d(X, W, padding=(1, 2, 3)), RuntimeError, lengths("padding", 2, "[1, 2, 3]")),
    "negative_padding": (lambda: F.conv2d(X, W, padding=-1), RuntimeError, "negative padding is not supported"),
    "negative_stride": (lambda: F.conv2d(X, W, stride=-1), RuntimeError, "non-positive stride is not supported"),
    "zero_stride": (lambda: F.conv2d(X, W, stride=0), RuntimeError, "non-positive stride is not supported"),
    "zero_groups": (lambda: F.conv2d(X, W, groups=0), RuntimeError, "non-positive groups is not supported"),
    "negative_dilation": (lambda: F.conv2d(X, W, dilation=-1), RuntimeError, "dilation should be greater than zero"),
    # groups is checked first, then padding, then stride, then dilation.
    "order_groups_first": (lambda: F.conv2d(X, W, stride=0, padding=-1, groups=0, dilation=0), RuntimeError,
                           "non-positive groups is not supported"),
    "order_padding_before_stride": (lambda: F.conv2d(X, W, stride=0, padding=-1, dilation=0), RuntimeError,
                                    "negative padding is not supported"),
    "order_stride_before_dilation": (lambda: F.conv2d(X, W, stride=0, dilation=0), RuntimeError,
                                     "non-positive stride is not supported"),
    "same_strided": (lambda: F.conv2d(X, W, padding="same", stride=2), RuntimeError,
                     "padding='same' is not supported for strided convolutions"),
    "bad_padding_string": (lambda: F.conv2d(X, W, padding="full"), RuntimeError, "Invalid padding string: 'full'"),
    "input_5d": (lambda: F.conv2d(torch.ones(1, 1, 2, 5, 5), W), RuntimeError,
                 "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 1, 2, 5, 5]"),
    "input_2d": (lambda: F.conv2d(torch.ones(5, 5), W), RuntimeError,
                 "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]"),
    "weight_3d_in_conv2d": (lambda: F.conv2d(X, torch.ones(3, 2, 3)), RuntimeError, lengths("stride", 1, "[1, 1]")),
    "weight_2d": (lambda: F.conv2d(X, torch.ones(3, 2)), RuntimeError, "weight should have at least three dimensions"),
    "conv1d_input_4d": (lambda: F.conv1d(torch.ones(1, 1, 2, 5), W1), RuntimeError,
                        "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [1, 1, 2, 5]"),
    "conv1d_weight_4d": (lambda: F.conv1d(X1, W), RuntimeError,
                         "Expected 4-dimensional input for 4-dimensional weight [3, 2, 3, 3], but got 3-dimensional input of "
                         "size [1, 2, 7] instead"),
    "conv1d_stride_length": (lambda: F.conv1d(X1, W1, stride=(1, 2)), RuntimeError, lengths("stride", 1, "[1, 2]")),
    "conv1d_negative_padding": (lambda: F.conv1d(X1, W1, padding=-1), RuntimeError, "negative padding is not supported"),
    "transpose_negative_output_padding": (lambda: F.conv_transpose2d(X, WT, output_padding=-1), RuntimeError,
                                          "negative output_padding is not supported"),
    "transpose_output_padding_before_dilation": (lambda: F.conv_transpose2d(X, WT, output_padding=-1, dilation=0),
                                                 RuntimeError, "negative output_padding is not supported"),
    "transpose_stride_length": (lambda: F.conv_transpose2d(X, WT, stride=(1, 1, 1)), RuntimeError,
                                lengths("stride", 2, "[1, 1, 1]")),
    "transpose_input_5d": (lambda: F.conv_transpose2d(torch.ones(1, 1, 2, 5, 5), WT), RuntimeError,
                           "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: "
                           "[1, 1, 2, 5, 5]"),
    "transpose_padding_string": (lambda: F.conv_transpose2d(X, WT, padding="same"), TypeError,
                                 "conv_transpose2d(): argument 'padding' must be tuple of ints, not str"),
    "transpose_output_padding_too_big": (lambda: F.conv_transpose2d(X, WT, output_padding=1), RuntimeError,
                                         "output padding must be smaller than either stride or dilation"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_arguments_raise_pytorchs_error(case):
    call, cls, message = ERRORS[case]
    with pytest.raises(cls) as info:
        call()
    assert message in str(info.value)


def node(t):
    return type(t.grad_fn).__name__


def test_node_names():
    leaf = torch.ones(1, 2, 5, 5, requires_grad=True)
    same = F.conv2d(leaf, torch.ones(3, 2, 4, 4), padding="same")
    assert node(same) == "ConvolutionBackward0"
    # An even kernel pads one more after: PyTorch's constant pad node feeds the convolution.
    assert [type(f).__name__ if f is not None else None for f, _ in same.grad_fn.next_functions] == \
        ["ConstantPadNdBackward0", None, None]
    assert node(F.conv1d(torch.ones(1, 2, 7, requires_grad=True), W1)) == "ConvolutionBackward0"
    assert node(F.conv1d(torch.ones(2, 7, requires_grad=True), W1)) == "SqueezeBackward1"
    assert node(F.conv2d(torch.ones(2, 5, 5, requires_grad=True), W)) == "SqueezeBackward1"
    assert node(F.conv_transpose1d(torch.ones(1, 2, 7, requires_grad=True), torch.ones(2, 3, 3),
                                   bias=torch.ones(3))) == "ConvolutionBackward0"
    assert node(F.conv_transpose2d(torch.ones(2, 3, 3, requires_grad=True), WT, bias=torch.ones(3))) == "SqueezeBackward1"


def test_values():
    assert F.conv2d(X, torch.ones(3, 2, 4, 4), padding="same").shape == (1, 3, 5, 5)
    assert F.conv1d(X1, W1, padding="valid").shape == (1, 3, 5)
    assert F.conv1d(X1, torch.ones(3, 2, 4), padding="same", dilation=2).shape == (1, 3, 7)
    assert F.conv1d(X1, torch.ones(3, 2, 4), padding="same").sum().item() == 144.0
    assert F.conv2d(torch.arange(50.).reshape(1, 2, 5, 5), torch.arange(96.).reshape(3, 2, 4, 4),
                    padding="same").sum().item() == 2016492.0
    assert F.conv1d(torch.arange(14.).reshape(2, 7), W1, stride=2, padding=1, dilation=2).tolist() == \
        [[22.0, 39.0, 30.0]] * 3
    assert F.conv_transpose1d(torch.arange(14.).reshape(1, 2, 7), torch.arange(18.).reshape(2, 3, 3), bias=torch.ones(3),
                              stride=2, output_padding=1).sum().item() == 8994.0
    assert F.conv_transpose1d(torch.arange(14.).reshape(2, 7), torch.arange(18.).reshape(2, 3, 3)).shape == (3, 9)
    assert F.conv_transpose2d(torch.ones(2, 3, 3), WT, bias=torch.ones(3)).sum().item() == 561.0


@pytest.mark.parametrize("padding", ["same", 1, (0, 2)])
def test_gradcheck_2d_and_1d(padding):
    x = torch.randn(1, 2, 5, 6, dtype=torch.float64).transpose(2, 3).requires_grad_()
    w = torch.randn(3, 2, 2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w, b: F.conv2d(x, w, b, padding=padding), (x, w, b), eps=1e-6, atol=1e-5, rtol=1e-3)
    x1 = torch.randn(2, 7, dtype=torch.float64, requires_grad=True)
    w1 = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
    pad1 = padding if isinstance(padding, (str, int)) else padding[1]
    assert torch.autograd.gradcheck(lambda x, w: F.conv1d(x, w, padding=pad1), (x1, w1), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_gradcheck_transposes():
    x = torch.randn(1, 2, 4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, 3, 2, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, output_padding=1),
                                    (x, w, b), eps=1e-6, atol=1e-5, rtol=1e-3)
    x1 = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
    w1 = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2), (x1, w1, b),
                                    eps=1e-6, atol=1e-5, rtol=1e-3)
