"""wgpu kernel times for the profiler's device activity: timing is switched on while a profile with
a device activity records, and at its end each timed kernel becomes a device event, its time
added to the op that launched it (the innermost range open on the host at the launch)."""
from time import perf_counter_ns

from .. import _C
from ._profiler_enums import DeviceType

_active = 0  # profiles that time kernels now (timing stays on until the last one stops)


def available():
    """Whether a wgpu device exists to time kernels on (a build without wgpu has none)."""
    return _C._wgpu_is_built() and _C._wgpu_is_available()


def start():
    global _active
    if _active == 0:
        _C._wgpu_kernel_times()  # kernels timed before this profile are not its own
    _active += 1
    _C._wgpu_kernel_timing(True)


def stop():
    """Kernel records (entry point, launch ns, start ns, duration ns) on `perf_counter_ns`'s clock,
    after the kernels launched so far have run."""
    global _active
    # Kernels still in an unsubmitted batch are timed when it is submitted: submit and wait.
    _C._wgpu_synchronize(0)
    _active -= 1
    if _active == 0:
        _C._wgpu_kernel_timing(False)
    records = _C._wgpu_kernel_times()
    now = perf_counter_ns()
    return [(entry, now + launched, now + start, duration) for entry, _shader, launched, start, duration in records]


def device_events(kernels, ranges, cpu_events, start_ns, use_device, first_id):
    """Device `FunctionEvent`s of the `kernels` launched since `start_ns` (`stop` drains only those
    launched before the profile stopped), each
    also counted as a kernel of the innermost of `ranges` (events: `cpu_events`) open at its launch."""
    from .profiler_util import FunctionEvent
    device_type = DeviceType.CUDA if use_device == "cuda" else DeviceType.PrivateUse1
    events = []
    for entry, launched, start, duration in kernels:
        if launched < start_ns:
            continue
        start_us = (start - start_ns) / 1000.0
        event = FunctionEvent(id=first_id + len(events), name=entry, thread=0, start_us=start_us,
                              end_us=start_us + duration / 1000.0, use_device=use_device, device_type=device_type)
        events.append(event)
        owner = None
        for r in ranges:
            if r.start_ns <= launched <= r.end_ns and (owner is None or r.start_ns >= owner.start_ns):
                owner = r
        if owner is not None:
            cpu_events[id(owner)].append_kernel(entry, 0, duration / 1000.0)
    return events
