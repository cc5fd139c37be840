//! `max_pool1d` / `max_pool2d` as `nn.functional` calls them: each entry's rank check, PyTorch's
//! default stride (the kernel size), and the 1-d form as the 2-d one over a unit height (as
//! PyTorch's CPU computes it), on the 2-d kernel of `tensor/pool.rs`.

use crate::error::{Error, Result};
use crate::ops::pool_geometry::PoolParams;
use crate::tensor::Tensor;

/// `F.max_pool{spatial}d(..., return_indices=True)` over the last `spatial` (1 or 2) dims of an
/// unbatched or batched input: the maxima and their flat positions within each input plane.
/// `kernel`, `padding`, `dilation` and a given `stride` hold one value per spatial dim; an absent
/// stride is the kernel size.
pub fn max_pool_with_indices(
    input: &Tensor,
    spatial: usize,
    kernel: &[i64],
    stride: Option<&[i64]>,
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<(Tensor, Tensor)> {
    let stride = stride.unwrap_or(kernel);
    if !(spatial == 1 || spatial == 2) || [kernel, stride, padding, dilation].iter().any(|v| v.len() != spatial) {
        return Err(Error::Value(format!("max_pool{spatial}d: expected {spatial} value(s) per argument for {spatial} spatial dims")));
    }
    let nd = input.ndim();
    if nd != spatial + 1 && nd != spatial + 2 {
        return Err(Error::Runtime(format!(
            "max_pool{spatial}d: Expected {}D or {}D (batch mode) tensor for input, but got: {:?}",
            spatial + 1,
            spatial + 2,
            input.shape()
        )));
    }
    if spatial == 2 {
        let pair = |v: &[i64]| [v[0], v[1]];
        let p = PoolParams { kernel: pair(kernel), stride: pair(stride), padding: pair(padding), dilation: pair(dilation), ceil_mode };
        return input.max_pool2d_with_indices(&p);
    }
    let p = PoolParams { kernel: [1, kernel[0]], stride: [1, stride[0]], padding: [0, padding[0]], dilation: [1, dilation[0]], ceil_mode };
    let (values, indices) = input.unsqueeze(-2)?.max_pool2d_with_indices(&p)?;
    Ok((values.squeeze_dims(&[-2])?, indices.squeeze_dims(&[-2])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dim_pools_along_the_last_dim_with_the_kernel_as_stride() {
        let x = Tensor::from_vec(vec![1.0f32, 5.0, 2.0, 4.0, 3.0, 0.0], &[1, 6]).unwrap();
        let (v, i) = max_pool_with_indices(&x, 1, &[2], None, &[0], &[1], false).unwrap();
        assert_eq!(v.shape(), &[1, 3]);
        assert_eq!(v.to_vec::<f32>().unwrap(), vec![5.0, 4.0, 3.0]);
        assert_eq!(i.to_vec::<i64>().unwrap(), vec![1, 3, 4]);
    }

    #[test]
    fn a_rank_outside_the_entrys_is_its_runtime_error() {
        let x = Tensor::from_vec(vec![1.0f32; 4], &[4]).unwrap();
        let e = max_pool_with_indices(&x, 2, &[2, 2], None, &[0, 0], &[1, 1], false).unwrap_err();
        assert_eq!(e.to_string(), "max_pool2d: Expected 3D or 4D (batch mode) tensor for input, but got: [4]");
    }
}
