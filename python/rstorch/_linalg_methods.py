"""The linear algebra PyTorch offers as `torch.X` and `Tensor.X` beside `torch.linalg` (its older
names: `inverse`, `pinverse`, `svd` returning V, `lu` returning pivots, ...), and the products
with a bias (`addmv`, `addr`, `addbmm`, `baddbmm`, `kron`, `vdot`). `torch.linalg` loads on
first use, so that `import rstorch` stays fast."""
from . import _C, return_types
from ._C import Tensor


def _la():
    from . import linalg
    return linalg


def det(input):
    return _la().det(input)


def logdet(input):
    sign, logabs = _la().slogdet(input)
    return logabs.masked_fill(sign < 0, float("nan"))


def slogdet(input):
    return _la().slogdet(input)


def inverse(input):
    return _la().inv(input)


def matrix_power(input, n):
    return _la().matrix_power(input, n)


def matrix_exp(input):
    return _la().matrix_exp(input)


def pinverse(input, rcond=1e-15):
    return _la().pinv(input, rtol=rcond)


def cholesky_solve(input, input2, upper=False):
    L = input2.transpose(-2, -1) if upper else input2
    A = L.matmul(L.transpose(-2, -1))
    return _la().solve(A, input)


def cholesky_inverse(input, upper=False):
    L = input.transpose(-2, -1) if upper else input
    return _la().inv(L.matmul(L.transpose(-2, -1)))


def svd(input, some=True, compute_uv=True):
    U, S, Vh = _la().svd(input, full_matrices=not some)
    if not compute_uv:
        # PyTorch returns zero-filled U and V then.
        return return_types.svd(U.detach() * 0, S, Vh.transpose(-2, -1).detach() * 0)
    return return_types.svd(U, S, Vh.transpose(-2, -1))


def lu(A, pivot=True, get_infos=False):
    la = _la()
    LU, pivots = la.lu_factor(A, pivot=pivot)
    if get_infos:
        from .linalg._factor import host, lu_host, to_tensor
        return LU, pivots, to_tensor(lu_host(host(A))[2], A)
    return LU, pivots


def lu_solve(b, LU_data, LU_pivots):
    return _la().lu_solve(LU_data, LU_pivots, b)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    from .linalg import _unpack
    P, L, U = _unpack(LU_data, LU_pivots)
    empty = _C.empty((0,), dtype=LU_data.dtype, device=LU_data.device)
    return return_types.lu_unpack(P if unpack_pivots else empty, L if unpack_data else empty, U if unpack_data else empty)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    M = A.transpose(-2, -1) if transpose else A
    X = _la().solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return return_types.triangular_solve(X, A.clone())


def cross(input, other, dim=None):
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), -1)
    return _la().cross(input, other, dim=dim)


def kron(input, other):
    n = max(input.dim(), other.dim())
    a = input.reshape([1] * (n - input.dim()) + list(input.shape))
    b = other.reshape([1] * (n - other.dim()) + list(other.shape))
    # a's dims at the even places, b's at the odd ones, then each pair merged.
    ea = a.reshape([s for d in a.shape for s in (d, 1)])
    eb = b.reshape([s for d in b.shape for s in (1, d)])
    return (ea * eb).reshape([x * y for x, y in zip(a.shape, b.shape)])


def vdot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    return input.dot(other)


def ger(input, vec2):
    return input.outer(vec2)


def vander(x, N=None, increasing=False):
    """Columns of powers of the 1-D `x`: x^(N-1) ... x^0, or increasing."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return _C.empty((x.shape[0], 0), dtype=x.dtype, device=x.device)
    # Cumulative products keep integer inputs integral, as PyTorch's.
    cols = _C.cat([_C.ones((x.shape[0], 1), dtype=x.dtype, device=x.device), x.unsqueeze(1).expand((x.shape[0], n - 1))], 1)
    powers = cols.cumprod(1)
    return powers if increasing else powers.flip(1)


def geqrf(input, *, out=None):
    """LAPACK's packed QR: R on and above the diagonal, the Householder vectors below, and their scales."""
    from .linalg._factor import check_matrix, host, to_tensor
    import numpy as np
    check_matrix(input, "geqrf", square=False, arg="input")
    h, tau = np.linalg.qr(host(input), mode="raw")
    return return_types.geqrf(to_tensor(np.swapaxes(h, -1, -2), input), to_tensor(tau, input))


