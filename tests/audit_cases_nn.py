"""Audit cases, nn issue 22 added: losses, 3-d and Lp pooling, unpooling, folds, 3-d convolutions and
norms, lazy modules, transformers, nn.utils, torch.special aliases (see audit_common). Modules get
their parameters from `fill` (the same values in both frameworks, by parameter name) instead of
their random initialisation."""
import math

from audit_common import Case, values

C = Case


def fill(T, module):
    """Deterministic parameters: each named parameter gets values(…) scaled by 1/sqrt(fan-in)."""
    with T.no_grad():
        for j, (_, p) in enumerate(sorted(module.named_parameters(), key=lambda item: item[0])):
            scale = 1.0 / math.sqrt(p.shape[-1] if p.dim() > 1 else max(p.numel(), 1))
            p.copy_(T.tensor(values(p.numel(), 100 + j, "real"), dtype=p.dtype).reshape(p.shape) * scale)
    return module


def mod(T, cls, *args, **kwargs):
    return fill(T, getattr(T.nn, cls)(*args, **kwargs).double())


def lazy(T, cls, x, *args, **kwargs):
    """A lazy module after its first call (which infers its sizes), its parameters then filled."""
    m = getattr(T.nn, cls)(*args, **kwargs).double()
    with T.no_grad():
        m(x)
    return fill(T, m)


def sign(T, values_):
    return T.tensor(values_, dtype=T.float64)


def _ids(T, values_):
    return T.tensor(values_)


def ctc(T, x, reduction, zero_infinity=False):
    logp = x.log_softmax(2)
    return T.nn.CTCLoss(blank=0, reduction=reduction, zero_infinity=zero_infinity)(
        logp, _ids(T, [[1, 2], [1, 1]]), _ids(T, [5, 4]), _ids(T, [2, 2]))


def unpool(T, dims, x):
    pool = getattr(T.nn, f"MaxPool{dims}d")(2, return_indices=True)
    out, idx = pool(x)
    return getattr(T.nn, f"MaxUnpool{dims}d")(2)(out, idx)


def transformer(T, src, tgt):
    m = mod(T, "Transformer", d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=6,
            dropout=0.0, batch_first=True)
    return m(src, tgt, tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.float64))


def weight_normed(T, g, v, x):
    m = T.nn.utils.weight_norm(T.nn.Linear(3, 2, bias=False).double())
    return T.nn.utils.stateless.functional_call(m, {"weight_g": g, "weight_v": v}, (x,))


def spectral_normed(T, x):
    m = T.nn.utils.spectral_norm(fill(T, T.nn.Linear(3, 2).double()))
    with T.no_grad():
        # the power iteration starts from random u, v: the same start in both frameworks
        m.weight_u.copy_(T.tensor(values(2, 7, "real"), dtype=T.float64))
        m.weight_v.copy_(T.tensor(values(3, 8, "real"), dtype=T.float64))
        m(x)  # one power iteration; eval mode then keeps u and v fixed
    return m.eval()(x)


def clip(T, a, b, fn, *args):
    pa, pb = T.nn.Parameter(a.detach().clone()), T.nn.Parameter(b.detach().clone())
    pa.grad, pb.grad = a.detach() * 3, b.detach() * 3
    norm = fn([pa, pb], *args)
    return (norm if norm is not None else T.zeros(()), pa.grad, pb.grad)


