"""Checks that files written by rstorch.save load in real PyTorch (run by hand, with torch; CI has
no torch, so tests/python/test_torch_zip.py checks the same files' layout without it):

    /work/torchref/bin/python tests/check_zip_save_in_torch.py [rstorch's python]

rstorch (through the given interpreter, default /work/main/.venv/bin/python, with PYTHONPATH=python)
writes a state_dict with views, a whole nn.Sequential, a NumPy array and an Adam state_dict; then
torch.load reads each (weights_only=True where PyTorch's rules allow it) and the values are
compared with the ones rstorch printed."""
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch

WRITER = r'''
import json, sys, numpy as np, rstorch
from rstorch import nn, optim
out = sys.argv[1]
rstorch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
opt = optim.Adam(model.parameters(), lr=0.01)
x = rstorch.randn(5, 3)
model(x).sum().backward()
opt.step()
base = rstorch.arange(12.0).reshape(3, 4)
rstorch.save({"sd": model.state_dict(), "base": base, "row": base[1], "t": base.t(),
              "half": rstorch.ones(2, dtype=rstorch.float16), "bf": rstorch.ones(2, dtype=rstorch.bfloat16),
              "flags": rstorch.tensor([True, False]), "size": rstorch.Size([1, 2]), "epoch": 3}, out + "/sd.pt")
model.eval()
rstorch.save(model, out + "/model.pt")
rstorch.save(np.arange(6).reshape(2, 3), out + "/array.pt")
rstorch.save(opt.state_dict(), out + "/adam.pt")
print(json.dumps({"x": x.tolist(), "y": model(x).tolist(),
                  "exp_avg": opt.state_dict()["state"][0]["exp_avg"].tolist()}))
'''


def main():
    python = sys.argv[1] if len(sys.argv) > 1 else "/work/main/.venv/bin/python"
    root = pathlib.Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([python, "-c", WRITER, out], check=True, capture_output=True, text=True,
                              env={"PYTHONPATH": str(root / "python")}, cwd=root)
        ref = json.loads(done.stdout)
        sd = torch.load(f"{out}/sd.pt")  # weights_only=True
        assert sd["row"].untyped_storage().data_ptr() == sd["base"].untyped_storage().data_ptr()
        assert torch.equal(sd["t"], torch.arange(12.0).reshape(3, 4).t()) and sd["t"].stride() == (1, 4)
        assert sd["half"].dtype == torch.float16 and sd["bf"].dtype == torch.bfloat16
        assert sd["flags"].tolist() == [True, False] and sd["size"] == torch.Size([1, 2]) and sd["epoch"] == 3
        model = torch.load(f"{out}/model.pt", weights_only=False)
        assert type(model) is torch.nn.Sequential
        y = model(torch.tensor(ref["x"]))
        np.testing.assert_allclose(y.detach().numpy(), ref["y"], rtol=1e-6, atol=1e-6)
        fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                    torch.nn.Linear(4, 2))
        fresh.load_state_dict(sd["sd"])
        arr = torch.load(f"{out}/array.pt", weights_only=False)
        assert isinstance(arr, np.ndarray) and arr.tolist() == [[0, 1, 2], [3, 4, 5]]
        adam = torch.load(f"{out}/adam.pt")  # weights_only=True
        np.testing.assert_allclose(adam["state"][0]["exp_avg"].numpy(), ref["exp_avg"], rtol=1e-7)
        opt = torch.optim.Adam(fresh.parameters(), lr=0.01)
        opt.load_state_dict(adam)
        print("PyTorch", torch.__version__, "loaded all 4 rstorch files: state_dict with shared views "
              "(weights_only=True), whole Sequential (outputs equal), NumPy array, Adam state_dict (weights_only=True)")


if __name__ == "__main__":
    main()
