"""Prints the autograd graph each op records, under rstorch or PyTorch, to compare the two.

    .venv/bin/python tools/grad_fn_names.py rstorch > /tmp/r.txt
    /path/to/torch/python tools/grad_fn_names.py torch > /tmp/t.txt
    .venv/bin/python tools/grad_fn_names.py compare /tmp/r.txt /tmp/t.txt

Each line is `case<TAB>walk`. The walk is the result's grad_fn and, depth first and in order, its
`next_functions` down to the leaves: `Name(child, child, ...)`, a child being `None` (an input
that needs no gradient) or a node, followed by `:k` when the edge's input_nr k is not 0; the
result's own output_nr is written the same way after the whole walk. A node met a second time
is written `Name^` without its children. For example `(a * a.exp())` walks as
`MulBackward0(AccumulateGrad, ExpBackward0(AccumulateGrad^))`.
A result without grad_fn is `-`, followed by ` = values` when it is not floating point (indices);
`!error` when the op failed; ` (name() X)` follows a top node whose name() differs from its type.

tests/fixtures/grad_fn_walks.txt is this program's output under PyTorch, which
tests/python/test_autograd_node_names.py expects of rstorch; re-record it with
    /path/to/torch/python tools/grad_fn_names.py torch > tests/fixtures/grad_fn_walks.txt
"""
import sys
import warnings


