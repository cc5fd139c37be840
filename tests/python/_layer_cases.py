"""The layer cases shared by tests/record_layer_fixtures.py (run under PyTorch) and
test_nn_layers.py (run under rstorch): a constructor and a call, both evaluated against
whichever framework is `torch`/`nn`, and the inputs to generate.

Input kinds: ("f", shape) normal floats that take gradients; ("u", shape) floats in (0.05, 0.95)
that take gradients; ("t", shape) floats in (0, 1) without gradients; ("s", shape) softmax over
dim 1, no gradients; ("i", shape, high) int64 in [0, high); ("c", nested list, dtype) a constant."""

_KPM = [[False, False, True, False, True], [False, True, False, False, False]]
_BOOL_ATTN = [[False, True, False, False], [True, False, False, True], [False, False, False, False]]
_CAUSAL = [[0.0, float("-inf"), float("-inf")], [0.0, 0.0, float("-inf")], [0.0, 0.0, 0.0]]

CASES = {
    # convolutions
    "conv1d_strided": ("nn.Conv1d(3, 4, 3, stride=2, padding=1)", [("f", (2, 3, 9))], "m(x0)"),
    "conv1d_same_circular": ("nn.Conv1d(2, 3, 4, padding='same', padding_mode='circular')",
                             [("f", (2, 2, 8))], "m(x0)"),
    "conv2d_same_even_dilated": ("nn.Conv2d(2, 3, (4, 3), padding='same', dilation=(1, 2))",
                                 [("f", (2, 2, 7, 8))], "m(x0)"),
    "conv2d_reflect": ("nn.Conv2d(2, 4, 3, stride=2, padding=(1, 2), padding_mode='reflect')",
                       [("f", (2, 2, 7, 6))], "m(x0)"),
    "conv2d_replicate_groups": ("nn.Conv2d(4, 6, 3, padding=1, groups=2, padding_mode='replicate')",
                                [("f", (2, 4, 5, 5))], "m(x0)"),
    "conv2d_circular_unbatched": ("nn.Conv2d(2, 3, 3, padding=2, padding_mode='circular')",
                                  [("f", (2, 5, 6))], "m(x0)"),
    "conv2d_valid_nobias": ("nn.Conv2d(3, 2, 2, padding='valid', bias=False)", [("f", (1, 3, 4, 5))], "m(x0)"),
    "convT2d": ("nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)",
                [("f", (2, 3, 4, 3))], "m(x0)"),
    "convT2d_output_size": ("nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, groups=2)",
                            [("f", (1, 2, 4, 5))], "m(x0, output_size=[8, 10])"),
    "convT1d_dilated": ("nn.ConvTranspose1d(2, 3, 3, stride=3, padding=1, dilation=2)",
                        [("f", (2, 2, 5))], "m(x0)"),
    # pooling
    "maxpool2d_ceil_indices": ("nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True, return_indices=True)",
                               [("f", (2, 3, 7, 8))], "m(x0)"),
    "maxpool1d_indices": ("nn.MaxPool1d(2, return_indices=True)", [("f", (2, 3, 7))], "m(x0)"),
    "avgpool2d_exclude_pad": ("nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)",
                              [("f", (2, 3, 6, 7))], "m(x0)"),
    "avgpool1d": ("nn.AvgPool1d(3, 2, 1)", [("f", (2, 3, 8))], "m(x0)"),
    "adaptive_avg2d": ("nn.AdaptiveAvgPool2d((3, 4))", [("f", (2, 3, 7, 9))], "m(x0)"),
    "adaptive_avg1d": ("nn.AdaptiveAvgPool1d(4)", [("f", (2, 3, 10))], "m(x0)"),
    # normalisation: several calls, so running statistics and eval mode are both exercised
    "batchnorm1d_train_eval": ("nn.BatchNorm1d(3)", [("f", (4, 3)), ("f", (4, 3, 5))],
                               "(m(x0), m(x1), m.eval()(x0))"),
    "batchnorm2d_cumulative": ("nn.BatchNorm2d(3, momentum=None)", [("f", (2, 3, 4, 4)), ("f", (3, 3, 2, 5))],
                               "(m(x0), m(x1), m(x0), m.eval()(x1))"),
    "batchnorm2d_untracked": ("nn.BatchNorm2d(3, affine=False, track_running_stats=False)",
                              [("f", (2, 3, 3, 3))], "(m(x0), m.eval()(x0))"),
    "layernorm": ("nn.LayerNorm([3, 4])", [("f", (2, 5, 3, 4))], "m(x0)"),
    "groupnorm": ("nn.GroupNorm(2, 4)", [("f", (2, 4, 3, 3))], "m(x0)"),
    # lookups
    "embedding_padding": ("nn.Embedding(6, 3, padding_idx=1)",
                          [("c", [[1, 0, 5, 1], [2, 1, 3, 3]], "int64")], "m(x0)"),
    # recurrent
    "rnn_tanh_2layer_h0": ("nn.RNN(3, 4, num_layers=2)", [("f", (5, 2, 3)), ("f", (2, 2, 4))], "m(x0, x1)"),
    "rnn_relu_bidir_batch_first": ("nn.RNN(3, 4, nonlinearity='relu', bidirectional=True, batch_first=True)",
                                   [("f", (2, 5, 3))], "m(x0)"),
    "lstm_2layer_bidir_h0c0": ("nn.LSTM(3, 4, num_layers=2, bidirectional=True)",
                               [("f", (5, 2, 3)), ("f", (4, 2, 4)), ("f", (4, 2, 4))], "m(x0, (x1, x2))"),
    "lstm_proj_batch_first": ("nn.LSTM(3, 5, proj_size=2, batch_first=True)", [("f", (2, 4, 3))], "m(x0)"),
    "lstm_unbatched_nobias": ("nn.LSTM(3, 4, bias=False)", [("f", (5, 3))], "m(x0)"),
    "gru_2layer_batch_first_h0": ("nn.GRU(3, 4, num_layers=2, batch_first=True)",
                                  [("f", (2, 5, 3)), ("f", (2, 2, 4))], "m(x0, x1)"),
    "gru_bidir_unbatched_h0": ("nn.GRU(3, 4, bidirectional=True)", [("f", (5, 3)), ("f", (2, 4))], "m(x0, x1)"),
    # attention
    "mha_self": ("nn.MultiheadAttention(8, 2)", [("f", (4, 2, 8))], "m(x0, x0, x0)"),
    "mha_masks_batch_first": ("nn.MultiheadAttention(8, 2, batch_first=True)",
                              [("f", (2, 3, 8)), ("f", (2, 5, 8)), ("f", (2, 5, 8)), ("c", _KPM, "bool"),
                               ("f", (3, 5))],
                              "m(x0, x1, x2, key_padding_mask=x3, attn_mask=x4, average_attn_weights=False)"),
    "mha_kdim_vdim_bias_kv_zero_attn": (
        "nn.MultiheadAttention(8, 4, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True)",
        [("f", (3, 2, 8)), ("f", (4, 2, 3)), ("f", (4, 2, 5)), ("c", _BOOL_ATTN, "bool")],
        "m(x0, x1, x2, attn_mask=x3)"),
    "mha_unbatched_no_weights": ("nn.MultiheadAttention(8, 2, bias=False)",
                                 [("f", (3, 8)), ("f", (4, 8)), ("f", (4, 8))], "m(x0, x1, x2, need_weights=False)"),
    "mha_3d_float_mask": ("nn.MultiheadAttention(4, 2)", [("f", (3, 2, 4)), ("f", (4, 3, 3))],
                          "m(x0, x0, x0, attn_mask=x1)"),
    # transformer (train mode with dropout 0: PyTorch's eval fast path is a different algorithm)
    "encoder_layer_post_norm_kpm": ("nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)",
                                    [("f", (5, 2, 8)), ("c", _KPM, "bool")], "m(x0, src_key_padding_mask=x1)"),
    "encoder_layer_pre_norm_gelu_causal": (
        "nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation='gelu', norm_first=True, batch_first=True)",
        [("f", (2, 3, 8)), ("c", _CAUSAL, "float32")], "m(x0, src_mask=x1)"),
    "encoder_stack_with_norm": (
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True), 2, norm=nn.LayerNorm(8))",
        [("f", (2, 4, 8))], "m(x0)"),
    # losses
    "cross_entropy_weight_ignore_smoothing": (
        "nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), ignore_index=1, label_smoothing=0.1)",
        [("f", (5, 3)), ("c", [0, 1, 2, 2, 0], "int64")], "m(x0, x1)"),
    "cross_entropy_probabilities": ("nn.CrossEntropyLoss(label_smoothing=0.2)", [("f", (3, 4, 2)), ("s", (3, 4, 2))],
                                    "m(x0, x1)"),
    "nll_sum": ("nn.NLLLoss(reduction='sum')", [("f", (4, 3)), ("c", [2, 0, 1, 2], "int64")], "m(x0, x1)"),
    "mse": ("nn.MSELoss()", [("f", (3, 4)), ("f", (3, 4))], "m(x0, x1)"),
    "l1_none": ("nn.L1Loss(reduction='none')", [("f", (3, 4)), ("t", (3, 4))], "m(x0, x1)"),
    "smooth_l1_beta": ("nn.SmoothL1Loss(beta=0.5)", [("f", (3, 4)), ("f", (3, 4))], "m(x0, x1)"),
    "huber_delta": ("nn.HuberLoss(delta=0.7)", [("f", (3, 4)), ("f", (3, 4))], "m(x0, x1)"),
    "bce_weight": ("nn.BCELoss(weight=torch.tensor([0.5, 2.0]))", [("u", (3, 2)), ("t", (3, 2))], "m(x0, x1)"),
    "bce_logits_pos_weight": ("nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0, 0.5]))",
                              [("f", (3, 2)), ("t", (3, 2))], "m(x0, x1)"),
    "kl_div_batchmean_log_target": ("nn.KLDivLoss(reduction='batchmean', log_target=True)",
                                    [("f", (3, 4)), ("f", (3, 4))], "m(x0, x1)"),
}


def make_inputs(spec, rng):
    """numpy arrays for a case's input specs (float32 unless the spec says otherwise)."""
    import numpy as np
    arrays = []
    for kind, *rest in spec:
        if kind == "f":
            arrays.append(rng.standard_normal(rest[0]).astype(np.float32))
        elif kind == "u":
            arrays.append(rng.uniform(0.05, 0.95, rest[0]).astype(np.float32))
        elif kind == "t":
            arrays.append(rng.uniform(0.0, 1.0, rest[0]).astype(np.float32))
        elif kind == "s":
            z = rng.standard_normal(rest[0])
            e = np.exp(z - z.max(axis=1, keepdims=True))
            arrays.append((e / e.sum(axis=1, keepdims=True)).astype(np.float32))
        elif kind == "i":
            arrays.append(rng.integers(0, rest[1], rest[0]).astype(np.int64))
        elif kind == "c":
            arrays.append(np.array(rest[0], dtype=rest[1]))
        else:
            raise ValueError(kind)
    return arrays


def takes_grad(spec_item):
    return spec_item[0] in ("f", "u")


def flatten_outputs(out):
    """Tensors of a nested output in order, Nones dropped."""
    if out is None:
        return []
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten_outputs(o)]
    return [out]
