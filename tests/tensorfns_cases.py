"""The calls compared with PyTorch for the elementwise functions, in-place forms, aliases,
predicates, splits and scatters (tests/record_tensorfns.py records them from PyTorch into
fixtures/tensorfns.json; tests/python/test_tensorfns.py replays them on rstorch). Each case is
`(id, fn)` with `fn(torch)` written over a framework module, so that one list serves both.
`capture` turns what a call gives (tensors, tuples of them, numbers, strings, an exception, and
the gradients of `Grad(out, inputs)`) into JSON."""
import math

NAN, INF = math.nan, math.inf


class Grad:
    """A result whose `sum()` is differentiated with respect to `inputs`."""

    def __init__(self, out, *inputs):
        self.out, self.inputs = out, inputs


def _dtype(dtype):
    return str(dtype).rpartition(".")[2]


def _value(torch, v):
    if isinstance(v, torch.Tensor):
        try:
            flat = v.detach().reshape(-1).tolist()
        except RuntimeError:  # PyTorch's gradients of constant functions are storage-less zeros
            flat = [0.0] * v.numel()
        return {"dtype": _dtype(v.dtype), "shape": list(v.shape), "v": flat}
    if isinstance(v, (tuple, list)):
        return {"seq": [_value(torch, x) for x in v]}
    if isinstance(v, (bool, int, float, str)) or v is None:
        return {"py": v}
    return {"py": repr(v)}


def capture(torch, fn):
    try:
        out = fn(torch)
    except Exception as e:  # the error's type and message are part of the behaviour
        return {"error": type(e).__name__, "message": str(e).replace("torch.", "").replace("rstorch.", "")}
    if isinstance(out, Grad):
        rec = _value(torch, out.out)
        rec["grad_fn"] = type(out.out.grad_fn).__name__ if out.out.grad_fn is not None else None
        try:
            out.out.sum().backward()
            rec["grads"] = [_value(torch, x.grad) if x.grad is not None else None for x in out.inputs]
        except Exception as e:
            rec["grads"] = {"error": type(e).__name__, "message": str(e)[:200]}
        return rec
    return _value(torch, out)


def t(torch, values, dtype="float64", shape=None, grad=False):
    x = torch.tensor(values, dtype=getattr(torch, dtype))
    if shape is not None:
        x = x.reshape(shape)
    return x.requires_grad_() if grad else x


SPECIAL = [-INF, -3.5, -2.0, -1.5, -0.5, -0.0, 0.0, 1e-8, 0.25, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 35.0, INF, NAN]
UNIT = [-1.0, -0.999999, -0.9, -0.3, -0.0, 0.0, 1e-9, 0.2, 0.5, 0.95, 0.99999999, 1.0, 1.2, NAN]
POSITIVE = [0.1, 0.5, 1.0, 1.5, 2.5, 4.0, 7.3, 12.0, 30.5]
GRAD_AT = [-2.5, -1.2, -0.3, 0.4, 1.1, 2.0, 3.5]


def _unary_cases():
    cases = []
    inputs = {"erfc": SPECIAL + [6.0, 27.0, -6.0], "erfinv": UNIT, "lgamma": SPECIAL + [1e-300, 1e20, -1e20, -7.2],
              "digamma": SPECIAL + [-7.2, 1e-5, 200.0, 1e15], "i0": SPECIAL + [-50.0, 80.0, 700.0],
              "sinc": SPECIAL + [100.3, -1e-5, 3.0], "deg2rad": SPECIAL + [180.0, 360.0, -90.0],
              "rad2deg": SPECIAL + [math.pi, 1e300]}
    for op, xs in inputs.items():
        for dtype in ("float32", "float64"):
            cases.append((f"{op}-{dtype}", lambda torch, op=op, xs=xs, dtype=dtype: getattr(torch, op)(t(torch, xs, dtype))))
            cases.append((f"{op}-method-{dtype}", lambda torch, op=op, xs=xs, dtype=dtype: getattr(t(torch, xs, dtype), op)()))
        grads = [-0.9, -0.4, 0.0, 0.3, 0.8] if op == "erfinv" else (POSITIVE if op in ("lgamma", "digamma") else GRAD_AT + [0.0])
        cases.append((f"{op}-grad", lambda torch, op=op, g=grads: (lambda x: Grad(getattr(torch, op)(x), x))(t(torch, g, grad=True))))
        cases.append((f"{op}-int", lambda torch, op=op: getattr(torch, op)(torch.tensor([1, 2, 3]))))
        cases.append((f"{op}-inplace", lambda torch, op=op: (lambda x: (getattr(x, op + "_")(), x))(t(torch, [0.1, 0.7, 0.2]))))
        if op in ("erfc", "i0", "sinc", "deg2rad", "rad2deg"):
            cases.append((f"{op}-torch-inplace", lambda torch, op=op: (lambda x: (getattr(torch, op + "_")(x), x))(t(torch, [0.1, 0.7]))))
    for n in (0, 1, 2, 3, 4):
        for dtype in ("float32", "float64"):
            cases.append((f"polygamma{n}-{dtype}", lambda torch, n=n, dtype=dtype:
                          torch.polygamma(n, t(torch, [-3.5, -0.5, 0.25, 0.5, 1.0, 1.5, 3.7, 10.0, 35.0, NAN], dtype))))
        cases.append((f"polygamma{n}-grad", lambda torch, n=n: (lambda x: Grad(torch.polygamma(n, x), x))(t(torch, POSITIVE, grad=True))))
        cases.append((f"polygamma{n}-method", lambda torch, n=n: t(torch, POSITIVE).polygamma(n)))
    cases.append(("polygamma-inplace", lambda torch: (lambda x: (x.polygamma_(2), x))(t(torch, POSITIVE))))
    cases.append(("polygamma-negative", lambda torch: torch.polygamma(-1, t(torch, POSITIVE))))
    return cases


