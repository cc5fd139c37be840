"""Spatial transformers: affine_grid (sampling grids of 2-d and 3-d affine maps) and grid_sample
(2-d, bilinear or nearest, zeros / border / reflection padding), composed from tensor ops so
that gradients reach the input and the grid."""
import warnings

from ... import _C
from ..._sampling import _TITLES, _key


def _base_coords(size, align_corners, like):
    """The normalised coordinates of `size` pixel centres (align_corners=False) or corners."""
    coords = _C.linspace(-1.0, 1.0, size, dtype=like.dtype, device=like.device)
    if not align_corners:
        coords = coords * ((size - 1) / size)
    return coords


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.")
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got torch.{_key(theta.dtype)}")
    size = tuple(size)
    if len(size) == 4:
        spatial, rows = size[2:], 2
    elif len(size) == 5:
        spatial, rows = size[2:], 3
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (rows, rows + 1) or theta.shape[0] != size[0]:
        raise ValueError(f"Expected a batch of {rows}D affine matrices of shape Nx{rows}x{rows + 1} for size "
                         f"{size}. Got {tuple(theta.shape)}.")
    if min(spatial) == 1 and align_corners:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.")
    # Homogeneous coordinates (x, y[, z], 1) of every output position, x along the last dim.
    axes = [_base_coords(s, align_corners, theta) for s in spatial]
    n = len(spatial)
    columns = []
    for a in reversed(range(n)):
        shape = [1] * n
        shape[a] = spatial[a]
        columns.append(axes[a].reshape(shape).expand(*spatial))
    columns.append(_C.ones(spatial, dtype=theta.dtype, device=theta.device))
    base = _C.stack(columns, -1).reshape(1, -1, n + 1)
    grid = base.matmul(theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, n)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """`coord` folded into [low, high] by reflections at its ends (given doubled)."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    return _C.where(flips.remainder(2) == 0, extra + low, span - extra + low)


def _source(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord


def _taps(flat, ix, iy, h, w):
    """Values of `flat` (N, C, H * W) at integer positions (N, Ho, Wo); zero outside the image."""
    inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
    index = (iy.clamp(0, h - 1) * w + ix.clamp(0, w - 1)).long().reshape(ix.shape[0], 1, -1)
    values = flat.gather(2, index.expand(flat.shape[0], flat.shape[1], index.shape[2]))
    return values * inside.reshape(ix.shape[0], 1, -1).to(flat.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.")
        align_corners = False
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but "
                           f"got grid with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_TITLES[_key(input.dtype)]} but found {_TITLES[_key(grid.dtype)]}")
    if input.dim() != 4 or mode == "bicubic":
        raise NotImplementedError("grid_sample: only 4-D input with mode 'bilinear' or 'nearest' is implemented")
    n, c, h, w = input.shape
    ho, wo = grid.shape[1:3]
    x = _source(grid[..., 0], w, padding_mode, align_corners)
    y = _source(grid[..., 1], h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)
    if mode == "nearest":
        out = _taps(flat, x.round(), y.round(), h, w)
        # The positions are indices, which pass no gradient; the grid still gets PyTorch's zero one.
        return out.reshape(n, c, ho, wo) + 0 * grid.sum()
    x0, y0 = x.floor(), y.floor()
    fx, fy = (x - x0).reshape(n, 1, -1), (y - y0).reshape(n, 1, -1)
    out = (_taps(flat, x0, y0, h, w) * (1 - fx) * (1 - fy) + _taps(flat, x0 + 1, y0, h, w) * fx * (1 - fy)
           + _taps(flat, x0, y0 + 1, h, w) * (1 - fx) * fy + _taps(flat, x0 + 1, y0 + 1, h, w) * fx * fy)
    return out.reshape(n, c, ho, wo)
