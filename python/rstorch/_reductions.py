"""Reductions, scans and counting PyTorch offers beside the core's: the NaN-ignoring reductions,
cummax/cummin, logcumsumexp, mode, quantiles, histograms, unique, diff, renorm, distances,
cov/corrcoef, trapezoid and the searches.

Values that carry gradients are composed from the core's differentiable ops (a value picked by an
index is a `gather`, so its gradient is the core's scatter); where only an index or a count is
needed (cummax's positions, mode, unique, histograms) it is computed on the host with NumPy, as
these have no gradient in PyTorch either.
"""
import builtins
import itertools
import math

from . import _C, return_types
from ._C import Tensor
from ._tensor import _original


class _LazyNumPy:
    """NumPy, imported on first use so that `import rstorch` does not pay for it."""

    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


np = _LazyNumPy()
_FLOATS = ("float16", "bfloat16", "float32", "float64")
# PyTorch's names of the dtypes in its messages.
_TITLES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
}


def _key(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _is_float(t):
    return _key(t.dtype) in _FLOATS


def _wrap(dim, ndim):
    """A dim in [-ndim, ndim) as a non-negative index (a 0-d tensor has the one dim 0)."""
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _host(t):
    return t.detach().cpu().numpy()


def _device_tensor(array, like):
    return _C.from_numpy(np.array(array, copy=True, order="C")).to(like.device)


def _sum(t, dim, keepdim, dtype=None):
    if dim is None:
        out = t.sum(dtype=dtype) if dtype is not None else t.sum()
        return out.reshape([1] * t.dim()) if keepdim else out
    return t.sum(dim, keepdim, dtype=dtype) if dtype is not None else t.sum(dim, keepdim)


# --- NaN-ignoring reductions and counting ---------------------------------------------------------

def nansum(input, dim=None, keepdim=False, *, dtype=None):
    x = input.masked_fill(input.isnan(), 0) if _is_float(input) else input
    return _sum(x, dim, keepdim, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not _is_float(input):
        raise NotImplementedError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_TITLES[_key(input.dtype)]}")
    count = _sum(input.isnan().logical_not(), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def count_nonzero(input, dim=None):
    return _sum(input != 0, dim, False)


def aminmax(input, *, dim=None, keepdim=False):
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
        return return_types.aminmax(lo, hi)
    return return_types.aminmax(input.amin(dim, keepdim), input.amax(dim, keepdim))


def _picked(input, dim, index_last, keepdim):
    """`input`'s values at `index_last` (indices along `dim`, moved last), and those indices, with
    `dim` kept or dropped."""
    idx = _device_tensor(np.expand_dims(index_last, -1), input).movedim(-1, dim)
    values = input.gather(dim, idx)
    if not keepdim:
        values, idx = values.squeeze(dim), idx.squeeze(dim)
    return values, idx


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the values that are not NaN (NaN where all are)."""
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            return _C.full((), float("nan"), dtype=input.dtype, device=input.device)
        return nanmedian(flat, 0).values
    d = _wrap(dim, input.dim())
    if input.dim() == 0:
        return return_types.nanmedian(input.clone(), _C.zeros((), dtype=_C.int64, device=input.device))
    a = np.moveaxis(_host(input), d, -1)
    if a.shape[-1] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    order = np.argsort(a, axis=-1, kind="stable")  # NaN sorts last
    valid = (~np.isnan(a)).sum(-1) if a.dtype.kind == "f" else np.full(a.shape[:-1], a.shape[-1])
    rank = np.maximum(valid - 1, 0) // 2
    index = np.take_along_axis(order, rank[..., None], -1)[..., 0]
    values, idx = _picked(input, d, index, keepdim)
    return return_types.nanmedian(values, idx)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along `dim` (the smallest among equally frequent ones) and the
    index of its last occurrence."""
    d = _wrap(dim, input.dim())
    if input.dim() == 0:
        return return_types.mode(input.clone(), _C.zeros((), dtype=_C.int64, device=input.device))
    a = np.moveaxis(_host(input), d, -1)
    n = a.shape[-1]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    rows = a.reshape(-1, n)
    # All rows at once: in each sorted row the length of the run ending at each place; the first
    # place reaching the longest run holds the smallest most frequent value.
    s = np.sort(rows, axis=1)
    place = np.broadcast_to(np.arange(n), s.shape)
    starts = np.ones(s.shape, bool)
    starts[:, 1:] = s[:, 1:] != s[:, :-1]
    run = place - np.maximum.accumulate(np.where(starts, place, 0), axis=1) + 1
    best = np.take_along_axis(s, run.argmax(1)[:, None], 1)
    index = np.where(rows == best, place, -1).max(1)
    values, idx = _picked(input, d, index.reshape(a.shape[:-1]), keepdim)
    return return_types.mode(values, idx)


def _with_mean(spread, input, dim, unbiased, keepdim, correction):
    # PyTorch's overloads: (dim, unbiased, keepdim), (unbiased) alone, or correction by keyword.
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if dim is None:
        dim = tuple(range(input.dim()))
    kwargs = {"correction": correction, "keepdim": keepdim}
    if dim == ():
        return getattr(input, spread)(**kwargs), input.mean()
    return getattr(input, spread)(dim, **kwargs), input.mean(dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    return _with_mean("std", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    return _with_mean("var", input, dim, unbiased, keepdim, correction)


def msort(input, *, out=None):
    return input.sort(0).values


# --- scans ----------------------------------------------------------------------------------------

def _cumulative_extreme(input, dim, largest):
    d = _wrap(dim, input.dim())
    if input.dim() == 0:
        return input.clone(), _C.zeros((), dtype=_C.int64, device=input.device)
    a = np.moveaxis(_host(input), d, -1)
    index = np.zeros(a.shape, np.int64)
    if a.shape[-1]:
        best, at = a[..., 0].copy(), np.zeros(a.shape[:-1], np.int64)
        for i in range(1, a.shape[-1]):
            x = a[..., i]
            # PyTorch's rule: a NaN takes over (and stays), ties move to the later index.
            take = (x >= best) if largest else (x <= best)
            if a.dtype.kind == "f":
                take = np.isnan(x) | (take & ~np.isnan(best))
            best, at = np.where(take, x, best), np.where(take, i, at)
            index[..., i] = at
    idx = _device_tensor(np.moveaxis(index, -1, d), input)
    return input.gather(d, idx), idx


def cummax(input, dim):
    return return_types.cummax(*_cumulative_extreme(input, dim, True))


def cummin(input, dim):
    return return_types.cummin(*_cumulative_extreme(input, dim, False))


def _log_cumsum_exp_host(t, dim):
    with np.errstate(invalid="ignore"):  # -inf + -inf is -inf, which NumPy warns of
        return _device_tensor(np.logaddexp.accumulate(_host(t), axis=dim), t)


def _log_cumsum_exp_function():
    """The autograd Function of logcumsumexp, built on first use (autograd loads lazily)."""
    global _LOG_CUMSUM_EXP
    if _LOG_CUMSUM_EXP is not None:
        return _LOG_CUMSUM_EXP
    from .autograd.function import Function

    class LogCumSumExp(Function):
        """`log(cumsum(exp(x)))` without overflow; the gradient `exp(x_j) * sum_{i>=j} g_i exp(-out_i)`
        is computed in log space, split by the sign of `g`, so that it neither overflows nor
        underflows (and is differentiable again, being logcumsumexp itself)."""

        @staticmethod
        def forward(ctx, x, dim):
            out = _log_cumsum_exp_host(x, dim)
            ctx.dim = dim
            ctx.save_for_backward(x, out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, out = ctx.saved_tensors
            dim, ninf = ctx.dim, float("-inf")
            if _C.is_grad_enabled() and x.requires_grad:
                # Recorded (create_graph): the saved output has no history back to x.
                out = LogCumSumExp.apply(x, dim)

            def reversed_lcse(t):
                return logcumsumexp(t.flip(dim), dim).flip(dim)
            pos = g.clamp_min(0).log().masked_fill(g <= 0, ninf)
            neg = (-g).clamp_min(0).log().masked_fill(g >= 0, ninf)
            return (x + reversed_lcse(pos - out)).exp() - (x + reversed_lcse(neg - out)).exp(), None
    LogCumSumExp._backward_name = "LogcumsumexpBackward0"
    _LOG_CUMSUM_EXP = LogCumSumExp
    return LogCumSumExp


_LOG_CUMSUM_EXP = None


def logcumsumexp(input, dim):
    d = _wrap(dim, input.dim())
    if not _is_float(input):
        raise RuntimeError(f"\"logcumsumexp_out_cpu\" not implemented for '{_TITLES[_key(input.dtype)]}'")
    if input.dim() == 0:
        return input.clone()
    return _log_cumsum_exp_function().apply(input, d)


def _cumsum_(self, dim, *, dtype=None):
    return self._assign_(self.cumsum(dim, dtype=dtype))


def _cumprod_(self, dim, *, dtype=None):
    return self._assign_(self.cumprod(dim, dtype=dtype))


# --- quantiles ------------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile()" if ignore_nan else "quantile()"
    if input.numel() == 0:
        raise RuntimeError(f"{name} input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{name} q must be a scalar or 1D tensor")
        if _key(input.dtype) not in ("float32", "float64"):
            raise RuntimeError(f"{name} input tensor must be either float or double dtype")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name} q tensor must be same dtype as the input tensor")
        qs, scalar_q = q.reshape(-1).to(input.device), q.dim() == 0
        if qs.numel() and not bool(((qs >= 0) & (qs <= 1)).all()):
            raise RuntimeError(f"{name} q values must be in the range [0, 1]")
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name} q must be in the range [0, 1] but got {q:g}")
        if _key(input.dtype) not in ("float32", "float64"):
            raise RuntimeError(f"{name} input tensor must be either float or double dtype")
        qs, scalar_q = _C.tensor([float(q)], dtype=input.dtype, device=input.device), True
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name} interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    x, d = (input.reshape(-1), 0) if dim is None else (input, _wrap(dim, input.dim()))
    s = (x.sort(d).values if x.dim() else x.reshape(1)).movedim(d if x.dim() else 0, -1)
    n = s.shape[-1]
    if ignore_nan:
        count = s.isnan().logical_not().sum(-1, keepdim=True).to(input.dtype)
    else:
        count = _C.full((1,), float(n), dtype=input.dtype, device=input.device)
    ranks = (qs * (count - 1)).clamp_min(0)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.floor().long()
    shape = list(s.shape[:-1]) + [qs.numel()]
    below = below.expand(shape)
    values = s.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        above = ranks.ceil().long().expand(shape)
        weight = (ranks - below.to(ranks.dtype)) if interpolation == "linear" else _C.full(
            (), 0.5, dtype=input.dtype, device=input.device)
        values = values.lerp(s.gather(-1, above), weight)
    if not ignore_nan:
        # NaN sorts last: a slice holding one gives NaN.
        values = values.masked_fill(s[..., n - 1:].isnan().expand(shape), float("nan"))
    values = values.movedim(-1, 0)  # the q dim first, as PyTorch returns it
    if keepdim:
        if dim is None:
            values = values.reshape([qs.numel()] + [1] * input.dim())
        elif input.dim():
            values = values.unsqueeze(d + 1)
    return values[0] if scalar_q else values


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return _quantile(input, q, dim, keepdim, interpolation, True)


# --- histograms, counting and unique --------------------------------------------------------------

def _bin_of(a, edges):
    """The bin of each value of `a` given increasing `edges` (the last bin closed), -1 outside:
    the linear guess PyTorch makes for even bins, corrected against the edges themselves."""
    lo, hi, nbins = edges[0], edges[-1], len(edges) - 1
    inside = (a >= lo) & (a <= hi)
    pos = np.searchsorted(edges, a, side="right") - 1
    pos = np.where(a == hi, nbins - 1, pos)
    return np.where(inside, pos, -1)


def _histogram_counts(a, edges, weights):
    bins = _bin_of(a.reshape(-1), edges)
    keep = bins >= 0
    w = None if weights is None else weights.reshape(-1)[keep]
    return np.bincount(bins[keep], weights=w, minlength=len(edges) - 1).astype(a.dtype)


def histc(input, bins=100, min=0, max=0, *, out=None):
    if not _is_float(input):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_TITLES[_key(input.dtype)]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    a = _host(input)
    lo, hi = (a.dtype.type(min), a.dtype.type(max))
    if lo == hi and a.size:
        lo, hi = a.min(), a.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, but got min {min:g} max {max:g}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    edges = np.linspace(lo, hi, bins + 1, dtype=a.dtype)
    return _device_tensor(_histogram_counts(a, edges, None), input)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    a = _host(input)
    if isinstance(bins, Tensor):
        edges = _host(bins).astype(a.dtype)
    else:
        if range is None:
            lo, hi = (a.min(), a.max()) if a.size else (0.0, 0.0)
        else:
            lo, hi = range
        if lo > hi:
            raise ValueError(f"torch.histogram(): max must be larger than min, but got min {lo} max {hi}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, bins + 1, dtype=a.dtype)
    counts = _histogram_counts(a, edges, None if weight is None else _host(weight))
    if density:
        counts = counts / (counts.sum() * np.diff(edges))
    return return_types.histogram(_device_tensor(counts.astype(a.dtype), input), _device_tensor(edges, input))


def histogramdd(input, bins, *, range=None, weight=None, density=False, out=None):
    """The D-dimensional histogram of the rows of `input` (..., D): per dim even bins over
    `range` (or the data's span) or given edges; a sample outside any dim's edges is not counted."""
    a = _host(input)
    d = a.shape[-1]
    points = a.reshape(-1, d)
    if isinstance(bins, int):
        bins = [bins] * d
    edges = []
    for i, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(_host(b).astype(a.dtype))
            continue
        if range is not None:
            lo, hi = range[2 * i], range[2 * i + 1]
        else:
            lo, hi = (points[:, i].min(), points[:, i].max()) if points.size else (0.0, 0.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(np.linspace(lo, hi, b + 1, dtype=a.dtype))
    shape = tuple(len(e) - 1 for e in edges)
    where = np.stack([_bin_of(points[:, i], e) for i, e in enumerate(edges)]) if d else np.zeros((0, len(points)), np.int64)
    keep = (where >= 0).all(0)
    flat = np.ravel_multi_index(tuple(where[:, keep]), shape) if keep.any() else np.zeros(0, np.int64)
    w = None if weight is None else _host(weight).reshape(-1)[keep]
    hist = np.bincount(flat, weights=w, minlength=int(np.prod(shape))).astype(a.dtype).reshape(shape)
    if density:
        volume = np.ones(shape, a.dtype)
        for i, e in enumerate(edges):
            volume = volume * np.diff(e).reshape([-1 if j == i else 1 for j in builtins.range(d)])
        hist = hist / hist.sum() / volume
    return return_types.histogramdd(_device_tensor(hist.astype(a.dtype), input), [_device_tensor(e, input) for e in edges])


def bincount(input, weights=None, minlength=0):
    if input.dim() != 1 or _key(input.dtype) in _FLOATS + ("bool",):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    a = _host(input)
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _device_tensor(np.bincount(a, minlength=minlength).astype(np.int64), input)
    if weights.dim() != 1 or weights.shape[0] != input.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = _host(weights)
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64
    return _device_tensor(np.bincount(a, weights=w.astype(np.float64), minlength=minlength).astype(out_dtype), input)


def _unique_result(input, values, inverse, counts, return_inverse, return_counts):
    out = _device_tensor(values, input).to(input.dtype)
    if not (return_inverse or return_counts):
        return out
    parts = [out]
    if return_inverse:
        parts.append(_device_tensor(inverse.astype(np.int64), input))
    if return_counts:
        parts.append(_device_tensor(counts.astype(np.int64), input))
    return tuple(parts)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    a = _host(input)
    if dim is None:
        values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        return _unique_result(input, values, inverse.reshape(a.shape), counts, return_inverse, return_counts)
    d = _wrap(dim, input.dim())
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=d)
    return _unique_result(input, values, inverse.reshape(-1), counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    a = _host(input)
    if dim is None:
        flat = a.reshape(-1)
        starts = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else np.zeros(0, bool)
        inverse = (np.cumsum(starts) - 1).reshape(a.shape)
        first = np.nonzero(starts)[0]
        counts = np.diff(np.append(first, flat.size))
        return _unique_result(input, flat[first], inverse, counts, return_inverse, return_counts)
    d = _wrap(dim, input.dim())
    m = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
    starts = np.concatenate([[True], (m[1:] != m[:-1]).any(1)]) if m.shape[0] else np.zeros(0, bool)
    first = np.nonzero(starts)[0]
    counts = np.diff(np.append(first, m.shape[0]))
    return _unique_result(input, np.take(a, first, axis=d), np.cumsum(starts) - 1, counts, return_inverse,
                          return_counts)


# --- differences, norms and distances -------------------------------------------------------------

def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap(dim, input.dim())

    for extra in (prepend, append):
        if extra is not None and extra.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    parts = ([prepend] if prepend is not None else []) + [input] + ([append] if append is not None else [])
    x = _C.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x.dtype == _C.bool else hi - lo
    return x


def _gradient_along(f, d, h, edge_order):
    """One dim of torch.gradient: central differences inside, one-sided ones of `edge_order` at
    the ends; `h` a number (even spacing) or the coordinates along `d`."""
    n = f.shape[d]

    def at(start, length=None):
        return f.narrow(d, start, n - 2 if length is None else length)
    if not isinstance(h, Tensor):
        inner = (at(2) - at(0)) / (2 * h)
        if edge_order == 1:
            first, last = (at(1, 1) - at(0, 1)) / h, (at(n - 1, 1) - at(n - 2, 1)) / h
        else:
            first = (at(0, 1) * -1.5 + at(1, 1) * 2 - at(2, 1) * 0.5) / h
            last = (at(n - 3, 1) * 0.5 - at(n - 2, 1) * 2 + at(n - 1, 1) * 1.5) / h
        return _C.cat([first, inner, last], d)
    shape = [1] * f.dim()
    shape[d] = n
    x = h.reshape(shape)
    dx = diff(x, dim=d)
    hl, hr = dx.narrow(d, 0, n - 2), dx.narrow(d, 1, n - 2)
    inner = (hl * hl * at(2) - hr * hr * at(0) + (hr * hr - hl * hl) * at(1)) / (hl * hr * (hl + hr))
    if edge_order == 1:
        first = (at(1, 1) - at(0, 1)) / dx.narrow(d, 0, 1)
        last = (at(n - 1, 1) - at(n - 2, 1)) / dx.narrow(d, n - 2, 1)
    else:
        a1, a2 = dx.narrow(d, 0, 1), dx.narrow(d, 1, 1)
        first = (-(2 * a1 + a2) / (a1 * (a1 + a2)) * at(0, 1) + (a1 + a2) / (a1 * a2) * at(1, 1)
                 - a1 / (a2 * (a1 + a2)) * at(2, 1))
        b1, b2 = dx.narrow(d, n - 3, 1), dx.narrow(d, n - 2, 1)
        last = (b2 / (b1 * (b1 + b2)) * at(n - 3, 1) - (b1 + b2) / (b1 * b2) * at(n - 2, 1)
                + (2 * b2 + b1) / (b2 * (b1 + b2)) * at(n - 1, 1))
    return _C.cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap(d, input.dim()) for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                                   f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got a "
                                   f"list of length {len(spacing)}")
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                               f"and a dim argument of length {len(dims)}.")
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if _is_float(input) else input.to(_C.float32)
    return tuple(_gradient_along(f, d, h, edge_order) for d, h in zip(dims, steps))


def renorm(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = _wrap(dim, input.dim())
    others = tuple(i for i in range(input.dim()) if i != d)
    norms = input.norm(p, dim=others, keepdim=True) if others else input.abs()
    factor = (maxnorm / (norms + 1e-7)).masked_fill(norms <= maxnorm, 1.0)
    return input * factor


def _renorm_(self, p, dim, maxnorm):
    return self._assign_(renorm(_original(self), p, dim, maxnorm))


def dist(input, other, p=2):
    return (input - other).norm(p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, dim=-1)


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    if not _is_float(x):
        x = x.to(_C.float32)
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg, w_sum = x.mean(1), n_obs
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is None:
        norm = w_sum - correction
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    if float(norm) <= 0:
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "number of observations.")
        norm = 0 if not isinstance(norm, Tensor) else norm.clamp_min(0)
    xm = x - avg.unsqueeze(1)
    c = (xm if w is None else xm * w).matmul(xm.t().conj() if x.is_complex() else xm.t()) / norm
    return c.squeeze()


def corrcoef(input):
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1)


def _trapezoid_parts(y, x, dx, dim):
    d = _wrap(dim, y.dim())
    n = y.shape[d]
    if x is not None:
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[d] = x.shape[0]
            x = x.reshape(shape)
        spacing = diff(x, dim=d)
    else:
        spacing = 1 if dx is None else dx
    return d, n, spacing


def trapezoid(y, x=None, *, dx=None, dim=-1):
    d, n, spacing = _trapezoid_parts(y, x, dx, dim)
    if n == 0:
        return y.sum(d) * 0
    mids = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
    if isinstance(spacing, Tensor):
        return (spacing * mids).sum(d) / 2
    return (spacing * (y.sum(d) - (y.select(d, 0) + y.select(d, n - 1)) / 2)) if n > 1 else y.sum(d) * 0


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d, n, spacing = _trapezoid_parts(y, x, dx, dim)
    if n == 0:
        return y.narrow(d, 0, 0)
    mids = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    return (spacing * mids).cumsum(d)


def combinations(input, r=2, with_replacement=False):
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty((0,), dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return _C.empty((0, r), dtype=input.dtype, device=input.device)
    index = _C.tensor(rows, dtype=_C.int64, device=input.device)
    return input.index_select(0, index.reshape(-1)).reshape(len(rows), r)


# --- searching ------------------------------------------------------------------------------------

def _search_out(array, out_int32, like):
    return _device_tensor(array.astype(np.int32 if out_int32 else np.int64), like)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    scalar = not isinstance(input, Tensor)
    values = np.asarray(input) if scalar else _host(input)
    found = np.searchsorted(_host(boundaries), values, side="right" if right else "left")
    return _search_out(np.asarray(found), out_int32, boundaries)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = _host(sorted_sequence)
    if sorter is not None:
        seq = np.take_along_axis(seq, _host(sorter), -1)
    scalar = not isinstance(input, Tensor)
    values = np.asarray(input) if scalar else _host(input)
    where = "right" if right else "left"
    if seq.ndim == 1:
        found = np.searchsorted(seq, values, side=where)
    else:
        if values.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               "dimensions of boundaries tensor and input value tensor must match, but we got "
                               f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}")
        rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        found = np.stack([np.searchsorted(s, v, side=where) for s, v in zip(rows_s, rows_v)]).reshape(values.shape)
    return _search_out(np.asarray(found), out_int32, sorted_sequence)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    like = elements if isinstance(elements, Tensor) else test_elements
    e = _host(elements) if isinstance(elements, Tensor) else np.asarray(elements)
    t = _host(test_elements) if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _device_tensor(np.isin(e, t, invert=invert), like)


def argwhere(input):
    return input.nonzero()


# Functions that are also Tensor methods of the same name.
_METHODS = ("nansum nanmean nanmedian count_nonzero aminmax mode cummax cummin logcumsumexp quantile nanquantile "
            "histc histogram bincount unique unique_consecutive diff renorm dist corrcoef cov argwhere msort").split()
_FUNCTIONS = _METHODS + ("cdist trapezoid trapz cumulative_trapezoid combinations bucketize searchsorted isin std_mean "
                          "var_mean histogramdd gradient").split()


def install():
    for name in _METHODS:
        setattr(Tensor, name, globals()[name])
    Tensor.cumsum_ = _cumsum_
    Tensor.cumprod_ = _cumprod_
    Tensor.renorm_ = _renorm_
