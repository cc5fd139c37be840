"""F.scaled_dot_product_attention's fused, tiled CPU kernel (flash attention: online softmax over key
blocks, backward recomputing the probabilities from the saved logsumexp) against PyTorch's values,
gradients and errors (tests/record_attention.py -> fixtures/attention.json), gradcheck in float64
(first and second order, float masks too), float32 against float64, MultiheadAttention through it,
and memory: no L x S buffer at L = S = 4096."""
import builtins
import json
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F
from rstorch.autograd import gradcheck, gradgradcheck

DATA = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "attention.json").read_text())


def _tensor(a):
    return None if a is None else rstorch.tensor(a["tensor"], dtype=getattr(rstorch, a["dtype"]))


def _close(got, want, tol=1e-10):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_values_gradients_and_errors_match_pytorch(case):
    leaves = [_tensor(case[n]).requires_grad_(True) for n in "qkv"]
    mask = _tensor(case["mask"])
    if case["mask_grad"]:
        mask.requires_grad_(True)
        leaves.append(mask)
    args = [t.transpose(1, 2) if case["transposed"] else t for t in leaves[:3]]
    if "error" in case:
        with pytest.raises(getattr(builtins, case["error"])) as e:
            F.scaled_dot_product_attention(*args, attn_mask=mask, **case["kwargs"])
        assert str(e.value) == case["message"]
        return
    out = F.scaled_dot_product_attention(*args, attn_mask=mask, **case["kwargs"])
    _close(out.tolist(), case["out"])
    gout = 1 + rstorch.arange(out.numel(), dtype=rstorch.float64).reshape(out.shape) / 8
    out.backward(gout)
    for leaf, want in zip(leaves, case["grads"]):
        _close(leaf.grad.tolist(), want)


def _node_name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


def test_fused_node_recorded_for_4d_inputs_of_both_float_dtypes():
    for dtype in (rstorch.float32, rstorch.float64):
        q = rstorch.randn(2, 3, 5, 4, dtype=dtype, requires_grad=True)
        out = F.scaled_dot_product_attention(q, rstorch.randn(2, 3, 6, 4, dtype=dtype), rstorch.randn(2, 3, 6, 4, dtype=dtype))
        assert _node_name(out) == "ScaledDotProductFlashAttentionForCpuBackward0"
        assert len(out.grad_fn.next_functions) == 3


def _qkv(*shapes, dtype=rstorch.float64):
    return [rstorch.randn(*s, dtype=dtype, requires_grad=True) for s in shapes]


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"scale": 0.7}], ids=["plain", "causal", "scale"])
def test_gradcheck_q_k_v(kwargs):
    q, k, v = _qkv((1, 2, 4, 3), (1, 2, 5, 3), (1, 2, 5, 2))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs), (q, k, v))
    assert gradgradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs), (q, k, v))


def test_gradcheck_float_mask_and_gqa():
    q, k, v = _qkv((1, 4, 3, 3), (1, 2, 5, 3), (1, 2, 5, 2))
    m = rstorch.randn(1, 1, 3, 5, dtype=rstorch.float64, requires_grad=True)
    f = lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True)  # noqa: E731
    assert gradcheck(f, (q, k, v, m))
    assert gradgradcheck(f, (q, k, v, m))


def test_gradcheck_bool_mask_with_a_hidden_row():
    q, k, v = _qkv((1, 1, 3, 3), (1, 1, 4, 3), (1, 1, 4, 2))
    m = rstorch.tensor([[True, False, True, True], [False] * 4, [True] * 4])
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=m), (q, k, v))


def test_non_contiguous_heads_as_multihead_attention_makes_them():
    # (L, N*H, E) projected rows viewed as (N*H, L, E): the head dim is not the outer one.
    x = rstorch.randn(70, 6, 8, dtype=rstorch.float64)
    q, k, v = (x * s for s in (1.0, 0.5, -1.0))
    qt, kt, vt = (t.transpose(0, 1).reshape(2, 3, 70, 8) for t in (q, k, v))
    assert not qt.is_contiguous()
    got = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True)
    want = F.scaled_dot_product_attention(qt.contiguous(), kt.contiguous(), vt.contiguous(), is_causal=True)
    _close(got.tolist(), want.tolist(), 1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_float32_follows_float64_over_many_tiles(causal):
    q, k, v = (rstorch.randn(2, 2, 300, 16, dtype=rstorch.float64) for _ in range(3))
    m = None if causal else rstorch.rand(300, 300) > 0.2
    g = rstorch.randn(2, 2, 300, 16, dtype=rstorch.float64)
    res = {}
    for dtype in (rstorch.float32, rstorch.float64):
        leaves = [t.to(dtype).requires_grad_(True) for t in (q, k, v)]
        out = F.scaled_dot_product_attention(*leaves, attn_mask=m, is_causal=causal)
        out.backward(g.to(dtype))
        res[dtype] = [out] + [t.grad for t in leaves]
    for a, b in zip(res[rstorch.float32], res[rstorch.float64]):
        _close(a.double().tolist(), b.tolist(), 2e-4)


def test_dropout_falls_back_to_the_composed_attention():
    q, k, v = _qkv((1, 1, 4, 3), (1, 1, 4, 3), (1, 1, 4, 3))
    rstorch.manual_seed(0)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert out.shape == (1, 1, 4, 3)
    out.sum().backward()
    assert q.grad is not None


@pytest.mark.parametrize("masks", ["both", "attn", "padding", "none"])
def test_multihead_attention_without_weights_matches_with_weights(masks):
    rstorch.manual_seed(0)
    mha = nn.MultiheadAttention(16, 4, dtype=rstorch.float64)
    x = rstorch.randn(9, 2, 16, dtype=rstorch.float64, requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(9, dtype=rstorch.float64) if masks in ("both", "attn") else None
    pad = rstorch.tensor([[False] * 9, [False] * 6 + [True] * 3]) if masks in ("both", "padding") else None
    fast, none = mha(x, x, x, attn_mask=mask, key_padding_mask=pad, need_weights=False)
    slow, w = mha(x, x, x, attn_mask=mask, key_padding_mask=pad, need_weights=True)
    assert none is None and w.shape == (2, 9, 9)
    _close(fast.tolist(), slow.tolist(), 1e-12)
    (ga,) = rstorch.autograd.grad(fast.sum(), x)
    (gb,) = rstorch.autograd.grad(slow.sum(), x)
    _close(ga.tolist(), gb.tolist(), 1e-12)


def test_no_l_by_s_buffer_at_4096():
    # Forward and backward at L = S = 4096 in a fresh process: one float32 score matrix would be
    # 64 MiB, the composed attention keeps several. The fused kernel's peak stays far below one.
    code = textwrap.dedent("""
        import resource, rstorch, rstorch.nn.functional as F
        q, k, v = (rstorch.randn(1, 1, 4096, 16, requires_grad=True) for _ in range(3))
        F.scaled_dot_product_attention(q[:, :, :64], k[:, :, :64], v[:, :, :64]).sum().backward()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for causal in (False, True):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            assert out.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
            out.sum().backward()
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
    """)
    grown_mib = int(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
    assert grown_mib < 24, f"peak memory grew by {grown_mib} MiB"
