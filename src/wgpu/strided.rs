//! Strided layouts as the shaders take them: dims that every operand walks as one are merged
//! (most tensors become one or two dims), then sizes and strides are packed into the uniform
//! arrays of at most `MAX_DIMS` entries, as 32-bit element counts.

use crate::error::{Error, Result};

pub(crate) const MAX_DIMS: usize = 8;

/// Packed sizes or strides: `MAX_DIMS` u32s as the WGSL `array<vec4<u32>, 2>`.
pub(crate) type Packed = [[u32; 4]; 2];

/// Drops size-1 dims and merges neighbours `d`, `d + 1` wherever every operand has
/// `stride[d] == stride[d + 1] * shape[d + 1]`. Returns the new shape and each operand's strides.
pub(crate) fn coalesce(shape: &[usize], strides: &[&[usize]]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut out_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut out_strides: Vec<Vec<usize>> = vec![Vec::with_capacity(shape.len()); strides.len()];
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        let merge = match out_shape.last() {
            Some(_) => strides.iter().zip(&out_strides).all(|(s, o)| *o.last().unwrap_or(&0) == s[d] * shape[d]),
            None => false,
        };
        if merge {
            *out_shape.last_mut().unwrap() *= shape[d];
            for (o, s) in out_strides.iter_mut().zip(strides) {
                *o.last_mut().unwrap() = s[d];
            }
        } else {
            out_shape.push(shape[d]);
            for (o, s) in out_strides.iter_mut().zip(strides) {
                o.push(s[d]);
            }
        }
    }
    (out_shape, out_strides)
}

/// A size, offset or stride as the u32 the shaders index with.
pub(crate) fn u32_of(v: usize) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::NotImplemented(format!("wgpu kernels index with 32 bits; {v} does not fit")))
}

pub(crate) fn pack(values: &[usize]) -> Result<Packed> {
    if values.len() > MAX_DIMS {
        return Err(Error::NotImplemented(format!(
            "wgpu kernels take at most {MAX_DIMS} dims that cannot be merged; this layout has {}",
            values.len()
        )));
    }
    let mut p = [[0u32; 4]; 2];
    for (i, &v) in values.iter().enumerate() {
        p[i / 4][i % 4] = u32_of(v)?;
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::coalesce;

    #[test]
    fn merges_what_every_operand_allows() {
        // Contiguous [2, 3, 4] and a broadcast row: the row blocks merging its zero stride.
        let (s, st) = coalesce(&[2, 3, 4], &[&[12, 4, 1], &[0, 0, 1]]);
        assert_eq!(s, vec![6, 4]);
        assert_eq!(st, vec![vec![4, 1], vec![0, 1]]);
        // A transpose stays two dims; size-1 dims vanish.
        let (s, st) = coalesce(&[3, 1, 2], &[&[1, 7, 3]]);
        assert_eq!(s, vec![3, 2]);
        assert_eq!(st, vec![vec![1, 3]]);
        let (s, _) = coalesce(&[1, 1], &[&[1, 1]]);
        assert!(s.is_empty());
    }
}
