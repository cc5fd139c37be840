"""The 3-d convolution / pooling, fold / unfold, max-unpool and power-pool calls compared with
PyTorch, over a framework module `t` (torch or rstorch): tests/record_conv3d.py records them with
PyTorch into tests/fixtures/conv3d.json, tests/python/test_conv3d.py replays them on rstorch.

Inputs are float64 and made from a formula (the frameworks' generators differ), with distinct
values so that no maximum is tied. `run` gives each case's outputs and the gradients of a
weighted sum of its float outputs for its inputs; `capture` an error's type and message."""
import math


def values(t, shape, seed, scale=1.0):
    n = math.prod(shape)
    data = [scale * math.sin(1.37 * i + 0.71 * seed) + 0.001 * i for i in range(n)]
    return t.tensor(data, dtype=t.float64).reshape(shape).requires_grad_()


def cases(t):
    """name -> (inputs (as callables of t), function of t's functional module and the inputs)."""
    F = t.nn.functional
    x5 = (lambda: values(t, (2, 4, 4, 5, 5), 1),)
    c = {}

    def add(name, inputs, fn):
        c[name] = (inputs, fn)

    w = lambda shape, seed=2: lambda: values(t, shape, seed, 0.5)  # noqa: E731
    add("conv3d_plain", (*x5, w((6, 4, 3, 3, 3)), w((6,), 3)), lambda x, k, b: F.conv3d(x, k, b))
    add("conv3d_stride_pad_dil", (*x5, w((3, 4, 2, 3, 2))),
        lambda x, k: F.conv3d(x, k, None, (2, 1, 2), (1, 2, 0), (2, 1, 3)))
    add("conv3d_groups", (*x5, w((6, 2, 3, 2, 3)), w((6,), 3)),
        lambda x, k, b: F.conv3d(x, k, b, 1, 1, 1, 2))
    add("conv3d_same", (*x5, w((2, 4, 2, 3, 4))), lambda x, k: F.conv3d(x, k, padding="same", dilation=(1, 2, 1)))
    add("conv3d_valid", (*x5, w((2, 4, 2, 2, 2))), lambda x, k: F.conv3d(x, k, padding="valid"))
    add("conv3d_unbatched", (lambda: values(t, (4, 5, 6, 7), 4), w((2, 4, 3, 3, 3))), lambda x, k: F.conv3d(x, k))
    add("conv3d_noncontiguous", (*x5, w((3, 5, 2, 2, 2))),
        lambda x, k: F.conv3d(x.transpose(1, 3)[:, :, :, ::2], k, stride=(2, 1, 1)))
    add("conv_transpose3d_plain", (*x5, w((4, 3, 3, 3, 3)), w((3,), 3)),
        lambda x, k, b: F.conv_transpose3d(x, k, b))
    add("conv_transpose3d_full", (*x5, w((4, 2, 2, 3, 2)), w((4,), 3)),
        lambda x, k, b: F.conv_transpose3d(x, k, b, (2, 3, 2), (1, 0, 2), (1, 2, 0), 2, (2, 1, 3)))
    add("conv_transpose3d_unbatched", (lambda: values(t, (4, 3, 2, 3), 5), w((4, 2, 2, 2, 3))),
        lambda x, k: F.conv_transpose3d(x, k, stride=2, padding=1, output_padding=1))
    add("conv_transpose3d_noncontiguous", (*x5, w((4, 2, 2, 2, 2))),
        lambda x, k: F.conv_transpose3d(x.transpose(2, 4), k, stride=(2, 1, 1), padding=(0, 1, 0)))

    add("max_pool3d", x5, lambda x: F.max_pool3d(x, 2, return_indices=True))
    add("max_pool3d_full", x5,
        lambda x: F.max_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 1, 0), (1, 2, 2), ceil_mode=True, return_indices=True))
    add("max_pool3d_unbatched_noncontiguous", (lambda: values(t, (6, 5, 4, 7), 6),),
        lambda x: F.max_pool3d(x.transpose(0, 2), 2, 1, 1, return_indices=True))
    # Clamping ties many window maxima: the first tap in row-major order wins, as in PyTorch.
    add("max_pool3d_ties", x5, lambda x: F.max_pool3d(x.clamp(max=0.2), 3, 2, 1, return_indices=True))
    add("adaptive_max_pool3d_ties", x5, lambda x: F.adaptive_max_pool3d(x.clamp(max=0.1), (3, 2, 4), True))
    add("max_pool1d_with_indices", (lambda: values(t, (2, 3, 9), 7),),
        lambda x: F.max_pool1d_with_indices(x, 3, 2, 1, 2, True))
    add("avg_pool3d", x5, lambda x: F.avg_pool3d(x, 2))
    add("avg_pool3d_ceil_pad", x5, lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True))
    add("avg_pool3d_exclude_pad", x5, lambda x: F.avg_pool3d(x, (3, 2, 3), (2, 2, 1), (1, 1, 1), True, False))
    add("avg_pool3d_divisor", x5, lambda x: F.avg_pool3d(x, 2, 1, 1, divisor_override=3))
    add("adaptive_avg_pool3d", x5, lambda x: F.adaptive_avg_pool3d(x, (2, 4, 3)))
    add("adaptive_avg_pool3d_none", (lambda: values(t, (3, 5, 6, 7), 8),),
        lambda x: F.adaptive_avg_pool3d(x, (None, 4, 1)))
    add("adaptive_max_pool3d", x5, lambda x: F.adaptive_max_pool3d(x, (3, 4, 5), return_indices=True))
    add("adaptive_max_pool3d_unbatched", (lambda: values(t, (3, 5, 6, 7), 9),),
        lambda x: F.adaptive_max_pool3d(x.transpose(1, 3), 2, return_indices=True))
    add("unfold", (lambda: values(t, (2, 3, 6, 7), 10),), lambda x: F.unfold(x, (2, 3), (1, 2), 1, (2, 1)))
    add("unfold_unbatched", (lambda: values(t, (3, 5, 4), 11),), lambda x: F.unfold(x, 2))
    add("fold", (lambda: values(t, (2, 12, 30), 12),), lambda x: F.fold(x, (6, 7), 2))
    add("fold_full", (lambda: values(t, (18, 12), 13),),
        lambda x: F.fold(x, (7, 8), (3, 2), (2, 1), (1, 0), (2, 2)))
    add("max_unpool1d", (lambda: values(t, (2, 3, 8), 14),),
        lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2))
    add("max_unpool2d", (lambda: values(t, (2, 3, 6, 7), 15),),
        lambda x: F.max_unpool2d(*F.max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(6, 7)))
    add("max_unpool3d", x5,
        lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(4, 5, 5)))
    add("lp_pool1d", (lambda: values(t, (2, 3, 9), 16),), lambda x: F.lp_pool1d(x, 2, 3, 2))
    add("lp_pool2d", (lambda: values(t, (2, 3, 6, 7), 17),), lambda x: F.lp_pool2d(x, 3, (2, 3), ceil_mode=True))
    add("lp_pool3d", x5, lambda x: F.lp_pool3d(x, 2, 2))
    add("lp_pool3d_odd_power", x5, lambda x: F.lp_pool3d(x, 1.5, (2, 3, 2), 1))
    theta2 = lambda: values(t, (2, 2, 3), 18, 0.8)  # noqa: E731
    add("affine_grid", (theta2,), lambda th: F.affine_grid(th, (2, 3, 4, 5), align_corners=False))
    add("affine_grid_corners", (theta2,), lambda th: F.affine_grid(th, (2, 1, 3, 2), align_corners=True))
    add("affine_grid_3d", (lambda: values(t, (2, 3, 4), 19, 0.8),),
        lambda th: F.affine_grid(th, (2, 1, 2, 3, 4), align_corners=False))
    image, grid = (lambda: values(t, (2, 3, 4, 5), 21)), (lambda: values(t, (2, 3, 4, 2), 22, 1.3))
    for mode in ("bilinear", "nearest"):
        for padding_mode in ("zeros", "border", "reflection"):
            for corners in (False, True):
                add(f"grid_sample_{mode}_{padding_mode}_{corners}", (image, grid),
                    lambda x, g, m=mode, p=padding_mode, a=corners: F.grid_sample(x, g, m, p, a))
    samples = lambda shape: lambda: values(t, shape, 23, 0.49).detach() + 0.5  # noqa: E731 (uniform-like in (0, 1))
    add("fractional_max_pool2d", (lambda: values(t, (2, 3, 9, 8), 24), samples((2, 3, 2))),
        lambda x, u: F.fractional_max_pool2d(x, (3, 2), (4, 5), return_indices=True, _random_samples=u))
    add("fractional_max_pool2d_ratio", (lambda: values(t, (3, 9, 8), 25), samples((1, 3, 2))),
        lambda x, u: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.7), return_indices=True, _random_samples=u))
    add("fractional_max_pool3d", (*x5, samples((2, 4, 3))),
        lambda x, u: F.fractional_max_pool3d(x, 2, (2, 3, 1), return_indices=True, _random_samples=u))
    return c


