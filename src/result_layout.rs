//! The layout of a new elementwise result (PyTorch's rule, as its TensorIterator and
//! `empty_like(memory_format=torch.preserve_format)` apply it): the result keeps its inputs'
//! memory order instead of always being row-major. `x.t().exp()` has strides `(1, n)`, and the
//! kernel then streams through both storages linearly, as for contiguous tensors.
//!
//! The rule, in order:
//! 1. every operand has the result's shape and is row-major: row-major;
//! 2. every operand has the result's shape and is channels-last (4-D): channels-last;
//! 3. every operand has the result's shape, is non-overlapping and dense, and all share one set
//!    of strides: those strides (size-1 dims included);
//! 4. otherwise the dims are ordered by the operands' strides (broadcast operands broadcast
//!    first): the first operand whose strides tell two dims apart decides; a stride of 0 tells
//!    nothing; equal strides put the larger dim outside. The result is dense in that order.
//!
//! Every elementwise result of the tensor layer goes through `compute_in_order`: the operands
//! are permuted into the result's order, the backend computes a row-major result of the
//! permuted shape (for dense operands their permuted views are row-major, so the kernels take
//! their contiguous paths), and that storage is viewed back in the original dim order.

use crate::backend::Array;
use crate::error::Result;
use crate::layout::Layout;

/// The memory order of a result: `perm` lists its dims from the outermost (largest stride) to
/// the innermost, and `strides` are the result's strides in its own dim order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultOrder {
    pub perm: Vec<usize>,
    pub strides: Vec<usize>,
}

impl ResultOrder {
    /// The permutation that views a tensor laid out in `perm`'s order back in the original dims.
    pub fn inverse_perm(&self) -> Vec<usize> {
        let mut inverse = vec![0; self.perm.len()];
        for (i, &d) in self.perm.iter().enumerate() {
            inverse[d] = i;
        }
        inverse
    }
}

/// The order of an elementwise result of `shape` over operands viewed by `operands` (each of a
/// shape broadcastable to `shape`, in the op's argument order), or None where it is row-major.
pub fn result_order(shape: &[usize], operands: &[&Layout]) -> Option<ResultOrder> {
    let nd = shape.len();
    if nd < 2 || shape.contains(&0) || operands.is_empty() {
        return None;
    }
    let all_full = operands.iter().all(|l| l.shape == shape);
    if all_full {
        if operands.iter().all(|l| l.is_contiguous()) {
            return None;
        }
        if nd == 4 && operands.iter().all(|l| is_channels_last(l)) {
            return Some(order_of_strides(shape, channels_last_strides(shape)));
        }
        let first = &operands[0].strides;
        if operands.iter().all(|l| is_dense(l) && &l.strides == first) {
            return Some(order_of_strides(shape, first.clone()));
        }
    }
    let broadcast: Vec<Layout> = operands.iter().map(|l| l.broadcast_to(shape)).collect();
    // Innermost first: an insertion sort in which an undecided comparison looks further out.
    let mut inner_first: Vec<usize> = (0..nd).rev().collect();
    for i in 1..nd {
        let mut at = i;
        for j in (0..i).rev() {
            match goes_outside(shape, &broadcast, inner_first[j], inner_first[at]) {
                Some(true) => {
                    inner_first.swap(j, at);
                    at = j;
                }
                Some(false) => break,
                None => {}
            }
        }
    }
    let perm: Vec<usize> = inner_first.into_iter().rev().collect();
    if perm.iter().enumerate().all(|(i, &d)| i == d) {
        return None;
    }
    let mut strides = vec![0; nd];
    let mut acc = 1usize;
    for &d in perm.iter().rev() {
        strides[d] = acc;
        acc *= shape[d].max(1);
    }
    Some(ResultOrder { perm, strides })
}

/// Whether dim `a` (now placed inside `b`) belongs outside it: decided by the first operand
/// whose strides of the two dims are both non-zero; None where none decides.
fn goes_outside(shape: &[usize], operands: &[Layout], a: usize, b: usize) -> Option<bool> {
    for l in operands {
        let (sa, sb) = (l.strides[a], l.strides[b]);
        if sa == 0 || sb == 0 {
            continue;
        }
        if sa != sb {
            return Some(sa > sb);
        }
        if shape[a] > shape[b] {
            return Some(true);
        }
    }
    None
}

