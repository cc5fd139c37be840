"""Which callables issue 22 added are gradchecked and parity-tested against recorded PyTorch values.

    PYTHONPATH=python python tools/op_test_audit.py [--all] [--ns NAMESPACE]

NEW lists the public callables rstorch gained since 532043b^ (the commit before issue 22's work),
per namespace: rstorch, Tensor, nn.functional, linalg, special, nn, nn.init, nn.utils. It was
made once by listing, in a checkout of 532043b^ and in main at 61401f7, every name of those
namespaces (rstorch's and PyTorch 2.15's `dir()`) whose rstorch value is a callable, not a module,
and keeping the names PyTorch 2.15 has in the same namespace (rstorch-only helpers such as
`linalg.check_matrix` are left out). Tensor methods that only the newer `_C` has (its `_C.pyi`
diff) count as new even though the old Python front sees them through the newer extension.

For each name the script reads the tests (tests/python/*.py and the tests/*.py modules they import)
with `ast` and answers two questions by name, not by namespace (`det` found anywhere counts for
`torch.det`, `Tensor.det` and `linalg.det`):

- gradcheck: does the name reach a `gradcheck`/`gradgradcheck` call? Starting from each such
  call's arguments it follows local variables, `pytest.mark.parametrize` values, module-level
  names, functions (and the calls of a helper whose parameter it is), names imported from the
  tests' own modules, and the fixture files those name (every identifier in their strings), and
  collects attribute names, names, and identifiers in string constants. So a name used only to
  build an input of a gradchecked lambda counts too: a name reported as gradchecked may still want
  a look; a name reported missing has no gradcheck anywhere.
- parity: does a test that replays a fixture recorded from PyTorch (a test function whose
  followed names reach a tests/fixtures/*.json or *.npz file) name it, or the fixture's strings
  (case ids, op names, expressions) name it?

Names where a gradcheck does not apply (NOT_DIFFERENTIABLE: predicates, factories, random
sampling, integer results, the functions PyTorch removed that only raise) are not counted as
gradcheck gaps; names with no values to compare (NO_VALUES: flags, context managers, classes
that hold state) are not counted as parity gaps either. It prints the gaps and their counts.
"""
import argparse
import ast
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

