"""The profiler's results as PyTorch gives them: `FunctionEvent` (one recorded range),
`FunctionEventAvg` (ranges of one key added up), `EventList` (with `table`, `key_averages`,
`total_average` and `export_chrome_trace`)."""
import gzip
import json
import os

from ._profiler_enums import DeviceType
from ._profiler_table import _format_time, build_table

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel", "MemRecordsAcc", "StringTable"]


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class Kernel:
    def __init__(self, name, device, duration):
        self.name = name
        self.device = device
        self.duration = duration


class StringTable(dict):
    def __missing__(self, key):
        self[key] = key
        return key


class MemRecordsAcc:
    """Memory records by time (rstorch's profiler records none)."""

    def __init__(self, mem_records):
        self._records = list(mem_records)

    def in_interval(self, start_us, end_us):
        return iter(())


class _TimeStrings:
    """The `*_str` forms and the device-time aliases both event kinds share."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    cuda_time = device_time

    @property
    def cuda_time_total(self):
        return self.device_time_total

    @property
    def self_cuda_time_total(self):
        return self.self_device_time_total

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def device_time_str(self):
        return _format_time(self.device_time)

    @property
    def device_time_total_str(self):
        return _format_time(self.device_time_total)

    @property
    def self_device_time_total_str(self):
        return _format_time(self.self_device_time_total)


class FunctionEvent(_TimeStrings):
    """One op call or `record_function` block, times in microseconds from the profiler's start."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, use_device=None, cpu_memory_usage=0, device_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 device_resource_id=None, is_legacy=False, flops=None, trace_name=None, concrete_inputs=None,
                 kwinputs=None, is_user_annotation=False, is_python_function=False, activity_type=None,
                 flow_id=None, flow_type=None, flow_start=None, external_id=0, linked_correlation_id=0,
                 extra_meta=None, structured_input_shapes=None, structured_input_strides=None, input_dtypes=None,
                 python_id=-1, python_parent_id=-1, python_module_id=-1, typed_metadata=None):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.concrete_inputs = concrete_inputs if concrete_inputs is not None else []
        self.kwinputs = kwinputs if kwinputs is not None else {}
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = device_resource_id if device_resource_id is not None else thread
        self.is_legacy = is_legacy
        self.flops = flops if flops is not None else 0
        self.is_user_annotation = is_user_annotation
        self.is_python_function = is_python_function
        self.activity_type = activity_type
        self.external_id = external_id
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.overload_name = overload_name if overload_name is not None else ""
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1
        self.native_thread = thread

    @property
    def key(self):
        return self.name

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    self_cuda_memory_usage = self_device_memory_usage

    @property
    def cpu_time_total(self):
        return 0 if self.device_type != DeviceType.CPU else self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        """A CPU op's kernels' time and its children's; a kernel's own duration."""
        if self.is_async or not self.use_device:
            return 0
        if self.device_type == DeviceType.CPU:
            return sum(k.duration for k in self.kernels) + sum(c.device_time_total for c in self.cpu_children)
        return self.time_range.elapsed_us()

    @property
    def self_device_time_total(self):
        if self.is_async or not self.use_device:
            return 0
        if self.device_type == DeviceType.CPU:
            return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)
        return self.device_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
                f"device_type={self.device_type} node_id={self.node_id} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} name={self.name} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"is_async={self.is_async} is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


