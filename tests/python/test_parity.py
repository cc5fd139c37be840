"""Every recorded PyTorch case (tests/parity) run against rstorch: outputs, then gradients.

Cases whose ops do not exist yet are listed in tests/parity/expected_failures.txt and marked
xfail(strict=True): a listed case that starts passing fails the run until it is removed from
the list, so the passing count only goes up.
"""
import json
import pathlib

import numpy as np
import pytest

import rstorch

HERE = pathlib.Path(__file__).resolve().parent.parent / "parity"
CASES = json.loads((HERE / "cases.json").read_text())["cases"]
FIXTURES = np.load(HERE / "fixtures.npz")


def _expected_failures():
    out = {}
    for line in (HERE / "expected_failures.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            mode, name = line.split()
            out.setdefault(mode, set()).add(name)
    return out


EXPECTED = _expected_failures()


def _flatten(out):
    if isinstance(out, rstorch.Tensor):
        return [out]
    return [t for o in out for t in _flatten(o)]


def _check(got, want, rtol, atol, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "biu":
        assert got.dtype.kind in "biu", f"{what}: dtype {got.dtype}, PyTorch gives {want.dtype}"
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def _run(case, with_grad):
    name = case["name"]
    fn = eval(case["fn"])
    inputs = [
        rstorch.tensor(FIXTURES[f"{name}/in{i}"], requires_grad=g and with_grad)
        for i, g in enumerate(case["requires_grad"])
    ]
    outs = _flatten(fn(rstorch, *inputs))
    assert len(outs) == case["n_out"]
    rtol, atol = case["tol"]
    loss = None
    for j, o in enumerate(outs):
        _check(np.asarray(o.detach().numpy()), FIXTURES[f"{name}/out{j}"], rtol, atol, f"output {j}")
        if with_grad and f"{name}/cot{j}" in FIXTURES:
            term = (o * rstorch.tensor(FIXTURES[f"{name}/cot{j}"])).sum()
            loss = term if loss is None else loss + term
    if loss is None:
        return
    loss.backward()
    grtol, gatol = case["grad_tol"]
    for i, g in enumerate(case["requires_grad"]):
        if g:
            grad = inputs[i].grad
            assert grad is not None, f"input {i}: .grad is None"
            _check(np.asarray(grad.numpy()), FIXTURES[f"{name}/grad{i}"], grtol, gatol, f"grad of input {i}")


def _params(mode):
    for case in CASES:
        marks = []
        if case["name"] in EXPECTED.get(mode, ()):
            marks.append(pytest.mark.xfail(strict=True, reason=f"listed in expected_failures.txt ({mode})"))
        yield pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", list(_params("forward")))
def test_forward(case):
    _run(case, with_grad=False)


@pytest.mark.parametrize("case", list(_params("grad")))
def test_gradients(case):
    _run(case, with_grad=True)
