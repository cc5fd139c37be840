"""`torch.autograd.profiler`: the profiler context manager, `record_function` ranges, and the
NVTX/ITT annotation managers (no-ops: rstorch emits no NVTX or ITT ranges)."""
import functools
import time
import warnings

from . import _profiler_hooks as _hooks
from . import _profiler_kernels as _kernels
from ._profiler_enums import DeviceType, ProfilerActivity, ProfilerConfig, ProfilerState, kineto_available
from .profiler_util import EventList, FunctionEvent, MemRecordsAcc, write_chrome_trace

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent", "DeviceType",
           "ProfilerActivity", "ProfilerConfig", "ProfilerState", "kineto_available", "MemRecordsAcc"]

# The devices PyTorch's profiler takes as `use_device`, each with the check of its availability; PyTorch adds
# its PrivateUse1 backend's name, which for rstorch is "wgpu" (any adapter, emulated ones included).
_VALID_DEVICES = ("cuda", "xpu", "mtia", "hpu", "wgpu")


def _device_available(device):
    if device == "cuda":
        from .. import cuda
        return cuda.is_available()
    if device == "wgpu":
        return _kernels.available()
    return False


class profile:
    """Records the ops run (and `record_function` blocks) between `__enter__` and `__exit__`.

    Results: `function_events` (an `EventList`), `key_averages()`, `table()`, `total_average()`,
    `export_chrome_trace(path)`. Ops get CPU (host) times; with `use_device` "cuda" or "wgpu" (a
    device activity), wgpu kernels are timed too where the adapter offers timestamp queries: they
    become device events (the table's device columns, the trace's kernel lane), their time counted
    in the op that launched them. Elsewhere the device columns stay out of the table as they do in
    PyTorch without device activity."""

    def __init__(self, enabled=True, *, use_device=None, record_shapes=False, with_flops=False, profile_memory=False,
                 with_stack=False, with_modules=False, use_kineto=False, use_cpu=True, experimental_config=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None, _profiler_extensions=None):
        self.enabled = enabled
        if not enabled:
            return
        self.use_device = use_device
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.experimental_config = experimental_config
        self.custom_trace_id_callback = custom_trace_id_callback
        if with_modules:
            warnings.warn("with_modules is deprecated and will be removed in a future release. It only collects data "
                          "for TorchScript models, which are themselves deprecated, and does nothing in eager mode. "
                          "Use with_stack=True, which records nn.Module events for eager models.", FutureWarning,
                          stacklevel=2)
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError("post_processing_timeout_s must be non-negative")
        if self.use_device is not None:
            if self.use_device not in _VALID_DEVICES:
                warnings.warn(f"The {self.use_device} is not a valid device option.", stacklevel=2)
                self.use_device = None
            elif not _device_available(self.use_device):
                if self.use_device in ("cuda", "xpu", "hpu"):
                    warnings.warn(f"{self.use_device.upper()} is not available, disabling "
                                  f"{self.use_device.upper()} profiling", stacklevel=2)
                self.use_device = None
        if not use_cpu and self.use_device is None:
            raise AssertionError("No activities specified for the profiler")
        self.entered = False
        self._times_kernels = self.use_device in ("cuda", "wgpu")
        self._function_events = None
        self._old_function_events = None
        self._begin = None
        self._start_ns = None
        self._start_wall_ns = None
        self.trace_id = ""

    def config(self, create_trace_id=False):
        state = ProfilerState.KINETO if self.use_device is None else ProfilerState.KINETO_GPU_FALLBACK
        return ProfilerConfig(state, self.record_shapes, self.profile_memory, self.with_stack, self.with_flops,
                              self.with_modules, self.experimental_config, self.trace_id)

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.enabled:
            return None
        self._stop()
        return False

    def _start(self):
        self.entered = True
        # With acc_events, each recording adds to the events of the earlier ones.
        self._old_function_events = self._function_events if self.acc_events else None
        self._function_events = None
        if self.custom_trace_id_callback is not None:
            self.trace_id = self.custom_trace_id_callback()
        self._start_wall_ns = time.time_ns()
        if self._times_kernels:
            _kernels.start()
        self._begin, self._start_ns = _hooks.start(self.record_shapes)

    def _stop(self):
        ranges = _hooks.stop(self._begin, self.record_shapes)
        kernels = _kernels.stop() if self._times_kernels else ()
        events = _events_of(ranges, self._start_ns, self.use_device, self.profile_memory, self.with_flops, kernels)
        if self._old_function_events:
            events[:0] = self._old_function_events
        self._function_events = events

    def _check_finish(self):
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def __repr__(self):
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self):
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)

    @property
    def function_events(self):
        return self._function_events

    def events(self):
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        self._check_finish()
        return self._function_events.table(sort_by=sort_by, row_limit=row_limit,
                                           max_src_column_width=max_src_column_width,
                                           max_name_column_width=max_name_column_width,
                                           max_shapes_column_width=max_shapes_column_width, header=header,
                                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path, metadata=None, use_python_export=False, cuda_graph_annotations=None,
                            graph_lanes="none", default_stream=7):
        """Writes the recorded ranges as Chrome trace JSON (gzipped when `path` ends with .gz)."""
        self._check_finish()
        extra = {"trace_id": self.trace_id, "record_shapes": int(bool(self.record_shapes))}
        extra.update(metadata or {})
        write_chrome_trace(path, self._function_events, base_ns=self._start_wall_ns, metadata=extra)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self._function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False,
                     include_python_functions=False):
        self._check_finish()
        return self._function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name,
                                                  include_python_functions)

    def total_average(self):
        self._check_finish()
        return self._function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """Total CPU time, the self times of every event added up."""
        self._check_finish()
        return self._function_events.self_cpu_time_total


