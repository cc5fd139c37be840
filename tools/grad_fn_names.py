"""Prints the grad_fn name each op gives, under rstorch or PyTorch, to compare the two.

    .venv/bin/python tools/grad_fn_names.py rstorch > /tmp/r.txt
    /path/to/torch/python tools/grad_fn_names.py torch > /tmp/t.txt
    .venv/bin/python tools/grad_fn_names.py compare /tmp/r.txt /tmp/t.txt

Each line is `case<TAB>name` (`-` when the result has no grad_fn, `!error` when the op failed).
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
    return c


def _setitem(t, v):
    t = t * 1
    t[1] = v
    return t


def _setitem_scalar(t):
    t[0, 0] = 5.0
    return t


def run(modname):
    T = __import__(modname)
    warnings.simplefilter("ignore")
    for case, f in cases(T).items():
        try:
            out = f()
            fn = getattr(out, "grad_fn", None)
            name = "-" if fn is None else type(fn).__name__
            if fn is not None and fn.name() != name:
                name += f" (name() {fn.name()})"
        except Exception as e:  # the comparison lists failures too
            name = f"!{type(e).__name__}: {str(e)[:60]}"
        print(f"{case}\t{name}")


def compare(mine, theirs):
    def load(p):
        with open(p) as fh:
            return dict(line.rstrip("\n").split("\t", 1) for line in fh if "\t" in line)
    r, t = load(mine), load(theirs)
    bad = 0
    for case in t:
        if r.get(case) != t[case]:
            bad += 1
            print(f"{case:32s} rstorch={r.get(case)!s:40s} torch={t[case]}")
    print(f"{bad} mismatches of {len(t)}")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1])
