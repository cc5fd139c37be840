"""The margin, embedding, likelihood and CTC losses, pdist and AdaptiveLogSoftmaxWithLoss against PyTorch's
values, gradients and errors (tests/record_losses2.py -> fixtures/losses2.json), gradcheck in float64, the
module forms, and gumbel_softmax's laws (its draws cannot match PyTorch's generator)."""
import json
import math
import pathlib
import warnings

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck

from _wgpu_helpers import close, needs_gpu

DATA = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "losses2.json").read_text())
DISTANCES = {"cosine": lambda a, b: 1.0 - F.cosine_similarity(a, b), "l1": lambda a, b: (a - b).abs().sum(-1)}


def _decode(a, leaves):
    if not (isinstance(a, dict) and "tensor" in a):
        return a
    t = rstorch.tensor(a["tensor"], dtype=getattr(rstorch, a["dtype"]))
    if a.get("requires_grad"):
        t.requires_grad_(True)
    if not a["grad"]:
        return t
    t.requires_grad_(True)
    leaves.append(t)
    return t.log_softmax(-1) if a["logits"] else t


def _call(case):
    leaves = []
    args = [_decode(a, leaves) for a in case["args"]]
    kwargs = {k: _decode(v, leaves) for k, v in case["kwargs"].items()}
    if "distance" in kwargs:
        kwargs["distance_function"] = DISTANCES[kwargs.pop("distance")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(F, case["fn"])(*args, **kwargs), leaves


def _close(got, want, tol):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


def _case_id(case):
    return f"{case['fn']}-{case['kwargs'].get('reduction', '')}"


@pytest.mark.parametrize("case", DATA["cases"], ids=_case_id)
def test_values_and_gradients_match_pytorch(case):
    out, leaves = _call(case)
    tol = 1e-5 if out.dtype == rstorch.float32 else 1e-10
    _close(out.tolist(), case["out"], tol)
    gout = rstorch.tensor([1 + k / 4 for k in range(out.numel())], dtype=out.dtype).reshape(tuple(out.shape))
    out.backward(gout)
    for leaf, want in zip(leaves, case["grads"], strict=True):
        _close(leaf.grad.tolist(), want, tol)


@pytest.mark.parametrize("case", DATA["errors"], ids=lambda c: c["fn"])
def test_errors_match_pytorch(case):
    with pytest.raises(Exception) as info:
        _call(case)
    assert type(info.value).__name__ == case["error"]
    # Sizes print as the framework's own Size type.
    assert str(info.value) == case["message"].replace("torch.Size", "rstorch.Size")


@pytest.mark.parametrize("case", DATA["adaptive"], ids=lambda c: str(c["cutoffs"]))
def test_adaptive_log_softmax_matches_pytorch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch too warns of the zero-width projection
        m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, case["cutoffs"], div_value=case["div_value"],
                                          head_bias=case["head_bias"]).double()
    shapes = {k: v.shape for k, v in m.state_dict().items()}  # a zero-width projection lists as []
    m.load_state_dict({k: rstorch.tensor(v, dtype=rstorch.float64).reshape(shapes[k])
                       for k, v in case["state"].items()})
    x = rstorch.tensor(case["x"], dtype=rstorch.float64, requires_grad=True)
    y = rstorch.tensor(case["y"])
    res = m(x, y)
    assert res._fields == ("output", "loss")
    _close(res.output.tolist(), case["output"], 1e-10)
    _close(res.loss.item(), case["loss"], 1e-10)
    res.loss.backward()
    _close(x.grad.tolist(), case["x_grad"], 1e-10)
    _close(m.head.weight.grad.tolist(), case["head_grad"], 1e-10)
    single = m(x[1].detach(), y[1])
    assert single.output.dim() == 0
    _close(single.output.item(), case["single_output"], 1e-10)
    _close(single.loss.item(), case["single_loss"], 1e-10)
    _close(m.log_prob(x.detach()).tolist(), case["log_prob"], 1e-10)
    assert m.predict(x.detach() * 3).tolist() == case["predict"]


