"""torch.profiler and torch.autograd.profiler on rstorch: ops recorded under PyTorch's names, nesting
and self times, input shapes, summaries (tables replayed from PyTorch's, fixtures/profiler.json from
tests/record_profiler.py), schedules and their cycles, Chrome traces, and autograd's legacy names."""
import gzip
import json
import os
import pathlib
import subprocess
import sys
import threading
import warnings

import pytest

import rstorch as torch
from rstorch.autograd.profiler_util import EventList, FunctionEvent
from rstorch.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "profiler.json").read_text())


def names(prof):
    return [e.name for e in prof.events()]


def test_ops_recorded_with_pytorch_names():
    x, w = torch.randn(4, 5), torch.randn(5, 3)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = (x @ w).relu()
        z = torch.exp(y) + 1
        z.sum()
        x[0]
    assert names(prof) == ["aten::matmul", "aten::relu", "aten::exp", "aten::add", "aten::sum", "aten::select"]
    assert all(e.cpu_time_total >= 0 for e in prof.events())
    assert all(not e.is_user_annotation for e in prof.events())


def test_nn_ops_nest_under_their_functions():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    x, target = torch.randn(4, 5), torch.tensor([0, 1, 0, 1])
    with profile() as prof:
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
    found = names(prof)
    assert found.count("aten::linear") == 2
    assert "aten::cross_entropy_loss" in found and "autograd::backward" in found
    # F.linear over _C._linear is one event, not two of the same name.
    assert all(e.cpu_parent is None or e.cpu_parent.name != e.name for e in prof.events())
    # Conv2d holds F.conv2d as a static method: recorded too, with the core's convolution inside.
    conv = torch.nn.Conv2d(1, 2, 3)
    with profile() as prof:
        conv(torch.ones(1, 1, 5, 5))
    (conv2d,) = [e for e in prof.events() if e.name == "aten::conv2d"]
    assert [c.name for c in conv2d.cpu_children] == ["aten::convolution"]
    assert isinstance(torch.nn.Conv2d.__dict__["_conv"], staticmethod)
    assert torch.nn.Conv2d.__dict__["_conv"].__func__ is torch.nn.functional.conv2d
    # Max pooling's shared kernel is the pooling op's work, as in PyTorch's aten::max_pool2d.
    with profile() as prof:
        torch.nn.functional.max_pool2d(torch.ones(1, 1, 4, 4), 2)
        torch.nn.MaxPool1d(2)(torch.ones(1, 1, 4))
    assert [e.name for e in prof.events() if e.cpu_parent is None and "pool" in e.name] == ["aten::max_pool2d",
                                                                                           "aten::max_pool1d"]
    assert not any(e.name == "aten::max_pool_with_indices" for e in prof.events())


def test_record_function_nesting_and_self_time():
    a = torch.ones(3)
    with profile() as prof:
        with record_function("outer"):
            a + a
            with record_function("inner"):
                a * a
                a - a
    events = prof.events()
    outer, add, inner, mul, sub = events
    assert [e.name for e in events] == ["outer", "aten::add", "inner", "aten::mul", "aten::sub"]
    assert outer.is_user_annotation and inner.is_user_annotation
    assert outer.cpu_children == [add, inner] and inner.cpu_children == [mul, sub]
    assert mul.cpu_parent is inner and inner.cpu_parent is outer and outer.cpu_parent is None
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - add.cpu_time_total - inner.cpu_time_total)
    assert inner.time_range.start <= mul.time_range.start <= mul.time_range.end <= inner.time_range.end
    # Self times add up to the top-level totals.
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(outer.cpu_time_total)
    assert prof.key_averages().total_average().self_cpu_time_total == pytest.approx(outer.cpu_time_total)


def test_record_function_outside_a_profiler_and_as_decorator():
    with record_function("nothing recording"):
        torch.ones(2) + 1

    @record_function("labelled")
    def work(t):
        return t * 2
    assert work.__name__ == "work"
    with profile() as prof:
        work(torch.ones(2))
        work(torch.ones(2))
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["labelled"].count == 2 and averages["aten::mul"].count == 2
    assert all(e.cpu_parent.name == "labelled" for e in prof.events() if e.name == "aten::mul")


