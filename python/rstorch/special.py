"""`rstorch.special`: PyTorch's `torch.special` names for the special functions rstorch has.

Most are the functions of the top-level namespace under SciPy's names (`expit` is `sigmoid`,
`gammaln` is `lgamma`, `psi` is `digamma`, ...); `entr` and `ndtr` are written here. Functions
PyTorch has and rstorch does not yet (the Bessel and orthogonal-polynomial families, `zeta`,
`gammainc`, `ndtri`, `erfcx`, `log_ndtr`, `xlog1py`, `i0e`/`i1`/`i1e`) are absent rather than
approximated: a missing name fails loudly, a poor approximation would not.
"""
import math

import rstorch

from ._C import Tensor
from .autograd import Function

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "log1p",
           "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "polygamma", "psi", "round", "sinc",
           "softmax", "xlogy"]

digamma = psi = rstorch.digamma
erf = rstorch.erf
erfc = rstorch.erfc
erfinv = rstorch.erfinv
exp2 = rstorch.exp2
expit = rstorch.sigmoid
expm1 = rstorch.expm1
gammaln = rstorch.lgamma
i0 = rstorch.i0
log1p = rstorch.log1p
logit = rstorch.logit
logsumexp = rstorch.logsumexp
multigammaln = rstorch.mvlgamma
polygamma = rstorch.polygamma
round = rstorch.round
sinc = rstorch.sinc
xlogy = rstorch.xlogy


def softmax(input, dim, *, dtype=None):
    return rstorch.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return rstorch.log_softmax(input, dim, dtype=dtype)


class _Entr(Function):
    """-x log x, with PyTorch's values off (0, inf): 0 at 0, -inf below, and its gradient
    -(1 + log x) everywhere (inf at 0, NaN below), which a composition through `where` would turn
    into NaN at 0."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        positive = x > 0
        safe = rstorch.where(positive, x, rstorch.ones_like(x))
        inner = rstorch.where(x == 0, rstorch.zeros_like(x), rstorch.full_like(x, -math.inf))
        return rstorch.where(positive, -safe * safe.log(), rstorch.where(x.isnan(), x, inner))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -(x.log() + 1)


def entr(input, *, out=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"entr(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not input.is_floating_point():
        input = input.to(rstorch.get_default_dtype())
    result = _Entr.apply(input)
    if out is not None:
        return out.copy_(result)
    return result


def ndtr(input, *, out=None):
    """The standard normal's cumulative distribution, as erfc(-x / sqrt 2) / 2: accurate in both
    tails (erfc of a large positive argument keeps its digits)."""
    if not input.is_floating_point():
        input = input.to(rstorch.get_default_dtype())
    result = rstorch.erfc(input * -math.sqrt(0.5)) * 0.5
    if out is not None:
        return out.copy_(result)
    return result
