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

    /// Standard normal (Box-Muller).
    pub fn next_normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // (0, 1]: log stays finite
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
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
