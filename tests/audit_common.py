"""What the audit cases (tests/audit_cases_*.py) share: a case, its inputs, and how a result is captured.

A case is a call written over a framework module `T` (torch or rstorch) and float64 input tensors
whose values are the same in both frameworks (a fixed formula, no random generator). The recorder
(tests/record_audit.py, run with PyTorch) stores the values of the outputs and the gradients of a
fixed weighting of them into tests/fixtures/audit.json; the tests (tests/python/test_audit_*.py)
replay each case on rstorch, compare, and gradcheck the same function on contiguous and
non-contiguous inputs (gradgradcheck where PyTorch has double backward).
"""
import math


class Case:
    """`fn(T, *inputs)`; `shapes` of the float64 inputs; `domains` says where their values lie
    ("real" in (-2, 2), "unit" in (-0.9, 0.9), "pos" in [0.5, 2], "spread" real values far
    enough apart for sorts and maxima to have one answer); `grad`: the inputs are differentiated;
    `gg`: double backward is checked too; `rtol`: of the parity comparison; `grad_parity`: False
    where PyTorch's own gradient is wrong (it fails PyTorch's gradcheck), so only rstorch's
    gradcheck speaks for the gradient."""

    def __init__(self, name, fn, shapes, domains="real", grad=True, gg=False, nc=True, rtol=1e-10, grad_parity=True):
        self.name, self.fn, self.shapes = name, fn, [tuple(s) for s in shapes]
        self.domains = [domains] * len(shapes) if isinstance(domains, str) else list(domains)
        self.grad, self.gg, self.nc, self.rtol, self.grad_parity = grad, gg, nc, rtol, grad_parity


def values(n, k, domain):
    """n deterministic float64 values for input number k."""
    if domain == "spread":
        # a permutation of distinct values 0.25 apart (no ties for sorts, maxima, medians)
        step = next(p for p in (7, 11, 13, 17, 19, 23) if math.gcd(p, n) == 1)
        return [(((i * step + k * 3) % n) - n / 2) * 0.25 + 0.1 for i in range(n)]
    # the quadratic phase keeps matrices of these values full-rank (sin(a*i + b) alone gives rank 2)
    raw = [math.sin(1.3 * i + 0.7 * k + 0.5 + 0.21 * i * i) for i in range(n)]
    if domain == "unit":
        return [0.9 * v for v in raw]
    if domain == "pos":
        return [0.5 + 0.75 * (v + 1.0) for v in raw]
    return [2.0 * v for v in raw]


def inputs(T, case, contiguous=True):
    """The case's inputs as float64 leaves; non-contiguous ones are every other element of a
    twice-as-wide tensor (same values, stride 2 in the last dim)."""
    out = []
    for k, (shape, domain) in enumerate(zip(case.shapes, case.domains)):
        n = math.prod(shape)
        x = T.tensor(values(n, k, domain), dtype=T.float64).reshape(shape)
        if not contiguous and len(shape) > 0:
            wide = T.stack([x, T.zeros_like(x)], -1).reshape(*shape[:-1], 2 * shape[-1])
            x = wide[..., ::2]
        out.append(x.detach().requires_grad_(case.grad))
    return out


def weights(T, shape):
    n = math.prod(shape)
    return T.tensor([math.cos(0.9 * i + 0.3) for i in range(n)], dtype=T.float64).reshape(shape)


def outputs(result):
    """The tensors of a result (a tensor, a tuple/list/named tuple of them, possibly nested)."""
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in outputs(item)]
    return [result] if hasattr(result, "shape") and hasattr(result, "dtype") else []


def differentiable(T, case):
    """The case as a function of its inputs giving its floating-point outputs that need grad."""
    def f(*xs):
        outs = [o for o in outputs(case.fn(T, *xs)) if o.dtype.is_floating_point and o.requires_grad]
        return tuple(outs) if len(outs) != 1 else outs[0]
    return f


def _dtype(dtype):
    return str(dtype).rpartition(".")[2]


def _tensor(t):
    t = t.detach()
    try:
        flat = t.reshape(-1).tolist()
    except RuntimeError:  # PyTorch's gradients of constant functions are storage-less zeros
        flat = [0.0] * t.numel()
    return {"dtype": _dtype(t.dtype), "shape": list(t.shape), "v": flat}


def capture(T, case):
    """The outputs of the case and the gradients of sum(out * weights) over its floating outputs."""
    xs = inputs(T, case)
    try:
        result = case.fn(T, *xs)
    except Exception as e:  # the error's type and message are part of the behaviour
        return {"error": type(e).__name__, "message": str(e).replace("torch.", "").replace("rstorch.", "")}
    outs = outputs(result)
    rec = {"outs": [_tensor(o) for o in outs], "requires_grad": [o.requires_grad for o in outs]}
    if not isinstance(result, (tuple, list)) and not outs:
        rec["py"] = result if isinstance(result, (bool, int, float)) else repr(result)
    floating = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    if case.grad and floating:
        total = sum((o * weights(T, o.shape)).sum() for o in floating)
        try:
            grads = T.autograd.grad(total, xs, allow_unused=True)
        except Exception as e:  # PyTorch has no derivative for some (atanh_): rstorch should say so too
            rec["grads_error"] = type(e).__name__
            return rec
        rec["grads"] = [None if g is None else _tensor(g) for g in grads]
    return rec
