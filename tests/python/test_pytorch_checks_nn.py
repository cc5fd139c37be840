"""PyTorch's checks and values for inputs at the edges (issue 20, parts 4 and 6): adaptive pooling
to size 0 and adaptive max pooling, argument checks of interpolate, arange, binary_cross_entropy,
batch_norm and the random fills, writes through overlapping views, inference tensors, detach_()
of views, NaN and infinity in sign, pow and gelu, and the float classification ops (isnan ...
isclose, allclose). Every expected value and error is what PyTorch 2.15 gives."""
import math
import re

import numpy as np
import pytest

import rstorch as torch
import rstorch.nn as nn
import rstorch.nn.functional as F

nan, inf = math.nan, math.inf


def raises(exc, message):
    return pytest.raises(exc, match=re.escape(message))


def same(got, expected):
    """Element lists equal, NaN matching NaN and the sign of zero compared too."""
    got = got.tolist() if hasattr(got, "tolist") else got
    assert len(got) == len(expected), (got, expected)
    for g, e in zip(got, expected):
        if isinstance(e, float) and math.isnan(e):
            assert math.isnan(g), (got, expected)
        else:
            assert g == e and math.copysign(1, g) == math.copysign(1, e), (got, expected)


# ----- adaptive pooling -------------------------------------------------------------------------

X3 = lambda: torch.arange(24.0).reshape(2, 3, 4)  # noqa: E731
X4 = lambda: torch.arange(48.0).reshape(1, 3, 4, 4)  # noqa: E731


def test_adaptive_avg_pool_to_zero_is_empty():
    assert F.adaptive_avg_pool1d(X3(), 0).shape == (2, 3, 0)
    assert F.adaptive_avg_pool2d(X4(), 0).shape == (1, 3, 0, 0)
    assert F.adaptive_avg_pool2d(X4(), (0, 2)).shape == (1, 3, 0, 2)
    assert F.adaptive_avg_pool2d(X4(), (None, 2)).shape == (1, 3, 4, 2)
    with raises(RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, -1}"):
        F.adaptive_avg_pool2d(X4(), -1)
    with raises(RuntimeError, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 3, 0, 4] with dimension 2 being empty"):
        F.adaptive_avg_pool2d(torch.zeros(1, 3, 0, 4), 2)


def test_adaptive_max_pool1d():
    out = F.adaptive_max_pool1d(X3(), 2)
    assert out.tolist() == [[[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]], [[13.0, 15.0], [17.0, 19.0], [21.0, 23.0]]]
    out, idx = F.adaptive_max_pool1d(X3(), 2, return_indices=True)
    assert idx.dtype == torch.int64 and idx.tolist() == [[[1, 3]] * 3] * 2
    v, i = F.adaptive_max_pool1d(torch.tensor([[[1.0, 5, 2, 8, 3]]]), 3, True)
    assert v.tolist() == [[[5.0, 8.0, 8.0]]] and i.tolist() == [[[1, 3, 3]]]
    assert F.adaptive_max_pool1d(X3(), 0).shape == (2, 3, 0)
    with raises(RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)"):
        F.adaptive_max_pool1d(X4(), 2)
    assert type(F.adaptive_max_pool1d(X3().requires_grad_(), 2).grad_fn).__name__ == "SqueezeBackward1"


def test_adaptive_max_pool2d():
    out = F.adaptive_max_pool2d(X4(), 2)
    assert out.tolist() == [[[[5.0, 7.0], [13.0, 15.0]], [[21.0, 23.0], [29.0, 31.0]], [[37.0, 39.0], [45.0, 47.0]]]]
    v, i = F.adaptive_max_pool2d(X4(), (3, 2), return_indices=True)
    assert v[0, 0].tolist() == [[5.0, 7.0], [9.0, 11.0], [13.0, 15.0]]
    assert i.tolist() == [[[[5, 7], [9, 11], [13, 15]]] * 3]
    assert F.adaptive_max_pool2d(X4(), 0).shape == (1, 3, 0, 0)
    assert [t.shape for t in F.adaptive_max_pool2d(X4(), 0, True)] == [(1, 3, 0, 0), (1, 3, 0, 0)]
    assert F.adaptive_max_pool2d(X4(), (None, 2)).shape == (1, 3, 4, 2)
    assert F.adaptive_max_pool2d(X4()[0], 2).shape == (3, 2, 2)
    assert F.adaptive_max_pool2d(X4().half(), 2).dtype == torch.float16
    v, i = F.adaptive_max_pool2d(torch.tensor([[[[1.0, nan], [3.0, 4.0]]]]), 1, True)
    assert math.isnan(v.item()) and i.item() == 1


