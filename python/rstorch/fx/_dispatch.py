"""How calls of rstorch's functions on Proxies become call_function nodes, and the public names
(`torch.relu`, `torch.nn.functional.leaky_relu`) that graphs print and generated code calls.

PyTorch's functions look for `__torch_function__` on their arguments, which is how
`torch.relu(proxy)` reaches fx. rstorch's functions are Rust builtins and Tensor method
descriptors that do not, and adding such a check to each would cost every ordinary call. So fx
does here what its autowrap does for globals: while symbolic values can exist -- during
`Tracer.trace`, and while any Proxy object is alive (graphs built by hand from `Proxy(node)`) --
the public callables of rstorch, rstorch.nn.functional (and linalg, special, fft when loaded) and
math are replaced in their modules by wrappers that record a node when an argument holds a Proxy
and call the original otherwise. Proxies count themselves in and out (`acquire`/`release`), and
when the last one is freed and no trace runs the originals go back: ordinary calls outside fx
run the unpatched functions at full speed. Code that bound a function earlier
(`from torch import relu`) keeps the original, as with fx's own autowrap of module globals.
"""
import builtins
import inspect
import math
import operator
import sys
import types

_FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType)
# Called on a Proxy, these answer about the Proxy itself (as in PyTorch, where they are plain
# Python) instead of becoming nodes.
_NOT_RECORDED = {"is_tensor", "is_storage", "typename", "compile", "get_default_dtype", "is_grad_enabled"}

_active = 0
_installed = []          # (namespace dict, originals to put back, lazy names to drop)
_public = {}             # id(obj) -> (obj, "torch.name")
_proxy_cls = None
_patch_cache = None


def _namespaces():
    """(module, public prefix) of each namespace whose callables are patched, in name priority."""
    import rstorch
    import rstorch.nn.functional as F
    spaces = [(rstorch, "torch"), (F, "torch.nn.functional")]
    for sub in ("linalg", "special", "fft"):
        mod = sys.modules.get(f"rstorch.{sub}")
        if mod is not None:
            spaces.append((mod, f"torch.{sub}"))
    from rstorch import _ops
    spaces.append((_ops.ops.profiler, "torch.ops.profiler"))
    spaces.append((math, "math"))
    return spaces


def _lazy_names(mod):
    """Names the module provides through its __getattr__ (rstorch loads some on first use)."""
    import rstorch
    if mod is not rstorch:
        return ()
    from rstorch import _torch_extras
    return tuple(rstorch._FUNCTIONAL) + tuple(_torch_extras.NAMES) + ("_assert",)


def _callables(mod):
    names = list(mod.__dict__) + [n for n in _lazy_names(mod) if n not in mod.__dict__]
    for name in names:
        # The profiler's operators (`_record_function_*`) and torch._assert are recorded too.
        if (name.startswith("_") and not name.startswith("_record_function") and name != "_assert") \
                or name in _NOT_RECORDED:
            continue
        try:
            obj = getattr(mod, name)
        except AttributeError:
            continue
        obj = getattr(obj, "_fx_original", obj)
        if isinstance(obj, _FUNCTION_TYPES):
            yield name, obj


def _build_public():
    _public.clear()
    for mod, prefix in _namespaces():
        for name, obj in _callables(mod):
            known = _public.get(id(obj))
            # An alias (`row_stack` of `vstack`) yields to the function's own name.
            if known is None or (known[1].startswith(prefix + ".") and getattr(obj, "__name__", None) == name
                                 and known[1].rsplit(".", 1)[1] != name):
                _public[id(obj)] = (obj, f"{prefix}.{name}")


def qualified_name(obj):
    """`torch.relu`, `operator.add`, `builtins.getattr`, `__main__.f`: how fx names a target."""
    if not _public:
        _build_public()
    known = _public.get(id(obj))
    if known is None and str(getattr(obj, "__module__", "") or "").startswith("rstorch"):
        _build_public()  # a submodule (linalg, special) may have loaded since
        known = _public.get(id(obj))
    if known is not None:
        return known[1]
    name = getattr(obj, "__name__", None) or type(obj).__name__
    if getattr(builtins, name, None) is obj:
        return f"builtins.{name}"
    module = getattr(obj, "__module__", None)
    if module == "_operator" or getattr(operator, name, None) is obj:
        module = "operator"
    if module is None and isinstance(obj, types.MethodDescriptorType):
        module = obj.__objclass__.__module__
    qualname = getattr(obj, "__qualname__", name)
    if module and module.startswith("rstorch"):
        module = "torch" + module[len("rstorch"):]
    return f"{module}.{qualname}" if module else qualname


