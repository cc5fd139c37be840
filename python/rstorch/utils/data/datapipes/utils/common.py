"""Helpers the built-in DataPipes share: checks of user functions, file listing and opening, and
StreamWrapper (a file object that closes itself when its pipe is done with it)."""
import fnmatch
import functools
import importlib.util
import inspect
import os
import warnings
from collections.abc import Iterable
from io import IOBase

__all__ = [
    "StreamWrapper", "get_file_binaries_from_pathnames", "get_file_pathnames_from_root",
    "match_masks", "validate_input_col", "validate_pathname_binary_tuple",
]


def _dill_available():
    return importlib.util.find_spec("dill") is not None


def _fn_name(fn):
    if isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__name__", repr(fn))


def validate_input_col(fn, input_col):
    """Checks that `fn` can be called with the column(s) `input_col` selects (one argument per
    column; one when `input_col` is None or a single index)."""
    try:
        sig = inspect.signature(fn)
    except ValueError:  # builtins without a signature are not checked
        return
    needed = len(input_col) if isinstance(input_col, (list, tuple)) else 1
    P = inspect.Parameter
    positional = [p for p in sig.parameters.values()
                  if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    var_positional = any(p.kind is P.VAR_POSITIONAL for p in sig.parameters.values())
    required_kw_only = [p for p in sig.parameters.values()
                        if p.kind is P.KEYWORD_ONLY and p.default is p.empty]
    name = _fn_name(fn)
    if required_kw_only:
        raise ValueError(f"The function {name} takes {len(required_kw_only)} non-default "
                         "keyword-only parameters, which is not allowed.")
    if len(sig.parameters) < needed:
        if not var_positional:
            raise ValueError(f"The function {name} takes {len(sig.parameters)} parameters, but "
                             f"{needed} are required.")
    elif len(positional) > needed:
        if any(p.default is p.empty for p in positional[needed:]):
            raise ValueError(f"The function {name} takes {len(positional)} positional "
                             f"parameters, but {needed} are required.")
    elif len(positional) < needed and not var_positional:
        raise ValueError(f"The function {name} takes {len(positional)} positional parameters, "
                         f"but {needed} are required.")


def _is_local_fn(fn):
    code = getattr(fn, "__code__", None)
    if code is not None:
        return bool(code.co_flags & inspect.CO_NESTED)
    qualname = getattr(fn, "__qualname__", None) or getattr(type(fn), "__qualname__", "")
    return "<locals>" in qualname


def _check_unpickable_fn(fn):
    """Rejects non-callables, and warns about functions pickle cannot send to DataLoader workers
    started by spawn (lambdas, local functions) unless dill is there to do it."""
    if not callable(fn):
        raise TypeError(f"A callable function is expected, but {type(fn)} is provided.")
    if isinstance(fn, functools.partial):
        fn = fn.func
    if _dill_available():
        return
    if _is_local_fn(fn):
        warnings.warn("Local function is not supported by pickle, please use regular python "
                      "function or functools.partial instead.", stacklevel=2)
    elif getattr(fn, "__name__", None) == "<lambda>":
        warnings.warn("Lambda function is not supported by pickle, please use regular python "
                      "function or functools.partial instead.", stacklevel=2)


def match_masks(name, masks):
    if not masks:
        return True
    if isinstance(masks, str):
        return fnmatch.fnmatch(name, masks)
    return any(fnmatch.fnmatch(name, m) for m in masks)


def get_file_pathnames_from_root(root, masks, recursive=False, abspath=False,
                                 non_deterministic=False):
    """Paths of the files under `root` (or `root` itself, a file) whose names match `masks`, in
    sorted order unless `non_deterministic`."""
    if os.path.isfile(root):
        path = os.path.abspath(root) if abspath else root
        if match_masks(os.path.basename(path), masks):
            yield path
        return

    def onerror(err):
        warnings.warn(f"{err.filename} : {err.strerror}", stacklevel=2)
        raise err

    for path, dirs, files in os.walk(root, onerror=onerror):
        if abspath:
            path = os.path.abspath(path)
        if not non_deterministic:
            files.sort()
            dirs.sort()  # os.walk visits `dirs` in this order
        for f in files:
            if match_masks(f, masks):
                yield os.path.join(path, f)
        if not recursive:
            break


def get_file_binaries_from_pathnames(pathnames, mode, encoding=None):
    if not isinstance(pathnames, Iterable):
        pathnames = [pathnames]
    if mode in ("b", "t"):
        mode = "r" + mode
    for pathname in pathnames:
        if not isinstance(pathname, str):
            raise TypeError(f"Expected string type for pathname, but got {type(pathname)}")
        yield pathname, StreamWrapper(open(pathname, mode, encoding=encoding))


def validate_pathname_binary_tuple(data):
    if not isinstance(data, tuple):
        raise TypeError(f"pathname binary data should be tuple type, but it is type {type(data)}")
    if len(data) != 2:
        raise TypeError(f"pathname binary stream tuple length should be 2, but got {len(data)}")
    if not isinstance(data[0], str):
        raise TypeError("pathname within the tuple should have string type pathname, but it is "
                        f"type {type(data[0])}")
    if not isinstance(data[1], (IOBase, StreamWrapper)):
        raise TypeError("binary stream within the tuple should have IOBase orits subclasses as "
                        f"type, but it is type {type(data[1])}")


class StreamWrapper:
    """Wraps a file object: forwards attribute access to it and closes it when garbage collected
    or when the pipe that opened it drops the item, so pipelines do not leak file handles. A child
    stream (`parent_stream=`) keeps its parent open until the last child closes, after
    `parent.autoclose()`."""

    session_streams = {}
    debug_unclosed_streams = False

    def __init__(self, file_obj, parent_stream=None, name=None):
        self.file_obj = file_obj
        self.child_counter = 0
        self.parent_stream = parent_stream
        self.close_on_last_child = False
        self.name = name
        self.closed = False
        if parent_stream is not None:
            if not isinstance(parent_stream, StreamWrapper):
                raise RuntimeError(
                    f"Parent stream should be StreamWrapper, {type(parent_stream)} was given")
            parent_stream.child_counter += 1
        if StreamWrapper.debug_unclosed_streams:
            StreamWrapper.session_streams[self] = 1

    @classmethod
    def close_streams(cls, v, depth=0):
        """Closes every StreamWrapper in `v` (nested lists, tuples and dicts, 10 levels deep)."""
        if depth > 10:
            return
        if isinstance(v, StreamWrapper):
            v.close()
        elif isinstance(v, dict):
            for item in v.values():
                cls.close_streams(item, depth + 1)
        elif isinstance(v, (list, tuple)):
            for item in v:
                cls.close_streams(item, depth + 1)

    def __getattr__(self, name):
        return getattr(self.__dict__["file_obj"], name)

    def close(self, *args, **kwargs):
        if self.closed:
            return
        if StreamWrapper.debug_unclosed_streams:
            del StreamWrapper.session_streams[self]
        parent = self.__dict__.get("parent_stream")
        if parent is not None:
            parent.child_counter -= 1
            if not parent.child_counter and parent.close_on_last_child:
                parent.close()
        try:
            self.file_obj.close(*args, **kwargs)
        except AttributeError:
            pass
        self.closed = True

    def autoclose(self):
        """Closes this stream once its last child stream closes (now, if it has none)."""
        self.close_on_last_child = True
        if self.child_counter == 0:
            self.close()

    def __dir__(self):
        return list(set(list(self.__dict__) + list(StreamWrapper.__dict__) + dir(self.file_obj)))

    def __del__(self):
        if not self.__dict__.get("closed", True):
            self.close()

    def __iter__(self):
        yield from self.file_obj

    def __next__(self):
        return next(self.file_obj)

    def __repr__(self):
        if self.name is None:
            return f"StreamWrapper<{self.file_obj!r}>"
        return f"StreamWrapper<{self.name},{self.file_obj!r}>"

    def __getstate__(self):
        return self.file_obj

    def __setstate__(self, obj):
        self.file_obj = obj


def _no_valid_length(dp):
    """The error `len()` of a pipe raises when its length is unknown."""
    return TypeError(f"{type(dp).__name__} instance doesn't have valid length")
