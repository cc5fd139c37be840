"""The memory-bound ops given one-pass kernels (issue 23 item 3: clamp, max/min/argmax along a
dim, cumsum/cumprod, softmax along a dim that is not last, `x[rows]` of a strided input) and
their gradients, compared with PyTorch: one list for both frameworks (tests/record_membound2.py
runs it on PyTorch into fixtures/membound2.json, tests/python/test_membound2.py on rstorch).
Inputs come from NumPy with a fixed seed; edge cases: NaN (values and bounds), infinities,
ties, one row, empty dims, transposed (non-contiguous) inputs, negative dims, int and bool."""
import numpy as np


def record(value):
    """A result as JSON: tensors as {dtype, shape, values}, tuples as lists; NaN as None."""
    if isinstance(value, (tuple, list)):
        return [record(v) for v in value]
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        arr = value.detach().cpu().numpy()
        vals = [None if isinstance(v, float) and v != v else v for v in arr.reshape(-1).tolist()]
        return {"dtype": str(value.dtype).rsplit(".", 1)[-1], "shape": list(arr.shape), "values": vals}
    return value


def capture(fn):
    try:
        return {"out": record(fn())}
    except Exception as e:  # noqa: BLE001 (what either framework raises is the record)
        return {"error": [type(e).__name__, str(e)]}