def find_proxy(args, kwargs):
    """The first Proxy among the arguments, looking one container level deep (`cat([p, q])`)."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, _proxy_cls):
            return a
        if isinstance(a, (list, tuple)):
            for e in a:
                if isinstance(e, _proxy_cls):
                    return e
        elif isinstance(a, dict):
            for e in a.values():
                if isinstance(e, _proxy_cls):
                    return e
    return None


def _normalizer(original, namespace_prefix):
    """PyTorch's nn.functional hands its Python functions' arguments to __torch_function__ as the
    tensor input positionally and the rest by keyword, defaults filled in; so do the nodes."""
    if namespace_prefix != "torch.nn.functional" or not isinstance(original, types.FunctionType):
        return None
    try:
        sig = inspect.signature(original)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if not params or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None

    def normalize(args, kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return args, kwargs
        bound.apply_defaults()
        values = list(bound.arguments.items())
        return (values[0][1],), dict(values[1:])
    return normalize


class _Recorded:
    """Stands for a function while patched: records a node when an argument holds a Proxy, else
    calls the function. It compares and hashes as the function, so `node.target == torch.relu`
    and dict or set lookups keep working while a trace runs (`is` cannot)."""

    __slots__ = ("_fx_original", "_normalize")

    def __init__(self, original, normalize):
        self._fx_original = original
        self._normalize = normalize

    def __call__(self, *args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return self._fx_original(*args, **kwargs)
        if self._normalize is not None:
            args, kwargs = self._normalize(args, kwargs)
        return proxy.tracer.create_proxy("call_function", self._fx_original, args, kwargs)

    def __eq__(self, other):
        return self._fx_original == getattr(other, "_fx_original", other)

    def __hash__(self):
        return hash(self._fx_original)

    def __getattr__(self, name):
        return getattr(self._fx_original, name)

    def __repr__(self):
        return repr(self._fx_original)

    def __get__(self, obj, objtype=None):
        # Read as a class attribute (a method descriptor's home), it stays itself.
        return self


def _make_wrapper(original, prefix):
    return _Recorded(original, _normalizer(original, prefix))


def _patch_list():
    """Per namespace: (its __dict__, {name: wrapper}, {name: original} of names it holds, names
    it only provides lazily). Rebuilt only when a namespace changed: scanning and wrapping ~700
    functions each time a Proxy appears would be slow; swapping dicts is fast."""
    global _patch_cache
    spaces = _namespaces()
    key = tuple((id(mod), len(mod.__dict__)) for mod, _ in spaces)
    # A function replaced since the scan (a user's monkeypatch) must not be put back stale.
    stale = _patch_cache is None or _patch_cache[0] != key or any(
        namespace.get(name) is not obj for namespace, _, originals, _ in _patch_cache[1] for name, obj in originals.items())
    if stale:
        entries = []
        for mod, prefix in spaces:
            found = list(_callables(mod))
            namespace = mod.__dict__
            wrappers = {name: _make_wrapper(obj, prefix) for name, obj in found}
            originals = {name: obj for name, obj in found if name in namespace}
            lazy = [name for name, _ in found if name not in namespace]
            entries.append((namespace, wrappers, originals, lazy))
        _patch_cache = (key, entries)
    return _patch_cache[1]


def set_proxy_class(cls):
    """proxy.py hands over the Proxy class (importing it here would make an import circle)."""
    global _proxy_cls
    _proxy_cls = cls


def _install():
    for namespace, wrappers, originals, lazy in _patch_list():
        _installed.append((namespace, originals, lazy))
        namespace.update(wrappers)


def _uninstall():
    while _installed:
        namespace, originals, lazy = _installed.pop()
        namespace.update(originals)
        for name in lazy:
            namespace.pop(name, None)


def acquire():
    """One more reason (a trace, a live Proxy) for the wrappers to be in place."""
    global _active
    _active += 1
    if _active == 1:
        try:
            _install()
        except BaseException:
            _active -= 1
            _uninstall()
            raise


def release():
    global _active
    _active -= 1
    if _active == 0:
        _uninstall()


def original_of(fn):
    """The function a wrapper stands for (targets always hold the originals)."""
    return getattr(fn, "_fx_original", fn)
