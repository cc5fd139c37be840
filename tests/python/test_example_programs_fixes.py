"""Fixes found by running github:pytorch/examples under rstorch (tools/run_examples.py); each
test names the program that needed it. Expected texts and behaviours are PyTorch 2.15's."""
import warnings

import numpy as np
import pytest

import rstorch
import rstorch.nn.functional as F

_DROPOUT2D_RANK = (
    "dropout2d: Received a {}-D input to dropout2d, which is deprecated and will result in an error in a future "
    "release. To retain the behavior and silence this warning, please use dropout instead. Note that dropout2d "
    "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and an "
    "optional batch dimension (i.e. 3D or 4D inputs).")


def test_dropout2d_on_2d_input_warns_and_drops_elementwise():
    # mnist_rnn applies nn.Dropout2d to the (N, C) output of a Linear layer.
    rstorch.manual_seed(0)
    x = rstorch.ones(200, 100)
    with pytest.warns(UserWarning) as record:
        y = F.dropout2d(x, 0.5)
    assert str(record[0].message) == _DROPOUT2D_RANK.format(2)
    z = y.numpy()
    np.testing.assert_allclose(np.unique(z), [0.0, 2.0])
    assert 0.45 < (z != 0).mean() < 0.55
    # elementwise, not whole rows: most rows hold both kept and dropped entries
    assert ((z.min(1) == 0) & (z.max(1) == 2)).mean() > 0.9
    with pytest.warns(UserWarning):
        assert rstorch.nn.Dropout2d(0.25).eval()(x) is not None


def test_dropout2d_on_5d_input_warns_and_drops_whole_channels():
    rstorch.manual_seed(0)
    with pytest.warns(UserWarning) as record:
        z = F.dropout2d(rstorch.ones(4, 30, 2, 3, 2), 0.5).numpy()
    assert str(record[0].message) == _DROPOUT2D_RANK.format(5)
    per_channel = z.reshape(4, 30, -1)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()


def test_dropout2d_on_1d_input_warns_then_raises():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="^Feature dropout requires at least 2 dimensions in the input$"):
            F.dropout2d(rstorch.ones(5), 0.5)
    assert str(record[0].message) == _DROPOUT2D_RANK.format(1)
