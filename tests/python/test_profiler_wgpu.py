"""wgpu kernel times in the profiler: with a device activity (ProfilerActivity.PrivateUse1, rstorch's
"wgpu", or CUDA on a real GPU) the kernels become device events with the table's device columns and
a kernel lane in the Chrome trace, where the adapter offers timestamp queries; elsewhere, and
without device activity, the profile holds CPU ops only."""
import json

import rstorch as torch
from _wgpu_helpers import needs_gpu
from rstorch import _C
from rstorch.autograd import profiler as legacy
from rstorch.autograd._profiler_enums import DeviceType
from rstorch.profiler import ProfilerActivity, profile


def _times_kernels():
    return torch.wgpu.is_available() and _C._wgpu_kernel_timing_supported(0)


def _gpu_work():
    x = torch.randn(64, 64).to("wgpu")
    with torch.profiler.record_function("gpu-block"):
        y = (x @ x).relu()
        z = torch.exp(y) + 1
    return z.cpu()


def _kernels(prof):
    return [e for e in prof.events() if e.device_type != DeviceType.CPU]


@needs_gpu
def test_kernel_events_with_device_activity(tmp_path):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        _gpu_work()
    kernels = _kernels(prof)
    table = prof.key_averages().table()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    lane = [e for e in trace if e.get("cat") == "kernel"]
    if not _times_kernels():
        # The documented fallback: an adapter without timestamp queries times nothing, and says nothing.
        assert kernels == [] and lane == [] and "Self WGPU" not in table
        return
    assert len(kernels) >= 3, [e.name for e in kernels]
    assert all(e.name and e.device_type == DeviceType.PrivateUse1 for e in kernels)
    assert all(e.device_time_total > 0 and e.cpu_time_total == 0 for e in kernels)
    # Each kernel's time is counted in the op that launched it, and in the ranges around that op.
    ops = {e.name: e for e in prof.events() if e.device_type == DeviceType.CPU}
    assert any(e.self_device_time_total > 0 for name, e in ops.items() if name.startswith("aten::"))
    inside = sum(e.device_time_total for e in ops.values() if e.cpu_parent is ops["gpu-block"])
    assert ops["gpu-block"].device_time_total >= inside > 0
    cpu_self = sum(e.self_device_time_total for e in prof.events() if e.device_type == DeviceType.CPU)
    assert 0 < cpu_self <= sum(e.device_time_total for e in kernels) + 1e-6
    for column in ("Self WGPU", "Self WGPU %", "WGPU total", "WGPU time avg"):
        assert column in table
    assert "Self WGPU time total:" in table
    assert sorted(e["name"] for e in lane) == sorted(e.name for e in kernels)
    assert all(e["dur"] > 0 and e["ph"] == "X" and e["tid"] == 7 for e in lane)
    assert {e["pid"] for e in lane}.isdisjoint({e["pid"] for e in trace if e.get("cat") == "cpu_op"})
    # Timing is off again: kernels after the profile are not logged.
    _gpu_work()
    assert _C._wgpu_kernel_times() == []


@needs_gpu
def test_legacy_profiler_use_device_wgpu():
    with legacy.profile(use_device="wgpu") as prof:
        _gpu_work()
    kernels = [e for e in prof.function_events if e.device_type != DeviceType.CPU]
    assert bool(kernels) == _times_kernels()


@needs_gpu
def test_no_device_activity_no_kernels():
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        _gpu_work()
    assert _kernels(prof) == []
    table = prof.key_averages().table()
    assert "WGPU" not in table and "CUDA" not in table


def test_cpu_profile_unchanged():
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.ones(3) * 2
    assert [e.name for e in prof.events()] == ["aten::ones", "aten::mul"]
    assert all(e.device_time_total == 0 for e in prof.events())
    header = prof.key_averages().table().splitlines()[1]
    assert header.split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total", "CPU",
                              "time", "avg", "#", "of", "Calls"]
