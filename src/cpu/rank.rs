//! Selection by rank on the host: per lane, the index of the element of a given rank, or of the
//! median, as PyTorch's CPU kernels pick it among ties and NaNs (kthvalue and median), and the
//! indices of the `k` best elements (topk), without sorting whole lanes.

use crate::backend::Array;
use crate::cpu::buffer::{collect_n, copied, with_capacity};
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

/// Up to this `k`, topk keeps its best elements in a sorted buffer filled by one scan of the
/// lane (most elements cost one comparison with the buffer's last); above it, it partitions a
/// permutation of the lane around rank `k` and sorts the `k` in front.
const BUFFERED_K: usize = 32;

/// Per lane along `dim`, the int64 indices of the `k` largest (or smallest, for `!largest`)
/// elements, best first, shaped as `x` with `dim` moved last and `k` long. They are the first `k`
/// of the stable sort's order (NaN above every number, ties by index), as PyTorch's sorted topk.
pub fn topk_indices(x: &Array, dim: usize, k: usize, largest: bool) -> Result<Array> {
    let x = if x.dtype().is_half() { copy_as(x, DType::F32)? } else { x.clone() };
    let idx: Vec<i64> = with_arith_dtype!(x.dtype(), T => x.with_slice::<T, _>("topk", |s, l| {
        map_lanes(s, l, dim, k, |lane: &[T], o: &mut [i64]| select_best(lane, o, largest))
    })??);
    let mut shape = x.shape().to_vec();
    shape.remove(dim);
    shape.push(k);
    Array::from_vec(idx, &shape)
}

/// Writes to `o` the indices of the `o.len()` best elements of `lane`, best first.
fn select_best<T: Arith + PartialOrd>(lane: &[T], o: &mut [i64], largest: bool) -> Result<()> {
    // Whether `a` comes strictly before `b` by value alone (equal values fall to the index).
    let ahead = |a: T, b: T| {
        if largest {
            (a.is_nan() && !b.is_nan()) || a > b
        } else {
            (b.is_nan() && !a.is_nan()) || a < b
        }
    };
    let k = o.len();
    if k == 0 {
        return Ok(());
    }
    if k <= BUFFERED_K {
        // The lane is scanned in index order, so an element enters only when strictly ahead of
        // the buffer's last, and lands after the equal ones already held: ties keep index order.
        let mut best: Vec<(T, usize)> = with_capacity(k + 1)?;
        for (i, &v) in lane.iter().enumerate() {
            if best.len() == k {
                if !ahead(v, best[k - 1].0) {
                    continue;
                }
                best.pop();
            }
            let at = best.iter().position(|&(b, _)| ahead(v, b)).unwrap_or(best.len());
            best.insert(at, (v, i));
        }
        o.iter_mut().zip(best).for_each(|(o, (_, i))| *o = i as i64);
        return Ok(());
    }
    let order = |a: &usize, b: &usize| {
        if ahead(lane[*a], lane[*b]) {
            std::cmp::Ordering::Less
        } else if ahead(lane[*b], lane[*a]) {
            std::cmp::Ordering::Greater
        } else {
            a.cmp(b)
        }
    };
    let mut positions: Vec<usize> = collect_n(lane.len(), 0..lane.len())?;
    if k < positions.len() {
        positions.select_nth_unstable_by(k, order);
    }
    // A total order (the index breaks every tie), so an unstable sort gives the stable result.
    positions[..k].sort_unstable_by(order);
    o.iter_mut().zip(&positions).for_each(|(o, &i)| *o = i as i64);
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `k` of a stable sort, NaN largest: the order topk must reproduce.
    fn by_sort(lane: &[f32], k: usize, largest: bool) -> Vec<i64> {
        let key = |a: f32, b: f32| match (a.is_nan(), b.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => a.partial_cmp(&b).unwrap(),
        };
        let mut idx: Vec<usize> = (0..lane.len()).collect();
        if largest {
            idx.sort_by(|&a, &b| key(lane[b], lane[a]));
        } else {
            idx.sort_by(|&a, &b| key(lane[a], lane[b]));
        }
        idx[..k].iter().map(|&i| i as i64).collect()
    }

    #[test]
    fn topk_matches_a_stable_sort_with_ties_and_nans() {
        // Few distinct values (many ties), NaNs and both zeros, at buffered and partitioned k.
        let lane: Vec<f32> = (0..300u32)
            .map(|i| match (i * 7919) % 23 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                r => (r % 9) as f32 - 4.0,
            })
            .collect();
        for k in [0, 1, 5, 32, 33, 100, 299, 300] {
            for largest in [true, false] {
                let mut o = vec![0i64; k];
                select_best(&lane, &mut o, largest).unwrap();
                assert_eq!(o, by_sort(&lane, k, largest), "k={k} largest={largest}");
            }
        }
    }
}
