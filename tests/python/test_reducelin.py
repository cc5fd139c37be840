"""Reductions, scans, counting and linear algebra against PyTorch (tests/reducelin_cases.py,
recorded by tests/record_reducelin.py into fixtures/reducelin.json), and gradchecks in float64."""
import json
import pathlib
import sys

import pytest

import rstorch as torch
from rstorch.autograd import gradcheck, gradgradcheck

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT))
from reducelin_cases import capture, cases  # noqa: E402

from _recorded_values import same  # noqa: E402

FIXTURE = json.loads((ROOT / "fixtures" / "reducelin.json").read_text())
CASES = cases(torch)


# float64 agrees to rounding; float32 to a few of its ulps (LAPACK's blocking differs by build).
def _same(got, want, path):
    same(got, want, path, tol64=1e-9)


def test_every_case_recorded():
    assert sorted(CASES) == sorted(FIXTURE)


@pytest.mark.parametrize("name", sorted(FIXTURE))
def test_matches_pytorch(name):
    got, want = capture(CASES[name]), FIXTURE[name]
    if "error" in want:
        assert got.get("error") == want["error"], got
    else:
        assert "error" not in got, got["error"]
        _same(got["out"], want["out"], name)


def _rand(*shape, shift=0.0):
    torch.manual_seed(sum(shape) + 7)
    x = torch.randn(*shape, dtype=torch.float64)
    if shift:
        x = x + shift * torch.eye(shape[-1], dtype=torch.float64)
    return x.requires_grad_(True)


