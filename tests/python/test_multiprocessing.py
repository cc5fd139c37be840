"""torch.multiprocessing and CPU shared memory (issue 22 item 2): tensors and modules passed to
other processes are the same memory there, so hogwild training (pytorch/examples mnist_hogwild)
updates one model. Semantics are PyTorch 2.15's."""
import multiprocessing
import textwrap

import numpy as np
import pytest

import rstorch
import rstorch.multiprocessing as mp


@pytest.mark.parametrize("dtype", [rstorch.float32, rstorch.float64, rstorch.int64, rstorch.bool])
def test_share_memory_in_place_keeps_values(dtype):
    t = (rstorch.arange(12).reshape(3, 4) % 3).to(dtype)
    expected = t.numpy().copy()
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and t.shape == (3, 4) and t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), expected)
    assert t.share_memory_() is t  # already shared: nothing moves
    view = t[1:]
    assert view.is_shared()  # a view into the segment is shared memory too


def test_module_share_memory_keeps_parameters_and_training():
    model = rstorch.nn.Linear(3, 2)
    weight = model.weight
    before = weight.detach().numpy().copy()
    assert model.share_memory() is model
    assert model.weight is weight and isinstance(weight, rstorch.nn.Parameter) and weight.requires_grad
    assert all(p.is_shared() for p in model.parameters())
    np.testing.assert_array_equal(weight.detach().numpy(), before)
    opt = rstorch.optim.SGD(model.parameters(), lr=0.5)
    model(rstorch.ones(1, 3)).sum().backward()
    opt.step()
    np.testing.assert_allclose(weight.detach().numpy(), before - 0.5, rtol=1e-6)
    assert weight.is_shared()


def _fork_worker(q, done):
    t = q.get()
    t.add_(1)
    done.put(t.is_shared())


def test_tensor_sent_through_a_queue_is_the_same_memory():
    ctx = mp.get_context("fork")
    q, done = ctx.Queue(), ctx.Queue()
    t = rstorch.zeros(4)
    q.put(t)  # moved to shared memory on the way, as PyTorch does
    p = ctx.Process(target=_fork_worker, args=(q, done))
    p.start()
    assert done.get(timeout=60) is True
    p.join(timeout=60)
    assert p.exitcode == 0
    assert t.is_shared()
    assert t.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_spawned_processes_update_one_module(tmp_path, monkeypatch):
    # The target must be importable in a fresh interpreter: a module in tmp_path (spawn passes
    # the parent's sys.path to the child).
    (tmp_path / "hogwild_worker.py").write_text(textwrap.dedent("""
        import rstorch

        def train(rank, model):
            opt = rstorch.optim.SGD(model.parameters(), lr=1.0)
            for p in model.parameters():
                p.grad = rstorch.full_like(p, -(rank + 1.0))
            opt.step()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import hogwild_worker

    ctx = mp.get_context("spawn")
    model = rstorch.nn.Linear(2, 2)
    with rstorch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    model.share_memory()
    procs = [ctx.Process(target=hogwild_worker.train, args=(rank, model)) for rank in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    assert model.weight.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert model.bias.tolist() == [3.0, 3.0]


def test_namespace_and_sharing_strategy():
    assert mp.Process is multiprocessing.Process and mp.Queue is multiprocessing.Queue
    assert mp.set_start_method is multiprocessing.set_start_method
    assert rstorch.multiprocessing is mp
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus', expected one of"):
        mp.set_sharing_strategy("bogus")
