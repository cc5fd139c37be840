//! Strided layouts: how a tensor's shape maps onto offsets in its storage. Every view is a new
//! `Layout` over the same storage.

use crate::error::{Error, Result};
use crate::shape;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Vec<usize>,
    /// In elements. Zero for broadcast (expanded) dimensions; never negative.
    pub strides: Vec<usize>,
    /// In elements, from the start of the storage.
    pub offset: usize,
}

impl Layout {
    pub fn contiguous(shape: Vec<usize>) -> Result<Layout> {
        let strides = shape::contiguous_strides(&shape)?;
        Ok(Layout { shape, strides, offset: 0 })
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        // Sizes were checked when the layout was first built; views never grow the count.
        self.shape.iter().product()
    }

    /// PyTorch's definition: strides match the row-major ones, ignoring dims of size 1.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1usize;
        for i in (0..self.ndim()).rev() {
            let d = self.shape[i];
            if d == 0 {
                return true;
            }
            if d != 1 {
                if self.strides[i] != expected {
                    return false;
                }
                expected *= d;
            }
        }
        true
    }

    /// Whether two positions of this view surely share one storage element: a dim of more than
    /// one element with stride 0 (an `expand`, a zero-stride `as_strided`). Writing through such
    /// a view is refused, as PyTorch refuses it; overlaps it cannot see this simply (an
    /// `unfold` whose step is below its size) PyTorch lets through, and so does this.
    pub fn has_internal_overlap(&self) -> bool {
        self.numel() > 1 && self.shape.iter().zip(&self.strides).any(|(&n, &s)| n > 1 && s == 0)
    }

    /// One past the largest element offset this layout touches (0 for an empty tensor).
    pub fn storage_extent(&self) -> Result<usize> {
        if self.shape.contains(&0) {
            return Ok(0);
        }
        let mut end = self.offset;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let span = (d - 1)
                .checked_mul(s)
                .ok_or_else(|| Error::SizeOverflow(format!("{:?}", self.shape)))?;
            end = end.checked_add(span).ok_or_else(|| Error::SizeOverflow(format!("{:?}", self.shape)))?;
        }
        Ok(end + 1)
    }

    pub fn permute(&self, dims: &[usize]) -> Layout {
        Layout {
            shape: dims.iter().map(|&d| self.shape[d]).collect(),
            strides: dims.iter().map(|&d| self.strides[d]).collect(),
            offset: self.offset,
        }
    }

    pub fn transpose(&self, a: usize, b: usize) -> Layout {
        let mut l = self.clone();
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        l
    }

    /// Elements `start..start + len` of `dim` (bounds checked by the caller).
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Layout {
        let mut l = self.clone();
        l.offset += start * self.strides[dim];
        l.shape[dim] = len;
        l
    }

    /// Every `step`-th element of `dim` in `start..end` (already clamped to the size).
    pub fn slice(&self, dim: usize, start: usize, end: usize, step: usize) -> Layout {
        let mut l = self.clone();
        let len = if end > start { (end - start).div_ceil(step) } else { 0 };
        l.offset += start * self.strides[dim];
        l.shape[dim] = len;
        l.strides[dim] = self.strides[dim] * step;
        l
    }

    /// Drops `dim`, fixing it at `index`.
    pub fn select(&self, dim: usize, index: usize) -> Layout {
        let mut l = self.clone();
        l.offset += index * self.strides[dim];
        l.shape.remove(dim);
        l.strides.remove(dim);
        l
    }

    pub fn unsqueeze(&self, dim: usize) -> Layout {
        let mut l = self.clone();
        let stride = if dim < self.ndim() { self.shape[dim] * self.strides[dim] } else { 1 };
        l.shape.insert(dim, 1);
        l.strides.insert(dim, stride);
        l
    }

    pub fn squeeze_dims(&self, dims: &[usize]) -> Layout {
        let keep = |i: &usize| !(dims.contains(i) && self.shape[*i] == 1);
        Layout {
            shape: (0..self.ndim()).filter(keep).map(|i| self.shape[i]).collect(),
            strides: (0..self.ndim()).filter(keep).map(|i| self.strides[i]).collect(),
            offset: self.offset,
        }
    }

    /// Broadcasts to `target` (which has at least as many dims), giving new and size-1 dims
    /// stride 0. The caller has checked compatibility.
    pub fn broadcast_to(&self, target: &[usize]) -> Layout {
        let lead = target.len() - self.ndim();
        let mut strides = vec![0usize; target.len()];
        for i in 0..self.ndim() {
            strides[lead + i] = if self.shape[i] == 1 && target[lead + i] != 1 { 0 } else { self.strides[i] };
        }
        Layout { shape: target.to_vec(), strides, offset: self.offset }
    }

    /// The strides a view of `new_shape` would have without copying, or None where the memory
    /// order does not allow it (PyTorch's `computeStride`).
    pub fn view_strides(&self, new_shape: &[usize]) -> Option<Vec<usize>> {
        let numel = self.numel();
        if numel == 0 || self.ndim() == 0 {
            return shape::contiguous_strides(new_shape).ok();
        }
        let mut new_strides = vec![0usize; new_shape.len()];
        let mut view_d = new_shape.len() as isize - 1;
        let mut chunk_base_stride = *self.strides.last().unwrap();
        let mut tensor_numel = 1usize;
        let mut view_numel = 1usize;
        for tensor_d in (0..self.ndim()).rev() {
            tensor_numel *= self.shape[tensor_d];
            let chunk_ends = tensor_d == 0
                || (self.shape[tensor_d - 1] != 1
                    && self.strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
            if chunk_ends {
                while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                    new_strides[view_d as usize] = view_numel * chunk_base_stride;
                    view_numel *= new_shape[view_d as usize];
                    view_d -= 1;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if tensor_d > 0 {
                    chunk_base_stride = self.strides[tensor_d - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        if view_d != -1 {
            return None;
        }
        Some(new_strides)
    }

    /// Sliding windows of `size` every `step` along `dim`, as a new last dimension.
    pub fn unfold(&self, dim: usize, size: usize, step: usize) -> Layout {
        let mut l = self.clone();
        let count = (self.shape[dim] - size) / step + 1;
        l.shape[dim] = count;
        l.strides[dim] = self.strides[dim] * step;
        l.shape.push(size);
        l.strides.push(self.strides[dim]);
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views() {
        let l = Layout::contiguous(vec![2, 3, 4]).unwrap();
        assert!(l.is_contiguous());
        let t = l.transpose(0, 2);
        assert!(!t.is_contiguous());
        assert_eq!(t.strides, vec![1, 4, 12]);
        assert_eq!(l.view_strides(&[6, 4]), Some(vec![4, 1]));
        assert_eq!(t.view_strides(&[24]), None);
        let s = l.slice(2, 1, 4, 2);
        assert_eq!((s.shape.clone(), s.strides.clone(), s.offset), (vec![2, 3, 2], vec![12, 4, 2], 1));
        assert_eq!(l.storage_extent().unwrap(), 24);
    }
}