def test_adaptive_log_softmax_checks():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])
    for bad in ([6, 3], [0, 3], [3, 10], [3, 3], [2.5]):
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
            nn.AdaptiveLogSoftmaxWithLoss(8, 10, bad)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\], but values in range \[0, 10\]"):
        m(rstorch.randn(2, 8), rstorch.tensor([0, 10]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(rstorch.randn(3, 8), rstorch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not supported"):
        m(rstorch.randn(3, 8), rstorch.zeros(3, 1, dtype=rstorch.int64))


GRADCHECKS = [
    ("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, rstorch.tensor([1.0, -1, -1]),
                                                                   margin=-0.9, reduction="none"), [(3, 4)] * 2),
    ("hinge_embedding_loss", lambda a: F.hinge_embedding_loss(a, rstorch.tensor([1.0, -1, -1, 1]), margin=3.0),
     [(4,)]),
    ("margin_ranking_loss", lambda a, b: F.margin_ranking_loss(a, b, rstorch.tensor([1.0, -1, 1, -1]), margin=4.0),
     [(4,)] * 2),
    ("soft_margin_loss", lambda a: F.soft_margin_loss(a, rstorch.tensor([1.0, -1, 1, -1]), reduction="sum"), [(4,)]),
    ("multi_margin_loss", lambda a: F.multi_margin_loss(a, rstorch.tensor([0, 2, 1]), p=2, margin=5.0), [(3, 4)]),
    ("multilabel_margin_loss", lambda a: F.multilabel_margin_loss(
        a, rstorch.tensor([[3, 0, -1, 1], [1, -1, 0, 0], [0, 1, 2, 3]]), reduction="none"), [(3, 4)]),
    ("multilabel_soft_margin_loss", lambda a, t: F.multilabel_soft_margin_loss(a, t), [(3, 4)] * 2),
    ("poisson_nll_loss", lambda a: F.poisson_nll_loss(a, rstorch.tensor([0.0, 2.0, 3.5]), full=True), [(3,)]),
    ("gaussian_nll_loss", lambda a, t, v: F.gaussian_nll_loss(a, t, v.abs() + 0.5, full=True), [(3, 2)] * 3),
    ("triplet_margin_loss", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=9.0, p=3, swap=True),
     [(3, 4)] * 3),
    ("triplet_margin_with_distance_loss", lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=DISTANCES["cosine"], margin=5.0), [(3, 4)] * 3),
    ("pdist", lambda a: F.pdist(a, 2), [(4, 3)]),
    ("ctc_loss", lambda a: F.ctc_loss(a.log_softmax(2), rstorch.tensor([[1, 1], [2, 0]]), [4, 3], [2, 1]),
     [(4, 2, 3)]),
    ("linear_cross_entropy", lambda x, w, b: F.linear_cross_entropy(x, w, rstorch.tensor([[0, 2], [1, 1]]),
                                                                    linear_bias=b, label_smoothing=0.1),
     [(2, 3), (3, 2, 3), (3, 2)]),
    ("ctc_loss_log_probs", lambda a: F.ctc_loss(a, rstorch.tensor([1, 2, 2]), [3, 2], [2, 1], reduction="sum"),
     [(3, 2, 3)]),
]


@pytest.mark.parametrize("fn,shapes", [(f, s) for _, f, s in GRADCHECKS], ids=[n for n, _, _ in GRADCHECKS])
def test_gradcheck(fn, shapes):
    rstorch.manual_seed(0)
    inputs = [rstorch.randn(*s, dtype=rstorch.float64, requires_grad=True) for s in shapes]
    assert gradcheck(fn, inputs)


def test_ctc_zero_infinity_zeroes_the_loss_and_its_gradient():
    logits = rstorch.randn(3, 1, 4, dtype=rstorch.float64, requires_grad=True)
    args = (logits.log_softmax(2), rstorch.tensor([[1, 1, 1]]), [3], [3])
    assert F.ctc_loss(*args, reduction="sum").item() == math.inf
    loss = F.ctc_loss(*args, reduction="sum", zero_infinity=True)
    loss.backward()
    assert loss.item() == 0 and logits.grad.abs().sum().item() == 0