def _composite_cases():
    c = []
    c.append(("mvlgamma", lambda torch: (lambda x: Grad(torch.mvlgamma(x, 3), x))(t(torch, [1.2, 2.5, 4.0, 11.0], grad=True))))
    c.append(("mvlgamma-p1", lambda torch: torch.mvlgamma(t(torch, [0.5, 2.5], "float32"), 1)))
    c.append(("mvlgamma-method", lambda torch: t(torch, [3.0, 4.5]).mvlgamma(2)))
    c.append(("mvlgamma-domain", lambda torch: torch.mvlgamma(t(torch, [0.4, 2.5]), 3)))
    for eps in (None, 0.1):
        c.append((f"logit-{eps}", lambda torch, eps=eps: (lambda x: Grad(torch.logit(x, eps), x))(
            t(torch, [0.0, 0.05, 0.3, 0.5, 0.93, 1.0], grad=True))))
        c.append((f"logit-f32-{eps}", lambda torch, eps=eps: t(torch, [0.0, 0.05, 0.3, 0.5, 1.0, 1.5, NAN], "float32").logit(eps)))
    c.append(("logit-int", lambda torch: torch.logit(torch.tensor([0, 1]))))
    c.append(("logit_", lambda torch: (lambda x: (x.logit_(0.2), x))(t(torch, [0.1, 0.5, 0.7]))))
    a = [1.0, NAN, 2.0, 3.0, NAN, -0.0, 5.0]
    b = [1.0, 1.0, NAN, 4.0, NAN, 0.0, 2.0]
    for op in ("fmax", "fmin"):
        c.append((op, lambda torch, op=op: getattr(torch, op)(t(torch, a, "float32"), t(torch, b, "float32"))))
        c.append((f"{op}-grad", lambda torch, op=op: (lambda x, y: Grad(getattr(torch, op)(x, y), x, y))(
            t(torch, a, grad=True), t(torch, b, grad=True))))
        c.append((f"{op}-mixed", lambda torch, op=op: getattr(torch, op)(torch.tensor([1, 5, -2]), t(torch, [2.0, 3.0, NAN], "float32"))))
        c.append((f"{op}-broadcast", lambda torch, op=op: getattr(torch, op)(t(torch, [1.0, 4.0], shape=[2, 1]), t(torch, [2.0, NAN, 3.0]))))
    c.append(("heaviside", lambda torch: torch.heaviside(t(torch, [-1.0, -0.0, 0.0, 2.0, NAN, -INF]), t(torch, [0.5]))))
    c.append(("heaviside-int", lambda torch: torch.tensor([-3, 0, 4]).heaviside(torch.tensor([7]))))
    c.append(("heaviside-dtypes", lambda torch: torch.heaviside(t(torch, [1.0]), torch.tensor([1]))))
    c.append(("heaviside_", lambda torch: (lambda x: (x.heaviside_(t(torch, [9.0])), x))(t(torch, [-1.0, 0.0, 3.0]))))
    ints_a, ints_b = [12, -18, 0, 0, 7, -5, 1 << 40], [8, 12, 5, 0, 13, -15, 1 << 20]
    c.append(("gcd", lambda torch: torch.gcd(torch.tensor(ints_a), torch.tensor(ints_b))))
    c.append(("lcm", lambda torch: torch.lcm(torch.tensor(ints_a[:-1]), torch.tensor(ints_b[:-1]))))
    c.append(("gcd-int32-broadcast", lambda torch: torch.tensor([[4], [9]], dtype=torch.int32).gcd(torch.tensor([6, 3], dtype=torch.int32))))
    c.append(("gcd_", lambda torch: (lambda x: (x.gcd_(torch.tensor([4, 6])), x))(torch.tensor([6, 9]))))
    c.append(("lcm_", lambda torch: (lambda x: (torch.lcm_(x, torch.tensor([4, 6])), x))(torch.tensor([6, 9]))))
    c.append(("gcd-float", lambda torch: torch.gcd(t(torch, [1.0]), t(torch, [2.0]))))
    c.append(("ldexp", lambda torch: (lambda x, e: Grad(torch.ldexp(x, e), x))(t(torch, [1.0, -2.5, 0.75, 3.0], grad=True), torch.tensor([0, 3, -2, 10]))))
    c.append(("ldexp-f32", lambda torch: t(torch, [1.5, -3.0], "float32").ldexp(torch.tensor([2, -1]))))
    c.append(("ldexp-int", lambda torch: torch.ldexp(torch.tensor([1, 3]), torch.tensor([2, 1]))))
    c.append(("nextafter", lambda torch: torch.nextafter(t(torch, [0.0, 1.0, 1.0, -1.0, INF, NAN]), t(torch, [1.0, 2.0, 0.0, -INF, 0.0, 1.0]))))
    c.append(("nextafter-f32", lambda torch: t(torch, [0.0, 1.0], "float32").nextafter(t(torch, [-1.0, 2.0], "float32"))))
    c.append(("frexp", lambda torch: tuple(torch.frexp(t(torch, [8.0, 0.3, -5.0, 0.0, -0.0, 1e-310, 1e300], "float64")))))
    c.append(("frexp-f32", lambda torch: tuple(t(torch, [8.0, 0.3, -5.0, 0.0], "float32").frexp())))
    c.append(("frexp-int", lambda torch: torch.frexp(torch.tensor([1, 2]))))
    c.append(("signbit", lambda torch: torch.signbit(t(torch, [-0.0, 0.0, -1.0, 2.0, -INF, INF], "float32"))))
    c.append(("signbit-int", lambda torch: torch.tensor([-1, 0, 3]).signbit()))
    c.append(("sgn", lambda torch: (lambda x: Grad(torch.sgn(x), x))(t(torch, [-2.0, 0.0, 3.0], grad=True))))
    c.append(("sgn_", lambda torch: (lambda x: (x.sgn_(), x))(t(torch, [-2.0, 0.0, 3.0]))))
    c.append(("positive", lambda torch: torch.positive(t(torch, [-1.0, 2.0]))))
    c.append(("positive-bool", lambda torch: torch.positive(torch.tensor([True]))))
    c.append(("isreal", lambda torch: torch.isreal(t(torch, [1.0, NAN, INF]))))
    c.append(("isreal-0d", lambda torch: torch.tensor(3).isreal()))
    c.append(("angle", lambda torch: (lambda x: Grad(torch.angle(x), x))(t(torch, [-2.0, -0.0, 0.0, 3.0, NAN], grad=True))))
    c.append(("angle-int", lambda torch: torch.tensor([-2, 0, 3]).angle()))
    return c