/// An order whose strides are given (a dense layout of `shape`): dims by decreasing stride.
fn order_of_strides(shape: &[usize], strides: Vec<usize>) -> ResultOrder {
    let mut perm: Vec<usize> = (0..shape.len()).collect();
    // Size-1 dims address nothing: placed outermost, their order does not matter.
    perm.sort_by_key(|&d| std::cmp::Reverse(if shape[d] == 1 { usize::MAX } else { strides[d] }));
    ResultOrder { perm, strides }
}

/// Non-overlapping and dense (`Layout::dense_run`); an empty layout counts as dense.
pub fn is_dense(l: &Layout) -> bool {
    l.numel() == 0 || l.dense_run().is_some()
}

/// 4-D and row-major over (N, H, W, C), ignoring dims of one element.
fn is_channels_last(l: &Layout) -> bool {
    l.ndim() == 4 && is_channels_last_nd(l)
}

/// Row-major over (N, spatial..., C), ignoring dims of one element (PyTorch's channels-last
/// contiguity, for the 4-D and 5-D formats).
fn is_channels_last_nd(l: &Layout) -> bool {
    let nd = l.ndim();
    let mut expected = 1usize;
    for d in std::iter::once(1).chain((2..nd).rev()).chain(std::iter::once(0)) {
        if l.shape[d] != 1 {
            if l.strides[d] != expected {
                return false;
            }
            expected = expected.saturating_mul(l.shape[d]);
        }
    }
    true
}

/// Channels-last strides of a 4-D or 5-D `shape`: C innermost, then the spatial dims, then N.
fn channels_last_strides(shape: &[usize]) -> Vec<usize> {
    let m: Vec<usize> = shape.iter().map(|&d| d.max(1)).collect();
    let mut strides = vec![0; shape.len()];
    let mut next = 1usize;
    for d in std::iter::once(1).chain((2..shape.len()).rev()).chain(std::iter::once(0)) {
        strides[d] = next;
        next = next.saturating_mul(m[d]);
    }
    strides
}

/// The channels-last order of a 4-D `shape` (`memory_format=torch.channels_last`).
pub fn channels_last_order(shape: &[usize]) -> Result<Option<ResultOrder>> {
    format_order(shape, MemoryFormat::ChannelsLast)
}

/// PyTorch's `suggest_memory_format() == channels_last` for a 4-D layout: its strides grow
/// in (C, W, H, N) order (ties of size-1 dims read as row-major), which makes conv, pooling
/// and batch_norm give channels-last results.
pub fn suggests_channels_last(l: &Layout) -> bool {
    if l.ndim() != 4 || l.strides[1] == 0 {
        return false;
    }
    let mut min = 0usize;
    for d in [1, 3, 2, 0] {
        if l.shape[d] == 0 || l.strides[d] < min || (d == 0 && min == l.strides[1]) {
            return false;
        }
        min = l.strides[d];
        if l.shape[d] > 1 {
            min = min.saturating_mul(l.shape[d]);
        }
    }
    true
}

/// `torch.memory_format`'s values, as the layout of a new tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryFormat {
    Contiguous,
    Preserve,
    ChannelsLast,
    ChannelsLast3d,
}

impl MemoryFormat {
    /// From the name PyTorch prints (`torch.channels_last`).
    pub fn from_name(name: &str) -> Result<MemoryFormat> {
        Ok(match name.trim_start_matches("torch.") {
            "contiguous_format" => MemoryFormat::Contiguous,
            "preserve_format" => MemoryFormat::Preserve,
            "channels_last" => MemoryFormat::ChannelsLast,
            "channels_last_3d" => MemoryFormat::ChannelsLast3d,
            other => return Err(crate::error::Error::Type(format!("unsupported memory format {other}"))),
        })
    }
}

/// `is_contiguous(memory_format=)`: channels-last contiguity for the channels-last formats
/// (false at another rank), row-major contiguity otherwise (preserve_format included, as in
/// PyTorch).
pub fn is_contiguous_in(l: &Layout, format: MemoryFormat) -> bool {
    match format {
        MemoryFormat::ChannelsLast => l.ndim() == 4 && is_channels_last_nd(l),
        MemoryFormat::ChannelsLast3d => l.ndim() == 5 && is_channels_last_nd(l),
        MemoryFormat::Contiguous | MemoryFormat::Preserve => l.is_contiguous(),
    }
}

