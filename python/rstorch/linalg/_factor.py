"""The factorizations under `torch.linalg`, as autograd Functions: the forward runs LAPACK through
NumPy on the host (the routines PyTorch's CPU kernels call, so values agree to rounding), the
backward is written in rstorch ops (so it runs on the tensor's device and differentiates again
where the formula's own inputs carry history).
"""
import numpy as np

from .. import _C
from ..autograd.function import Function


class _LinAlgError(RuntimeError):
    """PyTorch's `torch.linalg.LinAlgError` (its class is `torch._C._LinAlgError`): a matrix the
    routine cannot factor."""


LinAlgError = _LinAlgError


_TITLES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
}


def host(t):
    return t.detach().cpu().numpy()


def to_tensor(array, like):
    # np.array keeps a 0-d result 0-d (ascontiguousarray would make it 1-d).
    return _C.from_numpy(np.array(array, copy=True, order="C")).to(like.device)


def check_matrix(A, fname, square=True, arg="A"):
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{fname}: The input tensor {arg} must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{fname}: {arg} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    key = str(A.dtype).rsplit(".", 1)[-1]
    if key not in ("float32", "float64"):
        raise RuntimeError(f"linalg.{fname}: Expected a floating point or complex tensor as input. Got {_TITLES[key]}")


