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
        // Sizes were checked when the layout was first built; views never grow the count. An
        // empty tensor's other sizes may multiply past a usize: zero is found first.
        if self.shape.contains(&0) {
            return 0;
        }
        self.shape.iter().product()
    }

    /// PyTorch's definition: strides match the row-major ones, ignoring dims of size 1.
    pub fn is_contiguous(&self) -> bool {
        if self.shape.contains(&0) {
            // Checked first: the running product over the later dims of an empty tensor may not
            // fit a usize.
            return true;
        }
        let mut expected = 1usize;
        for i in (0..self.ndim()).rev() {
            let d = self.shape[i];
            if d != 1 {
                if self.strides[i] != expected {
                    return false;
                }
                expected *= d;
            }
        }
        true
    }

    /// Where the view covers a run of storage exactly once with no gaps (its dims of more than
    /// one element, by increasing stride, are packed one after the other from stride 1: a
    /// contiguous tensor or a permutation of one): that run. Work that keeps each element where
    /// it is (an in-place unary op, a clamp laid out as its input) may walk it in storage order.
    pub fn dense_run(&self) -> Option<std::ops::Range<usize>> {
        let mut dims: Vec<(usize, usize)> = self.shape.iter().zip(&self.strides).filter(|&(&n, _)| n != 1).map(|(&n, &s)| (s, n)).collect();
        dims.sort_unstable();
        let mut expected = 1usize;
        for (stride, n) in dims {
            if stride != expected {
                return None;
            }
            expected = expected.checked_mul(n)?;
        }
        Some(self.offset..self.offset.checked_add(expected)?)
    }

    /// Whether two positions of this view surely share one storage element: a dim of more than
    /// one element with stride 0 (an `expand`, a zero-stride `as_strided`). Writing through such
    /// a view is refused, as PyTorch refuses it; overlaps it cannot see this simply (an
    /// `unfold` whose step is below its size) PyTorch lets through, and so does this.
    pub fn has_internal_overlap(&self) -> bool {
        self.numel() > 1 && self.shape.iter().zip(&self.strides).any(|(&n, &s)| n > 1 && s == 0)
    }

    /// One past the largest element offset this layout touches (0 for an empty tensor). Every
    /// step is checked: a wrapped sum would make a view reaching far outside its storage look
    /// small.
    pub fn storage_extent(&self) -> Result<usize> {
        if self.shape.contains(&0) {
            return Ok(0);
        }
        let overflow = || Error::SizeOverflow(format!("size {:?} with stride {:?}", self.shape, self.strides));
        let mut end = self.offset;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            end = (d - 1).checked_mul(s).and_then(|span| end.checked_add(span)).ok_or_else(overflow)?;
        }
        end.checked_add(1).ok_or_else(overflow)
    }

    /// A layout from untrusted sizes, strides and offset (`as_strided`, `set_`, a checkpoint's
    /// record), checked as PyTorch checks a storage's geometry: the storage it requires,
    /// `itemsize * (offset + 1 + sum((size - 1) * stride))` bytes (none when it is empty), is
    /// computed without overflowing an int64, as is its element count, and must lie within
    /// `storage_len` elements. The caller checks that there are as many strides as sizes.
    pub fn from_user(sizes: &[i64], strides: &[i64], offset: i64, itemsize: usize, storage_len: usize) -> Result<Layout> {
        debug_assert_eq!(sizes.len(), strides.len());
        if offset < 0 {
            return Err(Error::Runtime(format!("Tensor: invalid storage offset {offset}")));
        }
        let overflow = || Error::Runtime(format!("Storage size calculation overflowed with sizes={sizes:?} and strides={strides:?}"));
        if sizes.iter().chain(strides).any(|&v| v < 0) {
            return Err(overflow());
        }
        let required = if sizes.contains(&0) {
            0
        } else {
            let mut end = offset;
            for (&d, &s) in sizes.iter().zip(strides) {
                end = (d - 1).checked_mul(s).and_then(|span| end.checked_add(span)).ok_or_else(overflow)?;
            }
            end.checked_add(1).and_then(|n| n.checked_mul(itemsize as i64)).ok_or_else(overflow)?
        };
        if sizes.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d)).is_none() {
            return Err(Error::Runtime("numel: integer multiplication overflow".into()));
        }
        let available = storage_len.saturating_mul(itemsize);
        if required as u64 > available as u64 {
            return Err(Error::Runtime(format!(
                "setStorage: sizes {sizes:?}, strides {strides:?}, storage offset {offset}, and itemsize {itemsize} \
                 requiring a storage size of {required} are out of bounds for storage of size {available}"
            )));
        }
        // Every value is now a non-negative int64.
        let us = |v: &[i64]| v.iter().map(|&x| x as usize).collect::<Vec<_>>();
        Ok(Layout { shape: us(sizes), strides: us(strides), offset: offset as usize })
    }

    /// Whether every element lies inside a storage of `storage_len` elements.
    pub fn fits(&self, storage_len: usize) -> bool {
        self.storage_extent().is_ok_and(|e| e <= storage_len)
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
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Result<Layout> {
        let mut l = self.clone();
        l.offset = self.shifted(dim, start, l.numel_with(dim, len) == 0)?;
        l.shape[dim] = len;
        Ok(l)
    }

    /// Every `step`-th element of `dim` in `start..end` (already clamped to the size).
    pub fn slice(&self, dim: usize, start: usize, end: usize, step: usize) -> Result<Layout> {
        let mut l = self.clone();
        let len = if end > start { (end - start).div_ceil(step) } else { 0 };
        l.offset = self.shifted(dim, start, l.numel_with(dim, len) == 0)?;
        l.shape[dim] = len;
        l.strides[dim] = unused_on_overflow(self.strides[dim].checked_mul(step), self.strides[dim], len <= 1, self)?;
        Ok(l)
    }

    /// Drops `dim`, fixing it at `index` (< its size, checked by the caller).
    pub fn select(&self, dim: usize, index: usize) -> Result<Layout> {
        let mut l = self.clone();
        l.offset = self.shifted(dim, index, self.numel() == 0)?;
        l.shape.remove(dim);
        l.strides.remove(dim);
        Ok(l)
    }

    pub fn unsqueeze(&self, dim: usize) -> Layout {
        let mut l = self.clone();
        let stride = if dim < self.ndim() {
            // The new dim holds one element, so its stride never addresses memory: where the
            // product overflows (an empty tensor's strides may be anything) any value will do.
            self.shape[dim].checked_mul(self.strides[dim]).unwrap_or(self.strides[dim])
        } else {
            1
        };
        l.shape.insert(dim, 1);
        l.strides.insert(dim, stride);
        l
    }

    /// The offset `index` steps along `dim`. Only an empty view may have one past what a usize
    /// holds (its offset addresses nothing): it keeps the current offset then.
    fn shifted(&self, dim: usize, index: usize, empty: bool) -> Result<usize> {
        let at = index.checked_mul(self.strides[dim]).and_then(|o| o.checked_add(self.offset));
        unused_on_overflow(at, self.offset, empty, self)
    }

    /// The element count with `dim` resized to `len` (at most its old size, so it fits).
    fn numel_with(&self, dim: usize, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        let mut l = self.clone();
        l.shape[dim] = len;
        l.numel()
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
            // Counts are at most the element count, which fits; strides of an empty or
            // size-1 dim may be anything, so their products are checked (None: no view).
            tensor_numel *= self.shape[tensor_d];
            let chunk_ends = tensor_d == 0
                || (self.shape[tensor_d - 1] != 1 && Some(self.strides[tensor_d - 1]) != tensor_numel.checked_mul(chunk_base_stride));
            if chunk_ends {
                while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                    new_strides[view_d as usize] = view_numel.checked_mul(chunk_base_stride)?;
                    view_numel = view_numel.checked_mul(new_shape[view_d as usize])?;
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

    /// Sliding windows of `size` every `step` along `dim`, as a new last dimension (`size` at
    /// most the dim's size, `step` positive: checked by the caller). Overlapping windows hold
    /// more elements than their input, so the count is checked.
    pub fn unfold(&self, dim: usize, size: usize, step: usize) -> Result<Layout> {
        let mut l = self.clone();
        let count = (self.shape[dim] - size) / step + 1;
        l.shape[dim] = count;
        l.shape.push(size);
        shape::numel(&l.shape)?;
        l.strides[dim] = unused_on_overflow(self.strides[dim].checked_mul(step), self.strides[dim], count <= 1, self)?;
        l.strides.push(self.strides[dim]);
        Ok(l)
    }
}

/// `value`, or where computing it overflowed, `fallback` when the value is `unused`: the stride
/// of a dim holding at most one element, or the offset of an empty view, never addresses memory,
/// and only such values of a layout that fits its storage can overflow. Anything else is an
/// error rather than a wrapped number.
fn unused_on_overflow(value: Option<usize>, fallback: usize, unused: bool, of: &Layout) -> Result<usize> {
    match value {
        Some(v) => Ok(v),
        None if unused => Ok(fallback),
        None => Err(Error::SizeOverflow(format!("size {:?} with stride {:?}", of.shape, of.strides))),
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
        let s = l.slice(2, 1, 4, 2).unwrap();
        assert_eq!((s.shape.clone(), s.strides.clone(), s.offset), (vec![2, 3, 2], vec![12, 4, 2], 1));
        assert_eq!(l.storage_extent().unwrap(), 24);
    }

    #[test]
    fn extent_never_wraps() {
        // Shape [2] with stride 2**64 - 1 once summed to usize::MAX, whose "+ 1" wrapped to 0.
        assert!(Layout { shape: vec![2], strides: vec![usize::MAX], offset: 0 }.storage_extent().is_err());
        assert!(Layout { shape: vec![2], strides: vec![1], offset: usize::MAX - 1 }.storage_extent().is_err());
        assert!(Layout { shape: vec![3, 3], strides: vec![1 << 63, 1 << 63], offset: 0 }.storage_extent().is_err());
        assert_eq!(Layout { shape: vec![1], strides: vec![usize::MAX], offset: 7 }.storage_extent().unwrap(), 8);
        assert!(!Layout { shape: vec![2], strides: vec![usize::MAX], offset: 0 }.fits(8));
    }

    #[test]
    fn user_geometry_is_checked_as_pytorch_does() {
        let ok = |s: &[i64], st: &[i64], o: i64| Layout::from_user(s, st, o, 4, 8);
        assert_eq!(ok(&[2, 2], &[1, 2], 1).unwrap().storage_extent().unwrap(), 5);
        assert!(ok(&[1], &[i64::MAX], 7).is_ok());
        assert!(ok(&[0, 5], &[i64::MAX, i64::MAX], i64::MAX).is_ok());
        for (s, st, o) in [
            (&[2][..], &[i64::MAX][..], 0),
            (&[2], &[1], 7),
            (&[2], &[1], -1),
            (&[-2], &[1], 0),
            (&[2], &[-1], 0),
            (&[2], &[1], i64::MAX),
            (&[1 << 40, 1 << 40], &[0, 0], 0),
            (&[3], &[1 << 62], 0),
        ] {
            assert!(ok(s, st, o).is_err(), "{s:?} {st:?} {o}");
        }
        let e = ok(&[2], &[1], 7).unwrap_err().to_string();
        assert!(e.contains("requiring a storage size of 36 are out of bounds for storage of size 32"), "{e}");
    }

    #[test]
    fn views_of_empty_or_one_element_dims_never_overflow() {
        let e = Layout { shape: vec![0, 5], strides: vec![usize::MAX, usize::MAX], offset: usize::MAX };
        assert!(e.is_contiguous());
        assert_eq!(e.unsqueeze(1).shape, vec![0, 1, 5]);
        assert_eq!(e.narrow(1, 5, 0).unwrap().numel(), 0);
        assert_eq!(e.slice(1, 0, 5, usize::MAX).unwrap().shape, vec![0, 1]);
        let one = Layout { shape: vec![4], strides: vec![4], offset: 0 };
        assert_eq!(one.slice(0, 0, 4, usize::MAX / 2).unwrap().shape, vec![1]);
        let wide = Layout { shape: vec![1 << 40], strides: vec![0], offset: 0 };
        assert!(wide.unfold(0, 1 << 39, 1).is_err());
    }
}
