"""Records PyTorch's values of F.scaled_dot_product_attention into fixtures/attention.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_attention.py
tests/python/test_attention.py replays every case on rstorch (whose CPU kernel is the fused, tiled one).
All values are float64. A case is {name, q, k, v, mask, kwargs, out, grads}: q/k/v/mask are
{"tensor": values, "dtype"} (mask may be null); "transposed": the stored q/k/v are (N, L, H, E) and are
transposed(1, 2) before the call (the head-dim layout MultiheadAttention produces). `grads` holds the
gradients of q, k, v (and of a float mask marked "mask_grad") after backward(gout), gout = 1 + k/8 over
the output's elements. An error case has {error, message} instead of out and grads.
"""
import json
import pathlib

import torch
import torch.nn.functional as F

torch.manual_seed(0)
D = torch.float64


def rand(*shape):
    return torch.randn(*shape, dtype=D)


def enc(t):
    return None if t is None else {"tensor": t.tolist(), "dtype": str(t.dtype).split(".")[1]}


def case(name, q, k, v, mask=None, mask_grad=False, transposed=False, **kwargs):
    c = {"name": name, "q": enc(q), "k": enc(k), "v": enc(v), "mask": enc(mask), "mask_grad": mask_grad,
         "transposed": transposed, "kwargs": kwargs}
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
    m = mask
    if mask_grad:
        m = mask.clone().requires_grad_(True)
        leaves.append(m)
    args = [t.transpose(1, 2) if transposed else t for t in leaves[:3]]
    try:
        out = F.scaled_dot_product_attention(*args, attn_mask=m, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error is the recorded value
        c.update(error=type(e).__name__, message=str(e))
        return c
    gout = 1 + torch.arange(out.numel(), dtype=D).reshape(out.shape) / 8
    out.backward(gout)
    c["out"] = out.tolist()
    c["grads"] = [t.grad.tolist() for t in leaves]
    return c


def tril_bool(l, s):
    return torch.ones(l, s, dtype=torch.bool).tril()


CASES = [
    case("plain", rand(2, 3, 5, 4), rand(2, 3, 7, 4), rand(2, 3, 7, 4)),
    case("ev_differs", rand(2, 2, 5, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 3)),
    case("scale", rand(1, 2, 4, 8), rand(1, 2, 4, 8), rand(1, 2, 4, 8), scale=0.3),
    case("causal_square", rand(2, 2, 6, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 5), is_causal=True),
    case("causal_l_lt_s", rand(1, 2, 3, 4), rand(1, 2, 7, 4), rand(1, 2, 7, 4), is_causal=True),
    case("causal_l_gt_s", rand(1, 2, 7, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4), is_causal=True),
    case("bool_mask_2d", rand(2, 2, 5, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 4), mask=torch.rand(5, 6) > 0.3),
    case("bool_mask_full", rand(2, 2, 4, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 4), mask=torch.rand(2, 2, 4, 6) > 0.4),
    case("bool_mask_key_padding", rand(2, 2, 4, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 4),
         mask=torch.tensor([1, 1, 1, 0, 0, 1], dtype=torch.bool).reshape(1, 1, 1, 6).expand(2, 1, 1, 6).clone()),
    case("bool_mask_causal_table", rand(1, 2, 5, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 4), mask=tril_bool(5, 5)),
    case("bool_mask_fully_masked_row", rand(1, 2, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 2),
         mask=torch.tensor([[1, 0, 1, 1, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)),
    case("float_mask", rand(2, 2, 5, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 3), mask=rand(5, 6)),
    case("float_mask_grad", rand(2, 2, 5, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 3), mask=rand(2, 1, 5, 6),
         mask_grad=True),
    case("float_mask_row_grad", rand(1, 2, 3, 4), rand(1, 2, 6, 4), rand(1, 2, 6, 4), mask=rand(6), mask_grad=True),
    case("float_mask_neg_inf_row", rand(1, 1, 3, 4), rand(1, 1, 5, 4), rand(1, 1, 5, 2),
         mask=torch.tensor([[0.0, 1.0, -2.0, 0.5, 0.0], [float("-inf")] * 5, [0.0, float("-inf"), 0.0, 0.0, 3.0]],
                           dtype=D)),
    case("gqa", rand(2, 4, 5, 4), rand(2, 2, 6, 4), rand(2, 2, 6, 3), enable_gqa=True),
    case("gqa_causal", rand(1, 6, 5, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 4), enable_gqa=True, is_causal=True),
    case("gqa_mask", rand(1, 4, 3, 4), rand(1, 1, 5, 4), rand(1, 1, 5, 4), mask=torch.rand(3, 5) > 0.3,
         enable_gqa=True),
    case("five_dims", rand(2, 2, 2, 4, 4), rand(2, 2, 2, 5, 4), rand(2, 2, 2, 5, 4)),
    case("three_dims", rand(3, 5, 4), rand(3, 6, 4), rand(3, 6, 2)),
    case("transposed_heads", rand(2, 5, 3, 4), rand(2, 6, 3, 4), rand(2, 6, 3, 4), transposed=True),
    case("transposed_heads_causal", rand(2, 6, 3, 4), rand(2, 6, 3, 4), rand(2, 6, 3, 4), transposed=True,
         is_causal=True),
    # Longer than one tile of the kernel (64 query rows, 128 key columns), causal and masked.
    case("long_causal", rand(1, 1, 150, 4), rand(1, 1, 150, 4), rand(1, 1, 150, 2), is_causal=True),
    case("long_mask", rand(1, 1, 66, 4), rand(1, 1, 140, 4), rand(1, 1, 140, 2), mask=torch.rand(66, 140) > 0.5),
    case("long_l_gt_s_causal", rand(1, 1, 140, 4), rand(1, 1, 130, 4), rand(1, 1, 130, 2), is_causal=True),
    # PyTorch's errors for operands that do not fit.
    case("err_mask_and_causal", rand(1, 1, 3, 4), rand(1, 1, 3, 4), rand(1, 1, 3, 4), mask=rand(3, 3),
         is_causal=True),
    case("err_key_width", rand(2, 3, 4, 8), rand(2, 3, 5, 7), rand(2, 3, 5, 8)),
    case("err_heads", rand(2, 4, 4, 8), rand(2, 3, 5, 8), rand(2, 3, 5, 8)),
    case("err_gqa_heads", rand(2, 4, 4, 8), rand(2, 3, 5, 8), rand(2, 3, 5, 8), enable_gqa=True),
]

out = pathlib.Path(__file__).parent / "fixtures" / "attention.json"
out.write_text(json.dumps({"torch": torch.__version__, "cases": CASES}))
print(f"{len(CASES)} cases -> {out}")