def _predicate_cases():
    c = []
    c.append(("is_signed", lambda torch: [torch.tensor([1], dtype=d).is_signed() for d in (torch.uint8, torch.int8, torch.bool, torch.float32)]))
    c.append(("torch.is_signed", lambda torch: torch.is_signed(torch.tensor([1.0]))))
    c.append(("is_nonzero", lambda torch: [torch.is_nonzero(torch.tensor([x])) for x in (0.0, 1.5, -0.0)]))
    c.append(("is_nonzero-many", lambda torch: torch.tensor([1, 2]).is_nonzero()))
    c.append(("is_nonzero-empty", lambda torch: torch.tensor([]).is_nonzero()))
    c.append(("is_same_size", lambda torch: [torch.is_same_size(torch.zeros(2, 3), torch.ones(2, 3)), torch.zeros(2).is_same_size(torch.zeros(3))]))
    c.append(("is_conj-neg", lambda torch: [torch.is_conj(torch.zeros(1)), torch.zeros(1).is_neg(), torch.is_neg(torch.zeros(1))]))
    c.append(("is_shared-pinned", lambda torch: [torch.zeros(1).is_shared(), torch.zeros(1).is_pinned()]))
    c.append(("is_set_to", lambda torch: (lambda x: [x.is_set_to(x), x.is_set_to(x.clone())])(torch.zeros(2))))
    c.append(("is_inference", lambda torch: torch.is_inference(torch.zeros(1))))
    c.append(("get_device", lambda torch: [torch.zeros(1).get_device(), torch.get_device(torch.zeros(1))]))
    c.append(("resolve", lambda torch: [torch.resolve_conj(t(torch, [1.0, 2.0])), torch.resolve_neg(t(torch, [3.0])),
                                        torch.conj(t(torch, [4.0])), t(torch, [5.0]).conj_physical(), torch.conj_physical(t(torch, [6.0]))]))
    return c


def _geometry_cases():
    c = []
    c.append(("swapdims", lambda torch: [torch.swapdims(torch.arange(6).reshape(2, 3), 0, 1), torch.arange(6).reshape(1, 2, 3).swapdims(0, 2)]))
    c.append(("moveaxis", lambda torch: [torch.moveaxis(torch.arange(24).reshape(2, 3, 4), 0, -1), torch.arange(24).reshape(2, 3, 4).moveaxis((0, 1), (2, 0))]))
    c.append(("msort", lambda torch: torch.msort(t(torch, [[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]]))))
    c.append(("fliplr-flipud", lambda torch: [torch.fliplr(torch.arange(6).reshape(2, 3)), torch.flipud(torch.arange(6).reshape(2, 3)), torch.arange(3).flipud()]))
    c.append(("fliplr-1d", lambda torch: torch.fliplr(torch.arange(3))))
    for k in (-1, 0, 1, 2, 3, 5):
        c.append((f"rot90-{k}", lambda torch, k=k: torch.rot90(torch.arange(6).reshape(2, 3), k)))
    c.append(("rot90-dims", lambda torch: torch.arange(24).reshape(2, 3, 4).rot90(1, [2, 0])))
    c.append(("rot90-grad", lambda torch: (lambda x: Grad(torch.rot90(x) * t(torch, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), x))(t(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], grad=True))))
    c.append(("rot90-same-dims", lambda torch: torch.rot90(torch.zeros(2, 2), 1, [0, 0])))
    for name, args in [("t_", ()), ("transpose_", (0, 2)), ("squeeze_", ()), ("squeeze_", (1,)), ("unsqueeze_", (0,)),
                       ("swapdims_", (1, 2)), ("swapaxes_", (0, 1))]:
        c.append((f"{name}{args}", lambda torch, name=name, args=args: (lambda x: (getattr(x, name)(*args) is x, x, x.stride()))(
            torch.arange(6.0).reshape(2, 1, 3) if name != "t_" else torch.arange(6.0).reshape(2, 3))))
    c.append(("as_strided_", lambda torch: (lambda x: (x.as_strided_((2, 2), (1, 2)) is x, x))(torch.arange(6.0))))
    c.append(("torch.as_strided_", lambda torch: (lambda x: (torch.as_strided_(x, (3,), (2,), 1), x))(torch.arange(6.0))))
    c.append(("sum_to_size", lambda torch: (lambda x: Grad(x.sum_to_size(2, 1), x))(t(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], grad=True))))
    c.append(("sum_to_size-lead", lambda torch: torch.arange(24.0).reshape(2, 3, 4).sum_to_size((3, 1))))
    c.append(("sum_to_size-bad", lambda torch: torch.zeros(2, 3).sum_to_size(3, 2)))
    c.append(("narrow_copy", lambda torch: [torch.narrow_copy(torch.arange(10), 0, 2, 3), torch.arange(12).reshape(3, 4).narrow_copy(1, 1, 2)]))
    return c


