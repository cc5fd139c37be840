"""`torch.profiler`: a CPU profiler of rstorch's ops and `record_function` ranges, with PyTorch's
schedules, steps, summary tables and Chrome traces."""
from ..autograd._profiler_enums import DeviceType, ProfilerActivity, kineto_available
from ..autograd.profiler import record_function
from .profiler import (
    ProfilerAction, _KinetoProfile, profile, schedule, supported_activities, tensorboard_trace_handler,
)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "DeviceType", "record_function"]
