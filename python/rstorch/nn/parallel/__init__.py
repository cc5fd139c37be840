"""`nn.parallel` on one device. With no accelerator to split a batch over (PyTorch's case of no
visible CUDA device), `DataParallel` holds its module and calls it directly, as PyTorch's does
then; `DistributedDataParallel` (distributed.py) averages gradients over rstorch.distributed's process
group and refuses as PyTorch does without one."""
from ..modules.module import Module
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        # No device to replicate onto: PyTorch keeps an empty list and runs the module itself.
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
