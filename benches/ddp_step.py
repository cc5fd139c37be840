"""DDP step time (forward, backward, SGD step) of an MLP on the same per-rank batch: one process
against two, and how much of the gradient communication the overlap with backward hides. Run:

    mpiexec --allow-run-as-root --oversubscribe -n 1 .venv/bin/python benches/ddp_step.py
    mpiexec --allow-run-as-root --oversubscribe -n 2 .venv/bin/python benches/ddp_step.py [bucket_cap_mb]

With one process it times the plain model. With several it times, alternating in rounds:
- no_sync: DDP without communication (the compute alone),
- after backward: the same buckets all-reduced once backward has finished (no overlap),
- overlap: DDP as is (buckets start from the gradient hooks; later hooks test the ones in flight),
- overlap, no polling: buckets start from the hooks but MPI is entered again only at the end.
hidden = (after backward - overlap) / (after backward - no_sync): the share of the communication
time the overlap takes off the step. Rank 0 prints medians (ms per step)."""
import statistics
import sys
import time

import rstorch
import rstorch.distributed as dist
from rstorch import nn
from rstorch.nn.parallel import DistributedDataParallel as DDP

WIDTH, LAYERS, BATCH = 1024, 4, 64


def make_model():
    rstorch.manual_seed(0)
    layers = [nn.Linear(256, WIDTH), nn.ReLU()]
    for _ in range(LAYERS - 1):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(WIDTH, 10))


def step_times(step, steps):
    times = []
    for _ in range(steps):
        dist.barrier()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def main():
    dist.init_process_group("mpi")
    size = dist.get_world_size()
    cap = float(sys.argv[1]) if len(sys.argv) > 1 else 25.0
    x, y = rstorch.randn(BATCH, 256), rstorch.randint(0, 10, (BATCH,))
    loss_fn = nn.CrossEntropyLoss()
    plain = make_model()
    model = DDP(make_model(), bucket_cap_mb=cap)
    reducer = model._reducer
    opt = rstorch.optim.SGD(model.parameters(), lr=1e-3)
    plain_opt = rstorch.optim.SGD(plain.parameters(), lr=1e-3)

    def plain_step():
        plain_opt.zero_grad()
        loss_fn(plain(x), y).backward()
        plain_opt.step()

    def ddp_step(poll=True):
        reducer.poll = poll
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    def no_sync_step():
        opt.zero_grad()
        with model.no_sync():
            loss_fn(model(x), y).backward()
        opt.step()

    def after_backward_step():
        # The buckets DDP would send, started only once backward is done.
        reducer.poll = False
        opt.zero_grad()
        with model.no_sync():
            loss_fn(model(x), y).backward()
        reducer.armed = True
        for i in range(len(reducer.params)):
            reducer.file(i)
        opt.step()

    variants = {"1 process (plain model)": plain_step} if size == 1 else {
        "no_sync (no communication)": no_sync_step, "after backward (no overlap)": after_backward_step,
        "overlap": ddp_step, "overlap, no polling": lambda: ddp_step(poll=False)}
    for step in variants.values():   # warm up
        step_times(step, 3)
    results = {name: [] for name in variants}
    for _ in range(5):
        for name, step in variants.items():
            results[name] += step_times(step, 10)
    if dist.get_rank() == 0:
        nbytes = sum(p.numel() * 4 for p in model.parameters())
        print(f"{size} process(es), {nbytes / 2**20:.1f} MB of float32 gradients in {len(reducer.buckets)} bucket(s) "
              f"(cap {cap} MB), per-rank batch {BATCH}")
        medians = {name: statistics.median(t) * 1e3 for name, t in results.items()}
        for name, ms in medians.items():
            print(f"| {name} | {ms:.2f} ms |")
        if size > 1:
            comm = medians["after backward (no overlap)"] - medians["no_sync (no communication)"]
            hidden = medians["after backward (no overlap)"] - medians["overlap"]
            print(f"communication {comm:.2f} ms per step; overlap hides {hidden:.2f} ms "
                  f"({100 * hidden / comm if comm > 0 else float('nan'):.0f}%)")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