NEW = {
    "rstorch": """
    BFloat16Tensor BoolTensor ByteTensor CharTensor DoubleTensor FloatTensor HalfTensor IntTensor LongTensor
    ShortTensor abs_ acos_ acosh_ addbmm addmv addr adjoint aminmax angle arccos_ arccosh_ arcsin_ arcsinh_
    arctan_ arctanh_ are_deterministic_algorithms_enabled argwhere as_strided_ as_strided_copy
    as_strided_scatter asin_ asinh_ atan_ atanh_ autocast baddbmm bartlett_window bernoulli bincount
    bitwise_left_shift bitwise_right_shift blackman_window block_diag broadcast_shapes broadcast_tensors
    bucketize cartesian_prod cdist ceil_ chain_matmul cholesky cholesky_inverse cholesky_solve clamp_
    clamp_max_ clamp_min_ clip_ combinations compile conj conj_physical conj_physical_ corrcoef cos_ cosh_
    count_nonzero cov cross cummax cummin cumulative_trapezoid deg2rad_ det detach_ detach_copy diag_embed
    diagflat diagonal_copy diagonal_scatter diff dist dsplit eig empty_strided equal erf_ erfc_ exp2_ exp_
    expand_copy expm1_ fill fill_ finfo fix_ fliplr flipud floor_ frac_ frexp frobenius_norm gcd gcd_ geqrf
    ger get_autocast_dtype get_deterministic_debug_mode get_device get_num_interop_threads get_rng_state
    gradient hamming_window hann_window histc histogram histogramdd hsplit i0_ iinfo imag index_copy
    index_fill index_put index_put_ index_reduce inverse is_anomaly_check_nan_enabled is_anomaly_enabled
    is_autocast_enabled is_conj is_deterministic_algorithms_warn_only_enabled is_inference is_neg is_nonzero
    is_same_size is_signed is_storage is_warn_always_enabled isin isreal kaiser_window kron lcm lcm_ ldexp
    ldexp_ log10_ log1p_ log2_ log_ logcumsumexp logdet logit logit_ logspace lstsq lu lu_solve lu_unpack
    masked_scatter matrix_exp matrix_power matrix_rank meshgrid mode moveaxis msort multinomial mvlgamma
    nanmean nanmedian nanquantile nansum narrow_copy neg_ negative_ nextafter nonzero_static normal
    nuclear_norm orgqr ormqr pca_lowrank pdist permute_copy pinverse poisson polygamma positive put qr
    quantile rad2deg_ range real reciprocal_ relu_ renorm repeat_interleave resolve_conj resolve_neg rot90
    round_ rsqrt_ rsub scalar_tensor scatter_reduce searchsorted select_copy select_scatter
    set_anomaly_enabled set_deterministic_debug_mode set_num_interop_threads set_rng_state set_warn_always sgn
    sigmoid_ signbit sin_ sinc_ sinh_ slice_scatter slogdet solve split_copy split_with_sizes
    split_with_sizes_copy sqrt_ square_ squeeze_copy std_mean svd svd_lowrank swapdims symeig t_copy
    take_along_dim tan_ tanh_ tensor_split tensordot transpose_copy trapezoid trapz triangular_solve
    tril_indices triu_indices trunc_ typename unbind_copy unfold_copy unique unique_consecutive unravel_index
    unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze_copy use_deterministic_algorithms vander
    var_mean vdot view_copy vsplit xlogy_ zero_
    """,
    "Tensor": """
    absolute_ addbmm addbmm_ addmm_ addmv addmv_ addr addr_ adjoint aminmax angle apply_ arccos_ arcsin_
    arctan_ argwhere as_strided_ as_strided_scatter as_subclass baddbmm baddbmm_ bernoulli bernoulli_ bincount
    bitwise_left_shift bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ cauchy_ cholesky
    cholesky_inverse cholesky_solve clamp_max_ clamp_min_ clip_ conj conj_physical conj_physical_ corrcoef
    count_nonzero cov cross cuda cummax cummin cumprod_ cumsum_ deg2rad deg2rad_ det diag_embed diagflat
    diagonal_scatter diff digamma digamma_ dist divide_ dsplit eig equal erfc erfc_ erfinv erfinv_
    exponential_ fill_diagonal_ fliplr flipud fmax fmin frexp gcd gcd_ geometric_ geqrf ger get_device
    heaviside heaviside_ histc histogram hsplit i0 i0_ index_copy index_copy_ index_fill index_fill_
    index_reduce index_reduce_ inverse is_coalesced is_conj is_neg is_nonzero is_pinned is_same_size is_set_to
    is_shared is_signed isreal kron lcm lcm_ ldexp ldexp_ lgamma lgamma_ log_normal_ logcumsumexp logdet logit
    logit_ lstsq lu lu_solve map_ masked_scatter masked_scatter_ matrix_exp matrix_power mode moveaxis msort
    multinomial mvlgamma mvlgamma_ nanmean nanmedian nanquantile nansum narrow_copy new new_empty_strided
    nextafter nextafter_ nonzero_static orgqr ormqr pin_memory pinverse polygamma polygamma_ positive put put_
    qr quantile rad2deg rad2deg_ random_ renorm renorm_ repeat_interleave resize_ resize_as_ resolve_conj
    resolve_neg rot90 scatter_reduce scatter_reduce_ select_scatter sgn sgn_ share_memory_ signbit sinc sinc_
    slice_scatter slogdet solve split_with_sizes squeeze_ subtract_ sum_to_size svd swapaxes_ swapdims
    swapdims_ symeig t_ take_along_dim tensor_split transpose_ triangular_solve unique unique_consecutive
    unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze_ vdot vsplit
    """,
    "rstorch.nn.functional": """
    adaptive_avg_pool3d adaptive_max_pool3d adaptive_max_pool3d_with_indices affine_grid alpha_dropout
    assert_int_or_pair avg_pool3d boolean_dispatch celu_ channel_shuffle conv3d conv_tbc conv_transpose3d
    cosine_embedding_loss ctc_loss elu_ embedding_bag feature_alpha_dropout fold fractional_max_pool2d
    fractional_max_pool2d_with_indices fractional_max_pool3d fractional_max_pool3d_with_indices
    gaussian_nll_loss grid_sample gumbel_softmax handle_torch_function hardshrink hardtanh_ has_torch_function
    has_torch_function_unary has_torch_function_variadic hinge_embedding_loss instance_norm leaky_relu_
    linear_cross_entropy local_response_norm lp_pool1d lp_pool2d lp_pool3d margin_ranking_loss
    max_pool1d_with_indices max_pool3d max_pool3d_with_indices max_unpool1d max_unpool2d max_unpool3d
    multi_margin_loss multilabel_margin_loss multilabel_soft_margin_loss native_channel_shuffle pdist
    pixel_shuffle pixel_unshuffle poisson_nll_loss relu_ rms_norm rrelu rrelu_ selu_ soft_margin_loss
    softshrink threshold_ triplet_margin_loss triplet_margin_with_distance_loss unfold upsample_bilinear
    upsample_nearest
    """,
    "rstorch.linalg": """
    LinAlgError cholesky cholesky_ex cond cross det diagonal eigh eigvalsh householder_product inv inv_ex
    lstsq lu lu_factor lu_factor_ex lu_solve matmul matrix_exp matrix_norm matrix_power matrix_rank
    matrix_sqrth multi_dot norm pinv polar qr slogdet solve solve_ex solve_triangular svd svdvals tensorinv
    tensorsolve vander vecdot vector_norm
    """,
    "rstorch.special": """
    Tensor digamma entr erf erfc erfinv exp2 expit expm1 gammaln i0 log1p log_softmax logit logsumexp
    multigammaln ndtr polygamma psi round sinc softmax xlogy
    """,
    "rstorch.nn": """
    AdaptiveAvgPool3d AdaptiveLogSoftmaxWithLoss AdaptiveMaxPool3d AlphaDropout AvgPool3d BatchNorm3d Buffer
    CELU CTCLoss ChannelShuffle CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d
    ConstantPad3d Container Conv3d ConvTranspose3d CosineEmbeddingLoss CosineSimilarity CrossMapLRN2d
    DataParallel EmbeddingBag FeatureAlphaDropout Fold FractionalMaxPool2d FractionalMaxPool3d GLU GRUCell
    GaussianNLLLoss Hardshrink Hardsigmoid Hardswish HingeEmbeddingLoss InstanceNorm1d InstanceNorm2d
    InstanceNorm3d LPPool1d LPPool2d LPPool3d LSTMCell LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d
    LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d
    LazyInstanceNorm1d LazyInstanceNorm2d LazyInstanceNorm3d LazyLinear LinearCrossEntropyLoss
    LinearCrossEntropyOptions LocalResponseNorm LogSigmoid MarginRankingLoss MaxPool3d MaxUnpool1d MaxUnpool2d
    MaxUnpool3d Mish MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss2d PReLU
    PairwiseDistance PixelShuffle PixelUnshuffle PoissonNLLLoss RMSNorm RNNCell RNNCellBase RReLU
    ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d SELU
    SoftMarginLoss Softmax2d Softmin Softshrink Softsign SyncBatchNorm Tanhshrink Threshold Transformer
    TransformerDecoder TransformerDecoderLayer TripletMarginLoss TripletMarginWithDistanceLoss Unfold
    UninitializedBuffer UninitializedParameter Upsample UpsamplingBilinear2d UpsamplingNearest2d ZeroPad1d
    ZeroPad2d ZeroPad3d factory_kwargs
    """,
    "rstorch.nn.init": """
    dirac eye
    """,
    "rstorch.nn.utils": """
    clip_grad_norm clip_grad_norm_ clip_grad_value_ clip_grads_with_norm_ convert_conv2d_weight_memory_format
    convert_conv3d_weight_memory_format fuse_conv_bn_eval fuse_conv_bn_weights fuse_linear_bn_eval
    fuse_linear_bn_weights get_total_norm parameters_to_vector remove_spectral_norm remove_weight_norm
    skip_init spectral_norm vector_to_parameters weight_norm
    """,
}

