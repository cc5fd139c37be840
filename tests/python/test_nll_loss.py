"""nll_loss's one-kernel path ((N, C) and (C,) float scores on the CPU) against a numpy
reference and against the loss composed from tensor ops, which other inputs take."""
import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck


def _reference(x, t, w, ignore_index, reduction):
    """PyTorch's definition: -w[t] * x[t] per row, 0 where ignored; mean divides by the
    summed weights of the rows kept."""
    x = x.reshape(-1, x.shape[-1])
    t = t.reshape(-1)
    w = np.ones(x.shape[1]) if w is None else w
    kept = t != ignore_index
    safe = np.where(kept, t, 0)
    coef = np.where(kept, w[safe], 0.0)
    losses = -x[np.arange(len(t)), safe] * coef
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / coef.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [rstorch.float32, rstorch.float64])
def test_matches_the_definition_and_the_composed_loss(reduction, weighted, dtype):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((7, 5))
    t_np = np.array([0, 4, 2, -100, 1, 4, 3])
    w_np = rng.random(5) + 0.5 if weighted else None
    x = rstorch.tensor(x_np, dtype=dtype, requires_grad=True)
    t = rstorch.from_numpy(t_np)
    w = None if w_np is None else rstorch.tensor(w_np, dtype=dtype)
    got = F.nll_loss(x, t, weight=w, reduction=reduction)
    assert got.dtype == dtype and got.grad_fn.name() == "NllLossBackward0"
    tol = 1e-5 if dtype == rstorch.float32 else 1e-12
    np.testing.assert_allclose(got.detach().numpy(), _reference(x_np, t_np, w_np, -100, reduction), rtol=tol, atol=tol)
    # Scores with a trailing spatial dim of 1 take the composed path (PyTorch's 2-d loss): the
    # same loss and gradient.
    g = rstorch.tensor(rng.standard_normal(got.shape), dtype=dtype)
    got.backward(g)
    x_c = x.detach().clone().unsqueeze(2).requires_grad_()
    composed = F.nll_loss(x_c, t.unsqueeze(1), weight=w, reduction=reduction)
    assert composed.grad_fn.name() == ("ViewBackward0" if reduction == "none" else "NllLoss2DBackward0")
    np.testing.assert_allclose(got.detach().numpy(), composed.detach().numpy().reshape(got.shape), rtol=tol, atol=tol)
    composed.backward(g.reshape(composed.shape))
    np.testing.assert_allclose(x.grad.numpy(), x_c.grad.numpy()[:, :, 0], rtol=tol, atol=tol)


def test_a_weight_that_needs_a_gradient_is_refused():
    # As PyTorch: the loss is not differentiable with respect to its class weights.
    w = rstorch.ones(5, requires_grad=True)
    with pytest.raises(RuntimeError, match="The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'"):
        F.nll_loss(rstorch.zeros(2, 5), rstorch.tensor([0, 1]), weight=w)
    with pytest.raises(RuntimeError, match="'nll_loss2d_forward' is not differentiable"):
        F.nll_loss(rstorch.zeros(2, 5, 3), rstorch.zeros(2, 3, dtype=rstorch.long), weight=w)
    with rstorch.no_grad():
        assert F.nll_loss(rstorch.zeros(2, 5), rstorch.tensor([0, 1]), weight=w).item() == 0.0


def test_one_dim_scores_and_a_zero_dim_target():
    x = rstorch.tensor([0.1, -2.0, 0.5], requires_grad=True)
    loss = F.nll_loss(x, rstorch.tensor(1), reduction="none")
    assert loss.shape == () and loss.item() == pytest.approx(2.0)
    loss.backward()
    assert x.grad.tolist() == [0.0, -1.0, 0.0]


def test_every_target_ignored_gives_nan_mean_and_zero_gradient():
    x = rstorch.zeros(2, 3, requires_grad=True)
    loss = F.nll_loss(x, rstorch.tensor([-100, -100]))
    assert np.isnan(loss.item())
    F.nll_loss(x, rstorch.tensor([-100, -100]), reduction="sum").backward()
    assert x.grad.abs().sum().item() == 0.0


def test_gradients_of_gradients():
    x = rstorch.tensor(np.random.default_rng(1).standard_normal((4, 3)), requires_grad=True)
    t = rstorch.tensor([2, 0, 1, 2])
    w = rstorch.tensor([0.3, 1.0, 2.0], dtype=rstorch.float64)
    for reduction in ("mean", "sum", "none"):
        f = lambda x: F.nll_loss(x.t().t() * x, t, weight=w, ignore_index=0, reduction=reduction)
        assert gradcheck(f, [x])
        assert gradgradcheck(f, [x])