def test_adaptive_max_pool2d_errors():
    with raises(RuntimeError, "Trying to create tensor with negative dimension -1: [1, 3, -1, -1]"):
        F.adaptive_max_pool2d(X4(), -1)
    with raises(RuntimeError, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4, 4]"):
        F.adaptive_max_pool2d(X4()[0, 0], 2)
    with raises(RuntimeError, "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 3, 0, 4] with dimension 2 being empty"):
        F.adaptive_max_pool2d(torch.zeros(1, 3, 0, 4), 2)
    with raises(NotImplementedError, "\"adaptive_max_pool2d\" not implemented for 'Long'"):
        F.adaptive_max_pool2d(torch.ones(1, 1, 2, 2, dtype=torch.int64), 1)


def test_adaptive_max_pool2d_gradient_and_modules():
    x = X4().requires_grad_()
    out = F.adaptive_max_pool2d(x, 2)
    assert type(out.grad_fn).__name__ == "AdaptiveMaxPool2DBackward0"
    out.sum().backward()
    plane = [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]]
    assert x.grad.tolist() == [[plane] * 3]
    assert nn.AdaptiveMaxPool2d((2, 2), return_indices=True)(X4())[1].tolist() == [[[[5, 7], [13, 15]]] * 3]
    assert repr(nn.AdaptiveMaxPool1d(3)) == "AdaptiveMaxPool1d(output_size=3)"
    assert repr(nn.AdaptiveMaxPool2d((3, None), True)) == "AdaptiveMaxPool2d(output_size=(3, None))"
    assert nn.AdaptiveMaxPool1d(2)(X3()).shape == (2, 3, 2)


# ----- argument checks --------------------------------------------------------------------------

def test_interpolate_sizes_below_one_raise():
    x3, x4 = X3(), X4()
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: -4)"):
        F.interpolate(x3, scale_factor=-1.0)
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: 0)"):
        F.interpolate(x3, scale_factor=0.1)
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: -1)"):
        F.interpolate(x3, size=-1)
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: 0)"):
        F.interpolate(x3, size=0)
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (H: 4, W: 4) output (H: -4, W: 8)"):
        F.interpolate(x4, scale_factor=(-1.0, 2.0))
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (H: 4, W: 4) output (H: -8, W: -8)"):
        F.interpolate(x4, scale_factor=-2.0, mode="bilinear")
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: -4)"):
        F.interpolate(torch.zeros(1, 1, 4), scale_factor=-1.0, mode="linear")
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 0) and output (W: 3)"):
        F.interpolate(torch.zeros(1, 1, 0), size=3)
    with raises(RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-4, -4}"):
        F.interpolate(x4, scale_factor=-1.0, mode="area")
    for s in (nan, inf):
        with raises(RuntimeError, "value cannot be converted to type int64_t without overflow"):
            F.interpolate(x3, scale_factor=s)
    assert F.interpolate(torch.zeros(0, 1, 4), size=3).shape == (0, 1, 3)


def test_linear_interpolation_keeps_inf_and_nan_local():
    """An inf or NaN reaches only the outputs that read it (PyTorch 2.15's values); a product
    with the whole weight matrix would spread it over the line."""
    x = torch.tensor([[[inf, 1.0, 2.0, 3.0]]])
    same(F.interpolate(x, size=8, mode="linear")[0, 0], [inf, inf, inf, 1.25, 1.75, 2.25, 2.75, 3.0])
    got = F.interpolate(x, size=8, mode="linear", align_corners=True)[0, 0]
    same(got[:3], [inf, inf, inf])
    np.testing.assert_allclose(got[3:].numpy(), [1.2857, 1.7143, 2.1429, 2.5714, 3.0], atol=1e-4)
    img = torch.tensor([[1.0, 2.0, nan, 3.0], [1.0, 2.0, 3.0, 4.0]]).reshape(1, 1, 2, 4)
    out = F.interpolate(img, size=(3, 5), mode="bilinear")[0, 0]
    np.testing.assert_allclose(out.numpy(), [[1.0, 1.7, nan, nan, 3.0], [1.0, 1.7, nan, nan, 3.5],
                                             [1.0, 1.7, 2.5, 3.3, 4.0]], atol=1e-5)
    # Finite inputs take the matrix product and give the same values as the reads.
    y = torch.randn(2, 3, 5, 7, dtype=torch.float64)
    fast = F.interpolate(y, size=(9, 4), mode="bilinear")
    y[0, 0, 0, 0] = inf
    slow = F.interpolate(y, size=(9, 4), mode="bilinear")
    np.testing.assert_allclose(fast[1:].numpy(), slow[1:].numpy(), rtol=1e-12, atol=1e-12)


