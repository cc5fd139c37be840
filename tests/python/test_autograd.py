"""Autograd behaviour, with PyTorch's semantics and messages."""
import threading
import warnings

import pytest

import rstorch as torch
from rstorch.autograd import Function, gradcheck, gradgradcheck


def test_retain_graph_accumulates_and_intermediates_have_no_grad():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    y.backward(torch.ones(2, 2), retain_graph=True)
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
    assert any("not a leaf Tensor" in str(w.message) for w in caught)
    assert y.requires_grad
    y.backward(torch.ones(2, 2))
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_backward_without_grad_raises():
    x = torch.ones(2, 2)
    out = ((x + 2) * (x + 2) * 3).mean()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        out.backward()


def test_python_loops_reusing_a_weight_sum_its_gradient():
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    h = torch.tensor([[1.0, 2.0]])
    for _ in range(3):
        h = h @ w
    h.sum().backward()
    # d/dw of sum(h0 w w w): checked against finite differences below
    assert gradcheck(lambda w: (torch.tensor([[1.0, 2.0]], dtype=torch.float64) @ w @ w @ w).sum(),
                     (w.detach().double().requires_grad_(),))
    assert w.grad.shape == (2, 2)


def test_implicit_gradient_needs_a_scalar():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_second_backward_through_freed_graph():
    x = torch.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_saved_tensor_modified_in_place():
    x = torch.ones(3, requires_grad=True)
    a = x * 2
    b = a * a
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_in_place_on_leaf_requiring_grad():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.add_(1)
    with torch.no_grad():
        x.add_(1)  # allowed without grad mode
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_in_place_ops_keep_gradients_right():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.mul_(3)
    y[0] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 6.0, 6.0]


def test_setitem_with_a_value_that_requires_grad():
    a = torch.tensor(2.0, requires_grad=True)
    z = torch.zeros(3)
    z[1] = a * 3
    z.sum().backward()
    assert a.grad.item() == 3.0


def test_grad_fn_names_and_graph_walk():
    w = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    x = torch.randn(2, 3)
    y = (x.mm(w) + b).view(8) * 2
    loss = y.sum()
    assert type(loss.grad_fn).__name__ == "SumBackward0"
    assert loss.grad_fn.name() == "SumBackward0"
    assert y.grad_fn.name() == "MulBackward0"
    # `seen` keeps the wrappers alive: an id is only unique while its object lives, and a
    # wrapper lives only while something holds it.
    seen, stack, names, leaves = {}, [loss.grad_fn], set(), []
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen[id(fn)] = fn
        names.add(fn.name())
        if fn.name() == "AccumulateGrad":
            leaves.append(fn.variable)
        stack.extend(f for f, _ in fn.next_functions)
    assert {"ViewBackward0", "AddBackward0", "MmBackward0", "AccumulateGrad"} <= names
    assert any(v is w or v.data_ptr() == w.data_ptr() for v in leaves)
    assert any(v.data_ptr() == b.data_ptr() for v in leaves)
    assert x.grad_fn is None and w.grad_fn is None and w.is_leaf and not y.is_leaf


def test_tensor_hooks_replace_gradients_and_are_removable():
    x = torch.ones(3, requires_grad=True)
    calls = []
    h = x.register_hook(lambda g: calls.append(g.tolist()) or g * 10)
    y = x * 2 + x * 3  # the leaf's hook sees the summed gradient once
    y.sum().backward()
    assert calls == [[5.0, 5.0, 5.0]]
    assert x.grad.tolist() == [50.0, 50.0, 50.0]
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]

    z = torch.ones(2, requires_grad=True)
    mid = z * 3
    mid.register_hook(lambda g: g + 1)
    mid.retain_grad()
    mid.sum().backward()
    assert z.grad.tolist() == [6.0, 6.0]


def test_node_hooks():
    x = torch.ones(2, requires_grad=True)
    y = x * 4
    seen = {}
    y.grad_fn.register_prehook(lambda go: seen.update(pre=go[0].tolist()))
    y.grad_fn.register_hook(lambda gi, go: seen.update(post=gi[0].tolist()))
    y.sum().backward()
    assert seen == {"pre": [1.0, 1.0], "post": [4.0, 4.0]}


