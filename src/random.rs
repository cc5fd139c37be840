//! Random number generators: `torch.Generator` objects and the default one `manual_seed` sets.

use std::sync::{Arc, Mutex, OnceLock};

/// xoshiro256++ seeded through SplitMix64: fast, small state, good statistical quality.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
    seed: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng { s: [next(), next(), next(), next()], seed }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The whole state as bytes (the seed, then the four state words, little-endian): what
    /// `get_state` hands out and `set_state` takes back to repeat the same future draws.
    pub fn state_bytes(&self) -> Vec<u8> {
        std::iter::once(self.seed).chain(self.s).flat_map(u64::to_le_bytes).collect()
    }

    /// The state `state_bytes` wrote; None when `bytes` is not one (wrong length, or the all-zero
    /// words xoshiro never leaves).
    pub fn from_state_bytes(bytes: &[u8]) -> Option<Rng> {
        if bytes.len() != Rng::STATE_BYTES {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
        let s = [word(1), word(2), word(3), word(4)];
        (s != [0; 4]).then_some(Rng { s, seed: word(0) })
    }

    pub const STATE_BYTES: usize = 40;

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let r = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, 1) with 24 random bits, so float32 results never round up to 1.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Standard normal values written to every element of `out`, `map` applied to each (a mean and std, a cast): Box-Muller
    /// on pairs of draws, both values of each pair kept. A block of `NORMAL_BLOCK` pairs draws its
    /// u1s, then its u2s, and gives its cosines, then its sines; the transform runs vectorised on
    /// the block (float32-accurate when `FLOAT32`, the C library's log, sin and cos otherwise).
    pub fn fill_normal<const FLOAT32: bool, T>(&mut self, out: &mut [std::mem::MaybeUninit<T>], map: impl Fn(f64) -> T) {
        let mut draws = [0u64; 2 * NORMAL_BLOCK];
        let mut z = [0f64; 2 * NORMAL_BLOCK];
        for chunk in out.chunks_mut(2 * NORMAL_BLOCK) {
            let pairs = chunk.len().div_ceil(2);
            for d in &mut draws[..2 * pairs] {
                *d = self.next_u64();
            }
            let (u1, u2) = draws[..2 * pairs].split_at(pairs);
            let (cos_part, sin_part) = z[..2 * pairs].split_at_mut(pairs);
            crate::cpu::simd::dispatch(BoxMuller::<FLOAT32> { u1, u2, cos_part, sin_part });
            for (o, &v) in chunk.iter_mut().zip(&z[..]) {
                o.write(map(v));
            }
        }
    }

    /// Uniform integer in [0, n), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let zone = u64::MAX - (u64::MAX % n) - 1;
        loop {
            let v = self.next_u64();
            if v <= zone {
                return v % n;
            }
        }
    }
}

/// Pairs of draws per block of `Rng::fill_normal`: enough for the transform to vectorise, few
/// enough to stay in the first-level cache.
const NORMAL_BLOCK: usize = 128;

/// Box-Muller on a block: r = sqrt(-2 ln u1) with u1 in (0, 1], θ = 2π u2 with u2 in [0, 1) (53
/// random bits each), r cos θ and r sin θ. A `WithSimd` loop so that it compiles for the CPU's
/// widest vectors (`cpu::simd`).
struct BoxMuller<'a, const FLOAT32: bool> {
    u1: &'a [u64],
    u2: &'a [u64],
    cos_part: &'a mut [f64],
    sin_part: &'a mut [f64],
}

impl<const FLOAT32: bool> pulp::WithSimd for BoxMuller<'_, FLOAT32> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let unit = |d: u64| (d >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        let parts = self.cos_part.iter_mut().zip(self.sin_part.iter_mut());
        for ((c, s), (&d1, &d2)) in parts.zip(self.u1.iter().zip(self.u2)) {
            let (u1, u2) = (1.0 - unit(d1), unit(d2));
            if FLOAT32 {
                let r = (-2.0 * crate::cpu::vecmath::log::<true>(u1)).sqrt();
                let (sin, cos) = crate::cpu::vecmath_trig::sin_cos_turns(u2);
                (*c, *s) = (r * cos, r * sin);
            } else {
                let r = (-2.0 * u1.ln()).sqrt();
                let (sin, cos) = (2.0 * std::f64::consts::PI * u2).sin_cos();
                (*c, *s) = (r * cos, r * sin);
            }
        }
    }
}

/// A shareable generator handle (`torch.Generator`).
#[derive(Clone)]
pub struct Generator(pub Arc<Mutex<Rng>>);

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator(Arc::new(Mutex::new(Rng::new(seed))))
    }

    pub fn manual_seed(&self, seed: u64) {
        *self.lock() = Rng::new(seed);
    }

    pub fn initial_seed(&self) -> u64 {
        self.lock().seed()
    }

    pub fn set_state(&self, rng: Rng) {
        *self.lock() = rng;
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Rng> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The process-wide default generator.
    pub fn default_generator() -> &'static Generator {
        static DEFAULT: OnceLock<Generator> = OnceLock::new();
        DEFAULT.get_or_init(|| Generator::new(67280421310721))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::MaybeUninit;

    fn normals<const FLOAT32: bool>(seed: u64, n: usize) -> Vec<f64> {
        let mut out = vec![MaybeUninit::uninit(); n];
        Rng::new(seed).fill_normal::<FLOAT32, f64>(&mut out, |z| z);
        out.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    #[test]
    fn normal_fill_has_the_standard_moments_and_both_paths_agree() {
        // An odd length across several blocks: the last pair's sine is dropped.
        let n = 1_000_001;
        let (fast, exact) = (normals::<true>(7, n), normals::<false>(7, n));
        for (a, b) in fast.iter().zip(&exact) {
            assert!((a - b).abs() <= 1e-11 * (1.0 + b.abs()), "{a} vs {b}");
        }
        let mean = exact.iter().sum::<f64>() / n as f64;
        let moment = |k: i32| exact.iter().map(|z| (z - mean).powi(k)).sum::<f64>() / n as f64;
        // Standard errors at a million samples: 1e-3 (mean), 1.4e-3 (variance), 5e-3 (skew), 2.5e-2 (kurtosis).
        assert!(mean.abs() < 5e-3 && (moment(2) - 1.0).abs() < 7e-3, "{mean} {}", moment(2));
        assert!(moment(3).abs() < 2.5e-2 && (moment(4) - 3.0).abs() < 0.12, "{} {}", moment(3), moment(4));
        // The tail past 4 sigma: 6.3e-5 of the samples.
        let tail = exact.iter().filter(|z| z.abs() > 4.0).count() as f64 / n as f64;
        assert!((tail - 6.334e-5).abs() < 2.5e-5, "{tail}");
        // A prefix of a longer fill is not the shorter fill (blocks pair draws), but the same length repeats.
        assert_eq!(normals::<true>(7, 300), normals::<true>(7, 300));
    }
}
