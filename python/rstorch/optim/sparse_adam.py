"""SparseAdam: Adam restricted to the entries a sparse gradient touches. rstorch has no sparse
layout, so every gradient is dense, and a step with one raises PyTorch's error for dense
gradients; the constructor checks what PyTorch checks."""
from ._common import check_lr_size, run_closure
from .optimizer import Optimizer


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_lr_size(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[gi, pi] for gi, group in enumerate(self.param_groups)
                          for pi, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             f"parameters")

    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            if any(p.grad is not None for p in group["params"]):
                raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