class FunctionEventAvg(_TimeStrings):
    """The events of one key added up (`key_averages()`), or all of them (`total_average()`)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False

    def add(self, other):
        if self.key is None:
            # The first event added gives the key and the attributes all of them share.
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        return self._accumulate(other)

    def _accumulate(self, other):
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_cuda_time={self.self_device_time_total_str} "
                f"cuda_time={self.device_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} cuda_memory_usage={self.device_memory_usage}>")


class EventList(list):
    """A list of events with the summaries PyTorch's profiler gives."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False, **kwargs):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        return build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, profile_memory=self._profile_memory,
                           top_level_events_only=top_level_events_only, time_unit=time_unit,
                           use_device=self._use_device)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False,
                     include_python_functions=False):
        """The events added up per name (and input shapes, when grouped by them), in the order
        each key first occurs."""
        averages = {}
        for event in self:
            if getattr(event, "is_python_function", False) and not include_python_functions:
                continue
            key = (event.key, event.node_id, str(event.device_type), event.is_legacy, event.is_user_annotation)
            if group_by_input_shapes:
                key += (str(event.input_shapes),)
            if group_by_overload_name:
                key += (event.overload_name,)
            if group_by_stack_n > 0:
                key += tuple(event.stack[:group_by_stack_n])
            averages.setdefault(key, FunctionEventAvg()).add(event)
        result = EventList(averages.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                           with_flops=self._with_flops)
        for average in result:
            average.stack = average.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                average.input_shapes = ""
            if not group_by_overload_name:
                average.overload_name = ""
        return result

    def total_average(self):
        """All events added up, whatever their keys."""
        total = FunctionEventAvg()
        for event in self:
            total._accumulate(event)
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """Writes the events as Chrome trace JSON (chrome://tracing, Perfetto), gzipped when
        `path` ends with `.gz`."""
        write_chrome_trace(path, self)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total", "self_privateuse1_time_total"]

    def export_stacks(self, path, metric):
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: " + str(self.supported_export_stacks_metrics()))
        with open(path, "w") as f:
            for event in self:
                if event.stack:
                    value = getattr(event, metric.replace("cuda", "device").replace("xpu", "device"))
                    f.write(";".join(reversed(event.stack)) + f" {int(value)}\n")


def write_chrome_trace(path, events, base_ns=0, metadata=None, pid=None, device_stream=7):
    """Chrome trace JSON: one complete ('X') event per range, in microseconds; device kernels on the
    device's own pid and the `device_stream` tid."""
    pid = os.getpid() if pid is None else pid
    trace = []
    threads = sorted({getattr(e, "native_thread", e.thread) for e in events if e.device_type == DeviceType.CPU})
    trace.append({"ph": "M", "name": "process_name", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python"}})
    trace.append({"ph": "M", "name": "process_labels", "ts": 0, "pid": pid, "tid": 0, "args": {"labels": "CPU"}})
    for tid in threads:
        trace.append({"ph": "M", "name": "thread_name", "ts": 0, "pid": pid, "tid": tid,
                      "args": {"name": f"thread {tid} (python)"}})
    devices = sorted({e.device_index for e in events if e.device_type != DeviceType.CPU})
    for device in devices:
        # Device kernels go on their own process (the device's index) and thread (the stream), as PyTorch's do.
        trace.append({"ph": "M", "name": "process_name", "ts": 0, "pid": device, "tid": 0,
                      "args": {"name": f"GPU {device}"}})
        trace.append({"ph": "M", "name": "thread_name", "ts": 0, "pid": device, "tid": device_stream,
                      "args": {"name": f"stream {device_stream}"}})
    for index, e in enumerate(events):
        if e.device_type != DeviceType.CPU:
            trace.append({"ph": "X", "cat": "kernel", "name": e.name, "pid": e.device_index, "tid": device_stream,
                          "ts": e.time_range.start, "dur": e.time_range.elapsed_us(),
                          "args": {"External id": e.id, "device": e.device_index, "stream": device_stream}})
            continue
        args = {"External id": e.id, "Ev Idx": index}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        trace.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.trace_name or e.name,
                      "pid": pid, "tid": getattr(e, "native_thread", e.thread), "ts": e.time_range.start,
                      "dur": e.time_range.elapsed_us(), "args": args})
    document = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "baseTimeNanoseconds": base_ns,
                "traceEvents": trace, "traceName": str(path)}
    document.update(metadata or {})
    text = json.dumps(document, allow_nan=False, default=str)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