def _split_cases():
    c = []
    x = lambda torch: torch.arange(24).reshape(4, 6)
    for spec in (3, 4, 7, [1, 4], [2, -1], [5, 2], "tensor"):
        def run(torch, spec=spec):
            s = torch.tensor([1, 3]) if spec == "tensor" else spec
            return torch.tensor_split(x(torch), s, dim=1)
        c.append((f"tensor_split-{spec}", run))
    c.append(("tensor_split-0d", lambda torch: torch.arange(7).tensor_split(torch.tensor(3))))
    c.append(("tensor_split-zero", lambda torch: torch.arange(7).tensor_split(0)))
    c.append(("tensor_split-float-tensor", lambda torch: torch.arange(7).tensor_split(torch.tensor([1.0]))))
    c.append(("hsplit", lambda torch: [torch.hsplit(x(torch), 2), torch.hsplit(torch.arange(6), 3), x(torch).hsplit([1, 5])]))
    c.append(("hsplit-bad", lambda torch: torch.hsplit(x(torch), 4)))
    c.append(("vsplit", lambda torch: torch.vsplit(x(torch), 2)))
    c.append(("vsplit-1d", lambda torch: torch.vsplit(torch.arange(4), 2)))
    c.append(("dsplit", lambda torch: torch.dsplit(torch.arange(24).reshape(2, 3, 4), [1, 3])))
    c.append(("dsplit-2d", lambda torch: torch.dsplit(x(torch), 2)))
    c.append(("split_with_sizes", lambda torch: [torch.split_with_sizes(x(torch), [1, 3], 0), x(torch).split_with_sizes([2, 4], dim=1)]))
    c.append(("split_with_sizes-bad", lambda torch: torch.split_with_sizes(x(torch), [1, 2])))
    c.append(("unsafe", lambda torch: [torch.unsafe_split(x(torch), 3, 1), torch.unsafe_chunk(x(torch), 3), x(torch).unsafe_split(2),
                                       torch.unsafe_split_with_sizes(x(torch), [3, 1]), x(torch).unsafe_chunk(4, 1)]))
    c.append(("tensor_split-grad", lambda torch: (lambda a: Grad(torch.tensor_split(a, 2)[1] * 2, a))(t(torch, [1.0, 2.0, 3.0], grad=True))))
    return c