def cases(T):
    F = T.nn.functional

    def x(*shape, lo=0.1, hi=0.9):
        g = T.Generator().manual_seed(0) if hasattr(T, "Generator") else None
        t = T.rand(*shape, generator=g) if g is not None else T.rand(*shape)
        return (t * (hi - lo) + lo).requires_grad_()

    a = lambda: x(3, 4)
    long = lambda *v: T.tensor(list(v), dtype=T.int64)
    mask = lambda: T.tensor([[True, False, True, False]] * 3)
    img = lambda: x(2, 3, 6, 6)
    w = lambda: x(4, 3, 3, 3)
    c = {}
    # unary math
    for name in ["abs", "neg", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin",
                 "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf",
                 "reciprocal", "floor", "ceil", "round", "trunc", "sign", "square", "frac", "fix"]:
        c[name] = lambda name=name: getattr(a(), name)()
    c["pow_scalar"] = lambda: a().pow(3)
    c["pow_tensor"] = lambda: a().pow(x(3, 4))
    c["rpow"] = lambda: 2 ** a()
    c["clamp"] = lambda: a().clamp(0.2, 0.8)
    c["clamp_min"] = lambda: a().clamp_min(0.2)
    c["clamp_max"] = lambda: a().clamp_max(0.2)
    c["clamp_tensor"] = lambda: a().clamp(min=x(3, 4))
    # binary
    for name in ["add", "sub", "mul", "div", "maximum", "minimum", "atan2", "remainder", "floor_divide"]:
        c[name] = lambda name=name: getattr(a(), name)(x(3, 4))
        c[name + "_scalar"] = lambda name=name: getattr(a(), name)(2.0)
    c["rsub"] = lambda: 1 - a()
    c["rdiv"] = lambda: 1 / a()
    c["where"] = lambda: T.where(mask(), a(), x(3, 4))
    c["lerp"] = lambda: T.lerp(a(), x(3, 4), 0.3)
    c["addcmul"] = lambda: T.addcmul(a(), x(3, 4), x(3, 4))
    c["addcdiv"] = lambda: T.addcdiv(a(), x(3, 4), x(3, 4))
    # reductions
    c["sum"] = lambda: a().sum()
    c["sum_dim"] = lambda: a().sum(1)
    c["mean"] = lambda: a().mean()
    c["mean_dim"] = lambda: a().mean(1)
    c["prod"] = lambda: a().prod()
    c["prod_dim"] = lambda: a().prod(1)
    c["amax"] = lambda: a().amax(1)
    c["amin"] = lambda: a().amin(1)
    c["max"] = lambda: a().max()
    c["min"] = lambda: a().min()
    c["max_dim"] = lambda: a().max(1)[0]
    c["min_dim"] = lambda: a().min(1)[0]
    c["std"] = lambda: a().std()
    c["var"] = lambda: a().var()
    c["std_dim"] = lambda: a().std(1)
    c["var_dim"] = lambda: a().var(1)
    c["norm"] = lambda: a().norm()
    c["norm_dim"] = lambda: a().norm(dim=1)
    c["norm_p1"] = lambda: a().norm(p=1)
    c["logsumexp"] = lambda: a().logsumexp(1)
    c["cumsum"] = lambda: a().cumsum(1)
    c["cumprod"] = lambda: a().cumprod(1)
    c["sort"] = lambda: a().sort(1)[0]
    c["topk"] = lambda: a().topk(2, 1)[0]
    c["median"] = lambda: a().median()
    c["kthvalue"] = lambda: a().kthvalue(2, 1)[0]
    # views and shapes
    c["view"] = lambda: a().view(12)
    c["reshape"] = lambda: a().reshape(12)
    c["reshape_copy"] = lambda: a().t().reshape(12)
    c["flatten"] = lambda: a().flatten()
    c["ravel"] = lambda: a().ravel()
    c["view_as"] = lambda: a().view_as(T.zeros(4, 3))
    c["unflatten"] = lambda: a().unflatten(1, (2, 2))
    c["squeeze"] = lambda: x(3, 1).squeeze()
    c["squeeze_dim"] = lambda: x(3, 1).squeeze(1)
    c["unsqueeze"] = lambda: a().unsqueeze(0)
    c["transpose"] = lambda: a().transpose(0, 1)
    c["t"] = lambda: a().t()
    c["T"] = lambda: a().T
    c["mT"] = lambda: a().mT
    c["permute"] = lambda: a().permute(1, 0)
    c["movedim"] = lambda: a().movedim(0, 1)
    c["swapaxes"] = lambda: a().swapaxes(0, 1)
    c["expand"] = lambda: x(1, 4).expand(3, 4)
    c["expand_as"] = lambda: x(1, 4).expand_as(T.zeros(3, 4))
    c["broadcast_to"] = lambda: x(1, 4).broadcast_to((3, 4))
    c["repeat"] = lambda: a().repeat(2, 1)
    c["tile"] = lambda: a().tile((2, 1))
    c["contiguous"] = lambda: a().t().contiguous()
    c["clone"] = lambda: a().clone()
    c["detach_then_op"] = lambda: a().detach() * 1
    c["to_double"] = lambda: a().double()
    c["to_half"] = lambda: a().half()
    c["type_as"] = lambda: a().type_as(T.zeros(1, dtype=T.float64))
    c["narrow"] = lambda: a().narrow(1, 1, 2)
    c["select"] = lambda: a().select(0, 1)
    c["unfold"] = lambda: a().unfold(1, 2, 1)
    c["flip"] = lambda: a().flip(0)
    c["roll"] = lambda: a().roll(1, 0)
    c["tril"] = lambda: a().tril()
    c["triu"] = lambda: a().triu()
    c["diag"] = lambda: x(3, 3).diag()
    c["diagonal"] = lambda: x(3, 3).diagonal()
    c["trace"] = lambda: x(3, 3).trace()
    c["chunk"] = lambda: a().chunk(2, 1)[0]
    c["split"] = lambda: a().split(2, 1)[1]
    c["unbind"] = lambda: a().unbind(0)[0]
    # indexing
    c["getitem_int"] = lambda: a()[1]
    c["getitem_slice"] = lambda: a()[1:]
    c["getitem_slice_step"] = lambda: a()[:, ::2]
    c["getitem_none"] = lambda: a()[None]
    c["getitem_ellipsis"] = lambda: a()[..., 1]
    c["getitem_long"] = lambda: a()[long(0, 2)]
    c["getitem_long2"] = lambda: a()[long(0, 2), long(1, 3)]
    c["getitem_bool"] = lambda: a()[mask()]
    c["setitem"] = lambda: _setitem(a(), x(4))
    c["masked_fill"] = lambda: a().masked_fill(mask(), 0.0)
    c["masked_fill_tensor"] = lambda: a().masked_fill(mask(), T.tensor(0.5))
    c["masked_fill_"] = lambda: (a() * 1).masked_fill_(mask(), 0.0)
    c["masked_select"] = lambda: a().masked_select(mask())
    c["index_select"] = lambda: a().index_select(1, long(0, 2))
    c["gather"] = lambda: a().gather(1, long(0, 1, 2).reshape(3, 1))
    c["scatter"] = lambda: a().scatter(1, long(0, 1, 2).reshape(3, 1), x(3, 1))
    c["scatter_add"] = lambda: a().scatter_add(1, long(0, 1, 2).reshape(3, 1), x(3, 1))
    c["index_add"] = lambda: a().index_add(0, long(0, 2), x(2, 4))
    c["take"] = lambda: a().take(long(0, 5))
    c["index_put"] = lambda: a().index_put((long(0, 2),), x(2, 4))
    # joins
    c["cat"] = lambda: T.cat([a(), x(3, 4)])
    c["stack"] = lambda: T.stack([a(), x(3, 4)])
    c["hstack"] = lambda: T.hstack([a(), x(3, 4)])
    c["vstack"] = lambda: T.vstack([a(), x(3, 4)])
    # matmul family
    c["matmul_2d"] = lambda: a() @ x(4, 5)
    c["matmul_1d"] = lambda: x(4) @ x(4)
    c["matmul_mv"] = lambda: a() @ x(4)
    c["matmul_vm"] = lambda: x(3) @ a()
    c["matmul_3d"] = lambda: x(2, 3, 4) @ x(2, 4, 5)
    c["matmul_3d_2d"] = lambda: x(2, 3, 4) @ x(4, 5)
    c["mm"] = lambda: a().mm(x(4, 5))
    c["bmm"] = lambda: x(2, 3, 4).bmm(x(2, 4, 5))
    c["mv"] = lambda: a().mv(x(4))
    c["dot"] = lambda: x(4).dot(x(4))
    c["inner"] = lambda: x(4).inner(x(4))
    c["outer"] = lambda: x(3).outer(x(4))
    c["addmm"] = lambda: T.addmm(x(5), a(), x(4, 5))
    c["einsum"] = lambda: T.einsum("ij,jk->ik", a(), x(4, 5))
    c["linear"] = lambda: F.linear(a(), x(5, 4), x(5))
    c["linear_nobias"] = lambda: F.linear(a(), x(5, 4))
    c["linear_3d"] = lambda: F.linear(x(2, 3, 4), x(5, 4), x(5))
    c["bilinear"] = lambda: F.bilinear(a(), x(3, 2), x(5, 4, 2), x(5))
    # softmax and activations
    c["softmax"] = lambda: a().softmax(1)
    c["log_softmax"] = lambda: a().log_softmax(1)
    c["F.softmax"] = lambda: F.softmax(a(), dim=1)
    c["F.log_softmax"] = lambda: F.log_softmax(a(), dim=1)
    c["F.softmin"] = lambda: F.softmin(a(), dim=1)
    c["softmax_dtype"] = lambda: a().softmax(1, dtype=T.float64)
    for name in ["relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "hardsigmoid", "hardswish",
                 "softplus", "logsigmoid", "softsign", "tanhshrink", "sigmoid", "tanh", "hardtanh", "leaky_relu"]:
        c["F." + name] = lambda name=name: getattr(F, name)(a() - 0.5)
    c["F.gelu_tanh"] = lambda: F.gelu(a() - 0.5, approximate="tanh")
    c["F.threshold"] = lambda: F.threshold(a(), 0.5, 0.0)
    c["F.glu"] = lambda: F.glu(a(), 1)
    c["F.prelu"] = lambda: F.prelu(a() - 0.5, x(1))
    # losses
    tgt = lambda: T.tensor([0, 2, 1])
    c["mse_loss"] = lambda: F.mse_loss(a(), x(3, 4))
    c["mse_loss_none"] = lambda: F.mse_loss(a(), x(3, 4), reduction="none")
    c["mse_loss_sum"] = lambda: F.mse_loss(a(), x(3, 4), reduction="sum")
    c["l1_loss"] = lambda: F.l1_loss(a(), x(3, 4))
    c["smooth_l1_loss"] = lambda: F.smooth_l1_loss(a(), x(3, 4))
    c["huber_loss"] = lambda: F.huber_loss(a(), x(3, 4))
    c["nll_loss"] = lambda: F.nll_loss(a(), tgt())
    c["nll_loss_none"] = lambda: F.nll_loss(a(), tgt(), reduction="none")
    c["nll_loss_sum"] = lambda: F.nll_loss(a(), tgt(), reduction="sum")
    c["nll_loss_4d"] = lambda: F.nll_loss(x(2, 3, 2, 2), T.zeros(2, 2, 2, dtype=T.int64))
    c["cross_entropy"] = lambda: F.cross_entropy(a(), tgt())
    c["cross_entropy_none"] = lambda: F.cross_entropy(a(), tgt(), reduction="none")
    c["cross_entropy_smooth"] = lambda: F.cross_entropy(a(), tgt(), label_smoothing=0.1)
    c["cross_entropy_soft"] = lambda: F.cross_entropy(a(), x(3, 4))
    c["binary_cross_entropy"] = lambda: F.binary_cross_entropy(a(), x(3, 4))
    c["binary_cross_entropy_with_logits"] = lambda: F.binary_cross_entropy_with_logits(a(), x(3, 4))
    c["kl_div"] = lambda: F.kl_div(a(), x(3, 4), reduction="batchmean")
    # conv, pooling, norms
    c["conv2d"] = lambda: F.conv2d(img(), w(), x(4))
    c["conv2d_nobias"] = lambda: F.conv2d(img(), w())
    c["conv1d"] = lambda: F.conv1d(x(2, 3, 8), x(4, 3, 3), x(4))
    c["conv_transpose2d"] = lambda: F.conv_transpose2d(img(), x(3, 4, 3, 3), x(4))
    c["conv_transpose1d"] = lambda: F.conv_transpose1d(x(2, 3, 8), x(3, 4, 3))
    c["max_pool2d"] = lambda: F.max_pool2d(img(), 2)
    c["max_pool1d"] = lambda: F.max_pool1d(x(2, 3, 8), 2)
    c["avg_pool2d"] = lambda: F.avg_pool2d(img(), 2)
    c["avg_pool1d"] = lambda: F.avg_pool1d(x(2, 3, 8), 2)
    c["adaptive_avg_pool2d"] = lambda: F.adaptive_avg_pool2d(img(), (3, 3))
    c["adaptive_avg_pool2d_1"] = lambda: F.adaptive_avg_pool2d(img(), 1)
    c["adaptive_avg_pool1d"] = lambda: F.adaptive_avg_pool1d(x(2, 3, 8), 4)
    c["batch_norm_train"] = lambda: F.batch_norm(img(), T.zeros(3), T.ones(3), x(3), x(3), training=True)
    c["batch_norm_eval"] = lambda: F.batch_norm(img(), T.zeros(3), T.ones(3), x(3), x(3), training=False)
    c["layer_norm"] = lambda: F.layer_norm(a(), (4,), x(4), x(4))
    c["layer_norm_noaffine"] = lambda: F.layer_norm(a(), (4,))
    c["group_norm"] = lambda: F.group_norm(img(), 3, x(3), x(3))
    c["normalize"] = lambda: F.normalize(a(), dim=1)
    c["cosine_similarity"] = lambda: F.cosine_similarity(a(), x(3, 4))
    c["pairwise_distance"] = lambda: F.pairwise_distance(a(), x(3, 4))
    # dropout, embedding, padding, resize
    c["dropout"] = lambda: F.dropout(a(), 0.5, training=True)
    c["dropout2d"] = lambda: F.dropout2d(img(), 0.5, training=True)
    c["embedding"] = lambda: F.embedding(T.tensor([[0, 2], [1, 3]]), x(4, 5))
    c["embedding_padding"] = lambda: F.embedding(T.tensor([[0, 2], [1, 3]]), x(4, 5), padding_idx=0)
    c["pad_constant"] = lambda: F.pad(a(), (1, 1))
    c["pad_reflect"] = lambda: F.pad(img(), (1, 1, 1, 1), mode="reflect")
    c["pad_replicate"] = lambda: F.pad(img(), (1, 1, 1, 1), mode="replicate")
    c["interpolate_nearest"] = lambda: F.interpolate(img(), scale_factor=2, mode="nearest")
    c["interpolate_bilinear"] = lambda: F.interpolate(img(), scale_factor=2, mode="bilinear", align_corners=False)
    c["one_hot_mul"] = lambda: F.one_hot(T.tensor([0, 2]), 4) * x(2, 4)
    c["sdpa"] = lambda: F.scaled_dot_product_attention(x(1, 2, 3, 4), x(1, 2, 3, 4), x(1, 2, 3, 4))
    # in-place forms
    c["add_"] = lambda: (a() * 1).add_(1)
    c["mul_"] = lambda: (a() * 1).mul_(x(3, 4))
    c["relu_"] = lambda: (a() * 1).relu_() if hasattr(T.Tensor, "relu_") else None
    c["copy_"] = lambda: T.zeros(3, 4).copy_(a())
    c["zero_"] = lambda: (a() * 1).zero_()
    c["fill_"] = lambda: (a() * 1).fill_(1.0)
    c["clamp_"] = lambda: (a() * 1).clamp_(0.2, 0.8)
    c["F.relu_inplace"] = lambda: F.relu(a() * 1, inplace=True)
    c["setitem_scalar"] = lambda: _setitem_scalar(a() * 1)
    # einsum whose output order is not the last product's
    for eq, shapes in [("ij,jk->ki", [(3, 4), (4, 5)]), ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
                       ("ii->i", [(3, 3)]), ("ij->ji", [(3, 4)]), ("i,i->", [(4,), (4,)]), ("ij->", [(3, 4)]),
                       ("ij,ij->ij", [(3, 4), (3, 4)]), ("ij,kj->ik", [(3, 4), (5, 4)]), ("i,j->ij", [(3,), (4,)]),
                       ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]), ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)])]:
        c["einsum " + eq] = lambda eq=eq, shapes=shapes: T.einsum(eq, *[x(*s) for s in shapes])
    # padding modes on 1-D, 2-D and 3-D
    for mode in ["constant", "reflect", "replicate", "circular"]:
        c["pad_" + mode + "_1d"] = lambda mode=mode: F.pad(x(2, 3, 6), (1, 2), mode=mode)
        c["pad_" + mode + "_2d"] = lambda mode=mode: F.pad(img(), (1, 2, 2, 1), mode=mode)
        c["pad_" + mode + "_3d"] = lambda mode=mode: F.pad(x(1, 2, 3, 4, 4), (1, 1, 2, 0, 0, 1), mode=mode)
    c["pad_circular_unbatched"] = lambda: F.pad(x(3, 6), (2, 1), mode="circular")
    c["pad_constant_value"] = lambda: F.pad(a(), (1, 0, 0, 2), value=0.5)
    c["pad_constant_crop"] = lambda: F.pad(a(), (-1, 1))
    # linear on other shapes and layouts
    c["linear_3d_t"] = lambda: F.linear(x(5, 3, 4).transpose(0, 1), x(6, 4), x(6))
    c["linear_3d_t_nobias"] = lambda: F.linear(x(5, 3, 4).transpose(0, 1), x(6, 4))
    c["linear_3d_nobias"] = lambda: F.linear(x(2, 3, 4), x(5, 4))
    c["linear_1d"] = lambda: F.linear(x(4), x(5, 4), x(5))
    c["linear_1d_nobias"] = lambda: F.linear(x(4), x(5, 4))
    c["linear_2d_t"] = lambda: F.linear(x(4, 3).t(), x(5, 4), x(5))
    c["linear_4d"] = lambda: F.linear(x(2, 2, 3, 4), x(5, 4), x(5))
    c["linear_bias_2d_w_t"] = lambda: F.linear(a(), x(4, 5).t(), x(5))
    # inner
    c["inner_2d"] = lambda: a().inner(x(5, 4))
    c["inner_1d_2d"] = lambda: x(4).inner(a())
    c["inner_2d_1d"] = lambda: a().inner(x(4))
    c["inner_3d_2d"] = lambda: x(2, 3, 4).inner(x(5, 4))
    # matmul of every rank pair
    shapes = {1: (4,), 2: (3, 4), 3: (2, 3, 4), 4: (2, 2, 3, 4)}
    for ra in range(1, 5):
        for rb in range(1, 5):
            sa = shapes[ra] if ra > 1 else (4,)
            sb = (4,) if rb == 1 else (shapes[rb][:-2] + (4, 5))
            c[f"matmul_{ra}d_{rb}d"] = lambda sa=sa, sb=sb: x(*sa) @ x(*sb)
    c["matmul_bcast_3d_4d"] = lambda: x(1, 3, 4) @ x(2, 2, 4, 5)
    c["matmul_bcast_4d_3d"] = lambda: x(2, 1, 3, 4) @ x(3, 4, 5)
    c["matmul_t_2d"] = lambda: x(4, 3).t() @ x(4, 5)
    c["matmul_3d_t"] = lambda: x(2, 4, 3).transpose(1, 2) @ x(2, 4, 5)
    # order statistics over dims
    c["median_dim0"] = lambda: a().median(0)[0]
    c["median_dim_keepdim"] = lambda: a().median(1, keepdim=True)[0]
    c["median_1d"] = lambda: x(5).median()
    c["kthvalue_dim0"] = lambda: a().kthvalue(2, 0)[0]
    c["kthvalue_keepdim"] = lambda: a().kthvalue(3, 1, keepdim=True)[0]
    ties = lambda: T.tensor([[2.0, 1.0, 2.0, 1.0, 3.0, 1.0], [5.0, 5.0, 5.0, 4.0, 4.0, 4.0],
                             [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]])
    c["median_ties_idx"] = lambda: ties().median(1)[1]
    c["median_ties_idx0"] = lambda: ties().median(0)[1]
    c["median_ties_idx_t"] = lambda: ties().t().median(0)[1]
    c["median_ties_odd_idx"] = lambda: ties()[:, :5].median(1)[1]
    c["median_ties_3d_idx"] = lambda: ties().reshape(2, 2, 6).median(1)[1]
    c["median_ties_3d_idx2"] = lambda: ties().reshape(2, 4, 3).median(2)[1]
    c["kthvalue_ties_idx"] = lambda: ties().kthvalue(2, 1)[1]
    c["kthvalue_ties_idx3"] = lambda: ties().kthvalue(3, 1)[1]
    c["kthvalue_ties_idx0"] = lambda: ties().kthvalue(2, 0)[1]
    c["kthvalue_ties_3d_idx"] = lambda: ties().reshape(2, 2, 6).kthvalue(1, 1)[1]
    c["median_ties_int"] = lambda: ties().long().median(1)[1]
    c["median_int_ties_all"] = lambda: T.tensor([3, 1, 3, 1, 2, 2]).median(0)[1]
    c["median_empty"] = lambda: _is_nan(T.tensor([]).median())
    c["median_empty_f64"] = lambda: _is_nan(T.tensor([], dtype=T.float64).median())
    c["median_empty_int32"] = lambda: T.tensor([], dtype=T.int32).median()
    c["median_empty_int16"] = lambda: T.tensor([], dtype=T.int16).median()
    c["median_empty_bool"] = lambda: T.tensor([], dtype=T.bool).median()
    c["median_nan_idx"] = lambda: T.tensor([[1.0, float("nan"), 2.0, float("nan")], [3.0, 1.0, 2.0, 1.0]]).median(1)[1]
    c["kthvalue_nan_idx"] = lambda: T.tensor([[1.0, float("nan"), 2.0, float("nan")], [3.0, 1.0, 2.0, 1.0]]).kthvalue(3, 1)[1]
    c["kthvalue_ties_long_idx"] = lambda: T.tensor([float(i % 3) for i in range(40)]).kthvalue(20)[1]
    c["median_ties_long_idx"] = lambda: T.tensor([float(i % 3) for i in range(41)]).median(0)[1]
    c["kthvalue_int_ties_idx"] = lambda: T.tensor([[3, 1, 3, 1, 2, 2, 1]]).kthvalue(4, 1)[1]
    c["median_empty_int"] = lambda: T.tensor([], dtype=T.int64).median()
    # joins of inputs of which some need no gradient
    c["cat_mixed"] = lambda: T.cat([a(), T.ones(3, 4), x(3, 4)])
    c["cat_mixed_first"] = lambda: T.cat([T.ones(2, 4), a()])
    c["stack_mixed"] = lambda: T.stack([T.ones(3, 4), a()])
    c["hstack_mixed"] = lambda: T.hstack([a(), T.ones(3, 2)])
    c["cat_dim1"] = lambda: T.cat([a(), x(3, 2)], 1)
    # indexing variants
    c["getitem_int_slice"] = lambda: a()[1, 1:3]
    c["getitem_all"] = lambda: a()[:]
    c["getitem_all_2"] = lambda: a()[:, :]
    c["getitem_ellipsis_only"] = lambda: a()[...]
    c["getitem_slice_full_range"] = lambda: a()[0:100, 1]
    c["getitem_neg"] = lambda: a()[-1]
    c["getitem_slice_2"] = lambda: a()[1:, :2]
    c["getitem_long_slice"] = lambda: a()[long(0, 2), 1:]
    c["getitem_slice_long"] = lambda: a()[:, long(0, 2)]
    c["getitem_bool_row"] = lambda: a()[T.tensor([True, False, True])]
    c["getitem_list"] = lambda: a()[[0, 2]]
    c["getitem_3d_mixed"] = lambda: x(2, 3, 4)[0, :, long(1, 3)]
    c["setitem_clone"] = lambda: _setitem(a().clone(), x(4))
    c["setitem_clone_slice"] = lambda: _setitem_slice(a().clone(), x(3, 2))
    c["setitem_bool"] = lambda: _setitem_mask(a() * 1, mask(), x(6))
    c["setitem_long"] = lambda: _setitem_long(a() * 1, long(0, 2), x(2, 4))
    c["setitem_nograd_value"] = lambda: _setitem(a() * 1, T.ones(4))
    c["setitem_into_nograd"] = lambda: _setitem(T.zeros(3, 4), x(4))
    # reductions keeping dims
    c["sum_keepdim"] = lambda: a().sum(1, keepdim=True)
    c["sum_dims"] = lambda: x(2, 3, 4).sum((0, 2))
    c["mean_keepdim"] = lambda: a().mean(0, keepdim=True)
    c["prod_keepdim"] = lambda: a().prod(1, keepdim=True)
    c["amax_keepdim"] = lambda: a().amax(1, keepdim=True)
    c["max_keepdim"] = lambda: a().max(1, keepdim=True)[0]
    c["std_keepdim"] = lambda: a().std(1, keepdim=True)
    c["var_correction0"] = lambda: a().var(1, correction=0)
    c["logsumexp_keepdim"] = lambda: a().logsumexp(1, keepdim=True)
    # norms
    c["norm_p3"] = lambda: a().norm(p=3)
    c["norm_inf"] = lambda: a().norm(p=float("inf"))
    c["norm_fro"] = lambda: a().norm(p="fro")
    c["norm_dim_keepdim"] = lambda: a().norm(dim=1, keepdim=True)
    c["norm_p1_dim"] = lambda: a().norm(p=1, dim=0)
    c["norm_p0"] = lambda: a().norm(p=0)
    c["F.normalize_p1"] = lambda: F.normalize(a(), p=1, dim=0)
    # convolution and pooling with non-default arguments
    c["conv2d_stride_pad"] = lambda: F.conv2d(img(), w(), x(4), stride=2, padding=1)
    c["conv2d_dilation"] = lambda: F.conv2d(img(), w(), dilation=2)
    c["conv2d_groups"] = lambda: F.conv2d(x(2, 4, 6, 6), x(4, 2, 3, 3), groups=2)
    c["conv2d_pad_same"] = lambda: F.conv2d(img(), w(), padding="same")
    c["conv2d_unbatched"] = lambda: F.conv2d(x(3, 6, 6), w())
    c["conv1d_unbatched"] = lambda: F.conv1d(x(3, 8), x(4, 3, 3))
    c["conv1d_stride"] = lambda: F.conv1d(x(2, 3, 8), x(4, 3, 3), stride=2, padding=1)
    c["conv_transpose2d_stride"] = lambda: F.conv_transpose2d(img(), x(3, 4, 3, 3), stride=2, padding=1,
                                                                output_padding=1)
    c["max_pool2d_stride_pad"] = lambda: F.max_pool2d(img(), 3, stride=2, padding=1)
    c["max_pool2d_ceil"] = lambda: F.max_pool2d(img(), 4, stride=3, ceil_mode=True)
    c["max_pool2d_dilation"] = lambda: F.max_pool2d(img(), 2, dilation=2)
    c["max_pool2d_indices"] = lambda: F.max_pool2d(img(), 2, return_indices=True)[0]
    c["max_pool2d_unbatched"] = lambda: F.max_pool2d(x(3, 6, 6), 2)
    c["avg_pool2d_pad"] = lambda: F.avg_pool2d(img(), 3, stride=2, padding=1)
    c["avg_pool2d_nopad_count"] = lambda: F.avg_pool2d(img(), 3, stride=2, padding=1, count_include_pad=False)
    c["avg_pool2d_ceil"] = lambda: F.avg_pool2d(img(), 4, stride=3, ceil_mode=True)
    c["avg_pool2d_divisor"] = lambda: F.avg_pool2d(img(), 2, divisor_override=3)
    c["max_pool1d_stride"] = lambda: F.max_pool1d(x(2, 3, 8), 3, stride=2, padding=1)
    c["avg_pool1d_pad"] = lambda: F.avg_pool1d(x(2, 3, 8), 3, stride=2, padding=1)
    c["adaptive_avg_pool2d_uneven"] = lambda: F.adaptive_avg_pool2d(img(), (4, 5))
    # losses with other reductions
    for red in ["none", "sum"]:
        c["l1_loss_" + red] = lambda red=red: F.l1_loss(a(), x(3, 4), reduction=red)
        c["smooth_l1_loss_" + red] = lambda red=red: F.smooth_l1_loss(a(), x(3, 4), reduction=red)
        c["huber_loss_" + red] = lambda red=red: F.huber_loss(a(), x(3, 4), reduction=red)
        c["cross_entropy_" + red + "2"] = lambda red=red: F.cross_entropy(a(), tgt(), reduction=red)
        c["cross_entropy_soft_" + red] = lambda red=red: F.cross_entropy(a(), x(3, 4), reduction=red)
        c["cross_entropy_smooth_" + red] = lambda red=red: F.cross_entropy(a(), tgt(), label_smoothing=0.1,
                                                                          reduction=red)
        c["binary_cross_entropy_" + red] = lambda red=red: F.binary_cross_entropy(a(), x(3, 4), reduction=red)
        c["bce_with_logits_" + red] = lambda red=red: F.binary_cross_entropy_with_logits(a(), x(3, 4),
                                                                                         reduction=red)
        c["kl_div_" + red] = lambda red=red: F.kl_div(a(), x(3, 4), reduction=red)
        c["nll_loss_4d_" + red] = lambda red=red: F.nll_loss(x(2, 3, 2, 2), T.zeros(2, 2, 2, dtype=T.int64),
                                                             reduction=red)
    c["kl_div_mean"] = lambda: F.kl_div(a(), x(3, 4), reduction="mean")
    c["kl_div_log_target"] = lambda: F.kl_div(a(), x(3, 4), reduction="sum", log_target=True)
    c["nll_loss_weight"] = lambda: F.nll_loss(a(), tgt(), weight=x(4).detach())
    c["nll_loss_ignore"] = lambda: F.nll_loss(a(), tgt(), ignore_index=2)
    c["cross_entropy_weight"] = lambda: F.cross_entropy(a(), tgt(), weight=x(4).detach())
    c["bce_with_logits_pos_weight"] = lambda: F.binary_cross_entropy_with_logits(a(), x(3, 4), pos_weight=x(4).detach())
    c["binary_cross_entropy_weight"] = lambda: F.binary_cross_entropy(a(), x(3, 4), weight=x(3, 4).detach())
    c["mse_loss_bcast"] = lambda: F.mse_loss(a(), x(4))
    # graphs of composed expressions
    c["mul_exp"] = lambda: _reuse(a(), lambda t: t * t.exp())
    c["square_self"] = lambda: _reuse(a(), lambda t: t * t)
    c["chain"] = lambda: ((a() + 1).exp() * 2).sum()
    c["dot_self"] = lambda: _reuse(x(4), lambda t: t.dot(t))
    c["reshape_alias"] = lambda: a()[:, 1:2].reshape(3)
    c["reshape_alias_view"] = lambda: a().t().reshape(4, 3)
    c["flatten_copy"] = lambda: a().t().flatten()
    c["matmul_nograd_vec"] = lambda: x(2, 4, 3).transpose(1, 2) @ T.ones(4)
    c["matmul_vec_nograd_3d"] = lambda: T.ones(4) @ x(2, 4, 3)
    c["matmul_nograd_2d_3d"] = lambda: T.ones(4, 3) @ x(2, 3, 5)
    c["where_scalar"] = lambda: T.where(mask(), a(), 2.0)
    c["scatter_value"] = lambda: a().scatter(1, long(0, 1, 2).reshape(3, 1), 2.0)
    c["clamp_tensor_max"] = lambda: a().clamp(max=x(3, 4))
    c["clamp_tensor_both"] = lambda: a().clamp(x(3, 4) * 0.5, x(3, 4) + 0.5)
    c["prelu_channels"] = lambda: F.prelu(x(2, 3, 4) - 0.5, x(3))
    c["copy_into_history"] = lambda: (a() * 1).copy_(x(3, 4))
    c["fill_view"] = lambda: _fill_view(a() * 1)
    return c


