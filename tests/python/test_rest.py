"""Small, common API pieces replayed against PyTorch's recorded values
(tests/fixtures/rest.json, made by tests/record_rest.py): cyclic LR schedulers."""
import json
import math
import pathlib
import pickle

import pytest

import rstorch as torch
from rstorch.optim import lr_scheduler as sched

FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "rest.json").read_text())
SCHEDULES = FIXTURE["schedules"]

# The same callables as in tests/record_rest.py.
SCALE_FNS = {"half_sine": lambda x: 0.5 * (1 + math.sin(x))}


def make_optimizer(kind):
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    lrs = SCHEDULES["group_lrs"]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, lrs)]
    if kind == "adam":
        return torch.optim.Adam(groups, lr=lrs[0])
    if kind == "adagrad":
        return torch.optim.Adagrad(groups, lr=lrs[0])
    return torch.optim.SGD(groups, lr=lrs[0], momentum=0.9)


def resolve(value):
    if isinstance(value, str) and value.startswith("@"):
        return SCALE_FNS[value[1:]]
    return value


def snapshot(opt, scheduler):
    lrs = [float(x) for x in scheduler.get_last_lr()]
    assert [float(g["lr"]) for g in opt.param_groups] == lrs
    row = {"lr": lrs}
    if "betas" in opt.defaults:
        row["momentum"] = [float(g["betas"][0]) for g in opt.param_groups]
    elif "momentum" in opt.defaults:
        row["momentum"] = [float(g["momentum"]) for g in opt.param_groups]
    return row


def build(spec):
    opt = make_optimizer(spec.get("optimizer", "sgd"))
    kwargs = {k: resolve(v) for k, v in spec["kwargs"].items()}
    return opt, getattr(sched, spec["scheduler"])(opt, **kwargs)


