"""The fused recurrent cell steps (`_C._lstm_cell`, `_C._gru_cell`) that LSTM, GRU and their cells
run per time step: values against the composite step written in tensor ops, gradients by
gradcheck (float64, non-contiguous operands, one output's gradient missing), second derivatives
(create_graph runs the backward in tensor ops), the node the layers record, the argument checks,
and the composite fallback on wgpu."""
import numpy as np
import pytest

import rstorch
from rstorch import _C, nn
from rstorch.autograd import gradcheck, gradgradcheck

from _wgpu_helpers import close, needs_gpu

F64 = rstorch.float64


def _t(*shape, seed=0, dtype=F64):
    return rstorch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)


def lstm_reference(gx, gh, c):
    i, f, g, o = (gx + gh).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def gru_reference(gx, gh, h):
    x_r, x_z, x_n = gx.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return n + z * (h - n)


def _noncontiguous(*shape, seed):
    """A float64 leaf that is a transposed view (the kernels must read it densely)."""
    return _t(*reversed(shape), seed=seed).t().detach().requires_grad_(True)


@pytest.mark.parametrize("dtype", [rstorch.float32, rstorch.float64])
def test_values_match_the_composite_step(dtype):
    gx, gh, c = _t(5, 28, seed=0, dtype=dtype), _t(5, 28, seed=1, dtype=dtype), _t(5, 7, seed=2, dtype=dtype)
    tol = 1e-6 if dtype is rstorch.float32 else 1e-14
    for got, want in zip(_C._lstm_cell(gx, gh, c), lstm_reference(gx, gh, c)):
        assert got.dtype is dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    gx, gh = gx[:, :21], gh[:, :21]
    np.testing.assert_allclose(_C._gru_cell(gx, gh, c).numpy(), gru_reference(gx, gh, c).numpy(), rtol=tol, atol=tol)


def test_lstm_cell_gradcheck_noncontiguous():
    gx, gh, c = _noncontiguous(3, 8, seed=0), _noncontiguous(3, 8, seed=1), _noncontiguous(3, 2, seed=2)
    assert not gx.is_contiguous()
    assert gradcheck(lambda *a: _C._lstm_cell(*a), (gx, gh, c))
    # Only h' used (the last step's c is dropped), and only c' used.
    assert gradcheck(lambda *a: _C._lstm_cell(*a)[0], (gx, gh, c))
    assert gradcheck(lambda *a: _C._lstm_cell(*a)[1], (gx, gh, c))


def test_gru_cell_gradcheck_noncontiguous():
    gx, gh, h = _noncontiguous(3, 6, seed=0), _noncontiguous(3, 6, seed=1), _noncontiguous(3, 2, seed=2)
    assert gradcheck(lambda *a: _C._gru_cell(*a), (gx, gh, h))


def test_second_derivatives():
    leaf = lambda *shape, seed: _t(*shape, seed=seed).requires_grad_(True)  # noqa: E731
    assert gradgradcheck(lambda *a: _C._lstm_cell(*a), (leaf(2, 8, seed=0), leaf(2, 8, seed=1), leaf(2, 2, seed=2)))
    assert gradgradcheck(lambda *a: _C._gru_cell(*a), (leaf(2, 6, seed=0), leaf(2, 6, seed=1), leaf(2, 2, seed=2)))


def test_gradients_reach_only_what_needs_them():
    gx, gh, c = _t(2, 8, seed=0).requires_grad_(True), _t(2, 8, seed=1), _t(2, 2, seed=2)
    h, c1 = _C._lstm_cell(gx, gh, c)
    assert h.grad_fn.name() == "ThnnFusedLstmCellBackward0" and c1.grad_fn is h.grad_fn
    (h.sum() + c1.sum()).backward()
    assert gx.grad is not None and gh.grad is None and c.grad is None
    with rstorch.no_grad():
        assert _C._gru_cell(gx[:, :6], gh[:, :6], c).grad_fn is None


def test_layers_record_one_cell_node_per_step():
    lstm = nn.LSTM(3, 4, num_layers=2, dtype=F64)
    out, (h, c) = lstm(_t(5, 2, 3))
    names, seen, stack = [], set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(f for f, _ in node.next_functions)
    assert names.count("ThnnFusedLstmCellBackward0") == 10
    assert not any(n.startswith(("SigmoidBackward", "TanhBackward")) for n in names)
    gru = nn.GRUCell(3, 4, dtype=F64)
    assert gru(_t(2, 3)).grad_fn.name() == "ThnnFusedGruCellBackward0"


def test_argument_checks():
    with pytest.raises(RuntimeError, match="expected input_gates of size"):
        _C._lstm_cell(_t(2, 7), _t(2, 8), _t(2, 2))
    with pytest.raises(RuntimeError, match="expected hidden_gates of size"):
        _C._gru_cell(_t(2, 6), _t(2, 8), _t(2, 2))
    with pytest.raises(RuntimeError, match="one dtype"):
        _C._lstm_cell(_t(2, 8), _t(2, 8), _t(2, 2, dtype=rstorch.float32))


def test_half_precision_runs_the_composite_step():
    gx, gh, c = (_t(2, 8, seed=s, dtype=rstorch.bfloat16) for s in range(3))
    c = c[:, :2]
    h, c1 = _C._lstm_cell(gx, gh, c)
    want_h, want_c = lstm_reference(gx, gh, c)
    assert h.dtype is rstorch.bfloat16
    np.testing.assert_allclose(h.float().numpy(), want_h.float().numpy(), atol=1e-2)
    np.testing.assert_allclose(c1.float().numpy(), want_c.float().numpy(), atol=1e-2)


@needs_gpu
def test_wgpu_runs_the_composite_step_under_the_same_node():
    lstm = nn.LSTM(3, 4)
    x = _t(5, 2, 3, dtype=rstorch.float32)
    want, _ = lstm(x)
    want.sum().backward()
    want_grad = lstm.weight_hh_l0.grad.clone()
    lstm.zero_grad()
    gpu = lstm.to("wgpu")
    got, _ = gpu(x.to("wgpu"))
    got.sum().backward()
    close(got, want)
    close(gpu.weight_hh_l0.grad, want_grad)
    f32 = rstorch.float32
    h = _C._gru_cell(*(t.to("wgpu").requires_grad_(True) for t in (_t(2, 6, dtype=f32), _t(2, 6, seed=1, dtype=f32))),
                     _t(2, 2, seed=2, dtype=f32).to("wgpu"))
    assert h.grad_fn.name() == "ThnnFusedGruCellBackward0"
