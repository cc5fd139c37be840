"""A short walk through rstorch's tensors (`make demo` runs it)."""
import numpy as np

import rstorch as torch

torch.manual_seed(0)

print("== creation")
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(x, x.shape, x.dtype)
print(torch.arange(6).view(2, 3))
print(torch.zeros(2, 2, dtype=torch.int32))
print(torch.rand(2, 3))

print("\n== broadcasting and type promotion")
print(x + torch.tensor([10.0, 20.0, 30.0]))
print(torch.arange(3) * 0.5, (torch.arange(3) * 0.5).dtype)

print("\n== views share storage")
t = x.t()
print(t.is_contiguous(), t.stride(), x.stride())
x[0, 0] = 100.0
print(t[0])

print("\n== reductions")
print(x.sum(), x.mean(dim=0), x.max(dim=1))
print(torch.softmax(x, dim=1))

print("\n== indexing")
print(x[:, ::2], x[x > 3], x[[0, 1], [2, 0]])

print("\n== matmul")
a, b = torch.randn(3, 4), torch.randn(4, 2)
print(a @ b)
print(torch.einsum("ij,jk->ik", a, b))

print("\n== numpy interop (no copies)")
arr = np.ones(3, dtype=np.float32)
shared = torch.from_numpy(arr)
arr[1] = 7.0
print(shared, shared.numpy().base is not None)

print("\n== errors are PyTorch's")
try:
    torch.ones(2, 3) + torch.ones(2, 4)
except RuntimeError as e:
    print("RuntimeError:", e)
print(f"\nkernels use {torch.get_num_threads()} threads and {torch._C._simd_level()} SIMD")
