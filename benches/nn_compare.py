"""The nn workloads of the benchmarks, rstorch and PyTorch in one process, medians of repeated
runs: one training step of the classic MNIST network (batch 64, SGD with momentum), one step
of an MLP 784-512-512-10 (batch 256, Adam), forward and backward of the network's two
convolutions, the cost of calling a module without hooks, one training step of a 2-layer GPT
(nanoGPT-like) and one of a 2-layer LSTM language model (pytorch/examples word_language_model).

    PYTHONPATH=python python benches/nn_compare.py   # needs torch installed alongside
    PYTHONPATH=python python benches/nn_compare.py --threads 1 --cpu-time --only LSTM,GPT

On a shared host `--cpu-time` measures the process's CPU time (with one thread, the time the
step computes, whatever else the host runs) rather than the wall clock.
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


def build_mlp(torch, batch=256):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.from_numpy(np.random.default_rng(0).random((batch, 784), dtype=np.float32))
    y = torch.from_numpy(np.random.default_rng(1).integers(0, 10, batch))

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


def build_gpt(torch, device="cpu"):
    """One training step of a 2-layer GPT as nanoGPT writes it: width 128, 4 heads, block 64,
    batch 8, character vocabulary (65), pre-norm blocks with causal scaled-dot-product attention
    and a GELU MLP, tied token embedding and head, AdamW."""
    nn, F = torch.nn, torch.nn.functional
    width, heads, block, batch, vocab, layers = 128, 4, 64, 8, 65, 2

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.c_attn, self.c_proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.c_fc, self.mlp_proj = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(width, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.h = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(width)
            self.lm_head = nn.Linear(width, vocab, bias=False)
            self.lm_head.weight = self.wte.weight

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
            for b in self.h:
                x = b(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    torch.manual_seed(0)
    model = GPT().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    rng = np.random.default_rng(0)
    idx = torch.from_numpy(rng.integers(0, vocab, (batch, block))).to(device)
    targets = torch.from_numpy(rng.integers(0, vocab, (batch, block))).to(device)

    def step():
        opt.zero_grad(set_to_none=True)
        model(idx, targets).backward()
        opt.step()
    return step


def build_lstm(torch, device="cpu"):
    """One training step of pytorch/examples' word_language_model: embedding 200, a 2-layer
    LSTM of 200 units (dropout 0.2 between layers and around it), a decoder to a vocabulary of
    10000, sequence 35, batch 20, the state carried over detached, gradients clipped to 0.25,
    SGD (lr 20)."""
    nn, F = torch.nn, torch.nn.functional
    vocab, units, layers, seq, batch = 10000, 200, 2, 35, 20

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(vocab, units)
            self.rnn = nn.LSTM(units, units, layers, dropout=0.2)
            self.decoder = nn.Linear(units, vocab)

        def forward(self, x, hidden):
            output, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
            decoded = self.decoder(self.drop(output)).view(-1, vocab)
            return F.log_softmax(decoded, dim=1), hidden

    torch.manual_seed(0)
    model = RNNModel().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=20)
    rng = np.random.default_rng(0)
    data = torch.from_numpy(rng.integers(0, vocab, (seq, batch))).to(device)
    targets = torch.from_numpy(rng.integers(0, vocab, seq * batch)).to(device)
    hidden = [tuple(torch.zeros(layers, batch, units, device=device) for _ in range(2))]

    def step():
        h = tuple(t.detach() for t in hidden[0])
        model.zero_grad()
        output, hidden[0] = model(data, h)
        F.nll_loss(output, targets).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
    return step


WORKLOADS = [
    ("MNIST Net training step (batch 64, SGD momentum)", build, 1.0),
    ("MLP 784-512-512-10 step (batch 256, Adam)", build_mlp, 1.0),
    ("MLP 784-512-512-10 step (batch 64, Adam)", lambda torch: build_mlp(torch, 64), 1.0),
    ("conv1 forward+backward (64x1x28x28, 10 filters 5x5)", build_conv1, 1.0),
    ("conv2 forward+backward (64x10x12x12, 20 filters 5x5)", build_conv2, 1.0),
    ("Module.__call__ without hooks (per call)", build_call, 1e-2),
    ("GPT 2-layer training step (width 128, block 64, batch 8, AdamW)", build_gpt, 1.0),
    ("LSTM LM training step (2x200 units, seq 35, batch 20, vocab 10000, SGD)", build_lstm, 1.0),
]
# F.scaled_dot_product_attention, causal or not, T = 256 / 1024, forward and forward+backward.
from sdpa_rows import WORKLOADS as SDPA_WORKLOADS  # noqa: E402 - benches/ holds the script run

WORKLOADS += SDPA_WORKLOADS


def median_ms(step, repeats=7, number=30, warmup=10, sync=lambda: None, clock=time.perf_counter):
    """The median over `repeats` of the time per call of `number` calls, each batch ended by
    `sync` (a GPU's queue wait), after `warmup` calls; `clock` reads the time (the wall clock,
    or `time.process_time` for CPU time)."""
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(number):
            step()
        sync()
        times.append((clock() - t0) / number * 1e3)
    return statistics.median(times)


def main():
    import argparse
    import os
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="kernel threads for both (default: all cores)")
    parser.add_argument("--cpu-time", action="store_true", help="time with the process's CPU time (use with --threads 1)")
    parser.add_argument("--only", default="", help="comma-separated words: run the workloads whose title has one")
    parser.add_argument("--repeats", type=int, default=7, help="timed batches per workload (the median is kept)")
    parser.add_argument("--number", type=int, default=30, help="calls per timed batch")
    args = parser.parse_args()
    threads = args.threads
    clock = time.process_time if args.cpu_time else time.perf_counter
    words = [w for w in args.only.split(",") if w]
    import rstorch
    frameworks = [("rstorch", rstorch)]
    try:
        import torch
        frameworks.append(("torch", torch))
    except ImportError:
        pass
    for _, module in frameworks:
        module.set_num_threads(threads)
    print(f"threads: {threads}, clock: {'CPU time' if args.cpu_time else 'wall'}")
    for title, make, scale in WORKLOADS:
        if words and not any(w in title for w in words):
            continue
        results = {}
        for name, module in frameworks:
            # A pause between frameworks, so neither one's idle worker threads steal cores.
            time.sleep(0.5)
            results[name] = median_ms(make(module), args.repeats, args.number, clock=clock) * scale
        cells = "  ".join(f"{name} {ms * 1e3:.2f} us" if scale < 1 else f"{name} {ms:.2f} ms" for name, ms in results.items())
        ratio = f"  rstorch/PyTorch time {results['rstorch'] / results['torch']:.2f}" if "torch" in results else ""
        print(f"{title}: {cells}{ratio}")


if __name__ == "__main__":
    main()
