"""Runs the programs of a github:pytorch/examples checkout under real PyTorch and under rstorch and
prints a Markdown table: ran or failed (first error line), the training loss at the start and the
end, and the seconds per training step in each framework.

    PYTHONPATH=python python tools/run_examples.py /path/to/examples [--only mnist,vae]
        [--torch-python /work/torchref/bin/python] [--timeout 600] [--threads 1] [--json out.json]

Each program runs unchanged, with the small flags listed in PROGRAMS, in a fresh copy of its folder
per framework (programs write checkpoints and data next to themselves). rstorch runs it through
tools/run_as_torch.py's `torch` -> `rstorch` alias; PyTorch runs it plainly. For both, the
stand-ins in tools/examples_standin come first on sys.path: a torchvision with synthetic data sets
and array transforms (the same data for both frameworks) and a matplotlib that draws nothing.

What is measured, the same way in both frameworks (hooks installed before the program starts):
- steps: a global optimizer step post-hook logs each `optimizer.step()`; seconds per step is the
  median interval between consecutive steps of the same optimizer in the same process (so test
  passes between epochs and start-up do not count). Programs that update parameters by hand
  (regression, word_language_model) fall back to the interval between `Tensor.backward()` calls.
- loss: every `backward()` of a one-element tensor logs its value; the table shows the mean of the
  first three and of the last three (a falling loss is the check that training works).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TOOLS)
STANDIN = os.path.join(TOOLS, "examples_standin")

# name -> (folder, [(script, flags)...], environment). Steps run in order in one copy of the
# folder; the program fails at its first failing step. Data set sizes come from the stand-in's
# RSTORCH_EXAMPLES_TRAIN / RSTORCH_EXAMPLES_TEST.
_WLM = "--epochs 1 --emsize 64 --nhid 64 --nlayers 2 --bptt 20 --batch_size 20 --log-interval 10 --lr 20"
_WLM_GEN = ("generate.py", "--words 50 --log-interval 25")
PROGRAMS = {
    "mnist": ("mnist", [("main.py", "--epochs 1 --batch-size 64 --test-batch-size 256 --log-interval 8")], {}),
    "mnist_forward_forward": ("mnist_forward_forward",
                              [("main.py", "--epochs 40 --train_size 512 --test_size 256 --log-interval 10 --no_accel")], {}),
    "mnist_hogwild": ("mnist_hogwild",
                      [("main.py", "--epochs 1 --num-processes 2 --batch-size 64 --test-batch-size 256 --log-interval 8")], {}),
    "mnist_rnn": ("mnist_rnn", [("main.py", "--epochs 1 --batch-size 64 --test-batch-size 256 --log-interval 8")], {}),
    "regression": ("regression", [("main.py", "")], {}),
    "vae": ("vae", [("main.py", "--epochs 1 --log-interval 4")], {}),
    "dcgan": ("dcgan", [("main.py", "--dataset fake --niter 1 --batchSize 16 --ngf 16 --ndf 16 --workers 0")], {}),
    # Written for torch < 2.6 (its requirements.txt): it torch.load()s a NumPy array, which needs
    # the documented opt-out of weights-only loading in PyTorch 2.6+ and in rstorch alike.
    "time_sequence_prediction": ("time_sequence_prediction", [("generate_sine_wave.py", ""), ("train.py", "--steps 1")],
                                 {"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}),
    "word_language_model LSTM": ("word_language_model", [("main.py", _WLM + " --model LSTM"), _WLM_GEN], {}),
    # At lr 20 the small GRU and plain RNNs are unstable in PyTorch too (RNN_RELU overflows
    # math.exp of the loss, the others' losses jump above the uniform guess's): lr 2 trains them.
    "word_language_model GRU": ("word_language_model", [("main.py", _WLM + " --model GRU --lr 2"), _WLM_GEN], {}),
    "word_language_model RNN_TANH": ("word_language_model", [("main.py", _WLM + " --model RNN_TANH --lr 2"), _WLM_GEN], {}),
    "word_language_model RNN_RELU": ("word_language_model", [("main.py", _WLM + " --model RNN_RELU --lr 2"), _WLM_GEN], {}),
    "word_language_model Transformer": ("word_language_model", [("main.py", _WLM + " --model Transformer --lr 5"), _WLM_GEN], {}),
}
for _fx in ("invert", "primitive_library", "profiling_tracer", "replace_op", "subgraph_rewriter_basic_use",
            "wrap_output_dynamically", "inline_function", "proxy_based_graph_creation"):
    PROGRAMS[f"fx/{_fx}"] = ("fx", [(f"{_fx}.py", "")], {})

# Programs of the checkout that need more than torch and a data-set/transform torchvision.
NOT_RUN = {
    "imagenet": "torchvision.models (ResNet and friends)",
    "fast_neural_style": "torchvision.models.vgg16 with pretrained weights, Pillow",
    "fx/module_tracer, siamese_network": "torchvision.models.resnet18",
    "fx/custom_tracer": "tabulate (pytorch/examples' own runner skips it)",
    "super_resolution": "Pillow and the BSDS300 download",
    "gcn, gat": "requests and the Cora download",
    "reinforcement_learning": "gymnasium",
    "language_translation, legacy/snli": "torchtext, spacy",
    "distributed/*": "torch.distributed across processes (another issue)",
    "cpp/*": "libtorch (C++)",
}


# ---------------------------------------------------------------------------------------------
# Child side: runs one program inside the framework, with the measuring hooks.

def install_hooks(framework):
    """Makes `import torch` the framework and logs optimizer steps and backward() losses; called
    by examples_standin/sitecustomize.py at the start of every process of a run."""
    if framework == "rstorch":
        from run_as_torch import _TorchAlias

        sys.meta_path.insert(0, _TorchAlias())
    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook

    if os.environ.get("RSTORCH_EXAMPLES_THREADS"):
        torch.set_num_threads(int(os.environ["RSTORCH_EXAMPLES_THREADS"]))

    log_path = os.environ["RSTORCH_EXAMPLES_LOG"]
    opened = {}

    def log(line):
        # Reopened per process: DataLoader workers and hogwild's trainers are children.
        pid = os.getpid()
        if pid not in opened:
            opened[pid] = open(log_path, "a", buffering=1)
        opened[pid].write(f"{line} {pid} {time.monotonic():.6f}\n")

    def step_hook(optimizer, args, kwargs):
        log(f"S {id(optimizer)}")

    register_optimizer_step_post_hook(step_hook)
    backward = torch.Tensor.backward

    def timed_backward(self, *a, **k):
        if self.numel() == 1:
            log(f"B {float(self.detach().reshape(()).item())!r}")
        return backward(self, *a, **k)

    torch.Tensor.backward = timed_backward


def _child(script, args):
    import runpy

    program = os.path.abspath(script)
    sys.argv = [program] + args
    sys.path.insert(0, os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")


# ---------------------------------------------------------------------------------------------
# Parent side.

def _make_corpus(folder):
    """word_language_model reads data/wikitext-2/{train,valid,test}.txt; the checkout's copy is a
    large file, so the programs get a small synthetic corpus from a fixed first-order Markov chain
    over 300 words (learnable, so the loss falls), identical for both frameworks."""
    import random

    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)]
    follow = {w: rng.sample(words, 5) for w in words}
    target = os.path.join(folder, "data", "wikitext-2")
    os.makedirs(target, exist_ok=True)
    for name, lines in (("train.txt", 1500), ("valid.txt", 60), ("test.txt", 60)):
        word = words[0]
        with open(os.path.join(target, name), "w") as f:
            for _ in range(lines):
                out = []
                for _ in range(12):
                    word = rng.choice(follow[word])
                    out.append(word)
                f.write(" " + " ".join(out) + " \n")


def _first_error(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b", ln) or ln.startswith("AssertionError"):
            return ln[:300]
    return lines[-1][:300] if lines else "no output"


def _measure(log_path):
    steps, backwards, losses = {}, {}, []
    if os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 4:
                    continue
                kind, value, pid, t = parts[0], parts[1], parts[2], float(parts[3])
                if kind == "S":
                    steps.setdefault((pid, value), []).append(t)
                elif kind == "B":
                    backwards.setdefault(pid, []).append(t)
                    losses.append((t, float(value)))

    def median_interval(series):
        gaps = [b - a for times in series.values() for a, b in zip(times, times[1:])]
        return (statistics.median(gaps), len(gaps) + len(series)) if gaps else (None, sum(map(len, series.values())))

    per_step, count = median_interval(steps)
    if per_step is None:
        per_step, count = median_interval(backwards)
    losses.sort()
    values = [v for _, v in losses]
    first = statistics.fmean(values[:3]) if values else None
    last = statistics.fmean(values[-3:]) if len(values) >= 6 else None
    return {"s_per_step": per_step, "steps": count, "loss_first": first, "loss_last": last}


def _rstorch_root():
    """The folder holding the `rstorch` package this Python would import (found, not imported)."""
    import importlib.util

    spec = importlib.util.find_spec("rstorch")
    if spec is None or spec.origin is None:
        return os.path.join(REPO, "python")
    return os.path.dirname(os.path.dirname(spec.origin))


def run_program(name, checkout, framework, python, timeout, threads=None):
    folder, steps, env_extra = PROGRAMS[name]
    work = tempfile.mkdtemp(prefix=f"ex-{framework}-")
    dest = os.path.join(work, folder)
    shutil.copytree(os.path.join(checkout, folder), dest, ignore=shutil.ignore_patterns("data", "*.pt", "*.pth"))
    if folder == "word_language_model":
        _make_corpus(dest)
    log_path = os.path.join(work, "measure.log")
    env = dict(os.environ, RSTORCH_EXAMPLES_LOG=log_path, RSTORCH_EXAMPLES_FRAMEWORK=framework, PYTHONUNBUFFERED="1", **env_extra)
    if threads:
        env["RSTORCH_EXAMPLES_THREADS"] = str(threads)
    # The stand-ins (and sitecustomize) first for both frameworks; for rstorch, the rstorch this
    # launcher's Python imports (this checkout's python/ under PYTHONPATH=python, or an installed wheel).
    paths = [STANDIN] + ([_rstorch_root()] if framework == "rstorch" else [])
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH", "")] if p])
    result = {"ran": True, "error": "", "seconds": 0.0}
    started = time.monotonic()
    for script, flags in steps:
        cmd = [python, os.path.abspath(__file__), "--child", script] + flags.split()
        try:
            proc = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            result.update(ran=False, error=f"{script}: timed out after {timeout} s")
            break
        if proc.returncode != 0:
            result.update(ran=False, error=f"{script}: {_first_error(proc.stderr or proc.stdout)}")
            result["stderr_tail"] = proc.stderr[-3000:]
            break
    result["seconds"] = time.monotonic() - started
    result.update(_measure(log_path))
    shutil.rmtree(work, ignore_errors=True)
    return result


def _fmt_time(s):
    return "-" if s is None else (f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s")


def _fmt_loss(r):
    if r.get("loss_first") is None:
        return "-"
    if r.get("loss_last") is None:
        return f"{r['loss_first']:.4g}"
    return f"{r['loss_first']:.4g} → {r['loss_last']:.4g}"


def markdown(results):
    rows = ["| program | PyTorch | rstorch | PyTorch loss (first → last) | rstorch loss (first → last) "
            "| PyTorch s/step | rstorch s/step | rstorch / PyTorch |",
            "|---|---|---|---|---|---|---|---|"]
    for name, res in results.items():
        t, r = res["torch"], res["rstorch"]
        status = []
        for x in (t, r):
            status.append("ran" if x["ran"] else "failed: `" + x["error"].replace("|", "\\|").replace("`", "'") + "`")
        ratio = "-"
        if t["ran"] and r["ran"] and t["s_per_step"] and r["s_per_step"]:
            ratio = f"{r['s_per_step'] / t['s_per_step']:.1f}x"
        rows.append(f"| {name} | {status[0]} | {status[1]} | {_fmt_loss(t)} | {_fmt_loss(r)} | "
                    f"{_fmt_time(t['s_per_step'])} | {_fmt_time(r['s_per_step'])} | {ratio} |")
    ran = sum(1 for res in results.values() if res["rstorch"]["ran"])
    torch_ran = sum(1 for res in results.values() if res["torch"]["ran"])
    rows.append("")
    rows.append(f"rstorch ran {ran} of {len(results)} programs; PyTorch ran {torch_ran}.")
    rows.append("")
    rows.append("Not run (they need more than torch and a data-set/transform torchvision): " +
                "; ".join(f"{k} ({v})" for k, v in NOT_RUN.items()) + ".")
    return "\n".join(rows)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        _child(argv[1], argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", help="path of a github:pytorch/examples checkout")
    parser.add_argument("--only", default="", help="comma-separated program names (default: all)")
    parser.add_argument("--torch-python", default="/work/torchref/bin/python", help="a Python with PyTorch")
    parser.add_argument("--rstorch-python", default=sys.executable, help="a Python with rstorch's dependencies")
    parser.add_argument("--frameworks", default="torch,rstorch")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per script")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads(N) in both frameworks (default: each one's own default)")
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--verbose", action="store_true", help="print each failure's stderr tail")
    opts = parser.parse_args(argv)
    names = [n.strip() for n in opts.only.split(",") if n.strip()] or list(PROGRAMS)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        parser.error(f"unknown programs {unknown}; known: {list(PROGRAMS)}")
    frameworks = opts.frameworks.split(",")
    results = {}
    skipped = {"ran": False, "error": "not run", "s_per_step": None, "loss_first": None, "loss_last": None}
    for name in names:
        results[name] = {}
        for fw in ("torch", "rstorch"):
            if fw not in frameworks:
                results[name][fw] = dict(skipped)
                continue
            python = opts.torch_python if fw == "torch" else opts.rstorch_python
            res = run_program(name, opts.checkout, fw, python, opts.timeout, opts.threads)
            results[name][fw] = res
            print(f"{name} [{fw}]: {'ran' if res['ran'] else 'FAILED ' + res['error']} "
                  f"({res['seconds']:.1f} s, {_fmt_time(res['s_per_step'])}/step, loss {_fmt_loss(res)})", file=sys.stderr)
            if opts.verbose and not res["ran"]:
                print(res.get("stderr_tail", ""), file=sys.stderr)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(results, f, indent=1)
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
