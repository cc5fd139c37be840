"""The cases of the layout fixture (tests/record_layout.py, tests/python/test_layout_preserve.py).

Each case is an expression in `torch` (PyTorch when recording, rstorch when replaying) whose
result's strides follow PyTorch's rule for elementwise results: an input that is non-overlapping
and dense gives its strides to the result; otherwise the result's dims follow the inputs' order by
stride (the first operand decides, broadcast dims do not vote), and a result already in row-major
order is contiguous. `random` marks a result whose values are not compared.
"""

# Inputs the expressions use: float64 for exact values, built the same way in both libraries.
SETUP = """
a2 = torch.arange(1., 13., dtype=torch.float64).reshape(3, 4)
a3 = torch.arange(1., 25., dtype=torch.float64).reshape(2, 3, 4)
a4 = torch.arange(1., 121., dtype=torch.float64).reshape(2, 3, 4, 5)
b4 = torch.arange(-60., 60., dtype=torch.float64).reshape(2, 3, 4, 5) / 7
big = torch.arange(0., 64., dtype=torch.float64).reshape(8, 8) / 10
i2 = torch.arange(12).reshape(3, 4)
m2 = (torch.arange(12).reshape(3, 4) % 3) == 0
"""

CASES = [
    # unary on transposed / permuted inputs
    ("t_exp", "a2.t().exp()"),
    ("t_neg", "-a2.t()"),
    ("t_abs", "a2.t().abs()"),
    ("t_sigmoid", "a2.t().sigmoid()"),
    ("t_sin", "torch.sin(a2.t())"),
    ("p3_120_exp", "a3.permute(1, 2, 0).exp()"),
    ("p3_210_tanh", "a3.permute(2, 1, 0).tanh()"),
    ("p3_021_sqrt", "a3.permute(0, 2, 1).sqrt()"),
    ("p4_cl_exp", "a4.permute(0, 2, 3, 1).exp()"),
    ("p4_cl_back", "a4.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).exp()"),
    ("p4_3120", "a4.permute(3, 1, 2, 0).neg()"),
    ("t_int_neg", "-i2.t()"),
    ("t_bool_not", "~m2.t()"),
    ("t_logical_not", "torch.logical_not(m2.t())"),
    ("t_isnan", "torch.isnan(a2.t())"),
    ("t_pow_scalar", "a2.t() ** 2"),
    ("t_relu", "torch.relu(a2.t() - 6)"),
    # type promotion
    ("t_int_sqrt", "i2.t().sqrt()"),
    ("t_int_exp", "torch.exp(i2.t())"),
    ("t_int_mul_float", "i2.t() * 1.5"),
    ("t_int_div", "i2.t() / 2"),
    # not dense: strided slices keep their dims' order but are packed
    ("slice_step_cols", "a2[:, ::2].exp()"),
    ("slice_step_rows", "a2[::2].exp()"),
    ("slice_t_step", "a2.t()[::2].exp()"),
    ("slice_p4_step", "a4.permute(0, 2, 3, 1)[:, ::2].exp()"),
    ("narrow_t", "a3.transpose(1, 2)[:, 1:3].exp()"),
    ("offset_t", "big.t()[1:, 2:].neg()"),
    # expanded / broadcast inputs
    ("expand_row", "a2[0].expand(3, 4).exp()"),
    ("expand_col", "a2[:, :1].expand(3, 4).exp()"),
    ("expand_t", "a2.t()[:, :1].expand(4, 5).exp()"),
    ("unsq_t", "a2.t().unsqueeze(1).exp()"),
    ("size1_t", "a2[:1].t().exp()"),
    # binary with mixed layouts
    ("bin_tt", "a2.t() + a2.t()"),
    ("bin_t_c", "a2.t() + a2.t().contiguous()"),
    ("bin_c_t", "a2.t().contiguous() + a2.t()"),
    ("bin_t_scalar", "a2.t() * 3"),
    ("bin_t_0dim", "a2.t() * torch.tensor(3., dtype=torch.float64)"),
    ("bin_t_row", "a2.t() + torch.arange(3., dtype=torch.float64)"),
    ("bin_row_t", "torch.arange(3., dtype=torch.float64) + a2.t()"),
    ("bin_col_t", "torch.arange(4., dtype=torch.float64).reshape(4, 1) - a2.t()"),
    ("bin_t_col", "a2.t() - torch.arange(4., dtype=torch.float64).reshape(4, 1)"),
    ("bin_cl_cl", "a4.permute(0, 2, 3, 1) * b4.permute(0, 2, 3, 1)"),
    ("bin_cl_c", "a4.permute(0, 2, 3, 1) * b4.permute(0, 2, 3, 1).contiguous()"),
    ("bin_c_cl", "a4.permute(0, 2, 3, 1).contiguous() * b4.permute(0, 2, 3, 1)"),
    ("bin_cl_bias", "a4.permute(0, 2, 3, 1) + torch.arange(3., dtype=torch.float64)"),
    ("bin_nchw_cl_bias", "a4.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2) + torch.arange(3., dtype=torch.float64).reshape(3, 1, 1)"),
    ("bin_slice_t", "a2[:, ::2] + a2.t()[::2].t()"),
    ("bin_p3_p3", "a3.permute(2, 0, 1) / (a3.permute(2, 0, 1) + 1)"),
    ("bin_p3_mixed", "a3.permute(2, 0, 1) - a3.permute(1, 2, 0).reshape(4, 2, 3)"),
    ("bin_int_float", "i2.t() + a2.t()"),
    ("bin_cmp", "a2.t() > 6"),
    ("bin_cmp_tt", "a2.t() == a2.t().contiguous()"),
    ("bin_bitand", "i2.t() & 5"),
    ("bin_pow", "torch.pow(a2.t(), 0.5)"),
    ("bin_atan2", "torch.atan2(a2.t(), a2.t() + 1)"),
    ("bin_max", "torch.maximum(a2.t(), a2.t().contiguous() * 0.5)"),
    ("bin_both_expand", "torch.arange(3., dtype=torch.float64).reshape(3, 1) * torch.arange(4., dtype=torch.float64)"),
    # where (three operands)
    ("where_ttt", "torch.where(m2.t(), a2.t(), -a2.t())"),
    ("where_c_t_t", "torch.where(m2.t().contiguous(), a2.t(), -a2.t())"),
    ("where_t_scalar", "torch.where(m2.t(), a2.t(), 0.)"),
    ("where_method", "a2.t().where(m2.t(), torch.zeros((), dtype=torch.float64))"),
    # clone / like
    ("clone_t", "a2.t().clone()"),
    ("clone_p4", "a4.permute(0, 2, 3, 1).clone()"),
    ("clone_slice", "a2[:, ::2].clone()"),
    ("clone_t_slice", "a2.t()[::2].clone()"),
    ("clone_contig_fmt", "a2.t().clone(memory_format=torch.contiguous_format)"),
    ("clone_preserve_fmt", "a2.t().clone(memory_format=torch.preserve_format)"),
    ("contiguous_t", "a2.t().contiguous()"),
    ("to_float32_t", "a2.t().to(torch.float32)"),
    ("float_t", "i2.t().float()"),
    ("double_p4", "a4.permute(0, 2, 3, 1).float().double()"),
    ("empty_like_t", "torch.empty_like(a2.t()).fill_(2.)"),
    ("zeros_like_t", "torch.zeros_like(a2.t())"),
    ("ones_like_p4", "torch.ones_like(a4.permute(0, 2, 3, 1))"),
    ("full_like_t", "torch.full_like(a2.t(), 7.)"),
    ("zeros_like_slice", "torch.zeros_like(a2.t()[::2])"),
    ("zeros_like_expand", "torch.zeros_like(a2[0].expand(3, 4))"),
    ("zeros_like_t_dtype", "torch.zeros_like(a2.t(), dtype=torch.int64)"),
    ("rand_like_t", "torch.rand_like(a2.t())"),
    ("randn_like_p4", "torch.randn_like(a4.permute(0, 2, 3, 1))"),
    # in-place ops keep self's layout
    ("inplace_t", "a2.t().clone().exp_()"),
    ("inplace_view_t", "a2.clone().t().mul_(2)"),
    ("inplace_c_by_t", "a2.t().contiguous().add_(a2.t())"),
    # contiguous / trivial stays contiguous
    ("contig_exp", "a2.exp()"),
    ("zero_dim", "torch.tensor(2., dtype=torch.float64).exp()"),
    ("one_elem", "a2[:1, :1].t().exp()"),
    ("empty_t", "torch.zeros(0, 3, dtype=torch.float64).t().exp()"),
]

RANDOM = {"rand_like_t", "randn_like_p4"}
