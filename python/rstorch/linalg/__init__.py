"""`torch.linalg`: PyTorch's linear algebra. The factorizations are autograd Functions
(`_factor.py`); everything else is composed from them and the core's ops, so gradients follow."""
import math as _math

import numpy as _np

from .. import _C
from .. import return_types as _return_types
from ._factor import (
    QR as _QR, SVD as _SVD, Cholesky as _Cholesky, LU as _LUFactors, Det as _Det, Eigh as _Eigh, Inverse as _Inverse,
    LinAlgError, SlogDet as _SlogDet, Solve as _Solve, check_matrix as _check_matrix, host as _host, lu_host as _lu_host,
    mT as _mT, to_tensor as _to_tensor,
)

__all__ = [
    "LinAlgError", "det", "slogdet", "inv", "inv_ex", "solve", "solve_ex", "cholesky", "cholesky_ex", "qr", "eigh",
    "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "matrix_power", "matrix_exp", "lstsq", "lu", "lu_factor",
    "lu_solve", "solve_triangular", "cross", "vector_norm", "matrix_norm", "norm", "vecdot", "multi_dot", "matmul",
    "diagonal", "cond", "vander", "householder_product", "lu_factor_ex", "matrix_sqrth", "polar", "tensorinv",
    "tensorsolve",
]


def _batch_expand(A, B):
    """A and B with their batch dims broadcast together."""
    from ..functional import broadcast_shapes
    batch = broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    return A.expand(tuple(batch) + tuple(A.shape[-2:])), B.expand(tuple(batch) + tuple(B.shape[-2:]))


def det(A, *, out=None):
    _check_matrix(A, "det")
    return _Det.apply(A)


def slogdet(A, *, out=None):
    _check_matrix(A, "slogdet")
    return _return_types.slogdet(*_SlogDet.apply(A))


def inv(A, *, out=None):
    _check_matrix(A, "inv")
    return _Inverse.apply(A)


def inv_ex(A, *, check_errors=False, out=None):
    _check_matrix(A, "inv_ex")
    _, _, info = _lu_host(_host(A))
    if bool((info != 0).any()) and not check_errors:
        return _return_types.linalg_inv_ex(_to_tensor(_np.full(_host(A).shape, _np.nan), A).to(A.dtype),
                                          _to_tensor(info, A))
    return _return_types.linalg_inv_ex(_Inverse.apply(A), _to_tensor(info, A))


def solve(A, B, *, left=True, out=None):
    _check_matrix(A, "solve")
    if B.dtype != A.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_title(A)} and B of type {_title(B)} instead")
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not left:
        if vector:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for left=False. "
                               "In this case linalg.solve is equivalent to B / A.squeeze(-1)")
        return _mT(solve(_mT(A), _mT(B)))
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != n:
        shape = "x".join(str(s) for s in A.shape)
        bshape = "x".join(str(s) for s in B.shape)
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({shape} and {bshape})")
    A_, B_ = _batch_expand(A, Bm)
    X = _Solve.apply(A_, B_)
    return X.squeeze(-1) if vector else X


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    return _return_types.linalg_solve_ex(solve(A, B, left=left), _C.zeros(tuple(A.shape[:-2]), dtype=_C.int32,
                                                                         device=A.device))


def _title(t):
    from ._factor import _TITLES
    return _TITLES[str(t.dtype).rsplit(".", 1)[-1]]


def cholesky(A, *, upper=False, out=None):
    _check_matrix(A, "cholesky")
    L = _Cholesky.apply(A, "cholesky")
    return _mT(L) if upper else L


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _check_matrix(A, "cholesky_ex")
    try:
        L = cholesky(A, upper=upper)
        info = _C.zeros(tuple(A.shape[:-2]), dtype=_C.int32, device=A.device)
    except LinAlgError as e:
        if check_errors:
            raise
        order = int(str(e).rsplit("order ", 1)[1].split(" ")[0])
        L, info = A * float("nan"), _C.full(tuple(A.shape[:-2]), order, dtype=_C.int32, device=A.device)
    return _return_types.linalg_cholesky_ex(L, info)


