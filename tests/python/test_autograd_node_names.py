"""grad_fn names: each op's node has PyTorch's name (the expected names are PyTorch 2's, as
`type(t.grad_fn).__name__` prints them; `tools/grad_fn_names.py` compares the two libraries)."""
import pytest

import rstorch as torch
import rstorch.nn.functional as F


def x(*shape):
    return (torch.rand(*shape) * 0.8 + 0.1).requires_grad_()


def a():
    return x(3, 4)


def mask():
    return torch.tensor([[True, False, True, False]] * 3)


def long(*v):
    return torch.tensor(list(v), dtype=torch.int64)


def img():
    return x(2, 3, 6, 6)


def _setitem_slice():
    t = a() * 1
    t[1] = x(4)
    return t


def _setitem_index():
    t = a() * 1
    t[long(0, 2)] = x(2, 4)
    return t


CASES = [
    # unary and binary math
    ("exp", lambda: a().exp(), "ExpBackward0"),
    ("log1p", lambda: a().log1p(), "Log1PBackward0"),
    ("square", lambda: a().square(), "PowBackward0"),
    ("pow_tensor", lambda: a().pow(x(3, 4)), "PowBackward1"),
    ("add", lambda: a() + x(3, 4), "AddBackward0"),
    ("mul_scalar", lambda: a() * 2, "MulBackward0"),
    ("where", lambda: torch.where(mask(), a(), x(3, 4)), "WhereBackward0"),
    ("clamp", lambda: a().clamp(0.2, 0.8), "ClampBackward1"),
    ("clamp_min", lambda: a().clamp_min(0.2), "ClampMinBackward0"),
    ("clamp_max", lambda: a().clamp_max(0.2), "ClampMaxBackward0"),
    ("clamp_min_tensor", lambda: a().clamp_min(x(3, 4)), "ClampMinBackward1"),
    ("clamp_max_tensor", lambda: a().clamp_max(x(3, 4)), "ClampMaxBackward1"),
    ("clamp_tensor", lambda: a().clamp(min=x(3, 4)), "ClampBackward0"),
    ("clamp_", lambda: (a() * 1).clamp_(0.2, 0.8), "ClampBackward1"),
    # reductions
    ("sum", lambda: a().sum(), "SumBackward0"),
    ("sum_dim", lambda: a().sum(1), "SumBackward1"),
    ("mean", lambda: a().mean(), "MeanBackward0"),
    ("mean_dim", lambda: a().mean(1), "MeanBackward1"),
    ("max", lambda: a().max(), "MaxBackward1"),
    ("min", lambda: a().min(), "MinBackward1"),
    ("max_dim", lambda: a().max(1)[0], "MaxBackward0"),
    ("min_dim", lambda: a().min(1)[0], "MinBackward0"),
    ("amax", lambda: a().amax(1), "AmaxBackward0"),
    ("std", lambda: a().std(), "StdBackward0"),
    ("var_dim", lambda: a().var(1), "VarBackward0"),
    ("norm", lambda: a().norm(), "LinalgVectorNormBackward0"),
    ("norm_p1", lambda: a().norm(p=1), "LinalgVectorNormBackward0"),
    ("logsumexp", lambda: a().logsumexp(1), "LogsumexpBackward0"),
    ("cumsum", lambda: a().cumsum(1), "CumsumBackward0"),
    ("sort", lambda: a().sort(1)[0], "SortBackward0"),
    ("topk", lambda: a().topk(2, 1)[0], "TopkBackward0"),
    # views, copies and shapes
    ("view", lambda: a().view(12), "ViewBackward0"),
    ("reshape_copy", lambda: a().t().reshape(12), "UnsafeViewBackward0"),
    ("squeeze", lambda: x(3, 1).squeeze(), "SqueezeBackward0"),
    ("squeeze_dim", lambda: x(3, 1).squeeze(1), "SqueezeBackward1"),
    ("t", lambda: a().t(), "TBackward0"),
    ("transpose", lambda: a().transpose(0, 1), "TransposeBackward0"),
    ("movedim", lambda: a().movedim(0, 1), "PermuteBackward0"),
    ("clone", lambda: a().clone(), "CloneBackward0"),
    ("contiguous", lambda: a().t().contiguous(), "CloneBackward0"),
    ("to_double", lambda: a().double(), "ToCopyBackward0"),
    ("flip", lambda: a().flip(0), "FlipBackward0"),
    ("roll", lambda: a().roll(1, 0), "RollBackward0"),
    ("tril", lambda: a().tril(), "TrilBackward0"),
    ("triu", lambda: a().triu(), "TriuBackward0"),
    ("repeat", lambda: a().repeat(2, 1), "RepeatBackward0"),
    ("stack", lambda: torch.stack([a(), x(3, 4)]), "StackBackward0"),
    ("cat", lambda: torch.cat([a(), x(3, 4)]), "CatBackward0"),
    # indexing
    ("getitem_slice", lambda: a()[1:], "SliceBackward0"),
    ("getitem_long", lambda: a()[long(0, 2)], "IndexBackward0"),
    ("getitem_bool", lambda: a()[mask()], "IndexBackward0"),
    ("setitem_slice", _setitem_slice, "CopySlices"),
    ("setitem_index", _setitem_index, "IndexPutBackward0"),
    ("index_put", lambda: a().index_put((long(0, 2),), x(2, 4)), "IndexPutBackward0"),
    ("masked_fill", lambda: a().masked_fill(mask(), 0.0), "MaskedFillBackward0"),
    ("masked_fill_tensor", lambda: a().masked_fill(mask(), torch.tensor(0.5)), "MaskedFillBackward1"),
    ("masked_fill_", lambda: (a() * 1).masked_fill_(mask(), 0.0), "MaskedFillBackward0"),
    ("masked_select", lambda: a().masked_select(mask()), "MaskedSelectBackward0"),
    ("copy_", lambda: torch.zeros(3, 4).copy_(a()), "CopyBackwards"),
    # products
    ("mm", lambda: a() @ x(4, 5), "MmBackward0"),
    ("dot", lambda: x(4).dot(x(4)), "DotBackward0"),
    ("matmul_1d", lambda: x(4) @ x(4), "DotBackward0"),
    ("mv", lambda: a().mv(x(4)), "MvBackward0"),
    ("matmul_mv", lambda: a() @ x(4), "MvBackward0"),
    ("bmm", lambda: x(2, 3, 4).bmm(x(2, 4, 5)), "BmmBackward0"),
    ("matmul_3d", lambda: x(2, 3, 4) @ x(2, 4, 5), "UnsafeViewBackward0"),
    ("matmul_3d_2d", lambda: x(2, 3, 4) @ x(4, 5), "UnsafeViewBackward0"),
    ("addmm", lambda: torch.addmm(x(5), a(), x(4, 5)), "AddmmBackward0"),
    # softmax and activations
    ("softmax", lambda: a().softmax(1), "SoftmaxBackward0"),
    ("log_softmax", lambda: a().log_softmax(1), "LogSoftmaxBackward0"),
    ("F.softmin", lambda: F.softmin(a(), dim=1), "SoftmaxBackward0"),
    ("F.relu6", lambda: F.relu6(a() - 0.5), "HardtanhBackward0"),
    ("F.hardtanh", lambda: F.hardtanh(a() - 0.5), "HardtanhBackward0"),
    ("F.selu", lambda: F.selu(a() - 0.5), "EluBackward0"),
    ("F.celu", lambda: F.celu(a() - 0.5), "CeluBackward0"),
    ("F.mish", lambda: F.mish(a() - 0.5), "MishBackward0"),
    ("F.hardsigmoid", lambda: F.hardsigmoid(a() - 0.5), "HardsigmoidBackward0"),
    ("F.hardswish", lambda: F.hardswish(a() - 0.5), "HardswishBackward0"),
    ("F.logsigmoid", lambda: F.logsigmoid(a() - 0.5), "LogSigmoidBackward0"),
    ("F.threshold", lambda: F.threshold(a(), 0.5, 0.0), "ThresholdBackward0"),
    ("F.glu", lambda: F.glu(a(), 1), "GluBackward0"),
    ("F.prelu", lambda: F.prelu(a() - 0.5, x(1)), "PreluKernelBackward0"),
    ("F.leaky_relu", lambda: F.leaky_relu(a() - 0.5), "LeakyReluBackward0"),
    ("F.gelu", lambda: F.gelu(a() - 0.5), "GeluBackward0"),
    # losses
    ("mse_loss", lambda: F.mse_loss(a(), x(3, 4)), "MseLossBackward0"),
    ("mse_loss_none", lambda: F.mse_loss(a(), x(3, 4), reduction="none"), "MseLossBackward0"),
    ("l1_loss", lambda: F.l1_loss(a(), x(3, 4)), "MeanBackward0"),
    ("smooth_l1_loss", lambda: F.smooth_l1_loss(a(), x(3, 4)), "SmoothL1LossBackward0"),
    ("huber_loss", lambda: F.huber_loss(a(), x(3, 4)), "HuberLossBackward0"),
    ("nll_loss", lambda: F.nll_loss(a(), torch.tensor([0, 2, 1])), "NllLossBackward0"),
    ("nll_loss_none", lambda: F.nll_loss(a(), torch.tensor([0, 2, 1]), reduction="none"), "NllLossBackward0"),
    ("nll_loss_4d", lambda: F.nll_loss(x(2, 3, 2, 2), torch.zeros(2, 2, 2, dtype=torch.int64)), "NllLoss2DBackward0"),
    ("cross_entropy", lambda: F.cross_entropy(a(), torch.tensor([0, 2, 1])), "NllLossBackward0"),
    ("cross_entropy_smooth", lambda: F.cross_entropy(a(), torch.tensor([0, 2, 1]), label_smoothing=0.1),
     "AddBackward0"),
    ("binary_cross_entropy", lambda: F.binary_cross_entropy(a(), x(3, 4)), "BinaryCrossEntropyBackward0"),
    ("binary_cross_entropy_with_logits", lambda: F.binary_cross_entropy_with_logits(a(), x(3, 4)),
     "BinaryCrossEntropyWithLogitsBackward0"),
    # convolution, pooling, normalisation, lookups
    ("conv2d", lambda: F.conv2d(img(), x(4, 3, 3, 3), x(4)), "ConvolutionBackward0"),
    ("conv1d", lambda: F.conv1d(x(2, 3, 8), x(4, 3, 3), x(4)), "ConvolutionBackward0"),
    ("conv1d_unbatched", lambda: F.conv1d(x(3, 8), x(4, 3, 3)), "SqueezeBackward1"),
    ("conv_transpose2d", lambda: F.conv_transpose2d(img(), x(3, 4, 3, 3), x(4)), "ConvolutionBackward0"),
    ("conv_transpose1d", lambda: F.conv_transpose1d(x(2, 3, 8), x(3, 4, 3)), "ConvolutionBackward0"),
    ("max_pool2d", lambda: F.max_pool2d(img(), 2), "MaxPool2DWithIndicesBackward0"),
    ("avg_pool2d", lambda: F.avg_pool2d(img(), 2), "AvgPool2DBackward0"),
    ("adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(img(), (3, 3)), "AdaptiveAvgPool2DBackward0"),
    ("adaptive_avg_pool2d_uneven", lambda: F.adaptive_avg_pool2d(img(), (4, 5)), "AdaptiveAvgPool2DBackward0"),
    ("adaptive_avg_pool2d_1", lambda: F.adaptive_avg_pool2d(img(), 1), "MeanBackward1"),
    ("batch_norm", lambda: F.batch_norm(img(), torch.zeros(3), torch.ones(3), x(3), x(3), training=True),
     "NativeBatchNormBackward0"),
    ("layer_norm", lambda: F.layer_norm(a(), (4,), x(4), x(4)), "NativeLayerNormBackward0"),
    ("group_norm", lambda: F.group_norm(img(), 3, x(3), x(3)), "NativeGroupNormBackward0"),
    ("pairwise_distance", lambda: F.pairwise_distance(a(), x(3, 4)), "NormBackward1"),
    ("embedding", lambda: F.embedding(torch.tensor([[0, 2], [1, 3]]), x(4, 5)), "EmbeddingBackward0"),
    ("dropout", lambda: F.dropout(a(), 0.5, training=True), "MulBackward0"),
    # overloads taking a Python number, ops without a derivative
    ("rpow", lambda: 2 ** a(), "PowBackward2"),
    ("remainder", lambda: a().remainder(x(3, 4)), "RemainderBackward1"),
    ("remainder_scalar", lambda: a().remainder(2.0), "RemainderBackward0"),
    ("remainder_number_tensor", lambda: 2.0 % a(), "NotImplemented"),
    ("rsub", lambda: 1 - a(), "RsubBackward1"),
    ("rdiv", lambda: 1 / a(), "MulBackward0"),
    ("floor_divide", lambda: a().floor_divide(x(3, 4)), "NotImplemented"),
    ("floor_divide_scalar", lambda: a() // 2.0, "NotImplemented"),
    ("div_floor", lambda: a().div(x(3, 4), rounding_mode="floor"), "DivBackward2"),
    ("div_trunc", lambda: a().div(x(3, 4), rounding_mode="trunc"), "DivBackward2"),
    ("div_trunc_scalar", lambda: a().div(-0.3, rounding_mode="trunc"), "DivBackward2"),
    ("prod", lambda: a().prod(), "ProdBackward0"),
    ("prod_dim", lambda: a().prod(1), "ProdBackward1"),
    ("cross_entropy_soft", lambda: F.cross_entropy(a(), x(3, 4).detach()), "DivBackward1"),
    # pieces
    ("chunk", lambda: a().chunk(2, 1)[0], "SplitBackward0"),
    ("split", lambda: a().split(2, 1)[1], "SplitBackward0"),
    ("split_sizes", lambda: a().split([1, 3], 1)[1], "SplitWithSizesBackward0"),
    ("unbind", lambda: a().unbind(0)[0], "UnbindBackward0"),
    # products
    ("matmul_vm", lambda: x(3) @ a(), "SqueezeBackward4"),
    ("inner", lambda: x(4).inner(x(4)), "ViewBackward0"),
    ("inner_2d", lambda: a().inner(x(5, 4)), "ViewBackward0"),
    ("einsum", lambda: torch.einsum("ij,jk->ik", a(), x(4, 5)), "ViewBackward0"),
    ("linear", lambda: F.linear(a(), x(5, 4), x(5)), "AddmmBackward0"),
    ("linear_nobias", lambda: F.linear(a(), x(5, 4)), "MmBackward0"),
    ("linear_3d", lambda: F.linear(x(2, 3, 4), x(5, 4), x(5)), "UnsafeViewBackward0"),
    ("linear_3d_nobias", lambda: F.linear(x(2, 3, 4), x(5, 4)), "UnsafeViewBackward0"),
    ("linear_1d", lambda: F.linear(x(4), x(5, 4), x(5)), "UnsafeViewBackward0"),
    # pooling, padding, resizing, attention
    ("avg_pool1d", lambda: F.avg_pool1d(x(2, 3, 8), 2), "SqueezeBackward1"),
    ("adaptive_avg_pool1d", lambda: F.adaptive_avg_pool1d(x(2, 3, 8), 4), "SqueezeBackward1"),
    ("pad_constant", lambda: F.pad(a(), (1, 1)), "ConstantPadNdBackward0"),
    ("pad_reflect_1d", lambda: F.pad(x(2, 3, 6), (1, 2), mode="reflect"), "ReflectionPad1DBackward0"),
    ("pad_reflect", lambda: F.pad(img(), (1, 1, 1, 1), mode="reflect"), "ReflectionPad2DBackward0"),
    ("pad_reflect_3d", lambda: F.pad(x(1, 2, 3, 3, 3), (1,) * 6, mode="reflect"), "ReflectionPad3DBackward0"),
    ("pad_replicate_1d", lambda: F.pad(x(2, 3, 6), (1, 2), mode="replicate"), "ReplicationPad1DBackward0"),
    ("pad_replicate", lambda: F.pad(img(), (1, 1, 1, 1), mode="replicate"), "ReplicationPad2DBackward0"),
    ("pad_replicate_3d", lambda: F.pad(x(1, 2, 3, 3, 3), (1,) * 6, mode="replicate"), "ReplicationPad3DBackward0"),
    ("interpolate_nearest", lambda: F.interpolate(img(), scale_factor=2, mode="nearest"), "UpsampleNearest2DBackward0"),
    ("interpolate_nearest_1d", lambda: F.interpolate(x(2, 3, 6), size=9, mode="nearest"), "UpsampleNearest1DBackward0"),
    ("interpolate_nearest_3d", lambda: F.interpolate(x(1, 2, 3, 3, 3), scale_factor=2), "UpsampleNearest3DBackward0"),
    ("interpolate_nearest_exact", lambda: F.interpolate(img(), scale_factor=2, mode="nearest-exact"),
     "UpsampleNearestExact2DBackward0"),
    ("interpolate_linear", lambda: F.interpolate(x(2, 3, 6), scale_factor=2, mode="linear"), "UpsampleLinear1DBackward0"),
    ("interpolate_bilinear", lambda: F.interpolate(img(), scale_factor=2, mode="bilinear", align_corners=False),
     "UpsampleBilinear2DBackward0"),
    ("interpolate_trilinear", lambda: F.interpolate(x(1, 2, 3, 3, 3), scale_factor=2, mode="trilinear"),
     "UpsampleTrilinear3DBackward0"),
    ("sdpa", lambda: F.scaled_dot_product_attention(x(1, 2, 3, 4), x(1, 2, 3, 4), x(1, 2, 3, 4)),
     "ScaledDotProductFlashAttentionForCpuBackward0"),
    ("sdpa_3d", lambda: F.scaled_dot_product_attention(x(2, 3, 4), x(2, 3, 4), x(2, 3, 4)), "SqueezeBackward1"),
    # in-place writes over a history
    ("zero_", lambda: (a() * 1).zero_(), "ZeroBackward0"),
    ("fill_", lambda: (a() * 1).fill_(1.0), "FillBackward2"),
    ("fill_tensor", lambda: (a() * 1).fill_(torch.tensor(1.0)), "FillBackward3"),
    # pointwise ops of several tensors, order statistics, diagonals, take, stacking
    ("frac", lambda: a().frac(), "FracBackward0"),
    ("frac_", lambda: (a() * 1).frac_(), "FracBackward0"),
    ("lerp", lambda: torch.lerp(a(), x(3, 4), 0.3), "LerpBackward0"),
    ("lerp_tensor", lambda: torch.lerp(a(), x(3, 4), x(3, 4)), "LerpBackward1"),
    ("lerp_tensor_0d", lambda: torch.lerp(a(), x(3, 4), torch.tensor(0.3)), "LerpBackward1"),
    ("lerp_", lambda: (a() * 1).lerp_(x(3, 4), 0.3), "LerpBackward0"),
    ("addcmul", lambda: torch.addcmul(a(), x(3, 4), x(3, 4)), "AddcmulBackward0"),
    ("addcmul_", lambda: (a() * 1).addcmul_(x(3, 4), x(3, 4)), "AddcmulBackward0"),
    ("addcdiv", lambda: torch.addcdiv(a(), x(3, 4), x(3, 4)), "AddcdivBackward0"),
    ("addcdiv_", lambda: (a() * 1).addcdiv_(x(3, 4), x(3, 4)), "AddcdivBackward0"),
    ("median", lambda: a().median(), "MedianBackward0"),
    ("median_dim", lambda: a().median(1)[0], "MedianBackward1"),
    ("kthvalue", lambda: a().kthvalue(2, 1)[0], "KthvalueBackward0"),
    ("broadcast_to", lambda: x(1, 4).broadcast_to((3, 4)), "ExpandBackward0"),
    ("tile", lambda: a().tile((2, 1)), "RepeatBackward0"),
    ("tile_short", lambda: a().tile((2,)), "RepeatBackward0"),
    ("diag", lambda: x(3, 3).diag(), "DiagonalBackward0_copy"),
    ("diag_1d", lambda: x(3).diag(1), "DiagEmbedBackward0"),
    ("diagonal", lambda: x(3, 3).diagonal(), "DiagonalBackward0"),
    ("trace", lambda: x(3, 3).trace(), "TraceBackward0"),
    ("take", lambda: a().take(long(0, 5)), "TakeBackward0"),
    ("hstack", lambda: torch.hstack([a(), x(3, 4)]), "CatBackward0"),
    ("vstack", lambda: torch.vstack([a(), x(3, 4)]), "CatBackward0"),
    ("dstack", lambda: torch.dstack([a(), x(3, 4)]), "CatBackward0"),
    ("column_stack", lambda: torch.column_stack([a(), x(3, 4)]), "CatBackward0"),
]


@pytest.mark.parametrize("op, expected", [(f, e) for _, f, e in CASES], ids=[c[0] for c in CASES])
def test_grad_fn_has_pytorchs_name(op, expected):
    fn = op().grad_fn
    assert type(fn).__name__ == expected
    assert fn.name().rsplit("::", 1)[-1] == expected


def test_namespaced_nodes_keep_pytorchs_full_name():
    t = a() * 1
    t[1] = x(4)
    assert t.grad_fn.name() == "torch::autograd::CopySlices"


def test_composite_nodes_point_at_the_ops_inputs():
    w, b, inp = x(4), x(4), a()
    out = F.layer_norm(inp, (4,), w, b)
    nexts = [type(f).__name__ for f, _ in out.grad_fn.next_functions]
    assert nexts == ["AccumulateGrad"] * 3
    assert [f.variable._cdata == v._cdata for (f, _), v in zip(out.grad_fn.next_functions, (inp, w, b))] == [True] * 3


def test_composite_nodes_give_the_gradients_of_their_parts():
    # The named node differentiates exactly like the ops it is made of (float64 gradcheck),
    # also twice.
    from rstorch.autograd import gradcheck, gradgradcheck
    d = torch.rand(3, 4, dtype=torch.float64, requires_grad=True)
    for f in (lambda t: t.softmax(1), lambda t: t.log_softmax(0), lambda t: t.var(1), lambda t: t.norm(),
              lambda t: t.masked_fill(mask(), 0.5), lambda t: t.logsumexp(1), lambda t: t.clamp(0.3, 0.6),
              lambda t: F.layer_norm(t, (4,))):
        assert gradcheck(f, (d,))
        assert gradgradcheck(f, (d,))


def test_composite_graph_is_freed_after_backward():
    y = a().softmax(1)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()


def test_composite_node_with_one_tensor_given_twice():
    t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t.dot(t).backward()
    assert t.grad.tolist() == [2.0, 4.0, 6.0]


def _f64(*shape):
    return torch.rand(*shape, dtype=torch.float64).mul(0.8).add(0.1).requires_grad_()


def test_nodes_without_a_derivative_fail_in_backward_naming_the_op():
    for y, op in [(a().floor_divide(x(3, 4)), "floor_divide"), (a() // 2, "floor_divide"),
                  (2.0 % a(), "remainder")]:
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match=f"^derivative for aten::{op} is not implemented$"):
            y.sum().backward()


def test_div_with_floor_rounding_has_a_zero_gradient():
    t, u = a(), x(3, 4)
    t.div(u, rounding_mode="floor").sum().backward()
    assert t.grad.tolist() == [[0.0] * 4] * 3 and u.grad.tolist() == [[0.0] * 4] * 3


@pytest.mark.parametrize("name", ["maximum", "minimum", "atan2"])
@pytest.mark.parametrize("number", [2.0, 2])
def test_tensor_only_binary_ops_refuse_numbers(name, number):
    kind = type(number).__name__
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' \(position 1\) must be Tensor, not {kind}$"):
        getattr(a(), name)(number)


def test_pieces_are_the_outputs_of_one_node():
    t = a()
    for parts, n in [(t.chunk(2, 1), 2), (t.split(3, 1), 2), (t.split([1, 1, 2], 1), 3), (t.unbind(0), 3)]:
        fns = [p.grad_fn for p in parts]
        assert all(f is fns[0] for f in fns)
        assert [p.output_nr for p in parts] == list(range(n))
        assert parts[0].grad_fn.next_functions[0][0].variable is t
    # Pieces with no gradient contribute zeros.
    t.chunk(2, 1)[1].sum().backward()
    assert t.grad.tolist() == [[0.0, 0.0, 1.0, 1.0]] * 3
    t.grad = None
    (t.unbind(0)[2] * 2).sum().backward()
    assert t.grad.tolist() == [[0.0] * 4, [0.0] * 4, [2.0] * 4]


@pytest.mark.parametrize("f", [lambda t: t.chunk(3, 1), lambda t: t.split([1, 3, 1], 1), lambda t: t.unbind(1),
                               lambda t: t.split(2, 0)[1:], lambda t: (t.unbind(0)[1] * 3,)],
                         ids=["chunk", "split_sizes", "unbind", "split_some", "unbind_one"])
def test_pieces_gradcheck(f):
    from rstorch.autograd import gradcheck, gradgradcheck
    # contiguous, transposed, and broadcast (a (4, 1) input expanded)
    for t, pre in [(_f64(4, 5), lambda t: t), (_f64(5, 4), lambda t: t.t()), (_f64(4, 1), lambda t: t.expand(4, 5))]:
        assert gradcheck(lambda t: f(pre(t)), (t,))
        assert gradgradcheck(lambda t: f(pre(t)), (t,))


def test_in_place_writes_over_a_history():
    from rstorch.autograd import gradcheck, gradgradcheck
    t = a()
    y = (t * 2).zero_()
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    (y + t).sum().backward()
    assert t.grad.tolist() == [[1.0] * 4] * 3
    v = x()
    (a() * 1).fill_(v).sum().backward()
    assert abs(v.grad.item() - 12.0) < 1e-6
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."):
        (a() * 1).fill_(torch.ones(2))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        a().zero_()
    # Through a view: the base's node is CopySlices, as for any write through a view.
    b = a() * 1
    b[1:].zero_()
    assert type(b.grad_fn).__name__ == "CopySlices"
    # Tensors without history are simply written.
    assert torch.ones(2).fill_(3.0).grad_fn is None and torch.ones(2).zero_().tolist() == [0.0, 0.0]
    fill = lambda t, v: (t * t).fill_(v) * v
    for t in (_f64(3, 4), _f64(4, 3).t()):
        assert gradcheck(fill, (t, _f64()))
        assert gradgradcheck(fill, (t, _f64()))
        assert gradcheck(lambda t: (t * t).zero_() + t, (t,))


def test_accumulate_grad_variable_is_the_leaf_object():
    import rstorch.nn as nn
    leaves = [x(3), torch.ones(3, requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True),
              nn.Parameter(torch.ones(2)), torch.zeros(2).requires_grad_()]
    t = torch.zeros(2)
    t.requires_grad = True
    leaves.append(t)
    for leaf in leaves:
        y, z = leaf * 2, leaf + 1
        acc = y.grad_fn.next_functions[0][0]
        assert acc.variable is leaf and acc.variable is leaf
        # One node per leaf, the same object on every walk while the graph holds it.
        assert z.grad_fn.next_functions[0][0] is acc
        assert y.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[0][0]


_SOFT_TARGET = torch.rand(2, 3, 6, dtype=torch.float64).softmax(1)


@pytest.mark.parametrize("f", [lambda t: F.avg_pool1d(t, 2), lambda t: F.avg_pool1d(t, 3, 2, 1, ceil_mode=True),
                               lambda t: F.adaptive_avg_pool1d(t, 4), lambda t: F.adaptive_avg_pool1d(t, 1),
                               lambda t: F.pad(t, (1, 2), mode="reflect"), lambda t: F.pad(t, (2, -1), value=0.5),
                               lambda t: F.interpolate(t, scale_factor=2, mode="linear"),
                               lambda t: F.interpolate(t, size=9), lambda t: F.scaled_dot_product_attention(t, t, t),
                               lambda t: F.cross_entropy(t, _SOFT_TARGET), lambda t: F.linear(t, t[0], t[1, 0, :3])],
                         ids=["avg_pool1d", "avg_pool1d_ceil", "adaptive_avg_pool1d", "adaptive_avg_pool1d_1",
                              "pad_reflect", "pad_constant_crop", "interpolate_linear", "interpolate_nearest",
                              "sdpa_3d", "cross_entropy_soft", "linear_3d"])
def test_renamed_ops_gradcheck(f):
    from rstorch.autograd import gradcheck, gradgradcheck
    # contiguous, transposed, and broadcast (a (2, 1, 6) input expanded)
    for t, pre in [(_f64(2, 3, 6), lambda t: t), (_f64(2, 6, 3), lambda t: t.transpose(1, 2)),
                   (_f64(2, 1, 6), lambda t: t.expand(2, 3, 6))]:
        assert gradcheck(lambda t: f(pre(t)), (t,))
        assert gradgradcheck(lambda t: f(pre(t)), (t,))


@pytest.mark.parametrize("expr, f, edges", [
    ("1 - a", lambda a: 1 - a, ["AccumulateGrad"]),
    ("2 ** a", lambda a: 2 ** a, ["AccumulateGrad"]),
    ("2 % a", lambda a: 2.0 % a, ["AccumulateGrad"]),
    ("a % 2", lambda a: a % 2.0, ["AccumulateGrad"]),
    ("2 + a", lambda a: 2 + a, ["AccumulateGrad", None]),
    ("2 * a", lambda a: 2 * a, ["AccumulateGrad", None]),
    ("a - 1", lambda a: a - 1, ["AccumulateGrad", None]),
    ("a + b", lambda a: a + a.detach(), ["AccumulateGrad", None]),
])
def test_number_operands_in_next_functions_as_pytorch_lists_them(expr, f, edges):
    # PyTorch lists a number as an input of `t + 2` (second, also for `2 + t`), and not at all
    # for the overloads that take it as a Scalar (rsub, pow(number, t), remainder).
    a = torch.rand(3, requires_grad=True)
    y = f(a)
    got = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
    assert got == edges, expr
    if y.grad_fn.name() != "torch::autograd::NotImplemented":
        # The gradient still reaches the tensor, and a node hook sees one grad_input per edge.
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
        y.sum().backward()
        assert a.grad is not None and a.grad.shape == a.shape
        assert seen == [len(edges)]


def test_number_first_ops_gradcheck():
    from rstorch.autograd import gradcheck, gradgradcheck
    x = torch.rand(2, 3, dtype=torch.float64, requires_grad=True)
    for f in [lambda t: 1 - t, lambda t: 2 ** t, lambda t: 2 + t, lambda t: 3 * t, lambda t: t % 0.7]:
        for pre in [lambda t: t, lambda t: t.t()]:
            assert gradcheck(lambda t: f(pre(t)), (x,))
            assert gradgradcheck(lambda t: f(pre(t)), (x,))


# ----- whole graphs ------------------------------------------------------------------------------
# tests/fixtures/grad_fn_walks.txt is what `tools/grad_fn_names.py torch` prints under PyTorch: per
# case, the walk of the result's graph through `next_functions` (or the indices an op returns).
# Each case is run here on rstorch, from the same case list.

def _load_tool():
    import importlib.util
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("grad_fn_names", root / "tools" / "grad_fn_names.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    with open(root / "tests" / "fixtures" / "grad_fn_walks.txt") as fh:
        walks = dict(line.rstrip("\n").split("\t", 1) for line in fh if "\t" in line)
    return tool, walks


_TOOL, _WALKS = _load_tool()
_TOOL_CASES = _TOOL.cases(torch)


@pytest.mark.parametrize("case", sorted(_WALKS))
def test_graph_walk_is_pytorchs(case):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = _TOOL.describe(_TOOL_CASES[case]())
        except Exception as e:
            got = f"!{type(e).__name__}: {str(e)[:60]}"
    assert got == _WALKS[case]


def test_walk_format():
    t = x(3)
    assert _TOOL.describe(t * t.exp()) == "MulBackward0(AccumulateGrad, ExpBackward0(AccumulateGrad^))"
    assert _TOOL.describe(t.split(1)[2]) == "SplitBackward0(AccumulateGrad):2"
    assert _TOOL.describe(torch.tensor([3, 1, 2]).sort()[1]) == "- = [1, 2, 0]"


# ----- gradients through the paths rebuilt after PyTorch's steps --------------------------------

def _close(a, b):
    import numpy as np
    return a.shape == b.shape and np.allclose(a.detach().numpy(), b.detach().numpy())


def _gradchecks(f, *inputs):
    from rstorch.autograd import gradcheck, gradgradcheck
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


@pytest.mark.parametrize("eq, shapes", [
    ("ij,jk->ki", [(3, 4), (4, 5)]), ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]), ("ii->i", [(3, 3)]),
    ("ij->ji", [(3, 4)]), ("i,i->", [(4,), (4,)]), ("ij->", [(3, 4)]), ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("i,j->ij", [(3,), (4,)]), ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("iij->j", [(3, 3, 2)]), ("ij,kj", [(3, 4), (5, 4)]),
    ("ab,acd->dcb", [(2, 5), (2, 5, 2)]), ("i,ij->j", [(1,), (3, 4)]),
])
def test_einsum_gradcheck(eq, shapes):
    ts = [_f64(*s) for s in shapes]
    _gradchecks(lambda *a: torch.einsum(eq, *a), *ts)
    # non-contiguous operands: transposed copies of the same values
    tt = [t.detach().t().contiguous().t().requires_grad_() if t.dim() == 2 else t for t in ts]
    _gradchecks(lambda *a: torch.einsum(eq, *a), *tt)


def test_einsum_values_match_products():
    a, b, c = _f64(3, 4), _f64(4, 5), _f64(5, 2)
    assert _close(torch.einsum("ij,jk->ki", a, b), (a @ b).t())
    assert _close(torch.einsum("ij,jk,kl->il", a, b, c), a @ b @ c)
    assert _close(torch.einsum("ii->i", a[:, :3]), a[:, :3].diagonal())
    assert _close(torch.einsum("i,i->", a[0], a[1]), a[0].dot(a[1]))
    assert _close(torch.einsum("bij,bjk->bki", a.expand(2, 3, 4), b.expand(2, 4, 5)), (a @ b).t().expand(2, 5, 3))
    with pytest.raises(RuntimeError, match="einsum\\(\\): subscript j has size 5 for operand 1 which does not broadcast "
                                           "with previously seen size 4"):
        torch.einsum("ij,jk->ik", a, c)


@pytest.mark.parametrize("sa, sb", [((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (4,)), ((2, 2, 3, 4), (4, 5)),
                                    ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (2, 2, 4, 5)), ((2, 1, 3, 4), (3, 4, 5)),
                                    ((4,), (2, 2, 4, 5)), ((2, 3, 4), (2, 2, 4, 5))])
def test_matmul_ranks_gradcheck(sa, sb):
    a, b = _f64(*sa), _f64(*sb)
    _gradchecks(lambda a, b: a @ b, a, b)
    # one operand without a gradient takes the batched path instead of the folded one
    _gradchecks(lambda a: a @ b.detach(), a)
    _gradchecks(lambda b: a.detach() @ b, b)
    # transposed (non-contiguous) operands
    at = _f64(*sa[:-2], sa[-1], sa[-2]).transpose(-1, -2) if len(sa) >= 2 else a
    _gradchecks(lambda a, b: a @ b, at, b)


def test_matmul_values_by_path():
    a, b = torch.rand(2, 3, 4, dtype=torch.float64), torch.rand(4, 5, dtype=torch.float64)
    ref = torch.stack([a[0] @ b, a[1] @ b])
    assert _close(a @ b, ref)
    assert _close(a.requires_grad_() @ b, ref)
    assert _close(a.transpose(0, 1) @ b, ref.transpose(0, 1))
    v = torch.rand(4, dtype=torch.float64)
    assert _close(a.detach().transpose(1, 2).transpose(1, 2) @ v, torch.stack([a[0] @ v, a[1] @ v]))
    assert _close(v[:3] @ a.detach(), torch.stack([v[:3] @ a[0], v[:3] @ a[1]]))


@pytest.mark.parametrize("sa, sb", [((4,), (4,)), ((3, 4), (5, 4)), ((4,), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (5, 4)),
                                    ((3, 1), (5, 1))])
def test_inner_gradcheck(sa, sb):
    a, b = _f64(*sa), _f64(*sb)
    _gradchecks(lambda a, b: a.inner(b), a, b)
    ref = (a.reshape(-1, sa[-1]) @ b.reshape(-1, sb[-1]).t()).reshape(*sa[:-1], *sb[:-1])
    assert _close(a.inner(b), ref)


def test_outer_gradcheck():
    _gradchecks(lambda a, b: a.outer(b), _f64(3), _f64(4))


@pytest.mark.parametrize("make", [lambda: _f64(5, 3, 4).transpose(0, 1), lambda: _f64(2, 3, 4), lambda: _f64(4),
                                  lambda: _f64(2, 2, 3, 4), lambda: _f64(4, 3).t()],
                         ids=["3d_transposed", "3d", "1d", "4d", "2d_transposed"])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_layouts_gradcheck(make, with_bias):
    w, b = _f64(6, 4), _f64(6) if with_bias else None
    inp = make()
    f = (lambda i, w, b: F.linear(i, w, b)) if with_bias else (lambda i, w: F.linear(i, w))
    _gradchecks(f, *([inp, w, b] if with_bias else [inp, w]))
    ref = inp.detach() @ w.detach().t() + (b.detach() if with_bias else 0)
    assert _close(F.linear(inp, w, b), ref)


@pytest.mark.parametrize("shape, pad", [((2, 3, 6), (1, 2)), ((3, 6), (2, 1)), ((2, 3, 4, 5), (1, 2, 2, 1)),
                                        ((1, 2, 3, 4, 4), (1, 1, 2, 0, 0, 1)), ((2, 3, 6), (-1, 2)), ((2, 3, 6), (3, -2))])
def test_circular_pad_values_and_gradcheck(shape, pad):
    import numpy as np
    t = _f64(*shape)
    out = F.pad(t, pad, mode="circular")
    ref = t.detach().numpy()
    for i in range(len(pad) // 2):
        dim, left, right = t.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]
        # negative padding crops first; the positive padding wraps around what is left
        n = ref.shape[dim]
        ref = np.take(ref, range(max(-left, 0), n - max(-right, 0)), axis=dim)
        m = ref.shape[dim]
        ref = np.take(ref, [j % m for j in range(-max(left, 0), m + max(right, 0))], axis=dim)
    np.testing.assert_allclose(out.detach().numpy(), ref)
    _gradchecks(lambda t: F.pad(t, pad, mode="circular"), t)
    _gradchecks(lambda t: F.pad(t.transpose(-1, -2), pad[:2], mode="circular"), t)


def test_copies_and_fills_over_a_history_gradcheck():
    def copy_into(t, v):
        y = t * t
        y.copy_(v * 2)
        return y + t
    def fill_view(t):
        y = t * t
        y[1:].fill_(2.0)
        y[0, 0] = 3.0
        return y * t
    _gradchecks(copy_into, _f64(3, 4), _f64(3, 4))
    _gradchecks(fill_view, _f64(3, 4))
    t = a()
    y = torch.zeros(3, 4)
    y.copy_(t)
    assert [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions] == [None, "AccumulateGrad"]
    y.sum().backward()
    assert t.grad.tolist() == [[1.0] * 4] * 3


@pytest.mark.parametrize("f", [lambda t: t[:, :], lambda t: t[...], lambda t: t[0:100, 1], lambda t: t[:, 1:2].reshape(3),
                               lambda t: t.t().reshape(4, 3), lambda t: t.t().flatten()],
                         ids=["alias", "ellipsis", "full_slice", "reshape_alias", "reshape_alias_t", "reshape_copy"])
def test_views_gradcheck(f):
    _gradchecks(f, _f64(3, 4))


# ----- which of tied elements median and kthvalue pick --------------------------------------------
# PyTorch's CPU kernels: median takes the element a stable sort puts in the middle; kthvalue the
# one its quickselect leaves at rank k. The expected indices are PyTorch's.

_TIES = [[2.0, 1.0, 2.0, 1.0, 3.0, 1.0], [5.0, 5.0, 5.0, 4.0, 4.0, 4.0], [0.0] * 6, [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_median_ties_pick_pytorchs_index(dtype):
    t = torch.tensor(_TIES, dtype=dtype)
    assert t.median(1).indices.tolist() == [5, 5, 2, 4]
    assert t.median(0).indices.tolist() == [3, 0, 3, 0, 3, 0]
    assert t.t().median(0).indices.tolist() == [5, 5, 2, 4]
    assert t[:, :5].median(1).indices.tolist() == [0, 0, 2, 4]
    assert t.reshape(2, 4, 3).median(2).indices.tolist() == [[0, 2, 1, 1], [1, 1, 2, 0]]
    assert torch.tensor([3, 1, 3, 1, 2, 2]).median(0).indices.item() == 4
    assert torch.tensor([float(i % 3) for i in range(41)]).median(0).indices.item() == 19


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_kthvalue_ties_pick_pytorchs_index(dtype):
    t = torch.tensor(_TIES, dtype=dtype)
    assert t.kthvalue(2, 1).indices.tolist() == [3, 3, 2, 2]
    assert t.kthvalue(3, 1).indices.tolist() == [1, 4, 0, 0]
    assert t.kthvalue(2, 0).indices.tolist() == [3, 0, 3, 0, 3, 0]
    assert t.reshape(2, 2, 6).kthvalue(1, 1).indices.tolist() == [[0] * 6] * 2
    assert torch.tensor([[3, 1, 3, 1, 2, 2, 1]], dtype=dtype).kthvalue(4, 1).indices.tolist() == [5]
    assert torch.tensor([float(i % 3) for i in range(40)]).kthvalue(20).indices.item() == 25
    # NaN ranks above every number
    n = torch.tensor([[1.0, float("nan"), 2.0, float("nan")], [3.0, 1.0, 2.0, 1.0]])
    assert n.kthvalue(3, 1).indices.tolist() == [1, 2]
    assert n.median(1).indices.tolist() == [1, 3]
    # values still the k-th smallest, gradients to the picked element
    assert t.kthvalue(3, 1).values.tolist() == [1, 4, 0, 1]


def test_kthvalue_ties_gradient_reaches_the_picked_element():
    t = torch.tensor(_TIES, dtype=torch.float64, requires_grad=True)
    v, i = t.kthvalue(2, 1)
    v.sum().backward()
    expected = [[0.0] * 6 for _ in range(4)]
    for row, col in enumerate(i.tolist()):
        expected[row][col] = 1.0
    assert t.grad.tolist() == expected


def test_median_of_nothing_is_pytorchs():
    import math
    assert math.isnan(torch.tensor([]).median().item())
    assert math.isnan(torch.tensor([], dtype=torch.float64).median().item())
    assert torch.tensor([], dtype=torch.int64).median().item() == -2 ** 63
    assert torch.tensor([], dtype=torch.int32).median().item() == -2 ** 31
    assert torch.tensor([], dtype=torch.int16).median().item() == 0
    assert torch.tensor([], dtype=torch.bool).median().item() is True
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        torch.tensor([True, False]).median(0)