def _scatter_cases():
    c = []
    base = lambda torch, grad=False: t(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], grad=grad)
    idx = lambda torch: torch.tensor([2, 0])
    c.append(("index_copy", lambda torch: (lambda b, s: Grad(b.index_copy(0, idx(torch), s), b, s))(
        base(torch, True), t(torch, [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0]], grad=True))))
    c.append(("index_copy-dim1", lambda torch: torch.index_copy(base(torch), 1, idx(torch), t(torch, [[0.0, 1.0]] * 3))))
    c.append(("index_copy_", lambda torch: (lambda b: (b.index_copy_(1, torch.tensor([1]), t(torch, [[0.5], [0.6], [0.7]])), b))(base(torch))))
    c.append(("index_copy-dtype", lambda torch: base(torch).index_copy(0, idx(torch), torch.zeros(2, 3))))
    c.append(("index_fill", lambda torch: (lambda b: Grad(b.index_fill(1, idx(torch), -1.0), b))(base(torch, True))))
    c.append(("index_fill-tensor", lambda torch: torch.index_fill(base(torch), 0, torch.tensor([1, -1]), t(torch, 0.5))))
    c.append(("index_fill_", lambda torch: (lambda b: (b.index_fill_(0, torch.tensor([1]), 3), b))(torch.arange(6).reshape(2, 3))))
    c.append(("index_fill-vec", lambda torch: base(torch).index_fill(0, idx(torch), t(torch, [1.0, 2.0]))))
    c.append(("index_put", lambda torch: [torch.index_put(base(torch), (torch.tensor([0, 2]), torch.tensor([1, 1])), t(torch, [-1.0, -2.0])),
                                          torch.index_put(base(torch), (torch.tensor([0, 0]),), t(torch, 1.0), accumulate=True)]))
    c.append(("index_put_", lambda torch: (lambda b: (torch.index_put_(b, (torch.tensor([1]),), t(torch, 0.0)), b))(base(torch))))
    c.append(("put", lambda torch: (lambda b, s: Grad(b.put(torch.tensor([0, 4, -1]), s), b, s))(base(torch, True), t(torch, [10.0, 20.0, 30.0], grad=True))))
    c.append(("put-accumulate", lambda torch: torch.put(base(torch), torch.tensor([[0, 0], [8, 1]]), t(torch, [[1.0, 1.0], [1.0, 2.0]]), accumulate=True)))
    c.append(("put_", lambda torch: (lambda b: (b.put_(torch.tensor([1]), t(torch, [9.0])), b))(base(torch))))
    c.append(("put-count", lambda torch: base(torch).put(torch.tensor([1, 2]), t(torch, [9.0]))))
    mask = lambda torch: torch.tensor([[True, False, True], [False, False, False], [True, True, False]])
    c.append(("masked_scatter", lambda torch: (lambda b, s: Grad(b.masked_scatter(mask(torch), s), b, s))(
        base(torch, True), t(torch, [10.0, 20.0, 30.0, 40.0, 50.0, 60.0], grad=True))))
    c.append(("masked_scatter-broadcast", lambda torch: torch.masked_scatter(base(torch), torch.tensor([True, False, True]), t(torch, [[0.0] * 3] * 3))))
    c.append(("masked_scatter_", lambda torch: (lambda b: (b.masked_scatter_(mask(torch), t(torch, [7.0, 8.0, 9.0, 10.0])), b))(base(torch))))
    c.append(("masked_scatter-int-mask", lambda torch: base(torch).masked_scatter(torch.ones(3, 3, dtype=torch.int64), base(torch))))
    sidx = lambda torch: torch.tensor([[0, 1, 0], [2, 1, 0]])
    src = lambda torch, grad=False: t(torch, [[5.0, -1.0, 2.0], [3.0, 7.0, 2.0]], grad=grad)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include in (True, False):
            c.append((f"scatter_reduce-{reduce}-{include}", lambda torch, r=reduce, i=include:
                      base(torch).scatter_reduce(0, sidx(torch), src(torch), r, include_self=i)))
            if reduce != "prod":
                c.append((f"scatter_reduce-{reduce}-{include}-grad", lambda torch, r=reduce, i=include:
                          (lambda b, s: Grad(torch.scatter_reduce(b, 0, sidx(torch), s, r, include_self=i), b, s))(base(torch, True), src(torch, True))))
        c.append((f"scatter_reduce-{reduce}-int", lambda torch, r=reduce:
                  torch.arange(9).reshape(3, 3).scatter_reduce(1, torch.tensor([[0, 0], [2, 2], [1, 0]]), torch.tensor([[4, 6], [-3, 5], [2, 9]]), r)))
    c.append(("scatter_reduce_", lambda torch: (lambda b: (b.scatter_reduce_(0, sidx(torch), src(torch), "amax"), b))(base(torch))))
    c.append(("scatter_reduce-bad", lambda torch: base(torch).scatter_reduce(0, sidx(torch), src(torch), "max")))
    c.append(("scatter_reduce-ties", lambda torch: (lambda b, s: Grad(b.scatter_reduce(0, torch.tensor([[0, 0]]), s, "amax"), b, s))(
        t(torch, [[3.0, 1.0], [0.0, 0.0]], grad=True), t(torch, [[3.0, 2.0]], grad=True))))
    c.append(("select_scatter", lambda torch: (lambda b, s: Grad(torch.select_scatter(b, s, 1, -1), b, s))(base(torch, True), t(torch, [0.1, 0.2, 0.3], grad=True))))
    c.append(("slice_scatter", lambda torch: (lambda b, s: Grad(b.slice_scatter(s, 1, 0, None, 2), b, s))(base(torch, True), t(torch, [[0.0, 1.0]] * 3, grad=True))))
    c.append(("slice_scatter-default", lambda torch: torch.slice_scatter(base(torch), t(torch, [[0.0] * 3]), start=1, end=2)))
    c.append(("diagonal_scatter", lambda torch: (lambda b, s: Grad(torch.diagonal_scatter(b, s, 1), b, s))(base(torch, True), t(torch, [-1.0, -2.0], grad=True))))
    c.append(("diagonal_scatter-3d", lambda torch: torch.zeros(2, 3, 3).diagonal_scatter(torch.ones(3, 2), 0, 0, 2)))
    c.append(("diagonal_scatter-bad", lambda torch: torch.diagonal_scatter(base(torch), t(torch, [1.0]))))
    c.append(("diag_embed", lambda torch: (lambda x: Grad(torch.diag_embed(x), x))(t(torch, [[1.0, 2.0], [3.0, 4.0]], grad=True))))
    c.append(("diag_embed-args", lambda torch: [t(torch, [[1.0, 2.0], [3.0, 4.0]]).diag_embed(1, 0, 2), torch.diag_embed(t(torch, [1.0, 2.0]), -1)]))
    c.append(("diagflat", lambda torch: [torch.diagflat(t(torch, [[1.0, 2.0], [3.0, 4.0]])), t(torch, [1.0, 2.0]).diagflat(-2), torch.diagflat(t(torch, [5.0]), 1)]))
    c.append(("fill_diagonal_", lambda torch: [torch.zeros(3, 3).fill_diagonal_(5), torch.zeros(7, 3).fill_diagonal_(1, wrap=True),
                                               torch.zeros(7, 3).fill_diagonal_(2), torch.zeros(2, 5).fill_diagonal_(3), torch.zeros(2, 2, 2).fill_diagonal_(4)]))
    c.append(("fill_diagonal_-bad", lambda torch: torch.zeros(2, 3, 2).fill_diagonal_(1)))
    c.append(("repeat_interleave", lambda torch: [torch.repeat_interleave(torch.tensor([1, 2]), 2), torch.arange(6).reshape(2, 3).repeat_interleave(2, dim=1),
                                                  torch.repeat_interleave(torch.tensor([2, 0, 1])), torch.arange(4).reshape(2, 2).repeat_interleave(torch.tensor([1, 2]), 0),
                                                  torch.tensor([[1, 2], [3, 4]]).repeat_interleave(3)]))
    c.append(("repeat_interleave-grad", lambda torch: (lambda x: Grad(x.repeat_interleave(torch.tensor([3, 1]), dim=0) * t(torch, [1.0, 2.0, 3.0, 4.0]), x))(t(torch, [1.0, 2.0], grad=True))))
    c.append(("repeat_interleave-negative", lambda torch: torch.tensor([1]).repeat_interleave(-1)))
    c.append(("take_along_dim", lambda torch: [torch.take_along_dim(t(torch, [[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]]), torch.tensor([[0, 2], [1, 0]]), 1),
                                               torch.take_along_dim(t(torch, [[10.0, 30.0], [20.0, 5.0]]), torch.tensor([3, 0])),
                                               t(torch, [[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]]).take_along_dim(torch.tensor([[1], [0]]), dim=1),
                                               torch.take_along_dim(t(torch, [[1.0], [2.0]]), torch.tensor([[0, 0, 0]]), 1)]))
    c.append(("take_along_dim-grad", lambda torch: (lambda x: Grad(torch.take_along_dim(x, torch.tensor([[1, 1], [0, 1]]), 1), x))(t(torch, [[1.0, 2.0], [3.0, 4.0]], grad=True))))
    c.append(("empty_strided", lambda torch: (lambda e: (list(e.shape), e.stride(), _dtype(e.dtype)))(torch.empty_strided((2, 3), (1, 2), dtype=torch.float64))))
    c.append(("new_empty_strided", lambda torch: (lambda e: (list(e.shape), e.stride(), _dtype(e.dtype)))(torch.zeros(1, dtype=torch.int32).new_empty_strided((2, 2), (2, 1)))))
    return c


