"""pdist (distances between the rows of one matrix) and gumbel_softmax (a relaxed categorical sample)."""
import warnings

import rstorch


def pdist(input, p=2):
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    # The pairs i < j in row-major order: the upper triangle of cdist without its diagonal.
    first = [i for i in range(n) for _ in range(i + 1, n)]
    second = [j for i in range(n) for j in range(i + 1, n)]
    rows = rstorch.tensor(first, dtype=rstorch.int64)
    cols = rstorch.tensor(second, dtype=rstorch.int64)
    return (input.index_select(0, rows) - input.index_select(0, cols)).norm(p, 1)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    # -log(Exp(1)) draws are standard Gumbel noise.
    gumbels = -rstorch.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    # Straight-through: the one-hot of the argmax forward, the soft sample's gradient backward.
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = rstorch.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