def test_grad_and_create_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0, 12.0]
    assert x.grad is None
    (g2,) = torch.autograd.grad(g.sum(), x)
    assert g2.tolist() == [6.0, 12.0]


def test_grad_mode_managers_and_thread_locality():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    with torch.inference_mode():
        assert not (x * 2).requires_grad

    @torch.no_grad()
    def f():
        return (x * 2).requires_grad
    assert f() is False

    seen = []
    with torch.no_grad():
        t = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_detach_shares_storage():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.data_ptr() == y.data_ptr()
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad
    assert x.data.data_ptr() == x.data_ptr()


def _f64(*shape, positive=False):
    t = torch.rand(*shape, dtype=torch.float64) + (0.5 if positive else -0.5)
    return t.requires_grad_()


GRADCHECK_CASES = {
    "add_bcast": (lambda a, b: a + b, lambda: (_f64(3, 1, 4), _f64(5, 1))),
    "mul_noncontig": (lambda a, b: a.t() * b, lambda: (_f64(4, 3), _f64(3, 4))),
    "div": (lambda a, b: a / b, lambda: (_f64(3, 2), _f64(3, 2, positive=True))),
    "pow": (lambda a, b: a ** b, lambda: (_f64(3, positive=True), _f64(3))),
    "unary_chain": (lambda a: (a.exp() + a.sin() * a.tanh() + a.sigmoid()).log1p(), lambda: (_f64(2, 3),)),
    "activations": (lambda a: torch.nn.functional.gelu(a) + torch.nn.functional.silu(a) + a.relu() * 2, lambda: (_f64(5),)),
    "sqrt_rsqrt": (lambda a: a.sqrt() + a.rsqrt() + a.reciprocal(), lambda: (_f64(4, positive=True),)),
    "reductions": (lambda a: a.sum(1) + a.mean(1) + a.prod(1) + a.amax(1), lambda: (_f64(3, 4),)),
    "var_norm": (lambda a: a.var(0).sum() + a.norm() + a.std(1).sum(), lambda: (_f64(3, 4),)),
    "softmax": (lambda a: a.softmax(-1) * a.log_softmax(0), lambda: (_f64(3, 4),)),
    "logsumexp_cumsum": (lambda a: a.logsumexp(1).sum() + a.cumsum(0).sum() * 0.5, lambda: (_f64(3, 4),)),
    "views": (lambda a: a.t().reshape(6, 2)[1:5:2].unsqueeze(0).expand(3, 2, 2).flip(0), lambda: (_f64(2, 6),)),
    "indexing": (lambda a: a[[0, 2, 0]] * 2 + a.gather(1, torch.tensor([[0], [1], [1]])), lambda: (_f64(3, 2),)),
    "index_select_scatter": (lambda a: a.index_select(0, torch.tensor([1, 1])).sum() + a.scatter_add(0, torch.tensor([[0, 1]]), a[:1]).sum(), lambda: (_f64(2, 2),)),
    "cat_stack": (lambda a, b: torch.cat([a, b * 2], 0).sum(0) + torch.stack([a, b], 1)[0, 1], lambda: (_f64(2, 3), _f64(2, 3))),
    "matmul_batched": (lambda a, b: a @ b, lambda: (_f64(2, 1, 3, 4), _f64(3, 4, 2))),
    "mm_transposed": (lambda a, b: a.t().mm(b), lambda: (_f64(4, 3), _f64(4, 2))),
    "where_clamp_max": (lambda a, b: torch.where(a > 0, a, b).clamp(-0.3, 0.3) + torch.maximum(a, b), lambda: (_f64(5), _f64(5))),
    "einsum": (lambda a, b: torch.einsum("ij,jk->ik", a, b), lambda: (_f64(2, 3), _f64(3, 2))),
    "masked": (lambda a: a.masked_fill(a > 0, 0.0) + a[a < 0].sum(), lambda: (_f64(6),)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK_CASES))
def test_gradcheck(name):
    torch.manual_seed(0)
    fn, make = GRADCHECK_CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", ["mul_noncontig", "unary_chain", "softmax", "matmul_batched", "div", "reductions"])
