"""`rstorch.special`: PyTorch's `torch.special`.

Some are the functions of the top-level namespace under SciPy's names (`expit` is `sigmoid`,
`gammaln` is `lgamma`, `psi` is `digamma`, `gammainc` is `igamma`, ...); `entr` and `ndtr` are
written here. The Bessel, error-function, zeta and orthogonal-polynomial families are the core's
ops (`src/ops/unary.rs`, `src/ops/binary.rs`, `src/ops/composite.rs`), bound privately as
`Tensor._special_X` and `_C._special_X` because PyTorch has them in this namespace only.
"""
import math

import rstorch

from . import _C
from ._C import Tensor
from .autograd import Function

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "log1p",
           "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "polygamma", "psi", "round", "sinc",
           "softmax", "xlogy"]
# The functions of the core's special-function ops (below).
__all__ += ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
            "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "erfcx", "gammainc",
            "gammaincc", "hermite_polynomial_h", "hermite_polynomial_he", "i0e", "i1", "i1e", "laguerre_polynomial_l",
            "legendre_polynomial_p", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
            "modified_bessel_k1", "ndtri", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
            "shifted_chebyshev_polynomial_w", "spherical_bessel_j0", "xlog1py", "zeta"]

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


def _written(result, out):
    if out is not None:
        return out.copy_(result)
    return result


def _unary(name, differentiable=True):
    """`torch.special.name(input, *, out=None)` over the core's `Tensor._special_name`; PyTorch
    records no node for the functions it does not differentiate (their input is detached)."""
    method = "_special_" + name

    def function(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return _written(getattr(input if differentiable else input.detach(), method)(), out)

    function.__name__ = function.__qualname__ = name
    return function


def _binary(name, kernel):
    """`torch.special.name(input, other, *, out=None)` over a composite op of the core (either
    operand may be a number)."""

    def function(input, other, *, out=None):
        return _written(kernel(input, other), out)

    function.__name__ = function.__qualname__ = name
    return function


i0e = _unary("i0e")
i1 = _unary("i1")
i1e = _unary("i1e")
ndtri = _unary("ndtri")
log_ndtr = _unary("log_ndtr")
erfcx = _unary("erfcx")
bessel_j0 = _unary("bessel_j0")
bessel_j1 = _unary("bessel_j1")
bessel_y0 = _unary("bessel_y0")
bessel_y1 = _unary("bessel_y1")
modified_bessel_i0 = _unary("modified_bessel_i0")
modified_bessel_i1 = _unary("modified_bessel_i1")
modified_bessel_k0 = _unary("modified_bessel_k0")
modified_bessel_k1 = _unary("modified_bessel_k1")
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", differentiable=False)
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", differentiable=False)
spherical_bessel_j0 = _unary("spherical_bessel_j0", differentiable=False)
airy_ai = _unary("airy_ai", differentiable=False)
zeta = _binary("zeta", _C._special_zeta)
xlog1py = _binary("xlog1py", _C._special_xlog1py)
chebyshev_polynomial_t = _binary("chebyshev_polynomial_t", _C._special_chebyshev_polynomial_t)
chebyshev_polynomial_u = _binary("chebyshev_polynomial_u", _C._special_chebyshev_polynomial_u)
chebyshev_polynomial_v = _binary("chebyshev_polynomial_v", _C._special_chebyshev_polynomial_v)
chebyshev_polynomial_w = _binary("chebyshev_polynomial_w", _C._special_chebyshev_polynomial_w)
shifted_chebyshev_polynomial_t = _binary("shifted_chebyshev_polynomial_t", _C._special_shifted_chebyshev_polynomial_t)
shifted_chebyshev_polynomial_u = _binary("shifted_chebyshev_polynomial_u", _C._special_shifted_chebyshev_polynomial_u)
shifted_chebyshev_polynomial_v = _binary("shifted_chebyshev_polynomial_v", _C._special_shifted_chebyshev_polynomial_v)
shifted_chebyshev_polynomial_w = _binary("shifted_chebyshev_polynomial_w", _C._special_shifted_chebyshev_polynomial_w)
hermite_polynomial_h = _binary("hermite_polynomial_h", _C._special_hermite_polynomial_h)
hermite_polynomial_he = _binary("hermite_polynomial_he", _C._special_hermite_polynomial_he)
laguerre_polynomial_l = _binary("laguerre_polynomial_l", _C._special_laguerre_polynomial_l)
legendre_polynomial_p = _binary("legendre_polynomial_p", _C._special_legendre_polynomial_p)


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function, `torch.igamma`."""
    return _written(rstorch.igamma(input, other), out)


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function, `torch.igammac`."""
    return _written(rstorch.igammac(input, other), out)
