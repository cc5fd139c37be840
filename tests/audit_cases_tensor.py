"""Audit cases, Tensor and torch functions issue 22 added: in-place forms, views and their copies,
splits, scatters and index updates, reductions and scans, products with a bias (see audit_common)."""
from audit_common import Case, values

C = Case


def _idx(T, values):
    return T.tensor(values)


# torch.X_(t) in place on a copy (the leaf itself cannot change in place), with the input's domain
TORCH_INPLACE = [
    ("abs_", "real"), ("acos_", "unit"), ("arccos_", "unit"), ("asin_", "unit"), ("arcsin_", "unit"),
    ("atan_", "real"), ("arctan_", "real"), ("atanh_", "unit"), ("arctanh_", "unit"), ("asinh_", "real"),
    ("arcsinh_", "real"), ("ceil_", "real"), ("cos_", "real"), ("cosh_", "real"), ("deg2rad_", "real"),
    ("rad2deg_", "real"), ("erf_", "real"), ("erfc_", "real"), ("exp2_", "real"), ("exp_", "real"),
    ("expm1_", "real"), ("fix_", "real"), ("floor_", "real"), ("frac_", "real"), ("i0_", "real"),
    ("log10_", "pos"), ("log1p_", "pos"), ("log2_", "pos"), ("log_", "pos"), ("neg_", "real"),
    ("negative_", "real"), ("reciprocal_", "pos"), ("round_", "real"), ("rsqrt_", "pos"), ("sigmoid_", "real"),
    ("sin_", "real"), ("sinc_", "real"), ("sinh_", "real"), ("sqrt_", "pos"), ("square_", "real"),
    ("tan_", "unit"), ("tanh_", "real"), ("trunc_", "real"), ("conj_physical_", "real"),
]

# Tensor.X_() in place on a copy
METHOD_INPLACE = [
    ("absolute_", "real"), ("arccos_", "unit"), ("arcsin_", "unit"), ("arctan_", "real"), ("deg2rad_", "real"),
    ("rad2deg_", "real"), ("digamma_", "pos"), ("erfc_", "real"), ("erfinv_", "unit"), ("i0_", "real"),
    ("lgamma_", "pos"), ("sgn_", "real"), ("sinc_", "real"), ("conj_physical_", "real"),
]


def _torch_inplace(name):
    return lambda T, x: getattr(T, name)(x.clone())


def _method_inplace(name):
    return lambda T, x: getattr(x.clone(), name)()


