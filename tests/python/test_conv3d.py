"""The 3-d convolutions and pools, fold / unfold, max unpooling and power pooling against
PyTorch's results (tests/record_conv3d.py -> tests/fixtures/conv3d.json, cases in
tests/conv3d_cases.py): outputs and float64 input gradients, error types and messages, layer
reprs; and gradcheck of every op, on non-contiguous inputs too."""
import json
import math
import pathlib
import sys

import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck

TESTS = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
import conv3d_cases  # noqa: E402 (tests/ is put on the path just above)

REF = json.loads((TESTS / "fixtures" / "conv3d.json").read_text())
CASES = conv3d_cases.cases(rstorch)


def close(got, want, tol=1e-10):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if math.isnan(g) and math.isnan(w):  # an odd power pool's negative mean: NaN in both
            continue
        assert math.isclose(g, w, rel_tol=tol, abs_tol=tol), (g, w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_and_gradients_match_pytorch(name):
    got, want = conv3d_cases.run(rstorch, CASES[name]), REF["cases"][name]
    assert len(got["outputs"]) == len(want["outputs"])
    for g, w in zip(got["outputs"], want["outputs"]):
        assert (g["shape"], g["dtype"]) == (w["shape"], w["dtype"])
        close(g["values"], w["values"])
    for g, w in zip(got["grads"], want["grads"]):
        assert (g is None) == (w is None)
        if g is not None:
            close(g, w)


@pytest.mark.parametrize("expr", conv3d_cases.ERRORS)
def test_errors_are_pytorchs(expr):
    assert conv3d_cases.capture(rstorch, expr) == REF["errors"][expr]


@pytest.mark.parametrize("expr", conv3d_cases.LAYERS)
def test_layer_reprs_are_pytorchs(expr):
    assert repr(eval(expr, {"t": rstorch})) == REF["layers"][expr]


def inputs(*shapes):
    return [conv3d_cases.values(rstorch, s, i + 30) for i, s in enumerate(shapes)]


GRADCHECKS = {
    "conv3d": (((2, 4, 4, 3, 5), (4, 2, 2, 3, 2), (4,)),
               lambda x, w, b: F.conv3d(x.transpose(2, 4).transpose(2, 4), w, b, (2, 1, 1), (1, 0, 1), (1, 1, 2), 2)),
    "conv3d_same": (((1, 2, 3, 4, 4), (2, 2, 2, 1, 3)), lambda x, w: F.conv3d(x, w, padding="same")),
    "conv_transpose3d": (((2, 4, 3, 2, 3), (4, 1, 2, 2, 3), (2,)),
                         lambda x, w, b: F.conv_transpose3d(x.transpose(3, 4).transpose(3, 4), w, b, (2, 1, 2),
                                                            (1, 0, 1), (1, 0, 0), 2, (1, 2, 1))),
    "max_pool3d": (((1, 2, 4, 5, 4),), lambda x: F.max_pool3d(x.transpose(2, 3), 2, (1, 2, 1), 1, ceil_mode=True)),
    "avg_pool3d": (((1, 2, 4, 5, 4),), lambda x: F.avg_pool3d(x.transpose(2, 3), 3, 2, 1, True, False)),
    "adaptive_avg_pool3d": (((1, 2, 4, 5, 3),), lambda x: F.adaptive_avg_pool3d(x.transpose(2, 4), (2, 3, 3))),
    "adaptive_max_pool3d": (((1, 2, 4, 5, 3),), lambda x: F.adaptive_max_pool3d(x.transpose(2, 4), (2, 3, 3))),
    "unfold": (((2, 2, 4, 5),), lambda x: F.unfold(x.transpose(2, 3), 2, 1, 1, 2)),
    "fold": (((2, 8, 6),), lambda x: F.fold(x.transpose(1, 2).transpose(1, 2), (3, 4), 2, padding=(0, 1), stride=(1, 2))),
    "max_unpool3d": (((1, 2, 4, 4, 4),), lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2)),
    "lp_pool3d": (((1, 2, 4, 4, 4),), lambda x: F.lp_pool3d(x, 2, 2, 1)),
    "lp_pool2d": (((1, 2, 4, 4),), lambda x: F.lp_pool2d(x.transpose(2, 3), 3, 2)),
    "fractional_max_pool3d": (((1, 2, 5, 4, 5),), lambda x: F.fractional_max_pool3d(
        x.transpose(2, 4), 2, (3, 2, 2), _random_samples=rstorch.tensor([[[0.3, 0.6, 0.9], [0.1, 0.5, 0.2]]],
                                                                          dtype=rstorch.float64))),
    "affine_grid": (((2, 3, 4),), lambda th: F.affine_grid(th, (2, 1, 2, 3, 2), align_corners=False)),
    "grid_sample_zeros": (((1, 2, 3, 4), (1, 2, 3, 2)),
                          lambda x, g: F.grid_sample(x.transpose(2, 3).transpose(2, 3), g, align_corners=False)),
    "grid_sample_border": (((1, 2, 3, 4), (1, 2, 3, 2)),
                           lambda x, g: F.grid_sample(x, g * 1.7, padding_mode="border", align_corners=True)),
    "grid_sample_reflection": (((1, 2, 3, 4), (1, 2, 3, 2)),
                               lambda x, g: F.grid_sample(x, g * 1.9, padding_mode="reflection", align_corners=False)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    shapes, fn = GRADCHECKS[name]
    assert gradcheck(fn, inputs(*shapes))


@pytest.mark.parametrize("name", ["conv3d", "conv_transpose3d", "max_pool3d", "fold"])
def test_gradgradcheck(name):
    shapes, fn = GRADCHECKS[name]
    assert gradgradcheck(fn, inputs(*shapes))


def test_conv3d_has_one_convolution_node():
    x, w = inputs((1, 2, 3, 3, 3), (2, 2, 2, 2, 2))
    assert type(F.conv3d(x, w).grad_fn).__name__ == "ConvolutionBackward0"
    assert type(F.conv_transpose3d(x, w).grad_fn).__name__ == "ConvolutionBackward0"


def test_layers_run_and_train():
    rstorch.manual_seed(0)
    net = rstorch.nn.Sequential(
        rstorch.nn.Conv3d(2, 4, 3, padding=1, padding_mode="circular"), rstorch.nn.BatchNorm3d(4),
        rstorch.nn.MaxPool3d(2), rstorch.nn.ConvTranspose3d(4, 2, 2, stride=2), rstorch.nn.AvgPool3d(2),
        rstorch.nn.AdaptiveAvgPool3d(1), rstorch.nn.Flatten())
    x = rstorch.randn(3, 2, 4, 4, 4)
    out = net(x)
    assert out.shape == (3, 2)
    out.sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    up = rstorch.nn.ConvTranspose3d(2, 2, 3, stride=2)
    assert up(x, output_size=(9, 10, 9)).shape == (3, 2, 9, 10, 9)
    pool, unpool = rstorch.nn.MaxPool3d(2, return_indices=True), rstorch.nn.MaxUnpool3d(2)
    v, i = pool(x)
    assert unpool(v, i).shape == x.shape
    cols = rstorch.nn.Unfold(2)(x[:, 0])
    assert rstorch.nn.Fold((4, 4), 2)(cols).shape == (3, 4, 4, 4)


WGPU_OPS = {
    "conv3d": lambda x, w: F.conv3d(x, w, None, (2, 1, 1), 1, 1, 2),
    "conv_transpose3d": lambda x, w: F.conv_transpose3d(x, w.transpose(0, 1).reshape(4, 3, 3, 2, 3), None, 2, 1, 1),
    "max_pool3d": lambda x, w: F.max_pool3d(x, 2, padding=1),
    "avg_pool3d": lambda x, w: F.avg_pool3d(x, 3, 2, 1, True, False),
    "adaptive_max_pool3d": lambda x, w: F.adaptive_max_pool3d(x, (2, 3, 4)),
    "unfold": lambda x, w: F.unfold(x[0], 2, padding=1),
}


@pytest.mark.skipif(not rstorch.wgpu.is_available(), reason="no wgpu adapter")
@pytest.mark.parametrize("name", sorted(WGPU_OPS))
def test_wgpu_matches_cpu(name):
    """On the GPU the ops run on its 2-d kernels and views: the CPU's results and gradients."""
    x, w = (t.detach().float() for t in inputs((2, 4, 5, 6, 7), (6, 2, 3, 2, 3)))
    results = []
    for device in ("cpu", "wgpu"):
        xd, wd = x.detach().to(device).requires_grad_(), w.detach().to(device).requires_grad_()
        out = WGPU_OPS[name](xd, wd)
        assert out.device.type == device
        out.sum().backward()
        results.append([out.cpu(), xd.grad.cpu()])
    for got, want in zip(results[1], results[0]):
        assert (got - want).abs().max().item() < 1e-4