def test_gradgradcheck(name):
    torch.manual_seed(1)
    fn, make = GRADCHECK_CASES[name]
    assert gradgradcheck(fn, make())


def test_make_dot_names_parameters_and_ops():
    w = torch.randn(3, 2, requires_grad=True)
    loss = (torch.randn(4, 3) @ w).sum()
    dot = torch.viz.make_dot(loss, params={"weight": w}).source
    assert dot.startswith("digraph {") and "weight\n (3, 2)" in dot
    assert "SumBackward0" in dot and "MmBackward0" in dot and "->" in dot


F = torch.nn.functional
UNARY_OPS = {
    "neg": lambda a: -a, "abs": lambda a: a.abs(), "exp": lambda a: a.exp(), "exp2": lambda a: a.exp2(),
    "log": lambda a: (a.abs() + 0.5).log(), "log2": lambda a: (a.abs() + 0.5).log2(),
    "log10": lambda a: (a.abs() + 0.5).log10(), "log1p": lambda a: (a.abs()).log1p(),
    "expm1": lambda a: a.expm1(), "sqrt": lambda a: (a.abs() + 0.5).sqrt(),
    "rsqrt": lambda a: (a.abs() + 0.5).rsqrt(), "sin": lambda a: a.sin(), "cos": lambda a: a.cos(),
    "tan": lambda a: a.tan(), "asin": lambda a: (a * 0.5).asin(), "acos": lambda a: (a * 0.5).acos(),
    "atan": lambda a: a.atan(), "sinh": lambda a: a.sinh(), "cosh": lambda a: a.cosh(),
    "tanh": lambda a: a.tanh(), "sigmoid": lambda a: a.sigmoid(), "relu": lambda a: a.relu(),
    "gelu": lambda a: F.gelu(a), "gelu_tanh": lambda a: F.gelu(a, approximate="tanh"),
    "silu": lambda a: F.silu(a), "softplus": lambda a: F.softplus(a), "leaky_relu": lambda a: F.leaky_relu(a, 0.1),
    "elu": lambda a: F.elu(a), "erf": lambda a: a.erf(), "reciprocal": lambda a: (a.abs() + 0.5).reciprocal(),
    "pow_scalar": lambda a: a ** 3, "square": lambda a: a.square(), "clamp": lambda a: a.clamp(-0.2, 0.3),
    "cumprod": lambda a: a.cumprod(1), "prod_all": lambda a: a.prod(), "amin": lambda a: a.amin(0),
    "max_dim": lambda a: a.max(dim=1).values, "sort": lambda a: a.sort(1).values,
    "topk": lambda a: a.topk(2, dim=1).values, "norm1": lambda a: a.norm(1), "repeat_roll": lambda a: a.repeat(2, 1).roll(1, 0),
    "tril_triu": lambda a: a.tril() + a.triu(1) * 2, "unbind_chunk": lambda a: a.unbind(0)[1] + a.chunk(2, 1)[0].sum(),
}


@pytest.mark.parametrize("name", sorted(UNARY_OPS))
def test_gradcheck_every_elementwise_and_reduction_on_a_transposed_input(name):
    torch.manual_seed(2)
    a = (torch.rand(3, 4, dtype=torch.float64) - 0.5).t().requires_grad_()  # non-contiguous
    assert not a.is_contiguous()
    assert gradcheck(UNARY_OPS[name], (a,))


BINARY_OPS = {
    "sub": lambda a, b: a - b, "atan2": lambda a, b: torch.atan2(a, b), "minimum": lambda a, b: torch.minimum(a, b),
    "remainder": lambda a, b: a.remainder(b.abs() + 2.0), "where": lambda a, b: torch.where(a > b, a, b),
    "addmm": lambda a, b: torch.addmm(a[:1, :1], a, b.t()), "outer_dot": lambda a, b: torch.outer(a[0], b[0]).sum() + torch.dot(a[1], b[1]),
}