def test_modules_match_their_functions():
    rstorch.manual_seed(0)
    x, y = rstorch.randn(4, 5), rstorch.randn(4, 5)
    t = rstorch.tensor([1.0, -1, 1, -1])
    w = rstorch.rand(5)
    cls = rstorch.tensor([0, 3, 2, 4])
    pairs = [
        (nn.CosineEmbeddingLoss(margin=0.2, reduction="sum"), (x, y, t),
         F.cosine_embedding_loss(x, y, t, margin=0.2, reduction="sum")),
        (nn.HingeEmbeddingLoss(margin=0.5), (x[:, 0], t), F.hinge_embedding_loss(x[:, 0], t, margin=0.5)),
        (nn.MarginRankingLoss(0.1), (x[:, 0], y[:, 0], t), F.margin_ranking_loss(x[:, 0], y[:, 0], t, 0.1)),
        (nn.SoftMarginLoss(reduction="none"), (x[:, 0], t), F.soft_margin_loss(x[:, 0], t, reduction="none")),
        (nn.MultiMarginLoss(p=2, margin=0.5, weight=w), (x, cls), F.multi_margin_loss(x, cls, 2, 0.5, w)),
        (nn.MultiLabelMarginLoss(), (x, rstorch.tensor([[0, 2, -1, 0, 0]] * 4)),
         F.multilabel_margin_loss(x, rstorch.tensor([[0, 2, -1, 0, 0]] * 4))),
        (nn.MultiLabelSoftMarginLoss(weight=w), (x, (y > 0).double()),
         F.multilabel_soft_margin_loss(x, (y > 0).double(), weight=w)),
        (nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3), (x.abs(), y.abs() * 3),
         F.poisson_nll_loss(x.abs(), y.abs() * 3, log_input=False, full=True, eps=1e-3)),
        (nn.GaussianNLLLoss(full=True, eps=0.1), (x, y, x.abs()), F.gaussian_nll_loss(x, y, x.abs(), True, 0.1)),
        (nn.TripletMarginLoss(margin=2.0, p=1, swap=True), (x, y, y.flip(0)),
         F.triplet_margin_loss(x, y, y.flip(0), 2.0, 1, swap=True)),
        (nn.TripletMarginWithDistanceLoss(margin=2.0), (x, y, y.flip(0)),
         F.triplet_margin_with_distance_loss(x, y, y.flip(0), margin=2.0)),
        (nn.CTCLoss(blank=4, reduction="sum"), (x.reshape(4, 1, 5).log_softmax(2), rstorch.tensor([[1, 2]]), [4], [2]),
         F.ctc_loss(x.reshape(4, 1, 5).log_softmax(2), rstorch.tensor([[1, 2]]), [4], [2], blank=4, reduction="sum")),
        (nn.NLLLoss2d(), (x.log_softmax(1), cls), F.nll_loss(x.log_softmax(1), cls)),
    ]
    for module, args, want in pairs:
        assert rstorch.allclose(module(*args), want), type(module).__name__
    assert isinstance(nn.NLLLoss2d(), nn.NLLLoss)
    assert nn.MultiMarginLoss(weight=w).weight is not None and "weight" in nn.MultiMarginLoss(weight=w).state_dict()


def test_module_arguments_as_pytorch():
    assert nn.CTCLoss().blank == 0 and nn.CTCLoss().zero_infinity is False
    assert nn.PoissonNLLLoss().eps == 1e-8 and nn.PoissonNLLLoss().log_input is True
    assert nn.GaussianNLLLoss().eps == 1e-6 and nn.TripletMarginLoss().p == 2.0
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert nn.SoftMarginLoss(size_average=False).reduction == "sum"
    with pytest.raises(TypeError):
        nn.GaussianNLLLoss(True)  # full and eps are keyword-only
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="expected weight to be None or 1D tensor, got 2D instead"):
        nn.MultiMarginLoss(weight=rstorch.ones(2, 2))
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0, got 0 instead"):
        nn.TripletMarginLoss(margin=0)
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=-1)


@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_laws(dim):
    rstorch.manual_seed(0)
    logits = rstorch.tensor([[0.0, 1.0, 2.0], [2.0, 0.0, -1.0]], dtype=rstorch.float64, requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5, dim=dim)
    np.testing.assert_allclose(soft.sum(dim).tolist(), [1.0] * soft.shape[1 - (dim % 2)], rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True, dim=dim)
    assert sorted(set(hard.detach().reshape(-1).tolist())) == [0.0, 1.0]
    assert hard.sum(dim).tolist() == [1.0] * hard.shape[1 - (dim % 2)]
    # Straight-through: a gradient reaches the logits though the forward value is a one-hot.
    ranks = rstorch.arange(logits.shape[dim], dtype=rstorch.float64)
    (hard * (ranks.reshape(1, 3) if dim else ranks.reshape(2, 1))).sum().backward()
    assert logits.grad.abs().sum().item() > 0
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        F.gumbel_softmax(logits, eps=1e-5)


