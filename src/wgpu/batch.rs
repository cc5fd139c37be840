//! Batched submission: kernels are recorded into one pending command encoder and submitted
//! together when the batch fills up or the host needs a result (a read back, an upload,
//! `synchronize`). Each kernel's parameters go into one uniform arena per batch, written with
//! a single `write_buffer` just before the batch is submitted.

use super::shader::Shader;
use super::timing::Timer;

/// Kernels per batch before it is submitted anyway (bounds latency and the arena's size).
const MAX_KERNELS: usize = 256;

pub(crate) struct Batch {
    encoder: Option<wgpu::CommandEncoder>,
    /// This batch's kernel parameters, one aligned slot each; copied to `arena` at submission.
    params: Vec<u8>,
    arena: wgpu::Buffer,
    /// Slot alignment: the device's minimum uniform-binding offset alignment.
    align: usize,
    kernels: usize,
    /// Kernel timestamps for the profiler, where the device has timestamp queries.
    timer: Option<Timer>,
}

impl Batch {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, limits: &wgpu::Limits) -> Batch {
        let align = (limits.min_uniform_buffer_offset_alignment as usize).max(16);
        let size = (MAX_KERNELS * align.max(256)) as u64;
        let arena = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("rstorch kernel parameters"),
            size,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let timer = Timer::new(device, queue, MAX_KERNELS);
        Batch { encoder: None, params: Vec::new(), arena, align, kernels: 0, timer }
    }

    fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.encoder.get_or_insert_with(|| new_encoder(device))
    }

    /// Records one kernel of `l` with its compiled `pipeline` and bind-group layout, submitting
    /// the batch first when it is full.
    pub fn launch(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pipeline: &wgpu::ComputePipeline,
        group_layout: &wgpu::BindGroupLayout,
        l: &Launch<'_>,
    ) {
        if self.kernels >= MAX_KERNELS {
            self.submit(device, queue);
        }
        let offset = self.params.len();
        let size = l.params.len().div_ceil(16) * 16;
        self.params.extend_from_slice(l.params);
        let slot = size.div_ceil(self.align) * self.align;
        self.params.resize(offset + slot, 0);
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.arena,
                offset: offset as u64,
                size: wgpu::BufferSize::new(size as u64),
            }),
        }];
        for (i, buf) in l.buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry { binding: i as u32 + 1, resource: buf.as_entire_binding() });
        }
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(l.entry), layout: group_layout, entries: &entries });
        {
            let enc = self.encoder.get_or_insert_with(|| new_encoder(device));
            let timestamp_writes = self.timer.as_mut().and_then(|t| t.writes(l.entry, l.shader.name));
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(l.entry), timestamp_writes });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(l.groups[0], l.groups[1], l.groups[2]);
        }
        self.kernels += 1;
    }

    /// Records a non-kernel command (a buffer copy or clear).
    pub fn record(&mut self, device: &wgpu::Device, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
        f(self.encoder(device));
    }

    /// Submits the batch, if it holds anything.
    pub fn submit(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) {
        if let Some(mut enc) = self.encoder.take() {
            if !self.params.is_empty() {
                // Queue writes land before the command buffers of the next submission, which
                // is exactly this batch.
                queue.write_buffer(&self.arena, 0, &self.params);
            }
            if let Some(t) = &self.timer {
                t.resolve(&mut enc);
            }
            queue.submit([enc.finish()]);
            if let Some(t) = &mut self.timer {
                t.collect(device, std::time::Instant::now());
            }
        }
        self.params.clear();
        self.kernels = 0;
    }
}

fn new_encoder(device: &wgpu::Device) -> wgpu::CommandEncoder {
    device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("rstorch batch") })
}

/// One kernel launch: a pipeline, its parameters, its storage buffers in binding order and the
/// workgroup grid.
pub(crate) struct Launch<'a> {
    pub shader: &'static Shader,
    pub entry: &'static str,
    pub op: Option<u32>,
    pub params: &'a [u8],
    pub buffers: &'a [&'a wgpu::Buffer],
    pub groups: [u32; 3],
}

/// The grid for `n` workgroups: x up to the 65535 limit, the rest in y (shaders flatten it back).
pub(crate) fn grid(n: u32, max: u32) -> [u32; 3] {
    if n <= max {
        [n.max(1), 1, 1]
    } else {
        [max, n.div_ceil(max), 1]
    }
}