def test_record_shapes_and_grouping():
    with profile(record_shapes=True) as prof:
        torch.ones(2, 3) + torch.ones(2, 3)
        torch.ones(2, 3) + torch.ones(2, 3)
        torch.ones(4) + 1
    adds = [e for e in prof.events() if e.name == "aten::add"]
    assert [e.input_shapes for e in adds] == [[[2, 3], [2, 3]], [[2, 3], [2, 3]], [[4], []]]
    plain = prof.key_averages()
    assert [e.count for e in plain if e.key == "aten::add"] == [3]
    grouped = [(e.key, e.input_shapes, e.count) for e in prof.key_averages(group_by_input_shape=True)
               if e.key == "aten::add"]
    assert grouped == [("aten::add", [[2, 3], [2, 3]], 2), ("aten::add", [[4], []], 1)]
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()
    assert "Input Shapes" not in plain.table()
    with profile() as prof:
        torch.ones(2) + 1
    assert [e.input_shapes for e in prof.events() if e.name == "aten::add"] == [[]]


def build_events():
    events = []
    for i, (name, start, end, parent, shapes) in enumerate(FIXTURE["table_events"]):
        e = FunctionEvent(id=i + 1, name=name, thread=1, start_us=start, end_us=end, input_shapes=shapes, stack=[])
        if parent is not None:
            e.set_cpu_parent(events[parent])
            events[parent].append_cpu_child(e)
        events.append(e)
    return EventList(events)


@pytest.mark.parametrize("case", FIXTURE["tables"], ids=lambda c: json.dumps(c["args"]))
def test_table_text_as_pytorch(case):
    events = build_events()
    assert events.table(**case["args"]) == case["events"]
    assert events.key_averages().table(**case["args"]) == case["averages"]
    assert events.key_averages(group_by_input_shapes=True).table(**case["args"]) == case["by_shape"]


def test_total_average_as_pytorch():
    total = build_events().key_averages().total_average()
    want = FIXTURE["total_average"]
    assert total.key == want["key"] and total.count == want["count"]
    assert total.self_cpu_time_total == pytest.approx(want["self_cpu_time_total"])
    assert total.cpu_time_total == pytest.approx(want["cpu_time_total"])


def test_table_of_a_real_profile():
    with profile() as prof:
        with record_function("model_inference"):
            (torch.randn(4, 5) @ torch.randn(5, 3)).relu().sum()
    text = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    lines = text.splitlines()
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
                                "CPU", "time", "avg", "#", "of", "Calls"]
    assert lines[-1].startswith("Self CPU time total: ")
    rows = lines[3:-2]
    assert rows[0].split()[0] == "model_inference" and rows[0].split()[3] == "100.00%"
    assert {r.split()[0] for r in rows} == {"model_inference", "aten::randn", "aten::matmul", "aten::relu",
                                            "aten::sum"}
    totals = [e.cpu_time_total for e in sorted(prof.key_averages(), key=lambda e: -e.cpu_time_total)]
    assert totals == sorted(totals, reverse=True)
    assert len(prof.key_averages().table(row_limit=2).splitlines()) == 3 + 2 + 2


@pytest.mark.parametrize("case", FIXTURE["schedules"], ids=lambda c: json.dumps(c["args"]))
def test_schedule_actions_as_pytorch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = schedule(**case["args"])
    assert [fn(s).name for s in range(24)] == case["actions"]


def test_schedule_checks():
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        schedule(wait=1, warmup=0, active=1)
    with pytest.raises(AssertionError, match="Step must be non-negative"):
        schedule(wait=1, warmup=1, active=1)(-1)
    assert {m.name: m.value for m in ProfilerAction} == FIXTURE["actions"]