def test_arange_steps_and_bounds():
    with raises(RuntimeError, "step must be finite but got nan"):
        torch.arange(0, 10, nan)
    with raises(RuntimeError, "step must be finite but got inf"):
        torch.arange(0, 10, inf)
    with raises(RuntimeError, "step must be finite but got -inf"):
        torch.arange(0, 10, -inf)
    with raises(RuntimeError, "step must be finite but got nan"):
        torch.arange(0, inf, nan)
    with raises(RuntimeError, "step must be nonzero"):
        torch.arange(0, nan, 0)
    with raises(RuntimeError, "unsupported range: 0 -> inf"):
        torch.arange(0, inf)
    with raises(RuntimeError, "unsupported range: 0 -> nan"):
        torch.arange(nan)
    with raises(RuntimeError, "unsupported range: 1.5 -> nan"):
        torch.arange(1.5, nan)
    with raises(RuntimeError, "unsupported range: -inf -> 1"):
        torch.arange(-inf, 1)
    with raises(RuntimeError, "upper bound and lower bound inconsistent with step sign"):
        torch.arange(0, 10, -1)
    with raises(RuntimeError, "upper bound and lower bound inconsistent with step sign"):
        torch.arange(0.0, 1.0, -0.5)


def test_binary_cross_entropy_needs_probabilities():
    for bad in (1.5, -0.5, nan):
        with raises(RuntimeError, "all elements of input should be between 0 and 1"):
            F.binary_cross_entropy(torch.tensor([bad]), torch.tensor([1.0]))
    with raises(RuntimeError, "all elements of input should be between 0 and 1"):
        nn.BCELoss()(torch.tensor([1.5]), torch.tensor([1.0]))
    with raises(RuntimeError, "all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([1.5], dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64), reduction="none")
    with raises(RuntimeError, "all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([2.0]))
    assert F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])).item() == 100.0


def test_batch_norm_eps_sign():
    x = torch.randn(4, 3)
    with raises(ValueError, "batch_norm eps must be positive during training, but got -1"):
        F.batch_norm(x, torch.zeros(3), torch.ones(3), training=True, eps=-1)
    with raises(ValueError, "batch_norm eps must be positive during training, but got 0"):
        F.batch_norm(x, None, None, training=True, eps=0)
    with raises(ValueError, "batch_norm eps must be positive during training, but got -1.0"):
        F.batch_norm(x, None, None, training=True, eps=-1.0)
    with raises(ValueError, "batch_norm eps must be non-negative, but got -1"):
        F.batch_norm(x, torch.zeros(3), torch.ones(3), training=False, eps=-1)
    with raises(ValueError, "batch_norm eps must be non-negative, but got -1e-05"):
        F.batch_norm(x, torch.zeros(3), torch.ones(3), training=False, eps=-1e-5)
    with raises(ValueError, "batch_norm eps must be positive during training, but got -1"):
        nn.BatchNorm1d(3, eps=-1)(x)
    assert F.batch_norm(x, torch.zeros(3), torch.zeros(3), training=False, eps=0.0).shape == (4, 3)
    assert F.layer_norm(x, (3,), eps=-1).shape == (4, 3)


