"""How much of PyTorch's public API rstorch has, by PyTorch's own names.

Run with a Python that has both packages importable, for example
    PYTHONPATH=python /path/to/venv-with-torch/bin/python tools/api_coverage.py [--missing NS]
It prints, per namespace, the public callables PyTorch exposes there (names without a leading
underscore whose value is a function, class or other callable; CUDA-, XPU- and MPS-internal
names and the deprecated/private helpers listed below aside) and how many of them rstorch has
under the same name. Names a PyTorch module only imported from Python's library (`typing.Optional`,
`functools.partial`) are not PyTorch's API and are left out, and so is `torch.Tensor` where a
namespace other than `torch` re-imports it (`torch.nn.init.Tensor`): Tensor's methods are
measured on their own line. `--missing NS` lists what rstorch
lacks in namespace NS.
"""
import argparse
import importlib
import inspect
import sys

# (label, PyTorch module path or "Tensor", the same in rstorch)
NAMESPACES = [
    ("Tensor methods", "Tensor", "Tensor"),
    ("torch", "torch", "rstorch"),
    ("torch.nn", "torch.nn", "rstorch.nn"),
    ("nn.functional", "torch.nn.functional", "rstorch.nn.functional"),
    ("nn.init", "torch.nn.init", "rstorch.nn.init"),
    ("nn.utils", "torch.nn.utils", "rstorch.nn.utils"),
    ("optim", "torch.optim", "rstorch.optim"),
    ("optim.lr_scheduler", "torch.optim.lr_scheduler", "rstorch.optim.lr_scheduler"),
    ("utils.data", "torch.utils.data", "rstorch.utils.data"),
    ("autograd", "torch.autograd", "rstorch.autograd"),
]

# Names that are about one vendor's devices or PyTorch's own build, not the framework a program
# uses: a program calling them is calling into CUDA, XPU or MPS specifically.
DEVICE_INTERNAL = ("cuda", "cudnn", "xpu", "mps", "mtia", "hip", "miopen", "mkldnn", "fbgemm", "vulkan", "nnpack", "xnnpack")


def public_callables(obj, path=None):
    import torch

    names = set()
    for name in dir(obj):
        if name.startswith("_"):
            continue
        if any(tag in name.lower() for tag in DEVICE_INTERNAL):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails to load is not offered
            continue
        if inspect.ismodule(value) or not _defined_by_torch(value):
            continue
        if value is torch.Tensor and path not in ("torch", "Tensor"):
            # Re-imported for annotations (`torch.nn.init.Tensor`): the class is torch's, and
            # its methods are measured as "Tensor methods".
            continue
        if callable(value):
            names.add(name)
    return names


def _defined_by_torch(value):
    """False for what a PyTorch module merely imported from elsewhere (`typing.Callable`,
    `functools.partial`, `weakref.ref` in torch.optim.lr_scheduler): those are Python's, not
    PyTorch's API. Objects that name no module (C methods of Tensor) count."""
    module = getattr(value, "__module__", None)
    return not isinstance(module, str) or module == "torch" or module.startswith("torch.")


def _attribute(obj, name):
    try:
        return getattr(obj, name)
    except Exception:  # noqa: BLE001 - a name that fails to load is not offered
        return None


def resolve(path):
    if path == "Tensor":
        return None
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


def namespace_objects(torch_path, ours_path):
    import torch

    import rstorch

    if torch_path == "Tensor":
        return torch.Tensor, rstorch.Tensor
    return resolve(torch_path), resolve(ours_path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", metavar="NS", help="list the names rstorch lacks in namespace NS (a label above)")
    args = parser.parse_args()
    rows = []
    total_theirs = total_ours = 0
    for label, torch_path, ours_path in NAMESPACES:
        theirs_obj, ours_obj = namespace_objects(torch_path, ours_path)
        theirs = public_callables(theirs_obj, torch_path)
        # Asked by name rather than listed, so that attributes a module loads on first use
        # (`rstorch.save`) count.
        ours = {name for name in theirs if ours_obj is not None and callable(_attribute(ours_obj, name))}
        have = theirs & ours
        rows.append((label, len(have), len(theirs)))
        total_theirs += len(theirs)
        total_ours += len(have)
        if args.missing == label:
            print(f"missing in {label}:")
            for name in sorted(theirs - ours):
                print(f"  {name}")
    width = max(len(r[0]) for r in rows)
    print(f"{'namespace':{width}}  rstorch / PyTorch")
    for label, have, theirs in rows:
        pct = 100.0 * have / theirs if theirs else 100.0
        print(f"{label:{width}}  {have:4d} / {theirs:4d}  {pct:5.1f}%")
    print(f"{'all':{width}}  {total_ours:4d} / {total_theirs:4d}  {100.0 * total_ours / total_theirs:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
