"""ONNX mappings of the modules a trace keeps whole: those whose forward calls the Rust core
directly or decides on its input's shape (convolutions, batch norm), and the composite layers
(LSTM, MultiheadAttention, the transformer encoder) whose ONNX form is clearer than their trace.
Parameters become initializers named by their state_dict keys."""
import math

import numpy as np

from ._functions import as_input, batch_norm, conv
from ._graph import Value, np_dtype, to_numpy

MODULES = {}


def _join(prefix, name):
    return f"{prefix}.{name}" if prefix else name


def _param(g, prefix, name, tensor):
    return None if tensor is None else g.param(_join(prefix, name), tensor)


def _conv(g, mod, prefix, c):
    x, padding = c.arg(0, "input").name, mod.padding
    if mod.padding_mode != "zeros":
        # reflect / replicate / circular padding is a Pad before an unpadded convolution.
        modes = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
        if isinstance(padding, str) or (mod.padding_mode == "circular" and g.opset < 19):
            raise c.unsupported()
        lead = c.carg(0, "input").dim() - len(padding)
        x = g.op("Pad", [x, g.ints([0] * lead + list(padding) + [0] * lead + list(padding))], mode=modes[mod.padding_mode])
        padding = 0
    return Value(conv(g, x, _param(g, prefix, "weight", mod.weight), _param(g, prefix, "bias", mod.bias), mod.stride,
                      padding, mod.dilation, mod.groups, list(mod.kernel_size)))


def _batch_norm(g, mod, prefix, c):
    if mod.training or mod.running_mean is None:
        raise c.unsupported()
    return Value(batch_norm(g, c.arg(0, "input").name, _param(g, prefix, "running_mean", mod.running_mean),
                            _param(g, prefix, "running_var", mod.running_var), _param(g, prefix, "weight", mod.weight),
                            _param(g, prefix, "bias", mod.bias), mod.eps, mod.num_features, c.dtype()))


# Gate order of each recurrent layer: PyTorch stacks LSTM gates as (input, forget, cell, output)
# and GRU gates as (reset, update, new); ONNX wants (input, output, forget, cell) and (update,
# reset, hidden). Each tuple lists, in ONNX's order, the PyTorch gate to put there.
_GATES = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2), "RNN": (0,)}


def _reorder_gates(w, kind, hidden):
    return np.concatenate([w[k * hidden:(k + 1) * hidden] for k in _GATES[kind]], axis=0)


def _recurrent(g, mod, prefix, c):
    """nn.LSTM / nn.GRU / nn.RNN as one ONNX LSTM / GRU / RNN node per layer."""
    kind = type(mod).__name__
    if (kind == "LSTM" and mod.proj_size) or (mod.training and mod.dropout):
        raise c.unsupported()
    x = c.arg(0, "input").name
    cx = c.carg(0, "input")
    batched = cx.dim() == 3
    dtype = np_dtype(cx)
    hidden, dirs, gates = mod.hidden_size, 2 if mod.bidirectional else 1, len(_GATES[kind])
    if not batched:
        x = g.unsqueeze(x, [1])
    elif mod.batch_first:
        x = g.op("Transpose", [x], perm=[1, 0, 2])
    state = c.arg(1, "hx")
    if state is not None:
        state = [s.name if batched else g.unsqueeze(s.name, [1]) for s in (state if kind == "LSTM" else (state,))]
    attrs = {"hidden_size": hidden, "direction": "bidirectional" if dirs == 2 else "forward"}
    if kind == "GRU":
        # PyTorch applies the reset gate after the hidden state's linear map.
        attrs["linear_before_reset"] = 1
    elif kind == "RNN":
        attrs["activations"] = ["Relu" if mod.nonlinearity == "relu" else "Tanh"] * dirs
    finals = []
    for layer in range(mod.num_layers):
        ws, rs, bs = [], [], []
        for suffix in ([""] + (["_reverse"] if dirs == 2 else [])):
            ws.append(_reorder_gates(to_numpy(getattr(mod, f"weight_ih_l{layer}{suffix}")), kind, hidden))
            rs.append(_reorder_gates(to_numpy(getattr(mod, f"weight_hh_l{layer}{suffix}")), kind, hidden))
            if mod.bias:
                bs.append(np.concatenate([_reorder_gates(to_numpy(getattr(mod, f"{b}_l{layer}{suffix}")), kind, hidden)
                                          for b in ("bias_ih", "bias_hh")]))
            else:
                bs.append(np.zeros(2 * gates * hidden, dtype=dtype))
        inputs = [x] + [g.param_array(_join(prefix, f"{kind.lower()}_{part}_l{layer}"), np.stack(arr))
                        for part, arr in (("W", ws), ("R", rs), ("B", bs))] + [None]
        if state is not None:
            span = [g.ints([layer * dirs]), g.ints([(layer + 1) * dirs]), g.ints([0])]
            inputs += [g.op("Slice", [s] + span) for s in state]
        outs = g.op(kind, inputs, outputs=3 if kind == "LSTM" else 2, **attrs)
        # Y is (seq, directions, batch, hidden); the next layer and the output want (seq, batch, directions * hidden).
        if dirs == 1:
            x = g.squeeze(outs[0], [1])
        else:
            x = g.op("Reshape", [g.op("Transpose", [outs[0]], perm=[0, 2, 1, 3]), g.ints([0, 0, -1])])
        finals.append(outs[1:])
    states = [f[0] if len(finals) == 1 else g.op("Concat", list(f), axis=0) for f in zip(*finals)]
    if not batched:
        x, states = g.squeeze(x, [1]), [g.squeeze(v, [1]) for v in states]
    elif mod.batch_first:
        x = g.op("Transpose", [x], perm=[1, 0, 2])
    if kind == "LSTM":
        return Value(x), (Value(states[0]), Value(states[1]))
    return Value(x), Value(states[0])