def test_uniform_and_normal_argument_checks():
    with raises(RuntimeError, "from is out of bounds for float"):
        torch.empty(3).uniform_(inf, 0)
    with raises(RuntimeError, "from is out of bounds for float"):
        torch.empty(3).uniform_(nan, 1)
    with raises(RuntimeError, "from is out of bounds for float"):
        torch.empty(3).uniform_(-1e308, 1e308)
    with raises(RuntimeError, "from is out of bounds for float"):
        torch.empty(0).uniform_(inf, 0)
    with raises(RuntimeError, "to is out of bounds for float"):
        torch.empty(3).uniform_(0, inf)
    with raises(RuntimeError, "to is out of bounds for double"):
        torch.empty(2, dtype=torch.float64).uniform_(0, inf)
    with raises(RuntimeError, "to is out of bounds for c10::Half"):
        torch.empty(2, dtype=torch.float16).uniform_(0, 1e5)
    with raises(RuntimeError, "uniform_ expects to return a [from, to) range, but found from=1 > to=0"):
        torch.empty(3).uniform_(1, 0)
    with raises(RuntimeError, "uniform_ expects to return a [from, to) range, but found from=1e+10 > to=1"):
        torch.empty(2).uniform_(1e10, 1)
    with raises(RuntimeError, "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and from=-3e+38 which result in to-from to exceed the limit"):
        torch.empty(2).uniform_(-3e38, 3e38)
    with raises(NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"):
        torch.empty(3, dtype=torch.int64).uniform_(0, 1)
    with raises(RuntimeError, "from is out of bounds for float"):
        nn.init.uniform_(torch.empty(3), inf, 0)
    assert torch.empty(2).uniform_(1, 1).tolist() == [1.0, 1.0]
    assert bool(torch.empty(3).uniform_(-1e38, 1e38).isfinite().all())
    with raises(RuntimeError, "normal expects std >= 0.0, but found std -1"):
        torch.empty(3).normal_(0, -1)
    with raises(RuntimeError, "normal expects std >= 0.0, but found std -0.5"):
        torch.empty(3).normal_(0, -0.5)
    with raises(RuntimeError, "normal expects std >= 0.0, but found std nan"):
        torch.empty(3).normal_(0, nan)
    with raises(RuntimeError, "normal expects std >= 0.0, but found std -1"):
        nn.init.normal_(torch.empty(3), 0, -1)
    with raises(NotImplementedError, "\"normal_kernel_cpu\" not implemented for 'Long'"):
        torch.empty(2, dtype=torch.int64).normal_(0, 1)
    assert torch.empty(3).normal_(5, 0).tolist() == [5.0, 5.0, 5.0]
    assert nn.init.trunc_normal_(torch.empty(3), 0, -1).shape == (3,)


# ----- writes through overlapping views ---------------------------------------------------------

OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.")


def expanded():
    return torch.zeros(1).expand(3)


@pytest.mark.parametrize("write", [
    lambda e: e.add_(1), lambda e: e.mul_(2), lambda e: e.sub_(1), lambda e: e.div_(2), lambda e: e.pow_(2),
    lambda e: e.__iadd__(1), lambda e: e.relu_(), lambda e: e.exp_(), lambda e: e.neg_(), lambda e: e.sigmoid_(),
    lambda e: e.clamp_(0, 1), lambda e: e.lerp_(torch.ones(3), 0.5), lambda e: e.addcmul_(torch.ones(3), torch.ones(3)),
    lambda e: e.copy_(torch.ones(3)), lambda e: e.copy_(torch.ones(1)), lambda e: e.uniform_(), lambda e: e.normal_(),
    lambda e: e.index_add_(0, torch.tensor([0]), torch.ones(1)), lambda e: e.scatter_(0, torch.tensor([0]), torch.ones(1)),
    lambda e: e.__setitem__(slice(None), torch.ones(3)), lambda e: e.__setitem__(slice(None), torch.tensor(1.0)),
    lambda e: e.detach().add_(1), lambda e: e[1:].add_(1), lambda e: e.unsqueeze(0).add_(1),
    lambda e: torch.zeros(3, 1).expand(3, 4).add_(1), lambda e: torch.broadcast_to(torch.zeros(1), (3,)).add_(1),
    lambda e: torch.zeros(1).expand_as(torch.ones(3)).add_(1),
    lambda e: torch.zeros(1, requires_grad=True).clone().expand(3).add_(1),
])
def test_writes_through_expanded_views_raise(write):
    with raises(RuntimeError, OVERLAP):
        write(expanded())


@pytest.mark.parametrize("write", [
    lambda e: e.fill_(1), lambda e: e.zero_(), lambda e: e.__setitem__(0, 1), lambda e: e.__setitem__(slice(None), 1),
    lambda e: e.__setitem__(0, torch.tensor(1.0)), lambda e: e.__setitem__(torch.tensor([True, False, True]), 1.0),
    lambda e: e.__setitem__(..., 1.0), lambda e: e.masked_fill_(torch.tensor([True, False, True]), 1.0),
    lambda e: e.index_put_((torch.tensor([0]),), torch.ones(1)), lambda e: e.copy_(e), lambda e: nn.init.zeros_(e),
])
def test_writes_pytorch_allows_on_expanded_views(write):
    write(expanded())


def test_overlap_is_a_layout_property():
    # Size-1 dims with stride 0 do not overlap; neither do empty views; copies are dense.
    assert torch.zeros(1).expand(1).add_(1).tolist() == [1.0]
    assert torch.zeros(3, 1).expand(3, 1).add_(1).tolist() == [[1.0]] * 3
    assert torch.zeros(1).expand(0).add_(1).tolist() == []
    assert expanded().clone().add_(1).tolist() == [1.0] * 3
    assert expanded().contiguous().add_(1).tolist() == [1.0] * 3
    # Reading from an expanded tensor is fine.
    assert torch.zeros(3).copy_(expanded()).tolist() == [0.0] * 3
    assert torch.zeros(3).add_(expanded()).tolist() == [0.0] * 3
    # A gradient that arrives expanded (a sum's) is stored dense, so it can be updated in place.
    a = torch.randn(3, requires_grad=True)
    a.sum().backward()
    assert a.grad.add_(1.0).tolist() == [2.0] * 3


# ----- inference mode ---------------------------------------------------------------------------

INPLACE_INFERENCE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
                     "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
                     "for more details.")