@pytest.mark.parametrize("case", FIXTURE["cycles"], ids=lambda c: json.dumps(c["args"]))
def test_step_cycles_and_on_trace_ready_as_pytorch(case):
    calls = []

    def ready(prof):
        found = names(prof)
        calls.append({"step_num": prof.step_num, "profiler_steps": found.count("ProfilerStep*"),
                      "work": found.count("work")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profile(schedule=schedule(**case["args"]), on_trace_ready=ready) as prof:
            for _ in range(case["steps"]):
                with record_function("work"):
                    torch.ones(2).add(1)
                prof.step()
    assert calls == case["calls"]


def test_no_schedule_calls_on_trace_ready_once_at_exit():
    calls = []
    with profile(on_trace_ready=calls.append) as prof:
        torch.ones(2) + 1
        prof.step()
        torch.ones(2) + 1
    assert calls == [prof]
    assert names(prof).count("aten::add") == 2 and "ProfilerStep*" not in names(prof)


def test_chrome_trace(tmp_path):
    with profile(record_shapes=True) as prof:
        with record_function("block"):
            torch.ones(2, 2).matmul(torch.ones(2, 2))
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert trace["displayTimeUnit"] == "ms" and isinstance(trace["traceEvents"], list)
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in complete] == [e.name for e in prof.events()]
    for e in complete:
        assert {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"} <= set(e)
        assert e["dur"] >= 0 and isinstance(e["ts"], (int, float))
    block, *ops = complete
    assert block["cat"] == "user_annotation" and all(e["cat"] == "cpu_op" for e in ops)
    matmul = next(e for e in complete if e["name"] == "aten::matmul")
    assert matmul["args"]["Input Dims"] == [[2, 2], [2, 2]]
    assert block["ts"] <= matmul["ts"] and matmul["ts"] + matmul["dur"] <= block["ts"] + block["dur"] + 1e-3
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in trace["traceEvents"])
    gz = tmp_path / "trace.json.gz"
    prof.export_chrome_trace(str(gz))
    assert json.loads(gzip.decompress(gz.read_bytes()))["traceEvents"] == trace["traceEvents"]


def test_chrome_trace_keeps_step_numbers_and_metadata(tmp_path):
    with profile(schedule=schedule(wait=0, warmup=1, active=2, repeat=1)) as prof:
        for _ in range(3):
            torch.ones(1) + 1
            prof.add_metadata("run", "a")
            prof.step()
    prof.add_metadata("after", "ignored, as in PyTorch")
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    trace = json.loads((tmp_path / "t.json").read_text())
    assert trace["run"] == "a" and "after" not in trace
    assert [e["name"] for e in trace["traceEvents"] if e["name"].startswith("ProfilerStep")] == ["ProfilerStep#1",
                                                                                             "ProfilerStep#2"]


def test_tensorboard_trace_handler(tmp_path):
    out = tmp_path / "log"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        handler = torch.profiler.tensorboard_trace_handler(str(out), worker_name="w0")
        with profile(schedule=schedule(wait=0, warmup=0, active=2, repeat=2), on_trace_ready=handler) as prof:
            for _ in range(5):
                torch.ones(2) * 2
                prof.step()
    files = sorted(os.listdir(out))
    assert len(files) == 2 and all(f.startswith("w0.") and f.endswith(".pt.trace.json") for f in files)
    for f in files:
        trace = json.loads((out / f).read_text())
        assert [e["name"] for e in trace["traceEvents"] if e["name"] == "aten::mul"] == ["aten::mul"] * 2
    torch.profiler.tensorboard_trace_handler(str(tmp_path / "gz"), worker_name="w", use_gzip=True)(prof)
    (gz,) = os.listdir(tmp_path / "gz")
    assert gz.endswith(".pt.trace.json.gz")


def test_activities_and_device_warnings():
    assert torch.profiler.supported_activities() == {ProfilerActivity.CPU}
    assert {m: int(v) for m, v in ProfilerActivity.__members__.items()} == FIXTURE["enums"]["ProfilerActivity"]
    assert str(ProfilerActivity.CPU) == "ProfilerActivity.CPU" and ProfilerActivity.CPU != 0
    with pytest.raises(ValueError, match="specified more than once"):
        profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CPU])
    with pytest.raises(TypeError, match="Expected ProfilerActivity or dict"):
        profile(activities=["cpu"])
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                torch.ones(2) + 1
        assert names(prof) == ["aten::ones", "aten::add"]