NOT_DIFFERENTIABLE = set("""
    BFloat16Tensor BoolTensor ByteTensor CharTensor DoubleTensor FloatTensor HalfTensor IntTensor LongTensor
    ShortTensor are_deterministic_algorithms_enabled argwhere autocast bartlett_window bernoulli bernoulli_ bincount
    bitwise_left_shift bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ blackman_window
    broadcast_shapes bucketize cauchy_ compile count_nonzero cuda detach_ empty_strided equal exponential_ finfo
    frexp gcd gcd_ geometric_ geqrf get_autocast_dtype get_deterministic_debug_mode get_device
    get_num_interop_threads get_rng_state hamming_window hann_window histc histogram histogramdd iinfo
    is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_enabled is_coalesced is_conj
    is_deterministic_algorithms_warn_only_enabled is_inference is_neg is_nonzero is_pinned is_same_size is_set_to
    is_shared is_signed is_storage is_warn_always_enabled isin isreal kaiser_window lcm lcm_ log_normal_ logspace
    multinomial new new_empty_strided nextafter nextafter_ nonzero_static normal poisson random_ range
    scalar_tensor searchsorted set_anomaly_enabled set_deterministic_debug_mode set_num_interop_threads
    set_rng_state set_warn_always share_memory_ signbit tril_indices triu_indices typename unique
    unique_consecutive unravel_index use_deterministic_algorithms pin_memory resize_ resize_as_ apply_ map_
    as_subclass eig symeig lstsq solve matrix_rank cholesky qr pca_lowrank svd_lowrank matrix_rank
    alpha_dropout feature_alpha_dropout rrelu rrelu_ gumbel_softmax fractional_max_pool2d
    fractional_max_pool2d_with_indices fractional_max_pool3d fractional_max_pool3d_with_indices
    assert_int_or_pair boolean_dispatch handle_torch_function has_torch_function has_torch_function_unary
    has_torch_function_variadic native_channel_shuffle linear_cross_entropy
    LinAlgError AlphaDropout FeatureAlphaDropout FractionalMaxPool2d FractionalMaxPool3d RReLU Buffer Container
    DataParallel LinearCrossEntropyOptions LinearCrossEntropyLoss SyncBatchNorm UninitializedBuffer
    UninitializedParameter RNNCellBase factory_kwargs Tensor
    dirac eye clip_grad_norm clip_grad_norm_ clip_grad_value_ clip_grads_with_norm_
    convert_conv2d_weight_memory_format convert_conv3d_weight_memory_format fuse_conv_bn_eval
    fuse_conv_bn_weights fuse_linear_bn_eval fuse_linear_bn_weights get_total_norm remove_spectral_norm
    remove_weight_norm skip_init vector_to_parameters
""".split())

