"""`rstorch.distributed` without process groups: what a program checks first, with PyTorch's
errors for the rest (texts as PyTorch 2.15's for an uninitialised default group)."""
import pytest

import rstorch as torch
import rstorch.distributed as dist

NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


def test_single_process_checks():
    assert dist.is_available() is False and dist.is_initialized() is False
    assert not (dist.is_gloo_available() or dist.is_nccl_available() or dist.is_mpi_available())
    rank = dist.get_rank() if dist.is_initialized() else 0
    assert rank == 0 and dist.group.WORLD is None
    assert dist.Backend("GLOO") == "gloo" and dist.ReduceOp.SUM == "SUM"


def test_torchelastic_launch_follows_the_environment(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "1")
    assert dist.is_torchelastic_launched() is True


@pytest.mark.parametrize("call", [dist.get_rank, dist.get_world_size, dist.barrier,
                                  lambda: dist.all_reduce(torch.ones(2))])
def test_group_operations_raise_pytorchs_error(call):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == NO_GROUP


def test_init_process_group_says_it_cannot():
    with pytest.raises(RuntimeError, match="cannot create process groups"):
        dist.init_process_group("gloo")


def test_distributed_sampler_without_a_group_raises_pytorchs_error():
    with pytest.raises(ValueError) as e:
        torch.utils.data.DistributedSampler(list(range(4)))
    assert str(e.value) == NO_GROUP
