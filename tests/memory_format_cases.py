"""The cases of the memory-format fixture (tests/record_memory_format.py,
tests/python/test_memory_format.py).

Each case is a program in `torch` (PyTorch when recording, rstorch when replaying) that leaves
its result in `r`: a tensor (its shape, strides and values are compared), a tuple of tensors or
a bool; a program that raises records the exception's type. The `.grad` cases follow PyTorch's
AccumulateGrad layout contract: a first gradient is stored as is when it already has the
parameter's strides (a non-overlapping-and-dense parameter) or is contiguous (any other
parameter), else copied into that layout; later gradients are added into `.grad` in place
(create_graph: out of place, by the elementwise layout rule).
"""

SETUP = """
F = torch.nn.functional
cl = torch.channels_last
x4 = torch.arange(1., 121., dtype=torch.float64).reshape(2, 3, 4, 5) / 10
x5 = torch.arange(1., 241., dtype=torch.float64).reshape(2, 3, 2, 4, 5) / 10
m2 = torch.arange(1., 13., dtype=torch.float64).reshape(3, 4) / 4
w4 = (torch.arange(1., 55., dtype=torch.float64).reshape(2, 3, 3, 3) - 27) / 30
def leaf(t):
    return t.detach().requires_grad_()
"""

CASES = [
    # contiguous / is_contiguous with a memory format
    ("contig_cl", "r = x4.contiguous(memory_format=torch.channels_last)"),
    ("contig_cl_back", "r = x4.contiguous(memory_format=cl).contiguous()"),
    ("contig_cf", "r = x4.permute(0, 2, 3, 1).contiguous(memory_format=torch.contiguous_format)"),
    ("contig_cl_same", "y = x4.contiguous(memory_format=cl); r = y.contiguous(memory_format=cl) is y"),
    ("contig_cl3d", "r = x5.contiguous(memory_format=torch.channels_last_3d)"),
    ("contig_cl_size1", "r = x4[:, :1].contiguous(memory_format=cl)"),
    ("contig_cl_c1", "r = x4[:1, :, :1].contiguous(memory_format=cl)"),
    ("contig_cl_3d_err", "r = m2.contiguous(memory_format=cl)"),
    ("contig_cl3d_err", "r = x4.contiguous(memory_format=torch.channels_last_3d)"),
    ("contig_preserve", "r = x4.contiguous(memory_format=torch.preserve_format)"),
    ("contig_preserve_perm_err", "r = x4.permute(0, 2, 3, 1).contiguous(memory_format=torch.preserve_format)"),
    ("is_contig_cl", "r = x4.contiguous(memory_format=cl).is_contiguous(memory_format=cl)"),
    ("is_contig_cl_plain", "r = x4.contiguous(memory_format=cl).is_contiguous()"),
    ("is_contig_cl_of_rowmajor", "r = x4.is_contiguous(memory_format=cl)"),
    ("is_contig_cf", "r = x4.is_contiguous(memory_format=torch.contiguous_format)"),
    ("is_contig_cl_2d", "r = m2.is_contiguous(memory_format=cl)"),
    ("is_contig_cl_c1", "r = x4[:, :1].is_contiguous(memory_format=cl)"),
    ("is_contig_cl3d", "r = x5.contiguous(memory_format=torch.channels_last_3d).is_contiguous(memory_format=torch.channels_last_3d)"),
    ("is_contig_cl3d_no", "r = x5.is_contiguous(memory_format=torch.channels_last_3d)"),
    ("is_contig_preserve", "r = x4.is_contiguous(memory_format=torch.preserve_format)"),
    # Tensor.to(memory_format=)
    ("to_cl", "r = x4.to(memory_format=cl)"),
    ("to_dtype_cl", "r = x4.to(torch.float32, memory_format=cl)"),
    ("to_device_cl", "r = x4.to('cpu', memory_format=cl)"),
    ("to_cl_same", "y = x4.to(memory_format=cl); r = y.to(memory_format=cl) is y"),
    ("to_cf", "r = x4.to(memory_format=cl).to(memory_format=torch.contiguous_format)"),
    ("to_preserve", "r = x4.permute(0, 2, 3, 1).to(torch.float32, memory_format=torch.preserve_format)"),
    ("to_cl_2d_err", "r = m2.to(memory_format=cl)"),
    # nn.Module.to(memory_format=): 4-D parameters become channels-last, the others stay
    ("module_to_cl", "torch.manual_seed(0); n = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).to(memory_format=cl); r = tuple(p.stride() for p in n.parameters())"),
    ("module_to_cl_dtype", "torch.manual_seed(0); n = torch.nn.Conv2d(3, 4, 3).to(torch.float64, memory_format=cl); r = (n.weight.stride(), n.weight.dtype == torch.float64)"),
    # channels-last in, channels-last out
    ("conv_cl_cl", "r = F.conv2d(x4.to(memory_format=cl), w4.to(memory_format=cl), padding=1)"),
    ("conv_cl_c", "r = F.conv2d(x4.to(memory_format=cl), w4, padding=1)"),
    ("conv_c_cl", "r = F.conv2d(x4, w4.to(memory_format=cl), padding=1)"),
    ("conv_cl_bias", "r = F.conv2d(x4.to(memory_format=cl), w4, torch.arange(2., dtype=torch.float64), stride=2)"),
    ("bn_cl_eval", "r = F.batch_norm(x4.to(memory_format=cl), torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), torch.arange(1., 4., dtype=torch.float64), torch.arange(3., dtype=torch.float64))"),
    ("bn_cl_train", "r = F.batch_norm(x4.to(memory_format=cl), None, None, training=True)"),
    ("bn_module_cl", "n = torch.nn.BatchNorm2d(3).double(); r = n(x4.to(memory_format=cl))"),
    ("maxpool_cl", "r = F.max_pool2d(x4.to(memory_format=cl), 2)"),
    ("maxpool_cl_idx", "r = F.max_pool2d(x4.to(memory_format=cl), 2, return_indices=True)"),
    ("avgpool_cl", "r = F.avg_pool2d(x4.to(memory_format=cl), 2)"),
    ("relu_cl", "r = F.relu(x4.to(memory_format=cl) - 6)"),
    ("add_cl_cl", "r = x4.to(memory_format=cl) + x4.to(memory_format=cl)"),
    ("add_cl_c", "r = x4.to(memory_format=cl) + x4"),
    # .grad follows the parameter's layout (AccumulateGrad's layout contract)
    ("grad_cl_mul", "p = leaf(x4.to(memory_format=cl)); (p * 2).sum().backward(); r = p.grad"),
    ("grad_cl_exp", "p = leaf(x4.to(memory_format=cl)); p.exp().sum().backward(); r = p.grad"),
    ("grad_t_mul", "p = leaf(m2.t()); (p * 3).sum().backward(); r = p.grad"),
    ("grad_t_exp", "p = leaf(m2.t()); (p.exp() * m2.t()).sum().backward(); r = p.grad"),
    ("grad_c_from_t", "p = leaf(m2); (p.t() * m2.t().contiguous()).sum().backward(); r = p.grad"),
    ("grad_perm3", "p = leaf(x4[0].permute(2, 0, 1)); (p * p).sum().backward(); r = p.grad"),
    ("grad_size1_odd", "p = leaf(m2[:, :1].t().t()); (p * 2).sum().backward(); r = p.grad"),
    ("grad_slice", "p = leaf(m2[:, ::2]); (p * 2).sum().backward(); r = p.grad"),
    ("grad_slice_t", "p = leaf(m2.t()[::2]); (p * 2).sum().backward(); r = p.grad"),
    ("grad_expanded", "p = leaf(m2[:1]).expand(3, 4).detach().requires_grad_(); (p * 2).sum().backward(); r = p.grad"),
    ("grad_sum_only", "p = leaf(m2.t()); p.sum().backward(); r = p.grad"),
    ("grad_twice_cl", "p = leaf(x4.to(memory_format=cl)); (p * 2).sum().backward(); (p * 3).sum().backward(); r = p.grad"),
    ("grad_existing_c", "p = leaf(x4.to(memory_format=cl)); p.grad = torch.ones(2, 3, 4, 5, dtype=torch.float64); (p * 2).sum().backward(); r = p.grad"),
    ("grad_existing_t", "p = leaf(m2); p.grad = torch.ones(4, 3, dtype=torch.float64).t(); (p * 2).sum().backward(); r = p.grad"),
    ("grad_create_graph", "p = leaf(x4.to(memory_format=cl)); (p * p).sum().backward(create_graph=True); r = p.grad"),
    ("grad_create_graph_twice", "p = leaf(m2.t()); (p * p).sum().backward(create_graph=True); (p * 2).sum().backward(create_graph=True); r = p.grad"),
    ("grad_conv_cl", "torch.manual_seed(0); n = torch.nn.Conv2d(3, 2, 3).double().to(memory_format=cl); n(x4.to(memory_format=cl)).sum().backward(); r = (n.weight.grad.stride(), n.bias.grad.stride())"),
    ("grad_conv_input_cl", "x = leaf(x4.to(memory_format=cl)); F.conv2d(x, w4.to(memory_format=cl)).sum().backward(); r = x.grad"),
    ("grad_autograd_grad", "p = leaf(m2.t()); r = torch.autograd.grad((p * 2).sum(), p)[0]"),
]


def describe(r, torch_mod):
    """A JSON form of a case's result: tensors by shape, strides and values."""
    if isinstance(r, torch_mod.Tensor):
        return {"shape": list(r.shape), "stride": list(r.stride()), "values": r.detach().tolist()}
    if isinstance(r, (tuple, list)):
        return [describe(x, torch_mod) for x in r]
    return r


def run_case(program, torch_mod):
    env = {"torch": torch_mod}
    exec(SETUP, env)
    try:
        exec(program, env)
    except Exception as e:  # noqa: BLE001 - the exception's type is what is recorded
        return {"error": type(e).__name__}
    return {"result": describe(env["r"], torch_mod)}