def test_bad_targets_and_weights_raise_pytorchs_errors():
    x = rstorch.zeros(2, 3)
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        F.nll_loss(x, rstorch.tensor([0, 3]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds."):
        F.nll_loss(x, rstorch.tensor([-1, 0]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 3 classes"):
        F.nll_loss(x, rstorch.tensor([0, 1]), weight=rstorch.ones(4))
    with pytest.raises(ValueError, match="Expected input batch_size"):
        F.nll_loss(x, rstorch.tensor([0, 1, 2]))


def test_a_second_backward_without_retain_graph_fails():
    x = rstorch.zeros(2, 3, requires_grad=True)
    loss = F.nll_loss(x, rstorch.tensor([0, 1]))
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


DEVICES = ["cpu"] + ["wgpu"] * rstorch.wgpu.is_available()


@pytest.mark.parametrize("device", DEVICES)
def test_a_mean_over_no_weight_is_nan_and_ignored_rows_get_no_gradient(device):
    """As PyTorch computes it: the loss is NaN, the rows it counts get NaN gradients at their
    targets, the ignored rows exact zeros."""
    x = rstorch.tensor([[0.1, 0.2, 0.3], [0.3, 0.1, 0.0]], device=device, requires_grad=True)
    loss = F.nll_loss(x, rstorch.tensor([-100, -100], device=device))
    loss.backward()
    assert np.isnan(loss.item())
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    x.grad = None
    loss = F.nll_loss(x, rstorch.tensor([0, -100], device=device), weight=rstorch.tensor([0.0, 1.0, 2.0], device=device))
    loss.backward()
    grad = x.grad.tolist()
    assert np.isnan(loss.item()) and np.isnan(grad[0][0])
    assert grad[0][1:] == [0.0, 0.0] and grad[1] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_no_rows(device):
    """A batch of no rows: the mean is NaN, the sum +0.0, no reduction an empty loss."""
    for reduction, want in [("mean", "nan"), ("sum", [0.0]), ("none", [])]:
        x = rstorch.zeros(0, 3, device=device, requires_grad=True)
        loss = F.nll_loss(x, rstorch.zeros(0, dtype=rstorch.int64, device=device), reduction=reduction)
        loss.sum().backward()
        got = loss.reshape(-1).tolist()
        if want == "nan":
            assert np.isnan(got[0])
        else:
            assert got == want and all(np.copysign(1.0, v) == 1.0 for v in got)
        assert x.grad.shape == (0, 3)


# PyTorch 2.15's checks of nll_loss, in its order and wording (recorded from it).
NLL_ERRORS = {
    "target_size": (lambda: F.nll_loss(rstorch.ones(2, 3, 4), rstorch.ones(2, 5, dtype=rstorch.long)), RuntimeError,
                    "Expected target size [2, 4], got [2, 5]"),
    "batch_size": (lambda: F.nll_loss(rstorch.ones(2, 3), rstorch.ones(3, dtype=rstorch.long)), ValueError,
                   "Expected input batch_size (2) to match target batch_size (3)."),
    "multi_target": (lambda: F.nll_loss(rstorch.ones(2, 3), rstorch.ones(2, 1, dtype=rstorch.long)), RuntimeError,
                     "0D or 1D target tensor expected, multi-target not supported"),
    "zero_dim_scores": (lambda: F.nll_loss(rstorch.tensor(1.0), rstorch.tensor(0)), ValueError,
                        "Expected 1 or more dimensions (got 0)"),
    "zero_dim_target_for_rows": (lambda: F.nll_loss(rstorch.ones(2, 3), rstorch.tensor(0)), ValueError,
                                 "Expected input batch_size (2) to match target batch_size (0)."),
    "spatial_target_out_of_bounds": (lambda: F.nll_loss(rstorch.ones(2, 3, 4), rstorch.full((2, 4), 5, dtype=rstorch.long)),
                                     IndexError, "Target 5 is out of bounds."),
    "half_target_negative": (lambda: F.nll_loss(rstorch.ones(2, 3).half(), rstorch.tensor([0, -2])), IndexError,
                             "Target -2 is out of bounds."),
    "spatial_weight_size": (lambda: F.nll_loss(rstorch.ones(2, 3, 4), rstorch.zeros(2, 4, dtype=rstorch.long),
                                               weight=rstorch.ones(2)), RuntimeError,
                            "weight tensor should be defined either for all or no classes"),
    "int32_target": (lambda: F.nll_loss(rstorch.ones(2, 3), rstorch.zeros(2, dtype=rstorch.int32)), RuntimeError,
                     "expected target dtype to be Long or Byte, but got Int"),
}


@pytest.mark.parametrize("case", list(NLL_ERRORS))
def test_bad_arguments_raise_pytorchs_error(case):
    call, cls, message = NLL_ERRORS[case]
    with pytest.raises(cls) as info:
        call()
    assert message in str(info.value)


def test_spatial_scores_as_pytorch():
    x3 = rstorch.arange(24.).reshape(2, 3, 4).requires_grad_()
    t3 = rstorch.tensor([[0, 1, 2, 1], [2, 2, 0, -100]])
    mean = F.nll_loss(x3, t3)
    assert (mean.item(), mean.grad_fn.name()) == (-11.0, "NllLoss2DBackward0")
    none = F.nll_loss(x3, t3, reduction="none")
    assert none.grad_fn.name() == "ViewBackward0"
    assert [[str(v) for v in row] for row in none.tolist()] == \
        [["-0.0", "-5.0", "-10.0", "-7.0"], ["-20.0", "-21.0", "-14.0", "0.0"]]
    mean.backward()
    np.testing.assert_allclose(x3.grad.sum(1).numpy(), [[-1 / 7] * 4, [-1 / 7] * 3 + [0.0]], rtol=1e-6)
    x4 = rstorch.arange(48.).reshape(2, 3, 2, 4).requires_grad_()
    t4 = rstorch.tensor([[[0, 1, 2, 1], [2, 2, 0, 1]], [[1, 1, 1, 1], [0, 0, 0, 2]]])
    total = F.nll_loss(x4, t4, weight=rstorch.tensor([1., 2., 3.]), reduction="sum")
    assert (total.item(), total.grad_fn.name()) == (-749.0, "NllLoss2DBackward0")
    half = F.nll_loss(rstorch.arange(6.).reshape(2, 3).half().requires_grad_(), rstorch.tensor([2, 0]))
    assert (half.item(), half.dtype, half.grad_fn.name()) == (-2.5, rstorch.float16, "NllLossBackward0")
    assert F.nll_loss(rstorch.ones(3), rstorch.ones(1, dtype=rstorch.long)).item() == -1.0
    assert F.nll_loss(rstorch.ones(2, 3), rstorch.zeros(2, dtype=rstorch.uint8)).item() == -1.0
