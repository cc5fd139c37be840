"""Records files written by PyTorch's torch.save that hold more than tensors, for rstorch.load
(run once, with torch):

    /work/torchref/bin/python tests/record_torch_objects.py

Writes into tests/fixtures/torch_objects/: linear.pt (a whole nn.Linear module), numpy.pt (a
NumPy array inside a dict), adam.pt (an Adam state_dict after two steps), and expected.json: the
Linear's output on a fixed input, the array, the Adam state's values, and the text of PyTorch's
refusal when each file is loaded with the default weights_only=True."""
import json
import pathlib

import numpy as np
import torch

OUT = pathlib.Path(__file__).parent / "fixtures" / "torch_objects"


def refusal(path):
    try:
        torch.load(path)
    except Exception as e:  # noqa: BLE001 - the text is what is recorded
        return f"{type(e).__name__}: {e}"
    return None


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    expected = {}
    lin = torch.nn.Linear(3, 2).double()
    x = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64)
    torch.save(lin, OUT / "linear.pt")
    expected["linear"] = {"input": x.tolist(), "output": lin(x).tolist(),
                          "weight": lin.weight.tolist(), "bias": lin.bias.tolist(),
                          "refusal": refusal(OUT / "linear.pt")}

    arr = np.arange(12, dtype=np.int64).reshape(3, 4)
    torch.save({"array": arr, "scale": 0.5}, OUT / "numpy.pt")
    expected["numpy"] = {"array": arr.tolist(), "refusal": refusal(OUT / "numpy.pt")}

    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64))
    opt = torch.optim.Adam([w], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
    torch.save(opt.state_dict(), OUT / "adam.pt")
    st = opt.state_dict()["state"][0]
    expected["adam"] = {"step": float(st["step"]), "exp_avg": st["exp_avg"].tolist(),
                        "exp_avg_sq": st["exp_avg_sq"].tolist(),
                        "param_groups": [{k: (list(v) if isinstance(v, tuple) else v)
                                          for k, v in g.items()} for g in opt.state_dict()["param_groups"]],
                        "refusal": refusal(OUT / "adam.pt")}
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
