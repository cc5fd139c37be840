import math

import rstorch as torch

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution over Cholesky factors L of dim x dim correlation matrices, density
    proportional to det(L L^T)^(concentration - 1) (Lewandowski, Kurowicka and Joe, 2009)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # The onion method: row i (i >= 1) has squared norm y_i ~ Beta(i / 2, eta + (dim - 2 - (i - 1)) / 2)
        # below the diagonal; row 0 draws a dummy Beta(1/2, ...) so that all rows vectorise.
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = torch.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), torch.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = torch.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            shape = tuple(self._extended_shape(sample_shape))
            u_normal = torch.randn(shape, dtype=y.dtype, device=y.device).tril(-1)
            # Directions uniform on the sphere of each row's strictly-lower part (row 0 has none).
            norms = u_normal.norm(dim=-1, keepdim=True)
            u_hypersphere = u_normal / torch.where(norms == 0, torch.ones_like(norms), norms)
            w = torch.sqrt(y) * u_hypersphere
            diag = torch.clamp(1 - torch.sum(w ** 2, dim=-1), min=torch.finfo(w.dtype).tiny).sqrt()
            return w + torch.diag_embed(diag)

    def log_prob(self, value):
        # det(L L^T)^(eta - 1) times the Jacobian prod L_ii^(dim - i) of L -> L L^T gives
        # prod L_ii^(2 (eta - 1) + dim - i) over i = 2..dim (L_11 = 1).
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = torch.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = torch.lgamma(alpha) * dm1
        numerator = torch.mvlgamma(alpha - 0.5, dm1)
        # The normalizer's pi term is D (D - 1) / 4 log(pi); mvlgamma holds (D - 1)(D - 2) / 4 of it.
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
