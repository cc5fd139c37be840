"""`torch.multinomial` / `Tensor.multinomial`: PyTorch's signature, result shape and dtype, its
errors (types and messages as PyTorch 2.15 raises them), draws that follow the weights, distinct
draws without replacement (zero weights last), and a seeded generator repeating its draws on
every device."""
import re

import pytest

import rstorch
from _wgpu_helpers import needs_gpu


def test_shapes_dtype_and_the_function_form():
    p = rstorch.tensor([0.1, 0.2, 0.7])
    s = rstorch.multinomial(p, 2)
    assert s.shape == (2,) and s.dtype == rstorch.int64
    assert p.multinomial(5, replacement=True).shape == (5,)
    rows = rstorch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    assert rows.multinomial(2).shape == (2, 2)
    assert rstorch.ones(0, 3).multinomial(2).shape == (0, 2)
    assert p.double().multinomial(1).dtype == rstorch.int64


def test_draws_follow_the_weights():
    g = rstorch.Generator().manual_seed(3)
    w = rstorch.tensor([[2.0, 0.0, 6.0, 2.0], [0.0, 1.0, 0.0, 3.0]])
    s = w.multinomial(20000, replacement=True, generator=g)
    for row, weights in zip(s.tolist(), w.tolist()):
        total = sum(weights)
        for k, wk in enumerate(weights):
            share = row.count(k) / len(row)
            assert abs(share - wk / total) < 0.015, (k, share, wk / total)


def test_without_replacement_draws_are_distinct_with_zero_weights_last():
    g = rstorch.Generator().manual_seed(0)
    for _ in range(50):
        s = rstorch.tensor([0.0, 3.0, 0.0, 1.0, 2.0]).multinomial(5, generator=g).tolist()
        assert sorted(s) == [0, 1, 2, 3, 4]
        assert set(s[:3]) == {1, 3, 4}
    # The first draw of many follows the weights too.
    first = [rstorch.tensor([1.0, 3.0]).multinomial(2, generator=g).tolist()[0] for _ in range(4000)]
    assert abs(first.count(1) / len(first) - 0.75) < 0.03


def test_a_seed_repeats_the_draws():
    p = rstorch.tensor([0.3, 0.3, 0.4])
    rstorch.manual_seed(11)
    a = rstorch.multinomial(p, 50, True).tolist()
    rstorch.manual_seed(11)
    assert rstorch.multinomial(p, 50, True).tolist() == a
    g1, g2 = rstorch.Generator().manual_seed(5), rstorch.Generator().manual_seed(5)
    assert p.multinomial(3, generator=g1).tolist() == p.multinomial(3, generator=g2).tolist()


@pytest.mark.parametrize("make, n, replacement, message", [
    (lambda: rstorch.tensor([1, 2]), 1, False, "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda: rstorch.zeros(2, 2, 2), 1, False, "prob_dist must be 1 or 2 dim"),
    (lambda: rstorch.tensor(1.0), 1, False, "prob_dist must be 1 or 2 dim"),
    (lambda: rstorch.tensor([0.1, 0.9]), 3, False, "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: rstorch.tensor([0.1, 0.9]), 0, True, "cannot sample n_sample <= 0 samples"),
    (lambda: rstorch.tensor([0.1, 0.9]), -1, False, "cannot sample n_sample <= 0 samples"),
    (lambda: rstorch.tensor([0.0, 0.0]), 1, False, "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: rstorch.tensor([-1.0, 2.0]), 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: rstorch.tensor([float("nan"), 2.0]), 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: rstorch.tensor([float("inf"), 2.0]), 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: rstorch.zeros(2, 0), 1, True, "aminmax"),
])
def test_bad_input_is_pytorchs_runtime_error(make, n, replacement, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        rstorch.multinomial(make(), n, replacement)


@needs_gpu
def test_on_wgpu_the_draws_are_the_cpus():
    p = rstorch.tensor([[0.2, 0.5, 0.3], [1.0, 1.0, 0.0]])
    g = rstorch.Generator().manual_seed(9)
    want = p.multinomial(2, generator=g).tolist()
    g.manual_seed(9)
    got = p.to("wgpu").multinomial(2, generator=g)
    assert got.device.type == "wgpu" and got.dtype == rstorch.int64
    assert got.cpu().tolist() == want
