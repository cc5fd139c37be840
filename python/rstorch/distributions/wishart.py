import math
import numbers
import warnings

import rstorch as torch

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_from_scale_tril, _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The derivative of mvlgamma(x, p): sum of digamma(x - i / 2) over i < p."""
    offsets = torch.arange(p, dtype=x.dtype, device=x.device) / 2
    return torch.digamma(x.unsqueeze(-1) - offsets).sum(-1)


def _trace_solve(L, X):
    """tr((L L^T)^-1 X) for symmetric X: tr(L^-1 X L^-T) by two triangular solves."""
    batch = tuple(torch.broadcast_shapes(tuple(L.shape[:-2]), tuple(X.shape[:-2])))
    n = L.shape[-1]
    L = L.expand(batch + (n, n))
    half = torch.linalg.solve_triangular(L, X.expand(batch + (n, n)), upper=False)
    return torch.linalg.solve_triangular(L, half.mT, upper=False).diagonal(dim1=-2, dim2=-1).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over positive-definite p x p matrices with `df` degrees of freedom
    and scale given by one of `covariance_matrix`, `precision_matrix` or `scale_tril`."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = torch.Size(param.shape[:-2])
            self.df = torch.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = torch.Size(torch.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(tuple(batch_shape))
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is not None:
                setattr(self, name, matrix.expand(tuple(batch_shape) + (p, p)))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                          stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._bartlett_chi2(batch_shape)

    def _bartlett_chi2(self, batch_shape):
        # The Bartlett factor's i-th squared diagonal entry is chi-squared with df - i degrees.
        p = self._event_shape[-1]
        offsets = torch.arange(p, dtype=self._unbroadcasted_scale_tril.dtype, device=self.df.device)
        return Chi2(df=self.df.unsqueeze(-1) - offsets.expand(tuple(batch_shape) + (p,)))

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Wishart, batch_shape, _instance,
                                  {"df": 0, "covariance_matrix": 2, "scale_tril": 2, "precision_matrix": 2})
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(
            tuple(batch_shape) + tuple(self.event_shape))
        new._dist_chi2 = new._bartlett_chi2(new.batch_shape)
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return _precision_from_scale_tril(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    def _df_matrix(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = torch.where(factor <= 0, float("nan"), factor)
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag + (diag.clamp(min=torch.finfo(diag.dtype).eps) - diag).detach()
        rows, cols = torch.tril_indices(p, p, offset=-1).unbind(0)
        below = torch.zeros(tuple(sample_shape) + self._matrix_shape(), dtype=diag.dtype, device=diag.device)
        below[..., rows, cols] = torch.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
                                             dtype=diag.dtype, device=diag.device)
        chol = self._unbroadcasted_scale_tril @ (below + torch.diag_embed(diag))
        return chol @ chol.mT

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett-decomposition draws; a singular draw (possible when df is close to p - 1) is
        drawn again, up to `max_try_correction` (10) times."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = torch.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        batch_dims = tuple(range(len(sample_shape), len(sample_shape) + len(self._batch_shape)))
        for attempt in range(max_try_correction + 1):
            singular = ~self.support.check(sample)
            if batch_dims:
                singular = singular.any(dim=batch_dims[0]) if len(batch_dims) == 1 else singular.reshape(
                    tuple(sample_shape) + (-1,)).any(-1)
            if not bool(singular.any()) or attempt == max_try_correction:
                break
            if attempt == 0:
                warnings.warn("Singular sample detected.", stacklevel=2)
            redraw = singular.reshape(tuple(singular.shape) + (1,) * (sample.dim() - singular.dim()))
            sample = torch.where(redraw, self._bartlett_sampling(sample_shape), sample)
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (-nu * (p * _LOG_2 / 2 + log_det_L) - torch.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * torch.linalg.slogdet(value).logabsdet
                - _trace_solve(self._unbroadcasted_scale_tril, value) / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_L) + torch.mvlgamma(nu / 2, p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-torch.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + torch.mvlgamma(y + (p + 1) / 2, p))
