"""Import circles between source files: Rust files under src/ (by `crate::` and `super::`
paths, wherever they appear) and Python modules under python/rstorch (by relative imports).
Prints each circle (a strongly connected component of more than one file); exits 1 if any."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rust_module_file(parts):
    """The file of module path `parts` (under src/), or None."""
    base = os.path.join(ROOT, "src", *parts)
    for cand in (base + ".rs", os.path.join(base, "mod.rs")):
        if os.path.isfile(cand):
            return cand
    return None


def rust_module_of(path):
    rel = os.path.relpath(path, os.path.join(ROOT, "src"))[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


def rust_graph():
    graph = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src")):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
            # A file's own tests do not make a circle of the code they test.
            text = text.split("#[cfg(test)]\nmod tests")[0]
            here = rust_module_of(path)
            deps = set()
            for m in re.finditer(r"\b(crate|super)((?:::\w+)+)", text):
                parts = m.group(2).split("::")[1:]
                # `super` of a file or of a directory's mod.rs is the module one level up.
                base = [] if m.group(1) == "crate" else here[:-1]
                full = base + parts
                for n in range(len(full), 0, -1):
                    target = rust_module_file(full[:n])
                    if target:
                        if target != path:
                            deps.add(target)
                        break
            # A module file's re-exports (`pub use child::X`) stand for the child: whoever
            # imports X through the module depends on the child's file.
            if os.path.basename(path) in ("mod.rs", "lib.rs"):
                for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+(?:self::)?(\w+)::", text):
                    target = rust_module_file(here + [m.group(1)])
                    if target:
                        deps.add(target)
            graph[path] = deps
    return graph


def python_graph():
    graph = {}
    pkg = os.path.join(ROOT, "python", "rstorch")
    for dirpath, _, files in os.walk(pkg):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            deps = set()
            for m in re.finditer(r"^\s*from (\.+)([\w.]*) import ([\w, ()]+)", open(path, encoding="utf-8").read(), re.M):
                up = len(m.group(1)) - 1
                base = dirpath
                for _ in range(up):
                    base = os.path.dirname(base)
                names = [m.group(2).split(".")] if m.group(2) else [[n.strip()] for n in m.group(3).strip("()").split(",")]
                for parts in names:
                    parts = [p for p in parts if p]
                    cand = os.path.join(base, *parts)
                    for c in (cand + ".py", os.path.join(cand, "__init__.py")):
                        if os.path.isfile(c) and c != path:
                            deps.add(c)
                            break
            graph[path] = deps
    return graph


def circles(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    found = circles(rust_graph()) + circles(python_graph())
    for comp in found:
        print(" <-> ".join(os.path.relpath(p, ROOT) for p in comp))
    print(f"{len(found)} circle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
