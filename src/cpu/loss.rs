//! The CPU's nll_loss over Arrays: float32 or float64 rows of scores against int64 targets in
//! one pass, with what its backward pass needs.

use crate::backend::Array;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::ops::reduction::Reduction;

use super::buffer::{collect_n, with_capacity};
use super::cast::dense_slice;

/// Per row of `classes` scores: the loss `-w[t] * x[t]`, and the coefficient `w[t]` (0 where
/// the target is ignored). None where a target is out of range.
fn rows<T: Element>(
    x: &[T],
    classes: usize,
    targets: &[i64],
    weight: Option<&[T]>,
    ignore_index: i64,
) -> Result<Option<(Vec<f64>, Vec<f64>)>> {
    let mut losses = with_capacity(targets.len())?;
    let mut coefs = with_capacity(targets.len())?;
    for (i, &t) in targets.iter().enumerate() {
        let row = &x[i * classes..][..classes];
        if t == ignore_index {
            losses.push(0.0);
            coefs.push(0.0);
            continue;
        }
        let Some(c) = usize::try_from(t).ok().filter(|&c| c < classes) else { return Ok(None) };
        let w = weight.map_or(1.0, |w| w[c].to_f64());
        losses.push(-w * row[c].to_f64());
        coefs.push(w);
    }
    Ok(Some((losses, coefs)))
}

/// `Backend::nll_loss` on the host: the loss and, per row, the slope at the target and the
/// target (0 where ignored). Sums run in float64 and are rounded once to the scores' dtype.
pub fn nll_loss(
    scores: &Array,
    target: &Array,
    weight: Option<&Array>,
    classes: usize,
    ignore_index: i64,
    reduction: Reduction,
    out_shape: &[usize],
) -> Result<Option<(Array, Array, Array)>> {
    fn typed<T: Element>(
        scores: &Array,
        target: &Array,
        weight: Option<&Array>,
        classes: usize,
        ignore_index: i64,
        reduction: Reduction,
        out_shape: &[usize],
    ) -> Result<Option<(Array, Array, Array)>> {
        dense_slice::<i64, _>(target, "nll_loss", |targets| {
            let per_row = dense_slice::<T, _>(scores, "nll_loss", |x| match weight {
                Some(w) => dense_slice::<T, _>(w, "nll_loss", |w| rows(x, classes, targets, Some(w), ignore_index))?,
                None => rows(x, classes, targets, None, ignore_index),
            })??;
            let Some((losses, coefs)) = per_row else { return Ok(None) };
            // From +0.0: Rust's `sum` starts at -0.0, and PyTorch's sum of no rows is 0.0.
            let sum = |v: &[f64]| v.iter().fold(0.0, |a, b| a + b);
            let total_weight = sum(&coefs);
            let (out, scale) = match reduction {
                Reduction::None => (collect_n(losses.len(), losses.iter().map(|&l| T::from_f64(l)))?, 1.0),
                Reduction::Sum => (vec![T::from_f64(sum(&losses))], 1.0),
                Reduction::Mean => (vec![T::from_f64(sum(&losses) / total_weight)], 1.0 / total_weight),
            };
            // Per row, d loss / d x[t] before the incoming gradient, and where t is (any class
            // where ignored: its slope is 0). Ignored rows get no gradient, even where a mean
            // over no weight makes the others NaN.
            let n = targets.len();
            let slopes = coefs.iter().zip(targets).map(|(w, &t)| T::from_f64(if t == ignore_index { 0.0 } else { -w * scale }));
            let picks = targets.iter().map(|&t| if t == ignore_index { 0 } else { t });
            Ok(Some((
                Array::from_vec(out, out_shape)?,
                Array::from_vec(collect_n(n, slopes)?, &[n])?,
                Array::from_vec(collect_n(n, picks)?, &[n, 1])?,
            )))
        })?
    }
    match scores.dtype() {
        DType::F64 => typed::<f64>(scores, target, weight, classes, ignore_index, reduction, out_shape),
        _ => typed::<f32>(scores, target, weight, classes, ignore_index, reduction, out_shape),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(scores: Vec<f32>, targets: Vec<i64>, weight: Option<Vec<f32>>, reduction: Reduction) -> Option<(Vec<f32>, Vec<f32>, Vec<i64>)> {
        let rows = targets.len();
        let classes = scores.len() / rows;
        let out_shape = if reduction == Reduction::None { vec![rows] } else { vec![] };
        let (s, t) = (Array::from_vec(scores, &[rows, classes]).unwrap(), Array::from_vec(targets, &[rows]).unwrap());
        let w = weight.map(|w| Array::from_vec(w, &[classes]).unwrap());
        let (out, slopes, picks) = nll_loss(&s, &t, w.as_ref(), classes, -100, reduction, &out_shape).unwrap()?;
        let host = |a: &Array| a.with_slice::<f32, _>("test", |s, _| s.to_vec()).unwrap();
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
    fn per_row_losses_and_out_of_range_targets() {
        let (out, _, _) = run(vec![1.0, 2.0, 3.0, 4.0], vec![1, 0], None, Reduction::None).unwrap();
        assert_eq!(out, vec![-2.0, -3.0]);
        assert!(run(vec![1.0, 2.0, 3.0, 4.0], vec![1, 2], None, Reduction::Sum).is_none());
        assert!(run(vec![1.0, 2.0, 3.0, 4.0], vec![-1, 0], None, Reduction::Sum).is_none());
    }
}