def test_legacy_autograd_profiler():
    from rstorch.autograd import profiler as legacy
    prof = legacy.profile(record_shapes=True)
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        prof.key_averages()
    with prof:
        with legacy.record_function("label-z"):
            torch.ones(3) ** 2
    assert [e.name for e in prof.function_events] == ["label-z", "aten::ones", "aten::pow"]
    assert prof.self_cpu_time_total == pytest.approx(prof.function_events[0].cpu_time_total)
    assert "label-z" in prof.table() and "label-z" in str(prof)
    with pytest.raises(RuntimeError, match="not reentrant"):
        with prof:
            with prof:
                pass
    with legacy.profile(enabled=False) as nothing:
        torch.ones(1) + 1
    assert nothing is None
    with legacy.emit_nvtx(), legacy.emit_itt(record_shapes=True):
        torch.ones(1) + 1


def test_nested_profilers_see_their_own_window():
    with profile() as outer:
        torch.ones(1) + 1
        with profile() as inner:
            torch.ones(1) * 2
        torch.ones(1) - 1
    assert names(inner) == ["aten::ones", "aten::mul"]
    assert names(outer) == ["aten::ones", "aten::add", "aten::ones", "aten::mul", "aten::ones", "aten::sub"]


def test_threads_are_told_apart():
    def work():
        torch.ones(2) * 3
    with profile() as prof:
        torch.ones(2) + 1
        t = threading.Thread(target=work)
        t.start()
        t.join()
    by_name = {e.name: e for e in prof.events()}
    assert by_name["aten::add"].thread != by_name["aten::mul"].thread
    assert by_name["aten::mul"].cpu_parent is None


def test_ops_are_restored_after_profiling():
    before = dict(torch.Tensor.__dict__)
    exp = torch.exp
    with profile():
        assert torch.Tensor.__dict__["__add__"] is not before["__add__"]
        with profile():
            pass
        assert torch.Tensor.__dict__["__add__"] is not before["__add__"]
    assert all(torch.Tensor.__dict__[k] is v for k, v in before.items())
    assert torch.exp is exp and torch._C._linear is torch.nn.functional.linear.__globals__["_C"]._linear
    with pytest.raises(ValueError):
        with profile():
            raise ValueError("op failed")
    assert torch.Tensor.__dict__["__add__"] is before["__add__"]


def test_exceptions_inside_ops_close_their_ranges():
    with profile() as prof:
        with pytest.raises(RuntimeError):
            torch.ones(2, 3) @ torch.ones(2, 3)
        torch.ones(1) + 1
    add = [e for e in prof.events() if e.name == "aten::add"][0]
    assert add.cpu_parent is None


def test_profiler_loads_lazily():
    code = "import sys, rstorch; assert 'rstorch.profiler' not in sys.modules; " \
           "assert 'rstorch.autograd.profiler' not in sys.modules; import rstorch.profiler"
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})
    assert torch.profiler.profile is profile
    assert torch.autograd.profiler.record_function is record_function


def test_autograd_profiler_names():
    A = torch.autograd
    for name in ("ProfilerState", "DeviceType", "ProfilerActivity"):
        assert {m: int(v) for m, v in getattr(A, name).__members__.items()} == FIXTURE["enums"][name]
    assert A.kineto_available() is False and torch.profiler.kineto_available() is False
    config = A.ProfilerConfig(A.ProfilerState.CPU, True, False, False, False, False, None)
    assert config.state is A.ProfilerState.CPU and config.report_input_shapes is True
    with pytest.raises(TypeError, match="No constructor defined"):
        A.ProfilerEvent()
    with pytest.raises(RuntimeError, match="Trying to create a SavedTensor object from Python is forbidden."):
        A.SavedTensor()
    with profile() as prof:
        torch.ones(1) + 1
    assert isinstance(torch.autograd._profiler_hooks.ProfilerEvent, type)
    assert prof.events()[0].name == "aten::ones"


def test_enforce_grad_layout_policy():
    from rstorch.autograd._compat import _is_grad_layout_enforcement_enabled as enabled
    A = torch.autograd
    assert enabled()
    with A.enforce_grad_layout_policy(False):
        assert not enabled()
        p = torch.ones(2, 3, requires_grad=True)
        (p * 2).sum().backward()
        assert p.grad.tolist() == [[2.0] * 3] * 2
    assert enabled()

    @A.enforce_grad_layout_policy(False)
    def inside():
        return enabled()
    assert enabled() and inside() is False and enabled()
    A.enforce_grad_layout_policy(False)
    assert not enabled()
    A.enforce_grad_layout_policy(True)
    assert enabled()


