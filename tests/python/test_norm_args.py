"""batch_norm's and layer_norm's argument rules and the running estimates' update, as PyTorch 2.15
has them (messages and values recorded from it). They live in the Rust core (`Tensor::batch_norm`,
`Tensor::layer_norm`), so these also pin what a Rust caller gets."""
import pytest

import rstorch as torch
import rstorch.nn.functional as F

ERRORS = {
    "layer_norm_shape": (lambda: F.layer_norm(torch.ones(2, 3), (4,)), RuntimeError,
                         "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"),
    "layer_norm_too_many_dims": (lambda: F.layer_norm(torch.ones(3), (1, 3)), RuntimeError,
                                 "Given normalized_shape=[1, 3], expected input with shape [*, 1, 3], but got input of size[3]"),
    "layer_norm_int_shape": (lambda: F.layer_norm(torch.ones(2, 3), 3), TypeError,
                             "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"),
    "layer_norm_weight": (lambda: F.layer_norm(torch.ones(2, 3), (3,), torch.ones(4)), RuntimeError,
                          "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and "
                          "normalized_shape = [3]"),
    "batch_norm_1d_training": (lambda: F.batch_norm(torch.ones(3), None, None, training=True), IndexError,
                               "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    "batch_norm_one_value": (lambda: F.batch_norm(torch.ones(1, 3), None, None, training=True), ValueError,
                             "Expected more than 1 value per channel when training, got input size"),
    "batch_norm_eps_training": (lambda: F.batch_norm(torch.ones(2, 3), None, None, training=True, eps=0.0), ValueError,
                                "batch_norm eps must be positive during training, but got 0.0"),
    "batch_norm_eps_negative": (lambda: F.batch_norm(torch.ones(2, 3), torch.zeros(3), torch.ones(3), eps=-1.0),
                                ValueError, "batch_norm eps must be non-negative, but got -1.0"),
    "batch_norm_eval_without_mean": (lambda: F.batch_norm(torch.ones(2, 3), None, None), RuntimeError,
                                     "running_mean must be defined in evaluation mode"),
    "batch_norm_eval_without_var": (lambda: F.batch_norm(torch.ones(2, 3), torch.zeros(3), None), RuntimeError,
                                    "running_var must be defined in evaluation mode"),
    "batch_norm_one_running_estimate": (lambda: F.batch_norm(torch.ones(4, 3), torch.zeros(3), None, training=True),
                                        ValueError, "running_mean and running_var must either both be None or neither be None"),
    "batch_norm_running_size": (lambda: F.batch_norm(torch.ones(2, 3), torch.zeros(4), torch.ones(4), training=True),
                                RuntimeError, "running_mean should contain 3 elements not 4"),
    "batch_norm_weight_size": (lambda: F.batch_norm(torch.ones(2, 3), None, None, torch.ones(4), training=True),
                               RuntimeError, "weight should contain 3 elements not 4"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_arguments_raise_pytorchs_error(case):
    call, cls, message = ERRORS[case]
    with pytest.raises(cls) as info:
        call()
    assert message in str(info.value)


def test_running_estimates_update():
    mean, var = torch.zeros(3), torch.ones(3)
    out = F.batch_norm(torch.arange(12.).reshape(4, 3), mean, var, training=True, momentum=0.3)
    assert mean.tolist() == pytest.approx([1.35, 1.65, 1.95])
    assert var.tolist() == pytest.approx([5.2, 5.2, 5.2])
    assert out.sum(0).tolist() == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    # A float16 input updates float32 estimates, in float32.
    mean, var = torch.zeros(3), torch.ones(3)
    F.batch_norm(torch.arange(12.).reshape(4, 3).half(), mean, var, training=True, momentum=0.5)
    assert mean.dtype == torch.float32
    assert (mean.tolist(), var.tolist()) == ([2.25, 2.75, 3.25], [8.0, 8.0, 8.0])
    # Estimates that are not tracked are not touched, and the result needs no gradient for them.
    x = torch.ones(2, 3, requires_grad=True)
    assert type(F.batch_norm(x, None, None, training=True).grad_fn).__name__ == "NativeBatchNormBackward0"
    assert type(F.layer_norm(x, (3,)).grad_fn).__name__ == "NativeLayerNormBackward0"
