"""Runs many forward/backward steps of a small MLP and reports resident memory: it must stay
flat (saved tensors are freed after each backward, graphs do not leak).

    .venv/bin/python benches/autograd_memory.py [steps]
"""
import resource
import sys

import rstorch as torch


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(steps=10_000):
    torch.manual_seed(0)
    w1 = torch.randn(32, 64, requires_grad=True)
    w2 = torch.randn(64, 10, requires_grad=True)
    x = torch.randn(16, 32)
    target = torch.randint(0, 10, (16,))
    marks = {}
    for step in range(1, steps + 1):
        logits = torch.relu(x @ w1) @ w2
        loss = -logits.log_softmax(1).gather(1, target.unsqueeze(1)).mean()
        loss.backward()
        with torch.no_grad():
            w1.sub_(w1.grad * 1e-3)
            w2.sub_(w2.grad * 1e-3)
        w1.grad = None
        w2.grad = None
        if step in (steps // 10, steps):
            marks[step] = rss_mib()
    first, last = marks[steps // 10], marks[steps]
    print(f"RSS after {steps // 10} steps: {first:.1f} MiB; after {steps}: {last:.1f} MiB; growth {last - first:+.1f} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
