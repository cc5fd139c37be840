"""Audit cases, linear algebra issue 22 added: torch.linalg and the torch/Tensor functions beside it
(see audit_common). Matrices are made well-posed inside each call (A Aᵀ + 3I is positive definite,
a triangle with a large diagonal is invertible), differentiably, so gradcheck sees the map."""
from audit_common import Case

C = Case


def spd(T, a):
    return a @ a.mT + 3.0 * T.eye(a.shape[-1], dtype=a.dtype)


def tri(T, a, upper=False):
    t = a.triu() if upper else a.tril()
    return t + 4.0 * T.eye(a.shape[-1], dtype=a.dtype)


def well(T, a):
    return a + 4.0 * T.eye(a.shape[-1], dtype=a.dtype)


def tau(T):
    return T.tensor([1.2, 1.6, 0.7], dtype=T.float64)


def sym(a):
    return (a + a.mT) / 2


def cases():
    out = [
        C("linalg.cholesky_ex", lambda T, a: T.linalg.cholesky_ex(spd(T, a)), [(3, 3)], gg=True),
        C("linalg.cholesky_ex-upper", lambda T, a: T.linalg.cholesky_ex(spd(T, a), upper=True).L, [(2, 3, 3)]),
        C("linalg.inv_ex", lambda T, a: T.linalg.inv_ex(well(T, a)), [(3, 3)], gg=True),
        C("linalg.solve_ex", lambda T, a, b: T.linalg.solve_ex(well(T, a), b), [(3, 3), (3, 2)], gg=True),
        C("linalg.solve_ex-left", lambda T, a, b: T.linalg.solve_ex(well(T, a), b, left=False).result, [(3, 3), (2, 3)]),
        C("linalg.cond", lambda T, a: T.linalg.cond(well(T, a)), [(3, 3)]),
        C("linalg.cond-fro", lambda T, a: T.linalg.cond(well(T, a), "fro"), [(3, 3)], gg=True),
        C("linalg.cond-1", lambda T, a: T.linalg.cond(well(T, a), 1), [(2, 3, 3)]),
        C("linalg.eigvalsh", lambda T, a: T.linalg.eigvalsh(sym(a)), [(3, 3)], gg=True),
        C("linalg.eigvalsh-U", lambda T, a: T.linalg.eigvalsh(sym(a), UPLO="U"), [(2, 3, 3)]),
        C("linalg.lu_factor", lambda T, a: T.linalg.lu_factor(a), [(3, 3)]),
        C("linalg.lu_factor_ex", lambda T, a: T.linalg.lu_factor_ex(a), [(3, 4)]),
        C("linalg.lu-wide", lambda T, a: T.linalg.lu(a), [(3, 4)]),
        C("linalg.lu-tall", lambda T, a: T.linalg.lu(a), [(2, 4, 3)]),
        C("linalg.lu_solve", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(well(T, a)), b), [(3, 3), (3, 2)]),
        C("linalg.lu_solve-adjoint", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(well(T, a)), b, adjoint=True),
          [(3, 3), (3, 2)]),
        C("linalg.lu_solve-right", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(well(T, a)), b, left=False),
          [(3, 3), (2, 3)]),
        C("torch.lu_solve", lambda T, a, b: T.lu_solve(b, *T.linalg.lu_factor(well(T, a))), [(3, 3), (3, 2)]),
        C("Tensor.lu_solve", lambda T, a, b: b.lu_solve(*T.linalg.lu_factor(well(T, a))), [(3, 3), (3, 2)]),
        C("torch.lu_unpack", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a)), [(3, 4)]),
        C("linalg.matmul", lambda T, a, b: T.linalg.matmul(a, b), [(2, 3, 4), (4, 2)], gg=True),
        C("linalg.matrix_norm", lambda T, a: T.linalg.matrix_norm(a), [(3, 4)], gg=True),
        C("linalg.matrix_norm-nuc", lambda T, a: T.linalg.matrix_norm(a, "nuc"), [(3, 4)]),
        C("linalg.matrix_norm-2", lambda T, a: T.linalg.matrix_norm(a, 2, keepdim=True), [(2, 3, 4)]),
        C("linalg.matrix_norm-inf", lambda T, a: T.linalg.matrix_norm(a, float("inf"), dim=(1, 0)), [(3, 4)], "spread"),
        C("linalg.matrix_norm--1", lambda T, a: T.linalg.matrix_norm(a, -1), [(3, 4)], "spread"),
        C("linalg.multi_dot", lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4, 2)], gg=True),
        C("linalg.solve_triangular", lambda T, a, b: T.linalg.solve_triangular(tri(T, a, True), b, upper=True),
          [(3, 3), (3, 2)], gg=True),
        C("linalg.solve_triangular-left", lambda T, a, b: T.linalg.solve_triangular(
            tri(T, a), b, upper=False, left=False, unitriangular=True), [(3, 3), (2, 3)]),
        C("linalg.svdvals", lambda T, a: T.linalg.svdvals(a), [(3, 4)], gg=True),
        C("linalg.tensorinv", lambda T, a: T.linalg.tensorinv(well(T, a.reshape(4, 4)).reshape(4, 2, 2), ind=1),
          [(4, 4)]),
        C("linalg.tensorsolve", lambda T, a, b: T.linalg.tensorsolve(well(T, a).reshape(2, 3, 6), b), [(6, 6), (2, 3)]),
        C("linalg.vander", lambda T, x: T.linalg.vander(x, N=4), [(2, 3)], gg=True),
        C("linalg.vecdot", lambda T, x, y: T.linalg.vecdot(x, y, dim=0), [(3, 4), (3, 1)], gg=True),
        C("linalg.vector_norm", lambda T, x: T.linalg.vector_norm(x), [(3, 4)], gg=True),
        C("linalg.vector_norm-3", lambda T, x: T.linalg.vector_norm(x, 3, dim=1, keepdim=True), [(3, 4)]),
        C("linalg.vector_norm-inf", lambda T, x: T.linalg.vector_norm(x, float("inf"), dim=(0, 1)), [(3, 4)], "spread"),
        C("linalg.vector_norm-0.5", lambda T, x: T.linalg.vector_norm(x, 0.5, dtype=T.float64), [(3, 4)], "pos"),
        # PyTorch's backward of the 0-"norm" (a count) gives no gradient (None), rstorch's gives the
        # same derivative as zeros
        C("linalg.vector_norm-0", lambda T, x: T.linalg.vector_norm(x, 0), [(3, 4)], grad_parity=False),
        # the torch / Tensor functions beside torch.linalg
        C("torch.cholesky_inverse", lambda T, a: T.cholesky_inverse(T.linalg.cholesky(spd(T, a))), [(3, 3)], gg=True),
        C("Tensor.cholesky_inverse", lambda T, a: T.linalg.cholesky(spd(T, a)).mT.cholesky_inverse(upper=True),
          [(3, 3)]),
        C("torch.logdet", lambda T, a: T.logdet(spd(T, a)), [(3, 3)], gg=True),
        C("Tensor.logdet", lambda T, a: spd(T, a).logdet(), [(2, 3, 3)]),
        C("torch.triangular_solve", lambda T, a, b: T.triangular_solve(b, tri(T, a, True)), [(3, 3), (3, 2)], gg=True),
        C("Tensor.triangular_solve", lambda T, a, b: b.triangular_solve(tri(T, a), upper=False, transpose=True),
          [(3, 3), (3, 2)]),
        # orgqr/ormqr read the Householder vectors below the diagonal of `a` and the scales `tau`
        # (fixed numbers, so that the map gradcheck sees is the one autograd differentiates)
        C("torch.orgqr", lambda T, a: T.orgqr(a, tau(T)), [(4, 3)]),
        C("Tensor.orgqr", lambda T, a: a.orgqr(tau(T)), [(4, 3)]),
        C("torch.ormqr", lambda T, a, c: T.ormqr(a, tau(T), c), [(4, 3), (4, 2)]),
        C("Tensor.ormqr", lambda T, a, c: a.ormqr(tau(T), c, left=False, transpose=True), [(4, 3), (2, 4)]),
    ]
    return [(c.name, c) for c in out]
