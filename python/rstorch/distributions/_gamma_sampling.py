"""Standard Gamma draws with a reparameterized gradient.

Draws use Marsaglia and Tsang's rejection method (vectorised: every element retries until it is
accepted; shape < 1 is boosted through Gamma(a + 1) * U^(1/a)). The gradient of a draw x with
respect to its shape a is the implicit one: x = F^-1(u; a) for the regularized lower incomplete
gamma F, so dx/da = -(dF/da)(x; a) / f(x; a). F is computed here in float64 (series below the mode,
Legendre's continued fraction for the upper tail above it) and dF/da by a central difference.
"""
import math

import numpy as np

import rstorch as torch

__all__ = ["log_standard_gamma", "standard_gamma", "standard_gamma_grad"]

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
_TINY = 1e-300


def _log_sample(alpha):
    """log of Gamma(alpha, 1) draws, in float64 (in log space the boost U^(1/a) of tiny shapes
    cannot underflow)."""
    a = alpha.detach().to(torch.float64)
    boost = a < 1
    shape = torch.where(boost, a + 1, a)
    d = shape - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * d)
    out = torch.zeros_like(a)
    done = torch.zeros(tuple(a.shape), dtype=torch.bool, device=a.device)
    while not bool(done.all()):
        x = torch.randn(tuple(a.shape), dtype=torch.float64, device=a.device)
        v = (1 + c * x) ** 3
        u = torch.rand(tuple(a.shape), dtype=torch.float64, device=a.device)
        positive = v > 0
        safe_v = torch.where(positive, v, torch.ones_like(v))
        accept = positive & (torch.log(u) < 0.5 * x * x + d - d * safe_v + d * torch.log(safe_v))
        out = torch.where(accept & ~done, d * safe_v, out)
        done = done | accept
    u = torch.rand(tuple(a.shape), dtype=torch.float64, device=a.device)
    return torch.where(boost, out.log() + u.log() / a, out.log())


def _log_density(a, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (a - 1) * np.log(x) - x - _lgamma(a)


def _lower_series(a, x):
    """P(a, x) by its power series (fast where x < a + 1)."""
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(5000):
        ap = ap + 1
        term = term * x / ap
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * 1e-17):
            break
    with np.errstate(divide="ignore"):
        return total * np.exp(-x + a * np.log(x) - _lgamma(a))


def _upper_fraction(a, x):
    """Q(a, x) = 1 - P(a, x) by Legendre's continued fraction (modified Lentz; x >= a + 1)."""
    b = x + 1 - a
    c = np.full_like(x, 1.0 / _TINY)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, 5000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) <= 1e-16):
            break
    return np.exp(-x + a * np.log(x) - _lgamma(a)) * h


def _dlower_da(a, x):
    """dP(a, x)/da, differencing whichever of P and Q is computed accurately at (a, x)."""
    out = np.zeros_like(x)
    h = 1e-5 * np.maximum(a, 1.0)
    low = x < a + 1
    pos = x > 0
    s = low & pos
    if s.any():
        out[s] = (_lower_series(a[s] + h[s], x[s]) - _lower_series(a[s] - h[s], x[s])) / (2 * h[s])
    s = ~low & pos
    if s.any():
        out[s] = -(_upper_fraction(a[s] + h[s], x[s]) - _upper_fraction(a[s] - h[s], x[s])) / (2 * h[s])
    return out


def standard_gamma_grad(alpha, x):
    """dx/dalpha for standard Gamma draws x of shape alpha (the implicit reparameterization)."""
    a = alpha.detach().to(torch.float64).cpu().numpy().astype(np.float64).reshape(-1)
    xs = x.detach().to(torch.float64).cpu().numpy().astype(np.float64).reshape(-1)
    a, xs = np.broadcast_arrays(a, xs)
    a, xs = a.copy(), xs.copy()
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        grad = -_dlower_da(a, xs) / np.exp(_log_density(a, xs))
    grad = np.where(np.isfinite(grad), grad, 0.0)
    return torch.tensor(grad.reshape(tuple(x.shape)), dtype=x.dtype, device=x.device)


class _LogStandardGamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, alpha):
        log_x = _log_sample(alpha)
        ctx.save_for_backward(alpha, log_x)
        return log_x.to(alpha.dtype)

    @staticmethod
    def backward(ctx, grad):
        # d log x / d alpha = (dx / d alpha) / x.
        alpha, log_x = ctx.saved_tensors
        x = log_x.exp()
        dlog = standard_gamma_grad(alpha, x).to(torch.float64) / x
        dlog = torch.where(torch.isfinite(dlog), dlog, torch.zeros_like(dlog))
        return grad * dlog.to(grad.dtype)


def log_standard_gamma(alpha):
    """log of Gamma(alpha, 1) draws, differentiable in alpha (the implicit reparameterization)."""
    if alpha.requires_grad:
        return _LogStandardGamma.apply(alpha)
    return _log_sample(alpha).to(alpha.dtype)


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws, differentiable in alpha; those that underflow are the smallest
    normal number, so that their logs stay finite."""
    return log_standard_gamma(alpha).exp().clamp(min=torch.finfo(alpha.dtype).tiny)


def _lower_gamma_host(a, x):
    a, x = torch.broadcast_tensors(a.detach(), x.detach())
    an = a.to(torch.float64).cpu().numpy().astype(np.float64).reshape(-1)
    xn = x.to(torch.float64).cpu().numpy().astype(np.float64).reshape(-1)
    out = np.zeros_like(xn)
    low = (xn < an + 1) & (xn > 0)
    high = xn >= an + 1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if low.any():
            out[low] = _lower_series(an[low], xn[low])
        if high.any():
            out[high] = 1 - _upper_fraction(an[high], xn[high])
    return torch.tensor(out.reshape(tuple(x.shape)), dtype=x.dtype, device=x.device)


class _RegularizedLowerGamma(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return _lower_gamma_host(a, x)

    @staticmethod
    def backward(ctx, grad):
        # dP/dx is the Gamma(a, 1) density; like PyTorch's igamma, no gradient for a.
        a, x = ctx.saved_tensors
        density = torch.exp(torch.xlogy(a - 1, x) - x - torch.lgamma(a))
        return None, grad * density


def regularized_lower_gamma(a, x):
    """P(a, x), computed in float64 on the host; differentiable in x (for Gamma.cdf)."""
    if x.requires_grad:
        return _RegularizedLowerGamma.apply(a.detach(), x)
    return _lower_gamma_host(a, x)