def cases(torch):
    rng = np.random.default_rng(23)
    nan, inf = float("nan"), float("inf")

    def t(shape, dtype=None):
        return torch.tensor(rng.standard_normal(shape).tolist(), dtype=dtype or torch.float64)

    def with_grad(fn, x, *more):
        """fn(x) (a tensor or a tuple whose first item is differentiable), the gradient of its
        weighted sum for x, and the node's name."""
        leaf = x.detach().clone().requires_grad_(True)
        src = leaf if not more else more[0](leaf)
        out = fn(src)
        first = out[0] if isinstance(out, tuple) else out
        # Weights from the shape alone (the test runs the cases in another order than the record).
        w = ((torch.arange(first.numel(), dtype=first.dtype) % 7 - 3) / 4).reshape(tuple(first.shape))
        (g,) = torch.autograd.grad((first * w).sum(), leaf)
        return out, g, first.grad_fn.name()

    transposed = lambda v: v.t()  # noqa: E731 (a strided view of the leaf)
    edges = torch.tensor([-inf, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, inf, nan], dtype=torch.float64)
    x = t((6, 7))
    x32 = t((5, 9), torch.float32)
    ties = torch.tensor([[1.0, 3.0, 3.0, 0.0], [nan, 2.0, nan, 9.0], [-1.0, -1.0, -2.0, -2.0]], dtype=torch.float64)
    ints = torch.tensor([[3, 1, 2, 3, 1], [0, 0, 5, 5, 2]])
    bools = torch.tensor([[False, True, True], [False, False, False]])
    x3 = t((3, 4, 5))
    # Drawn here, not inside the lambdas: the test runs the cases in another order.
    row, col, vec = t((1, 5)), t((4, 1)), t((9,))

    def index_error(fn):
        try:
            return fn()
        except IndexError as e:  # rstorch raises a subclass of IndexError: the message is the record
            return str(e)
    out = {
        # clamp with number bounds: values, gradient (strictly inside), NaN input and bounds.
        "clamp_both": lambda: with_grad(lambda v: v.clamp(-1.0, 0.5), edges),
        "clamp_min_only": lambda: with_grad(lambda v: v.clamp(min=-1.0), edges),
        "clamp_max_only": lambda: with_grad(lambda v: v.clamp(max=0.5), edges),
        "clamp_min_fn": lambda: with_grad(lambda v: v.clamp_min(0.0), edges),
        "clamp_max_fn": lambda: with_grad(lambda v: torch.clamp_max(v, 0.0), edges),
        "clamp_nan_min": lambda: with_grad(lambda v: v.clamp(nan, 1.0), edges),
        "clamp_nan_max": lambda: with_grad(lambda v: v.clamp(max=nan), edges),
        "clamp_inf_bounds": lambda: with_grad(lambda v: v.clamp(-inf, inf), edges),
        "clamp_int_bounds": lambda: with_grad(lambda v: v.clamp(-1, 1), x),
        "clamp_crossed": lambda: with_grad(lambda v: v.clamp(1.0, -1.0), x),
        "clamp_transposed": lambda: with_grad(lambda v: v.clamp(-0.3, 0.4), x, transposed),
        "clamp_float32": lambda: with_grad(lambda v: v.clamp(-0.3, 0.4), x32),
        "clamp_empty": lambda: with_grad(lambda v: v.clamp(0.0, 1.0), torch.zeros(0, 3, dtype=torch.float64)),
        "clamp_inplace": lambda: with_grad(lambda v: (v * 1).clamp_(-0.5, 0.5), x),
        "clamp_min_inplace": lambda: with_grad(lambda v: (v * 1).clamp_min_(0.1), x),
        "clamp_int_tensor": lambda: ints.clamp(1, 3),
        # max / min along a dim: values, indices, gradient to the first best (NaN wins).
        **{f"max_dim{d}": (lambda d=d: with_grad(lambda v: v.max(d), x)) for d in (0, 1, -1, -2)},
        **{f"min_dim{d}": (lambda d=d: with_grad(lambda v: v.min(d), x)) for d in (0, 1)},
        "max_keepdim": lambda: with_grad(lambda v: v.max(1, keepdim=True), x),
        "min_keepdim0": lambda: with_grad(lambda v: torch.min(v, 0, keepdim=True), x),
        "max_ties_nan_1": lambda: with_grad(lambda v: v.max(1), ties),
        "max_ties_nan_0": lambda: with_grad(lambda v: v.max(0), ties),
        "min_ties_nan_1": lambda: with_grad(lambda v: v.min(1), ties),
        "max_transposed_1": lambda: with_grad(lambda v: v.max(1), x, transposed),
        "min_transposed_0": lambda: with_grad(lambda v: v.min(0), x, transposed),
        "max_3d": lambda: [with_grad(lambda v, d=d: v.max(d), x3) for d in (0, 1, 2)],
        "max_3d_permuted": lambda: with_grad(lambda v: v.max(1), x3, lambda v: v.permute(2, 0, 1)),
        "max_one_row": lambda: with_grad(lambda v: v.max(1), row),
        "max_one_col": lambda: with_grad(lambda v: v.max(1), col),
        "max_float32": lambda: with_grad(lambda v: v.max(1), x32),
        "max_empty_rows": lambda: torch.zeros(0, 3, dtype=torch.float64).max(1),
        "max_empty_dim": lambda: torch.zeros(3, 0, dtype=torch.float64).max(1),
        "max_1d": lambda: with_grad(lambda v: v.max(0), vec),
        "max_int": lambda: ints.max(1), "min_int0": lambda: ints.min(0),
        "max_bool": lambda: bools.max(1), "min_bool": lambda: bools.min(0),
        "argmax_1": lambda: x.argmax(1), "argmin_0": lambda: x.argmin(0), "argmax_neg": lambda: x3.argmax(-2),
        "argmax_ties_nan": lambda: (ties.argmax(1), ties.argmin(0), ties.argmax(0, keepdim=True)),
        "argmax_transposed": lambda: (x.t().argmax(1), x.t().argmin(0)),
        "argmax_int": lambda: (ints.argmax(1), ints.argmin(0)),
        # cumsum / cumprod along the last dim and dim 0; gradient = reversed cumsum.
        **{f"cumsum_dim{d}": (lambda d=d: with_grad(lambda v: v.cumsum(d), x)) for d in (0, 1, -1)},
        **{f"cumprod_dim{d}": (lambda d=d: with_grad(lambda v: v.cumprod(d), x)) for d in (0, 1)},
        "cumsum_3d": lambda: [with_grad(lambda v, d=d: v.cumsum(d), x3) for d in (0, 1, 2)],
        "cumsum_transposed": lambda: [with_grad(lambda v, d=d: v.cumsum(d), x, transposed) for d in (0, 1)],
        "cumsum_float32": lambda: with_grad(lambda v: v.cumsum(1), x32),
        "cumsum_nan_inf": lambda: with_grad(lambda v: v.cumsum(0), edges),
        "cumsum_int_bool": lambda: (ints.cumsum(1), ints.cumprod(0), bools.cumsum(1)),
        "cumsum_empty": lambda: (torch.zeros(0, 3, dtype=torch.float64).cumsum(1), torch.zeros(3, 0).cumsum(0)),
        "cumsum_scalar": lambda: with_grad(lambda v: v.cumsum(0), torch.tensor(2.5, dtype=torch.float64)),
        # softmax / log_softmax along a dim that is not last (rows of columns).
        **{f"softmax_dim{d}": (lambda d=d: with_grad(lambda v: v.softmax(d), x3)) for d in (0, 1, -3)},
        **{f"log_softmax_dim{d}": (lambda d=d: with_grad(lambda v: v.log_softmax(d), x3)) for d in (0, 1)},
        "softmax_transposed": lambda: with_grad(lambda v: v.softmax(0), x, transposed),
        "softmax_float32": lambda: with_grad(lambda v: torch.log_softmax(v, 0), x32),
        "softmax_inf": lambda: with_grad(lambda v: v.softmax(0), torch.tensor([[-inf, 1.0], [0.0, inf], [-inf, 2.0]], dtype=torch.float64)),
        # x[rows] with an index tensor, on a transposed view: gradient added at the rows.
        "index_rows_transposed": lambda: with_grad(lambda v: v[torch.tensor([0, 5, 5, -1, 2])], x, transposed),
        "index_rows_contig": lambda: with_grad(lambda v: v[torch.tensor([3, 3, 0])], x),
        "index_cols_transposed": lambda: with_grad(lambda v: v[:, torch.tensor([1, 0, 1])], x, transposed),
        "index_two_transposed": lambda: with_grad(lambda v: v[torch.tensor([0, 2]), torch.tensor([1, -1])], x, transposed),
        "index_3d_permuted": lambda: with_grad(lambda v: v[torch.tensor([1, 0, 1]), :, torch.tensor([2, 2, 0])], x3,
                                               lambda v: v.permute(2, 0, 1)),
        "index_out_of_range": lambda: index_error(lambda: x.t()[torch.tensor([7])]),
    }
    return out
