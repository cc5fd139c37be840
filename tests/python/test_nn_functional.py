"""rstorch.nn.functional: values against direct numpy definitions, gradcheck in float64 on
non-contiguous inputs, double backward of convolutions, and PyTorch's errors."""
import itertools

import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck


def _rand(*shape, seed=0, grad=True, transposed=False):
    """float64 data; `transposed` stores it transposed in memory so the tensor is not contiguous."""
    rng = np.random.default_rng(seed)
    if transposed:
        data = rng.standard_normal(shape[::-1]).T
        t = rstorch.from_numpy(np.ascontiguousarray(data.T)).permute(*reversed(range(len(shape))))
        assert not t.is_contiguous()
    else:
        t = rstorch.from_numpy(rng.standard_normal(shape))
    return t.requires_grad_(grad)


def _conv2d_reference(x, w, stride, padding, dilation, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i, j in itertools.product(range(oh), range(ow)):
            ys = i * stride[0] + dilation[0] * np.arange(kh)
            xs = j * stride[1] + dilation[1] * np.arange(kw)
            patch = xp[:, g * cg:(g + 1) * cg][:, :, ys][:, :, :, xs]
            out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


CONV_CONFIGS = [
    # (N, C, H, W, O, kh, kw, stride, padding, dilation, groups)
    (2, 3, 7, 6, 4, 3, 3, (1, 1), (0, 0), (1, 1), 1),
    (2, 4, 9, 8, 6, 3, 2, (2, 1), (1, 0), (1, 2), 2),
    (1, 1, 28, 28, 10, 5, 5, (1, 1), (0, 0), (1, 1), 1),
    (3, 4, 5, 5, 4, 1, 1, (1, 1), (0, 0), (1, 1), 4),
    (2, 6, 6, 7, 3, 1, 1, (1, 1), (0, 0), (1, 1), 1),
    (2, 2, 8, 8, 2, 3, 3, (3, 2), (2, 1), (2, 1), 1),
]


@pytest.mark.parametrize("cfg", CONV_CONFIGS)
def test_conv2d_matches_the_definition(cfg):
    n, c, h, w, o, kh, kw, stride, padding, dilation, groups = cfg
    x = _rand(n, c, h, w, grad=False, transposed=True)
    wt = _rand(o, c // groups, kh, kw, seed=1, grad=False)
    got = F.conv2d(x, wt, stride=stride, padding=padding, dilation=dilation, groups=groups)
    want = _conv2d_reference(x.numpy(), wt.numpy(), stride, padding, dilation, groups)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)


def test_conv2d_float32_and_bias():
    x = _rand(2, 3, 6, 6, grad=False).float()
    w = _rand(5, 3, 3, 3, seed=1, grad=False).float()
    b = _rand(5, seed=2, grad=False).float()
    got = F.conv2d(x, w, b, padding=1)
    assert got.dtype == rstorch.float32
    want = _conv2d_reference(x.double().numpy(), w.double().numpy(), (1, 1), (1, 1), (1, 1), 1)
    want += b.double().numpy()[None, :, None, None]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    # <conv2d(x, w), y> == <x, conv_transpose2d(y, w)> for every x, y.
    x = _rand(2, 4, 9, 8, grad=False)
    w = _rand(6, 2, 3, 3, seed=1, grad=False)
    kw = dict(stride=2, padding=1, dilation=1, groups=2)
    y = F.conv2d(x, w, **kw)
    dy = _rand(*y.shape, seed=2, grad=False)
    back = F.conv_transpose2d(dy, w, output_padding=(0, 1), **kw)
    assert back.shape == x.shape
    np.testing.assert_allclose((y * dy).sum().item(), (x * back).sum().item(), rtol=1e-10)


def test_padding_same_and_valid():
    x = _rand(1, 2, 7, 6, grad=False)
    w = _rand(3, 2, 4, 3, seed=1, grad=False)
    same = F.conv2d(x, w, padding="same", dilation=(1, 2))
    assert same.shape == (1, 3, 7, 6)
    # Even kernels pad the extra element after the input.
    want = F.conv2d(F.pad(x, [2, 2, 1, 2]), w, dilation=(1, 2))
    np.testing.assert_allclose(same.numpy(), want.numpy())
    assert F.conv2d(x, w, padding="valid").shape == (1, 3, 4, 4)
    with pytest.raises(RuntimeError, match="strided"):  # PyTorch 2.15 raises RuntimeError
        F.conv2d(x, w, padding="same", stride=2)


def test_conv1d_and_unbatched_inputs():
    x = _rand(2, 3, 10, grad=False)
    w = _rand(4, 3, 3, seed=1, grad=False)
    got = F.conv1d(x, w, padding=1, stride=2)
    want = _conv2d_reference(x.numpy()[:, :, None], w.numpy()[:, :, None], (1, 2), (0, 1), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(F.conv1d(x[0], w, padding=1, stride=2).numpy(), want[0], rtol=1e-10)
    x2 = _rand(3, 5, 5, grad=False)
    w2 = _rand(2, 3, 2, 2, seed=3, grad=False)
    np.testing.assert_allclose(F.conv2d(x2, w2).numpy(), F.conv2d(x2.unsqueeze(0), w2)[0].numpy())


GRADCHECKS = {
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
               [(2, 2, 5, 6), (3, 2, 3, 2), (3,)]),
    "conv2d_groups": (lambda x, w: F.conv2d(x, w, padding=1, groups=2), [(1, 4, 4, 4), (4, 2, 3, 3)]),
    "conv2d_1x1": (lambda x, w: F.conv2d(x, w), [(2, 3, 3, 4), (2, 3, 1, 1)]),
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, padding=2, stride=2), [(2, 2, 7), (3, 2, 3), (3,)]),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         [(2, 3, 3, 3), (3, 2, 3, 3), (2,)]),
    "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, stride=3), [(1, 2, 4), (2, 3, 2)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, stride=2, padding=1), [(2, 2, 6, 5)]),
    "max_pool2d_ceil_dilation": (lambda x: F.max_pool2d(x, 2, stride=2, dilation=(1, 2), ceil_mode=True),
                                 [(1, 2, 5, 7)]),
    "max_pool1d": (lambda x: F.max_pool1d(x, 2), [(2, 3, 6)]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, (2, 3), stride=(1, 2), padding=1), [(2, 2, 5, 6)]),
    "avg_pool2d_ceil_exclude_pad": (lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                                    [(1, 2, 6, 6)]),
    "avg_pool1d": (lambda x: F.avg_pool1d(x, 3, 2), [(2, 2, 7)]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [(2, 2, 7, 5)]),
    "adaptive_avg_pool2d_even": (lambda x: F.adaptive_avg_pool2d(x, 2), [(2, 2, 4, 6)]),
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                         [(4, 3, 2, 2), (3,), (3,)]),
    "batch_norm_eval": (lambda x, w: F.batch_norm(x, _rand(3, seed=7, grad=False), _rand(3, seed=8, grad=False).abs(),
                                                  w, training=False, eps=0.1), [(4, 3), (3,)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (3, 4), w, b), [(2, 3, 4), (3, 4), (3, 4)]),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    "normalize": (lambda x: F.normalize(x, dim=0), [(3, 4)]),
    "cosine_similarity": (lambda a, b: F.cosine_similarity(a, b), [(3, 4), (3, 4)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)]),
    "bilinear": (lambda a, b, w, bias: F.bilinear(a, b, w, bias), [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    "pad_constant_negative": (lambda x: F.pad(x, (2, -1, 1, 0), value=0.5), [(2, 3, 4)]),
    "pad_reflect": (lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), [(1, 2, 4, 4)]),
    "pad_replicate": (lambda x: F.pad(x, (3, 1), mode="replicate"), [(2, 2, 3)]),
    "pad_circular": (lambda x: F.pad(x, (1, 2, 2, 0), mode="circular"), [(1, 1, 3, 3)]),
    "interpolate_nearest": (lambda x: F.interpolate(x, size=(5, 3)), [(1, 2, 3, 4)]),
    "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), [(1, 2, 3, 4)]),
    "interpolate_bilinear_corners": (lambda x: F.interpolate(x, size=(4, 5), mode="bilinear", align_corners=True),
                                     [(1, 1, 3, 3)]),
    "interpolate_linear": (lambda x: F.interpolate(x, size=7, mode="linear"), [(2, 2, 4)]),
    "sdpa_causal": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    [(2, 3, 4), (2, 3, 4), (2, 3, 5)]),
    "sdpa_float_mask": (lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
                        [(2, 3, 4), (2, 5, 4), (2, 5, 2), (3, 5)]),
    "mse": (lambda a, b: F.mse_loss(a, b, reduction="sum"), [(3, 4), (3, 4)]),
    "l1": (lambda a, b: F.l1_loss(a, b), [(3, 4), (3, 4)]),
    "smooth_l1": (lambda a, b: F.smooth_l1_loss(a, b, beta=0.5, reduction="none"), [(3, 4), (3, 4)]),
    "huber": (lambda a, b: F.huber_loss(a, b, delta=0.7), [(3, 4), (3, 4)]),
    "bce": (lambda a, b, w: F.binary_cross_entropy(a.sigmoid(), b.sigmoid(), weight=w), [(3, 4), (3, 4), (4,)]),
    "bce_logits_pos_weight": (lambda a, b, p: F.binary_cross_entropy_with_logits(a, b.sigmoid(), pos_weight=p.abs()),
                              [(3, 4), (3, 4), (4,)]),
    "kl_div_log_target": (lambda a, b: F.kl_div(a.log_softmax(1), b.log_softmax(1), reduction="batchmean",
                                                log_target=True), [(3, 4), (3, 4)]),
    "cross_entropy_probs": (lambda a, b: F.cross_entropy(a, b.softmax(1), label_smoothing=0.2), [(3, 4), (3, 4)]),
    "relu6_hardtanh": (lambda x: F.relu6(x * 4) + F.hardtanh(x, -0.5, 0.5), [(3, 4)]),
    "selu_celu_elu": (lambda x: F.selu(x) + F.celu(x, 0.7) + F.elu(x, 1.3), [(3, 4)]),
    "mish_hardswish_hardsigmoid": (lambda x: F.mish(x) + F.hardswish(x) + F.hardsigmoid(x), [(3, 4)]),
    "logsigmoid_softsign_tanhshrink": (lambda x: F.logsigmoid(x) + F.softsign(x) + F.tanhshrink(x), [(3, 4)]),
    "glu_softmin": (lambda x: F.glu(x, 1) + F.softmin(x[:, :2], dim=1), [(3, 4)]),
    "prelu": (lambda x, w: F.prelu(x, w), [(2, 3, 2), (3,)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck_on_non_contiguous_inputs(name):
    fn, shapes = GRADCHECKS[name]
    inputs = [_rand(*s, seed=i, transposed=len(s) > 1) for i, s in enumerate(shapes)]
    assert gradcheck(fn, inputs)


def test_gradcheck_integer_target_losses():
    x = _rand(4, 5, transposed=True)
    t = rstorch.tensor([1, 0, 4, 2])
    w = rstorch.tensor([0.5, 1.0, 2.0, 1.5, 0.7], dtype=rstorch.float64)
    assert gradcheck(lambda x: F.cross_entropy(x, t, weight=w, ignore_index=0, label_smoothing=0.1), [x])
    assert gradcheck(lambda x: F.nll_loss(x.log_softmax(1), t, reduction="none"), [x])
    img = _rand(2, 3, 2, 2, seed=3)
    timg = rstorch.tensor([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])
    assert gradcheck(lambda x: F.cross_entropy(x, timg), [img])


def test_gradcheck_embedding_and_padding_row():
    w = _rand(6, 3)
    idx = rstorch.tensor([[0, 2, 5], [2, 2, 1]])
    assert gradcheck(lambda w: F.embedding(idx, w), [w])
    F.embedding(idx, w, padding_idx=2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[2], 0.0)
    np.testing.assert_array_equal(w.grad.numpy()[0], 1.0)


@pytest.mark.parametrize("transpose", [False, True])
def test_convolution_double_backward(transpose):
    if transpose:
        def fn(x, w):
            return F.conv_transpose2d(x, w, stride=2, padding=1, groups=2)
        x, w = _rand(1, 4, 3, 3), _rand(4, 1, 3, 2, seed=1)
    else:
        def fn(x, w):
            return F.conv2d(x, w, stride=2, padding=1, dilation=(2, 1), groups=2)
        x, w = _rand(1, 4, 5, 5), _rand(2, 2, 3, 2, seed=1)
    assert gradgradcheck(fn, [x, w])


def test_node_names():
    x = _rand(1, 1, 4, 4)
    w = _rand(1, 1, 3, 3, seed=1)
    assert F.conv2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv_transpose2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert F.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"


def test_max_pool2d_values_and_indices():
    x = rstorch.tensor([[[[1.0, 5.0, 2.0, 0.0, 3.0],
                          [3.0, 4.0, 9.0, 8.0, 1.0],
                          [7.0, 6.0, 1.0, 1.0, 2.0]]]])
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.tolist() == [[[[5.0, 9.0]]]]
    assert idx.tolist() == [[[[1, 7]]]]
    assert idx.dtype == rstorch.int64
    out, idx = F.max_pool2d(x, 2, ceil_mode=True, return_indices=True)
    assert out.tolist() == [[[[5.0, 9.0, 3.0], [7.0, 1.0, 2.0]]]]
    assert idx.tolist() == [[[[1, 7, 4], [10, 12, 14]]]]
    # Padding is never the maximum, even when every value is negative.
    out = F.max_pool2d(-x - 10, 3, stride=1, padding=1)
    assert out.max().item() == -10.0 and out.tolist()[0][0][2][0] == -13.0


def test_avg_pool_divisors():
    x = rstorch.ones(1, 1, 4, 4)
    assert F.avg_pool2d(x, 3, 1, 1).tolist()[0][0][0] == pytest.approx([4 / 9, 6 / 9, 6 / 9, 4 / 9])
    assert F.avg_pool2d(x, 3, 1, 1, count_include_pad=False).tolist()[0][0][0] == pytest.approx([1.0] * 4)
    assert F.avg_pool2d(x, 3, 1, 1, divisor_override=2).tolist()[0][0][0] == pytest.approx([2.0, 3.0, 3.0, 2.0])
    # ceil mode: the last window is clipped to the input plus padding.
    assert F.avg_pool2d(x, 2, 3, ceil_mode=True).shape == (1, 1, 2, 2)
    np.testing.assert_allclose(F.avg_pool2d(x, 2, 3, ceil_mode=True).numpy(), 1.0)


def test_batch_norm_running_statistics_and_eval():
    x = _rand(8, 3, 2, grad=False)
    mean, var = rstorch.zeros(3, dtype=rstorch.float64), rstorch.ones(3, dtype=rstorch.float64)
    F.batch_norm(x, mean, var, training=True, momentum=0.25)
    xs = x.numpy().transpose(1, 0, 2).reshape(3, -1)
    np.testing.assert_allclose(mean.numpy(), 0.25 * xs.mean(1))
    np.testing.assert_allclose(var.numpy(), 0.75 + 0.25 * xs.var(1, ddof=1))
    out = F.batch_norm(x, mean, var, training=False, eps=0.0)
    want = (x.numpy() - mean.numpy()[None, :, None]) / np.sqrt(var.numpy())[None, :, None]
    np.testing.assert_allclose(out.numpy(), want)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(rstorch.ones(1, 3), None, None, training=True)


def test_cross_entropy_against_numpy():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((5, 4))
    target = np.array([0, 3, 1, 1, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    want = -logp[np.arange(5), target].mean()
    got = F.cross_entropy(rstorch.from_numpy(logits), rstorch.from_numpy(target))
    np.testing.assert_allclose(got.item(), want)
    none = F.cross_entropy(rstorch.from_numpy(logits), rstorch.from_numpy(target), reduction="none")
    np.testing.assert_allclose(none.numpy(), -logp[np.arange(5), target])


def test_log_softmax_without_dim_warns_and_picks_pytorchs_dim():
    x = _rand(2, 3, grad=False)
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        out = F.log_softmax(x)
    np.testing.assert_allclose(out.numpy(), x.log_softmax(1).numpy())
    with pytest.warns(UserWarning):
        np.testing.assert_allclose(F.softmax(_rand(2, 3, 4, grad=False)).sum(0).numpy(), 1.0)


def test_dropout():
    x = rstorch.ones(200, 100)
    assert F.dropout(x, 0.3, training=False) is x
    rstorch.manual_seed(0)
    y = F.dropout(x, 0.3)
    kept = (y != 0).float().mean().item()
    assert 0.67 < kept < 0.73
    np.testing.assert_allclose(np.unique(y.numpy()), [0.0, 1 / 0.7], rtol=1e-6)
    z = F.dropout2d(rstorch.ones(4, 50, 3, 3), 0.5).numpy()
    per_channel = z.reshape(4, 50, 9)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels kept or dropped
    assert F.dropout(x, 1.0).abs().sum().item() == 0.0
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)


def test_dropout_of_a_view_keeps_its_layout_and_masks_elementwise():
    # The mask is drawn in the input's memory order (PyTorch's empty_like(input).bernoulli_()):
    # a transposed input gives a transposed result; the gradient flows through the same mask.
    rstorch.manual_seed(1)
    base = rstorch.randn(60, 40)
    x = base.t().requires_grad_()
    y = F.dropout(x, 0.25)
    assert y.shape == (40, 60) and y.stride() == x.stride() == (1, 40)
    got, want = y.detach().numpy(), x.detach().numpy()
    dropped = got == 0
    np.testing.assert_allclose(got[~dropped], want[~dropped] / 0.75, rtol=1e-6)
    assert 0.19 < dropped.mean() < 0.31
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(dropped, 0.0, 1 / 0.75), rtol=1e-6)
    stepped = rstorch.ones(30, 40)[::2, 1::3]
    z = F.dropout(stepped, 0.5).numpy()
    assert z.shape == (15, 13) and set(np.unique(z)) <= {0.0, 2.0}


def test_one_hot_and_interpolate_nearest_values():
    assert F.one_hot(rstorch.tensor([0, 2, 1])).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(rstorch.tensor([1]), 4).dtype == rstorch.int64
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(rstorch.tensor([3]), 3)
    x = rstorch.arange(4.0).reshape(1, 1, 4)
    assert F.interpolate(x, size=6).tolist() == [[[0.0, 0.0, 1.0, 2.0, 2.0, 3.0]]]
    assert F.interpolate(x, scale_factor=0.5).tolist() == [[[0.0, 2.0]]]
    lin = F.interpolate(x, size=7, mode="linear", align_corners=True)
    np.testing.assert_allclose(lin.numpy()[0, 0], np.linspace(0, 3, 7))


def test_threads_do_not_change_convolution_bits():
    x = _rand(20, 3, 12, 12, grad=True).float().detach().requires_grad_()
    w = _rand(8, 3, 3, 3, seed=1).float().detach().requires_grad_()
    before = rstorch.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            rstorch.set_num_threads(n)
            x.grad = w.grad = None
            F.conv2d(x, w, padding=1).square().sum().backward()
            results.append((x.grad.numpy().copy(), w.grad.numpy().copy()))
    finally:
        rstorch.set_num_threads(before)
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


ERRORS = [
    (lambda: F.conv2d(rstorch.ones(1, 3, 5, 5), rstorch.ones(2, 2, 3, 3)), RuntimeError,
     r"Given groups=1, weight of size \[2, 2, 3, 3\], expected input\[1, 3, 5, 5\] to have 2 channels, "
     r"but got 3 channels instead"),
    (lambda: F.conv2d(rstorch.ones(1, 1, 2, 2), rstorch.ones(1, 1, 3, 3)), RuntimeError,
     r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\). Kernel size can't be "
     r"greater than actual input size"),
    (lambda: F.conv2d(rstorch.ones(1, 4, 5, 5), rstorch.ones(3, 2, 3, 3), groups=2), RuntimeError,
     r"Given groups=2, expected weight to be divisible by 2 at dimension 0"),
    (lambda: F.conv2d(rstorch.ones(1, 1, 5, 5), rstorch.ones(1, 1, 3, 3), stride=0), RuntimeError,
     "non-positive stride is not supported"),
    (lambda: F.conv2d(rstorch.ones(1, 1, 5, 5), rstorch.ones(1, 1, 3, 3), padding=-1), RuntimeError,
     "negative padding is not supported"),
    (lambda: F.conv2d(rstorch.ones(2, 5), rstorch.ones(1, 1, 3, 3)), RuntimeError,
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[2, 5\]"),
    (lambda: F.conv2d(rstorch.ones(1, 1, 5, 5), rstorch.ones(1, 1, 3, 3, dtype=rstorch.float64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda: F.conv2d(rstorch.ones(1, 1, 5, 5, dtype=rstorch.int64), rstorch.ones(1, 1, 3, 3, dtype=rstorch.int64)),
     RuntimeError, "not implemented for 'Long'"),
    (lambda: F.conv_transpose2d(rstorch.ones(1, 2, 3, 3), rstorch.ones(2, 1, 3, 3), stride=2, output_padding=2),
     RuntimeError, "output padding must be smaller than either stride or dilation"),
    (lambda: F.max_pool2d(rstorch.ones(1, 1, 4, 4), 2, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda: F.max_pool2d(rstorch.ones(1, 1, 2, 2), 3), RuntimeError, "Output size is too small"),
    (lambda: F.max_pool2d(rstorch.ones(4, 4), 2), RuntimeError, "Expected 3D or 4D"),
    (lambda: F.cross_entropy(rstorch.ones(3, 4), rstorch.tensor([0, 1, 4])), IndexError,
     "Target 4 is out of bounds."),
    (lambda: F.cross_entropy(rstorch.ones(3, 4), rstorch.tensor([0, 1])), ValueError,
     r"Expected input batch_size \(3\) to match target batch_size \(2\)."),
    (lambda: F.binary_cross_entropy(rstorch.ones(3, 1) * 0.5, rstorch.ones(3)), ValueError,
     "that is different to the input size"),
    (lambda: F.mse_loss(rstorch.ones(3), rstorch.ones(3), reduction="avg"), ValueError,
     "avg is not a valid value for reduction"),
    (lambda: F.pad(rstorch.ones(2, 3), (1, 2, 3)), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: F.pad(rstorch.ones(1, 3), (3, 3), mode="reflect"), RuntimeError,
     "Padding size should be less than the corresponding input dimension"),
    (lambda: F.layer_norm(rstorch.ones(2, 3), (4,)), RuntimeError,
     r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\]"),
    (lambda: F.group_norm(rstorch.ones(2, 3, 4), 2), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups"),
    (lambda: F.interpolate(rstorch.ones(1, 1, 3), size=4, scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda: F.interpolate(rstorch.ones(1, 1, 3), size=4, align_corners=True), ValueError,
     "align_corners option can only be set with the interpolating modes"),
    (lambda: F.embedding(rstorch.tensor([3]), rstorch.ones(3, 2)), IndexError, "out of range"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    fn, exc, msg = ERRORS[case]
    with pytest.raises(exc, match=msg):
        fn()