def orgqr(input, tau):
    return _la().householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    from .linalg import _householder_full as householder_full
    Q = householder_full(input, tau)
    if transpose:
        Q = Q.transpose(-2, -1)
    return Q.matmul(other) if left else other.matmul(Q)


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    import warnings
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return _la().vector_norm(input, 2, dim, keepdim)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    import warnings
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return _la().matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def svd_lowrank(A, q=6, niter=2, M=None):
    """Randomized SVD (Halko et al.): an orthonormal basis of A's range from a Gaussian sketch,
    refined by `niter` power iterations, then the SVD of A projected on it. Returns (U, S, V)."""
    la = _la()
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    if M is not None:
        A = A - M
    m, n = A.shape[-2:]
    if m < n:
        U, S, V = svd_lowrank(A.transpose(-2, -1), q, niter)
        return V, S, U
    At = A.transpose(-2, -1)
    R = _C.randn(*A.shape[:-2], n, q, dtype=A.dtype, device=A.device)
    Q = la.qr(A.matmul(R)).Q
    for _ in range(niter):
        Q = la.qr(At.matmul(Q)).Q
        Q = la.qr(A.matmul(Q)).Q
    U, S, Vh = la.svd(Q.transpose(-2, -1).matmul(A), full_matrices=False)
    return Q.matmul(U), S, Vh.transpose(-2, -1)


def pca_lowrank(A, q=None, center=True, niter=2):
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(-2, keepdim=True)
    return svd_lowrank(A, q, niter)


def _size_text(t):
    return "x".join(str(s) for s in t.shape)


def _biased(input, product, beta, alpha):
    """`beta * input + alpha * product`, where beta 0 ignores input (NaN included), as PyTorch."""
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled + input.new_zeros(tuple(input.shape))
    return (input if beta == 1 else input * beta) + scaled


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    if mat.dim() != 2 or vec.dim() != 1 or mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({_size_text(input)}), mat ({_size_text(mat)}), "
                           f"vec ({_size_text(vec)})")
    return _biased(input, mat.mv(vec), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1
                           else f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    return _biased(input, vec1.outer(vec2), beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    return _biased(input, batch1.bmm(batch2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    return _biased(input, batch1.bmm(batch2).sum(0), beta, alpha)


# The functions PyTorch removed in favour of torch.linalg: still names of torch and Tensor, raising
# PyTorch's messages (which say what to call instead).
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_REMOVED_TEXTS = {
    "cholesky": "`torch.cholesky` is deprecated in favor of `torch.linalg.cholesky`.\nL = torch.cholesky(A) should be "
                "replaced with:\nL = torch.linalg.cholesky(A)\nU = torch.cholesky(A, upper=True) should be replaced "
                "with:\nU = torch.linalg.cholesky(A).mH",
    "qr": "`torch.qr` is deprecated in favor of `torch.linalg.qr` and the boolean parameter `some` has been replaced with "
          "a string parameter `mode`.\n\nQ, R = torch.qr(A) should be replaced with:\nQ, R = torch.linalg.qr(A, "
          "mode='reduced')\n\nand\n\nQ, R = torch.qr(A, some=False) should be replaced with:\nQ, R = "
          "torch.linalg.qr(A, mode='complete')\n\n",
    "lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments "
             "and does not return the QR decomposition in the returned tuple (although it returns other information "
             "about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned "
             "solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the returned "
             "value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned "
             "named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
             "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
             "reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, which "
             "can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
             "replaced with:\nX = torch.linalg.solve(A, B)",
    "eig": "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking "
           "complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\n"
           "and\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
           "torch.linalg.eig(A)",
    "symeig": "The default behavior has changed from using the upper triangular portion of the matrix by default to using "
              "the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\nL = "
              "torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
              "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "matrix_rank": "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed "
                   "in `torch.linalg.matrix_rank()` to 'hermitian'.",
}


def _removed(name):
    def removed(*args, **kwargs):
        text = _REMOVED + _REMOVED_TEXTS[name] if name != "matrix_rank" else _REMOVED.rstrip() + _REMOVED_TEXTS[name]
        if name == "qr":
            some = kwargs.get("some", args[1] if len(args) > 1 else True)
            text += f"Since `some` was set to {bool(some)}, use mode='{'reduced' if some else 'complete'}'."
        raise RuntimeError(text)
    removed.__name__ = name
    return removed


def _in_place(fn):
    def method(self, *args, **kwargs):
        return self._assign_(fn(self, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    return method


_FUNCTIONS = ("det logdet slogdet inverse matrix_power matrix_exp pinverse cholesky_solve cholesky_inverse "
              "svd lu lu_solve lu_unpack triangular_solve cross kron vdot ger addmv addr baddbmm addbmm vander geqrf orgqr ormqr "
              "frobenius_norm nuclear_norm svd_lowrank pca_lowrank").split()
_METHODS = [n for n in _FUNCTIONS if n not in ("lu_unpack", "vander", "frobenius_norm", "nuclear_norm", "svd_lowrank",
                                               "pca_lowrank")]


def install():
    for name in _METHODS:
        setattr(Tensor, name, globals()[name])
    for name in ("addmv", "addr", "baddbmm", "addbmm"):
        setattr(Tensor, name + "_", _in_place(globals()[name]))
    Tensor.addmm_ = _in_place(Tensor.addmm)
    for name in _REMOVED_TEXTS:
        if name != "matrix_rank":
            setattr(Tensor, name, _removed(name))
