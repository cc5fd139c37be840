"""Unique identifiers for nodes and generated code (fx's naming rules), and the generated code's
container."""
import builtins
import keyword
import re

__all__ = ["PythonCode"]

# Names a node may not take: they would shadow Python or the generated code's globals.
_ILLEGAL_NAMES = set(keyword.kwlist) | set(dir(builtins)) | {"inf", "nan", "NoneType", "torch", "self",
                                                              "operator", "math", "device"}


def _snake_case(s):
    """`MyModule` -> `my_module` (fx's node names are snake case)."""
    out = []
    for i, ch in enumerate(s):
        if ch.isupper() and i > 0 and (s[i - 1].islower() or s[i - 1].isdigit()):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


class _Namespace:
    """Hands out unique identifiers: a taken or reserved `name` becomes `name_1`, `name_2`..."""

    def __init__(self):
        self._used = set()
        self._base_count = {}
        self._obj_to_name = {}

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = re.match(r"(.*)_(\d+)$", candidate)
        base, num = (match.group(1), int(match.group(2))) if match else (candidate, None)
        if candidate in self._used or candidate in _ILLEGAL_NAMES:
            num = self._base_count.get(base, 0)
            while True:
                num += 1
                candidate = f"{base}_{num}"
                if candidate not in self._used and candidate not in _ILLEGAL_NAMES:
                    break
            self._base_count[base] = num
        self._used.add(candidate)
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[obj] = name

    def _rename_object(self, obj, name):
        self._obj_to_name[obj] = name


class PythonCode:
    """Generated source and the globals it runs with."""

    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_
