"""`torch.profiler.profile` over the recording of `autograd.profiler`: activities, schedules
(wait / warmup / active cycles) driven by `step()`, and `on_trace_ready` at the end of each active
cycle."""
import enum
import json
import os
import socket
import time
import warnings
from functools import partial

from ..autograd import profiler as _prof
from ..autograd._profiler_enums import ProfilerActivity

__all__ = ["ProfilerAction", "profile", "schedule", "supported_activities", "tensorboard_trace_handler"]

PROFILER_STEP_NAME = "ProfilerStep"
_warned_clearing = False  # the warning that each cycle's events replace the last's is given once


def supported_activities():
    """The activities this build can profile: the CPU (rstorch records no device kernels)."""
    return {ProfilerActivity.CPU}


def _parse_activities(activities):
    """The set of activities asked for: ProfilerActivity members, or dicts of them to lists of
    activity types."""
    found = set()
    for item in activities:
        if isinstance(item, ProfilerActivity):
            if item in found:
                raise ValueError(f"Activity {item} specified more than once")
            found.add(item)
        elif isinstance(item, dict):
            for key in item:
                if key in found:
                    raise ValueError(f"Activity {key} specified more than once")
                found.add(key)
        else:
            raise TypeError(f"Expected ProfilerActivity or dict, got {type(item)}")
    return found


class ProfilerAction(enum.Enum):
    """What the profiler does during one step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step -> ProfilerAction function: after `skip_first` steps, cycles of `wait` idle steps,
    `warmup` steps and `active` recorded steps (the last of them RECORD_AND_SAVE), `repeat` times
    (0: until profiling ends). `skip_first_wait` drops the first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        position = step - skip_first + (wait if skip_first_wait != 0 else 0)
        if repeat > 0 and position // cycle >= repeat:
            return ProfilerAction.NONE
        phase = position % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if phase == cycle - 1 else ProfilerAction.RECORD
    return schedule_fn


def _default_schedule_fn(_):
    """Without a schedule the profiler records every step."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An `on_trace_ready` writing each trace to `dir_name/<worker>.<ns>.pt.trace.json[.gz]`, the
    files TensorBoard's profiler plugin reads; `worker_name` defaults to `<hostname>_<pid>`."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class _KinetoProfile:
    """The recording one cycle makes: `prepare_trace` sets up a fresh recorder, `start_trace` and
    `stop_trace` bound what it records."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = _parse_activities(activities) if activities is not None else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.profiler = None
        self.preset_metadata = {}
        self.metadata = {}
        self._recording = False
        self.use_device = None
        for activity, device in ((ProfilerActivity.CUDA, "cuda"), (ProfilerActivity.XPU, "xpu"),
                                 (ProfilerActivity.MTIA, "mtia"), (ProfilerActivity.HPU, "hpu"),
                                 (ProfilerActivity.PrivateUse1, "wgpu")):
            if activity in self.activities:
                self.use_device = device
                break

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        global _warned_clearing
        if self.profiler is not None and not self.acc_events and not _warned_clearing:
            _warned_clearing = True
            warnings.warn("Warning: Profiler clears events at the end of each cycle. Only events from the current "
                          "cycle will be reported. To keep events across cycles, set acc_events=True.", stacklevel=2)
        if self.profiler is not None and self.acc_events:
            return
        self.profiler = _prof.profile(use_cpu=ProfilerActivity.CPU in self.activities, use_device=self.use_device,
                                      record_shapes=self.record_shapes, with_flops=self.with_flops,
                                      profile_memory=self.profile_memory, with_stack=self.with_stack,
                                      with_modules=self.with_modules, experimental_config=self.experimental_config,
                                      acc_events=self.acc_events,
                                      custom_trace_id_callback=self.custom_trace_id_callback)

    def start_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.metadata = dict(self.preset_metadata)
        self._recording = True
        self.profiler._start()

    def stop_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exiting")
        self.profiler._stop()
        self._recording = False

    def _recorded(self):
        if self.profiler is None or self.profiler.function_events is None:
            raise AssertionError("Expected profiling results")
        return self.profiler

    def export_chrome_trace(self, path, use_python_export=False, cuda_graph_annotations=None, graph_lanes="none",
                            default_stream=7):
        """Writes the last cycle's ranges as Chrome trace JSON (gzipped when `path` ends with .gz)."""
        self._recorded().export_chrome_trace(path, metadata=self.metadata)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        return self._recorded().export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False,
                     include_python_functions=False):
        """The last cycle's events added up per name (and input shapes when grouped by them)."""
        return self._recorded().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name,
                                             include_python_functions)

    def events(self):
        """The last cycle's events (an EventList)."""
        return self._recorded().function_events

    def add_metadata(self, key, value):
        """A string entry of the exported trace's top level (while recording: the trace of the
        cycle that records takes it)."""
        if self._recording:
            self.metadata[key] = value

    def add_metadata_json(self, key, value):
        """An entry of the exported trace's top level, given as JSON text (while recording)."""
        if self._recording:
            self.metadata[key] = json.loads(value)

    def preset_metadata_json(self, key, value):
        """Like `add_metadata_json`, for every cycle's trace (set before profiling starts)."""
        self.preset_metadata[key] = json.loads(value)


