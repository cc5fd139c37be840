//! Tensor storage in GPU memory: a pooled buffer holding `len` elements of one dtype, byte for
//! byte as on the CPU, and the transfers between it and host memory.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};

use super::context::{context, Context};

pub struct WgpuStorage {
    ctx: &'static Context,
    /// Always `Some` until dropped, when it goes back to the pool.
    buffer: Option<wgpu::Buffer>,
    len: usize,
    dtype: DType,
}

impl Drop for WgpuStorage {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            self.ctx.pool.put(b);
        }
    }
}

/// Bytes needed for `len` elements of `dtype`.
fn byte_len(len: usize, dtype: DType) -> Result<u64> {
    len.checked_mul(dtype.size_in_bytes())
        .map(|b| b as u64)
        .ok_or_else(|| Error::SizeOverflow(format!("{len} elements of {}", dtype.name())))
}

/// Uninitialised (or, with `zeroed`, zero-filled) storage for `len` elements on `wgpu:<ordinal>`.
pub fn alloc(ordinal: usize, dtype: DType, len: usize, zeroed: bool) -> Result<WgpuStorage> {
    let ctx = context(ordinal)?;
    let s = WgpuStorage::new(ctx, dtype, len)?;
    if zeroed {
        // Recorded in the batch, so it runs after any earlier use of a recycled buffer.
        ctx.record(|enc| enc.clear_buffer(s.buffer(), 0, None));
    }
    Ok(s)
}

/// Storage on `wgpu:<ordinal>` holding `bytes` (whole elements of `dtype`).
pub fn upload(ordinal: usize, bytes: &[u8], dtype: DType) -> Result<WgpuStorage> {
    let ctx = context(ordinal)?;
    let len = bytes.len() / dtype.size_in_bytes();
    let s = WgpuStorage::new(ctx, dtype, len)?;
    if !bytes.is_empty() {
        // A queue write lands before the *next* submission, so submit the pending batch first:
        // it may still read this (recycled) buffer on behalf of its previous owner.
        ctx.flush();
        let whole = bytes.len() / 4 * 4;
        ctx.queue.write_buffer(s.buffer(), 0, &bytes[..whole]);
        if whole < bytes.len() {
            // wgpu writes whole 4-byte words: pad the tail.
            let mut tail = [0u8; 4];
            tail[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
            ctx.queue.write_buffer(s.buffer(), whole as u64, &tail);
        }
    }
    Ok(s)
}

impl WgpuStorage {
    pub(crate) fn new(ctx: &'static Context, dtype: DType, len: usize) -> Result<WgpuStorage> {
        let bytes = byte_len(len, dtype)?;
        let buffer = ctx.pool.get(&ctx.device, &ctx.limits, bytes)?;
        Ok(WgpuStorage { ctx, buffer: Some(buffer), len, dtype })
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device(&self) -> Device {
        self.ctx.device_id()
    }

    pub(crate) fn ctx(&self) -> &'static Context {
        self.ctx
    }

    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("a live storage holds its buffer")
    }

    /// Copies elements `start..start + dst.len() / size` into `dst`, waiting for every kernel
    /// recorded before.
    pub fn read_into(&self, start: usize, dst: &mut [u8]) -> Result<()> {
        self.read_bytes((start * self.dtype.size_in_bytes()) as u64, dst)
    }

    /// The 32-bit word at `word` of the buffer (a kernel's flag kept past the elements).
    pub(crate) fn read_word(&self, word: usize) -> Result<u32> {
        let mut w = [0u8; 4];
        self.read_bytes(word as u64 * 4, &mut w)?;
        Ok(u32::from_le_bytes(w))
    }

    /// Copies the buffer's bytes from `begin` into `dst`, waiting for every kernel recorded
    /// before: the one place the host waits on the device.
    fn read_bytes(&self, begin: u64, dst: &mut [u8]) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        let ctx = self.ctx;
        let end = begin + dst.len() as u64;
        if end > self.buffer().size() {
            return Err(Error::Runtime("wgpu: read past the end of a buffer".into()));
        }
        // Copies move whole, aligned 4-byte words.
        let (lo, hi) = (begin / 4 * 4, end.div_ceil(4) * 4);
        ctx.read_backs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ctx.read_back_bytes.fetch_add(dst.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let staging = ctx.readback.get(&ctx.device, &ctx.limits, hi - lo)?;
        ctx.record(|enc| enc.copy_buffer_to_buffer(self.buffer(), lo, &staging, 0, hi - lo));
        ctx.flush();
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, 0..hi - lo, move |r| {
            let _ = tx.send(r);
        });
        ctx.wait()?;
        let mapped = rx.recv().map_err(|_| Error::Runtime("wgpu: the read back was dropped".into()))?;
        let result = match mapped {
            Ok(()) => {
                {
                    let view = staging.get_mapped_range(0..hi - lo).map_err(|e| Error::Runtime(format!("wgpu: {e}")))?;
                    let skip = (begin - lo) as usize;
                    dst.copy_from_slice(&view[skip..skip + dst.len()]);
                }
                staging.unmap();
                Ok(())
            }
            Err(e) => Err(Error::Runtime(format!("wgpu: mapping a read back failed: {e}"))),
        };
        ctx.readback.put(staging);
        ctx.check()?;
        result
    }
}