def assert_rows_close(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.keys() == e.keys()
        for key in e:
            assert g[key] == pytest.approx(e[key], rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("name", sorted(SCHEDULES["cases"]))
def test_cyclic_schedule_matches_pytorch(name):
    spec = SCHEDULES["cases"][name]
    opt, scheduler = build(spec)
    rows = [snapshot(opt, scheduler)]
    for epoch in spec.get("epochs") or [None] * SCHEDULES["steps"]:
        opt.step()
        scheduler.step(epoch)
        rows.append(snapshot(opt, scheduler) | {"last_epoch": scheduler.last_epoch})
    assert_rows_close(rows, spec["rows"])


@pytest.mark.parametrize("name", ["cawr_t3_mult2", "cyclic_triangular2", "cyclic_adam"])
def test_cyclic_schedule_resumes_from_state_dict(name):
    spec = SCHEDULES["cases"][name]
    opt, scheduler = build(spec)
    rows = [snapshot(opt, scheduler)]
    for i in range(SCHEDULES["steps"]):
        if i == 7:
            saved = pickle.loads(pickle.dumps(scheduler.state_dict()))
            opt_state = opt.state_dict()
            opt, scheduler = build(spec)
            opt.load_state_dict(opt_state)
            scheduler.load_state_dict(saved)
        opt.step()
        scheduler.step()
        rows.append(snapshot(opt, scheduler) | {"last_epoch": scheduler.last_epoch})
    assert_rows_close(rows, spec["rows"])


@pytest.mark.parametrize("name", sorted(SCHEDULES["errors"]))
def test_cyclic_schedule_errors(name):
    case = SCHEDULES["errors"][name]
    opt = make_optimizer(case["optimizer"])
    with pytest.raises(Exception) as info:  # noqa: PT011 - type checked by name below
        getattr(sched, case["scheduler"])(opt, **case["kwargs"])
    assert type(info.value).__name__ == case["type"]
    assert str(info.value) == case["message"]


def test_cawr_rejects_negative_epoch():
    scheduler = sched.CosineAnnealingWarmRestarts(make_optimizer("sgd"), T_0=3)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        scheduler.step(-1)


def test_cyclic_custom_scale_fn_object_state_is_saved():
    class Scale:
        def __init__(self):
            self.k = 2.0

        def __call__(self, x):
            return 1.0 / self.k

    fn = Scale()
    scheduler = sched.CyclicLR(make_optimizer("sgd"), 0.01, 0.1, scale_fn=fn)
    fn.k = 4.0
    state = scheduler.state_dict()
    assert state["_scale_fn_custom"] == {"k": 4.0} and "_scale_fn_ref" not in state
    other_fn = Scale()
    other = sched.CyclicLR(make_optimizer("sgd"), 0.01, 0.1, scale_fn=other_fn)
    other.load_state_dict(state)
    assert other._scale_fn_custom is other_fn and other_fn.k == 4.0


# Optimizers: SparseAdam, Adafactor, Muon.
OPTIMIZERS = FIXTURE["optimizers"]


def set_grads(params):
    for p in params:
        p.grad = torch.sin(3 * p.detach()) + 0.1 * p.detach() + 0.05


@pytest.mark.parametrize("name", sorted(OPTIMIZERS["cases"]))
def test_optimizer_trail_matches_pytorch(name):
    case = OPTIMIZERS["cases"][name]
    dtype = getattr(torch, case["dtype"])
    params = [torch.tensor(v, dtype=dtype, requires_grad=True) for v in case["init"]]
    opt = getattr(torch.optim, case["optimizer"])(params, **case["kwargs"])
    rel = 1e-9 if case["dtype"] == "float64" else 1e-5
    if case["optimizer"] == "Muon":
        # Muon orthogonalises in bfloat16: a float32 rounding difference in the matmul
        # occasionally flips a bfloat16 ulp (0.4%), which lr carries into the parameters.
        rel = 1e-3
    for expected in case["trail"]:
        set_grads(params)
        opt.step()
        for p, e in zip(params, expected):
            want = torch.tensor(e, dtype=torch.float64)
            got = p.detach().to(torch.float64)
            assert torch.allclose(got, want, rtol=rel, atol=rel), (got - want).abs().max()


@pytest.mark.parametrize("name", sorted(k for k in OPTIMIZERS["errors"] if "shapes" in OPTIMIZERS["errors"][k]))
def test_optimizer_argument_errors(name):
    case = OPTIMIZERS["errors"][name]
    params = [torch.zeros(s, requires_grad=True) for s in case["shapes"]]
    with pytest.raises(ValueError) as info:
        getattr(torch.optim, case["optimizer"])(params, **case["kwargs"])
    assert case["type"] == "ValueError"
    assert str(info.value).replace("rstorch.", "torch.") == case["message"]


def test_sparse_adam_refuses_dense_gradients():
    p = torch.zeros(3, requires_grad=True)
    opt = torch.optim.SparseAdam([p])
    opt.step()  # no gradient yet: nothing to do
    p.grad = torch.ones(3)
    case = OPTIMIZERS["errors"]["sparse_adam_dense_grad"]
    with pytest.raises(RuntimeError, match="^" + case["message"] + "$"):
        opt.step()


def test_adafactor_state_shapes_and_step_count():
    p = torch.zeros(2, 3, 4, requires_grad=True)
    v = torch.zeros(5, requires_grad=True)
    opt = torch.optim.Adafactor([p, v])
    set_grads([p, v])
    opt.step()
    assert opt.state[p]["row_var"].shape == (2, 3, 1) and opt.state[p]["col_var"].shape == (2, 1, 4)
    assert opt.state[v]["variance"].shape == (5,) and opt.state[v]["step"].item() == 1.0


# utils.data.DistributedSampler.
SAMPLERS = FIXTURE["samplers"]


@pytest.mark.parametrize("case", SAMPLERS["cases"], ids=lambda c: f"n{c['n']}-r{c['num_replicas']}-d{c['drop_last']}")
def test_distributed_sampler_unshuffled_matches_pytorch(case):
    from rstorch.utils.data import DistributedSampler
    shares = [DistributedSampler(range(case["n"]), case["num_replicas"], r, shuffle=False, drop_last=case["drop_last"])
              for r in range(case["num_replicas"])]
    assert [len(s) for s in shares] == case["len"]
    assert shares[0].total_size == case["total_size"]
    assert [list(s) for s in shares] == case["indices"]


@pytest.mark.parametrize("name", sorted(SAMPLERS["errors"]))
def test_distributed_sampler_errors(name):
    from rstorch.utils.data import DistributedSampler
    case = SAMPLERS["errors"][name]
    assert case["type"] == "ValueError"
    with pytest.raises(ValueError) as info:
        DistributedSampler(range(5), **case["kwargs"])
    assert str(info.value) == case["message"]


@pytest.mark.parametrize("n,replicas,drop_last", [(11, 3, False), (11, 3, True), (12, 4, False)])
def test_distributed_sampler_shuffle_laws(n, replicas, drop_last):
    # rstorch's random stream differs from PyTorch's, so the laws are tested, not the bits.
    from rstorch.utils.data import DistributedSampler
    shares = [DistributedSampler(list(range(n)), replicas, r, seed=7, drop_last=drop_last) for r in range(replicas)]
    orders = [list(s) for s in shares]
    assert all(len(o) == len(s) for o, s in zip(orders, shares))
    # Interleaving the shares rebuilds one common permutation (every replica drew the same one).
    merged = [orders[i % replicas][i // replicas] for i in range(shares[0].total_size)]
    if drop_last:
        assert len(set(merged)) == len(merged) and set(merged) <= set(range(n))
    else:
        assert sorted(merged[:n]) == list(range(n)) and merged[n:] == merged[:len(merged) - n]
    generator = torch.Generator()
    generator.manual_seed(7)
    assert merged[:min(n, len(merged))] == torch.randperm(n, generator=generator).tolist()[:len(merged)]
    # Same epoch, same order; another epoch or seed, another order.
    assert [list(s) for s in shares] == orders
    for s in shares:
        s.set_epoch(1)
    assert [list(s) for s in shares] != orders
    other = DistributedSampler(list(range(n)), replicas, 0, seed=8, drop_last=drop_last)
    assert list(other) != orders[0]


# nn.init aliases, SyncBatchNorm, factory_kwargs, conv_tbc, dispatch helpers, autograd switches.
MISC = FIXTURE["misc"]


def t64(values):
    return torch.tensor(values, dtype=torch.float64)


def test_dirac_and_eye_match_pytorch():
    assert torch.nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2).tolist() == MISC["dirac_groups2"]
    assert torch.nn.init.dirac_(torch.empty(3, 3, 2, 3, 3)).tolist() == MISC["dirac_3d"]
    assert torch.nn.init.eye_(torch.empty(3, 5)).tolist() == MISC["eye"]


def test_deprecated_dirac_and_eye_warn_and_fill():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = torch.nn.init.dirac(torch.empty(2, 2, 3))
        e = torch.nn.init.eye(torch.empty(2, 2))
    assert [[w.category.__name__, str(w.message)] for w in caught] == MISC["init_warnings"]
    assert d.tolist() == torch.nn.init.dirac_(torch.empty(2, 2, 3)).tolist() and e.tolist() == [[1, 0], [0, 1]]
    assert "dirac" in torch.nn.init.__all__ and "eye" in torch.nn.init.__all__


def test_sync_batch_norm_matches_pytorch_on_one_process():
    case = MISC["syncbn"]
    bn = torch.nn.SyncBatchNorm(3, momentum=0.3, dtype=torch.float64)
    with torch.no_grad():
        bn.weight.copy_(t64([0.5, 1.0, 2.0]))
        bn.bias.copy_(t64([0.1, -0.2, 0.3]))
    assert torch.allclose(bn(t64(case["x5"])), t64(case["y5"]), rtol=1e-12, atol=1e-12)
    assert torch.allclose(bn(t64(case["x2"])), t64(case["y2"]), rtol=1e-12, atol=1e-12)
    assert torch.allclose(bn.running_mean, t64(case["running_mean"]), rtol=1e-12, atol=1e-12)
    assert torch.allclose(bn.running_var, t64(case["running_var"]), rtol=1e-12, atol=1e-12)
    assert int(bn.num_batches_tracked) == case["tracked"] and repr(bn) == case["repr"]
    bn.eval()
    assert torch.allclose(bn(t64(case["x5"])), t64(case["y_eval"]), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="^" + case["errors"][0]["message"].replace("(", r"\(").replace(")", r"\)")):
        bn(torch.zeros(3))
    with pytest.raises(ValueError, match="^" + case["errors"][1]["message"] + "$"):
        torch.nn.SyncBatchNorm(0)(torch.zeros(2, 0, 3))


def test_convert_sync_batchnorm_shares_state():
    nn = torch.nn
    inner = nn.BatchNorm1d(4, affine=False)
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm2d(3, momentum=None), nn.Sequential(inner))
    model[1].qconfig = "q"
    model.eval()
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group="pg")
    bn = converted[1]
    assert type(bn) is nn.SyncBatchNorm and bn.momentum is None and bn.process_group == "pg" and bn.qconfig == "q"
    assert bn.weight is model[1].weight and bn.running_mean is model[1].running_mean and not bn.training
    assert type(converted[2][0]) is nn.SyncBatchNorm and converted[2][0].weight is None
    assert converted[0] is model[0]
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3d(2))
    assert type(single) is nn.SyncBatchNorm and single.num_features == 2