SAVED_INFERENCE = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                   "mode in computation tracked by autograd.")


def test_inference_tensors_inside_inference_mode():
    with torch.inference_mode():
        it = torch.ones(3)
        assert it.is_inference() and torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        assert it.view(3).is_inference() and (it * 2).is_inference()
        assert torch.ones(2).add_(1).tolist() == [2.0, 2.0]
        assert torch.ones(2, requires_grad=True).requires_grad
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert not torch.ones(1).is_inference()
    with torch.inference_mode(False):
        assert not torch.ones(1).is_inference() and not torch.is_inference_mode_enabled()

    @torch.inference_mode()
    def made():
        return torch.ones(1)
    assert made().is_inference()
    with torch.no_grad():
        assert not torch.ones(1).is_inference()


def test_inference_tensors_outside_inference_mode():
    with torch.inference_mode():
        it = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    assert it.is_inference() and not (it + 1).is_inference() and not it.clone().is_inference()
    assert it.view(3).is_inference() and it.detach().is_inference()
    for write in (lambda: it.add_(1), lambda: it.zero_(), lambda: it.__setitem__(0, 1.0),
                  lambda: it.copy_(torch.zeros(3)), lambda: it.fill_(2)):
        with raises(RuntimeError, INPLACE_INFERENCE):
            write()
    with torch.no_grad():
        with raises(RuntimeError, INPLACE_INFERENCE):
            it.exp_()
    for use in (lambda: w * it, lambda: it * w, lambda: w.unsqueeze(0).mm(it.unsqueeze(1)),
                lambda: F.linear(it, w.unsqueeze(0))):
        with raises(RuntimeError, SAVED_INFERENCE):
            use()
    with raises(RuntimeError, "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."):
        it.requires_grad_()
    # Not saved, or not recorded: allowed. (PyTorch has written some of the refused updates
    # before raising: start again from a fresh inference tensor.)
    with torch.inference_mode():
        it = torch.ones(3)
    assert (w + it).tolist() == [2.0, 2.0, 2.0]
    with torch.no_grad():
        assert (w * it).tolist() == [1.0, 1.0, 1.0]
    assert torch.ones(3).add_(it).tolist() == [2.0, 2.0, 2.0]
    # A module made in inference mode still trains on normal inputs.
    with torch.inference_mode():
        m = nn.Linear(3, 1)
    assert m.weight.is_inference() and m.weight.requires_grad
    m(torch.ones(3)).sum().backward()


# ----- detach_() of views -----------------------------------------------------------------------

DETACH_VIEW = "Can't detach views in-place. Use detach() instead."


def test_detach_in_place_of_views_raises():
    a = torch.ones(3, requires_grad=True)
    c = torch.ones(3)
    with torch.no_grad():
        v4 = a.view(3)
    for view in ((a * 2).view(3), a.view(3), a[:2], c.view(3), c[1:], v4, a.detach().view(3),
                 a.clone().unsqueeze(0), a.expand(2, 3), torch.ones(2, 2, requires_grad=True).t()):
        assert view._is_view()
        with raises(RuntimeError, DETACH_VIEW):
            view.detach_()


def test_detach_in_place_of_non_views():
    a = torch.ones(3, requires_grad=True)
    b = a * 2
    assert b.detach_() is b and not b.requires_grad and b.grad_fn is None
    leaf = torch.ones(2, requires_grad=True)
    assert not leaf.detach_().requires_grad
    assert not a.detach()._is_view()
    assert torch.ones(2, 2, requires_grad=True).t().reshape(4).detach_().tolist() == [1.0] * 4


# ----- NaN and infinity in sign, pow and gelu ---------------------------------------------------

SPECIAL = [nan, inf, -inf, 0.0, -0.0, 1.5, -2.0]
HALF_FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("dtype", HALF_FLOATS)
def test_sign_of_nan_and_negative_zero_is_zero(dtype):
    same(torch.tensor(SPECIAL, dtype=dtype).sign(), [0.0, 1.0, -1.0, 0.0, 0.0, 1.0, -1.0])
    same(torch.tensor(SPECIAL, dtype=dtype).sign_(), [0.0, 1.0, -1.0, 0.0, 0.0, 1.0, -1.0])


def test_sign_of_integers_and_bools():
    assert torch.tensor([-3, 0, 5]).sign().tolist() == [-1, 0, 1]
    assert torch.tensor([True, False]).sign().tolist() == [True, False]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_pow_half_is_sqrt(dtype):
    x = torch.tensor(SPECIAL, dtype=dtype)
    same((x ** 0.5)[:5], [nan, inf, nan, 0.0, -0.0])
    same((x ** -0.5)[:5], [nan, 0.0, nan, inf, -inf])
    same(x.pow(0.5)[:5], [nan, inf, nan, 0.0, -0.0])