la = torch.linalg
GRADS = {
    "det": (lambda a: la.det(a), lambda: (_rand(3, 3, shift=3),)),
    "det_batch": (lambda a: torch.det(a), lambda: (_rand(2, 3, 3, shift=3),)),
    "slogdet": (lambda a: la.slogdet(a).logabsdet, lambda: (_rand(3, 3, shift=3),)),
    "inv": (lambda a: torch.inverse(a), lambda: (_rand(2, 3, 3, shift=3),)),
    "solve": (lambda a, b: la.solve(a, b), lambda: (_rand(3, 3, shift=3), _rand(3, 2))),
    "solve_vec_broadcast": (lambda a, b: la.solve(a, b), lambda: (_rand(2, 3, 3, shift=3), _rand(3))),
    "cholesky": (lambda a: la.cholesky(a @ a.mT + torch.eye(3, dtype=torch.float64)), lambda: (_rand(3, 3),)),
    "qr_tall": (lambda a: tuple(la.qr(a)), lambda: (_rand(4, 3),)),
    "qr_wide": (lambda a: tuple(la.qr(a)), lambda: (_rand(3, 4),)),
    "eigh": (lambda a: (lambda r: (r[0], r[1].abs()))(la.eigh(a + a.mT)), lambda: (_rand(3, 3),)),
    "svd": (lambda a: (lambda r: (r[0].abs(), r[1], r[2].abs()))(la.svd(a, full_matrices=False)), lambda: (_rand(4, 3),)),
    "svd_wide": (lambda a: (lambda r: (r[0].abs(), r[1], r[2].abs()))(la.svd(a, full_matrices=False)), lambda: (_rand(3, 4),)),
    "pinv": (lambda a: torch.pinverse(a), lambda: (_rand(4, 3),)),
    "lu": (lambda a: tuple(la.lu(a))[1:], lambda: (_rand(3, 3, shift=1),)),
    "matrix_exp": (lambda a: torch.matrix_exp(a), lambda: (_rand(3, 3),)),
    "matrix_power_neg": (lambda a: la.matrix_power(a, -2), lambda: (_rand(3, 3, shift=3),)),
    "lstsq": (lambda a, b: la.lstsq(a, b).solution, lambda: (_rand(5, 3), _rand(5, 2))),
    "cholesky_solve": (lambda b, a: torch.cholesky_solve(b, la.cholesky(a @ a.mT + torch.eye(3, dtype=torch.float64))),
                       lambda: (_rand(3, 2), _rand(3, 3))),
    "logcumsumexp": (lambda a: torch.logcumsumexp(a, 1), lambda: (_rand(3, 4),)),
    "cummax": (lambda a: torch.cummax(a, 1).values, lambda: (_rand(3, 4),)),
    "nanmedian": (lambda a: torch.nanmedian(a, 1).values, lambda: (_rand(3, 5),)),
    "quantile": (lambda a: torch.quantile(a, torch.tensor([0.3, 0.6], dtype=torch.float64), dim=1), lambda: (_rand(3, 5),)),
    "nanmean": (lambda a: torch.nanmean(a, 0), lambda: (_rand(3, 5),)),
    "cdist": (lambda a, b: torch.cdist(a, b), lambda: (_rand(3, 4), _rand(2, 4))),
    "cov": (lambda a: torch.corrcoef(a), lambda: (_rand(3, 5),)),
    "renorm": (lambda a: a.renorm(2, 0, 1.0), lambda: (_rand(3, 4),)),
    "kron": (lambda a, b: torch.kron(a, b), lambda: (_rand(2, 3), _rand(2, 2))),
    "addbmm": (lambda i, a, b: torch.addbmm(i, a, b, beta=0.5), lambda: (_rand(3, 2), _rand(2, 3, 4), _rand(2, 4, 2))),
    "cross": (lambda a, b: la.cross(a, b), lambda: (_rand(2, 3), _rand(2, 3))),
    "householder_product": (lambda a, t: torch.linalg.householder_product(a, t), lambda: (_rand(4, 3), _rand(2))),
    "matrix_sqrth": (lambda a: torch.linalg.matrix_sqrth(a @ a.mT + torch.eye(3, dtype=torch.float64)), lambda: (_rand(3, 3),)),
    "polar": (lambda a: tuple(torch.linalg.polar(a)), lambda: (_rand(4, 3),)),
    "gradient": (lambda f: torch.gradient(f, spacing=[2.0, torch.tensor([0.0, 1.0, 1.5, 3.0], dtype=torch.float64)],
                                          edge_order=2), lambda: (_rand(3, 4),)),
    "trapezoid": (lambda y, x: torch.trapezoid(y, x), lambda: (_rand(2, 4), _rand(4))),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, inputs = GRADS[name]
    assert gradcheck(fn, inputs())


# Double backward: each Function's backward is in differentiable ops and recomputes its outputs
# from its inputs when recorded.
DOUBLE = ("det", "inv", "solve", "slogdet", "cholesky", "qr_tall", "eigh", "svd", "lu", "logcumsumexp", "pinv")


@pytest.mark.parametrize("name", DOUBLE)
def test_gradgradcheck(name):
    fn, inputs = GRADS[name]
    assert gradgradcheck(fn, inputs())


def test_logcumsumexp_gradient_far_apart_values():
    x = torch.tensor([-1000.0, 0.0, 800.0], dtype=torch.float64, requires_grad=True)
    torch.logcumsumexp(x, 0).sum().backward()
    # d out_i / d x_j = exp(x_j - out_i) for j <= i: out_0 = x_0, and exp(-1000 - 0) underflows.
    assert x.grad.tolist() == pytest.approx([1.0, 1.0, 1.0])


def test_linalg_error_class():
    sing = torch.ones(2, 2, dtype=torch.float64)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(sing)
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)


def test_in_place_products_write_self():
    a = torch.zeros(3, dtype=torch.float64)
    out = a.addmv_(torch.eye(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))
    assert out is a and a.tolist() == [1.0, 1.0, 1.0]


def test_node_names_are_pytorchs():
    A = torch.eye(3, dtype=torch.float64).requires_grad_(True)
    la = torch.linalg
    names = {
        "LinalgDetBackward0": la.det(A), "LinalgSlogdetBackward0": la.slogdet(A)[1], "LinalgInvExBackward0": la.inv(A),
        "LinalgSolveExBackward0": la.solve(A, A), "LinalgCholeskyExBackward0": la.cholesky(A),
        "LinalgQrBackward0": la.qr(A)[0], "LinalgEighBackward0": la.eigh(A)[0], "LinalgSvdBackward0": la.svd(A)[1],
        "LinalgLuBackward0": la.lu(A)[1], "LogcumsumexpBackward0": A.logcumsumexp(0),
    }
    for name, out in names.items():
        assert out.grad_fn.name() == name


def test_mode_index_points_at_the_mode():
    # Which occurrence PyTorch's index names depends on its sort for longer rows; any one is a mode.
    torch.manual_seed(3)
    x = torch.randint(0, 5, (6, 40))
    values, indices = torch.mode(x, 1)
    assert x.gather(1, indices.unsqueeze(1)).squeeze(1).tolist() == values.tolist()