@pytest.mark.parametrize("name", sorted(BINARY_OPS))
def test_gradcheck_binary_on_broadcast_inputs(name):
    torch.manual_seed(3)
    # (3, 1) against (3, 4): the gradient of `a` sums over the broadcast dim
    shape = (3, 4) if name in ("addmm", "outer_dot") else (3, 1)
    a = (torch.rand(*shape, dtype=torch.float64) - 0.5).requires_grad_()
    b = torch.rand(3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(BINARY_OPS[name], (a, b))


# Second derivatives: every backward formula is itself written with differentiable ops, so
# gradgradcheck holds across the op families, on non-contiguous (transposed) inputs.
GRADGRAD_UNARY = sorted(UNARY_OPS)
GRADGRAD_BINARY = sorted(BINARY_OPS)
GRADGRAD_CASES = sorted(set(GRADCHECK_CASES) - {"mul_noncontig", "unary_chain", "softmax", "matmul_batched", "div", "reductions"})


@pytest.mark.parametrize("name", GRADGRAD_UNARY)
def test_gradgradcheck_unary_on_a_transposed_input(name):
    torch.manual_seed(4)
    a = (torch.rand(3, 4, dtype=torch.float64) - 0.5).t().requires_grad_()
    assert gradgradcheck(UNARY_OPS[name], (a,))


@pytest.mark.parametrize("name", GRADGRAD_BINARY)
def test_gradgradcheck_binary_on_strided_inputs(name):
    torch.manual_seed(5)
    shape = (3, 4) if name in ("addmm", "outer_dot") else (3, 1)
    a = (torch.rand(*shape, dtype=torch.float64) - 0.5).requires_grad_()
    b = (torch.rand(4, 3, dtype=torch.float64) + 0.1).t().requires_grad_()
    assert gradgradcheck(BINARY_OPS[name], (a, b))


@pytest.mark.parametrize("name", GRADGRAD_CASES)
def test_gradgradcheck_remaining_cases(name):
    torch.manual_seed(6)
    fn, make = GRADCHECK_CASES[name]
    assert gradgradcheck(fn, make())


GRADGRAD_MORE = {
    "matmul_t": (lambda a, b: a.t() @ b, lambda: (_f64(4, 3), _f64(4, 2))),
    "bmm": (lambda a, b: a.bmm(b.transpose(1, 2)), lambda: (_f64(2, 3, 4), _f64(2, 2, 4))),
    "mv_dot": (lambda a, b: a.t().mv(b[:, 0]) * torch.dot(b[:, 1], b[:, 1]), lambda: (_f64(4, 3), _f64(4, 2))),
    "softmax_t": (lambda a: a.t().softmax(0), lambda: (_f64(3, 4),)),
    "log_softmax_t": (lambda a: torch.nn.functional.log_softmax(a.t(), dim=1), lambda: (_f64(3, 4),)),
    "norms": (lambda a: a.t().norm(dim=1) + a.t().norm(p=3, dim=1) + a.t().norm(1, dim=1), lambda: (_f64(3, 4),)),
    "var_std_dims": (lambda a: a.t().var(1) + a.t().std(0, keepdim=True).sum(), lambda: (_f64(3, 4),)),
    "mean_sum_dims": (lambda a: a.t().mean((0, 1)) + a.t().sum(1, keepdim=True) * a.t().sum(0).sum(), lambda: (_f64(3, 4),)),
    "logsumexp_t": (lambda a: a.t().logsumexp(0), lambda: (_f64(3, 4),)),
    "cumsum_cumprod": (lambda a: a.t().cumsum(1) * a.t().cumprod(0), lambda: (_f64(3, 4),)),
    "narrow_select_index": (lambda a: a.t().narrow(0, 1, 2).select(1, 2) * a.t()[torch.tensor([0, 3])].sum(1), lambda: (_f64(3, 4),)),
    "gather_index_select": (lambda a: a.t().gather(1, torch.tensor([[0, 2], [1, 1], [2, 0], [0, 0]])) ** 2 + a.t().index_select(0, torch.tensor([1, 3])).sum(), lambda: (_f64(3, 4),)),
    "cat_stack_t": (lambda a, b: torch.cat([a.t(), b.t() ** 2], 1) * torch.stack([a.t(), b.t()], 2).sum(2).sum(1, keepdim=True), lambda: (_f64(3, 4), _f64(3, 4))),
    "permute_expand": (lambda a: a.permute(2, 0, 1).expand(2, 4, 2, 3).reshape(16, 3) ** 2, lambda: (_f64(2, 3, 4),)),
    "pow_tensor": (lambda a, b: (a.t().abs() + 0.5) ** b.t(), lambda: (_f64(3, 4), _f64(3, 4))),
    "div_mul_bcast": (lambda a, b: a.t() / (b.abs() + 0.5) * a.t(), lambda: (_f64(3, 4), _f64(3))),
    # nn.functional: normalisation, losses, convolution, pooling, embedding, activations.
    "layer_norm": (lambda a, w, b: F.layer_norm(a.t(), (3,), w, b), lambda: (_f64(3, 4), _f64(3), _f64(3))),
    "batch_norm": (lambda a: F.batch_norm(a.t(), None, None, training=True), lambda: (_f64(3, 4),)),
    "normalize": (lambda a: F.normalize(a.t(), dim=1), lambda: (_f64(3, 4),)),
    "mse_smooth_l1": (lambda a, b: F.mse_loss(a.t(), b) + F.smooth_l1_loss(a.t(), b) + F.huber_loss(a.t(), b, delta=0.2),
                      lambda: (_f64(3, 4), _f64(4, 3))),
    "cross_entropy": (lambda a: F.cross_entropy(a.t(), torch.tensor([0, 2, 1, 1])), lambda: (_f64(3, 4),)),
    "nll_log_softmax": (lambda a: F.nll_loss(F.log_softmax(a.t(), 1), torch.tensor([0, 2, 1, 1])), lambda: (_f64(3, 4),)),
    "bce_with_target_grad": (lambda a, b: F.binary_cross_entropy_with_logits(a.t(), b) + F.binary_cross_entropy(a.t().sigmoid(), b),
                             lambda: (_f64(3, 4), torch.rand(4, 3, dtype=torch.float64, requires_grad=True))),
    "kl_div": (lambda a, b: F.kl_div(F.log_softmax(a.t(), 1), b.t().softmax(1), reduction="batchmean"), lambda: (_f64(3, 4), _f64(3, 4))),
    "linear": (lambda a, w, b: F.linear(a.t(), w, b), lambda: (_f64(3, 4), _f64(2, 3), _f64(2))),
    "conv2d": (lambda x, w, b: F.conv2d(x.transpose(2, 3), w, b, padding=1), lambda: (_f64(1, 2, 4, 4), _f64(3, 2, 3, 3), _f64(3))),
    "conv2d_stride": (lambda x, w: F.conv2d(x, w, stride=2), lambda: (_f64(1, 2, 5, 5), _f64(2, 2, 2, 2))),
    "pools": (lambda x: F.max_pool2d(x, 2).sum() * F.avg_pool2d(x.transpose(2, 3), 2) + F.adaptive_avg_pool2d(x, 1),
              lambda: (_f64(1, 2, 4, 4),)),
    "embedding": (lambda w: F.embedding(torch.tensor([[0, 2], [1, 0]]), w) ** 2, lambda: (_f64(3, 4),)),
    "activations": (lambda a: F.hardtanh(a) + F.relu6(a * 8) + F.hardsigmoid(a * 4) + F.hardswish(a * 4) + F.mish(a)
                    + F.selu(a) + F.celu(a) + F.logsigmoid(a) + F.softsign(a), lambda: (_f64(3, 4),)),
    "cosine_pairwise": (lambda a, b: F.cosine_similarity(a, b) + F.pairwise_distance(a, b), lambda: (_f64(3, 4), _f64(3, 4))),
}


@pytest.mark.parametrize("name", sorted(GRADGRAD_MORE))
def test_gradgradcheck_views_matmul_reductions_and_softmax(name):
    torch.manual_seed(7)
    fn, make = GRADGRAD_MORE[name]
    assert gradgradcheck(fn, make())


def test_data_setter_swaps_contents_and_keeps_autograd_state():
    x = torch.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    grad = x.grad
    x.data = torch.zeros(3, dtype=torch.float64)
    assert x.shape == (3,) and x.dtype == torch.float64
    assert x.requires_grad and x.is_leaf
    assert x.grad is grad
    x.grad = None
    (x * 2).sum().backward()  # a fresh accumulator for the new contents
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="must be floating point"):
        x.data = torch.arange(3)
    y = torch.ones(2)
    y.data = torch.arange(4)
    assert y.tolist() == [0, 1, 2, 3]