class profile(_KinetoProfile):
    """The profiler context manager: records rstorch's ops and `record_function` ranges on the CPU.

    Without a `schedule` it records from `__enter__` to `__exit__` and calls `on_trace_ready` at the
    end. With one, `step()` marks each step: the schedule says which steps are skipped, warmed up or
    recorded (each recorded step is a `ProfilerStep#N` range) and `on_trace_ready(prof)` runs at the
    end of each active cycle. CUDA and other device activities profile nothing without that device,
    and warn as PyTorch does."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        activities_set = _parse_activities(activities) if activities is not None else supported_activities()
        if len(activities_set) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config, execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events, custom_trace_id_callback=custom_trace_id_callback,
                         post_processing_timeout_s=post_processing_timeout_s)
        self.schedule = schedule if schedule else _default_schedule_fn
        self.record_steps = bool(schedule)
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        action = self.schedule(self.step_num)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.current_action = action
        A = ProfilerAction
        prepare, start, stop, ready = self.prepare_trace, self.start_trace, self.stop_trace, self._trace_ready
        # What each change of action does, as PyTorch's profiler does it (None: the profiler stops).
        self.action_map = {
            (A.NONE, A.NONE): [], (A.NONE, A.WARMUP): [prepare], (A.NONE, A.RECORD): [prepare, start],
            (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [partial(warnings.warn, "Incorrect schedule: WARMUP followed by NONE"), start, stop],
            (A.WARMUP, A.WARMUP): [], (A.WARMUP, A.RECORD): [start], (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [partial(warnings.warn, "Incorrect schedule: RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [partial(warnings.warn, "Incorrect schedule: RECORD followed by WARMUP"), stop],
            (A.RECORD, A.RECORD): [], (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready], (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prepare, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prepare, start],
            (A.WARMUP, None): [start, stop], (A.RECORD, None): [stop, ready], (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self):
        self._exit_step()
        self._transit_action(self.current_action, None)

    def step(self):
        """Signals that the next step begins: closes this step's range and does what the
        schedule's change of action calls for."""
        self._exit_step()
        previous = self.current_action
        action = self.schedule(self.step_num + 1)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        self.step_num += 1
        self.current_action = action
        self._transit_action(previous, action)
        self._enter_step()

    def _enter_step(self):
        if self.record_steps:
            self.step_rec_fn = _prof.record_function(f"{PROFILER_STEP_NAME}#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _exit_step(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def set_custom_trace_id_callback(self, callback):
        """Sets the trace id generator, called at the start of each cycle."""
        self.custom_trace_id_callback = callback

    def get_trace_id(self):
        return None if self.profiler is None else self.profiler.trace_id

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action)) or ():
            action()
