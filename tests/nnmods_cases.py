"""The nn layers and functional forms whose values, gradients, reprs and errors are compared with
PyTorch's: one list for both frameworks (tests/record_nnmods.py runs it on PyTorch and writes
fixtures/nnmods.json; tests/python/test_nnmods.py runs it on rstorch). Inputs and parameters
are float64 and deterministic (no random draws), so both sides compute on the same numbers."""
import math
import warnings


def values(n, seed):
    """n reproducible values in about [-2.5, 2.5], none near the kinks the cases use (0, ±0.5)."""
    out = []
    for i in range(n):
        v = 2.5 * math.sin(1.37 * i + 0.71 * seed + 0.3)
        if abs(abs(v) - 0.5) < 0.02 or abs(v) < 0.02:
            v += 0.05
        out.append(round(v, 6))
    return out


def tensor(torch, shape, seed, requires_grad=False):
    n = math.prod(shape)
    return torch.tensor(values(n, seed), dtype=torch.float64).reshape(shape).requires_grad_(requires_grad)


def set_params(torch, module, seed=100):
    """Gives every parameter reproducible values (in name order)."""
    with torch.no_grad():
        for k, (_, p) in enumerate(sorted(module.named_parameters())):
            p.copy_(tensor(torch, tuple(p.shape), seed + k))
    return module


def _flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def run(torch, fn, shapes):
    """Calls fn on float64 inputs of `shapes` that require grad; returns the outputs, the
    gradient of sum(out * w) (w reproducible) for each input and each parameter of a module fn,
    and a module's buffers afterwards."""
    inputs = [tensor(torch, s, i) for i, s in enumerate(shapes)]
    leaves = [x.clone().requires_grad_(True) for x in inputs]
    out = fn(*leaves)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    loss = None
    for k, o in enumerate(outs):
        if o.requires_grad:
            term = (o * tensor(torch, tuple(o.shape), 50 + k)).sum()
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()
    record = {"outputs": [{"shape": list(o.shape), "values": _flat(o)} for o in outs],
              "grads": [None if x.grad is None else _flat(x.grad) for x in leaves]}
    module = getattr(fn, "module", None)
    if module is not None:
        record["param_grads"] = {n: None if p.grad is None else _flat(p.grad)
                                 for n, p in sorted(module.named_parameters())}
        record["buffers"] = {n: _flat(b) for n, b in sorted(module.named_buffers())}
        record["repr"] = repr(module)
    return record