def lu_host(a):
    """Partial-pivoting LU of a batch (..., m, n) on the host, as LAPACK's getrf: the packed
    factors, the 1-based pivots and, per matrix, the 1-based index of the first zero pivot (0 if none)."""
    a = np.array(a, copy=True)
    m, n = a.shape[-2:]
    k = min(m, n)
    flat = a.reshape(-1, m, n)
    piv = np.zeros((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for b in range(flat.shape[0]):
        A = flat[b]
        for j in range(k):
            p = j + int(np.argmax(np.abs(A[j:, j])))
            piv[b, j] = p + 1
            if A[p, j] != 0:
                if p != j:
                    A[[j, p]] = A[[p, j]]
                A[j + 1:, j] /= A[j, j]
            elif info[b] == 0:
                info[b] = j + 1
            A[j + 1:, j + 1:] -= np.outer(A[j + 1:, j], A[j, j + 1:])
    return flat.reshape(a.shape), piv.reshape(a.shape[:-2] + (k,)), info.reshape(a.shape[:-2])


_NOUNS = {"inv": "inversion"}


def raise_singular(fname, A):
    """PyTorch's error for a singular matrix, naming the first zero pivot (and batch element)."""
    _, _, info = lu_host(host(A))
    bad = np.argwhere(info.reshape(-1) > 0)
    b = int(bad[0][0]) if len(bad) else 0
    prefix = f"(Batch element {b}): " if info.ndim else ""
    k = int(info.reshape(-1)[b]) if info.size else 0
    raise LinAlgError(f"linalg.{fname}: {prefix}The diagonal element {k} is zero, the {_NOUNS[fname]} could not be "
                      "completed because the input matrix is singular.")


def mT(t):
    return t.transpose(-2, -1)


def recording(*inputs):
    """Whether a backward is itself being recorded (create_graph): then it recomputes the
    Function's outputs from its saved inputs, as the saved outputs carry no history back to them."""
    return _C.is_grad_enabled() and any(t.requires_grad for t in inputs)


class Inverse(Function):
    @staticmethod
    def forward(ctx, A):
        try:
            out = to_tensor(np.linalg.inv(host(A)), A)
        except np.linalg.LinAlgError:
            raise_singular("inv", A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        A, inv = ctx.saved_tensors
        if recording(A):
            inv = Inverse.apply(A)
        return -(mT(inv).matmul(g).matmul(mT(inv)))


class Solve(Function):
    """`X` with `A X = B`, for matrices `B` (batch dims already broadcast)."""

    @staticmethod
    def forward(ctx, A, B):
        try:
            X = to_tensor(np.linalg.solve(host(A), host(B)), A)
        except np.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
        ctx.save_for_backward(A, B, X)
        return X

    @staticmethod
    def backward(ctx, g):
        A, B, X = ctx.saved_tensors
        if recording(A, B):
            X = Solve.apply(A, B)
        gB = Solve.apply(mT(A), g)
        return -gB.matmul(mT(X)), gB


class Det(Function):
    @staticmethod
    def forward(ctx, A):
        out = to_tensor(np.linalg.det(host(A)), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        A, det = ctx.saved_tensors
        if recording(A):
            det = Det.apply(A)
        if bool((det != 0).all()):
            return (g * det).unsqueeze(-1).unsqueeze(-1) * mT(Inverse.apply(A))
        # A singular matrix: the cofactors, from the determinants of the minors.
        a = host(A)
        n = a.shape[-1]
        cof = np.zeros_like(a)
        for i in range(n):
            for j in range(n):
                minor = np.delete(np.delete(a, i, -2), j, -1)
                cof[..., i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
        return g.unsqueeze(-1).unsqueeze(-1) * to_tensor(cof, A)


class SlogDet(Function):
    @staticmethod
    def forward(ctx, A):
        sign, logabs = np.linalg.slogdet(host(A))
        sign, logabs = to_tensor(sign, A), to_tensor(logabs, A)
        ctx.save_for_backward(A)
        ctx.mark_non_differentiable(sign)
        return sign, logabs

    @staticmethod
    def backward(ctx, _gsign, glog):
        (A,) = ctx.saved_tensors
        return glog.unsqueeze(-1).unsqueeze(-1) * mT(Inverse.apply(A))


def _not_pd(fname, a):
    """PyTorch's message for a matrix that is not positive-definite: the order of its first
    leading minor that is not."""
    flat = a.reshape(-1, a.shape[-2], a.shape[-1])
    for b, m in enumerate(flat):
        for k in range(1, m.shape[-1] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                prefix = f"(Batch element {b}): " if a.ndim > 2 else ""
                raise LinAlgError(f"linalg.{fname}: {prefix}The factorization could not be completed because the input "
                                  f"is not positive-definite (the leading minor of order {k} is not positive-definite).") from None


def phi(t):
    """The lower triangle with the diagonal halved."""
    return t.tril(-1) + t.tril().triu() * 0.5


class Cholesky(Function):
    @staticmethod
    def forward(ctx, A, fname="cholesky"):
        a = host(A)
        # LAPACK reads one triangle: the lower one, as PyTorch's default.
        sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
        try:
            L = to_tensor(np.linalg.cholesky(sym), A)
        except np.linalg.LinAlgError:
            _not_pd(fname, sym)
        ctx.save_for_backward(A, L)
        return L

    @staticmethod
    def backward(ctx, gL, _=None):
        A, L = ctx.saved_tensors
        if recording(A):
            L = Cholesky.apply(A)
        Linv = Inverse.apply(L)
        S = mT(Linv).matmul(phi(mT(L).matmul(gL))).matmul(Linv)
        return (S + mT(S)) * 0.5, None


class QR(Function):
    @staticmethod
    def forward(ctx, A, mode="reduced"):
        Q, R = np.linalg.qr(host(A), mode="complete" if mode == "complete" else "reduced")
        Q, R = to_tensor(Q, A), to_tensor(R, A)
        ctx.mode = mode
        ctx.save_for_backward(A, Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        A, Q, R = ctx.saved_tensors
        if recording(A):
            Q, R = QR.apply(A, ctx.mode)
        m, n = A.shape[-2:]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
        if m >= n:
            return _qr_square_like_grad(Q, R, gQ, gR), None
        # A wide matrix [X | Y] = Q [U | V]: X's part is the square case, Y's is Q gV.
        U, Y = R[..., :m], A[..., m:]
        gV, gU = gR[..., m:], gR[..., :m]
        gX = _qr_square_like_grad(Q, U, gQ + Y.matmul(mT(gV)), gU)
        return _C.cat([gX, Q.matmul(gV)], -1), None


def _qr_square_like_grad(Q, R, gQ, gR):
    M = R.matmul(mT(gR)) - mT(gQ).matmul(Q)
    M = M.tril() + mT(M.tril(-1))
    b = gQ + Q.matmul(M)
    # b R^{-T}, R upper triangular and invertible.
    return mT(Solve.apply(R, mT(b)))


class Eigh(Function):
    @staticmethod
    def forward(ctx, A, uplo="L"):
        w, V = np.linalg.eigh(host(A), UPLO=uplo)
        w, V = to_tensor(w, A), to_tensor(V, A)
        ctx.uplo = uplo
        ctx.save_for_backward(A, w, V)
        return w, V

    @staticmethod
    def backward(ctx, gw, gV):
        A, w, V = ctx.saved_tensors
        if recording(A):
            w, V = Eigh.apply(A, ctx.uplo)
        eye = _C.eye(V.shape[-1], dtype=V.dtype, device=V.device)
        inner = V * 0 if gw is None else eye * gw.unsqueeze(-2)
        if gV is not None:
            E = w.unsqueeze(-2) - w.unsqueeze(-1)
            F = (1.0 / (E + eye)) * (1 - eye)
            VtgV = mT(V).matmul(gV)
            inner = inner + F * (VtgV - mT(VtgV)) * 0.5
        gA = V.matmul(inner).matmul(mT(V))
        return gA, None


class SVD(Function):
    @staticmethod
    def forward(ctx, A, full_matrices=False):
        U, S, Vh = np.linalg.svd(host(A), full_matrices=full_matrices)
        U, S, Vh = to_tensor(U, A), to_tensor(S, A), to_tensor(Vh, A)
        ctx.full = full_matrices
        ctx.save_for_backward(A, U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        A, U, S, Vh = ctx.saved_tensors
        if recording(A):
            U, S, Vh = SVD.apply(A, ctx.full)
        m, n = A.shape[-2:]
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        if gU is not None:
            gU = gU[..., :k]
        if gVh is not None:
            gVh = gVh[..., :k, :]
        eye = _C.eye(k, dtype=A.dtype, device=A.device)
        inner = _C.zeros(tuple(S.shape) + (k,), dtype=A.dtype, device=A.device) if gS is None else eye * gS.unsqueeze(-2)
        S2 = S * S
        Fden = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
        F = (1.0 / Fden) * (1 - eye)
        Sr = S.unsqueeze(-2)  # scales columns
        Sc = S.unsqueeze(-1)  # scales rows
        V = mT(Vh)
        gA_extra = None
        if gU is not None:
            UtgU = mT(U).matmul(gU)
            inner = inner + (F * (UtgU - mT(UtgU))) * Sr
            if m > k:
                gA_extra = (gU - U.matmul(UtgU)) / Sr
                gA_extra = gA_extra.matmul(Vh)
        if gVh is not None:
            gV = mT(gVh)
            VtgV = mT(V).matmul(gV)
            inner = inner + Sc * (F * (VtgV - mT(VtgV)))
            if n > k:
                extra = U.matmul(mT((gV - V.matmul(VtgV)) / Sr))
                gA_extra = extra if gA_extra is None else gA_extra + extra
        gA = U.matmul(inner).matmul(Vh)
        return (gA if gA_extra is None else gA + gA_extra), None


class LU(Function):
    """`A = P L U` of an m x n matrix (P, L and U unpacked by the caller's `unpack`). With k =
    min(m, n), L1 and U1 the leading k x k blocks, the square part's gradient is
    `P L1^{-T} (tril(L1^T gL1, -1) + triu(gU1 U1^T)) U1^{-T}`. A wide A's last columns are
    `P L1 U2`, so U2 = L1^{-1} Pᵀ A2: their gradient is `P L1^{-T} gU2` and L1's gains
    `-L1^{-T} gU2 U2ᵀ`. A tall A's last rows are `L2 U1`: their gradient is `gL2 U1^{-T}` (rows
    permuted by P) and U1's gains `-L2ᵀ gL2 U1^{-T}`."""

    @staticmethod
    def forward(ctx, A, unpack):
        LUp, piv, _ = lu_host(host(A))
        P, L, U = unpack(to_tensor(LUp, A), to_tensor(piv, A))
        ctx.unpack = unpack
        ctx.save_for_backward(A, P, L, U)
        ctx.mark_non_differentiable(P)
        return P, L, U

    @staticmethod
    def backward(ctx, _gP, gL, gU):
        A, P, L, U = ctx.saved_tensors
        if recording(A):
            P, L, U = LU.apply(A, ctx.unpack)
        m, n = A.shape[-2:]
        k = min(m, n)
        gL = L * 0 if gL is None else gL
        gU = U * 0 if gU is None else gU
        L1, U1, gL1, gU1 = L[..., :k, :], U[..., :, :k], gL[..., :k, :], gU[..., :, :k]
        if n > m:
            rest = Solve.apply(mT(L1), gU[..., :, k:])
            gL1 = gL1 - rest.matmul(mT(U[..., :, k:]))
        elif m > n:
            rest = mT(Solve.apply(U1, mT(gL[..., k:, :])))
            gU1 = gU1 - mT(L[..., k:, :]).matmul(rest)
        inner = mT(L1).matmul(gL1).tril(-1) + gU1.matmul(mT(U1)).triu()
        # L1^{-T} inner U1^{-T}
        core = mT(Solve.apply(U1, mT(Solve.apply(mT(L1), inner))))
        if n > m:
            core = _C.cat([core, rest], -1)
        elif m > n:
            core = _C.cat([core, rest], -2)
        return P.matmul(core), None


# PyTorch's node names (`grad_fn.name()`), in place of the `<class>Backward` a Function gets.
for _cls, _node in ((Inverse, "LinalgInvExBackward0"), (Solve, "LinalgSolveExBackward0"), (Det, "LinalgDetBackward0"),
                    (SlogDet, "LinalgSlogdetBackward0"), (Cholesky, "LinalgCholeskyExBackward0"), (QR, "LinalgQrBackward0"),
                    (Eigh, "LinalgEighBackward0"), (SVD, "LinalgSvdBackward0"), (LU, "LinalgLuBackward0")):
    _cls._backward_name = _node
del _cls, _node