def test_gumbel_softmax_samples_follow_the_softmax():
    # P(argmax of the Gumbel-perturbed logits = k) = softmax(logits)[k].
    rstorch.manual_seed(1)
    logits = rstorch.tensor([0.0, 1.0, -1.0, 0.5])
    counts = F.gumbel_softmax(logits.expand(20000, 4), hard=True).sum(0) / 20000
    np.testing.assert_allclose(counts.tolist(), logits.softmax(0).tolist(), atol=0.015)


def test_linear_cross_entropy_module_and_options():
    rstorch.manual_seed(0)
    m = nn.LinearCrossEntropyLoss(4, 5, out_features=(3,), bias=True, label_smoothing=0.1,
                                  options=nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    assert tuple(m.linear.weight.shape) == (15, 4)
    x, y = rstorch.randn(6, 4), rstorch.randint(0, 5, (6, 3))
    want = F.cross_entropy(F.linear(x, m.linear.weight, m.linear.bias).reshape(6, 5, 3), y, label_smoothing=0.1)
    assert rstorch.allclose(m(x, y), want)
    assert "in_features=4, num_classes=5, out_features=(3,), bias=True, reduction=mean" in repr(m)
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(5,\), got \(4,\)"):
        nn.LinearCrossEntropyLoss(4, 5, weight=rstorch.ones(4))
    with pytest.raises(RuntimeError, match=r"expected label_smoothing to be in range \[0, 1\], got 1.5"):
        nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5)
    with pytest.raises(ValueError, match="invalid acc_policy: 'x'; expected one of 'accurate', 'compact', 'auto'"):
        nn.LinearCrossEntropyOptions(acc_policy="x")
    with pytest.raises(ValueError, match="invalid chunking_method: 'aspect_ratio:0'"):
        nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:0")
    with pytest.raises(ValueError, match="batch_chunk_size must be positive int or None, got 0"):
        nn.LinearCrossEntropyOptions(batch_chunk_size=0)
    assert nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:4").acc_policy == "auto"


def test_torch_pdist_is_the_functional_one():
    assert rstorch.pdist is F.pdist
    assert rstorch.pdist(rstorch.eye(3, dtype=rstorch.float64), p=1).tolist() == [2.0, 2.0, 2.0]


@needs_gpu
def test_losses_run_on_wgpu_like_on_the_cpu():
    # The composites make their constants on the input's device (CTC's label bookkeeping moves there once).
    rstorch.manual_seed(0)
    x, y = rstorch.randn(4, 5), rstorch.randn(4, 5)
    sign, cls = rstorch.tensor([1.0, -1, 1, -1]), rstorch.tensor([0, 3, 2, 4])
    calls = [
        lambda x, y, s, c: F.cosine_embedding_loss(x, y, s, margin=0.1),
        lambda x, y, s, c: F.multi_margin_loss(x, c, p=2),
        lambda x, y, s, c: F.multilabel_margin_loss(x, rstorch.tensor([[0, 2, -1, 0, 0]] * 4).to(x.device)),
        lambda x, y, s, c: F.poisson_nll_loss(x, y.abs(), full=True),
        lambda x, y, s, c: F.gaussian_nll_loss(x, y, y.abs()),
        lambda x, y, s, c: F.triplet_margin_loss(x, y, y.flip(0), swap=True),
        lambda x, y, s, c: F.pdist(x),
        lambda x, y, s, c: F.ctc_loss(x.reshape(4, 1, 5).log_softmax(2), c[1:3].reshape(1, 2), [4], [2]),
    ]
    for call in calls:
        want = call(x, y, sign, cls)
        close(call(x.to("wgpu"), y.to("wgpu"), sign.to("wgpu"), cls.to("wgpu")), want)


def test_legacy_reduction_flags_warn_once_as_in_pytorch():
    x, t = rstorch.randn(3), rstorch.tensor([1.0, -1, 1])
    for call in (lambda: F.soft_margin_loss(x, t, size_average=False), lambda: F.mse_loss(x, t, size_average=False),
                 lambda: nn.MultiMarginLoss(size_average=False), lambda: nn.MSELoss(size_average=False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [str(w.message) for w in caught] == [
            "size_average and reduce args will be deprecated, please use reduction='sum' instead."]
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert F.soft_margin_loss(x, t, reduce=False).shape == (3,)