def capture(fn):
    """What a call raised (type and text) and warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:  # noqa: BLE001 (what either framework raises is the record)
            err = [type(e).__name__, str(e)]
    return {"error": err, "warnings": [[type(w.message).__name__, str(w.message)] for w in caught]}


def _mod(torch, module, train=True, params=False):
    """fn calling `module` (in float64; with reproducible parameters if `params`), with the module
    attached for its parameters and buffers."""
    module.double().train(train)
    if params:
        set_params(torch, module)

    def fn(*xs):
        return module(*xs)
    fn.module = module
    return fn


def _lazy(torch, module, shape):
    """A lazy module after a first call (which sizes it) and reproducible parameters."""
    module.double()(tensor(torch, shape, 9))
    return set_params(torch, module)


def value_cases(torch, F, nn):
    """name -> (fn, input shapes). fn is built afresh for each framework."""
    s1, s2, s3 = (2, 3, 5), (2, 2, 4, 5), (1, 2, 3, 4, 3)

    def inst_running(x):
        rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
        out = F.instance_norm(x, rm, rv, momentum=0.3)
        return out, rm, rv

    def inst_eval(x, w, b):
        rm = torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64)
        rv = torch.tensor([1.5, 0.5, 2.0], dtype=torch.float64)
        return F.instance_norm(x, rm, rv, w, b, use_input_stats=False)

    def inst_norm_trained(train):
        m = set_params(torch, nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.2).double())
        m(tensor(torch, (2, 3, 3, 4), 7))
        return _mod(torch, m, train)

    # A small image-to-image network of the kind these layers are used in (super-resolution style).
    net = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(2, 8, 3), nn.InstanceNorm2d(8, affine=True), nn.PReLU(8),
                        nn.PixelShuffle(2), nn.ReplicationPad2d((0, 1, 1, 0)), nn.Conv2d(2, 4, 2), nn.Hardswish(),
                        nn.ChannelShuffle(2), nn.Upsample(scale_factor=2, mode="bilinear"), nn.RMSNorm([16]),
                        nn.Softshrink(0.1), nn.LocalResponseNorm(2))

    return {
        "network": (_mod(torch, net, params=True), [(2, 2, 4, 4)]),
        "F.hardshrink": (lambda x: F.hardshrink(x), [(3, 4)]),
        "F.hardshrink_1.2": (lambda x: F.hardshrink(x, 1.2), [(3, 4)]),
        "F.softshrink": (lambda x: F.softshrink(x), [(3, 4)]),
        "F.softshrink_1.0": (lambda x: F.softshrink(x, lambd=1.0), [(3, 4)]),
        "F.rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3), [(3, 4)]),
        "F.rrelu__eval": (lambda x: F.rrelu_(x * 1, 0.1, 0.3), [(3, 4)]),
        "F.relu_": (lambda x: F.relu_(x * 1), [(3, 4)]),
        "F.elu_": (lambda x: F.elu_(x * 1, 0.7), [(3, 4)]),
        "F.celu_": (lambda x: F.celu_(x * 1, 1.3), [(3, 4)]),
        "F.selu_": (lambda x: F.selu_(x * 1), [(3, 4)]),
        "F.leaky_relu_": (lambda x: F.leaky_relu_(x * 1, 0.2), [(3, 4)]),
        "F.hardtanh_": (lambda x: F.hardtanh_(x * 1, -0.8, 1.1), [(3, 4)]),
        "F.threshold_": (lambda x: F.threshold_(x * 1, 0.3, -1.5), [(3, 4)]),
        "F.pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), [(2, 8, 3, 2)]),
        "F.pixel_shuffle_unbatched": (lambda x: F.pixel_shuffle(x, 3), [(9, 2, 1)]),
        "F.pixel_shuffle_5d": (lambda x: F.pixel_shuffle(x, 2), [(2, 2, 4, 2, 3)]),
        "F.pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [(2, 2, 4, 6)]),
        "F.pixel_unshuffle_unbatched": (lambda x: F.pixel_unshuffle(x, 3), [(1, 3, 6)]),
        "F.channel_shuffle": (lambda x: F.channel_shuffle(x, 3), [(2, 6, 3)]),
        "F.channel_shuffle_4d": (lambda x: F.channel_shuffle(x, 2), [(2, 6, 2, 2)]),
        "F.native_channel_shuffle": (lambda x: F.native_channel_shuffle(x.detach(), 2), [(1, 4, 3)]),
        "F.rms_norm": (lambda x: F.rms_norm(x, [4]), [(2, 3, 4)]),
        "F.rms_norm_weight": (lambda x, w: F.rms_norm(x, [3, 4], w, eps=1e-3), [(2, 3, 4), (3, 4)]),
        "F.instance_norm": (lambda x: F.instance_norm(x), [(2, 3, 5)]),
        "F.instance_norm_affine": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3),
                                   [(2, 3, 2, 3), (3,), (3,)]),
        "F.instance_norm_running": (inst_running, [(2, 3, 4)]),
        "F.instance_norm_eval": (inst_eval, [(2, 3, 4), (3,), (3,)]),
        "F.local_response_norm": (lambda x: F.local_response_norm(x, 3), [(2, 5, 3)]),
        "F.local_response_norm_4d": (lambda x: F.local_response_norm(x, 2, alpha=0.1, beta=0.6, k=2.0),
                                     [(2, 6, 2, 3)]),
        "F.local_response_norm_5d": (lambda x: F.local_response_norm(x, 4, alpha=0.5), [(1, 5, 2, 2, 2)]),
        "F.upsample_nearest": (lambda x: F.upsample_nearest(x, scale_factor=2), [(1, 2, 3, 3)]),
        "F.upsample_bilinear": (lambda x: F.upsample_bilinear(x, size=(5, 4)), [(1, 2, 3, 3)]),
        "F.alpha_dropout_eval": (lambda x: F.alpha_dropout(x, 0.3), [(3, 4)]),
        "F.feature_alpha_dropout_eval": (lambda x: F.feature_alpha_dropout(x, 0.3, training=False), [(2, 3, 4)]),
        "CELU": (_mod(torch, nn.CELU(0.7)), [(3, 4)]),
        "GLU": (_mod(torch, nn.GLU(1)), [(3, 4)]),
        "Hardshrink": (_mod(torch, nn.Hardshrink(0.3)), [(3, 4)]),
        "Hardsigmoid": (_mod(torch, nn.Hardsigmoid()), [(3, 4)]),
        "Hardswish": (_mod(torch, nn.Hardswish()), [(3, 4)]),
        "LogSigmoid": (_mod(torch, nn.LogSigmoid()), [(3, 4)]),
        "Mish": (_mod(torch, nn.Mish()), [(3, 4)]),
        "PReLU": (_mod(torch, nn.PReLU(3), params=True), [(2, 3, 4)]),
        "PReLU_single": (_mod(torch, nn.PReLU(init=0.1)), [(2, 3, 4)]),
        "RReLU_eval": (_mod(torch, nn.RReLU(0.2, 0.4), train=False), [(3, 4)]),
        "SELU": (_mod(torch, nn.SELU()), [(3, 4)]),
        "Softmin": (_mod(torch, nn.Softmin(1)), [(3, 4)]),
        "Softmax2d": (_mod(torch, nn.Softmax2d()), [(2, 3, 2, 2)]),
        "Softmax2d_unbatched": (_mod(torch, nn.Softmax2d()), [(3, 2, 2)]),
        "Softshrink": (_mod(torch, nn.Softshrink(0.7)), [(3, 4)]),
        "Softsign": (_mod(torch, nn.Softsign()), [(3, 4)]),
        "Tanhshrink": (_mod(torch, nn.Tanhshrink()), [(3, 4)]),
        "Threshold": (_mod(torch, nn.Threshold(0.1, 20.0)), [(3, 4)]),
        "ZeroPad1d": (_mod(torch, nn.ZeroPad1d((1, 2))), [s1]),
        "ZeroPad2d": (_mod(torch, nn.ZeroPad2d((1, 0, 2, 1))), [s2]),
        "ZeroPad3d": (_mod(torch, nn.ZeroPad3d(1)), [s3]),
        "ConstantPad1d": (_mod(torch, nn.ConstantPad1d(2, 3.5)), [s1]),
        "ConstantPad2d": (_mod(torch, nn.ConstantPad2d((0, 1, 2, 3), -1.0)), [s2]),
        "ConstantPad3d": (_mod(torch, nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 0.5)), [s3]),
        "ReflectionPad1d": (_mod(torch, nn.ReflectionPad1d((3, 1))), [s1]),
        "ReflectionPad2d": (_mod(torch, nn.ReflectionPad2d((1, 2, 3, 0))), [s2]),
        "ReflectionPad3d": (_mod(torch, nn.ReflectionPad3d(1)), [s3]),
        "ReplicationPad1d": (_mod(torch, nn.ReplicationPad1d((3, 1))), [s1]),
        "ReplicationPad2d": (_mod(torch, nn.ReplicationPad2d((1, 2, 3, 0))), [s2]),
        "ReplicationPad3d": (_mod(torch, nn.ReplicationPad3d((1, 2, 0, 1, 2, 1))), [s3]),
        "CircularPad1d": (_mod(torch, nn.CircularPad1d((3, 1))), [s1]),
        "CircularPad2d": (_mod(torch, nn.CircularPad2d((1, 2, 3, 0))), [s2]),
        "CircularPad3d": (_mod(torch, nn.CircularPad3d(1)), [s3]),
        "ReflectionPad2d_unbatched": (_mod(torch, nn.ReflectionPad2d(1)), [(2, 4, 5)]),
        "Upsample_nearest": (_mod(torch, nn.Upsample(scale_factor=2)), [(1, 2, 3, 3)]),
        "Upsample_bilinear": (_mod(torch, nn.Upsample(size=(5, 7), mode="bilinear", align_corners=False)),
                              [(1, 2, 3, 3)]),
        "Upsample_linear": (_mod(torch, nn.Upsample(scale_factor=1.5, mode="linear")), [(1, 2, 4)]),
        "UpsamplingNearest2d": (_mod(torch, nn.UpsamplingNearest2d(size=5)), [(1, 2, 3, 3)]),
        "UpsamplingBilinear2d": (_mod(torch, nn.UpsamplingBilinear2d(scale_factor=2)), [(1, 2, 3, 3)]),
        "CosineSimilarity": (_mod(torch, nn.CosineSimilarity()), [(3, 4), (3, 4)]),
        "CosineSimilarity_dim0": (_mod(torch, nn.CosineSimilarity(dim=0, eps=1e-6)), [(3, 4), (3, 4)]),
        "PairwiseDistance": (_mod(torch, nn.PairwiseDistance()), [(3, 4), (3, 4)]),
        "PairwiseDistance_p1_keepdim": (_mod(torch, nn.PairwiseDistance(p=1.0, keepdim=True)), [(3, 4), (3, 4)]),
        "PixelShuffle": (_mod(torch, nn.PixelShuffle(2)), [(2, 8, 2, 3)]),
        "PixelUnshuffle": (_mod(torch, nn.PixelUnshuffle(2)), [(2, 2, 4, 2)]),
        "ChannelShuffle": (_mod(torch, nn.ChannelShuffle(2)), [(2, 4, 3)]),
        "AlphaDropout_eval": (_mod(torch, nn.AlphaDropout(0.4), train=False), [(3, 4)]),
        "FeatureAlphaDropout_eval": (_mod(torch, nn.FeatureAlphaDropout(0.4), train=False), [(2, 3, 4)]),
        "RMSNorm": (_mod(torch, nn.RMSNorm([4]), params=True), [(2, 3, 4)]),
        "RMSNorm_noaffine": (_mod(torch, nn.RMSNorm((3, 4), eps=1e-2, elementwise_affine=False)), [(2, 3, 4)]),
        "InstanceNorm1d": (_mod(torch, nn.InstanceNorm1d(3)), [(2, 3, 5)]),
        "InstanceNorm1d_unbatched": (_mod(torch, nn.InstanceNorm1d(3)), [(3, 5)]),
        "InstanceNorm2d_tracked_train": (inst_norm_trained(True), [(2, 3, 3, 4)]),
        "InstanceNorm2d_tracked_eval": (inst_norm_trained(False), [(2, 3, 3, 4)]),
        "InstanceNorm3d_affine": (_mod(torch, nn.InstanceNorm3d(2, affine=True), params=True), [(2, 2, 2, 3, 2)]),
        "LocalResponseNorm": (_mod(torch, nn.LocalResponseNorm(3)), [(2, 5, 3, 3)]),
        "CrossMapLRN2d": (_mod(torch, nn.CrossMapLRN2d(3, alpha=0.1, beta=0.7, k=2)), [(2, 5, 3, 3)]),
        "CrossMapLRN2d_size4": (_mod(torch, nn.CrossMapLRN2d(4, alpha=0.3)), [(1, 6, 2, 2)]),
        "LazyLinear": (_mod(torch, _lazy(torch, nn.LazyLinear(3), (2, 5))), [(2, 5)]),
        "LazyConv1d": (_mod(torch, _lazy(torch, nn.LazyConv1d(4, 3, padding=1), (2, 3, 6))), [(2, 3, 6)]),
        "LazyConv2d": (_mod(torch, _lazy(torch, nn.LazyConv2d(2, 2, groups=2), (2, 4, 3, 3))), [(2, 4, 3, 3)]),
        "LazyConvTranspose1d": (_mod(torch, _lazy(torch, nn.LazyConvTranspose1d(2, 3, stride=2), (2, 3, 4))),
                                [(2, 3, 4)]),
        "LazyConvTranspose2d": (_mod(torch, _lazy(torch, nn.LazyConvTranspose2d(2, 2), (3, 2, 2))), [(3, 2, 2)]),
        "LazyBatchNorm1d": (_mod(torch, _lazy(torch, nn.LazyBatchNorm1d(), (4, 3))), [(4, 3)]),
        "LazyBatchNorm2d": (_mod(torch, _lazy(torch, nn.LazyBatchNorm2d(), (2, 3, 2, 2))), [(2, 3, 2, 2)]),
        "LazyBatchNorm1d_nobias": (_mod(torch, _lazy(torch, nn.LazyBatchNorm1d(bias=False), (4, 3))), [(4, 3)]),
        "LazyInstanceNorm1d": (_mod(torch, _lazy(torch, nn.LazyInstanceNorm1d(), (2, 3, 4))), [(2, 3, 4)]),
        "LazyInstanceNorm2d": (_mod(torch, _lazy(torch, nn.LazyInstanceNorm2d(affine=False), (2, 3, 2, 2))),
                               [(2, 3, 2, 2)]),
    }


def repr_cases(nn):
    """name -> module, for repr."""
    return {
        "CELU": nn.CELU(2.0, True), "GLU": nn.GLU(), "Hardshrink": nn.Hardshrink(), "Hardsigmoid": nn.Hardsigmoid(True),
        "Hardswish": nn.Hardswish(True), "LogSigmoid": nn.LogSigmoid(), "Mish": nn.Mish(True),
        "PReLU": nn.PReLU(3), "RReLU": nn.RReLU(), "RReLU_inplace": nn.RReLU(0.1, 0.3, True), "SELU": nn.SELU(True),
        "Softmin": nn.Softmin(), "Softmax2d": nn.Softmax2d(), "Softshrink": nn.Softshrink(0.3),
        "Softsign": nn.Softsign(), "Tanhshrink": nn.Tanhshrink(), "Threshold": nn.Threshold(0.1, 2, True),
        "ZeroPad2d": nn.ZeroPad2d(1), "ZeroPad1d": nn.ZeroPad1d((1, 2)), "ConstantPad3d": nn.ConstantPad3d(2, 3.5),
        "ReflectionPad1d": nn.ReflectionPad1d([1, 2]), "ReplicationPad3d": nn.ReplicationPad3d(1),
        "CircularPad2d": nn.CircularPad2d((1, 2, 3, 4)), "Upsample": nn.Upsample(scale_factor=(2, 3)),
        "Upsample_size": nn.Upsample(size=3, mode="bilinear"), "UpsamplingNearest2d": nn.UpsamplingNearest2d(2),
        "UpsamplingBilinear2d": nn.UpsamplingBilinear2d(scale_factor=2), "CosineSimilarity": nn.CosineSimilarity(),
        "PairwiseDistance": nn.PairwiseDistance(), "PixelShuffle": nn.PixelShuffle(2),
        "PixelUnshuffle": nn.PixelUnshuffle(3), "ChannelShuffle": nn.ChannelShuffle(2),
        "AlphaDropout": nn.AlphaDropout(0.2), "FeatureAlphaDropout": nn.FeatureAlphaDropout(),
        "RMSNorm": nn.RMSNorm(4), "InstanceNorm3d": nn.InstanceNorm3d(3, affine=True, track_running_stats=True),
        "LocalResponseNorm": nn.LocalResponseNorm(2), "CrossMapLRN2d": nn.CrossMapLRN2d(3),
        "LazyLinear": nn.LazyLinear(3, bias=False), "LazyConv1d": nn.LazyConv1d(4, 3, stride=2),
        "LazyConvTranspose2d": nn.LazyConvTranspose2d(4, 3), "LazyBatchNorm2d": nn.LazyBatchNorm2d(momentum=0.3),
        "LazyInstanceNorm1d": nn.LazyInstanceNorm1d(), "InstanceNorm1d_nobias": nn.InstanceNorm1d(3, affine=True, bias=False),
    }


def error_cases(torch, F, nn):
    """name -> call that raises or warns."""
    def t(*shape):
        return tensor(torch, shape, 0)
    return {
        "rrelu_bounds": lambda: F.rrelu(t(2, 3), 0.5, 0.1),
        "softshrink_negative": lambda: F.softshrink(t(2, 3), -1.0),
        "softshrink_negative_f32": lambda: F.softshrink(t(2, 3).float(), -1.0),
        "pixel_shuffle_2d": lambda: F.pixel_shuffle(t(2, 3), 2),
        "pixel_shuffle_channels": lambda: F.pixel_shuffle(t(1, 5, 2, 2), 2),
        "pixel_shuffle_zero": lambda: F.pixel_shuffle(t(1, 4, 2, 2), 0),
        "pixel_unshuffle_height": lambda: F.pixel_unshuffle(t(1, 1, 3, 4), 2),
        "pixel_unshuffle_width": lambda: F.pixel_unshuffle(t(1, 1, 4, 3), 2),
        "pixel_unshuffle_2d": lambda: F.pixel_unshuffle(t(4, 4), 2),
        "channel_shuffle_divisible": lambda: F.channel_shuffle(t(1, 5, 2), 2),
        "channel_shuffle_1d": lambda: F.channel_shuffle(t(5), 2),
        "channel_shuffle_groups": lambda: F.channel_shuffle(t(1, 4, 2), 0),
        "rms_norm_shape": lambda: F.rms_norm(t(2, 3), [4]),
        "local_response_norm_2d": lambda: F.local_response_norm(t(2, 3), 2),
        "alpha_dropout_p": lambda: F.alpha_dropout(t(2, 3), 1.5),
        "feature_alpha_dropout_p": lambda: F.feature_alpha_dropout(t(2, 3), -0.1),
        "feature_alpha_dropout_1d": lambda: F.feature_alpha_dropout(t(3), 0.5, training=True),
        "instance_norm_running_size": lambda: F.instance_norm(t(2, 3, 4), t(4), t(4).abs()),
        "softmin_implicit_dim": lambda: nn.Softmin()(t(2, 3)),
        "instance_norm_one_element": lambda: F.instance_norm(t(1, 3, 1)),
        "softmax2d_2d": lambda: nn.Softmax2d()(t(2, 3)),
        "crossmaplrn_3d": lambda: nn.CrossMapLRN2d(3)(t(2, 3, 4)),
        "instance_norm1d_4d": lambda: nn.InstanceNorm1d(3)(t(2, 3, 4, 5)),
        "instance_norm2d_2d": lambda: nn.InstanceNorm2d(3)(t(2, 3)),
        "instance_norm_affine_channels": lambda: nn.InstanceNorm1d(3, affine=True)(t(2, 4, 5)),
        "instance_norm_channels_warning": lambda: nn.InstanceNorm1d(3)(t(2, 4, 5)),
        "circular_pad_4d": lambda: nn.CircularPad1d(1)(t(2, 3, 4, 5)),
        "dropout_module_p": lambda: nn.AlphaDropout(2.0),
        "upsample_nearest_warning": lambda: F.upsample_nearest(t(1, 1, 2, 2), scale_factor=2),
        "upsample_warning": lambda: F.upsample(t(1, 1, 2, 2), scale_factor=2),
        "upsample_bilinear_warning": lambda: F.upsample_bilinear(t(1, 1, 2, 2), scale_factor=2),
        "container_warning": lambda: nn.Container(a=nn.ReLU()),
        "lazy_conv_rank": lambda: nn.LazyConv2d(4, 3)(t(2, 3)),
        "lazy_conv_groups": lambda: nn.LazyConv1d(4, 3, groups=2)(t(1, 3, 5)),
        "uninitialized_shape": lambda: nn.UninitializedParameter().shape,
    }
