"""The whole LSTM layer as one op (`_C._lstm_layer`, one MkldnnRnnLayerBackward0 node per layer and
direction): values against the steps run one by one with the fused cell, gradients by gradcheck
(float64, non-contiguous and broadcast operands, either direction, any subset of the outputs
used), second derivatives (create_graph recomputes the steps in recorded ops), the node nn.LSTM
records, half precision falling back to recorded steps, and the argument checks."""
import numpy as np
import pytest

import rstorch
from rstorch import _C, nn
from rstorch.autograd import gradcheck, gradgradcheck

from test_rnn_fused import _node_names

F64 = rstorch.float64


def _t(*shape, seed=0, dtype=F64):
    return rstorch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)


def steps_reference(gx, h, c, w_hh, b_hh, reverse):
    """The layer as PyTorch defines it, one step at a time with the fused cell."""
    outs = [None] * gx.shape[0]
    order = reversed(range(gx.shape[0])) if reverse else range(gx.shape[0])
    for t in order:
        gh = h @ w_hh.t() + (b_hh if b_hh is not None else 0)
        h, c = _C._lstm_cell(gx[t], gh, c)
        outs[t] = h
    return rstorch.stack(outs, 0), h, c


def _operands(steps=4, batch=3, hidden=2, seed=0, dtype=F64):
    gx = _t(steps, batch, 4 * hidden, seed=seed, dtype=dtype)
    h0, c0 = _t(batch, hidden, seed=seed + 1, dtype=dtype), _t(batch, hidden, seed=seed + 2, dtype=dtype)
    w_hh, b_hh = _t(4 * hidden, hidden, seed=seed + 3, dtype=dtype), _t(4 * hidden, seed=seed + 4, dtype=dtype)
    return [gx, h0, c0, w_hh, b_hh]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", [rstorch.float32, F64])
@pytest.mark.parametrize("bias", [True, False])
def test_values_match_the_steps(reverse, dtype, bias):
    ops = _operands(dtype=dtype)
    if not bias:
        ops[4] = None
    tol = 1e-6 if dtype is rstorch.float32 else 1e-14
    for got, want in zip(_C._lstm_layer(*ops, reverse=reverse), steps_reference(*ops, reverse)):
        assert got.dtype is dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


def _leaves(noncontiguous):
    ops = _operands(steps=3, batch=2, hidden=2)
    if noncontiguous:
        # gx a permuted view, the state a transposed one, the weight a column-major view, the
        # bias broadcast from a scalar-like row.
        gx = ops[0].permute(2, 1, 0).contiguous().permute(2, 1, 0)
        h0 = ops[1].t().contiguous().t()
        w_hh = ops[3].t().contiguous().t()
        ops = [gx, h0, ops[2], w_hh, ops[4]]
        assert not gx.is_contiguous() and not h0.is_contiguous() and not w_hh.is_contiguous()
    return [o.detach().requires_grad_(True) for o in ops]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_gradcheck(reverse, noncontiguous):
    leaves = _leaves(noncontiguous)
    assert gradcheck(lambda *a: _C._lstm_layer(*a, reverse=reverse), leaves)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_gradcheck_with_one_output_used(which):
    leaves = _leaves(False)
    assert gradcheck(lambda *a: _C._lstm_layer(*a)[which], leaves)


def test_gradcheck_broadcast_bias_and_no_bias():
    leaves = _leaves(True)
    row = _t(1, seed=9).detach().requires_grad_(True)
    # The bias expanded from one value: a stride-0 operand.
    assert gradcheck(lambda gx, h, c, w, r: _C._lstm_layer(gx, h, c, w, r.expand(8)), leaves[:4] + [row])
    assert gradcheck(lambda gx, h, c, w: _C._lstm_layer(gx, h, c, w, None, reverse=True), leaves[:4])


def test_second_derivatives():
    leaves = _leaves(False)
    assert gradgradcheck(lambda *a: _C._lstm_layer(*a), leaves)
    assert gradgradcheck(lambda *a: _C._lstm_layer(*a, reverse=True)[0], leaves)


def test_gradients_match_the_steps_and_reach_only_what_needs_them():
    ops = _operands(steps=5, batch=3, hidden=4, seed=3)
    wanted = [0, 3, 4]
    got_leaves = [o.detach().requires_grad_(i in wanted) for i, o in enumerate(ops)]
    ref_leaves = [o.detach().requires_grad_(i in wanted) for i, o in enumerate(ops)]
    out, h, c = _C._lstm_layer(*got_leaves)
    assert out.grad_fn.name() == "MkldnnRnnLayerBackward0" and h.grad_fn is out.grad_fn and c.grad_fn is out.grad_fn
    weights = [rstorch.linspace(-1, 1, t.numel(), dtype=F64).reshape(t.shape) for t in (out, h, c)]
    sum(((t * w).sum() for t, w in zip((out, h, c), weights))).backward()
    ref = steps_reference(*ref_leaves, False)
    sum(((t * w).sum() for t, w in zip(ref, weights))).backward()
    for i, (g, r) in enumerate(zip(got_leaves, ref_leaves)):
        if i in wanted:
            np.testing.assert_allclose(g.grad.numpy(), r.grad.numpy(), rtol=1e-12, atol=1e-12)
        else:
            assert g.grad is None
    with rstorch.no_grad():
        assert _C._lstm_layer(*got_leaves)[0].grad_fn is None


def test_lstm_records_one_node_per_layer_and_direction():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=F64)
    out, (h, c) = lstm(_t(5, 2, 3))
    names = _node_names(out)
    assert names.count("MkldnnRnnLayerBackward0") == 4
    assert "ThnnFusedLstmCellBackward0" not in names
    # A projection runs the steps one by one.
    proj = nn.LSTM(3, 4, proj_size=2, dtype=F64)
    assert "ThnnFusedLstmCellBackward0" in _node_names(proj(_t(5, 2, 3))[0])


def test_lstm_module_second_derivatives():
    lstm = nn.LSTM(2, 3, num_layers=2, bidirectional=True, dtype=F64)
    x = _t(3, 2, 2).requires_grad_(True)
    assert gradcheck(lambda x: lstm(x)[0], (x,))
    assert gradgradcheck(lambda x: lstm(x)[0], (x,))


def test_half_precision_runs_recorded_steps():
    ops = [o.to(rstorch.bfloat16) for o in _operands()]
    ops[0].requires_grad_(True)
    out, h, c = _C._lstm_layer(*ops)
    want = steps_reference(*(o.detach() for o in ops), False)
    assert out.dtype is rstorch.bfloat16
    assert "ThnnFusedLstmCellBackward0" in _node_names(out)
    for g, w in zip((out, h, c), want):
        np.testing.assert_allclose(g.float().detach().numpy(), w.float().numpy(), atol=2e-2)


def test_argument_checks():
    gx, h0, c0, w, b = _operands()
    with pytest.raises(RuntimeError, match="expected 3-D input gates"):
        _C._lstm_layer(gx[0], h0, c0, w, b)
    with pytest.raises(RuntimeError, match="do not fit"):
        _C._lstm_layer(gx, h0[:, :1], c0, w, b)
    with pytest.raises(RuntimeError, match="do not fit"):
        _C._lstm_layer(gx, h0, c0, w[:5], b)
    with pytest.raises(RuntimeError, match="expected a bias of size"):
        _C._lstm_layer(gx, h0, c0, w, b[:3])
    with pytest.raises(RuntimeError):
        _C._lstm_layer(gx, h0, c0.float(), w, b)
