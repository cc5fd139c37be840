//! Sampling from the distributions a tensor describes: `multinomial`. The draws come from a
//! `Generator` on the host (the probabilities are read there), so a seed gives the same samples
//! on every device and thread count.

use crate::cpu::buffer::with_capacity;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::random::{Generator, Rng};
use crate::tensor::Tensor;

impl Tensor {
    /// `multinomial(num_samples, replacement)`: per row of a 1-D or 2-D tensor of non-negative
    /// weights (not necessarily summing to one), `num_samples` category indices (int64). Without
    /// replacement each row's draws are distinct: the categories with the smallest `E / w` for
    /// independent exponential `E` (the same law as drawing one at a time and removing it), so
    /// categories of weight zero come last, after every category of positive weight.
    pub fn multinomial(&self, num_samples: i64, replacement: bool, gen: &Generator) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Err(Error::Runtime(format!(
                "multinomial only supports floating-point dtypes for input, got: {}",
                self.dtype().title_name()
            )));
        }
        if !(self.ndim() == 1 || self.ndim() == 2) {
            return Err(Error::Runtime("prob_dist must be 1 or 2 dim".into()));
        }
        let categories = self.shape()[self.ndim() - 1];
        if !replacement && num_samples > categories as i64 {
            return Err(Error::Runtime("cannot sample n_sample > prob_dist.size(-1) samples without replacement".into()));
        }
        if num_samples <= 0 {
            return Err(Error::Runtime("cannot sample n_sample <= 0 samples".into()));
        }
        let n = num_samples as usize;
        let rows = if self.ndim() == 2 { self.shape()[0] } else { 1 };
        if categories == 0 && rows > 0 {
            // PyTorch's check of the weights' range meets the empty row first.
            return Err(Error::Runtime(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.".into(),
            ));
        }
        let weights = self.to_device(Device::Cpu)?.to_dtype(DType::F64)?.contiguous()?.to_vec::<f64>()?;
        for row in weights.chunks(categories.max(1)).take(rows) {
            check_weights(row)?;
        }
        let mut out = with_capacity::<i64>(rows.checked_mul(n).ok_or_else(|| Error::Runtime("multinomial: too many samples".into()))?)?;
        let mut rng = gen.lock();
        for row in weights.chunks(categories.max(1)).take(rows) {
            if replacement {
                draw_with_replacement(row, n, &mut rng, &mut out);
            } else {
                draw_without_replacement(row, n, &mut rng, &mut out)?;
            }
        }
        drop(rng);
        let shape: Vec<usize> = if self.ndim() == 2 { vec![rows, n] } else { vec![n] };
        Tensor::from_vec(out, &shape)?.to_device(self.device())
    }
}

/// PyTorch's checks of one row: finite and non-negative weights with a positive sum.
fn check_weights(row: &[f64]) -> Result<()> {
    if row.iter().any(|w| !w.is_finite() || *w < 0.0) {
        return Err(Error::Runtime("probability tensor contains either `inf`, `nan` or element < 0".into()));
    }
    if row.iter().sum::<f64>() <= 0.0 {
        return Err(Error::Runtime("invalid multinomial distribution (sum of probabilities <= 0)".into()));
    }
    Ok(())
}

/// `n` independent draws: a uniform point of the total weight, located in the running sums.
fn draw_with_replacement(row: &[f64], n: usize, rng: &mut Rng, out: &mut Vec<i64>) {
    let mut cumulative = Vec::with_capacity(row.len());
    let mut total = 0.0;
    for &w in row {
        total += w;
        cumulative.push(total);
    }
    let last_positive = row.iter().rposition(|&w| w > 0.0).unwrap_or(0);
    for _ in 0..n {
        let u = rng.next_f64() * total;
        // The first category whose running sum passes u; rounding can leave u at the very end,
        // which belongs to the last category of positive weight (never to a zero-weight one).
        let at = cumulative.partition_point(|&c| c <= u).min(last_positive);
        out.push(at as i64);
    }
}

/// `n` distinct draws: the categories with the smallest exponential keys `-ln(U) / w`; a
/// category of weight zero has an infinite key, and ties keep the categories' order.
fn draw_without_replacement(row: &[f64], n: usize, rng: &mut Rng, out: &mut Vec<i64>) -> Result<()> {
    let mut keys = with_capacity::<(f64, usize)>(row.len())?;
    for (i, &w) in row.iter().enumerate() {
        // 1 - U lies in (0, 1], so its logarithm is finite.
        let e = -(1.0 - rng.next_f64()).ln();
        keys.push((if w > 0.0 { e / w } else { f64::INFINITY }, i));
    }
    keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    out.extend(keys.iter().take(n).map(|&(_, i)| i as i64));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(v: Vec<f64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn draws_follow_the_weights_and_a_seed_repeats_them() {
        let p = weights(vec![0.1, 0.0, 0.6, 0.3], &[4]);
        let gen = Generator::new(7);
        let s = p.multinomial(40000, true, &gen).unwrap().to_vec::<i64>().unwrap();
        let share = |k: i64| s.iter().filter(|&&v| v == k).count() as f64 / s.len() as f64;
        assert_eq!(share(1), 0.0);
        for (k, want) in [(0, 0.1), (2, 0.6), (3, 0.3)] {
            assert!((share(k) - want).abs() < 0.01, "category {k}: {} against {want}", share(k));
        }
        let again = p.multinomial(40000, true, &Generator::new(7)).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(s, again);
    }

    #[test]
    fn without_replacement_each_row_draws_distinct_categories_zero_weights_last() {
        let p = weights(vec![1.0, 0.0, 1.0, 0.0, 0.0, 1.0], &[2, 3]);
        let s = p.multinomial(3, false, &Generator::new(1)).unwrap();
        assert_eq!(s.shape(), &[2, 3]);
        let v = s.to_vec::<i64>().unwrap();
        let mut first = v[..3].to_vec();
        first.sort_unstable();
        assert_eq!(first, [0, 1, 2]);
        assert_eq!(v[2], 1, "the zero-weight category comes after both positive ones");
        assert_eq!(v[3], 2, "the only positive category comes first");
    }

    #[test]
    fn bad_input_is_pytorchs_error() {
        let gen = Generator::new(0);
        let msg = |t: &Tensor, n, r| t.multinomial(n, r, &gen).unwrap_err().to_string();
        let p = weights(vec![0.2, 0.8], &[2]);
        assert_eq!(msg(&p, 3, false), "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        assert_eq!(msg(&p, 0, true), "cannot sample n_sample <= 0 samples");
        assert_eq!(msg(&weights(vec![-1.0, 2.0], &[2]), 1, true), "probability tensor contains either `inf`, `nan` or element < 0");
        assert_eq!(msg(&weights(vec![0.0, 0.0], &[2]), 1, true), "invalid multinomial distribution (sum of probabilities <= 0)");
        assert_eq!(msg(&weights(vec![1.0; 8], &[2, 2, 2]), 1, true), "prob_dist must be 1 or 2 dim");
        assert!(msg(&weights(vec![], &[2, 0]), 1, true).starts_with("aminmax(): cannot compute aminmax over an empty dimension"));
        assert_eq!(weights(vec![], &[0, 3]).multinomial(2, false, &gen).unwrap().shape(), &[0, 2]);
        let ints = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
        assert_eq!(msg(&ints, 1, true), "multinomial only supports floating-point dtypes for input, got: Long");
    }
}
