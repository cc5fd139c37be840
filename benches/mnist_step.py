"""One training step of the classic MNIST network (batch 64, SGD with momentum), rstorch and
PyTorch in one process, medians of repeated runs:

    PYTHONPATH=python python benches/mnist_step.py   # needs torch installed alongside
"""
import statistics
import time

import numpy as np


def build(torch):
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
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    x = torch.from_numpy(np.random.default_rng(0).random((64, 1, 28, 28), dtype=np.float32))
    y = torch.from_numpy(np.random.default_rng(1).integers(0, 10, 64))

    def step():
        opt.zero_grad()
        F.nll_loss(model(x), y).backward()
        opt.step()
    return step


def median_ms(step, repeats=7, number=30):
    for _ in range(10):
        step()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            step()
        times.append((time.perf_counter() - t0) / number * 1e3)
    return statistics.median(times)


def main():
    import rstorch
    results = {"rstorch": median_ms(build(rstorch))}
    try:
        import torch
        time.sleep(1)
        results["torch"] = median_ms(build(torch))
    except ImportError:
        pass
    for name, ms in results.items():
        print(f"{name:8s} MNIST Net step (batch 64, SGD momentum): {ms:.2f} ms")
    if "torch" in results:
        print(f"rstorch/PyTorch time ratio: {results['rstorch'] / results['torch']:.2f}")


if __name__ == "__main__":
    main()
