//! Sampling from the distributions a tensor describes: `multinomial`, `poisson`, `bernoulli`,
//! and the scalar-parameter laws of the in-place fills (`exponential_`, `geometric_`, ...). The draws come from a
//! `Generator` on the host (the probabilities are read there), so a seed gives the same samples
//! on every device and thread count.

use crate::cpu::buffer::{with_capacity, written_output};
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

/// A law with scalar parameters, drawn by the in-place fills of the same names.
#[derive(Clone, Copy, Debug)]
pub enum Law {
    Exponential { lambd: f64 },
    Geometric { p: f64 },
    LogNormal { mean: f64, std: f64 },
    Cauchy { median: f64, sigma: f64 },
    Bernoulli { p: f64 },
}

impl Law {
    /// One draw of a law sampled element by element (log-normal draws come in blocks: `sample_law`).
    fn draw(self, rng: &mut Rng) -> f64 {
        // 1 - U lies in (0, 1], so its logarithm is finite.
        let open = |rng: &mut Rng| 1.0 - rng.next_f64();
        match self {
            Law::Exponential { lambd } => -open(rng).ln() / lambd,
            // The number of trials to the first success: ceil(ln U / ln(1 - p)), at least one.
            Law::Geometric { p } => (open(rng).ln() / (-p).ln_1p()).ceil().max(1.0),
            Law::LogNormal { .. } => unreachable!("log-normal draws are made in blocks by sample_law"),
            Law::Cauchy { median, sigma } => median + sigma * (std::f64::consts::PI * (rng.next_f64() - 0.5)).tan(),
            Law::Bernoulli { p } => f64::from(u8::from(rng.next_f64() < p)),
        }
    }
}

impl Tensor {
    /// Draws of `law`, one per element of `shape`, in `dtype` (float64 draws rounded to it).
    pub fn sample_law(shape: &[usize], law: Law, dtype: DType, gen: &Generator) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        let mut rng = gen.lock();
        let out = if let Law::LogNormal { mean, std } = law {
            // exp of normal draws, both values of each Box-Muller pair kept (as randn).
            written_output(n, |out| rng.fill_normal::<false, f64>(out, |z| (mean + std * z).exp()))?
        } else {
            let mut out = with_capacity::<f64>(n)?;
            out.extend((0..n).map(|_| law.draw(&mut rng)));
            out
        };
        drop(rng);
        Tensor::from_vec(out, shape)?.to_dtype(dtype)
    }

    /// `poisson(rates)`: one Poisson draw per element of a floating-point tensor of rates.
    pub fn poisson(&self, gen: &Generator) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Err(Error::NotImplemented(format!("\"poisson_cpu\" not implemented for '{}'", self.dtype().title_name())));
        }
        let rates = self.to_device(Device::Cpu)?.to_dtype(DType::F64)?.contiguous()?.to_vec::<f64>()?;
        if rates.iter().any(|r| r.is_nan() || *r < 0.0) {
            return Err(Error::Runtime("invalid Poisson rate, expected rate to be non-negative".into()));
        }
        let mut out = with_capacity::<f64>(rates.len())?;
        let mut rng = gen.lock();
        out.extend(rates.iter().map(|&r| poisson_draw(r, &mut rng)));
        drop(rng);
        Tensor::from_vec(out, self.shape())?.to_dtype(self.dtype())?.to_device(self.device())
    }

    /// `bernoulli(p)`: per element, 1 with the probability the element holds, else 0 (the dtype
    /// of `self`, a floating-point tensor of probabilities in [0, 1]).
    pub fn bernoulli_of(&self, dtype: DType, gen: &Generator) -> Result<Tensor> {
        if !self.dtype().is_floating_point() {
            return Err(Error::NotImplemented(format!("\"bernoulli_tensor_cpu_p_\" not implemented for '{}'", self.dtype().title_name())));
        }
        let p = self.to_device(Device::Cpu)?.to_dtype(DType::F64)?.contiguous()?.to_vec::<f64>()?;
        if p.iter().any(|p| !(0.0..=1.0).contains(p)) {
            return Err(Error::Runtime(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  \
                 If so, please report an enhancement request to PyTorch.)"
                    .into(),
            ));
        }
        let mut out = with_capacity::<f64>(p.len())?;
        let mut rng = gen.lock();
        out.extend(p.iter().map(|&p| Law::Bernoulli { p }.draw(&mut rng)));
        drop(rng);
        Tensor::from_vec(out, self.shape())?.to_dtype(dtype)?.to_device(self.device())
    }
}

/// One Poisson draw of mean `rate`: multiplied uniforms for small rates, Hörmann's transformed
/// rejection (PTRS) above, whose cost does not grow with the rate.
fn poisson_draw(rate: f64, rng: &mut Rng) -> f64 {
    if rate == 0.0 {
        return 0.0;
    }
    if rate < 10.0 {
        let limit = (-rate).exp();
        let (mut k, mut prod) = (0.0, rng.next_f64());
        while prod > limit {
            k += 1.0;
            prod *= rng.next_f64();
        }
        return k;
    }
    let (slam, loglam) = (rate.sqrt(), rate.ln());
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = rng.next_f64() - 0.5;
        let v = 1.0 - rng.next_f64();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + rate + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln() <= -rate + k * loglam - ln_factorial(k) {
            return k;
        }
    }
}

/// ln(k!) for a whole k >= 0: the sum of logarithms while short, Stirling's series beyond (its
/// error past x = 11 is below 1e-13).
fn ln_factorial(k: f64) -> f64 {
    if k < 10.0 {
        return (2..=k as u64).map(|i| (i as f64).ln()).sum();
    }
    let x = k + 1.0;
    (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + 1.0 / (12.0 * x) - 1.0 / (360.0 * x.powi(3))
        + 1.0 / (1260.0 * x.powi(5))
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
    fn poisson_draws_have_the_rates_mean_and_variance() {
        for rate in [0.5, 4.0, 30.0, 1000.0] {
            let r = Tensor::from_vec(vec![rate; 20000], &[20000]).unwrap();
            let v = r.poisson(&Generator::new(3)).unwrap().to_vec::<f64>().unwrap();
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
            let se = (rate / v.len() as f64).sqrt();
            assert!((mean - rate).abs() < 5.0 * se, "rate {rate}: mean {mean}");
            assert!((var / rate - 1.0).abs() < 0.06, "rate {rate}: variance {var}");
        }
    }

    #[test]
    fn state_bytes_round_trip_to_the_same_draws() {
        let gen = Generator::new(5);
        gen.lock().next_u64();
        let saved = gen.lock().state_bytes();
        let first: Vec<u64> = (0..4).map(|_| gen.lock().next_u64()).collect();
        gen.set_state(Rng::from_state_bytes(&saved).unwrap());
        let again: Vec<u64> = (0..4).map(|_| gen.lock().next_u64()).collect();
        assert_eq!(first, again);
        assert_eq!(gen.initial_seed(), 5);
        assert!(Rng::from_state_bytes(&[0; 40]).is_none());
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
