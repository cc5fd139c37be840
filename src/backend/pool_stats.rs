//! The memory counters a device reports: what its buffer pool holds and what was read back.

/// Buffer-pool and read-back counters of one device: the pool counts its buffers, the context
/// adds its read backs and launches (`pool_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Buffers created since the device opened (each a real allocation).
    pub created: u64,
    /// Requests served from the pool.
    pub reused: u64,
    /// Bytes held by live tensors and by the pool's free lists.
    pub in_use_bytes: u64,
    pub cached_bytes: u64,
    /// Reads of device data back to the host (each one a wait for the device), and their bytes.
    pub read_backs: u64,
    pub read_back_bytes: u64,
    /// Kernels launched (recorded for the device) since it opened.
    pub launches: u64,
}
