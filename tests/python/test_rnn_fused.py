"""The fused recurrent cell steps (`_C._lstm_cell`, `_C._gru_cell`) that LSTM, GRU and their cells
run per time step: values against the composite step written in tensor ops, gradients by
gradcheck (float64, non-contiguous operands, one output's gradient missing), second derivatives
(create_graph runs the backward in tensor ops), the node the layers record, the argument checks,
and on wgpu the same cell as one kernel each way."""
import numpy as np
import pytest

import rstorch
from rstorch import _C, nn
from rstorch.autograd import gradcheck, gradgradcheck

from _wgpu_helpers import close, launched, needs_f64, needs_gpu

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


def _node_names(out):
    """The names of the nodes of `out`'s graph, each once."""
    names, seen, stack = [], set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(f for f, _ in node.next_functions)
    return names


def test_layers_record_one_cell_node_per_step():
    # With a projection the LSTM runs its steps one by one (without, one layer node: test_rnn_layer).
    lstm = nn.LSTM(3, 4, num_layers=2, proj_size=2, dtype=F64)
    out, (h, c) = lstm(_t(5, 2, 3))
    names = _node_names(out)
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


def _on_both(*shapes, dtype, seed=0):
    """Leaves of `shapes` (random, of `dtype`) on the CPU and the same values on wgpu."""
    cpu = [_t(*shape, seed=seed + k, dtype=dtype).requires_grad_(True) for k, shape in enumerate(shapes)]
    return cpu, [t.detach().to("wgpu").requires_grad_(True) for t in cpu]


@needs_gpu
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_wgpu_cell_is_one_kernel_each_way(cell):
    """On wgpu the cell step is one kernel forward and one backward, under the fused node, with
    values and gradients as on the CPU (wide rows: several workgroups; a transposed operand)."""
    gates = 4 if cell == "lstm" else 3
    step = _C._lstm_cell if cell == "lstm" else _C._gru_cell
    cpu, gpu = _on_both((7, gates * 300), (7, gates * 300), (7, 300), dtype=rstorch.float32)
    with rstorch.no_grad():
        step(*(t.detach() for t in gpu))
        before = launched()
        step(*(t.detach() for t in gpu))
        assert launched() - before == 1
    outs = {}
    for dev, leaves in (("cpu", cpu), ("wgpu", gpu)):
        out = step(*leaves)
        out = out if isinstance(out, tuple) else (out,)
        assert out[0].grad_fn.name() == ("ThnnFusedLstmCellBackward0" if cell == "lstm" else "ThnnFusedGruCellBackward0")
        weights = [rstorch.linspace(-1, 1, o.numel()).reshape(o.shape).to(dev) for o in out]
        loss = sum((o * w).sum() for o, w in zip(out, weights))
        grads = rstorch.autograd.grad(loss, leaves)
        outs[dev] = (out, grads)
    for got, want in zip(outs["wgpu"][0] + outs["wgpu"][1], outs["cpu"][0] + outs["cpu"][1]):
        close(got, want, tol=1e-5)
    # The transposed state is copied dense; the kernel reads it from there.
    t_state = cpu[2].detach().t().contiguous().t()
    assert not t_state.is_contiguous()
    got = step(gpu[0].detach(), gpu[1].detach(), t_state.to("wgpu").t().contiguous().t())
    want = step(cpu[0].detach(), cpu[1].detach(), t_state)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        close(g, w, tol=1e-5)


@needs_gpu
def test_wgpu_layers_match_the_cpu_and_keep_no_elementwise_nodes():
    for layer in (nn.LSTM(3, 20, num_layers=2), nn.GRU(3, 20, num_layers=2, bidirectional=True)):
        x = _t(6, 4, 3, dtype=rstorch.float32)
        want, _ = layer(x)
        want.sum().backward()
        want_grad = next(layer.parameters()).grad.clone()
        layer.zero_grad()
        gpu = layer.to("wgpu")
        got, _ = gpu(x.to("wgpu"))
        names = _node_names(got)
        assert not any(n.startswith(("SigmoidBackward", "TanhBackward")) for n in names)
        got.sum().backward()
        close(got, want)
        close(next(gpu.parameters()).grad, want_grad)


@needs_gpu
def test_wgpu_cell_without_grad_and_under_create_graph():
    f32 = rstorch.float32
    cpu, gpu = _on_both((3, 8), (3, 8), (3, 2), dtype=f32)
    with rstorch.no_grad():
        h, c = _C._lstm_cell(*gpu)
    assert h.grad_fn is None and c.grad_fn is None
    for got, want in zip((h, c), lstm_reference(*(t.detach() for t in cpu))):
        close(got, want, tol=1e-5)
    # create_graph: the backward in tensor ops, so its own gradient exists, as on the CPU.
    firsts = {}
    for dev, leaves in (("cpu", cpu), ("wgpu", gpu)):
        h, c = _C._lstm_cell(*leaves)
        (g,) = rstorch.autograd.grad((h * h).sum() + c.sum(), leaves[0], create_graph=True)
        (gg,) = rstorch.autograd.grad(g.sum(), leaves[0])
        firsts[dev] = (g, gg)
    for got, want in zip(firsts["wgpu"], firsts["cpu"]):
        close(got, want, tol=1e-5)


@needs_f64
def test_wgpu_float64_cell_gradcheck():
    _, lstm = _on_both((3, 8), (3, 8), (3, 2), dtype=F64)
    _, gru = _on_both((3, 6), (3, 6), (3, 2), dtype=F64, seed=3)
    for step, leaves in ((_C._lstm_cell, lstm), (_C._gru_cell, gru)):
        got = step(*leaves)
        assert (got[0] if isinstance(got, tuple) else got).device.type == "wgpu"
        assert gradcheck(lambda *a: step(*a), tuple(leaves))
