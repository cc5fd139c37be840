"""Formats tensors the way PyTorch prints them: `tensor([[1.0000, 2.5000], ...], dtype=...)`."""
import math

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80

# dtypes printed without a `dtype=` suffix
_DEFAULT_DTYPES = ("float32", "int64", "bool")


class _Formatter:
    """Chooses one number format for all elements, as PyTorch does."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        finite = [v for v in values if math.isfinite(v)] if floating else values
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        for v in finite:
            if v != math.ceil(v):
                self.int_mode = False
                break
        if finite:
            nonzero = [abs(v) for v in finite if v != 0]
            if nonzero:
                lo, hi = min(nonzero), max(nonzero)
                # PyTorch's rule: a wide range of magnitudes, or very large values, print in
                # scientific notation; so do very small ones unless every value is an integer.
                self.sci_mode = hi / lo > 1000.0 or hi > 1e8 or (not self.int_mode and lo < 1e-4)
        self.width = max((len(self._fmt(v)) for v in values), default=1)

    def _fmt(self, v):
        if not self.floating:
            return str(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def format(self, v):
        return self._fmt(v).rjust(self.width)


def _summarized(data, shape, summarize):
    """Flat values that will be printed (the edges of each dim when summarizing)."""
    if not shape:
        return [data]
    if summarize and shape[0] > 2 * EDGEITEMS:
        items = list(data[:EDGEITEMS]) + list(data[-EDGEITEMS:])
    else:
        items = data
    out = []
    for item in items:
        out.extend(_summarized(item, shape[1:], summarize))
    return out


def _format_nested(data, shape, fmt, indent, summarize):
    if not shape:
        return fmt.format(data)
    if len(shape) == 1:
        n = shape[0]
        if summarize and n > 2 * EDGEITEMS:
            parts = [fmt.format(v) for v in data[:EDGEITEMS]] + [" ..."] + [fmt.format(v) for v in data[-EDGEITEMS:]]
        else:
            parts = [fmt.format(v) for v in data]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(parts[i:i + per_line]) for i in range(0, len(parts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_format_nested(d, shape[1:], fmt, indent + 1, summarize) for d in data[:EDGEITEMS]]
        rows.append("...")
        rows += [_format_nested(d, shape[1:], fmt, indent + 1, summarize) for d in data[-EDGEITEMS:]]
    else:
        rows = [_format_nested(d, shape[1:], fmt, indent + 1, summarize) for d in data]
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def tensor_repr(t, prefix="tensor("):
    shape = tuple(t.shape)
    dtype = t.dtype
    name = str(dtype).split(".")[-1]
    floating = dtype.is_floating_point
    suffixes = []
    if t.numel() == 0:
        body = "[]"
        if shape != (0,):
            suffixes.append(f"size={shape}")
    else:
        summarize = t.numel() > THRESHOLD
        data = t.detach().float().tolist() if name == "bfloat16" else t.detach().tolist()
        flat = _summarized(data, shape, summarize)
        if name == "bool":
            fmt = _BoolFormatter(flat)
        else:
            fmt = _Formatter(flat, floating)
        body = _format_nested(data, shape, fmt, len(prefix), summarize)
    if t.device.type != "cpu":
        suffixes.append("device='" + str(t.device) + "'")
    if name not in _DEFAULT_DTYPES or (t.numel() == 0 and name != "float32"):
        if not (t.numel() == 0 and name == "float32"):
            suffixes.append(f"dtype={dtype}")
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + ", ".join([body] + suffixes) + ")"


class _BoolFormatter:
    def __init__(self, values):
        self.width = max(len(str(bool(v))) for v in values) if values else 4

    def format(self, v):
        return str(bool(v)).rjust(self.width)
