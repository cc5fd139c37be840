"""The reductions, scans and linear algebra compared with PyTorch: one list for both frameworks
(tests/record_reducelin.py runs it on PyTorch into fixtures/reducelin.json,
tests/python/test_reducelin.py on rstorch). Inputs come from NumPy with a fixed seed, so both
frameworks see the same float64 values; eigen- and singular vectors are returned with the sign
that makes each one's largest entry positive (they are unique only up to sign)."""
import numpy as np


def record(value):
    """A result as JSON: tensors as {dtype, shape, values}, tuples as lists."""
    if isinstance(value, (tuple, list)):
        return [record(v) for v in value]
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        arr = value.detach().cpu().numpy()
        vals = [None if isinstance(v, float) and v != v else v for v in arr.reshape(-1).tolist()]
        return {"dtype": str(value.dtype).rsplit(".", 1)[-1], "shape": list(arr.shape), "values": vals}
    return value


def capture(fn):
    try:
        return {"out": record(fn())}
    except Exception as e:  # noqa: BLE001 (what either framework raises is the record)
        return {"error": [type(e).__name__, str(e)]}


def _signed(V):
    """Columns of V with the sign that makes each column's largest-magnitude entry positive."""
    idx = V.abs().argmax(-2, keepdim=True)
    return V * V.gather(-2, idx).sign()


