"""rstorch on wgpu against PyTorch on CUDA, on the same GPU in one process: float32 matrix
products (TFLOP/s) and training steps (the MNIST network, batch 64, SGD with momentum; the GPT and
LSTM language-model steps of nn_compare.py). Without
CUDA it times rstorch alone (e.g. on Mesa's lavapipe, to check the script itself).

    PYTHONPATH=python python benches/gpu_compare.py [--sizes 2048 4096] [--json results.json]

PyTorch multiplies float32 in float32 here (TF32 off, its default): the same arithmetic as ours.
Times are medians over repeats, each repeat several calls ended by a synchronize.
"""
import argparse
import json

import numpy as np

from nn_compare import build as build_mnist_step
from nn_compare import build_gpt, build_lstm, median_ms


class Framework:
    """One framework on one device: how to place arrays there and wait for its queue."""

    def __init__(self, name, module, device, sync):
        self.name, self.module, self.device, self.sync = name, module, device, sync

    def place(self, array):
        return self.module.from_numpy(array).to(self.device)


def frameworks():
    import rstorch
    if not rstorch.wgpu.is_available():
        raise SystemExit("rstorch finds no wgpu adapter")
    found = [Framework("rstorch wgpu", rstorch, "wgpu", rstorch.wgpu.synchronize)]
    print(f"rstorch wgpu adapter: {rstorch.wgpu.get_device_name()}")
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        found.append(Framework("PyTorch cuda", torch, "cuda", torch.cuda.synchronize))
        print(f"PyTorch {torch.__version__} cuda device: {torch.cuda.get_device_name()}")
    else:
        print("PyTorch with CUDA not found: rstorch alone")
    return found


def compare_matmul(found, n, transposed_b, repeats, number):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    results, products = {}, {}
    for fw in found:
        x, y = fw.place(a), fw.place(b)
        if transposed_b:  # as linear multiplies by its weight: a column-major right operand
            y = y.t()
        ms = median_ms(lambda: x @ y, repeats, number, warmup=1, sync=fw.sync)
        results[fw.name] = {"ms": ms, "tflops": 2 * n ** 3 / (ms * 1e-3) / 1e12}
        products[fw.name] = (x @ y).cpu().numpy()
    first = products[found[0].name]
    for name, product in products.items():
        results[name]["max_rel_diff_vs_first"] = float(np.abs(product - first).max() / np.abs(first).max())
    return results


def warm_up(found, seconds=1.0):
    """Products on each framework for about `seconds`, so that an idle GPU has raised its clocks
    before the first timing (without this the first row measured a GPU still waking up)."""
    import time
    a = np.random.default_rng(1).standard_normal((1024, 1024), dtype=np.float32)
    for fw in found:
        x = fw.place(a)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            x @ x
            fw.sync()


def compare_step(found, build, repeats, number):
    """A training step's median time on each framework; a framework whose step fails (an op not
    yet on its device) is reported with its error and left out of the ratio."""
    results = {}
    for fw in found:
        try:
            step = build(fw.module, fw.device)
            results[fw.name] = {"ms": median_ms(step, repeats, number, warmup=3, sync=fw.sync)}
        except Exception as e:  # noqa: BLE001 - the row records what failed, the others still run
            print(f"{fw.name}: step failed: {type(e).__name__}: {e}", flush=True)
    return results


STEPS = [
    ("MNIST Net training step (batch 64, SGD momentum)", build_mnist_step, 20),
    ("GPT 2-layer training step (width 128, block 64, batch 8, AdamW)", build_gpt, 10),
    ("LSTM LM training step (2x200 units, seq 35, batch 20, vocab 10000, SGD)", build_lstm, 5),
]


def report(title, results, key, unit):
    cells = "  ".join(f"{name} {r['ms']:.3f} ms" + (f" ({r[key]:.2f} {unit})" if key else "") for name, r in results.items())
    line = f"{title}: {cells}"
    if "PyTorch cuda" in results and "rstorch wgpu" in results:
        ours, theirs = results["rstorch wgpu"], results["PyTorch cuda"]
        line += f"  rstorch/PyTorch time {ours['ms'] / theirs['ms']:.2f}"
        if key:
            line += f" ({ours[key] / theirs[key] * 100:.0f}% of PyTorch's {unit})"
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096, 8192], help="square matmul sizes")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    found = frameworks()
    warm_up(found)
    everything = {}
    for n in args.sizes:
        number = max(1, min(50, int(4e10 / n ** 3)))
        for transposed_b in (False, True):
            title = f"matmul float32 {n}x{n} @ {n}x{n}{'.t()' if transposed_b else ''}"
            results = compare_matmul(found, n, transposed_b, args.repeats, number)
            report(title, results, "tflops", "TFLOP/s")
            everything[title] = results
    for title, build, number in STEPS:
        results = compare_step(found, build, args.repeats, number)
        report(title, results, None, None)
        everything[title] = results
    if args.json:
        with open(args.json, "w") as f:
            json.dump(everything, f, indent=1)


if __name__ == "__main__":
    main()
