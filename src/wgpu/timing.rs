//! Kernel timing for the profiler: while switched on (`_C._wgpu_kernel_timing`), each kernel's compute pass writes
//! GPU timestamps at its start and end, read back when its batch is submitted, and a bounded log keeps the times.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Records kept before the oldest are dropped: a profile that never drains cannot grow without bound.
#[cfg(feature = "wgpu")]
const LOG_CAPACITY: usize = 1 << 16;

static ENABLED: AtomicBool = AtomicBool::new(false);
static LOG: Mutex<VecDeque<KernelTime>> = Mutex::new(VecDeque::new());

/// One timed kernel: its shader entry point, the shader's name, when the host launched it (which op launched it), when
/// it started on the host's clock and how long it ran.
#[cfg_attr(not(feature = "wgpu"), allow(dead_code))] // never made without the GPU backend
struct KernelTime {
    entry: &'static str,
    shader: &'static str,
    launched: Instant,
    start: Instant,
    dur_ns: u64,
}

/// Switches kernel timing on or off (kernels already recorded keep their timestamps).
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

#[cfg(feature = "wgpu")]
fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Empties the log: (entry, shader, launch, start, duration) per kernel in the order they ran. Launches and starts are
/// in ns relative to this call (negative: before it), so that the caller places them on its own clock.
pub fn drain() -> Vec<(&'static str, &'static str, i64, i64, u64)> {
    let now = Instant::now();
    let mut log = LOG.lock().unwrap_or_else(|p| p.into_inner());
    log.drain(..)
        .map(|k| {
            let ago = |t: Instant| -(now.saturating_duration_since(t).as_nanos() as i64);
            (k.entry, k.shader, ago(k.launched), ago(k.start), k.dur_ns)
        })
        .collect()
}

#[cfg(feature = "wgpu")]
fn push(k: KernelTime) {
    let mut log = LOG.lock().unwrap_or_else(|p| p.into_inner());
    if log.len() >= LOG_CAPACITY {
        log.pop_front();
    }
    log.push_back(k);
}

/// A batch's timestamp queries: two per kernel (start, end), resolved and read back when the batch is submitted.
#[cfg(feature = "wgpu")]
pub(crate) struct Timer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    staging: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    period: f64,
    /// The kernels timed in the pending batch, in query order.
    kernels: Vec<(&'static str, &'static str, Instant)>,
}

#[cfg(feature = "wgpu")]
impl Timer {
    /// The timer of a batch of up to `max_kernels` kernels; None when the device has no timestamp queries.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, max_kernels: usize) -> Option<Timer> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let count = 2 * max_kernels as u32;
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("rstorch kernel times"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let size = count as u64 * wgpu::QUERY_SIZE as u64;
        let buffer =
            |label, usage| device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false });
        let resolved = buffer("rstorch kernel times (resolved)", wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let staging = buffer("rstorch kernel times (read back)", wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        Some(Timer { queries, resolved, staging, period: queue.get_timestamp_period() as f64, kernels: Vec::new() })
    }

    /// The timestamp writes of the next kernel's pass, when timing is on.
    pub fn writes(&mut self, entry: &'static str, shader: &'static str) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        if !enabled() {
            return None;
        }
        let i = self.kernels.len() as u32;
        self.kernels.push((entry, shader, Instant::now()));
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        })
    }

    /// Records the resolution of this batch's timestamps into the staging buffer (before the batch is finished).
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        if self.kernels.is_empty() {
            return;
        }
        let n = 2 * self.kernels.len() as u32;
        enc.resolve_query_set(&self.queries, 0..n, &self.resolved, 0);
        enc.copy_buffer_to_buffer(&self.resolved, 0, &self.staging, 0, n as u64 * wgpu::QUERY_SIZE as u64);
    }

    /// After the batch's submission at `submitted`: waits for it (profiling may be slower) and logs each kernel's
    /// time. The first kernel is placed at the submission, the others at their offsets from it on the GPU's clock.
    pub fn collect(&mut self, device: &wgpu::Device, submitted: Instant) {
        if self.kernels.is_empty() {
            return;
        }
        let bytes = 2 * self.kernels.len() as u64 * wgpu::QUERY_SIZE as u64;
        let slice = self.staging.slice(0..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        let waited = device.poll(wgpu::PollType::wait_indefinitely()).is_ok();
        let kernels = std::mem::take(&mut self.kernels);
        if !(waited && matches!(rx.recv(), Ok(Ok(())))) {
            // A lost device reports itself through the context's error sink; the times are simply missing.
            return;
        }
        if let Ok(view) = self.staging.get_mapped_range(0..bytes) {
            let ticks: Vec<u64> = view.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
            let first = ticks[0];
            for (i, (entry, shader, launched)) in kernels.into_iter().enumerate() {
                let (begin, end) = (ticks[2 * i], ticks[2 * i + 1]);
                let offset = (begin.saturating_sub(first) as f64 * self.period) as u64;
                let dur_ns = (end.saturating_sub(begin) as f64 * self.period) as u64;
                push(KernelTime { entry, shader, launched, start: submitted + std::time::Duration::from_nanos(offset), dur_ns });
            }
        }
        self.staging.unmap();
    }
}
