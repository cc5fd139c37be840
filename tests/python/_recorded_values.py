"""Comparing an op's captured output with the one recorded from PyTorch (the `capture` format of
the tests/*_cases.py modules: nested lists of {"dtype", "shape", "values"} with None for NaN)."""
import math


def same(got, want, path, tol64):
    """Assert `got` equals `want`: dtypes and shapes exactly, values within `tol64` relative in
    float64 (1e-6 in float32), NaN where PyTorch gave NaN and infinities exactly."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{path}[{i}]", tol64)
        return
    if not isinstance(want, dict):
        assert got == want, path
        return
    assert got["dtype"] == want["dtype"], (path, got["dtype"], want["dtype"])
    assert got["shape"] == want["shape"], (path, got["shape"], want["shape"])
    tol = tol64 if want["dtype"] != "float32" else 1e-6
    for g, w in zip(got["values"], want["values"]):
        if w is None:
            assert g is None, (path, got["values"], want["values"])
        elif isinstance(w, float) and math.isinf(w):
            assert g == w, path
        else:
            assert g is not None and abs(g - w) <= tol * max(1.0, abs(w)), (path, got["values"], want["values"])