def _setitem(t, v):
    t = t * 1
    t[1] = v
    return t


def _setitem_slice(t, v):
    t[:, 1:3] = v
    return t


def _setitem_mask(t, m, v):
    t[m] = v
    return t


def _setitem_long(t, i, v):
    t[i] = v
    return t


def _fill_view(t):
    t[1:].fill_(2.0)
    return t


def _is_nan(t):
    return (t != t).long()


def _reuse(t, f):
    return f(t)


def _setitem_scalar(t):
    t[0, 0] = 5.0
    return t


def walk(fn, output_nr=0):
    """The graph below `fn` as one line (the format is in the module's docstring)."""
    seen = {}  # id -> node, kept alive so that ids are not reused during the walk

    def edge(node, nr):
        return ("None" if node is None else visit(node)) + (f":{nr}" if nr else "")

    def visit(node):
        name = type(node).__name__
        if id(node) in seen:
            return name + "^"
        seen[id(node)] = node
        nexts = getattr(node, "next_functions", ())
        if not nexts:
            return name
        return name + "(" + ", ".join(edge(n, nr) for n, nr in nexts) + ")"

    return edge(fn, output_nr)


def describe(out):
    fn = getattr(out, "grad_fn", None)
    if fn is None:
        if hasattr(out, "dtype") and not out.dtype.is_floating_point:
            return f"- = {out.tolist()}"
        return "-"
    line = walk(fn, out.output_nr)
    if fn.name() != type(fn).__name__:
        line += f" (name() {fn.name()})"
    return line


def run(modname):
    T = __import__(modname)
    warnings.simplefilter("ignore")
    for case, f in cases(T).items():
        try:
            line = describe(f())
        except Exception as e:  # the comparison lists failures too
            line = f"!{type(e).__name__}: {str(e)[:60]}"
        print(f"{case}\t{line}")


def compare(mine, theirs):
    def load(p):
        with open(p) as fh:
            return dict(line.rstrip("\n").split("\t", 1) for line in fh if "\t" in line)
    r, t = load(mine), load(theirs)
    bad = 0
    for case in t:
        if r.get(case) != t[case]:
            bad += 1
            print(f"{case}\n  rstorch: {r.get(case)}\n  torch:   {t[case]}")
    print(f"{bad} mismatches of {len(t)}")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1])