def cases():
    out = [
        # losses (targets fixed inside the call)
        C("nn.CosineEmbeddingLoss", lambda T, a, b: T.nn.CosineEmbeddingLoss(margin=0.1)(a, b, sign(T, [1, -1, 1])),
          [(3, 4), (3, 4)], gg=True),
        C("nn.CosineEmbeddingLoss-sum", lambda T, a, b: T.nn.CosineEmbeddingLoss(-0.2, reduction="sum")(
            a, b, sign(T, [-1, -1, 1])), [(3, 4), (3, 4)]),
        C("nn.GaussianNLLLoss", lambda T, x, t, v: T.nn.GaussianNLLLoss()(x, t, v), [(3, 2), (3, 2), (3, 2)],
          ("real", "real", "pos"), gg=True),
        C("nn.GaussianNLLLoss-full", lambda T, x, t, v: T.nn.GaussianNLLLoss(full=True, eps=0.1, reduction="none")(
            x, t, v), [(3, 2), (3, 2), (3, 1)], ("real", "real", "pos")),
        C("nn.HingeEmbeddingLoss", lambda T, x: T.nn.HingeEmbeddingLoss(margin=1.5)(x, sign(T, [1, -1, -1, 1])),
          [(4,)], gg=True),
        C("nn.MarginRankingLoss", lambda T, a, b: T.nn.MarginRankingLoss(margin=0.1)(a, b, sign(T, [1, -1, 1, -1])),
          [(4,), (4,)], gg=True),
        C("nn.MultiLabelMarginLoss", lambda T, x: T.nn.MultiLabelMarginLoss()(x, _ids(T, [[3, 0, -1, 1], [1, 2, 3, -1]])),
          [(2, 4)], gg=True),
        C("nn.MultiLabelSoftMarginLoss", lambda T, x: T.nn.MultiLabelSoftMarginLoss(weight=sign(T, [1, 2, 0.5, 1]))(
            x, sign(T, [[1, 0, 0, 1], [0, 1, 1, 1]])), [(2, 4)], gg=True),
        C("nn.MultiMarginLoss", lambda T, x: T.nn.MultiMarginLoss()(x, _ids(T, [1, 0, 3])), [(3, 4)], gg=True),
        C("nn.MultiMarginLoss-p2", lambda T, x: T.nn.MultiMarginLoss(p=2, margin=0.5, weight=sign(T, [1, 2, 3, 4]),
                                                                     reduction="none")(x, _ids(T, [1, 0, 3])), [(3, 4)]),
        C("nn.NLLLoss2d", lambda T, x: T.nn.NLLLoss2d()(x.log_softmax(1), _ids(T, [[[0, 2], [1, 1]], [[2, 2], [0, 1]]])),
          [(2, 3, 2, 2)]),
        C("nn.PoissonNLLLoss", lambda T, x, t: T.nn.PoissonNLLLoss()(x, t), [(3, 4), (3, 4)], ("real", "pos"), gg=True),
        C("nn.PoissonNLLLoss-full", lambda T, x, t: T.nn.PoissonNLLLoss(log_input=False, full=True)(x, t * 2),
          [(3, 4), (3, 4)], ("pos", "pos")),
        C("nn.SoftMarginLoss", lambda T, x: T.nn.SoftMarginLoss()(x, sign(T, [[1, -1, 1], [-1, -1, 1]])), [(2, 3)],
          gg=True),
        C("nn.TripletMarginLoss", lambda T, a, p, n: T.nn.TripletMarginLoss(margin=2.0)(a, p, n),
          [(3, 4), (3, 4), (3, 4)], gg=True),
        C("nn.TripletMarginLoss-swap", lambda T, a, p, n: T.nn.TripletMarginLoss(p=1, swap=True, reduction="sum")(a, p, n),
          [(3, 4), (3, 4), (3, 4)]),
        C("nn.TripletMarginWithDistanceLoss", lambda T, a, p, n: T.nn.TripletMarginWithDistanceLoss(margin=3.0)(a, p, n),
          [(3, 4), (3, 4), (3, 4)], gg=True),
        C("nn.TripletMarginWithDistanceLoss-fn", lambda T, a, p, n: T.nn.TripletMarginWithDistanceLoss(
            distance_function=lambda x, y: 1 - T.nn.functional.cosine_similarity(x, y), swap=True)(a, p, n),
          [(3, 4), (3, 4), (3, 4)]),
        C("nn.CTCLoss", lambda T, x: ctc(T, x, "mean"), [(5, 2, 3)]),
        C("nn.CTCLoss-sum", lambda T, x: ctc(T, x, "sum", zero_infinity=True), [(5, 2, 3)]),
        C("nn.AdaptiveLogSoftmaxWithLoss", lambda T, x: mod(T, "AdaptiveLogSoftmaxWithLoss", 4, 6, [2, 4], div_value=2.0)(
            x, _ids(T, [0, 3, 5])), [(3, 4)]),
        C("nn.LinearCrossEntropyLoss", lambda T, x: mod(T, "LinearCrossEntropyLoss", 4, 3, bias=True)(
            x, _ids(T, [0, 2, 1])), [(3, 4)]),
        C("F.linear_cross_entropy", lambda T, x, w: T.nn.functional.linear_cross_entropy(
            x, w, _ids(T, [2, 0, 1]), label_smoothing=0.1), [(3, 4), (3, 4)]),
        # 3-d and Lp pooling, unpooling, folds
        C("nn.AdaptiveAvgPool3d", lambda T, x: T.nn.AdaptiveAvgPool3d((2, 1, 3))(x), [(1, 2, 3, 4, 4)], gg=True),
        C("nn.AdaptiveMaxPool3d", lambda T, x: T.nn.AdaptiveMaxPool3d(2)(x), [(1, 2, 3, 4, 4)], "spread"),
        C("F.adaptive_max_pool3d_with_indices", lambda T, x: T.nn.functional.adaptive_max_pool3d_with_indices(
            x, (1, 2, 2), return_indices=True), [(2, 3, 4, 4)], "spread"),
        C("nn.AvgPool3d", lambda T, x: T.nn.AvgPool3d(2, stride=1, padding=1, count_include_pad=False)(x),
          [(1, 1, 2, 3, 3)], gg=True),
        C("nn.MaxPool3d", lambda T, x: T.nn.MaxPool3d(2, stride=1)(x), [(1, 2, 3, 3, 3)], "spread"),
        C("F.max_pool3d_with_indices", lambda T, x: T.nn.functional.max_pool3d_with_indices(x, 2, return_indices=True),
          [(1, 2, 4, 4)], "spread"),
        C("F.max_pool1d_with_indices", lambda T, x: T.nn.functional.max_pool1d_with_indices(x, 2, 1, return_indices=True),
          [(2, 5)], "spread"),
        C("nn.LPPool1d", lambda T, x: T.nn.LPPool1d(2, 2)(x), [(1, 2, 6)], "pos", gg=True),
        C("F.lp_pool1d", lambda T, x: T.nn.functional.lp_pool1d(x, 3, 3, ceil_mode=True), [(2, 7)], "pos"),
        C("nn.LPPool2d", lambda T, x: T.nn.LPPool2d(1.5, (2, 1))(x), [(1, 1, 4, 3)], "pos", gg=True),
        C("nn.LPPool3d", lambda T, x: T.nn.LPPool3d(2, 2)(x), [(1, 1, 2, 4, 4)], "pos"),
        C("nn.MaxUnpool1d", lambda T, x: unpool(T, 1, x), [(1, 2, 6)], "spread"),
        C("nn.MaxUnpool2d", lambda T, x: unpool(T, 2, x), [(1, 1, 4, 4)], "spread"),
        C("nn.MaxUnpool3d", lambda T, x: unpool(T, 3, x), [(1, 1, 2, 4, 4)], "spread"),
        C("F.max_unpool1d", lambda T, x: T.nn.functional.max_unpool1d(
            *T.nn.functional.max_pool1d(x, 2, return_indices=True), 2, output_size=[7]), [(1, 7)], "spread"),
        C("F.max_unpool2d", lambda T, x: T.nn.functional.max_unpool2d(
            *T.nn.functional.max_pool2d(x, 2, return_indices=True), 2, stride=2), [(1, 4, 4)], "spread"),
        C("nn.Fold", lambda T, x: T.nn.Fold((3, 3), 2)(x), [(1, 4, 4)], gg=True),
        C("nn.Unfold", lambda T, x: T.nn.Unfold(2, dilation=1, padding=1, stride=2)(x), [(1, 2, 3, 3)], gg=True),
        # 3-d convolutions and norms, lazy modules
        C("nn.Conv3d", lambda T, x: mod(T, "Conv3d", 2, 2, 2, padding=1)(x), [(1, 2, 2, 3, 3)], gg=True),
        C("nn.ConvTranspose3d", lambda T, x: mod(T, "ConvTranspose3d", 2, 1, 2, stride=2)(x), [(1, 2, 2, 2, 2)], gg=True),
        C("nn.BatchNorm3d", lambda T, x: mod(T, "BatchNorm3d", 2)(x), [(2, 2, 2, 2, 2)], gg=True),
        C("nn.LazyConv3d", lambda T, x: lazy(T, "LazyConv3d", x, 2, 2)(x), [(1, 2, 2, 3, 3)]),
        C("nn.LazyConvTranspose3d", lambda T, x: lazy(T, "LazyConvTranspose3d", x, 1, 2)(x), [(1, 2, 2, 2, 2)]),
        C("nn.LazyBatchNorm3d", lambda T, x: lazy(T, "LazyBatchNorm3d", x)(x), [(2, 2, 2, 2, 2)]),
        C("nn.LazyInstanceNorm3d", lambda T, x: lazy(T, "LazyInstanceNorm3d", x, affine=True)(x), [(2, 2, 2, 2, 2)]),
        C("nn.EmbeddingBag", lambda T, w: mod(T, "EmbeddingBag", 5, 3, mode="sum")(
            _ids(T, [0, 2, 4, 1, 2]), _ids(T, [0, 2]), per_sample_weights=w), [(5,)], gg=True),
        # transformers (dropout 0: deterministic)
        C("nn.Transformer", transformer, [(2, 3, 4), (2, 3, 4)]),
        C("nn.TransformerDecoderLayer", lambda T, t, m: mod(T, "TransformerDecoderLayer", 4, 2, 6, dropout=0.0,
                                                             norm_first=True)(t, m), [(3, 2, 4), (2, 2, 4)]),
        C("nn.TransformerDecoder", lambda T, t, m: fill(T, T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(
            4, 2, 6, dropout=0.0, batch_first=True).double(), 2))(t, m), [(2, 3, 4), (2, 2, 4)]),
        # nn.utils
        C("nn.utils.parameters_to_vector", lambda T, a, b: T.nn.utils.parameters_to_vector([a, b]), [(2, 3), (4,)]),
        C("nn.utils.vector_to_parameters", lambda T, v: _unvector(T, v), [(9,)], grad=False),
        C("nn.utils.weight_norm", weight_normed, [(2, 1), (2, 3), (4, 3)], gg=True),
        C("nn.utils.spectral_norm", spectral_normed, [(4, 3)]),
        C("nn.utils.clip_grad_norm", lambda T, a, b: clip(T, a, b, T.nn.utils.clip_grad_norm, 1.0),
          [(2, 3), (4,)], grad=False),
        C("nn.utils.clip_grads_with_norm_", lambda T, a, b: clip(T, a, b, T.nn.utils.clip_grads_with_norm_, 1.0,
                                                                 T.tensor(7.5, dtype=T.float64)), [(2, 3), (4,)], grad=False),
        C("nn.utils.fuse_conv_bn_weights", lambda T, w, b, m, v, g, bb: T.nn.utils.fuse_conv_bn_weights(
            w, b, m, v, 1e-5, g, bb), [(2, 1, 2), (2,), (2,), (2,), (2,), (2,)],
          ("real", "real", "real", "pos", "real", "real"), grad=False),
        C("nn.utils.fuse_linear_bn_weights", lambda T, w, b, m, v, g, bb: T.nn.utils.fuse_linear_bn_weights(
            w, b, m, v, 1e-3, g, bb), [(2, 3), (2,), (2,), (2,), (2,), (2,)],
          ("real", "real", "real", "pos", "real", "real"), grad=False),
        # torch.special
        C("special.expit", lambda T, x: T.special.expit(x), [(3, 4)], gg=True),
        C("special.gammaln", lambda T, x: T.special.gammaln(x), [(3, 4)], "pos", gg=True),
        C("special.psi", lambda T, x: T.special.psi(x), [(3, 4)], "pos", gg=True),
        C("special.multigammaln", lambda T, x: T.special.multigammaln(x + 1.0, 3), [(3, 4)], "pos", gg=True),
        C("special.entr", lambda T, x: T.special.entr(x), [(3, 4)], "pos"),
        C("special.ndtr", lambda T, x: T.special.ndtr(x), [(3, 4)]),
        C("special.erf", lambda T, x: T.special.erf(x), [(3, 4)]),
        C("special.exp2", lambda T, x: T.special.exp2(x), [(3, 4)]),
        C("special.expm1", lambda T, x: T.special.expm1(x), [(3, 4)]),
        C("special.log1p", lambda T, x: T.special.log1p(x), [(3, 4)], "pos"),
    ]
    return [(c.name, c) for c in out]


def _unvector(T, v):
    m = T.nn.Linear(2, 3).double()
    T.nn.utils.vector_to_parameters(v, m.parameters())
    return tuple(p.detach().clone() for p in m.parameters())
