//! Selection by rank on the host: per lane, the index of the element of a given rank, or of the
//! median, as PyTorch's CPU kernels pick it among ties and NaNs (kthvalue and median).

use crate::backend::Array;
use crate::cpu::buffer::{collect_n, copied};
use crate::cpu::cast::copy_as;
use crate::cpu::num::Arith;
use crate::cpu::reduce::map_lanes;
use crate::dtype::DType;
use crate::error::Result;

use crate::with_arith_dtype;

/// Per lane along `dim` of `x`, the int64 index of the element of 0-based rank `rank`, or for
/// None of the lower middle element (or of the first NaN in a lane that has one), with `dim`
/// removed from the shape. NaN ranks above every number. Ties resolve as PyTorch's CPU kernels
/// do: the median is the one a stable sort puts in the middle; the k-th value is the one
/// `quick_select` leaves at rank k.
pub fn rank_indices(x: &Array, dim: usize, rank: Option<usize>) -> Result<Array> {
    let x = if x.dtype().is_half() { copy_as(x, DType::F32)? } else { x.clone() };
    let len = x.shape()[dim];
    let idx: Vec<i64> = with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>("kthvalue", |s, l| {
        map_lanes(s, l, dim, 1, |lane: &[T], o: &mut [i64]| {
            let k = match (rank, lane.iter().position(|v| v.is_nan())) {
                (Some(k), _) => {
                    let mut values = copied(lane)?;
                    let mut positions: Vec<i64> = collect_n(lane.len(), 0..lane.len() as i64)?;
                    quick_select(&mut values, &mut positions, k);
                    o[0] = positions[k];
                    return Ok(());
                }
                (None, Some(first_nan)) => {
                    o[0] = first_nan as i64;
                    return Ok(());
                }
                (None, None) => (len - 1) / 2,
            };
            let order = |a: &usize, b: &usize| lane[*a].partial_cmp(&lane[*b]).unwrap_or(std::cmp::Ordering::Equal).then(a.cmp(b));
            let mut positions: Vec<usize> = collect_n(lane.len(), 0..lane.len())?;
            positions.select_nth_unstable_by(k, order);
            o[0] = positions[k] as i64;
            Ok(())
        })
    })??);
    let mut lanes = x.shape().to_vec();
    lanes.remove(dim);
    Array::from_vec(idx, &lanes)
}

/// Moves the element of 0-based rank `k` of `values` (NaN above every number) to position `k`,
/// carrying `positions` along: Hoare partitioning around a median-of-three pivot, narrowed to
/// the side holding `k`. Among ties, the one it leaves at `k` is the one PyTorch's CPU
/// kthvalue reports.
fn quick_select<T: Arith + PartialOrd>(values: &mut [T], positions: &mut [i64], k: usize) {
    let above = |a: T, b: T| (a.is_nan() && !b.is_nan()) || a > b;
    let mut swap = |v: &mut [T], i: usize, j: usize| {
        v.swap(i, j);
        positions.swap(i, j);
    };
    let (mut lo, mut hi) = (0usize, values.len().saturating_sub(1));
    loop {
        if hi <= lo {
            return;
        }
        if hi == lo + 1 {
            if above(values[lo], values[hi]) {
                swap(values, lo, hi);
            }
            return;
        }
        // The median of values[lo], values[mid], values[hi] goes to lo, the smaller one to
        // lo + 1 and the larger to hi, where they stop the scans below.
        let mid = lo + (hi - lo) / 2;
        swap(values, mid, lo + 1);
        if above(values[lo + 1], values[hi]) {
            swap(values, lo + 1, hi);
        }
        if above(values[lo], values[hi]) {
            swap(values, lo, hi);
        }
        if above(values[lo + 1], values[lo]) {
            swap(values, lo + 1, lo);
        }
        let pivot = values[lo];
        let (mut i, mut j) = (lo + 1, hi);
        loop {
            i += 1;
            while above(pivot, values[i]) {
                i += 1;
            }
            j -= 1;
            while above(values[j], pivot) {
                j -= 1;
            }
            if j < i {
                break;
            }
            swap(values, i, j);
        }
        swap(values, lo, j);
        if j <= k {
            lo = i;
        }
        if j >= k {
            hi = j - 1;
        }
    }
}