def qr(A, mode="reduced", *, out=None):
    _check_matrix(A, "qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    Q, R = _QR.apply(A, mode)
    if mode == "r":
        return _return_types.qr(_C.empty((0,), dtype=A.dtype, device=A.device), R)
    return _return_types.qr(Q, R)


def eigh(A, UPLO="L", *, out=None):
    _check_matrix(A, "eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return _return_types.linalg_eigh(*_Eigh.apply(A, UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    return eigh(A, UPLO).eigenvalues


def svd(A, full_matrices=True, *, driver=None, out=None):
    _check_matrix(A, "svd", square=False)
    return _return_types.linalg_svd(*_SVD.apply(A, full_matrices))


def svdvals(A, *, driver=None, out=None):
    _check_matrix(A, "svdvals", square=False)
    return _SVD.apply(A, False)[1]


def _tolerance(S, atol, rtol, shape, dtype):
    """PyTorch's cutoff for small singular values: max(atol, rtol * largest), rtol defaulting to
    eps * max(m, n) when neither is given."""
    if rtol is None:
        eps = float(_np.finfo(_np.float64 if dtype == _C.float64 else _np.float32).eps)
        rtol = eps * max(shape[-2:]) if atol is None or (not isinstance(atol, _C.Tensor) and atol <= 0) else 0.0
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    cutoff = smax * rtol
    if atol is not None:
        cutoff = cutoff.clamp_min(atol) if not isinstance(atol, _C.Tensor) else _C.maximum(cutoff, atol.unsqueeze(-1))
    return cutoff


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    _check_matrix(A, "pinv", square=False)
    if hermitian:
        w, V = _Eigh.apply(A, "L")
        cutoff = _tolerance(w.abs(), atol, rtol, A.shape, A.dtype)
        winv = (1.0 / w).masked_fill(w.abs() <= cutoff, 0.0)
        return (V * winv.unsqueeze(-2)).matmul(_mT(V))
    U, S, Vh = _SVD.apply(A, False)
    cutoff = _tolerance(S, atol, rtol, A.shape, A.dtype)
    Sinv = (1.0 / S).masked_fill(S <= cutoff, 0.0)
    return (_mT(Vh) * Sinv.unsqueeze(-2)).matmul(_mT(U))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    _check_matrix(A, "matrix_rank", square=False)
    S = (_Eigh.apply(A, "L")[0].abs() if hermitian else _SVD.apply(A, False)[1]).detach()
    cutoff = _tolerance(S, atol, rtol, A.shape, A.dtype)
    return (S > cutoff).sum(-1)


def matrix_power(A, n, *, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return eye.expand(tuple(A.shape)).clone()
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


def matrix_exp(A):
    """Scaling and squaring: the Taylor series of `A / 2^s` (norm at most 1/2) to 18 terms, squared `s` times."""
    _check_matrix(A, "matrix_exp")
    norm = float(_host(A.abs().sum(-2).amax(-1)).max()) if A.numel() else 0.0
    s = max(0, int(_math.ceil(_math.log2(norm))) + 1) if norm > 0.5 else 0
    X = A / (2.0 ** s)
    eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape))
    term, result = eye, eye
    for k in range(1, 19):
        term = term.matmul(X) / k
        result = result + term
    for _ in range(s):
        result = result.matmul(result)
    return result


def lstsq(A, B, rcond=None, *, driver=None):
    _check_matrix(A, "lstsq", square=False)
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    X = pinv(A, rtol=rcond if rcond is not None else None).matmul(Bm)
    m, n = A.shape[-2:]
    driver = driver or "gelsy"
    S = _SVD.apply(A, False)[1].detach()
    empty = _C.empty((0,), dtype=A.dtype, device=A.device)
    rank = matrix_rank(A.detach()) if driver != "gels" else _C.empty((0,), dtype=_C.int64, device=A.device)
    residuals = empty
    if m > n and driver != "gelsy" and bool((matrix_rank(A.detach()) == n).all()):
        residuals = ((A.matmul(X) - Bm) ** 2).sum(-2)
    return _return_types.linalg_lstsq(X.squeeze(-1) if vector else X, residuals, rank,
                                     S if driver in ("gelsd", "gelss") else empty)


def lu_factor(A, *, pivot=True, out=None):
    _check_matrix(A, "lu_factor", square=False)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, _ = _lu_host(_host(A))
    return _return_types.linalg_lu_factor(_packed(A, LU), _to_tensor(piv, A))


def _packed(A, LU):
    """The packed factors (L below the diagonal, U on and above it); while autograd records,
    put together from the differentiable `lu` so that gradients reach A as PyTorch's do."""
    if not (A.requires_grad and _C.is_grad_enabled()):
        return _to_tensor(LU, A)
    _, L, U = _LUFactors.apply(A, _unpack)
    m, n = A.shape[-2:]
    k = min(m, n)
    low, up = L.tril(-1), U
    if n > k:
        low = _C.cat([low, low.new_zeros(tuple(low.shape[:-1]) + (n - k,))], -1)
    if m > k:
        up = _C.cat([up, up.new_zeros(tuple(up.shape[:-2]) + (m - k, n))], -2)
    return low + up


def _unpack(LU, pivots):
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _C.eye(m, k, dtype=LU.dtype, device=LU.device)
    U = LU[..., :k, :].triu()
    piv = _host(pivots).astype(_np.int64) - 1
    perm = _np.broadcast_to(_np.arange(m), piv.shape[:-1] + (m,)).copy()
    flat_perm, flat_piv = perm.reshape(-1, m), piv.reshape(-1, piv.shape[-1])
    for b in range(flat_perm.shape[0]):
        for j, p in enumerate(flat_piv[b]):
            flat_perm[b, [j, p]] = flat_perm[b, [p, j]]
    # P A = L U with rows permuted by perm: A = P^T L U, PyTorch returns P with A = P L U.
    P = _np.zeros(perm.shape + (m,), dtype=_host(LU[..., :1, :1]).dtype)
    _np.put_along_axis(P, perm.reshape(perm.shape + (1,)), 1, axis=-1)
    return _to_tensor(_np.swapaxes(P, -1, -2), LU), L, U


def lu(A, *, pivot=True, out=None):
    _check_matrix(A, "lu", square=False)
    if A.requires_grad:
        P, L, U = _LUFactors.apply(A, _unpack)
    else:
        P, L, U = _unpack(*lu_factor(A))
    return _return_types.linalg_lu(P, L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    P, L, U = _unpack(LU, pivots)
    A = P.matmul(L).matmul(U)
    if adjoint:
        A = _mT(A)
    return solve(A, B, left=left)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    _check_matrix(A, "solve_triangular")
    T = A.triu() if upper else A.tril()
    if unitriangular:
        eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        T = T - T * eye + eye
    if not left:
        return _mT(solve_triangular(_mT(A), _mT(B), upper=not upper, unitriangular=unitriangular))
    A_, B_ = _batch_expand(T, B)
    return _Solve.apply(A_, B_)


def cross(input, other, *, dim=-1, out=None):
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and {other.shape[dim]}")
    a = [input.select(dim, i) for i in range(3)]
    b = [other.select(dim, i) for i in range(3)]
    d = dim % input.dim()
    return _C.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], d)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if dtype is not None:
        x = x.to(dtype)
    if dim is None:
        dim = tuple(range(x.dim()))
    elif isinstance(dim, int):
        dim = (dim,)
    if not dim:
        dim = tuple(range(x.dim()))
    return x.norm(ord, dim=tuple(dim), keepdim=keepdim) if x.dim() else x.abs() if ord != 0 else (x != 0).to(x.dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    if dtype is not None:
        A = A.to(dtype)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (dim[0] % A.dim(), dim[1] % A.dim())
    if ord == "fro":
        return A.norm(2, dim=(d0, d1), keepdim=keepdim)
    if ord == "nuc" or ord in (2, -2):
        M = A.permute([i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1])
        S = svdvals(M)
        r = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    if ord in (1, -1, _math.inf, -_math.inf):
        sum_dim, pick_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(sum_dim, keepdim=True)
        r = s.amax(pick_dim, keepdim=True) if ord > 0 else s.amin(pick_dim, keepdim=True)
        return r if keepdim else r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A.reshape(-1) if dim is None else A, 2, dim, keepdim and dim is not None, dtype=dtype)\
            if not (dim is None and keepdim) else vector_norm(A, 2, None, True, dtype=dtype)
    if dim is None:
        dim = (-2, -1) if A.dim() == 2 else (0,) if A.dim() == 1 else None
        if dim is None:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D.")
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def cond(A, p=None):
    if p is None or p in (2, -2):
        S = svdvals(A)
        return S.amax(-1) / S.amin(-1) if p in (None, 2) else S.amin(-1) / S.amax(-1)
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def vecdot(x, y, *, dim=-1, out=None):
    return (x * y).sum(dim)


