//! The shape of one fused attention (`F.scaled_dot_product_attention` without dropout), which
//! the kernels of every backend and the backward formula share.

/// The problem, with the query's leading dims flattened to `batch` (each a (batch, head) pair).
#[derive(Clone, Copy, Debug)]
pub struct AttnDims {
    /// Query (batch, head) pairs.
    pub batch: usize,
    /// Query heads (the last of the leading dims), for grouped-query attention.
    pub heads: usize,
    /// Query heads sharing one key/value head (1 without grouped-query attention).
    pub group: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    pub scale: f64,
    /// Query row `i` sees key columns `j <= i` (top-left alignment, as PyTorch's `is_causal`).
    pub causal: bool,
}

impl AttnDims {
    /// The key/value (batch, head) pair that query pair `b` reads.
    pub fn kv_of(&self, b: usize) -> usize {
        (b / self.heads) * (self.heads / self.group) + (b % self.heads) / self.group
    }

    /// Key columns any of the query rows `q0..q0 + rows` may see.
    pub fn key_end(&self, q0: usize, rows: usize) -> usize {
        if self.causal {
            self.s.min(q0 + rows)
        } else {
            self.s
        }
    }
}