def run(t, case):
    """The outputs of a case, and the gradients for its inputs of a weighted sum of its float
    outputs (plain lists, with shapes and dtypes)."""
    make_inputs, fn = case
    inputs = [make() for make in make_inputs]
    out = fn(*inputs)
    outs = list(out) if isinstance(out, tuple) else [out]
    loss = None
    for i, o in enumerate(outs):
        if o.dtype == t.float64:
            term = (o * values(t, tuple(o.shape), 20 + i).detach()).sum()
            loss = term if loss is None else loss + term
    grads = t.autograd.grad(loss, [x for x in inputs if x.requires_grad], allow_unused=True)
    # 14 significant digits: the tests compare to 1e-10, and the fixture stays small.
    flat = lambda x: [float(f"{v:.14g}") for v in x.detach().reshape(-1).tolist()]  # noqa: E731
    return {
        "outputs": [{"shape": list(o.shape), "dtype": str(o.dtype).split(".")[-1], "values": flat(o)} for o in outs],
        "grads": [None if g is None else flat(g) for g in grads],
    }


ERRORS = [
    "F.conv3d(x, t.zeros(6, 3, 3, 3, 3, dtype=t.float64), groups=2)",
    "F.conv3d(x, t.zeros(6, 4, 7, 3, 3, dtype=t.float64))",
    "F.conv3d(x[0, 0], t.zeros(6, 4, 3, 3, 3, dtype=t.float64))",
    "F.conv3d(x, t.zeros(6, 4, 3, 3, 3, dtype=t.float64), t.zeros(5, dtype=t.float64))",
    "F.conv3d(x, t.zeros(6, 4, 3, 3, 3, dtype=t.float64), stride=(1, 2))",
    "F.conv3d(x, t.zeros(6, 4, 3, 3, 3, dtype=t.float64), padding='same', stride=2)",
    "F.conv3d(x, t.zeros(6, 4, 3, 3, 3, dtype=t.float64), padding='full')",
    "F.conv3d(x, t.zeros(6, 4, 3, 3, 3, dtype=t.float64), stride=0)",
    "F.conv3d(x, t.zeros(6, 4, 3, 3, 3, dtype=t.float64), padding=-1)",
    "F.conv_transpose3d(x, t.zeros(4, 3, 3, 3, 3, dtype=t.float64), output_padding=1)",
    "F.conv_transpose3d(x, t.zeros(4, 3, 3, 3, 3, dtype=t.float64), output_padding=(0, 1, 0), stride=(1, 1, 2))",
    "F.conv_transpose3d(x, t.zeros(5, 3, 3, 3, 3, dtype=t.float64))",
    "F.conv_transpose3d(x[0, 0], t.zeros(4, 3, 3, 3, 3, dtype=t.float64))",
    "F.conv_transpose3d(x, t.zeros(4, 3, 1, 1, 1, dtype=t.float64), padding=3)",
    "F.max_pool3d(x[0, 0], 2)",
    "F.max_pool3d(x, 2, padding=2)",
    "F.max_pool3d(x, 8)",
    "F.max_pool3d(x, (2, 2))",
    "F.max_pool3d(x, 2, stride=0)",
    "F.avg_pool3d(x[0, 0], 2)",
    "F.avg_pool3d(x, 2, padding=2)",
    "F.avg_pool3d(x, 8)",
    "F.avg_pool3d(x, 2, divisor_override=0)",
    "F.adaptive_avg_pool3d(x[0, 0], 2)",
    "F.adaptive_max_pool3d(x, (2, 3))",
    "F.adaptive_avg_pool3d(x, (2, None))",
    "F.adaptive_avg_pool3d(x[0, 0], (2, 2, 2))",
    "F.unfold(x[0], 9)",
    "F.fold(t.zeros(2, 12, 31, dtype=t.float64), (6, 7), 2)",
    "F.fold(t.zeros(2, 13, 30, dtype=t.float64), (6, 7), 2)",
    # One invalid index: PyTorch's kernel checks planes in parallel and names the one it meets.
    "F.max_unpool2d(t.ones(1, 2, 2, 2, dtype=t.float64), t.tensor([[[[0, 1], [2, 3]], [[0, 17], [2, 3]]]]), 2)",
    "t.nn.BatchNorm3d(4)(x[0])",
    "t.nn.Conv3d(4, 6, 3, padding='same', stride=2)",
    "F.affine_grid(t.zeros(1, 2, 3, dtype=t.float64), (1, 1, 2), align_corners=False)",
    "F.affine_grid(t.zeros(1, 2, 3, dtype=t.int32), (1, 1, 2, 3), align_corners=False)",
    "F.grid_sample(x[0], t.zeros(4, 2, 2, 2, dtype=t.float64), mode='foo', align_corners=False)",
    "F.grid_sample(x[0], t.zeros(4, 2, 2, 2, dtype=t.float64), padding_mode='foo', align_corners=False)",
    "F.grid_sample(x[0], t.zeros(4, 2, 2, 1, dtype=t.float64), align_corners=False)",
    "F.grid_sample(x[0], t.zeros(4, 2, 2, 2), align_corners=False)",
    "F.fractional_max_pool2d(x[0], 2)",
    "F.fractional_max_pool2d(x[0], 2, output_size=6)",
    "F.fractional_max_pool3d(x, 2, output_size=(5, 2, 2))",
    "t.nn.FractionalMaxPool2d(2, output_ratio=1.5)",
    "t.nn.FractionalMaxPool2d(2)",
]