def test_pow_half_in_float16_is_c_pow():
    x = torch.tensor(SPECIAL, dtype=torch.float16)
    same((x ** 0.5)[:5], [nan, inf, inf, 0.0, 0.0])
    same((x ** -0.5)[:5], [nan, 0.0, 0.0, inf, inf])


def test_pow_other_exponents_at_infinities():
    x = torch.tensor(SPECIAL)
    same((x ** (1 / 3))[:5], [nan, inf, inf, 0.0, 0.0])
    same((x ** 1.5)[:5], [nan, inf, inf, 0.0, 0.0])
    same((x ** 3)[:5], [nan, inf, -inf, 0.0, -0.0])
    same((x ** -1)[:5], [nan, 0.0, -0.0, inf, -inf])
    same(x ** 0, [1.0] * 7)
    # A tensor exponent is C's pow: (-inf) ** 0.5 is inf there.
    same(torch.tensor([-inf, -inf, 0.0, -0.0]) ** torch.tensor([0.5, 1.5, -1.0, -1.0]), [inf, inf, inf, -inf])
    same(2.0 ** torch.tensor([-inf, inf, nan]), [0.0, inf, nan])


def test_gelu_at_infinities():
    # PyTorch's scalar path (used for float64, float16, zero-dim and strided tensors) gives
    # gelu(inf) = inf; gelu(-inf) is -inf * 0 = NaN in every path. (Its vectorized float32 loop
    # gives NaN for +inf too; rstorch gives the limit.)
    for approximate in ("none", "tanh"):
        for dtype in (torch.float64, torch.float16):
            same(F.gelu(torch.tensor([inf, -inf, 0.0, -0.0], dtype=dtype), approximate=approximate), [inf, nan, 0.0, -0.0])
        assert F.gelu(torch.tensor(inf), approximate=approximate).item() == inf
        assert math.isnan(F.gelu(torch.tensor(-inf), approximate=approximate).item())
        strided = torch.full((3, 4), inf).t()
        assert F.gelu(strided, approximate=approximate).tolist() == [[inf] * 3] * 4
        assert math.isnan(F.gelu(torch.tensor([nan]), approximate=approximate).item())


# ----- isnan, isinf, isfinite, isposinf, isneginf, nan_to_num -------------------------------------

CLASSES = {
    "isnan": [True, False, False, False, False],
    "isinf": [False, True, True, False, False],
    "isfinite": [False, False, False, True, True],
    "isposinf": [False, True, False, False, False],
    "isneginf": [False, False, True, False, False],
}


@pytest.mark.parametrize("name", sorted(CLASSES))
@pytest.mark.parametrize("dtype", HALF_FLOATS)
def test_float_classes(name, dtype):
    v = torch.tensor([nan, inf, -inf, 0.0, 1.5], dtype=dtype)
    for got in (getattr(torch, name)(v), getattr(v, name)()):
        assert got.dtype == torch.bool and got.tolist() == CLASSES[name]
    assert getattr(torch, name)(torch.tensor(nan)).item() == CLASSES[name][0]
    assert getattr(torch, name)(v.clone().requires_grad_() if dtype.is_floating_point else v).tolist() == CLASSES[name]


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_float_classes_of_integers_and_bools(name):
    expected = name == "isfinite"
    assert getattr(torch, name)(torch.tensor([1, 2])).tolist() == [expected] * 2
    assert getattr(torch, name)(torch.tensor([True])).tolist() == [expected]
    assert getattr(torch.tensor([1]), name)().tolist() == [expected]
    with pytest.raises(TypeError):
        getattr(torch, name)(1.0)


def test_nan_to_num_defaults_per_dtype():
    v = [nan, inf, -inf, 0.0, 1.5]
    f32max, f64max = 3.4028234663852886e38, 1.7976931348623157e308
    assert torch.nan_to_num(torch.tensor(v)).tolist() == [0.0, f32max, -f32max, 0.0, 1.5]
    assert torch.tensor(v).nan_to_num().tolist() == [0.0, f32max, -f32max, 0.0, 1.5]
    assert torch.nan_to_num(torch.tensor(v, dtype=torch.float64)).tolist() == [0.0, f64max, -f64max, 0.0, 1.5]
    assert torch.nan_to_num(torch.tensor(v, dtype=torch.float16)).tolist() == [0.0, 65504.0, -65504.0, 0.0, 1.5]
    bmax = 3.3895313892515355e38
    assert torch.nan_to_num(torch.tensor(v, dtype=torch.bfloat16)).tolist() == [0.0, bmax, -bmax, 0.0, 1.5]
    assert torch.nan_to_num(torch.tensor(nan)).item() == 0.0
    r = torch.nan_to_num(torch.tensor([1, 2]))
    assert r.dtype == torch.int64 and r.tolist() == [1, 2]
    assert torch.nan_to_num(torch.tensor([True])).tolist() == [True]
    assert torch.nan_to_num(torch.tensor([1]), nan=2.5).tolist() == [1]