def test_conv_tbc_matches_pytorch_and_is_differentiable():
    case = MISC["conv_tbc"]
    x, w, b = t64(case["input"]), t64(case["weight"]), t64(case["bias"])
    F = torch.nn.functional
    assert torch.allclose(F.conv_tbc(x, w, b), t64(case["pad0"]), rtol=1e-12, atol=1e-12)
    assert torch.allclose(F.conv_tbc(x, w, b, 2), t64(case["pad2"]), rtol=1e-12, atol=1e-12)
    inputs = [v.clone().requires_grad_() for v in (x, w, b)]
    assert torch.autograd.gradcheck(lambda *a: F.conv_tbc(*a, 1), inputs)
    bad = [(torch.zeros(5, 2), w, b), (x, torch.zeros(3, 3), b), (x, w, torch.zeros(4, 1)),
           (x, torch.zeros(3, 4, 4), b), (x, w, torch.zeros(3))]
    for args, expected in zip(bad, case["errors"]):
        with pytest.raises(RuntimeError) as info:
            F.conv_tbc(*args)
        assert str(info.value) == expected["message"]
    with pytest.raises(TypeError, match="must be Tensor, not NoneType"):
        F.conv_tbc(x, w, None)


def test_factory_kwargs_matches_pytorch():
    case = MISC["factory_kwargs"]
    assert torch.nn.factory_kwargs(None) == case["none"]
    kwargs = {"device": "cpu", "factory_kwargs": {"memory_format": None}}
    assert repr(sorted(torch.nn.factory_kwargs(kwargs).items())) == case["merged"]
    assert kwargs == {"device": "cpu", "factory_kwargs": {"memory_format": None}}
    for bad, expected in zip([{"device": "cpu", "factory_kwargs": {"device": "cpu"}}, {"bad": 1}], case["errors"]):
        with pytest.raises(TypeError) as info:
            torch.nn.factory_kwargs(bad)
        assert str(info.value) == expected["message"]