def _events_of(ranges, start_ns, use_device, profile_memory, with_flops, kernels=()):
    """`FunctionEvent`s of the recorded ranges (in the order they opened, which is their start
    order), children linked to their parents within the same profile, then those of the `kernels`
    launched within the profile."""
    events = {}
    for index, r in enumerate(ranges, 1):
        # Step ranges add up under one name in the summaries; the trace keeps each step's own.
        name = "ProfilerStep*" if r.user and r._name.startswith("ProfilerStep#") else r._name
        event = FunctionEvent(id=index, name=name, trace_name=r._name, thread=r.thread, start_us=(r.start_ns - start_ns) / 1000.0,
                              end_us=(r.end_ns - start_ns) / 1000.0, fwd_thread=r.thread, input_shapes=r.shapes,
                              use_device=use_device, is_user_annotation=r.user)
        event.native_thread = r.native_thread
        events[id(r)] = event
        parent = events.get(id(r.parent)) if r.parent is not None else None
        if parent is not None:
            event.set_cpu_parent(parent)
            parent.append_cpu_child(event)
    found = list(events.values())
    if kernels:
        found += _kernels.device_events(kernels, ranges, events, start_ns, use_device, len(found) + 1)
    return EventList(found, use_device=use_device, profile_memory=profile_memory, with_flops=with_flops)


class _ContextDecorator:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self._fresh():
                return fn(*args, **kwargs)
        return wrapped


class record_function(_ContextDecorator):
    """A labelled range in the profile: a context manager, or a decorator labelling each call."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self.record = None

    def _fresh(self):
        return record_function(self.name, self.args)

    def __enter__(self):
        self.record = _hooks.open_range(self.name, user=True)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return
        _hooks.close_range(self.record)
        self.record = None

    def _call_end_callbacks_on_future(self, fut):
        """Ends the range when `fut` completes instead of on exit."""
        if not self.run_callbacks_on_exit:
            raise RuntimeError("_call_end_callbacks_on_future can only be called once.")
        self.run_callbacks_on_exit = False
        record = self.record

        def done(result):
            _hooks.close_range(record)
            return result.value() if hasattr(result, "value") else result
        return fut.then(done)


class _Annotations(_ContextDecorator):
    """NVTX/ITT ranges for external profilers: rstorch emits none, so entering does nothing."""

    _name = ""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def _fresh(self):
        return type(self)(self.enabled, self.record_shapes)

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError(f"{self._name} annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.enabled:
            return None
        self.entered = False
        return False


class emit_nvtx(_Annotations):
    _name = "NVTX"


class emit_itt(_Annotations):
    _name = "ITT"


def load_nvprof(path):
    raise RuntimeError("rstorch cannot read nvprof traces: it has no CUDA profiler of its own")
