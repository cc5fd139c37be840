//! The CPU's nll_loss over Arrays: float32 or float64 rows of scores against int64 targets in
//! one pass, with what its backward pass needs.

use crate::backend::Array;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::ops::reduction::Reduction;

use super::buffer::filled;
use super::cast::dense_slice;

/// One pass over the rows of `classes` scores (the score of class `c` in row `i` at
/// `x[i * row_step + c * class_step]`: read where they lie, as only one a row is read), in plain
/// indexed loops (the iterator chains they replaced, two f64 vectors then three more passes,
/// cost ~6.5 ns a row, twice PyTorch's whole call at 1000 rows): the sums of the losses `-w[t] * x[t]` and of the weights `w[t]` (both in
/// float64 from +0.0, in row order), with per row the loss (where `losses` is given), the weight
/// (to scale into the slope) and the target (0 where ignored, whose loss and weight are 0),
/// those two only where `KEEP` (a forward pass without gradient leaves them empty).
/// None where a target is out of range.
#[allow(clippy::too_many_arguments)]
fn rows<T: Element, const KEEP: bool>(
    x: &[T],
    (row_step, class_step): (usize, usize),
    classes: usize,
    targets: &[i64],
    weight: Option<&[T]>,
    ignore_index: i64,
    mut losses: Option<&mut [T]>,
    coefs: &mut [T],
    picks: &mut [i64],
) -> Option<(f64, f64)> {
    let (mut loss_sum, mut weight_sum) = (0.0f64, 0.0f64);
    for i in 0..targets.len() {
        let t = targets[i];
        if t == ignore_index {
            if let Some(l) = losses.as_deref_mut() {
                l[i] = T::zero();
            }
            if KEEP {
                coefs[i] = T::zero();
                picks[i] = 0;
            }
            continue;
        }
        // A negative target wraps to past the end: one unsigned comparison checks both ends.
        let c = t as usize;
        if c >= classes {
            return None;
        }
        let w = match weight {
            Some(w) => w[c],
            None => T::one(),
        };
        let loss = -w.to_f64() * x[i * row_step + c * class_step].to_f64();
        if let Some(l) = losses.as_deref_mut() {
            l[i] = T::from_f64(loss);
        }
        loss_sum += loss;
        weight_sum += w.to_f64();
        if KEEP {
            coefs[i] = w;
            picks[i] = t;
        }
    }
    Some((loss_sum, weight_sum))
}

/// `Backend::nll_loss` on the host: the loss and, per row, the slope at the target and the
/// target (0 where ignored; both empty unless `keep`). Sums run in float64 and are rounded
/// once to the scores' dtype.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss(
    scores: &Array,
    target: &Array,
    weight: Option<&Array>,
    classes: usize,
    ignore_index: i64,
    reduction: Reduction,
    out_shape: &[usize],
    keep: bool,
) -> Result<Option<(Array, Array, Array)>> {
    #[allow(clippy::too_many_arguments)]
    fn typed<T: Element>(
        scores: &Array,
        target: &Array,
        weight: Option<&Array>,
        classes: usize,
        ignore_index: i64,
        reduction: Reduction,
        out_shape: &[usize],
        keep: bool,
    ) -> Result<Option<(Array, Array, Array)>> {
        dense_slice::<i64, _>(target, "nll_loss", |targets| {
            let n = targets.len();
            let mut losses = if reduction == Reduction::None { Some(filled(n, T::zero())?) } else { None };
            let kept = if keep { n } else { 0 };
            let (mut slopes, mut picks) = (filled(kept, T::zero())?, filled(kept, 0i64)?);
            let (l, c, p) = (losses.as_deref_mut(), &mut slopes[..], &mut picks[..]);
            // Scores `(N, C)` or `(C,)` (one row): strided views are read in place, as only one
            // score a row is (copying `x.t()` dense first took 0.8 ms of 1M float32).
            let sums = scores.with_slice::<T, _>("nll_loss", |x, at| {
                let steps = match at.strides[..] {
                    [row, class] => (row, class),
                    [class] => (0, class),
                    _ => return Err(crate::error::Error::Runtime("nll_loss: scores of one or two dims".into())),
                };
                let x = x.get(at.offset..).unwrap_or(&[]);
                dense_slice_opt::<T, _>(weight, |w| {
                    if keep {
                        rows::<T, true>(x, steps, classes, targets, w, ignore_index, l, c, p)
                    } else {
                        rows::<T, false>(x, steps, classes, targets, w, ignore_index, l, c, p)
                    }
                })
            })??;
            let Some((loss_sum, total_weight)) = sums else { return Ok(None) };
            let (out, scale) = match (reduction, losses) {
                (Reduction::None, Some(losses)) => (losses, 1.0),
                (Reduction::Mean, _) => (vec![T::from_f64(loss_sum / total_weight)], 1.0 / total_weight),
                _ => (vec![T::from_f64(loss_sum)], 1.0),
            };
            // Per row, d loss / d x[t] before the incoming gradient (the row's weight scaled in
            // place). Ignored rows get no gradient (+0), even where a mean over no weight makes
            // the others NaN.
            for i in 0..kept {
                slopes[i] = if targets[i] == ignore_index { T::zero() } else { T::from_f64(-slopes[i].to_f64() * scale) };
            }
            Ok(Some((Array::from_vec(out, out_shape)?, Array::from_vec(slopes, &[kept])?, Array::from_vec(picks, &[kept, 1])?)))
        })?
    }
    match scores.dtype() {
        DType::F64 => typed::<f64>(scores, target, weight, classes, ignore_index, reduction, out_shape, keep),
        _ => typed::<f32>(scores, target, weight, classes, ignore_index, reduction, out_shape, keep),
    }
}

