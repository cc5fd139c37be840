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