def _torch_level_cases():
    c = []
    for name in ("abs_", "acos_", "arccos_", "arcsin_", "arctan_", "asin_", "atan_", "ceil_", "cos_", "cosh_", "deg2rad_", "erf_",
                 "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "i0_", "log10_", "log1p_", "log2_", "log_", "neg_",
                 "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
                 "square_", "tan_", "tanh_", "trunc_", "zero_", "arccosh_", "arcsinh_", "arctanh_", "acosh_", "asinh_", "atanh_"):
        c.append((f"torch.{name}", lambda torch, name=name: (lambda x: (getattr(torch, name)(x) is x, x))(t(torch, [0.5, 0.25, 0.75]) + (1.5 if "cosh" in name else 0))))
    for name in ("absolute_", "clip_", "divide_", "subtract_", "arccos_", "arcsin_", "arctan_", "cumsum_", "cumprod_"):
        args = {"clip_": (0.3, 0.6), "divide_": (2.0,), "subtract_": (0.5,), "cumsum_": (0,), "cumprod_": (0,)}.get(name, ())
        c.append((f"Tensor.{name}", lambda torch, name=name, args=args: (lambda x: (getattr(x, name)(*args) is x, x))(torch.tensor([0.5, -0.25, 0.75]))))
    c.append(("torch.clamp_", lambda torch: (lambda x: (torch.clamp_(x, 0.0, 0.5), torch.clamp_min_(x, 0.2), torch.clamp_max_(x, 0.4), x))(t(torch, [0.1, 0.9]))))
    c.append(("torch.fill_", lambda torch: (lambda x: (torch.fill_(x, 3.0), x))(t(torch, [0.1, 0.9]))))
    c.append(("torch.xlogy_", lambda torch: (lambda x: (torch.xlogy_(x, t(torch, [2.0, 3.0])), x))(t(torch, [1.0, 0.0]))))
    c.append(("torch.ldexp_", lambda torch: (lambda x: (torch.ldexp_(x, torch.tensor([1, 2])), x))(t(torch, [1.0, 3.0]))))
    c.append(("torch.detach_", lambda torch: (lambda x: (lambda y: (torch.detach_(y) is y, y.requires_grad))(x * 2))(t(torch, [1.0], grad=True))))
    c.append(("torch.nan_to_num_", lambda torch: (lambda x: (torch.nan_to_num_(x), x))(t(torch, [NAN, 1.0]))))
    c.append(("torch.logit_", lambda torch: (lambda x: (torch.logit_(x), x))(t(torch, [0.5, 0.25]))))
    # NumPy's argument names
    m = lambda torch: t(torch, [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    c.append(("axis", lambda torch: [m(torch).sum(axis=1), torch.sum(m(torch), axis=0, keepdims=True), torch.mean(m(torch), axis=1, keepdims=True),
                                     m(torch).amax(axis=0), m(torch).std(axis=1), torch.cumsum(m(torch), axis=1), m(torch).prod(axis=0, keepdims=True),
                                     m(torch).argmax(axis=1), m(torch).softmax(axis=0), torch.cat([m(torch), m(torch)], axis=1),
                                     torch.stack([m(torch), m(torch)], axis=2), torch.concat([m(torch)], axis=0), m(torch).any(axis=0),
                                     m(torch).logsumexp(axis=1), torch.squeeze(m(torch)[:1], axis=0), m(torch).unsqueeze(axis=0),
                                     tuple(m(torch).max(axis=1, keepdims=True)), tuple(torch.sort(m(torch), axis=0))]))
    # factories and info
    c.append(("range", lambda torch: [torch.range(1, 4), torch.range(0, 1, 0.3), torch.range(5, 1, -2, dtype=torch.int64), torch.range(0, 0.9, 0.1, dtype=torch.float64)]))
    c.append(("logspace", lambda torch: [torch.logspace(0, 2, 3), torch.logspace(-1, 1, 5, base=2.0, dtype=torch.float64), torch.logspace(1, 1, 1), torch.logspace(0, 1, 0)]))
    for w in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        c.append((w, lambda torch, w=w: [getattr(torch, w)(n, p, dtype=torch.float64) for n in (0, 1, 2, 5, 8) for p in (True, False)]
                  + [getattr(torch, w)(6)]))
    c.append(("hamming_window-args", lambda torch: torch.hamming_window(7, False, 0.5, 0.5, dtype=torch.float64)))
    c.append(("kaiser_window-beta", lambda torch: torch.kaiser_window(7, False, 5.0, dtype=torch.float64)))
    c.append(("window-int", lambda torch: torch.hann_window(4, dtype=torch.int64)))
    fields = lambda i: [getattr(i, f) for f in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")]
    c.append(("finfo", lambda torch: [fields(torch.finfo(d)) for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64)]
              + [fields(torch.finfo()), repr(torch.finfo(torch.float32)), repr(torch.finfo(torch.float16))]))
    c.append(("iinfo", lambda torch: [[torch.iinfo(d).bits, torch.iinfo(d).min, torch.iinfo(d).max, torch.iinfo(d).dtype]
                                      for d in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)] + [repr(torch.iinfo(torch.int16))]))
    c.append(("finfo-int", lambda torch: torch.finfo(torch.int32)))
    c.append(("iinfo-float", lambda torch: torch.iinfo(torch.float32)))
    c.append(("legacy", lambda torch: [torch.FloatTensor(2, 3).shape == (2, 3), torch.LongTensor([1, 2]), torch.DoubleTensor([[1.0]]),
                                       torch.IntTensor([3]), torch.BoolTensor([True]), torch.ByteTensor([1]), torch.HalfTensor([1.0]).dtype == torch.float16,
                                       isinstance(torch.zeros(1), torch.FloatTensor), isinstance(torch.zeros(1), torch.LongTensor),
                                       isinstance(torch.zeros(1, dtype=torch.int64), torch.LongTensor), torch.FloatTensor(torch.Size([4])).shape == (4,),
                                       torch.FloatTensor().shape == (0,), torch.ShortTensor.dtype == torch.int16, torch.CharTensor.dtype == torch.int8,
                                       torch.BFloat16Tensor.dtype == torch.bfloat16, torch.FloatTensor(torch.tensor([1.0, 2.0])).dtype == torch.float32]))
    c.append(("switches", lambda torch: [torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
                                         torch.get_deterministic_debug_mode(), torch.is_anomaly_enabled(), torch.is_storage(torch.zeros(1)),
                                         torch.get_num_interop_threads() > 0]))
    return c




def _more_cases():
    c = []
    a, b = [1, -8, 3, 5, -1, 7], [1, 1, 70, 0, 63, 3]
    for op in ("bitwise_left_shift", "bitwise_right_shift"):
        c.append((op, lambda torch, op=op: getattr(torch, op)(torch.tensor(a), torch.tensor(b))))
        c.append((f"{op}-uint8", lambda torch, op=op: getattr(torch, op)(torch.tensor([3, 200], dtype=torch.uint8), 7)))
        c.append((f"{op}-int32", lambda torch, op=op: getattr(torch.tensor([-5, 6], dtype=torch.int32), op)(torch.tensor([2, 31], dtype=torch.int32))))
        c.append((f"{op}_", lambda torch, op=op: (lambda x: (getattr(x, op + "_")(torch.tensor([1, 2])), x))(torch.tensor([5, -6]))))
        c.append((f"{op}-float", lambda torch, op=op: getattr(torch, op)(torch.tensor([1.0]), torch.tensor([1.0]))))
    c.append(("shift-operators", lambda torch: [torch.tensor([1, 2]) << 3, torch.tensor([16, -16]) >> torch.tensor([2, 2]),
                                                (lambda x: (x.__ilshift__(1), x))(torch.tensor([3]))]))
    c.append(("rsub", lambda torch: [torch.rsub(t(torch, [1.0, 2.0]), 5, alpha=2), torch.rsub(t(torch, [1.0, 2.0]), t(torch, [3.0, 3.0]))]))
    c.append(("scalar_tensor", lambda torch: [torch.scalar_tensor(3), torch.scalar_tensor(2.5, dtype=torch.float64), torch.scalar_tensor(True)]))
    c.append(("fill", lambda torch: [torch.fill(torch.zeros(2), 4), torch.fill(torch.zeros(2, dtype=torch.int64), t(torch, 2.0))]))
    c.append(("adjoint", lambda torch: [torch.adjoint(torch.arange(6).reshape(2, 3)), torch.arange(24).reshape(2, 3, 4).adjoint()]))
    c.append(("real-imag", lambda torch: torch.real(t(torch, [1.0, -2.0]))))
    c.append(("imag", lambda torch: torch.imag(t(torch, [1.0]))))
    c.append(("typename", lambda torch: [torch.typename(torch.zeros(1)), torch.typename(torch.zeros(1, dtype=torch.int64)), torch.typename(1)]))
    c.append(("resize_", lambda torch: (lambda x: (x.resize_(2, 2), x.resize_(3).shape, x[:3]))(torch.arange(6.0))))
    c.append(("resize_as_", lambda torch: (lambda x: (x.resize_as_(torch.zeros(3, 2)).shape, x))(torch.arange(6.0))))
    c.append(("apply_-map_", lambda torch: [torch.arange(4.0).apply_(lambda v: v * v + 1),
                                            torch.arange(3.0).map_(t(torch, [10.0, 20.0, 30.0], "float32"), lambda u, v: u + v)]))
    c.append(("new", lambda torch: [torch.zeros(2, dtype=torch.float64).new(2, 3).shape == (2, 3), torch.zeros(1, dtype=torch.int64).new([1, 2]),
                                    torch.zeros(1).new().shape == (0,)]))
    c.append(("equal", lambda torch: [t(torch, [1.0, 2.0]).equal(t(torch, [1.0, 2.0])), t(torch, [1.0]).equal(t(torch, [2.0]))]))
    c.append(("ger-argwhere", lambda torch: [torch.ger(t(torch, [1.0, 2.0]), t(torch, [3.0, 4.0, 5.0])), t(torch, [1.0]).ger(t(torch, [2.0])),
                                             torch.argwhere(torch.tensor([[0, 1], [2, 0]])), torch.tensor([0, 3]).argwhere()]))
    c.append(("copies", lambda torch: [torch.t_copy(torch.arange(6).reshape(2, 3)), torch.transpose_copy(torch.arange(6).reshape(2, 3), 0, 1),
                                       torch.permute_copy(torch.arange(6).reshape(1, 2, 3), (2, 0, 1)), torch.expand_copy(torch.tensor([1, 2]), (2, 2)),
                                       torch.select_copy(torch.arange(6).reshape(2, 3), 1, 2), torch.squeeze_copy(torch.zeros(1, 2)),
                                       torch.unsqueeze_copy(torch.tensor([1]), 0), torch.view_copy(torch.arange(4), (2, 2)),
                                       torch.diagonal_copy(torch.arange(9).reshape(3, 3)), torch.detach_copy(t(torch, [1.0])),
                                       torch.as_strided_copy(torch.arange(6), (2, 2), (1, 2)), torch.unfold_copy(torch.arange(5), 0, 2, 1),
                                       torch.unbind_copy(torch.arange(4).reshape(2, 2)), torch.split_copy(torch.arange(5), 2),
                                       torch.split_with_sizes_copy(torch.arange(5), [1, 4])]))
    c.append(("as_strided_scatter", lambda torch: torch.as_strided_scatter(t(torch, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                                                                           t(torch, [[10.0, 20.0], [30.0, 40.0]]), (2, 2), (1, 2), 1)))
    src3 = lambda torch: t(torch, [[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
    for reduce in ("prod", "mean", "amax", "amin"):
        for include in (True, False):
            c.append((f"index_reduce-{reduce}-{include}", lambda torch, r=reduce, i=include:
                      torch.ones(3, 2, dtype=torch.float64).index_reduce(0, torch.tensor([0, 0, 2]), src3(torch), r, include_self=i)))
    c.append(("index_reduce-dim1", lambda torch: torch.arange(6.0).reshape(2, 3).index_reduce(1, torch.tensor([2, 2]), t(torch, [[1.0, 9.0], [4.0, -1.0]], "float32"), "amax")))
    c.append(("index_reduce_", lambda torch: (lambda x: (x.index_reduce_(0, torch.tensor([1]), t(torch, [[3.0, 3.0]]), "mean"), x))(torch.ones(2, 2, dtype=torch.float64))))
    c.append(("index_reduce-bad", lambda torch: torch.ones(3, 2).index_reduce(0, torch.tensor([0]), torch.ones(1, 2), "sum")))
    c.append(("isin", lambda torch: [torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3])), torch.isin(torch.tensor([1, 2]), 2, invert=True),
                                     torch.isin(3, torch.tensor([1, 3])), torch.isin(t(torch, [1.5, NAN]), t(torch, [1.5, NAN]))]))
    c.append(("nonzero_static", lambda torch: [torch.nonzero_static(torch.tensor([0, 1, 0, 2]), size=4),
                                               torch.tensor([[0, 1], [1, 0]]).nonzero_static(size=1, fill_value=-5)]))
    c.append(("tril-triu-indices", lambda torch: [torch.tril_indices(3, 3), torch.triu_indices(2, 3, 1), torch.tril_indices(3, 2, -1),
                                                  torch.triu_indices(4, 4, -1), torch.tril_indices(0, 3), torch.triu_indices(3, 3, dtype=torch.int32)]))
    c.append(("as_subclass", lambda torch: (lambda y: (type(y).__name__, y))(t(torch, [1.0]).as_subclass(type("Sub", (torch.Tensor,), {})))))
    c.append(("flags", lambda torch: [torch.is_warn_always_enabled(), torch.is_anomaly_check_nan_enabled()]))
    return c


def cases():
    return (_unary_cases() + _composite_cases() + _predicate_cases() + _geometry_cases() + _split_cases() + _scatter_cases()
            + _torch_level_cases() + _more_cases())
