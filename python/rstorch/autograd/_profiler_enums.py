"""The profiler's enums and its configuration record, shaped as PyTorch's (pybind11 enums: members
print as `ProfilerActivity.CPU`, convert with int(), and do not equal plain ints)."""
import enum


class _Enum(enum.Enum):
    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __hash__(self):
        return self.value


class ProfilerActivity(_Enum):
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerState(_Enum):
    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_PRIVATEUSE1 = 9


class DeviceType(_Enum):
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    MTIA = 19
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    PrivateUse1 = 20


class ProfilerConfig:
    """What a profiler records: its state and the optional data it collects."""

    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops, with_modules,
                 experimental_config, trace_id=""):
        if not isinstance(state, ProfilerState):
            raise TypeError(f"__init__(): incompatible function arguments: state must be a ProfilerState, "
                            f"got {type(state).__name__}")
        self.state = state
        self.report_input_shapes = bool(report_input_shapes)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        self.with_modules = bool(with_modules)
        self.experimental_config = experimental_config
        self.trace_id = trace_id


def kineto_available():
    """False: rstorch's profiler is its own, not Kineto."""
    return False