/// `dense_slice` of an optional array: `f` gets None where there is none.
fn dense_slice_opt<T: Element, R>(x: Option<&Array>, f: impl FnOnce(Option<&[T]>) -> R) -> Result<R> {
    match x {
        Some(x) => dense_slice::<T, _>(x, "nll_loss", |s| f(Some(s))),
        None => Ok(f(None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;

    fn run(scores: Vec<f32>, targets: Vec<i64>, weight: Option<Vec<f32>>, reduction: Reduction) -> Option<(Vec<f32>, Vec<f32>, Vec<i64>)> {
        let rows = targets.len();
        let classes = scores.len() / rows;
        let out_shape = if reduction == Reduction::None { vec![rows] } else { vec![] };
        let (s, t) = (Array::from_vec(scores, &[rows, classes]).unwrap(), Array::from_vec(targets, &[rows]).unwrap());
        let w = weight.map(|w| Array::from_vec(w, &[classes]).unwrap());
        let (out, slopes, picks) = nll_loss(&s, &t, w.as_ref(), classes, -100, reduction, &out_shape, true).unwrap()?;
        let host = |a: &Array| a.with_slice::<f32, _>("test", |s, _| s.to_vec()).unwrap();
        // Without the backward's buffers the loss is the same, and those come back empty.
        let (bare, no_slopes, no_picks) = nll_loss(&s, &t, w.as_ref(), classes, -100, reduction, &out_shape, false).unwrap()?;
        assert_eq!(host(&bare), host(&out));
        assert_eq!((no_slopes.numel(), no_picks.numel()), (0, 0));
        Some((host(&out), host(&slopes), picks.with_slice::<i64, _>("test", |s, _| s.to_vec()).unwrap()))
    }

    #[test]
    fn weighted_mean_and_its_slopes() {
        let (out, slopes, picks) =
            run(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![1, -100, 0], Some(vec![0.5, 2.0]), Reduction::Mean).unwrap();
        // (-(2 * 2) - 0.5 * 5) / (2 + 0.5)
        assert_eq!(out, vec![-6.5 / 2.5]);
        assert_eq!(slopes, vec![-2.0 / 2.5, 0.0, -0.5 / 2.5]);
        assert_eq!(picks, vec![1, 0, 0]);
    }

    #[test]
    fn strided_scores_are_read_in_place() {
        // Storage [9, 1, 2, 3, 4, 5, 6] viewed from 1 as the 2x3 transpose of [[1, 2], [3, 4], [5, 6]]:
        // rows [1, 3, 5] and [2, 4, 6].
        let base = Array::from_vec(vec![9.0f32, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[7]).unwrap();
        let scores = base.with_layout(Layout { shape: vec![2, 3], strides: vec![1, 2], offset: 1 });
        let t = Array::from_vec(vec![2i64, 1], &[2]).unwrap();
        let (out, slopes, picks) = nll_loss(&scores, &t, None, 3, -100, Reduction::None, &[2], true).unwrap().unwrap();
        assert_eq!(out.with_slice::<f32, _>("t", |s, _| s.to_vec()).unwrap(), vec![-5.0, -4.0]);
        assert_eq!(slopes.with_slice::<f32, _>("t", |s, _| s.to_vec()).unwrap(), vec![-1.0, -1.0]);
        assert_eq!(picks.with_slice::<i64, _>("t", |s, _| s.to_vec()).unwrap(), vec![2, 1]);
    }

    #[test]
    fn per_row_losses_and_out_of_range_targets() {
        let (out, _, _) = run(vec![1.0, 2.0, 3.0, 4.0], vec![1, 0], None, Reduction::None).unwrap();
        assert_eq!(out, vec![-2.0, -3.0]);
        assert!(run(vec![1.0, 2.0, 3.0, 4.0], vec![1, 2], None, Reduction::Sum).is_none());
        assert!(run(vec![1.0, 2.0, 3.0, 4.0], vec![-1, 0], None, Reduction::Sum).is_none());
    }
}
