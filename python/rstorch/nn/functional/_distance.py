"""Similarities and distances between vectors."""
from ._utils import as_node


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # Each side is scaled by its own (clamped) norm first, which keeps large inputs finite.
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return as_node("NormBackward1", (x1, x2), (x1 - x2 + eps).norm(p, -1, keepdim=keepdim))
