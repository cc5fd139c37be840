"""A custom autograd Function with its own forward and backward, checked with gradcheck
(`python examples/custom_function.py`)."""
import rstorch as torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output.clone()
        grad[x < 0] = 0
        return grad


def main():
    x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    y = MyReLU.apply(x)
    print("grad_fn:", y.grad_fn)
    y.sum().backward()
    print("gradient equals (x > 0):", bool((x.grad == (x > 0).double()).all()))
    ok = torch.autograd.gradcheck(MyReLU.apply, (torch.randn(4, 4, dtype=torch.float64, requires_grad=True),))
    print("gradcheck:", ok)
    return ok


if __name__ == "__main__":
    main()
