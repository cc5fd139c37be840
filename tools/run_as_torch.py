"""Runs a PyTorch program unchanged on rstorch: `import torch` (and `torch.nn`, `from torch.utils.data
import ...`, any `torch.X` module) resolves to rstorch's module of the same path.

    PYTHONPATH=python python tools/run_as_torch.py path/to/program.py [its arguments...]

The program runs as `__main__` from its own directory, as `python program.py` would run it. A
`torch.X` module rstorch lacks fails to import with ModuleNotFoundError naming `torch.X`, which is
what a user would see. Processes the program starts with multiprocessing's 'spawn' method get the
same alias.
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch` and `torch.*` as the rstorch modules of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        target_name = "rstorch" + fullname[len("torch"):]
        try:
            found = importlib.util.find_spec(target_name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=found.submodule_search_locations is not None)

    def create_module(self, spec):
        # The alias is the rstorch module itself, so `torch.nn is rstorch.nn` and state is shared.
        return importlib.import_module("rstorch" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    sys.meta_path.insert(0, _TorchAlias())
    # Processes the program spawns inherit sys.path (not the hook) and find `torch` there (see
    # torch_alias/torch/__init__.py): ahead of site-packages, so that an installed PyTorch does not
    # answer a child's `import torch` instead (it did on a machine with both).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_alias"))
    program = os.path.abspath(sys.argv[1])
    sys.argv = [program] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(program))
    os.chdir(os.path.dirname(program))
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