def cases():
    out = []
    for name, domain in TORCH_INPLACE:
        out.append(C(f"torch.{name}", _torch_inplace(name), [(3, 4)], domain, gg=name not in ("sinc_",)))
    for name, domain in METHOD_INPLACE:
        out.append(C(f"Tensor.{name}", _method_inplace(name), [(3, 4)], domain))
    out += [
        C("torch.acosh_", lambda T, x: T.acosh_(x.clone() + 1.0), [(3, 4)], "pos", gg=True),
        C("torch.arccosh_", lambda T, x: T.arccosh_(x.clone() + 1.0), [(3, 4)], "pos"),
        C("torch.clamp_", lambda T, x: T.clamp_(x.clone(), -1.1, 0.9), [(3, 4)]),
        C("torch.clip_", lambda T, x: T.clip_(x.clone(), min=-0.7), [(3, 4)]),
        C("torch.clamp_max_", lambda T, x: T.clamp_max_(x.clone(), 0.3), [(3, 4)]),
        C("torch.clamp_min_", lambda T, x: T.clamp_min_(x.clone(), -0.3), [(3, 4)]),
        C("Tensor.clamp_max_", lambda T, x: x.clone().clamp_max_(0.3), [(3, 4)]),
        C("Tensor.clamp_min_", lambda T, x: x.clone().clamp_min_(-0.3), [(3, 4)]),
        C("Tensor.clip_", lambda T, x, lo: x.clone().clip_(lo, None), [(3, 4), (4,)]),
        C("torch.ldexp_", lambda T, x: T.ldexp_(x.clone(), _idx(T, [1, -2, 0, 3])), [(3, 4)]),
        C("Tensor.ldexp_", lambda T, x: x.clone().ldexp_(_idx(T, [[2], [0], [-1]])), [(3, 4)]),
        C("torch.logit_", lambda T, x: T.logit_(x.clone() * 0.5 + 0.5), [(3, 4)], "unit", gg=True),
        C("Tensor.logit_", lambda T, x: (x.clone() * 0.5 + 0.5).logit_(0.1), [(3, 4)], "unit"),
        C("torch.xlogy_", lambda T, x, y: T.xlogy_(x.clone(), y), [(3, 4), (4,)], ("real", "pos"), gg=True),
        C("Tensor.mvlgamma_", lambda T, x: (x.clone() + 1.0).mvlgamma_(2), [(3, 4)], "pos"),
        # PyTorch's trigamma is a short series good to ~1e-9 (rstorch's is exact to rounding)
        C("Tensor.polygamma_", lambda T, x: x.clone().polygamma_(1), [(3, 4)], "pos", rtol=1e-8),
        C("Tensor.heaviside_", lambda T, x: x.detach().clone().heaviside_(T.tensor(0.5, dtype=T.float64)),
          [(3, 4)], grad=False),
        C("Tensor.nextafter_", lambda T, x: x.detach().clone().nextafter_(T.zeros(4, dtype=T.float64)),
          [(3, 4)], grad=False),
        C("Tensor.renorm_", lambda T, x: x.clone().renorm_(2, 0, 1.5), [(3, 4)]),
        C("Tensor.cumsum_", lambda T, x: x.clone().cumsum_(1), [(3, 4)]),
        C("Tensor.cumprod_", lambda T, x: x.clone().cumprod_(0), [(3, 4)], gg=True),
        C("Tensor.subtract_", lambda T, x, y: x.clone().subtract_(y, alpha=2), [(3, 4), (4,)]),
        C("Tensor.divide_", lambda T, x, y: x.clone().divide_(y, rounding_mode=None), [(3, 4), (3, 1)],
          ("real", "pos"), gg=True),
        C("Tensor.fill_diagonal_", lambda T, x: x.clone().fill_diagonal_(0.5, wrap=True), [(5, 2)]),
        C("Tensor.squeeze_", lambda T, x: x.clone().squeeze_(1) * 2, [(3, 1, 4)]),
        C("Tensor.unsqueeze_", lambda T, x: x.clone().unsqueeze_(-1) * 2, [(3, 4)]),
        C("Tensor.t_", lambda T, x: x.clone().t_() * 2, [(3, 4)]),
        C("Tensor.transpose_", lambda T, x: x.clone().transpose_(0, 2) * 2, [(2, 3, 4)]),
        C("Tensor.swapaxes_", lambda T, x: x.clone().swapaxes_(0, 1) * 2, [(3, 4)]),
        C("Tensor.swapdims_", lambda T, x: x.clone().swapdims_(1, 0) * 2, [(3, 4)]),
        C("Tensor.as_strided_", lambda T, x: x.clone().as_strided_((2, 2), (1, 3), 1) * 2, [(3, 4)], nc=False),
        C("torch.as_strided_", lambda T, x: T.as_strided_(x.clone(), (3,), (5,)) * 2, [(3, 4)], nc=False),
        # products with a bias, in place and not, with broadcast biases
        C("torch.addmv", lambda T, b, m, v: T.addmv(b, m, v, beta=0.5, alpha=2), [(3,), (3, 4), (4,)], gg=True),
        C("torch.addmv-bcast", lambda T, b, m, v: T.addmv(b, m, v), [(1,), (3, 4), (4,)]),
        C("Tensor.addmv", lambda T, b, m, v: b.addmv(m, v, alpha=-1), [(3,), (3, 4), (4,)]),
        C("Tensor.addmv_", lambda T, b, m, v: b.clone().addmv_(m, v, beta=2), [(3,), (3, 4), (4,)]),
        C("torch.addr", lambda T, b, u, v: T.addr(b, u, v, beta=0.5, alpha=2), [(3, 4), (3,), (4,)], gg=True),
        C("torch.addr-bcast", lambda T, b, u, v: T.addr(b, u, v), [(1, 4), (3,), (4,)]),
        C("Tensor.addr", lambda T, b, u, v: b.addr(u, v), [(3, 4), (3,), (4,)]),
        C("Tensor.addr_", lambda T, b, u, v: b.clone().addr_(u, v, alpha=3), [(3, 4), (3,), (4,)]),
        C("torch.baddbmm", lambda T, b, x, y: T.baddbmm(b, x, y, beta=0.5, alpha=2), [(2, 3, 5), (2, 3, 4), (2, 4, 5)],
          gg=True),
        C("torch.baddbmm-bcast", lambda T, b, x, y: T.baddbmm(b, x, y), [(3, 5), (2, 3, 4), (2, 4, 5)]),
        C("Tensor.baddbmm", lambda T, b, x, y: b.baddbmm(x, y), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
        C("Tensor.baddbmm_", lambda T, b, x, y: b.clone().baddbmm_(x, y, alpha=0.5), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
        C("Tensor.addbmm_", lambda T, b, x, y: b.clone().addbmm_(x, y, beta=2), [(3, 5), (2, 3, 4), (2, 4, 5)]),
        C("Tensor.addmm_", lambda T, b, x, y: b.clone().addmm_(x, y, beta=0.5, alpha=2), [(3, 5), (3, 4), (4, 5)]),
        C("torch.ger", lambda T, u, v: T.ger(u, v), [(3,), (4,)], gg=True),
        C("Tensor.ger", lambda T, u, v: u.ger(v), [(3,), (4,)]),
        C("torch.vdot", lambda T, u, v: T.vdot(u, v), [(5,), (5,)], gg=True),
        C("Tensor.vdot", lambda T, u, v: u.vdot(v), [(5,), (5,)]),
        C("torch.dist", lambda T, u, v: T.dist(u, v, 3), [(3, 4), (4,)], gg=True),
        C("Tensor.dist", lambda T, u, v: u.dist(v), [(3, 4), (3, 4)]),
        C("torch.chain_matmul", lambda T, a, b, c: T.chain_matmul(a, b, c), [(2, 3), (3, 4), (4, 2)]),
        C("torch.rsub", lambda T, x, y: T.rsub(x, y, alpha=2), [(3, 4), (4,)], gg=True),
        C("torch.tensordot", lambda T, a, b: T.tensordot(a, b, dims=([1, 2], [0, 1])), [(2, 3, 4), (3, 4, 2)]),
        C("torch.block_diag", lambda T, a, b: T.block_diag(a, b), [(2, 3), (1, 2)]),
        C("torch.cartesian_prod", lambda T, a, b: T.cartesian_prod(a, b), [(3,), (2,)]),
        # conjugation, real/imag views and signs on real tensors
        C("torch.adjoint", lambda T, x: T.adjoint(x) * 2, [(3, 4)]),
        C("Tensor.adjoint", lambda T, x: x.adjoint() * 2, [(2, 3, 4)]),
        C("torch.conj", lambda T, x: T.conj(x) * 2, [(3, 4)]),
        C("Tensor.conj", lambda T, x: x.conj() * 2, [(3, 4)]),
        C("torch.conj_physical", lambda T, x: T.conj_physical(x), [(3, 4)]),
        C("Tensor.conj_physical", lambda T, x: x.conj_physical(), [(3, 4)]),
        C("torch.resolve_conj", lambda T, x: T.resolve_conj(x) * 2, [(3, 4)]),
        C("Tensor.resolve_neg", lambda T, x: x.resolve_neg() * 2, [(3, 4)]),
        C("torch.resolve_neg", lambda T, x: T.resolve_neg(x) * 2, [(3, 4)]),
        C("Tensor.resolve_conj", lambda T, x: x.resolve_conj() * 2, [(3, 4)]),
        C("torch.real", lambda T, x: T.real(x) * 2, [(3, 4)]),
        C("torch.imag", lambda T, x: T.imag(x), [(3, 4)]),
        C("torch.angle", lambda T, x: T.angle(x), [(3, 4)]),
        C("Tensor.angle", lambda T, x: x.angle(), [(3, 4)]),
        C("torch.sgn", lambda T, x: T.sgn(x), [(3, 4)]),
        C("Tensor.sgn", lambda T, x: x.sgn(), [(3, 4)]),
        C("Tensor.heaviside", lambda T, x, v: x.heaviside(v), [(3, 4), (4,)], grad=False),
        # reductions and scans
        C("torch.aminmax", lambda T, x: T.aminmax(x, dim=1), [(3, 4)], "spread"),
        C("Tensor.aminmax", lambda T, x: x.aminmax(), [(3, 4)], "spread"),
        C("torch.cummin", lambda T, x: T.cummin(x, 1), [(3, 4)], "spread"),
        C("Tensor.cummin", lambda T, x: x.cummin(0), [(3, 4)], "spread"),
        C("torch.diff", lambda T, x, p: T.diff(x, n=2, dim=1, prepend=p), [(3, 4), (3, 2)], gg=True),
        C("Tensor.diff", lambda T, x, a: x.diff(dim=0, append=a), [(3, 4), (1, 4)]),
        C("torch.msort", lambda T, x: T.msort(x), [(4, 3)], "spread"),
        C("Tensor.msort", lambda T, x: x.msort(), [(4, 3)], "spread"),
        C("torch.nanquantile", lambda T, x: T.nanquantile(x, 0.3, dim=1, keepdim=True), [(3, 4)], "spread"),
        C("Tensor.nanquantile", lambda T, x: x.nanquantile(T.tensor([0.25, 0.5], dtype=T.float64),
                                                           interpolation="midpoint"), [(3, 4)], "spread"),
        C("torch.nansum", lambda T, x: T.nansum(x, dim=0), [(3, 4)], gg=True),
        C("Tensor.nansum", lambda T, x: x.nansum(), [(3, 4)]),
        C("torch.std_mean", lambda T, x: T.std_mean(x, dim=1, correction=0), [(3, 4)], gg=True),
        C("torch.var_mean", lambda T, x: T.var_mean(x, 0, keepdim=True), [(3, 4)], gg=True),
        C("torch.trapz", lambda T, y, x: T.trapz(y, x), [(3, 4), (4,)], ("real", "spread")),
        C("torch.trapz-dx", lambda T, y: T.trapz(y, dx=0.5, dim=0), [(3, 4)]),
        C("torch.cumulative_trapezoid", lambda T, y: T.cumulative_trapezoid(y, dx=2.0), [(3, 4)]),
        C("torch.frobenius_norm", lambda T, x: T.frobenius_norm(x, dim=(0, 1)), [(3, 4)], gg=True),
        C("torch.nuclear_norm", lambda T, x: T.nuclear_norm(x), [(3, 4)]),
        C("Tensor.sum_to_size", lambda T, x: x.sum_to_size(1, 4), [(3, 4)]),
        C("Tensor.renorm", lambda T, x: x.renorm(1, 1, 1.0), [(3, 4)], gg=True),
        # shape functions: splits, flips, moves, copies
        C("torch.broadcast_tensors", lambda T, a, b: T.broadcast_tensors(a, b), [(3, 1), (4,)]),
        C("torch.meshgrid", lambda T, a, b: T.meshgrid(a, b, indexing="ij"), [(3,), (2,)]),
        C("torch.meshgrid-xy", lambda T, a, b: T.meshgrid(a, b, indexing="xy"), [(3,), (2,)]),
        C("torch.combinations", lambda T, x: T.combinations(x, r=2), [(4,)]),
        C("torch.combinations-r", lambda T, x: T.combinations(x, 3, with_replacement=True), [(3,)]),
        C("torch.fliplr", lambda T, x: T.fliplr(x) * 2, [(3, 4)]),
        C("torch.flipud", lambda T, x: T.flipud(x) * 2, [(3, 4)]),
        C("Tensor.fliplr", lambda T, x: x.fliplr() * 2, [(3, 4)]),
        C("Tensor.flipud", lambda T, x: x.flipud() * 2, [(3, 4)]),
        C("torch.rot90", lambda T, x: T.rot90(x, 1, [0, 1]) * 2, [(3, 4)]),
        C("Tensor.rot90", lambda T, x: x.rot90(-3, [1, 2]) * 2, [(2, 3, 4)]),
        C("torch.moveaxis", lambda T, x: T.moveaxis(x, 0, -1) * 2, [(2, 3, 4)]),
        C("Tensor.moveaxis", lambda T, x: x.moveaxis((0, 1), (2, 0)) * 2, [(2, 3, 4)]),
        C("torch.swapdims", lambda T, x: T.swapdims(x, 0, 1) * 2, [(3, 4)]),
        C("Tensor.swapdims", lambda T, x: x.swapdims(2, 0) * 2, [(2, 3, 4)]),
        C("torch.narrow_copy", lambda T, x: T.narrow_copy(x, 1, 1, 2), [(3, 4)]),
        C("Tensor.narrow_copy", lambda T, x: x.narrow_copy(0, 1, 2), [(3, 4)]),
        C("torch.tensor_split", lambda T, x: T.tensor_split(x, 3, dim=1), [(3, 4)]),
        C("Tensor.tensor_split", lambda T, x: x.tensor_split([1, 3]), [(4, 3)]),
        C("torch.hsplit", lambda T, x: T.hsplit(x, 2), [(3, 4)]),
        C("Tensor.hsplit", lambda T, x: x.hsplit([1]), [(3, 4)]),
        C("torch.vsplit", lambda T, x: T.vsplit(x, [1, 2]), [(3, 4)]),
        C("Tensor.vsplit", lambda T, x: x.vsplit(2), [(4, 3)]),
        C("torch.dsplit", lambda T, x: T.dsplit(x, 2), [(2, 3, 4)]),
        C("Tensor.dsplit", lambda T, x: x.dsplit([3]), [(2, 3, 4)]),
        C("torch.split_with_sizes", lambda T, x: T.split_with_sizes(x, [1, 3], dim=1), [(3, 4)]),
        C("Tensor.split_with_sizes", lambda T, x: x.split_with_sizes([2, 1]), [(3, 4)]),
        C("torch.unsafe_chunk", lambda T, x: T.unsafe_chunk(x, 2, 1), [(3, 4)]),
        C("Tensor.unsafe_chunk", lambda T, x: x.unsafe_chunk(3), [(3, 4)]),
        C("torch.unsafe_split", lambda T, x: T.unsafe_split(x, 2, 1), [(3, 4)]),
        C("Tensor.unsafe_split", lambda T, x: x.unsafe_split(1), [(3, 4)]),
        C("torch.unsafe_split_with_sizes", lambda T, x: T.unsafe_split_with_sizes(x, [3, 1], 1), [(3, 4)]),
        C("Tensor.unsafe_split_with_sizes", lambda T, x: x.unsafe_split_with_sizes([1, 2]), [(3, 4)]),
        C("torch.split_copy", lambda T, x: T.split_copy(x, 3, 1), [(3, 4)]),
        C("torch.split_with_sizes_copy", lambda T, x: T.split_with_sizes_copy(x, [2, 2], 1), [(3, 4)]),
        C("torch.unbind_copy", lambda T, x: T.unbind_copy(x, 1), [(3, 4)]),
        C("torch.as_strided_copy", lambda T, x: T.as_strided_copy(x, (2, 2), (1, 2), 1), [(3, 4)], nc=False),
        C("torch.detach_copy", lambda T, x: T.detach_copy(x), [(3, 4)], grad=False),
        C("torch.diagonal_copy", lambda T, x: T.diagonal_copy(x, 1), [(3, 4)]),
        C("torch.expand_copy", lambda T, x: T.expand_copy(x, (2, 3, 4)), [(3, 1)]),
        C("torch.permute_copy", lambda T, x: T.permute_copy(x, (2, 0, 1)), [(2, 3, 4)]),
        C("torch.select_copy", lambda T, x: T.select_copy(x, 1, -1), [(3, 4)]),
        C("torch.squeeze_copy", lambda T, x: T.squeeze_copy(x, 1), [(3, 1, 4)]),
        C("torch.t_copy", lambda T, x: T.t_copy(x), [(3, 4)]),
        C("torch.transpose_copy", lambda T, x: T.transpose_copy(x, 0, 2), [(2, 3, 4)]),
        C("torch.unfold_copy", lambda T, x: T.unfold_copy(x, 1, 2, 1), [(3, 4)]),
        C("torch.unsqueeze_copy", lambda T, x: T.unsqueeze_copy(x, 1), [(3, 4)]),
        C("torch.view_copy", lambda T, x: T.view_copy(x, (4, 3)), [(3, 4)], nc=False),
        C("torch.repeat_interleave", lambda T, x: T.repeat_interleave(x, 2, dim=0), [(3, 4)]),
        C("Tensor.repeat_interleave", lambda T, x: x.repeat_interleave(_idx(T, [1, 0, 2, 1]), dim=1), [(3, 4)]),
        C("torch.vander", lambda T, x: T.vander(x, N=3, increasing=True), [(4,)], gg=True),
        C("torch.unravel_index", lambda T: T.unravel_index(_idx(T, [0, 5, 11]), (3, 4)), [], grad=False),
        C("torch.broadcast_shapes", lambda T: tuple(T.broadcast_shapes((3, 1), (4,), (1, 1))), [], grad=False),
        # scatters, index updates and gathers
        C("torch.take_along_dim", lambda T, x: T.take_along_dim(x, _idx(T, [[0, 3], [2, 2], [1, 0]]), dim=1), [(3, 4)]),
        C("Tensor.take_along_dim", lambda T, x: x.take_along_dim(_idx(T, [[1], [0], [2]])), [(3, 4)]),
        C("torch.diagflat", lambda T, x: T.diagflat(x, -1), [(3,)]),
        C("Tensor.diagflat", lambda T, x: x.diagflat(), [(2, 2)]),
        C("torch.as_strided_scatter", lambda T, x, s: T.as_strided_scatter(x, s, (2, 2), (1, 2)), [(3, 4), (2, 2)],
          nc=False, grad_parity=False),  # PyTorch's gradient for `input` fails its own gradcheck
        C("Tensor.as_strided_scatter", lambda T, x, s: x.as_strided_scatter(s, (3,), (4,), 1), [(3, 4), (3,)],
          nc=False, grad_parity=False),
        C("torch.diagonal_scatter", lambda T, x, s: T.diagonal_scatter(x, s, 1), [(3, 4), (3,)]),
        C("Tensor.diagonal_scatter", lambda T, x, s: x.diagonal_scatter(s), [(3, 4), (3,)]),
        C("torch.select_scatter", lambda T, x, s: T.select_scatter(x, s, 0, 1), [(3, 4), (4,)]),
        C("Tensor.select_scatter", lambda T, x, s: x.select_scatter(s, 1, -1), [(3, 4), (3,)]),
        C("torch.index_put", lambda T, x, v: T.index_put(x, (_idx(T, [0, 2, 0]),), v, accumulate=True),
          [(3, 4), (3, 4)]),
        C("torch.index_put-bcast", lambda T, x, v: T.index_put(x, (_idx(T, [1, 0]), _idx(T, [3, 1])), v), [(3, 4), (1,)]),
        C("torch.index_put_", lambda T, x, v: T.index_put_(x.clone(), (_idx(T, [2, 1]),), v), [(3, 4), (4,)]),
        C("torch.index_reduce", lambda T, x, s: T.index_reduce(x, 0, _idx(T, [0, 2, 0]), s, "prod"),
          [(3, 4), (3, 4)], "pos"),
        C("Tensor.index_reduce", lambda T, x, s: x.index_reduce(1, _idx(T, [1, 1, 3]), s, "mean", include_self=False),
          [(3, 4), (3, 3)]),
        C("Tensor.index_reduce_", lambda T, x, s: x.clone().index_reduce_(0, _idx(T, [2, 0]), s, "amax"),
          [(3, 4), (2, 4)], "spread"),
        C("Tensor.index_copy_", lambda T, x, s: x.clone().index_copy_(1, _idx(T, [3, 0]), s), [(3, 4), (3, 2)]),
        C("Tensor.index_fill_", lambda T, x: x.clone().index_fill_(0, _idx(T, [1]), -1.5), [(3, 4)]),
        C("torch.masked_scatter", lambda T, x, s: T.masked_scatter(x, T.tensor([True, False, True, False]), s),
          [(3, 4), (3, 4)]),
        C("Tensor.masked_scatter", lambda T, x, s: x.masked_scatter(T.tensor([[True], [False], [True]]), s),
          [(3, 4), (9,)]),
        C("Tensor.masked_scatter_", lambda T, x, s: x.clone().masked_scatter_(x.detach() > 0, s), [(3, 4), (12,)]),
        C("torch.put", lambda T, x, s: T.put(x, _idx(T, [0, 5, 11]), s, accumulate=True), [(3, 4), (3,)]),
        C("Tensor.put", lambda T, x, s: x.put(_idx(T, [[1, 7]]), s), [(3, 4), (1, 2)]),
        C("Tensor.put_", lambda T, x, s: x.clone().put_(_idx(T, [2, 2]), s, accumulate=True), [(3, 4), (2,)]),
        C("Tensor.scatter_reduce_", lambda T, x, s: x.clone().scatter_reduce_(0, _idx(T, [[0, 1, 2, 0], [2, 2, 1, 0]]),
                                                                             s, "prod"), [(3, 4), (2, 4)], "pos"),
        # products with zeros among the factors (one zero: its derivative is the product of the
        # others; two: every derivative is 0): `at` moves the inputs onto the given values while
        # keeping their derivative 1
        C("torch.scatter_reduce-prod-zeros", lambda T, x, s: T.scatter_reduce(
            at(T, x, 0, [[0.0, 2.0], [1.5, 0.0], [3.0, -1.0]]), 0, _idx(T, [[0, 1], [0, 1], [2, 1]]),
            at(T, s, 1, [[2.0, 0.0], [0.0, 1.5], [-2.0, 0.5]]), "prod"), [(3, 2), (3, 2)], nc=False),
        C("torch.index_reduce-prod-zeros", lambda T, x, s: T.index_reduce(
            at(T, x, 0, [[0.0, 2.0], [1.5, -1.0]]), 0, _idx(T, [0, 0, 1]), at(T, s, 1, [[1.5, 0.0], [0.0, 2.0], [0.5, 0.0]]),
            "prod", include_self=False), [(2, 2), (3, 2)], nc=False),
    ]
    return [(c.name, c) for c in out]


def at(T, x, k, wanted):
    """Input number k (its values fixed by audit_common.values) shifted by a constant to `wanted`."""
    given = T.tensor(values(x.numel(), k, "real"), dtype=T.float64).reshape(x.shape)
    return x + (T.tensor(wanted, dtype=T.float64) - given)