def cases(torch):
    rng = np.random.default_rng(22)

    def t(shape, dtype=None, scale=1.0):
        return torch.tensor((rng.standard_normal(shape) * scale).tolist(), dtype=dtype or torch.float64)

    la = torch.linalg
    nan = float("nan")
    x = t((3, 5))
    xn = torch.tensor([[1.0, nan, 3.0, 2.0, 2.0], [nan, nan, nan, nan, nan], [4.0, 5.0, 5.0, -1.0, 0.5]], dtype=torch.float64)
    ints = torch.tensor([[3, 1, 2, 3, 1], [0, 0, 5, 5, 2]])
    v = t((7,))
    A = t((3, 3)) + 3 * torch.eye(3, dtype=torch.float64)
    Ab = t((2, 4, 4)) + 4 * torch.eye(4, dtype=torch.float64)
    B = t((3, 2))
    W = t((5, 3))
    S = A @ A.mT + torch.eye(3, dtype=torch.float64)
    # Drawn here, not inside the lambdas: the test runs the cases in another order.
    A3, B3, Y2, K1, K2 = t((2, 3, 4)), t((2, 5, 4)), t((4, 2)), t((2, 1, 2)), t((2, 3))
    R1, R2 = t((5, 2)), t((5, 2))
    many = (t((4, 30)) * 2).round().long()  # small integers: many ties between counts
    low = t((8, 3)) @ t((3, 6))  # rank 3: the randomized SVDs find it exactly whatever their draws
    sing = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=torch.float64)
    return {
        "nansum": lambda: torch.nansum(xn), "nansum_dim": lambda: torch.nansum(xn, 1, keepdim=True),
        "nansum_int": lambda: torch.nansum(ints, 0),
        "nanmean": lambda: torch.nanmean(xn, 1), "nanmean_int": lambda: torch.nanmean(ints),
        "nanmedian": lambda: torch.nanmedian(xn), "nanmedian_dim": lambda: xn.nanmedian(1)[0],
        "nanmedian_dim_idx": lambda: xn[[0, 2]].nanmedian(1),
        "count_nonzero": lambda: torch.count_nonzero(ints), "count_nonzero_dim": lambda: ints.count_nonzero(1),
        "count_nonzero_dims": lambda: torch.count_nonzero(ints, (0, 1)),
        "aminmax": lambda: torch.aminmax(x), "aminmax_dim": lambda: torch.aminmax(x, dim=0, keepdim=True),
        "cummax": lambda: torch.cummax(x, 1), "cummin": lambda: x.cummin(0),
        "cummax_nan": lambda: torch.cummax(xn, 1), "cummin_int": lambda: torch.cummin(ints, 1),
        "logcumsumexp": lambda: torch.logcumsumexp(x, 1),
        "logcumsumexp_far": lambda: torch.logcumsumexp(torch.tensor([-1000.0, 0.0, 800.0, 1.0], dtype=torch.float64), 0),
        "mode": lambda: torch.mode(ints, 1), "mode_ties": lambda: torch.mode(many).values, "mode_ties_dim0": lambda: many.mode(0).values,
        "mode_empty": lambda: torch.mode(torch.zeros(2, 0, dtype=torch.float64), 1), "mode_dim0": lambda: ints.mode(0),
        "quantile": lambda: torch.quantile(x, 0.3), "quantile_dim": lambda: torch.quantile(x, 0.3, dim=1, keepdim=True),
        "quantile_q": lambda: torch.quantile(x, torch.tensor([0.0, 0.25, 0.9, 1.0], dtype=torch.float64), dim=0),
        **{f"quantile_{m}": (lambda m=m: x.quantile(torch.tensor([0.1, 0.45, 0.5, 0.77], dtype=torch.float64), dim=1,
                                                    interpolation=m))
           for m in ("linear", "lower", "higher", "midpoint", "nearest")},
        "quantile_nan": lambda: torch.quantile(xn, 0.5, dim=1),
        "nanquantile": lambda: torch.nanquantile(xn, 0.5, dim=1),
        "nanquantile_q": lambda: xn.nanquantile(torch.tensor([0.2, 0.8], dtype=torch.float64), dim=1, keepdim=True),
        "quantile_bad_q": lambda: torch.quantile(x, 1.5), "quantile_int": lambda: torch.quantile(ints, 0.5),
        "quantile_bad_interp": lambda: torch.quantile(x, 0.5, interpolation="cubic"),
        "histc": lambda: torch.histc(x, bins=6), "histc_range": lambda: torch.histc(x, bins=4, min=-1, max=1),
        "histogram": lambda: torch.histogram(x, bins=5),
        "histogram_edges": lambda: torch.histogram(x, bins=torch.tensor([-2.0, -0.5, 0.0, 2.0], dtype=torch.float64)),
        "histogram_weight_density": lambda: torch.histogram(x, 4, range=(-1.0, 1.0), weight=x.abs(), density=True),
        "histogramdd": lambda: torch.histogramdd(W, bins=[2, 3, 2]),
        "histogramdd_range": lambda: torch.histogramdd(W[:, :2], bins=3, range=[-1.0, 1.0, -0.5, 0.5],
                                                       weight=W[:, 2].abs(), density=True),
        "histogramdd_edges": lambda: torch.histogramdd(A3.reshape(-1, 2), bins=[torch.tensor([-2.0, 0.0, 2.0],
                                                       dtype=torch.float64), torch.tensor([-1.0, 1.0], dtype=torch.float64)]),
        "bincount": lambda: torch.bincount(torch.tensor([0, 3, 3, 1, 7])),
        "bincount_weights": lambda: torch.bincount(torch.tensor([0, 3, 3, 1]), weights=torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=torch.float64),
                                                   minlength=6),
        "bincount_bad": lambda: torch.bincount(torch.tensor([-1, 2])),
        "unique": lambda: torch.unique(ints), "unique_all": lambda: ints.unique(return_inverse=True, return_counts=True),
        "unique_dim": lambda: torch.unique(torch.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True, return_counts=True),
        "unique_consecutive": lambda: torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True,
                                                               return_counts=True),
        "unique_consecutive_dim": lambda: torch.unique_consecutive(torch.tensor([[1, 2], [1, 2], [0, 1]]), dim=0,
                                                                   return_counts=True),
        "diff": lambda: torch.diff(x), "diff_n2": lambda: x.diff(n=2, dim=0),
        "diff_pend": lambda: torch.diff(v, prepend=torch.tensor([1.0], dtype=torch.float64), append=v[:2]),
        "diff_bool": lambda: torch.diff(torch.tensor([True, False, False, True])),
        "gradient": lambda: torch.gradient(x), "gradient_dim": lambda: torch.gradient(x, dim=1, spacing=0.5),
        "gradient_order2": lambda: torch.gradient(A3, spacing=[1.0, 2.0, 0.5], edge_order=2),
        "gradient_coords": lambda: torch.gradient(x, spacing=(torch.tensor([0.0, 1.0, 1.5], dtype=torch.float64),
                                                              torch.tensor([0.0, 1.0, 1.5, 3.0, 3.5], dtype=torch.float64))),
        "gradient_coords_order2": lambda: torch.gradient(x, spacing=(torch.tensor([0.0, 1.0, 1.5, 3.0, 3.5],
                                                                                  dtype=torch.float64),), dim=1, edge_order=2),
        "gradient_int": lambda: torch.gradient(ints), "gradient_short": lambda: torch.gradient(x[:2], edge_order=2),
        "gradient_bad_spacing": lambda: torch.gradient(x, spacing=[1.0]),
        "renorm": lambda: torch.renorm(x, 2, 0, 1.5), "renorm_p1": lambda: x.renorm(1, 1, 0.5),
        "dist": lambda: torch.dist(x, x.flip(0)), "dist_inf": lambda: torch.dist(x, x.flip(0), float("inf")),
        "dist_p3": lambda: torch.dist(x, x.flip(0), 3),
        "cdist": lambda: torch.cdist(W, x.mT[:4]), "cdist_p1": lambda: torch.cdist(W, x.mT[:2], p=1),
        "cdist_batch": lambda: torch.cdist(A3, B3),
        "cdist_cols": lambda: torch.cdist(W, x), "cdist_1d": lambda: torch.cdist(v, W),
        "cov": lambda: torch.cov(x), "cov_corr0": lambda: torch.cov(x, correction=0),
        "cov_weights": lambda: torch.cov(x, fweights=torch.tensor([1, 2, 1, 3, 1]),
                                         aweights=torch.tensor([0.5, 1.0, 2.0, 1.0, 0.3], dtype=torch.float64)),
        "cov_1d": lambda: torch.cov(v), "corrcoef": lambda: torch.corrcoef(x),
        "trapezoid": lambda: torch.trapezoid(x), "trapezoid_dx": lambda: torch.trapezoid(x, dx=0.5, dim=0),
        "trapezoid_x": lambda: torch.trapezoid(x, torch.tensor([0.0, 1.0, 1.5, 3.0, 3.5], dtype=torch.float64)),
        "trapz": lambda: torch.trapz(x, dim=0),
        "cumulative_trapezoid": lambda: torch.cumulative_trapezoid(x),
        "cumulative_trapezoid_x": lambda: torch.cumulative_trapezoid(x, torch.tensor([0.0, 1.0, 1.5, 3.0, 3.5],
                                                                                     dtype=torch.float64)),
        "combinations": lambda: torch.combinations(v[:4]),
        "combinations_r3_repl": lambda: torch.combinations(v[:3], 3, with_replacement=True),
        "bucketize": lambda: torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5, 1.0], dtype=torch.float64)),
        "bucketize_right": lambda: torch.bucketize(torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64),
                                                   torch.tensor([0.0, 1.0], dtype=torch.float64), right=True, out_int32=True),
        "searchsorted": lambda: torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3, 0], [6, 5]])),
        "searchsorted_side": lambda: torch.searchsorted(torch.tensor([1, 3, 3, 5]), torch.tensor([3, 4]), side="right"),
        "isin": lambda: torch.isin(ints, torch.tensor([1, 5])), "isin_invert": lambda: torch.isin(ints, 3, invert=True),
        "argwhere": lambda: torch.argwhere(ints),
        "cumsum_": lambda: x.clone().cumsum_(1), "cumprod_": lambda: x.clone().cumprod_(0),
        # linear algebra
        "det": lambda: torch.det(A), "det_batch": lambda: Ab.det(), "det_singular": lambda: torch.det(sing),
        "logdet": lambda: torch.logdet(S), "logdet_neg": lambda: torch.logdet(-torch.eye(3, dtype=torch.float64)),
        "slogdet": lambda: torch.slogdet(Ab), "inverse": lambda: torch.inverse(A), "inv_batch": lambda: la.inv(Ab),
        "inv_singular": lambda: la.inv(sing), "inv_not_square": lambda: la.inv(W), "inv_int": lambda: la.inv(ints),
        "inv_1d": lambda: la.inv(v),
        "solve": lambda: la.solve(A, B), "solve_vec": lambda: la.solve(A, B[:, 0]),
        "solve_batch_broadcast": lambda: la.solve(Ab, Y2), "solve_right": lambda: la.solve(A, B.mT, left=False),
        "solve_singular": lambda: la.solve(sing, B), "solve_shapes": lambda: la.solve(A, W),
        "matrix_power": lambda: torch.matrix_power(A, 3), "matrix_power_0": lambda: Ab.matrix_power(0),
        "matrix_power_neg": lambda: la.matrix_power(A, -2), "matrix_exp": lambda: torch.matrix_exp(A),
        "matrix_exp_batch": lambda: la.matrix_exp(Ab * 0.1),
        "pinverse": lambda: torch.pinverse(W), "pinv_hermitian": lambda: la.pinv(S, hermitian=True),
        "cholesky": lambda: la.cholesky(S), "cholesky_upper": lambda: la.cholesky(S, upper=True),
        "cholesky_not_pd": lambda: la.cholesky(A - 6 * torch.eye(3, dtype=torch.float64)),
        "cholesky_solve": lambda: torch.cholesky_solve(B, la.cholesky(S)),
        "cholesky_inverse": lambda: torch.cholesky_inverse(la.cholesky(S)),
        "qr": lambda: la.qr(W), "qr_complete": lambda: la.qr(W, mode="complete"), "qr_wide": lambda: la.qr(W.mT),
        "qr_r": lambda: la.qr(W, mode="r")[1],
        "eigh": lambda: (lambda r: (r[0], _signed(r[1])))(la.eigh(S)), "eigvalsh": lambda: la.eigvalsh(S, UPLO="U"),
        "svd": lambda: (lambda r: (_signed(r[0]), r[1], _signed(r[2].mT)))(la.svd(W, full_matrices=False)),
        "svd_torch": lambda: (lambda r: (_signed(r[0]), r[1], _signed(r[2])))(torch.svd(W)),
        "svdvals": lambda: la.svdvals(Ab),
        "matrix_rank": lambda: la.matrix_rank(sing), "matrix_rank_tol": lambda: la.matrix_rank(W, atol=1.0),
        "lstsq": lambda: la.lstsq(W, R1).solution, "lstsq_gelsd": lambda: la.lstsq(W, R2, driver="gelsd"),
        "lu_factor": lambda: la.lu_factor(A), "lu": lambda: la.lu(Ab), "lu_torch": lambda: torch.lu(A),
        "lu_unpack": lambda: torch.lu_unpack(*torch.lu(Ab)), "lu_solve": lambda: torch.lu_solve(B, *torch.lu(A)),
        "linalg_lu_solve": lambda: la.lu_solve(*la.lu_factor(A), B),
        "solve_triangular": lambda: la.solve_triangular(A, B, upper=True),
        "solve_triangular_unit": lambda: la.solve_triangular(A, B.mT, upper=False, left=False, unitriangular=True),
        "triangular_solve": lambda: torch.triangular_solve(B, A),
        "cross": lambda: torch.cross(x.mT[:, :3], W[:, :3]), "linalg_cross": lambda: la.cross(W[:, :3], W[:, :3].flip(0)),
        "vector_norm": lambda: la.vector_norm(x, 3, dim=1), "vector_norm_inf": lambda: la.vector_norm(x, float("-inf")),
        "matrix_norm": lambda: la.matrix_norm(W), "matrix_norm_nuc": lambda: la.matrix_norm(W, "nuc"),
        "matrix_norm_1": lambda: la.matrix_norm(W, 1), "matrix_norm_inf": lambda: la.matrix_norm(Ab, float("inf"), keepdim=True),
        "matrix_norm_2": lambda: la.matrix_norm(Ab, -2), "norm": lambda: la.norm(x), "norm_ord": lambda: la.norm(W, 1),
        "cond": lambda: la.cond(A), "multi_dot": lambda: la.multi_dot([v[:3], A, B]),
        "vecdot": lambda: la.vecdot(x, x.flip(1)),
        "kron": lambda: torch.kron(A[:2], B), "kron_nd": lambda: torch.kron(K1, K2),
        "vdot": lambda: torch.vdot(v, v.flip(0)), "vdot_2d": lambda: torch.vdot(A, A),
        "ger": lambda: torch.ger(v[:3], v[3:]),
        "addmv": lambda: torch.addmv(v[:3], W.mT, v[:5], beta=0.5, alpha=2),
        "addmv_beta0": lambda: torch.addmv(torch.full((3,), nan, dtype=torch.float64), W.mT, v[:5], beta=0),
        "addmv_": lambda: v[:3].clone().addmv_(A, v[3:6]),
        "addmv_bad": lambda: torch.addmv(v[:3], W, v[:5]),
        "addr": lambda: torch.addr(A, v[:3], v[4:7], alpha=3), "addr_": lambda: A.clone().addr_(v[:3], v[:3]),
        "baddbmm": lambda: torch.baddbmm(Ab, Ab, Ab.mT, beta=2), "addbmm": lambda: torch.addbmm(Ab[0], Ab, Ab, alpha=0.5),
        "baddbmm_": lambda: Ab.clone().baddbmm_(Ab, Ab), "addbmm_": lambda: Ab[0].clone().addbmm_(Ab, Ab),
        "addmm_": lambda: A.clone().addmm_(A, A, beta=0.5),
        # edge cases: float32, empty, 0-d and batched inputs
        "inv_f32": lambda: la.inv(A.float()), "det_f32_batch": lambda: Ab.float().det(),
        "det_empty": lambda: la.det(torch.zeros(0, 0, dtype=torch.float64)),
        "inv_empty_batch": lambda: la.inv(torch.zeros(2, 0, 0, dtype=torch.float64)),
        "eigh_batch": lambda: la.eigvalsh(Ab + Ab.mT), "svd_full": lambda: la.svd(W)[1],
        "qr_batch": lambda: (lambda r: (r[0].abs(), r[1].abs()))(la.qr(A3)),
        "cholesky_batch_not_pd": lambda: la.cholesky(torch.stack([S, -S])),
        "inv_batch_singular": lambda: la.inv(torch.stack([A, sing])),
        "matrix_power_batch_neg": lambda: la.matrix_power(Ab, -1), "matrix_power_1d": lambda: la.matrix_power(v, 2),
        "quantile_0d": lambda: torch.quantile(torch.tensor(2.5, dtype=torch.float64), 0.5),
        "quantile_f32": lambda: torch.quantile(x.float(), 0.4, dim=0),
        "quantile_empty": lambda: torch.quantile(torch.zeros(0, dtype=torch.float64), 0.5),
        "nanmedian_0d": lambda: torch.nanmedian(torch.tensor(1.5, dtype=torch.float64)),
        "cummax_empty": lambda: torch.cummax(torch.zeros(0, 3, dtype=torch.float64), 0),
        "cummax_0d": lambda: torch.cummax(torch.tensor(2.0, dtype=torch.float64), 0),
        "logcumsumexp_f32_ninf": lambda: torch.logcumsumexp(torch.tensor([float("-inf"), 0.0, float("-inf")]), 0),
        "histc_f32": lambda: torch.histc(x.float(), bins=3, min=-1, max=1),
        "histc_same": lambda: torch.histc(torch.tensor([2.0, 2.0]), bins=4),
        "histc_int": lambda: torch.histc(ints, bins=4),
        "bincount_empty": lambda: torch.bincount(torch.zeros(0, dtype=torch.int64), minlength=3),
        "bincount_2d": lambda: torch.bincount(ints),
        "unique_float": lambda: torch.unique(torch.tensor([2.0, 1.0, 2.0, -0.5]), return_counts=True),
        "unique_bool": lambda: torch.unique(torch.tensor([True, False, True])),
        "diff_n_big": lambda: torch.diff(v[:3], n=5), "diff_0d": lambda: torch.diff(torch.tensor(1.0)),
        "diff_prepend_0d": lambda: torch.diff(v[:3], prepend=torch.tensor(0.0, dtype=torch.float64)),
        "bucketize_scalar": lambda: torch.bucketize(0.3, torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64)),
        "searchsorted_scalar": lambda: torch.searchsorted(torch.tensor([1, 3, 5]), 4),
        "count_nonzero_float": lambda: torch.count_nonzero(xn, 0),
        "nansum_dtype": lambda: torch.nansum(xn, 1, dtype=torch.float32),
        "nanmean_all_nan": lambda: torch.nanmean(xn[1]),
        "aminmax_int": lambda: torch.aminmax(ints, dim=1),
        "mode_float": lambda: torch.mode(torch.tensor([[0.5, 0.5, 0.25], [1.0, 2.0, 3.0]], dtype=torch.float64)),
        "kron_1d": lambda: torch.kron(v[:2], v[2:5]), "cross_default_dim": lambda: torch.cross(A, A.flip(0)),
        "cdist_p0": lambda: torch.cdist(W, W, p=0), "cdist_inf": lambda: torch.cdist(W, W[:2], p=float("inf")),
        "cov_int": lambda: torch.cov(ints), "corrcoef_1d": lambda: torch.corrcoef(v),
        "renorm_3d": lambda: torch.renorm(A3, 2, 1, 1.0), "renorm_bad": lambda: torch.renorm(x, -1, 0, 1.0),
        "vector_norm_0": lambda: la.vector_norm(x, 0), "vector_norm_dims": lambda: la.vector_norm(A3, 2, dim=(0, 2), keepdim=True),
        "norm_vec": lambda: la.norm(v, 3), "norm_keepdim": lambda: la.norm(x, keepdim=True),
        "matrix_norm_fro_batch": lambda: la.matrix_norm(A3, dim=(0, 2)),
        "solve_triangular_batch": lambda: la.solve_triangular(Ab, Y2, upper=False),
        "lstsq_wide": lambda: la.lstsq(W.mT, v[:3]).solution,
        "pinv_rank_deficient": lambda: la.pinv(sing),
        "matrix_rank_batch": lambda: la.matrix_rank(torch.stack([A, sing])),
        "lu_wide": lambda: la.lu(W.mT), "lu_tall": lambda: la.lu_factor(W),
        "slogdet_singular": lambda: la.slogdet(sing), "slogdet_neg": lambda: la.slogdet(-A),
        "addr_beta0": lambda: torch.addr(torch.full((3, 3), nan, dtype=torch.float64), v[:3], v[:3], beta=0),
        "baddbmm_broadcast": lambda: torch.baddbmm(v[:4], Ab, Ab),
        "vdot_int": lambda: torch.vdot(ints[0], ints[1]),
        "std_mean": lambda: torch.std_mean(x), "std_mean_dim": lambda: torch.std_mean(x, 1, keepdim=True),
        "var_mean": lambda: torch.var_mean(x, (0, 1), correction=0), "var_mean_unbiased": lambda: torch.var_mean(x, 0, False),
        "msort": lambda: torch.msort(x), "msort_method": lambda: x.msort(),
        "vander": lambda: torch.vander(v[:4]), "vander_int": lambda: torch.vander(ints[0], 3, increasing=True),
        "geqrf": lambda: torch.geqrf(W), "geqrf_batch": lambda: A3.geqrf(),
        "householder_product": lambda: la.householder_product(*torch.geqrf(W)),
        "orgqr": lambda: torch.orgqr(*torch.geqrf(A3.mT)),
        "ormqr": lambda: torch.ormqr(*torch.geqrf(W), R1), "ormqr_right_t": lambda: torch.geqrf(W).a.ormqr(torch.geqrf(W).tau, W.mT, left=False,
                                                                                                   transpose=True),
        "frobenius_norm": lambda: torch.frobenius_norm(x, (0, 1)), "nuclear_norm": lambda: torch.nuclear_norm(W),
        "nuclear_norm_dim": lambda: torch.nuclear_norm(A3, (0, 2), keepdim=True),
        **{f"removed_{n}": (lambda n=n: getattr(torch, n)(A, A) if n in ("lstsq", "solve") else getattr(torch, n)(A))
           for n in ("cholesky", "qr", "lstsq", "solve", "eig", "symeig", "matrix_rank")},
        **{f"removed_method_{n}": (lambda n=n: getattr(A, n)(A) if n in ("lstsq", "solve") else getattr(A, n)())
           for n in ("cholesky", "qr", "lstsq", "solve", "eig", "symeig")},
        "removed_qr_some_false": lambda: torch.qr(A, some=False),
        "lu_factor_ex": lambda: la.lu_factor_ex(A), "lu_factor_ex_singular": lambda: la.lu_factor_ex(torch.stack([A, sing])),
        "lu_factor_ex_check": lambda: la.lu_factor_ex(sing, check_errors=True),
        "matrix_sqrth": lambda: la.matrix_sqrth(S), "matrix_sqrth_batch": lambda: la.matrix_sqrth(Ab @ Ab.mT),
        "polar": lambda: la.polar(W), "polar_wide": lambda: la.polar(W.mT),
        "tensorinv": lambda: la.tensorinv(Ab.reshape(2, 4, 2, 4), ind=2),
        "tensorinv_bad": lambda: la.tensorinv(A3, ind=1),
        "tensorsolve": lambda: la.tensorsolve(Ab.reshape(4, 2, 2, 4), Y2),
        "tensorsolve_dims": lambda: la.tensorsolve(Ab.reshape(2, 4, 2, 4), Y2.mT, dims=(0,)),
        "svd_lowrank": lambda: (lambda r: (_signed(r[0]), r[1], _signed(r[2])))(torch.svd_lowrank(low, q=3)),
        "svd_lowrank_wide": lambda: torch.svd_lowrank(low.mT, q=3, niter=1)[1],
        "pca_lowrank": lambda: (lambda r: (_signed(r[0]), r[1], _signed(r[2])))(torch.pca_lowrank(low, q=3)),
        "pca_lowrank_bad_q": lambda: torch.pca_lowrank(low, q=9),
        "linalg_vander": lambda: la.vander(x[:2, :3], N=4), "linalg_vander_default": lambda: la.vander(ints[0]),
    }