def _mask(g, mask, cmask, dtype):
    """(name, is_bool) of an attention mask argument, or None."""
    if mask is None:
        return None
    return as_input(g, mask, dtype), np_dtype(cmask) == np.bool_


def multi_head_attention(g, mod, prefix, query, key, value, cquery, attn_mask, key_padding_mask,
                         need_weights, average_attn_weights, is_causal, unsupported):
    """MultiheadAttention on (batch, seq, embed) inputs when batch_first else (seq, batch, embed)."""
    if not mod._qkv_same_embed_dim or mod.bias_k is not None or mod.add_zero_attn or (mod.training and mod.dropout):
        raise unsupported()
    dtype = np_dtype(cquery)
    batched = cquery.dim() == 3
    embed, heads = mod.embed_dim, mod.num_heads
    head_dim = embed // heads

    def to_batch_first(t):
        if not batched:
            return g.unsqueeze(t, [0])
        return t if mod.batch_first else g.op("Transpose", [t], perm=[1, 0, 2])

    w = _param(g, prefix, "in_proj_weight", mod.in_proj_weight)
    b = _param(g, prefix, "in_proj_bias", mod.in_proj_bias)
    ws = g.op("Split", [w, g.ints([embed] * 3)], outputs=3, axis=0)
    bs = g.op("Split", [b, g.ints([embed] * 3)], outputs=3, axis=0) if b is not None else [None] * 3
    projected = []
    for t, wi, bi, perm in zip((query, key, value), ws, bs, ([0, 2, 1, 3], [0, 2, 1, 3], [0, 2, 1, 3])):
        p = g.linear(to_batch_first(t), wi, bi, 3)
        projected.append(g.op("Transpose", [g.op("Reshape", [p, g.ints([0, 0, heads, head_dim])])], perm=perm))
    q, k, v = projected
    mask = None
    if attn_mask is not None:
        name, is_bool = attn_mask
        # nn.MultiheadAttention's boolean masks are True where attention is NOT allowed.
        mask = (g.op("Where", [name, g.const(-np.inf, dtype), g.const(0.0, dtype)]) if is_bool else name, False)
    seq = (cquery.shape[0 if not batched else (1 if mod.batch_first else 0)],) * 2
    if key_padding_mask is not None:
        name, is_bool = key_padding_mask
        pad = g.unsqueeze(name, [1, 2])
        pad = g.op("Where", [pad, g.const(-np.inf, dtype), g.const(0.0, dtype)]) if is_bool else pad
        mask = (pad if mask is None else g.op("Add", [mask[0], pad]), False)
    out, weights = g.attention(q, k, v, mask, is_causal and mask is None, 1.0 / math.sqrt(head_dim), dtype, 4, seq)
    out = g.op("Reshape", [g.op("Transpose", [out], perm=[0, 2, 1, 3]), g.ints([0, 0, embed])])
    out = g.linear(out, _param(g, prefix, "out_proj.weight", mod.out_proj.weight),
                   _param(g, prefix, "out_proj.bias", mod.out_proj.bias), 3)
    if not batched:
        out = g.squeeze(out, [0])
    elif not mod.batch_first:
        out = g.op("Transpose", [out], perm=[1, 0, 2])
    if not need_weights:
        return Value(out), None
    if average_attn_weights:
        weights = g.reduce("ReduceMean", weights, [1], False)
    if not batched:
        weights = g.squeeze(weights, [0])
    return Value(out), Value(weights)