/// The order of a new tensor of `shape` in `format` (None: row-major); preserve_format has no
/// order of its own (`preserved_order` gives it from a tensor).
pub fn format_order(shape: &[usize], format: MemoryFormat) -> Result<Option<ResultOrder>> {
    let rank = match format {
        MemoryFormat::ChannelsLast => 4,
        MemoryFormat::ChannelsLast3d => 5,
        MemoryFormat::Contiguous => return Ok(None),
        MemoryFormat::Preserve => {
            return Err(crate::error::Error::Runtime("preserve memory format is unsupported by the contiguous operator".into()))
        }
    };
    if shape.len() != rank {
        let name = if rank == 4 { "channels_last" } else { "channels_last_3d" };
        return Err(crate::error::Error::Runtime(format!("required rank {rank} tensor to use {name} format")));
    }
    let strides = channels_last_strides(shape);
    let row_major = crate::shape::contiguous_strides(shape)?;
    Ok((strides != row_major).then(|| order_of_strides(shape, strides)))
}

/// The order of a new tensor like `l` (PyTorch's preserve_format, which clone and the `*_like`
/// factories use): `l`'s own strides where it is non-overlapping and dense (a row-major `l`'s
/// odd strides of size-1 dims included), else dense ones in `l`'s order of strides.
pub fn preserved_order(l: &Layout) -> Option<ResultOrder> {
    if l.numel() == 0 {
        return None;
    }
    if is_dense(l) {
        let row_major = crate::shape::contiguous_strides(&l.shape).ok()?;
        return (l.strides != row_major).then(|| order_of_strides(&l.shape, l.strides.clone()));
    }
    result_order(&l.shape, &[l])
}

/// The strides of a new tensor like `l` (`preserved_order`'s, or row-major ones).
pub fn preserved_strides(l: &Layout) -> Result<Vec<usize>> {
    match preserved_order(l) {
        Some(o) => Ok(o.strides),
        None => crate::shape::contiguous_strides(&l.shape),
    }
}

