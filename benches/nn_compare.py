"""The nn workloads of the benchmarks, rstorch and PyTorch in one process, medians of repeated
runs: one training step of the classic MNIST network (batch 64, SGD with momentum), one step
of an MLP 784-512-512-10 (batch 256, Adam), forward and backward of the network's two
convolutions, and the cost of calling a module without hooks.

    PYTHONPATH=python python benches/nn_compare.py   # needs torch installed alongside
"""
import statistics
import time

import numpy as np


def build(torch, device="cpu"):
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = torch.nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = torch.nn.Dropout2d()
            self.fc1 = torch.nn.Linear(320, 50)
            self.fc2 = torch.nn.Linear(50, 10)

        def forward(self, x):
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = F.relu(self.fc1(x.view(-1, 320)))
            x = F.dropout(x, training=self.training)
            return F.log_softmax(self.fc2(x), dim=1)

    torch.manual_seed(0)
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    x = torch.from_numpy(np.random.default_rng(0).random((64, 1, 28, 28), dtype=np.float32)).to(device)
    y = torch.from_numpy(np.random.default_rng(1).integers(0, 10, 64)).to(device)

    def step():
        opt.zero_grad()
        F.nll_loss(model(x), y).backward()
        opt.step()
    return step


def build_mlp(torch):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.from_numpy(np.random.default_rng(0).random((256, 784), dtype=np.float32))
    y = torch.from_numpy(np.random.default_rng(1).integers(0, 10, 256))

    def step():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def build_conv(torch, in_channels, out_channels, size, input_grad):
    """Forward and backward of one convolution of the MNIST Net (batch 64, kernel 5), as the
    training step runs it: weight and bias gradients, and the input's when a layer feeds it."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(in_channels, out_channels, kernel_size=5)
    x = torch.from_numpy(np.random.default_rng(0).random((64, in_channels, size, size), dtype=np.float32))
    x.requires_grad_(input_grad)
    dy = torch.ones(64, out_channels, size - 4, size - 4)

    def step():
        conv.zero_grad()
        x.grad = None
        conv(x).backward(dy)
    return step


def build_conv1(torch):
    return build_conv(torch, 1, 10, 28, input_grad=False)


def build_conv2(torch):
    return build_conv(torch, 10, 20, 12, input_grad=True)


def build_call(torch):
    """`module(x)` for a module whose forward returns its input: what is left is the call."""
    class Passthrough(torch.nn.Module):
        def forward(self, x):
            return x

    module, x = Passthrough(), torch.zeros(1)

    def call100():
        for _ in range(100):
            module(x)
    return call100


WORKLOADS = [
    ("MNIST Net training step (batch 64, SGD momentum)", build, 1.0),
    ("MLP 784-512-512-10 step (batch 256, Adam)", build_mlp, 1.0),
    ("conv1 forward+backward (64x1x28x28, 10 filters 5x5)", build_conv1, 1.0),
    ("conv2 forward+backward (64x10x12x12, 20 filters 5x5)", build_conv2, 1.0),
    ("Module.__call__ without hooks (per call)", build_call, 1e-2),
]
# F.scaled_dot_product_attention, causal or not, T = 256 / 1024, forward and forward+backward.
from sdpa_rows import WORKLOADS as SDPA_WORKLOADS  # noqa: E402 - benches/ holds the script run

WORKLOADS += SDPA_WORKLOADS


def median_ms(step, repeats=7, number=30, warmup=10, sync=lambda: None):
    """The median over `repeats` of the time per call of `number` calls, each batch ended by
    `sync` (a GPU's queue wait), after `warmup` calls."""
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            step()
        sync()
        times.append((time.perf_counter() - t0) / number * 1e3)
    return statistics.median(times)


def main():
    import argparse
    import os
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="kernel threads for both (default: all cores)")
    threads = parser.parse_args().threads
    import rstorch
    frameworks = [("rstorch", rstorch)]
    try:
        import torch
        frameworks.append(("torch", torch))
    except ImportError:
        pass
    for _, module in frameworks:
        module.set_num_threads(threads)
    print(f"threads: {threads}")
    for title, make, scale in WORKLOADS:
        results = {}
        for name, module in frameworks:
            # A pause between frameworks, so neither one's idle worker threads steal cores.
            time.sleep(0.5)
            results[name] = median_ms(make(module)) * scale
        cells = "  ".join(f"{name} {ms * 1e3:.2f} us" if scale < 1 else f"{name} {ms:.2f} ms" for name, ms in results.items())
        ratio = f"  rstorch/PyTorch time {results['rstorch'] / results['torch']:.2f}" if "torch" in results else ""
        print(f"{title}: {cells}{ratio}")


if __name__ == "__main__":
    main()