def test_setting_data_of_the_grad_object_moves_the_gradient():
    x = torch.ones(3, requires_grad=True)
    x.sum().backward()
    g = x.grad
    x.grad.data = torch.full((3,), 7.0)
    assert x.grad is g and x.grad.tolist() == [7.0, 7.0, 7.0]
    torch.optim.SGD([x], lr=1.0).step()
    assert x.tolist() == [-6.0, -6.0, -6.0]
    # Backward accumulates into the new contents.
    (x * 2).sum().backward()
    assert x.grad is g and x.grad.tolist() == [9.0, 9.0, 9.0]
    # An assigned grad object works the same way, and its shape may change with .data.
    w = torch.ones(2, requires_grad=True)
    h = torch.zeros(2)
    w.grad = h
    h.data = torch.full((2,), 3.0)
    assert w.grad.tolist() == [3.0, 3.0]
    w.grad.data = torch.zeros(5)
    assert w.grad.shape == (5,)
    # Once the gradient was replaced, the old object no longer speaks for it.
    x.grad = None
    g.data = torch.zeros(3)
    assert x.grad is None


def test_grad_is_the_same_object_until_it_changes():
    x = torch.ones(2, requires_grad=True)
    x.sum().backward()
    assert x.grad is x.grad
    g = torch.full((2,), 5.0)
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None


