"""torchvision.utils: save_image accepts what torchvision's does and writes nothing (the
examples save sample grids for a person to look at; the comparison does not need them)."""
import torch


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    if isinstance(tensor, (list, tuple)):
        tensor = torch.stack(list(tensor), 0)
    if tensor.dim() == 3:
        tensor = tensor.unsqueeze(0)
    n, c, h, w = tensor.shape
    ncol = min(nrow, n)
    rows = (n + ncol - 1) // ncol
    grid = torch.full((c, rows * (h + padding) + padding, ncol * (w + padding) + padding), pad_value)
    for k in range(n):
        y, x = divmod(k, ncol)
        top, left = y * (h + padding) + padding, x * (w + padding) + padding
        grid[:, top:top + h, left:left + w] = tensor[k].detach().to(grid.dtype)
    return grid


def save_image(tensor, fp, format=None, **kwargs):
    make_grid(tensor, **kwargs)