def test_nan_to_num_arguments():
    v = torch.tensor([nan, inf, -inf, 0.0, 1.5])
    f32max = 3.4028234663852886e38
    assert torch.nan_to_num(v, nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0, 0.0, 1.5]
    assert torch.nan_to_num(v, 9.0).tolist() == [9.0, f32max, -f32max, 0.0, 1.5]
    assert torch.nan_to_num(v, 9.0, 8.0, 7.0).tolist() == [9.0, 8.0, 7.0, 0.0, 1.5]
    assert torch.nan_to_num(v, nan=None).tolist() == [0.0, f32max, -f32max, 0.0, 1.5]
    assert torch.nan_to_num(v.half(), posinf=1e10).tolist() == [0.0, inf, -65504.0, 0.0, 1.5]
    x = v.clone()
    assert x.nan_to_num_() is x and x.tolist() == [0.0, f32max, -f32max, 0.0, 1.5]
    assert v.clone().nan_to_num_(1.0, 2.0, 3.0).tolist() == [1.0, 2.0, 3.0, 0.0, 1.5]
    assert torch.nan_to_num_(v.clone()).tolist() == [0.0, f32max, -f32max, 0.0, 1.5]
    with pytest.raises(TypeError):
        torch.nan_to_num(v, nan="a")


def test_nan_to_num_gradient():
    a = torch.tensor([nan, inf, -inf, 0.0, 1.5], requires_grad=True)
    out = torch.nan_to_num(a)
    assert type(out.grad_fn).__name__ == "NanToNumBackward0"
    out.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]


# ----- isclose, allclose ------------------------------------------------------------------------

A = [1.0, 2.0, nan, inf, -inf, 1e-9]
B = [1.0000001, 2.1, nan, inf, inf, 0.0]


def test_isclose_values():
    a, b = torch.tensor(A), torch.tensor(B)
    assert torch.isclose(a, b).tolist() == [True, False, False, True, False, True]
    assert a.isclose(b).tolist() == [True, False, False, True, False, True]
    assert torch.isclose(a, b, equal_nan=True).tolist() == [True, False, True, True, False, True]
    assert torch.isclose(a, b, rtol=0.1, atol=0.0).tolist() == [True, True, False, True, False, False]
    assert torch.isclose(a, b, 0.0, 1e-8).tolist() == [False, False, False, True, False, True]
    assert torch.isclose(torch.ones(2, 1), torch.ones(3)).tolist() == [[True] * 3] * 2
    assert torch.isclose(torch.tensor(1.0), torch.tensor(1.0)).item() is True
    assert torch.isclose(torch.tensor([1.0]), torch.tensor([100.0]), rtol=inf).tolist() == [True]
    assert torch.isclose(torch.tensor([1.0]), torch.tensor([inf]), rtol=inf).tolist() == [False]
    assert torch.isclose(a.clone().requires_grad_(), b).tolist() == [True, False, False, True, False, True]
    h = torch.isclose(torch.tensor([1.0, 1.001], dtype=torch.float16), torch.tensor([1.0005, 1.0], dtype=torch.float16))
    assert h.tolist() == [False, False]


def test_isclose_integers_and_bools():
    i = lambda v, dt=torch.int64: torch.tensor(v, dtype=dt)  # noqa: E731
    assert torch.isclose(i([1, 2, 3]), i([1, 3, 4]), rtol=0.5, atol=0.0).tolist() == [True, True, True]
    assert torch.isclose(i([1, 2]), i([1, 3])).tolist() == [True, False]
    assert torch.isclose(i([1, 2]), i([1, 3]), rtol=0.33, atol=0).tolist() == [True, False]
    assert torch.isclose(i([1, 2]), i([1, 3]), rtol=0.34, atol=0).tolist() == [True, True]
    assert torch.isclose(i([0, 250], torch.uint8), i([5, 255], torch.uint8), atol=5, rtol=0).tolist() == [True, True]
    assert torch.isclose(i([5, 255], torch.uint8), i([0, 250], torch.uint8), atol=5, rtol=0).tolist() == [True, True]
    assert torch.isclose(i([0, 250], torch.uint8), i([5, 255], torch.uint8), atol=4.9, rtol=0).tolist() == [False, False]
    assert torch.isclose(i([2**62]), i([2**62 + 1]), rtol=0, atol=0).tolist() == [False]
    # Integers compare in float32 once a tolerance is given.
    assert torch.isclose(i([100000001]), i([100000000]), rtol=0, atol=0.5).tolist() == [True]
    assert torch.isclose(torch.tensor([True, False]), torch.tensor([True, True])).tolist() == [True, False]
    assert torch.isclose(torch.tensor([True]), torch.tensor([False]), atol=1).tolist() == [True]