# ----- uint8 masks ---------------------------------------------------------------------------

U8_WARNING = "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."


def test_uint8_index_selects_like_a_bool_mask_and_warns():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    m = torch.tensor([[1, 0], [0, 2]], dtype=torch.uint8)
    with pytest.warns(UserWarning, match=U8_WARNING):
        y = x[m]
    assert y.tolist() == [1.0, 4.0]
    (y * torch.tensor([2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0], [0.0, 3.0]]
    with pytest.warns(UserWarning, match=U8_WARNING):
        rows = x[torch.tensor([0, 1], dtype=torch.uint8)]
    assert rows.tolist() == [[3.0, 4.0]]


def test_uint8_index_assignment_writes_where_the_mask_is_set():
    z = torch.zeros(4)
    m = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
    with pytest.warns(UserWarning, match=U8_WARNING):
        z[m] = 5.0
    assert z.tolist() == [5.0, 0.0, 5.0, 0.0]
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = torch.tensor([10.0, 20.0], requires_grad=True)
    y = x * 1
    with pytest.warns(UserWarning, match=U8_WARNING):
        y[m] = v
    assert y.tolist() == [10.0, 2.0, 20.0, 4.0]
    (y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0, 4.0]
    assert v.grad.tolist() == [1.0, 3.0]


def test_index_put_with_a_uint8_mask():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = torch.tensor([9.0, 8.0], requires_grad=True)
    m = torch.tensor([0, 1, 0, 1], dtype=torch.uint8)
    with pytest.warns(UserWarning, match=U8_WARNING):
        out = x.index_put((m,), v)
    assert out.tolist() == [1.0, 9.0, 3.0, 8.0]
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0]
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0, 0.0]
    assert v.grad.tolist() == [1.0, 1.0]
    y = torch.zeros(4)
    with pytest.warns(UserWarning, match=U8_WARNING):
        assert y.index_put_((m,), torch.tensor(7.0)) is y
    assert y.tolist() == [0.0, 7.0, 0.0, 7.0]


# ----- reference cycles through hooks ----------------------------------------------------------

def _collected(ref):
    import gc
    gc.collect()
    return ref() is None


def test_tensor_hook_referencing_its_non_leaf_tensor_is_collected():
    import weakref
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g, y=y: seen.append(y.shape))
    y.sum().backward(retain_graph=True)
    assert seen == [(3,)]
    ref = weakref.ref(y)
    del y
    assert _collected(ref)


