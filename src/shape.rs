//! Shape arithmetic: checked element counts, contiguous strides, broadcasting and dim wrapping.

use crate::error::{Error, Result};

/// Number of elements of `shape`, failing instead of wrapping on overflow.
pub fn numel(shape: &[usize]) -> Result<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d).ok_or_else(|| Error::StorageSizeOverflow(shape.to_vec())))
}

/// Row-major strides of `shape`, in elements. Overflow is an error.
pub fn contiguous_strides(shape: &[usize]) -> Result<Vec<usize>> {
    let mut strides = vec![0usize; shape.len()];
    let mut acc = 1usize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc = acc.checked_mul(shape[i].max(1)).ok_or_else(|| Error::StorageSizeOverflow(shape.to_vec()))?;
    }
    Ok(strides)
}

/// Validates user-given sizes (which may be negative) into a shape; the byte size must fit too.
pub fn checked_shape(sizes: &[i64], elem_size: usize) -> Result<Vec<usize>> {
    if let Some(&neg) = sizes.iter().find(|&&s| s < 0) {
        return Err(Error::NegativeDimension(neg, sizes.to_vec()));
    }
    let shape: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
    checked_bytes(&shape, elem_size)?;
    Ok(shape)
}

/// The bytes of a contiguous tensor of `shape` with elements of `elem_size` bytes, failing as
/// PyTorch does when they exceed what a signed 64-bit size holds (a smaller size that cannot be
/// had is the allocator's error, raised where the memory is asked for).
pub fn checked_bytes(shape: &[usize], elem_size: usize) -> Result<usize> {
    numel(shape)?.checked_mul(elem_size).filter(|&b| b <= isize::MAX as usize).ok_or_else(|| Error::StorageSizeOverflow(shape.to_vec()))
}

/// The broadcast shape of two shapes, PyTorch's error naming the first mismatching dimension.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0usize; n];
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::BroadcastMismatch { a: da, b: db, dim: i });
        };
    }
    Ok(out)
}

/// Wraps a possibly negative `dim` into `0..ndim` (a 0-dim tensor accepts -1 and 0).
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::DimOutOfRange { dim, lo: -n, hi: n - 1 });
    }
    Ok(if dim < 0 { (dim + n) as usize } else { dim as usize })
}

/// Wraps `dim` for ops that need a real dimension: a 0-dim tensor has none (PyTorch's
/// `maybe_wrap_dim` with `wrap_scalar=false`).
pub fn wrap_dim_strict(dim: i64, ndim: usize) -> Result<usize> {
    if ndim == 0 {
        return Err(Error::Index(format!("Dimension specified as {dim} but tensor has no dimensions")));
    }
    wrap_dim(dim, ndim)
}

/// Wraps a list of dims, rejecting repeats as PyTorch does.
pub fn wrap_dims(dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if out.contains(&w) {
            return Err(Error::Runtime(format!("dim {w} appears multiple times in the list of dims")));
        }
        out.push(w);
    }
    Ok(out)
}

/// Resolves a view/reshape request with at most one -1 against `numel`.
pub fn infer_size(sizes: &[i64], numel: usize) -> Result<Vec<usize>> {
    let invalid = || Error::InvalidViewShape { shape: sizes.to_vec(), numel };
    let mut infer = None;
    let mut known = 1usize;
    for (i, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                return Err(Error::Runtime("only one dimension can be inferred".into()));
            }
            infer = Some(i);
        } else if s < 0 {
            return Err(Error::Runtime(format!("invalid shape dimension {s}")));
        } else {
            known = known.checked_mul(s as usize).ok_or_else(invalid)?;
        }
    }
    let mut shape: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
    match infer {
        Some(i) => {
            if known == 0 || !numel.is_multiple_of(known) {
                return Err(invalid());
            }
            shape[i] = numel / known;
        }
        None if known != numel => return Err(invalid()),
        None => {}
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[3, 1, 4], &[5, 1]).unwrap(), vec![3, 5, 4]);
        let e = broadcast_shapes(&[2, 3], &[2, 4]).unwrap_err().to_string();
        assert!(e.contains("(3) must match the size of tensor b (4) at non-singleton dimension 1"), "{e}");
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(numel(&[usize::MAX, 2]).is_err());
        assert!(checked_shape(&[1 << 40, 1 << 40], 4).is_err());
        assert!(checked_shape(&[-1, 2], 4).is_err());
    }

    #[test]
    fn infer() {
        assert_eq!(infer_size(&[2, -1], 12).unwrap(), vec![2, 6]);
        assert!(infer_size(&[5, -1], 12).is_err());
        assert!(infer_size(&[-1, -1], 12).is_err());
        assert!(infer_size(&[0, -1], 0).is_err());
    }
}
