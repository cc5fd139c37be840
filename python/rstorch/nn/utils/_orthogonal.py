"""The orthogonal parametrization (nn.utils.parametrizations.orthogonal) and the few matrix
functions it needs, written with matmul so that autograd differentiates them: the matrix
exponential (scaling and squaring of a Taylor polynomial), the Cayley map (a linear solve by
Gauss-Jordan elimination) and the product of Householder reflectors. The QR factorisations of
right_inverse need no gradient and are NumPy's (LAPACK's geqrf, as in PyTorch)."""
import math
from enum import Enum, auto

import numpy as np

import rstorch
from ..modules.module import Module

_EPS = {rstorch.float64: 2.220446049250313e-16, rstorch.float32: 1.1920928955078125e-07,
        rstorch.float16: 0.0009765625, rstorch.bfloat16: 0.0078125}


def _eye_like(a, n):
    return rstorch.eye(n, dtype=a.dtype, device=a.device).expand(*a.shape[:-2], n, n)


def _matrix_exp(a):
    """exp(a) of (..., n, n): a scaled to norm <= 1/2, Taylor to degree 18, squared back."""
    n = a.shape[-1]
    norm = float(a.detach().abs().sum(-1).max()) if a.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    b = a / (2.0 ** squarings)
    eye = _eye_like(a, n)
    p = eye
    for j in range(18, 0, -1):  # Horner: I + b/1 (I + b/2 (I + ...))
        p = eye + (b @ p) / j
    for _ in range(squarings):
        p = p @ p
    return p


def _solve(a, b):
    """a^-1 b for (..., n, n) a and b, by Gauss-Jordan elimination with partial pivoting
    (pivots chosen on the values, the arithmetic recorded for autograd)."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    a = a.reshape(-1, n, n)
    b = b.reshape(-1, n, b.shape[-1])
    outs = []
    for k in range(a.shape[0]):
        rows_a = list(a[k].unbind(0))
        rows_b = list(b[k].unbind(0))
        for col in range(n):
            pivot = max(range(col, n), key=lambda r: abs(float(rows_a[r][col])))
            rows_a[col], rows_a[pivot] = rows_a[pivot], rows_a[col]
            rows_b[col], rows_b[pivot] = rows_b[pivot], rows_b[col]
            inv = 1.0 / rows_a[col][col]
            rows_a[col], rows_b[col] = rows_a[col] * inv, rows_b[col] * inv
            for r in range(n):
                if r != col:
                    f = rows_a[r][col]
                    rows_a[r] = rows_a[r] - f * rows_a[col]
                    rows_b[r] = rows_b[r] - f * rows_b[col]
        outs.append(rstorch.stack(rows_b, 0))
    return rstorch.stack(outs, 0).reshape(*batch, n, -1)


def _householder_product(a, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i column i of `a`
    below the diagonal, 1 on it and 0 above (LAPACK's orgqr)."""
    n, k = a.shape[-2], a.shape[-1]
    q = _eye_like(a, n)
    rows = rstorch.arange(n, device=a.device)
    for i in range(k):
        below = (rows > i).to(a.dtype)
        unit = (rows == i).to(a.dtype)
        v = (a[..., :, i] * below + unit).unsqueeze(-1)
        q = q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * ((q @ v) @ v.mT)
    return q[..., :, :k]


def _to_numpy(t):
    return t.detach().cpu().numpy()


def _from_numpy(a, like):
    return rstorch.from_numpy(np.ascontiguousarray(a)).to(dtype=like.dtype, device=like.device)


def _make_orthogonal(a):
    """Q of the QR factorisation of `a` (tall), its columns signed so that R has a positive diagonal."""
    q, r = np.linalg.qr(_to_numpy(a))
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return _from_numpy(q * signs[..., None, :], a)


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eye = rstorch.eye(k, dtype=q.dtype, device=q.device)
    return rstorch.allclose(q.mT @ q, eye.expand_as(q.mT @ q), atol=10.0 * n * _EPS[q.dtype])


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix (batch) to one with orthonormal columns (or rows, if wide)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            # base: the orthogonal matrix the map is applied around (set by right_inverse).
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = rstorch.cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:
                eye = _eye_like(a, n)
                q = _solve(eye - 0.5 * a, eye + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if "base" in self._buffers:
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        with rstorch.no_grad():
            if tuple(q.shape) != tuple(self.shape):
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.shape[-2], q.shape[-1]
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                h, tau = np.linalg.qr(_to_numpy(q), mode="raw")
                a = np.swapaxes(h, -1, -2).copy()
                # The reflectors' signs are folded into the diagonal, read back by forward's int().
                diag = np.sign(np.diagonal(a, axis1=-2, axis2=-1)).copy()
                diag[tau == 0.0] *= -1
                idx = np.arange(k)
                a[..., idx, idx] = diag
                a = _from_numpy(a, q)
                return a.mT if transpose else a
            if n == k:
                q = _make_orthogonal(q) if not _is_orthogonal(q) else q.clone()
            else:
                extra = rstorch.randn(*(tuple(q.shape[:-2]) + (n, n - k)), dtype=q.dtype, device=q.device)
                q = _make_orthogonal(rstorch.cat([q, extra], dim=-1))
            self.base = q
            neg_id = rstorch.zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id