def test_tensor_hook_referencing_its_leaf_is_collected():
    import weakref
    x = torch.ones(3, requires_grad=True)
    x.register_hook(lambda g, x=x: g * 2)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    ref = weakref.ref(x)
    del x
    assert _collected(ref)


def test_node_hook_referencing_its_node_is_collected():
    import weakref
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    node = y.grad_fn
    node.register_hook(lambda gi, go, node=node: None)
    node.register_prehook(lambda go, node=node: None)
    ref = weakref.ref(node)
    del node, y
    assert _collected(ref)


def test_hooks_of_live_tensors_survive_a_collection():
    import gc
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g, y=y: g * 3)
    x.register_hook(lambda g, x=x: g + 1)
    gc.collect()
    y.sum().backward()
    assert x.grad.tolist() == [7.0, 7.0, 7.0]


# ----- pruning: only what the requested inputs need runs ------------------------------------

def _spy():
    calls = []

    class Spy(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * 2

    return Spy, calls


def test_autograd_grad_leaves_other_leaves_alone():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    (gw,) = torch.autograd.grad((w * b).sum(), [w])
    assert gw.tolist() == [3.0, 4.0]
    assert w.grad is None and b.grad is None


def test_autograd_grad_skips_branches_that_do_not_reach_the_inputs():
    Spy, calls = _spy()
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([3.0, 4.0], requires_grad=True)
    loss = (w * 3).sum() + Spy.apply(v).sum()
    (gw,) = torch.autograd.grad(loss, [w], retain_graph=True)
    assert gw.tolist() == [3.0, 3.0]
    assert calls == []
    (gv,) = torch.autograd.grad(loss, [v])
    assert gv.tolist() == [2.0, 2.0]
    assert calls == [1]
    assert w.grad is None and v.grad is None


def test_autograd_grad_runs_functions_on_the_way_to_a_non_leaf_input():
    Spy, calls = _spy()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    out = Spy.apply(h).sum() + Spy.apply(x).sum()
    (gh,) = torch.autograd.grad(out, [h])
    assert gh.tolist() == [2.0, 2.0]
    # the Spy on h runs; the one on x reaches x only, not h
    assert calls == [1]
    assert x.grad is None


def test_backward_with_inputs_skips_branches_that_do_not_reach_them():
    Spy, calls = _spy()
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([3.0, 4.0], requires_grad=True)
    loss = (w * 3).sum() + Spy.apply(v).sum()
    loss.backward(inputs=[w])
    assert calls == []
    assert w.grad.tolist() == [3.0, 3.0]
    assert v.grad is None


def test_a_leaf_keeps_an_unshared_gradient_and_copies_a_shared_one():
    """The gradient a leaf receives becomes its .grad without a copy when nothing else holds it
    (as PyTorch's AccumulateGrad steals it); one also reaching another leaf, or the caller's own
    tensor, is copied, so no two .grad alias each other or the caller's. A view of the caller's
    tensor (a reshape's gradient) is a tensor of its own: kept, sharing the caller's memory, as
    PyTorch 2.15 does."""
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, requires_grad=True)
    (x * w).sum().backward()
    assert x.grad.data_ptr() != w.grad.data_ptr()
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    (a + b).sum().backward()  # AddBackward0 hands both leaves the same gradient
    assert a.grad.data_ptr() != b.grad.data_ptr()
    a.grad.add_(1.0)
    assert b.grad.tolist() == [1.0, 1.0, 1.0]
    c = torch.randn(3, requires_grad=True)
    g = torch.ones(3)
    (c * 1).backward(g)
    g.add_(1.0)
    assert c.grad.tolist() == [1.0, 1.0, 1.0]
    d = torch.randn(3, requires_grad=True)
    g = torch.ones(3)
    d.backward(g)
    assert d.grad.data_ptr() != g.data_ptr()
    e = torch.randn(2, 3, requires_grad=True)
    g = torch.ones(6)
    e.reshape(-1).backward(g)
    assert e.grad.data_ptr() == g.data_ptr()
