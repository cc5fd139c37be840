"""The wgpu backend's fused float32 attention (flash attention in WGSL): F.scaled_dot_product_attention
and nn.MultiheadAttention (need_weights=False) against the CPU, forward and backward, the kernels
they launch and the memory they hold (no L x S matrix).

Tests that need an adapter skip when `rstorch.wgpu.is_available()` is False."""

import numpy as np
import pytest

import rstorch
import rstorch.nn as nn
import rstorch.nn.functional as F

from _wgpu_helpers import close, launched, needs_gpu

TOL = 1e-4


def _run(dev, arrays, mask, grad_out, **kwargs):
    """The attention of `arrays` (q, k, v) on `dev` and the gradients of q, k, v (and of a float
    mask) for the output gradient `grad_out`."""
    leaves = [rstorch.tensor(a, device=dev, requires_grad=True) for a in arrays]
    m = None
    if mask is not None:
        m = rstorch.tensor(mask, device=dev, requires_grad=mask.dtype != np.bool_)
    out = F.scaled_dot_product_attention(*leaves, attn_mask=m, **kwargs)
    (out * rstorch.tensor(grad_out, device=dev)).sum().backward()
    grads = [t.grad for t in leaves] + ([m.grad] if m is not None and m.requires_grad else [])
    return out, grads


def _compare(arrays, mask=None, **kwargs):
    rng = np.random.default_rng(7)
    q, v = arrays[0], arrays[2]
    grad_out = rng.standard_normal(q.shape[:-1] + v.shape[-1:]).astype(np.float32)
    want, want_grads = _run("cpu", arrays, mask, grad_out, **kwargs)
    got, got_grads = _run("wgpu", arrays, mask, grad_out, **kwargs)
    assert got.grad_fn.name() == want.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    close(got, want, TOL)
    assert len(got_grads) == len(want_grads)
    for g, w in zip(got_grads, want_grads):
        close(g, w, TOL)


def _qkv(rng, b, h, l, s, e, ev=None, kv_heads=None):
    kv_heads = kv_heads or h
    return [rng.standard_normal(shape).astype(np.float32)
            for shape in ((b, h, l, e), (b, kv_heads, s, e), (b, kv_heads, s, ev or e))]


@needs_gpu
@pytest.mark.parametrize("e", [16, 32, 64, 128])
@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float"])
def test_fused_attention_matches_the_cpu(e, mask):
    # L and S are not multiples of the 16-row tiles, and differ (causal is top-left aligned).
    rng = np.random.default_rng(e)
    arrays = _qkv(rng, 2, 3, 37, 45, e)
    m = None
    if mask == "bool":
        m = rng.random((37, 45)) > 0.3
        m[5] = False  # a row that sees no key: zero output and gradients, as on the CPU
    elif mask == "float":
        m = rng.standard_normal((2, 1, 37, 45)).astype(np.float32)
    _compare(arrays, m, is_causal=mask == "causal")


@needs_gpu
@pytest.mark.parametrize("causal", [False, True])
def test_scale_value_width_and_grouped_query_heads(causal):
    rng = np.random.default_rng(3)
    _compare(_qkv(rng, 2, 4, 21, 21, 24, ev=40, kv_heads=2), is_causal=causal, scale=0.3, enable_gqa=True)


@needs_gpu
def test_strided_operands_and_a_per_head_mask():
    # Non-contiguous q, k, v (as MultiheadAttention makes them) and a mask of its own per head.
    rng = np.random.default_rng(4)
    x = rng.standard_normal((19, 2, 3, 16)).astype(np.float32)
    m = rng.standard_normal((2, 3, 19, 19)).astype(np.float32)
    g = rng.standard_normal((2, 3, 19, 16)).astype(np.float32)
    res = {}
    for dev in ("cpu", "wgpu"):
        leaf = rstorch.tensor(x, device=dev, requires_grad=True)
        heads = leaf.permute(1, 2, 0, 3)
        assert not heads.is_contiguous()
        out = F.scaled_dot_product_attention(heads, heads * 0.5, -heads, attn_mask=rstorch.tensor(m, device=dev))
        (out * rstorch.tensor(g, device=dev)).sum().backward()
        res[dev] = (out, leaf.grad)
    close(res["wgpu"][0], res["cpu"][0], TOL)
    close(res["wgpu"][1], res["cpu"][1], TOL)


@needs_gpu
@pytest.mark.parametrize("causal", [False, True])
def test_one_kernel_forward_three_kernel_backward(causal):
    rng = np.random.default_rng(5)
    q, k, v = (rstorch.tensor(a, device="wgpu", requires_grad=True) for a in _qkv(rng, 1, 2, 50, 50, 32))
    g = rstorch.randn(1, 2, 50, 32).to("wgpu")
    before = launched()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert launched() - before == 1
    before = launched()
    rstorch.autograd.grad(out, (q, k, v), g)
    # row statistics, dq, dk and dv
    assert launched() - before == 3


@needs_gpu
def test_wider_heads_fall_back_to_the_composed_attention():
    rng = np.random.default_rng(6)
    arrays = _qkv(rng, 1, 2, 9, 11, 160)
    q = rstorch.tensor(arrays[0], device="wgpu")
    before = launched()
    F.scaled_dot_product_attention(q, *(rstorch.tensor(a, device="wgpu") for a in arrays[1:]))
    assert launched() - before > 1
    _compare(arrays)


@needs_gpu
@pytest.mark.parametrize("causal", [False, True])
def test_no_l_by_s_buffer(causal):
    # Forward and backward at L = S = 1024: one float32 score matrix is 4 MiB. Every buffer the
    # pool creates meanwhile stays in it, so its growth bounds the peak from above.
    t = 1024
    q, k, v = (rstorch.randn(1, 1, t, 16).to("wgpu").requires_grad_(True) for _ in range(3))
    rstorch.wgpu.synchronize()
    rstorch.wgpu.empty_cache()
    stats = rstorch.wgpu.memory_stats()
    before = stats["bytes_in_use"] + stats["bytes_cached"]
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    out.sum().backward()
    rstorch.wgpu.synchronize()
    stats = rstorch.wgpu.memory_stats()
    grown = stats["bytes_in_use"] + stats["bytes_cached"] - before
    assert grown < t * t * 4 // 4, f"the pool grew by {grown} bytes"


@needs_gpu
@pytest.mark.parametrize("masks", ["attn", "padding", "causal"])
def test_multihead_attention_without_weights_matches_the_cpu(masks):
    rstorch.manual_seed(0)
    mha = nn.MultiheadAttention(32, 2)
    x = np.random.default_rng(8).standard_normal((17, 3, 32)).astype(np.float32)
    mask = nn.Transformer.generate_square_subsequent_mask(17) if masks in ("attn", "causal") else None
    pad = rstorch.tensor([[False] * 17, [False] * 11 + [True] * 6, [False] * 16 + [True]]) if masks == "padding" else None
    res = {}
    for dev in ("cpu", "wgpu"):
        mha.to(dev)
        mha.zero_grad()
        leaf = rstorch.tensor(x, device=dev, requires_grad=True)
        out, w = mha(leaf, leaf, leaf, attn_mask=None if mask is None else mask.to(dev),
                     key_padding_mask=None if pad is None else pad.to(dev), need_weights=False,
                     is_causal=masks == "causal")
        assert w is None
        out.sum().backward()
        res[dev] = (out, leaf.grad, mha.in_proj_weight.grad)
    for got, want in zip(res["wgpu"], res["cpu"]):
        close(got, want, TOL)
