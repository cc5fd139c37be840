"""The profiler on a whole training step (issue 25's criterion): the table lists the step's ops, their
self times add up to the step's span, and the Chrome trace of the step is valid JSON with those ops
nested in the step. Only the profiler's own clock is used (the host may be loaded)."""
import json

import pytest

import rstorch as torch
import rstorch.nn.functional as F
from rstorch.profiler import ProfilerActivity, profile, record_function

STEP_OPS = ["aten::conv2d", "aten::relu", "aten::max_pool2d", "aten::flatten", "aten::linear",
            "aten::cross_entropy_loss", "autograd::backward", "Optimizer.zero_grad#SGD.zero_grad",
            "Optimizer.step#SGD.step"]


@pytest.fixture(scope="module")
def profiled_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 12 * 12, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    # Big enough a batch that the ops, not the Python between them, take the step's time.
    x, target = torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,))

    def step():
        optimizer.zero_grad()
        F.cross_entropy(model(x), target).backward()
        optimizer.step()
    step()  # the momentum buffers exist from here on: every profiled step is alike
    # The profiler's clock is the wall clock, so on a loaded host the Python between ops (the
    # step's own self time) can be stretched by preemption. Profile a few steps and keep the one
    # the ops cover best: a profiler that loses ops fails on every try, a busy host only on some.
    best, best_coverage = None, -1.0
    for _ in range(5):
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            with record_function("train_step"):
                step()
        coverage = _ops_coverage(prof)
        if coverage > best_coverage:
            best, best_coverage = prof, coverage
        if coverage >= 0.9:
            break
    return best


def _ops_coverage(prof):
    """The share of the step's span that the ops' self times account for."""
    (span,) = [e for e in prof.events() if e.name == "train_step"]
    ops_self = sum(e.self_cpu_time_total for e in prof.key_averages() if e.key != "train_step")
    return ops_self / span.cpu_time_total


def test_table_lists_the_steps_ops_with_self_times_adding_up_to_the_step(profiled_step):
    prof = profiled_step
    (span,) = [e for e in prof.events() if e.name == "train_step"]
    averages = prof.key_averages()
    names = {e.key for e in averages}
    assert set(STEP_OPS) <= names
    # Every event lies inside the step: self times (the step's own gaps between ops included)
    # partition its span.
    assert sum(e.self_cpu_time_total for e in averages) == pytest.approx(span.cpu_time_total, rel=1e-6)
    ops_self = sum(e.self_cpu_time_total for e in averages if e.key != "train_step")
    assert 0.9 * span.cpu_time_total <= ops_self <= span.cpu_time_total
    table = averages.table(sort_by="self_cpu_time_total")
    rows = {line.split()[0] for line in table.splitlines()[3:-2]}
    assert set(STEP_OPS) | {"train_step"} <= rows
    total_line = table.splitlines()[-1]
    assert total_line.startswith("Self CPU time total: ")


def test_chrome_trace_of_the_step(profiled_step, tmp_path):
    path = tmp_path / "step.json"
    profiled_step.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    (span,) = [e for e in complete if e["name"] == "train_step"]
    assert span["cat"] == "user_annotation"
    assert set(STEP_OPS) <= {e["name"] for e in complete}
    for e in complete:
        assert span["ts"] <= e["ts"] and e["ts"] + e["dur"] <= span["ts"] + span["dur"] + 1e-3
    conv = next(e for e in complete if e["name"] == "aten::conv2d")
    assert conv["args"]["Input Dims"][0] == [256, 1, 28, 28]
