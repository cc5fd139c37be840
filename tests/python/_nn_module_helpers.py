"""The small modules and the comparison the nn.Module tests share: a Linear built from Tensor
methods (so that rule tests need no functional) and a net with parameters, buffers and a child."""
import numpy as np

import rstorch as torch
import rstorch.nn as nn


def close(a, b, tol=1e-5):
    a = a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, atol=tol, rtol=tol)


class MyLinear(nn.Module):
    """A Linear built from Tensor methods, so that the rule tests need no functional."""

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in))
        if bias:
            self.bias = nn.Parameter(torch.randn(n_out))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        y = x @ self.weight.t()
        return y + self.bias if self.bias is not None else y


class Net(nn.Module):
    """fc1 -> (bn-like buffers) -> block(fc2) with a persistent and a non-persistent buffer."""

    def __init__(self):
        super().__init__()
        self.fc1 = MyLinear(3, 4)
        self.register_buffer("running_mean", torch.zeros(4))
        self.register_buffer("scratch", torch.ones(4), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))
        self.block = nn.Sequential(MyLinear(4, 2), nn.ReLU())

    def forward(self, x):
        return self.block(self.fc1(x) * self.scale)