/// Runs an elementwise kernel so that its result has the memory order `order` (None:
/// row-major): `kernel` gets the operands (already broadcast to `shape`) permuted into that
/// order and the permuted shape, and returns its result of that shape; this views it back in
/// `shape`'s order.
pub fn compute_in_order(
    order: Option<ResultOrder>,
    shape: &[usize],
    operands: &[&Array],
    kernel: impl FnOnce(&[Array], &[usize]) -> Result<Array>,
) -> Result<Array> {
    let Some(order) = order else {
        let same: Vec<Array> = operands.iter().copied().cloned().collect();
        return kernel(&same, shape);
    };
    let permuted: Vec<Array> = operands.iter().map(|a| a.with_layout(a.layout().permute(&order.perm))).collect();
    let pshape: Vec<usize> = order.perm.iter().map(|&d| shape[d]).collect();
    let out = kernel(&permuted, &pshape)?;
    let back = out.layout().permute(&order.inverse_perm());
    if out.is_contiguous() {
        // The same elements; the strides of size-1 dims as the rule gives them.
        return Ok(out.with_layout(Layout { strides: order.strides, ..back }));
    }
    Ok(out.with_layout(back))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(shape: &[usize], strides: &[usize]) -> Layout {
        Layout { shape: shape.to_vec(), strides: strides.to_vec(), offset: 0 }
    }

    fn strides_of(shape: &[usize], ops: &[Layout]) -> Vec<usize> {
        let refs: Vec<&Layout> = ops.iter().collect();
        result_order(shape, &refs).map_or_else(|| crate::shape::contiguous_strides(shape).unwrap(), |o| o.strides)
    }

    #[test]
    fn pytorch_layouts() {
        // Transposed, permuted, not dense, broadcast, mixed: the strides PyTorch 2.x gives.
        assert_eq!(strides_of(&[4, 3], &[l(&[4, 3], &[1, 4])]), vec![1, 4]);
        assert_eq!(strides_of(&[2, 4, 5, 3], &[l(&[2, 4, 5, 3], &[60, 5, 1, 20])]), vec![60, 5, 1, 20]);
        assert_eq!(strides_of(&[3, 2], &[l(&[3, 2], &[4, 2])]), vec![2, 1]);
        assert_eq!(strides_of(&[7, 6], &[l(&[7, 6], &[1, 8])]), vec![1, 7]);
        assert_eq!(strides_of(&[4, 3], &[l(&[4, 3], &[3, 1]), l(&[4, 3], &[1, 4])]), vec![3, 1]);
        assert_eq!(strides_of(&[4, 3], &[l(&[3], &[1]), l(&[4, 3], &[1, 4])]), vec![1, 4]);
        assert_eq!(strides_of(&[4, 5], &[l(&[4, 5], &[1, 0])]), vec![5, 1]);
        assert_eq!(strides_of(&[4, 1], &[l(&[4, 1], &[1, 4])]), vec![1, 1]);
        // Channels-last by its own check, dense with odd size-1 strides kept, size-1 ties.
        assert_eq!(strides_of(&[1, 4, 1, 2], &[l(&[1, 4, 1, 2], &[4, 1, 4, 4])]), vec![8, 1, 8, 4]);
        assert_eq!(strides_of(&[1, 2, 2, 1, 1], &[l(&[1, 2, 2, 1, 1], &[2, 1, 2, 2, 6])]), vec![2, 1, 2, 2, 6]);
        assert_eq!(strides_of(&[3, 1, 3], &[l(&[1, 1], &[3, 1]), l(&[3, 1, 3], &[3, 1, 1])]), vec![3, 1, 1]);
        // A number is an operand of shape []: a row-major input with odd size-1 strides follows them.
        assert_eq!(strides_of(&[4, 1], &[l(&[4, 1], &[1, 4]), l(&[], &[])]), vec![1, 4]);
    }

    #[test]
    fn memory_formats() {
        // PyTorch 2.15: x.contiguous(memory_format=...).stride() and is_contiguous(memory_format=...).
        let strides = |shape: &[usize], f| format_order(shape, f).unwrap().map(|o| o.strides);
        assert_eq!(strides(&[2, 3, 4, 5], MemoryFormat::ChannelsLast), Some(vec![60, 1, 15, 3]));
        assert_eq!(strides(&[2, 3, 2, 4, 5], MemoryFormat::ChannelsLast3d), Some(vec![120, 1, 60, 15, 3]));
        assert_eq!(strides(&[1, 3, 1, 5], MemoryFormat::ChannelsLast), Some(vec![15, 1, 15, 3]));
        assert!(format_order(&[3, 4], MemoryFormat::ChannelsLast).is_err());
        assert!(format_order(&[2, 3, 4, 5], MemoryFormat::ChannelsLast3d).is_err());
        assert!(is_contiguous_in(&l(&[2, 3, 4, 5], &[60, 1, 15, 3]), MemoryFormat::ChannelsLast));
        assert!(!is_contiguous_in(&l(&[2, 3, 4, 5], &[60, 20, 5, 1]), MemoryFormat::ChannelsLast));
        assert!(!is_contiguous_in(&l(&[2, 1, 4, 5], &[60, 20, 5, 1]), MemoryFormat::ChannelsLast));
        assert!(suggests_channels_last(&l(&[2, 3, 4, 5], &[60, 1, 15, 3])));
        assert!(!suggests_channels_last(&l(&[2, 3, 4, 5], &[60, 20, 5, 1])));
        // N111: ambiguous, read as row-major.
        assert!(!suggests_channels_last(&l(&[4, 1, 1, 1], &[1, 1, 1, 1])));
    }

    #[test]
    fn preserve_format() {
        assert_eq!(preserved_strides(&l(&[4, 1], &[1, 4])).unwrap(), vec![1, 4]);
        assert_eq!(preserved_strides(&l(&[4, 1, 2], &[1, 4, 12])).unwrap(), vec![1, 4, 4]);
        assert_eq!(preserved_strides(&l(&[3, 2], &[4, 2])).unwrap(), vec![2, 1]);
        assert_eq!(preserved_strides(&l(&[3, 4], &[0, 1])).unwrap(), vec![4, 1]);
    }
}