def test_nested_io_function():
    class MulAdd(torch.autograd.NestedIOFunction):
        def forward_extended(self, pair, c):
            a, b = pair
            self.save_for_backward(pair, c)
            return a * b, (a + c,)

        def backward_extended(self, g_prod, g_sum):
            (a, b), c = self.saved_tensors
            (g,) = g_sum
            return (g_prod * b + g, g_prod * a), g

    a = torch.tensor([1.0, 2.0], requires_grad=True, dtype=torch.float64)
    b = torch.tensor([3.0, 4.0], requires_grad=True, dtype=torch.float64)
    c = torch.tensor([5.0, 6.0], requires_grad=True, dtype=torch.float64)
    prod, (total,) = MulAdd()((a, b), c)
    assert prod.tolist() == [3.0, 8.0] and total.tolist() == [6.0, 8.0]
    (prod.sum() + 2 * total.sum()).backward()
    assert a.grad.tolist() == [5.0, 6.0] and b.grad.tolist() == [1.0, 2.0] and c.grad.tolist() == [2.0, 2.0]
    with pytest.raises(NotImplementedError):
        torch.autograd.NestedIOFunction().forward_extended()


def test_optimizer_steps_are_ranges_named_as_pytorch():
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with profile() as prof:
        opt.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        opt.step()
    found = names(prof)
    assert "Optimizer.zero_grad#SGD.zero_grad" in found and "Optimizer.step#SGD.step" in found
    step = next(e for e in prof.events() if e.name == "Optimizer.step#SGD.step")
    assert step.is_user_annotation


def test_acc_events_keeps_earlier_cycles(monkeypatch):
    def run(acc):
        calls = []

        def ready(prof):
            calls.append(names(prof).count("aten::add"))
        with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=3), acc_events=acc,
                     on_trace_ready=ready) as prof:
            for _ in range(8):
                torch.ones(1) + 1
                prof.step()
        return calls, names(prof).count("aten::add")
    # As PyTorch 2.15 gives it: each trace holds the cycles so far.
    assert run(True) == ([1, 2, 3], 3)
    monkeypatch.setattr(torch.profiler.profiler, "_warned_clearing", False)
    with pytest.warns(UserWarning, match="Profiler clears events at the end of each cycle"):
        assert run(False) == ([1, 1, 1], 1)


def test_backward_nodes_recorded_inside_the_backward_call():
    """The engine's nodes appear as PyTorch names them: `autograd::engine::evaluate_function:
    <node>` around `<node>`, inside the `autograd::backward` (or `autograd::grad`) that ran them,
    once per evaluated node, within its span."""
    x = torch.randn(8, 5, requires_grad=True)
    w = torch.randn(5, 3, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        ((x @ w).relu() * 2).sum().backward()
        torch.autograd.grad((x.exp()).sum(), x)
    events = prof.events()
    backward, grad = [e for e in events if e.name in ("autograd::backward", "autograd::grad")]
    assert (backward.name, grad.name) == ("autograd::backward", "autograd::grad")
    evaluated = [e for e in events if e.name.startswith("autograd::engine::evaluate_function: ")]
    under_backward = [e.name.split(": ")[1] for e in evaluated if e.cpu_parent is backward]
    assert under_backward[:4] == ["SumBackward0", "MulBackward0", "ReluBackward0", "MmBackward0"]
    assert under_backward.count("AccumulateGrad") == 2 and len(under_backward) == 6
    assert [e.name.split(": ")[1] for e in evaluated if e.cpu_parent is grad] == ["SumBackward0", "ExpBackward0"]
    for e in evaluated:
        (inner,) = e.cpu_children
        assert inner.name == e.name.split(": ")[1]
        parent = e.cpu_parent
        assert parent.time_range.start <= e.time_range.start <= e.time_range.end <= parent.time_range.end
    # The nodes' time is no longer the backward call's own.
    assert backward.self_cpu_time_total < backward.cpu_time_total
    # Nothing is recorded once the profiler stopped.
    ((x * 3).sum()).backward()
    assert torch._C._backward_records() == []