NO_VALUES = set("""
    are_deterministic_algorithms_enabled autocast compile get_autocast_dtype get_deterministic_debug_mode
    get_num_interop_threads is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_enabled
    is_deterministic_algorithms_warn_only_enabled is_warn_always_enabled set_anomaly_enabled
    set_deterministic_debug_mode set_num_interop_threads set_warn_always use_deterministic_algorithms
    is_storage is_pinned is_shared is_set_to is_coalesced share_memory_ pin_memory cuda apply_ map_ as_subclass
    assert_int_or_pair boolean_dispatch handle_torch_function has_torch_function has_torch_function_unary
    has_torch_function_variadic Buffer Container DataParallel SyncBatchNorm UninitializedBuffer
    UninitializedParameter RNNCellBase factory_kwargs LinearCrossEntropyOptions Tensor
    skip_init convert_conv2d_weight_memory_format convert_conv3d_weight_memory_format
    get_rng_state set_rng_state LinAlgError
""".split()) | {
    # random draws: their values follow the generator, which is rstorch's own (PyTorch's draws
    # are not reproduced), so there is nothing of PyTorch's to compare them with
    "multinomial", "gumbel_softmax", "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FIXTURE = re.compile(r"[\w./-]*\.(?:json|npz)$")
GRADCHECKS = {"gradcheck", "gradgradcheck"}


class Module:
    """One test file or test helper module: its top-level definitions and local imports."""

    def __init__(self, path):
        self.path = path
        self.tree = ast.parse(path.read_text())
        self.defs, self.assigns, self.imports, self.modules = {}, {}, {}, {}
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self.assigns.setdefault(name.id, []).append(node.value)
            elif isinstance(node, ast.ImportFrom) and node.module and local_module(node.module):
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (local_module(node.module), alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if local_module(alias.name):
                        self.modules[alias.asname or alias.name] = local_module(alias.name)
        self.parents = {}
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent


def local_module(name):
    for folder in (TESTS / "python", TESTS):
        path = folder / (name.replace(".", "/") + ".py")
        if path.exists():
            return path
    return None


_MODULES = {}


def module(path):
    if path not in _MODULES:
        _MODULES[path] = Module(path)
    return _MODULES[path]


_FIXTURE_TOKENS = {}


def fixture_tokens(name):
    """The identifiers in a fixture's keys and strings (case ids, op names, expressions)."""
    base = pathlib.Path(name).name
    if base in _FIXTURE_TOKENS:
        return _FIXTURE_TOKENS[base]
    tokens = set()
    path = TESTS / "fixtures" / base
    if path.suffix == ".json" and path.exists():
        def walk(value):
            if isinstance(value, dict):
                for key, item in value.items():
                    tokens.update(IDENT.findall(str(key)))
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
            elif isinstance(value, str):
                tokens.update(IDENT.findall(value))
        walk(json.loads(path.read_text()))
    elif path.suffix == ".npz" and path.exists():
        import zipfile
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                tokens.update(IDENT.findall(member.removesuffix(".npy")))
    _FIXTURE_TOKENS[base] = tokens
    return tokens


class Reach:
    """The names an expression reaches, following names to where they are defined."""

    def __init__(self, read_fixtures=True):
        self.names, self.fixtures, self.seen = set(), set(), set()
        self.read_fixtures = read_fixtures

    def expr(self, mod, node, scope):
        key = (mod.path, id(node), id(scope))
        if key in self.seen:
            return
        self.seen.add(key)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute):
                self.names.add(sub.attr)
                if isinstance(sub.value, ast.Name) and sub.value.id in mod.modules:
                    other = module(mod.modules[sub.value.id])
                    self.name(other, sub.attr, None)
            elif isinstance(sub, ast.Name):
                self.names.add(sub.id)
                self.name(mod, sub.id, scope)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                if FIXTURE.search(sub.value):
                    self.fixtures.add(pathlib.Path(sub.value).name)
                    if self.read_fixtures:
                        self.names.update(fixture_tokens(sub.value))
                elif len(sub.value) < 200:
                    self.names.update(IDENT.findall(sub.value))

    def name(self, mod, name, scope):
        key = (mod.path, name, id(scope))
        if key in self.seen:
            return
        self.seen.add(key)
        if scope is not None:
            for value in local_values(scope, name):
                self.expr(mod, value, scope)
            if name in params(scope):
                for value in parametrized(scope, name):
                    self.expr(mod, value, None)
                for caller, args in call_sites(mod, scope, name):
                    for arg in args:
                        self.expr(mod, arg, caller)
        if name in mod.defs:
            self.expr(mod, mod.defs[name], mod.defs[name])
        for value in mod.assigns.get(name, ()):
            self.expr(mod, value, None)
        if name in mod.imports:
            path, original = mod.imports[name]
            self.name(module(path), original, None)


_LOCALS = {}


def local_values(scope, name):
    """What a local name of a function is given: assignments, loop and comprehension targets."""
    if id(scope) not in _LOCALS:
        table = _LOCALS[id(scope)] = {}
        for node, value in _local_bindings(scope):
            for target in ast.walk(node) if not isinstance(node, ast.FunctionDef) else [node]:
                key = target.name if isinstance(target, ast.FunctionDef) else getattr(target, "id", None)
                if key is not None:
                    table.setdefault(key, []).append(value)
    return _LOCALS[id(scope)].get(name, ())


def _local_bindings(scope):
    """(target, value) for each binding inside a function."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield target, node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            yield node.target, node.iter
        elif isinstance(node, ast.FunctionDef) and node is not scope:
            yield node, node
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            yield node.optional_vars, node.context_expr


def params(scope):
    if not isinstance(scope, (ast.FunctionDef, ast.Lambda)):
        return set()
    args = scope.args
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}


def parametrized(scope, name):
    for deco in getattr(scope, "decorator_list", ()):
        if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) and deco.func.attr == "parametrize":
            if deco.args and isinstance(deco.args[0], ast.Constant) and name in re.split(r"[,\s]+", str(deco.args[0].value)):
                yield from deco.args[1:2]


def call_sites(mod, scope, name):
    """A helper's parameter is what its callers in the same file pass."""
    if not isinstance(scope, ast.FunctionDef) or scope.name.startswith("test"):
        return
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == scope.name:
            caller = enclosing_function(mod, node)
            yield caller, list(node.args) + [k.value for k in node.keywords]


def enclosing_function(mod, node):
    while node in mod.parents:
        node = mod.parents[node]
        if isinstance(node, ast.FunctionDef):
            return node
    return None


def scan():
    replayed = set()
    grad_reach = Reach(read_fixtures=False)  # one for all the calls: what they reach together counts
    for path in sorted((TESTS / "python").glob("test_*.py")):
        mod = module(path)
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Call):
                func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
                if func in GRADCHECKS:
                    scope = enclosing_function(mod, node)
                    for arg in list(node.args) + [k.value for k in node.keywords]:
                        grad_reach.expr(mod, arg, scope)
        for node in mod.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                reach = Reach()
                reach.expr(mod, node, node)
                if reach.fixtures:
                    replayed |= reach.names
    return grad_reach.names, replayed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every new name with its two answers")
    parser.add_argument("--ns", help="only this namespace (a key of NEW)")
    args = parser.parse_args()
    gradchecked, replayed = scan()
    total_grad = total_parity = total = 0
    for ns, text in NEW.items():
        if args.ns and ns != args.ns:
            continue
        names = text.split()
        grad_gaps = [n for n in names if n not in NOT_DIFFERENTIABLE and n not in gradchecked]
        parity_gaps = [n for n in names if n not in NO_VALUES and n not in replayed]
        total += len(names)
        total_grad += len(grad_gaps)
        total_parity += len(parity_gaps)
        print(f"{ns}: {len(names)} new, {len(grad_gaps)} without gradcheck, {len(parity_gaps)} without recorded parity")
        if args.all:
            for n in names:
                print(f"  {n:40} gradcheck={'n/a' if n in NOT_DIFFERENTIABLE else n in gradchecked} "
                      f"parity={'n/a' if n in NO_VALUES else n in replayed}")
        else:
            if grad_gaps:
                print("  no gradcheck:", " ".join(grad_gaps))
            if parity_gaps:
                print("  no recorded parity:", " ".join(parity_gaps))
    print(f"all: {total} new callables, gaps: {total_grad} gradcheck, {total_parity} recorded parity, "
          f"{total_grad + total_parity} in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
