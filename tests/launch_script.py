"""A torchrun-style script (nanoGPT's shape), run by tests/python/test_distributed.py through
`python -m rstorch.distributed.run --nproc-per-node N`: it reads PyTorch's launch variables and
all-reduces its rank."""
import os
import sys

import rstorch as torch
from rstorch.distributed import all_reduce, destroy_process_group, init_process_group

ddp = int(os.environ.get("RANK", -1)) != -1
assert ddp, "the launcher sets RANK"
init_process_group(backend="gloo")
rank, local_rank, world_size = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
assert torch.distributed.get_rank() == rank == local_rank and torch.distributed.get_world_size() == world_size
assert torch.distributed.is_torchelastic_launched()
total = torch.tensor([float(rank)])
all_reduce(total)
assert total.item() == world_size * (world_size - 1) / 2
destroy_process_group()
print(f"OK {rank} {' '.join(sys.argv[1:])}", flush=True)
