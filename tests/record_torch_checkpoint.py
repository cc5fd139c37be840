"""Records a PyTorch checkpoint for rstorch.load to read (run once, with torch):

    /work/torchenv/bin/python tests/record_torch_checkpoint.py

Writes tests/fixtures/torch_checkpoint.pt (torch.save's zip format), torch_legacy.pt (the old
non-zip format) and
tests/fixtures/torch_checkpoint_expected.npz: every tensor by its path in the checkpoint
("model/0.weight", "opt/state/0/exp_avg", ...; bfloat16 stored as float32, which is exact), its
dtype name under "<path>:dtype", and the repr of the non-tensor values under "__nested__"."""
import pathlib

import numpy as np
import torch

OUT = pathlib.Path(__file__).parent / "fixtures"

NESTED = {
    "epoch": 7,
    "best": 0.125,
    "name": "run-α",
    "flags": (True, False, None),
    "sizes": [3, (4, 5), {"deep": [1.5, -2]}],
    1: "int key",
    (2, "x"): "tuple key",
    "neg": -12345678901234,
}


def build():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    for _ in range(2):
        opt.zero_grad()
        model(torch.randn(5, 3)).pow(2).sum().backward()
        opt.step()
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    dtypes = {
        "f64": torch.randn(2, 3, dtype=torch.float64),
        "f16": torch.randn(5).to(torch.float16),
        "bf16": torch.randn(2, 2).to(torch.bfloat16),
        "i64": torch.tensor([-(2**62), 0, 2**62 + 1]),
        "i32": torch.tensor([[-7, 8], [2**31 - 1, -(2**31)]], dtype=torch.int32),
        "i16": torch.tensor([-300, 300], dtype=torch.int16),
        "i8": torch.tensor([-128, 127, 0], dtype=torch.int8),
        "u8": torch.tensor([0, 255, 17], dtype=torch.uint8),
        "bool": torch.tensor([[True, False], [False, True]]),
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
    }
    return {
        "model": model.state_dict(),
        "opt": opt.state_dict(),
        "dtypes": dtypes,
        # Views: a transpose (non-contiguous) and a row and column sharing storage with `base`.
        "base": base,
        "transposed": base.t(),
        "row": base[2],
        "column": base[:, 1],
        "param": torch.nn.Parameter(torch.ones(2, 2)),
        "frozen": torch.nn.Parameter(torch.zeros(3), requires_grad=False),
        "nested": NESTED,
        "dtype": torch.bfloat16,
        "size": torch.Size([2, 3]),
    }


def flatten(obj, path, out):
    if isinstance(obj, torch.Tensor):
        t = obj.detach()
        out[path + ":dtype"] = np.array(str(t.dtype).removeprefix("torch."))
        out[path] = (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "nested":
                flatten(v, f"{path}/{k}" if path else str(k), out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flatten(v, f"{path}/{i}", out)


def main():
    OUT.mkdir(exist_ok=True)
    ckpt = build()
    torch.save(ckpt, OUT / "torch_checkpoint.pt")
    expected = {"__nested__": np.array(repr(NESTED))}
    flatten(ckpt, "", expected)
    np.savez(OUT / "torch_checkpoint_expected.npz", **expected)
    # The file must load back in PyTorch under its own safe loader.
    torch.load(OUT / "torch_checkpoint.pt", weights_only=True)
    # The legacy (pre-1.6, non-zip) format, which rstorch refuses: it is a bare pickle stream.
    torch.save({"w": torch.ones(2)}, OUT / "torch_legacy.pt", _use_new_zipfile_serialization=False)
    print(f"wrote {len(expected)} arrays")


if __name__ == "__main__":
    main()
