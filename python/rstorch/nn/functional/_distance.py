"""Similarities and distances between vectors."""
import rstorch
from ... import _C


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # Each side is scaled by its own (clamped) norm first, which keeps large inputs finite.
    # The clamp is no part of the gradient (PyTorch clamps a copy of the norm in place without
    # recording it).
    def norm(x):
        n = x.norm(2, dim, keepdim=True).clone()
        with rstorch.no_grad():
            n.clamp_min_(eps)
        return n
    return ((x1 / norm(x1)) * (x2 / norm(x2))).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _C._pairwise_distance(x1, x2, p, eps, keepdim)
