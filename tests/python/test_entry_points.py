"""The entry points real programs touch before any op (issue 22): `torch.compile` runs eagerly
and returns what it was given, `nn.parallel.DataParallel` on one device calls its module and
prefixes its state as PyTorch's does, `DistributedDataParallel` without a process group is
PyTorch's ValueError."""
import pytest

import rstorch


def test_compile_returns_the_model_and_works_as_a_decorator():
    model = rstorch.nn.Linear(3, 2)
    assert rstorch.compile(model) is model
    assert rstorch.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False) is model

    @rstorch.compile
    def double(x):
        return 2 * x

    @rstorch.compile(backend="eager")
    def triple(x):
        return 3 * x

    assert double(rstorch.ones(2)).tolist() == [2.0, 2.0]
    assert triple(rstorch.ones(2)).tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        rstorch.compile(model, mode="default", options={"a": 1})


def test_data_parallel_on_one_device():
    import rstorch.nn.parallel
    model = rstorch.nn.Linear(3, 2)
    dp = rstorch.nn.DataParallel(model)
    assert rstorch.nn.parallel.DataParallel is rstorch.nn.DataParallel
    assert dp.module is model and dp.device_ids == []
    x = rstorch.randn(4, 3)
    assert dp(x).tolist() == model(x).tolist()
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert repr(dp).startswith("DataParallel(\n  (module): Linear(")
    assert rstorch.nn.parallel.data_parallel(model, x).tolist() == model(x).tolist()


def test_distributed_data_parallel_needs_a_process_group():
    from rstorch.nn.parallel import DistributedDataParallel
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(rstorch.nn.Linear(1, 1))