def multi_dot(tensors, *, out=None):
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    if first_vec:
        tensors[0] = tensors[0].unsqueeze(0)
    if last_vec:
        tensors[-1] = tensors[-1].unsqueeze(-1)
    result = tensors[0]
    for t in tensors[1:]:
        result = result.matmul(t)
    if first_vec:
        result = result.squeeze(0)
    if last_vec:
        result = result.squeeze(-1)
    return result


def matmul(input, other, *, out=None):
    return input.matmul(other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


def vander(x, *, N=None):
    """Increasing powers of the last dim of `x`: x^0 ... x^(N-1)."""
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: Expected a non-zero-dimensional input. Got x.dim() == 0")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        if n < 1:
            raise RuntimeError("N must be greater than 1.")
        return _C.ones(tuple(x.shape) + (1,), dtype=x.dtype, device=x.device)
    first = _C.ones(tuple(x.shape) + (1,), dtype=x.dtype, device=x.device)
    return _C.cat([first, x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))], -1).cumprod(-1)


def _householder_full(A, tau):
    """The m x m product H_1 ... H_k of the reflectors `I - tau_i v_i v_i^T` that geqrf packs
    below A's diagonal (v_i's leading entry an implicit 1), composed so that A and tau get gradients."""
    m, k = A.shape[-2], tau.shape[-1]
    rows = _C.arange(m, device=A.device)
    Q = _C.eye(m, dtype=A.dtype, device=A.device).expand(tuple(A.shape[:-2]) + (m, m))
    for i in range(k):
        below = (rows > i).to(A.dtype)
        v = A[..., :, i] * below + (rows == i).to(A.dtype)
        Qv = Q.matmul(v.unsqueeze(-1))
        Q = Q - (tau[..., i].unsqueeze(-1).unsqueeze(-1) * Qv).matmul(v.unsqueeze(-2))
    return Q