def test_isclose_errors():
    a = torch.tensor(A)
    with raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"):
        torch.isclose(torch.ones(2), torch.ones(3))
    with raises(RuntimeError, "Long did not match Float"):
        torch.isclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
    with raises(RuntimeError, "Float did not match Double"):
        torch.isclose(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
    with raises(RuntimeError, "Bool did not match Long"):
        torch.isclose(torch.tensor([True, False]), torch.tensor([1, 1]))
    with raises(RuntimeError, "BFloat16 did not match Half"):
        torch.isclose(torch.tensor([1.0], dtype=torch.bfloat16), torch.tensor([1.0], dtype=torch.float16))
    with raises(RuntimeError, "rtol must be greater than or equal to zero, but got -1"):
        torch.isclose(a, a, rtol=-1.0)
    with raises(RuntimeError, "atol must be greater than or equal to zero, but got -1"):
        torch.isclose(a, a, atol=-1.0)
    with raises(TypeError, "isclose(): argument 'other' (position 2) must be Tensor, not float"):
        torch.isclose(a, 1.0)


def test_allclose():
    assert torch.allclose(torch.tensor(A), torch.tensor(B)) is False
    assert torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.000001])) is True
    assert torch.tensor([1.0, 2.0]).allclose(torch.tensor([1.0, 2.000001])) is True
    assert torch.allclose(torch.tensor([nan]), torch.tensor([nan])) is False
    assert torch.allclose(torch.tensor([nan]), torch.tensor([nan]), equal_nan=True) is True
    assert torch.allclose(torch.ones(2, 1), torch.ones(3)) is True
    assert torch.allclose(torch.tensor([1, 2]), torch.tensor([1, 2])) is True
    assert torch.allclose(torch.ones(0), torch.ones(0)) is True
    assert torch.allclose(torch.tensor([True]), torch.tensor([True])) is True
    assert torch.allclose(torch.tensor([1.0]), torch.tensor([1.1]), 0.2, 0.0) is True
    assert torch.allclose(torch.tensor([1.0]), torch.tensor([1.1]), rtol=0.01, atol=0.2) is True
    with raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"):
        torch.allclose(torch.ones(2), torch.ones(3))
    with raises(RuntimeError, "Float did not match Double"):
        torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.float64))
    with raises(RuntimeError, "Long did not match Float"):
        torch.allclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
    with raises(TypeError, "allclose(): argument 'other' (position 2) must be Tensor, not float"):
        torch.allclose(torch.tensor([1.0]), 1.0)


def test_float_checks_from_numpy_data():
    arr = np.array([np.nan, 1.0])
    assert torch.isnan(torch.from_numpy(arr)).tolist() == [True, False]


@pytest.mark.skipif(not hasattr(torch, "wgpu") or not torch.wgpu.is_available(), reason="no wgpu adapter")
def test_checks_on_wgpu():
    x = torch.tensor([nan, inf, -inf, 0.0, -0.0, 1.5, -2.0])
    g = x.to("wgpu")
    for name in sorted(CLASSES):
        got = getattr(g, name)()
        assert got.device.type == "wgpu" and got.cpu().tolist() == getattr(x, name)().tolist()
    assert torch.tensor([1, 2]).to("wgpu").isfinite().cpu().tolist() == [True, True]
    same(g.nan_to_num().cpu(), x.nan_to_num().tolist())
    assert torch.isclose(g, g, equal_nan=True).cpu().tolist() == [True] * 7
    assert torch.allclose(g[3:], g[3:])
    same(g.sign().cpu(), [0.0, 1.0, -1.0, 0.0, 0.0, 1.0, -1.0])
    same((g ** 0.5).cpu()[:5], [nan, inf, nan, 0.0, -0.0])
    i = torch.tensor([5, -5, 7, -7]).to("wgpu")
    assert torch.fmod(i, torch.tensor([3, 3, -3, -3]).to("wgpu")).cpu().tolist() == [2, -2, 1, -1]
    assert torch.div(i, 2, rounding_mode="trunc").cpu().tolist() == [2, -2, 3, -3]
    with raises(RuntimeError, "ZeroDivisionError"):
        torch.fmod(i, 0)
    assert torch.full((100000,), 2.0, dtype=torch.float16).to("wgpu").mean().item() == 2.0
    with raises(RuntimeError, OVERLAP):
        torch.zeros(1).to("wgpu").expand(3).add_(1)
