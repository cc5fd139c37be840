//! The buffer pool: freed buffers wait on a free list per size class and serve the next request
//! of that class, so a training loop that repeats the same shapes stops allocating after its
//! first step.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::backend::pool_stats::PoolStats;
use crate::error::{Error, Result};

use super::future::block_on;

/// The smallest buffer handed out; also keeps every size a multiple of wgpu's 4-byte copy unit.
const MIN_CLASS: u64 = 256;

/// The size class of a request: at least `MIN_CLASS`, rounded up to a quarter of its power of
/// two (so at most 25% is wasted and a few classes cover every size).
pub(crate) fn size_class(bytes: u64) -> u64 {
    if bytes <= MIN_CLASS {
        return MIN_CLASS;
    }
    let top = 63 - (bytes - 1).leading_zeros();
    let step = (1u64 << top) / 4;
    bytes.div_ceil(step) * step
}

pub(crate) struct BufferPool {
    usage: wgpu::BufferUsages,
    label: &'static str,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    free: HashMap<u64, Vec<wgpu::Buffer>>,
    stats: PoolStats,
}

impl BufferPool {
    pub fn new(usage: wgpu::BufferUsages, label: &'static str) -> BufferPool {
        BufferPool { usage, label, state: Mutex::new(State::default()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A buffer of at least `bytes` (its contents are whatever its last user left).
    pub fn get(&self, device: &wgpu::Device, limits: &wgpu::Limits, bytes: u64) -> Result<wgpu::Buffer> {
        let class = size_class(bytes);
        {
            let mut st = self.lock();
            if let Some(buf) = st.free.get_mut(&class).and_then(|l| l.pop()) {
                st.stats.reused += 1;
                st.stats.cached_bytes -= class;
                st.stats.in_use_bytes += class;
                return Ok(buf);
            }
        }
        let max = limits.max_buffer_size.min(limits.max_storage_buffer_binding_size);
        if class > max {
            return Err(Error::Runtime(format!(
                "wgpu: a tensor of {bytes} bytes is larger than the adapter's largest buffer binding ({max} bytes)"
            )));
        }
        let buf = match self.create(device, class) {
            Ok(b) => b,
            Err(_) => {
                // Out of memory: give back what the pool holds and try once more.
                self.clear();
                self.create(device, class).map_err(|e| Error::Runtime(format!("wgpu: out of memory allocating {bytes} bytes: {e}")))?
            }
        };
        let mut st = self.lock();
        st.stats.created += 1;
        st.stats.in_use_bytes += class;
        Ok(buf)
    }

    fn create(&self, device: &wgpu::Device, size: u64) -> std::result::Result<wgpu::Buffer, wgpu::Error> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buf =
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(self.label), size, usage: self.usage, mapped_at_creation: false });
        match block_on(scope.pop()) {
            Some(e) => Err(e),
            None => Ok(buf),
        }
    }

    /// Takes a buffer back for reuse. Work already recorded against it still runs before any
    /// later use: commands execute in recording order (see `Batch` for uploads).
    pub fn put(&self, buf: wgpu::Buffer) {
        let class = buf.size();
        let mut st = self.lock();
        st.stats.in_use_bytes -= class;
        st.stats.cached_bytes += class;
        st.free.entry(class).or_default().push(buf);
    }

    /// Drops every free buffer.
    pub fn clear(&self) {
        let mut st = self.lock();
        st.free.clear();
        st.stats.cached_bytes = 0;
    }

    pub fn stats(&self) -> PoolStats {
        self.lock().stats
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes_waste_at_most_a_quarter() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(256), 256);
        assert_eq!(size_class(257), 320);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class(1025), 1280);
        for bytes in (1..1 << 20).step_by(997) {
            let c = size_class(bytes);
            assert!(c >= bytes && c.is_multiple_of(4));
            assert!(bytes <= 256 || (c - bytes) * 4 <= c, "{bytes} -> {c}");
        }
    }
}