def test_functional_dispatch_helpers():
    F = torch.nn.functional
    x = torch.zeros(2)
    assert not F.has_torch_function((x,)) and not F.has_torch_function_unary(x)
    assert not F.has_torch_function_variadic(x, x)
    with pytest.raises(AssertionError, match="^kernel_size must be int$"):
        F.assert_int_or_pair([1, 2, 3], "kernel_size", "{} must be int")
    F.assert_int_or_pair(3, "k", "{}")
    F.assert_int_or_pair((1, 2), "k", "{}")

    def with_indices(x, return_indices=False):
        """Doc."""
        return "indices"

    def without(x, return_indices=False):
        return "plain"

    fn = F.boolean_dispatch("return_indices", 1, False, with_indices, without, "mod", "pool")
    assert (fn(1), fn(1, True), fn(1, return_indices=True)) == ("plain", "indices", "indices")
    assert fn.__name__ == "pool" and fn.__module__ == "mod" and fn.__doc__ == "Doc." and without.__doc__ == "Doc."
    assert F.boolean_dispatched[fn]["if_true"] is with_indices
    with pytest.raises(RuntimeError, match="only one function can have a docstring"):
        F.boolean_dispatch("a", 0, False, with_indices, with_indices, None, None)


def test_handle_torch_function_calls_the_override():
    F = torch.nn.functional
    calls = []

    class Base:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(("base", types))
            return NotImplemented

    class Derived(Base):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(("derived", types))
            return func.__name__, args, kwargs

    def op(a, b, scale=1):
        return None

    assert F.handle_torch_function(op, (Base(), Derived()), 1, 2, scale=3) == ("op", (1, 2), {"scale": 3})
    assert calls == [("derived", (Derived, Base))]
    with pytest.raises(TypeError, match="no implementation found for '.*op' on types that implement"):
        F.handle_torch_function(op, (Base(),), 1)
    assert torch.autograd.handle_torch_function is F.handle_torch_function


def test_autograd_switches_match_pytorch():
    A = torch.autograd
    case = MISC["autograd"]

    class TensorLike:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return -1

    assert [A.is_tensor_like(v) for v in (torch.zeros(1), 3, None, TensorLike())] == case["is_tensor_like"]
    assert A.is_view_replay_enabled() is case["is_view_replay_enabled"]
    assert A.is_multithreading_enabled() is case["is_multithreading_enabled"]
    with A.set_multithreading_enabled(False):
        assert not A.is_multithreading_enabled()
    assert A.is_multithreading_enabled()

    @A.set_multithreading_enabled(False)
    def inside():
        return A.is_multithreading_enabled()

    A.set_multithreading_enabled(True)  # the decorator's construction set it: as in PyTorch
    assert inside() is False and A.is_multithreading_enabled()
    with pytest.raises(RuntimeError, match=r"^torch\.autograd\.variable\(\.\.\.\) is deprecated"):
        A.variable(1)
    assert not A.has_torch_function((torch.zeros(1),))