def capture(t, expr):
    """The exception type and message of `expr` (evaluated with t, F and an input x), or None."""
    x = values(t, (2, 4, 5, 6, 7), 1)
    try:
        eval(expr, {"t": t, "F": t.nn.functional, "x": x})
    except Exception as e:  # noqa: BLE001 (every error is recorded)
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


LAYERS = [
    "t.nn.Conv3d(4, 6, 3)", "t.nn.Conv3d(4, 6, (1, 2, 3), stride=2, padding=1, groups=2, bias=False)",
    "t.nn.Conv3d(4, 6, 3, padding='same', padding_mode='reflect')",
    "t.nn.ConvTranspose3d(4, 6, 3, stride=2, output_padding=1, dilation=2)", "t.nn.BatchNorm3d(3)",
    "t.nn.MaxPool3d(2)", "t.nn.MaxPool3d((2, 3, 1), stride=1, padding=1, return_indices=True)",
    "t.nn.AvgPool3d(2)", "t.nn.AvgPool3d(3, 2, 1, True, False, 2)", "t.nn.AdaptiveAvgPool3d((2, None, 3))",
    "t.nn.AdaptiveMaxPool3d(2)", "t.nn.MaxUnpool1d(2)", "t.nn.MaxUnpool2d(3, 2, 1)", "t.nn.MaxUnpool3d(2)",
    "t.nn.LPPool1d(2, 3)", "t.nn.LPPool2d(1.5, 2, 1)", "t.nn.LPPool3d(2, 2, ceil_mode=True)",
    "t.nn.Fold((4, 5), 2)", "t.nn.Unfold(3, padding=1)", "t.nn.FractionalMaxPool2d(3, output_ratio=0.5)",
    "t.nn.FractionalMaxPool3d(2, output_size=3)",
]