def _mha(g, mod, prefix, c):
    dtype = c.dtype() if not isinstance(c.out, tuple) else np_dtype(c.out[0])
    names = [c.arg(i, k).name for i, k in ((0, "query"), (1, "key"), (2, "value"))]
    kpm = _mask(g, c.arg(3, "key_padding_mask"), c.carg(3, "key_padding_mask"), dtype)
    am = _mask(g, c.arg(5, "attn_mask"), c.carg(5, "attn_mask"), dtype)
    return multi_head_attention(g, mod, prefix, *names, c.carg(0, "query"), am, kpm, c.arg(4, "need_weights", True),
                                c.arg(6, "average_attn_weights", True), c.arg(7, "is_causal", False), c.unsupported)


def encoder_layer(g, mod, prefix, x, cx, attn_mask, key_padding_mask, is_causal, unsupported):
    dtype = np_dtype(cx)
    rank = cx.dim()

    def norm(name, t):
        n = getattr(mod, name)
        return g.layer_norm(t, _param(g, prefix, f"{name}.weight", n.weight), _param(g, prefix, f"{name}.bias", n.bias),
                            -len(n.normalized_shape), n.eps, dtype, list(n.normalized_shape))

    def self_attention(t):
        out, _ = multi_head_attention(g, mod.self_attn, _join(prefix, "self_attn"), t, t, t, cx, attn_mask,
                                      key_padding_mask, False, True, is_causal, unsupported)
        return out.name

    def feed_forward(t):
        h = g.linear(t, _param(g, prefix, "linear1.weight", mod.linear1.weight),
                     _param(g, prefix, "linear1.bias", mod.linear1.bias), rank)
        h = _activation(g, mod.activation, h, dtype, unsupported)
        return g.linear(h, _param(g, prefix, "linear2.weight", mod.linear2.weight),
                        _param(g, prefix, "linear2.bias", mod.linear2.bias), rank)

    if mod.training:
        raise unsupported()
    if mod.norm_first:
        x = g.op("Add", [x, self_attention(norm("norm1", x))])
        return g.op("Add", [x, feed_forward(norm("norm2", x))])
    x = norm("norm1", g.op("Add", [x, self_attention(x)]))
    return norm("norm2", g.op("Add", [x, feed_forward(x)]))


def _activation(g, act, h, dtype, unsupported):
    import rstorch.nn as nn
    import rstorch.nn.functional as F
    name = getattr(act, "__name__", None)
    if act is F.relu or isinstance(act, nn.ReLU) or name == "relu":
        return g.op("Relu", [h])
    if act is F.gelu or name == "gelu":
        return g.gelu(h, "none", dtype)
    if isinstance(act, nn.GELU):
        return g.gelu(h, act.approximate, dtype)
    raise unsupported()


def _encoder_layer(g, mod, prefix, c):
    dtype = c.dtype()
    am = _mask(g, c.arg(1, "src_mask"), c.carg(1, "src_mask"), dtype)
    kpm = _mask(g, c.arg(2, "src_key_padding_mask"), c.carg(2, "src_key_padding_mask"), dtype)
    return Value(encoder_layer(g, mod, prefix, c.arg(0, "src").name, c.carg(0, "src"), am, kpm,
                               c.arg(3, "is_causal", False), c.unsupported))


def _encoder(g, mod, prefix, c):
    dtype = c.dtype()
    am = _mask(g, c.arg(1, "mask"), c.carg(1, "mask"), dtype)
    kpm = _mask(g, c.arg(2, "src_key_padding_mask"), c.carg(2, "src_key_padding_mask"), dtype)
    x, cx = c.arg(0, "src").name, c.carg(0, "src")
    for i, layer in enumerate(mod.layers):
        x = encoder_layer(g, layer, _join(prefix, f"layers.{i}"), x, cx, am, kpm, c.arg(3, "is_causal", False) or False,
                          c.unsupported)
    if mod.norm is not None:
        n = mod.norm
        x = g.layer_norm(x, _param(g, prefix, "norm.weight", n.weight), _param(g, prefix, "norm.bias", n.bias),
                         -len(n.normalized_shape), n.eps, dtype, list(n.normalized_shape))
    return Value(x)


def _register():
    import rstorch.nn as nn
    for cls in (nn.Conv1d, nn.Conv2d, nn.Conv3d):
        MODULES[cls] = _conv
    for cls in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d):
        MODULES[cls] = _batch_norm
    for cls in (nn.LSTM, nn.GRU, nn.RNN):
        MODULES[cls] = _recurrent
    MODULES[nn.MultiheadAttention] = _mha
    MODULES[nn.TransformerEncoderLayer] = _encoder_layer
    MODULES[nn.TransformerEncoder] = _encoder


def module_mapping(mod):
    if not MODULES:
        _register()
    return MODULES.get(type(mod))
