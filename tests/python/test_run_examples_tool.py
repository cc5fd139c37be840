"""tools/run_examples.py end to end on a tiny program in the shape of pytorch/examples' (the real
checkout is third-party code and stays out of the repository): the program runs unchanged under
rstorch through the `torch` alias, gets the synthetic torchvision stand-in, and the tool measures
its steps and its falling loss."""
import importlib.util
import os
import sys
import textwrap

import rstorch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = """
import argparse
import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()
# Init and shuffles draw from torch's generator, the stand-in's crops and flips from Python's:
# seeded, the loss curve is the same every run.
torch.manual_seed(0)
random.seed(0)
tf = transforms.Compose([transforms.RandomCrop(28, padding=2), transforms.RandomHorizontalFlip(),
                         transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
data = datasets.FashionMNIST("../data", train=True, download=True, transform=tf)
assert data.data.shape == (256, 28, 28) and data.targets.dtype == torch.int64 and len(data.classes) == 10
cifar = datasets.CIFAR10("../data", transform=transforms.Compose([transforms.Resize(16), transforms.CenterCrop(12),
                                                                   transforms.ToTensor()]))
assert cifar[0][0].shape == (3, 12, 12) and cifar.data.shape == (256, 32, 32, 3)
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(args.epochs):
    for x, y in DataLoader(data, batch_size=64, shuffle=True):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    print("Loss:", loss.item())
"""


def _load_tool():
    spec = importlib.util.spec_from_file_location("run_examples", os.path.join(ROOT, "tools", "run_examples.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_run_examples_runs_a_program_under_rstorch(tmp_path, monkeypatch):
    tool = _load_tool()
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "main.py").write_text(textwrap.dedent(PROGRAM))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "main.py").write_text("import torch\nimport torch.no_such_module\n")
    monkeypatch.setitem(tool.PROGRAMS, "toy", ("toy", [("main.py", "--epochs 3")], {"RSTORCH_EXAMPLES_TRAIN": "256",
                                                                                     "RSTORCH_EXAMPLES_TEST": "64"}))
    monkeypatch.setitem(tool.PROGRAMS, "broken", ("broken", [("main.py", "")], {}))
    monkeypatch.setenv("RSTORCH_EXAMPLES_TEST", "64")
    ok = tool.run_program("toy", str(tmp_path), "rstorch", sys.executable, timeout=240)
    assert ok["ran"], ok.get("stderr_tail")
    assert ok["steps"] == 12 and ok["s_per_step"] > 0
    assert ok["loss_last"] < ok["loss_first"], (ok["loss_first"], ok["loss_last"])
    bad = tool.run_program("broken", str(tmp_path), "rstorch", sys.executable, timeout=240)
    assert not bad["ran"]
    assert bad["error"] == "main.py: ModuleNotFoundError: No module named 'torch.no_such_module'"
    table = tool.markdown({"toy": {"torch": ok, "rstorch": ok}, "broken": {"torch": ok, "rstorch": bad}})
    assert "| toy | ran | ran |" in table and "| broken | ran | failed: `main.py: ModuleNotFoundError" in table
    assert "rstorch ran 1 of 2 programs; PyTorch ran 2." in table


SPAWNING_PROGRAM = """
import torch
import torch.multiprocessing as mp
import torch.nn as nn


def work(model, q):
    with torch.no_grad():
        model.weight.add_(1.0)
    q.put((torch.__name__, nn.Linear.__module__))


if __name__ == "__main__":
    mp.set_start_method("spawn", force=True)
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.zero_()
    model.share_memory()
    q = mp.Queue()
    p = mp.Process(target=work, args=(model, q))
    p.start()
    print(q.get())
    p.join()
    print(p.exitcode, model.weight.tolist())
"""


def test_run_as_torch_reaches_spawned_processes(tmp_path):
    # mnist_hogwild's shape: the spawned child re-imports the program, whose `import torch` must
    # be rstorch there too, and the model it gets is the parent's shared memory.
    import subprocess

    (tmp_path / "prog.py").write_text(textwrap.dedent(SPAWNING_PROGRAM))
    # An installed PyTorch must not answer the child's `import torch` (it did on a machine with
    # both): a decoy `torch` package on the path stands for it.
    decoy = tmp_path / "site" / "torch"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy torch was imported')\n")
    # The rstorch under test (this checkout's python/, or the installed wheel the suite imports).
    rstorch_root = os.path.dirname(os.path.dirname(rstorch.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([rstorch_root, str(tmp_path / "site")]))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "run_as_torch.py"), str(tmp_path / "prog.py")],
                         env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["('rstorch', 'rstorch.nn.modules.linear')", "0 [[1.0, 1.0]]"]