def householder_product(A, tau, *, out=None):
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    return _householder_full(A, tau)[..., :, :n]


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _check_matrix(A, "lu_factor_ex", square=False)
    LU, piv, info = _lu_host(_host(A))
    if check_errors and bool((info != 0).any()):
        raise RuntimeError(f"torch.linalg.lu_factor_ex: U[{int(info.reshape(-1)[0])},{int(info.reshape(-1)[0])}] is zero "
                          "and using it on lu_solve would result in a division by zero. If you still want to perform the "
                          "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _return_types.linalg_lu_factor_ex(_packed(A, LU), _to_tensor(piv, A), _to_tensor(info, A))


def matrix_sqrth(A):
    """The symmetric square root `V sqrt(w) V^T` from eigh (negative eigenvalues taken as 0)."""
    _check_matrix(A, "matrix_sqrth")
    w, V = _Eigh.apply(A, "L")
    return (V * w.clamp_min(0).sqrt().unsqueeze(-2)).matmul(_mT(V))


def polar(A, *, out=None):
    """`A = U H`: U = W Vh and H = V S Vh from the SVD `A = W S Vh`."""
    _check_matrix(A, "polar", square=False)
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError("linalg.polar: input must have at least as many rows as columns, but got "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    W, S, Vh = _SVD.apply(A, False)
    return _return_types.linalg_polar(W.matmul(Vh), (_mT(Vh) * S.unsqueeze(-2)).matmul(Vh))


def tensorinv(A, ind=2, *, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = list(A.shape[:ind]), list(A.shape[ind:])
    n = _math.prod(rows)
    if n != _math.prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {_math.prod(cols)} != {n}")
    return inv(A.reshape(n, n)).reshape(cols + rows)


def tensorsolve(A, B, dims=None, *, out=None):
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.permute([d for d in range(A.dim()) if d not in dims] + dims)
    rest = list(A.shape[B.dim():])
    n = B.numel()
    if _math.prod(rest) != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {_math.prod(rest)} != {n}")
    return solve(A.reshape(n, n), B.reshape(n)).reshape(rest)
