"""F.scaled_dot_product_attention rows (issue 23 item 5): batch 4, 8 heads, head dim 64, T = 256 and
1024, causal or not, forward and forward+backward, float32. nn_compare.py lists them among its
workloads; run alone, this file times them on one thread by CPU time (time.process_time), rstorch
and PyTorch in one process, medians of a few repeats (a T=1024 step takes a large fraction of a
second on one core):

    PYTHONPATH=python /work/torchref/bin/python benches/sdpa_rows.py [--threads 1] [--repeats 5]
"""
import statistics
import time


def build_sdpa(torch, t, causal, backward):
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(4, 8, t, 64, generator=gen).requires_grad_(backward) for _ in range(3))
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def step():
        out = sdpa(q, k, v, is_causal=causal)
        if backward:
            out.sum().backward()
    return step


def _row(t, causal, backward):
    title = f"sdpa {'causal' if causal else 'full'} T={t} (4x8 heads, E=64) {'fwd+bwd' if backward else 'fwd'}"
    return title, lambda torch: build_sdpa(torch, t, causal, backward), 1.0


WORKLOADS = [_row(t, causal, backward) for t in (256, 1024) for causal in (False, True) for backward in (False, True)]


def cpu_median_ms(step, repeats, number):
    """Median over `repeats` of the process CPU time per call of `number` calls, after a warm-up."""
    step()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(number):
            step()
        times.append((time.process_time() - t0) / number * 1e3)
    return statistics.median(times)


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import rstorch
    frameworks = [("rstorch", rstorch)]
    try:
        import torch
        frameworks.append(("torch", torch))
    except ImportError:
        pass
    for _, module in frameworks:
        module.set_num_threads(args.threads)
    print(f"threads: {args.threads}, CPU-time medians of {args.repeats}")
    for title, make, _ in WORKLOADS:
        number = 1 if "1024" in title else 4
        results = {name: cpu_median_ms(make(module), args.repeats, number) for name, module in frameworks}
        cells = "  ".join(f"{name} {ms:.1f} ms" for name, ms in results.items())
        ratio = f"  PyTorch/rstorch {results['torch'] / results['rstorch']:.2f}x" if "torch" in results else ""
        print(f"{title}: {cells}{ratio}", flush=True)


if __name__ == "__main__":
    main()
