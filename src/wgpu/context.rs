//! The adapters wgpu finds, and per adapter one lazily opened device with its queue, compiled
//! pipelines, buffer pools and pending batch of commands.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};

use super::batch::{Batch, Launch};
use super::buffer_pool::BufferPool;
use super::future::block_on;
use crate::backend::pool_stats::PoolStats;
// Also importable from here, as it was when it lived here.
use super::shader::Shader;

pub(crate) struct Context {
    pub ordinal: usize,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub limits: wgpu::Limits,
    pub f16: bool,
    /// Float64 arithmetic in shaders: `shader-f64` for the type, `shader-int64` for its bits.
    pub f64: bool,
    /// Tensor storage (STORAGE | COPY_SRC | COPY_DST).
    pub pool: BufferPool,
    /// Host-visible buffers that results are copied into to be read back (MAP_READ | COPY_DST).
    pub readback: BufferPool,
    /// Reads back to the host since the device opened, and their bytes.
    pub read_backs: AtomicU64,
    pub read_back_bytes: AtomicU64,
    /// Kernels recorded since the device opened.
    pub launches: AtomicU64,
    pub batch: Mutex<Batch>,
    layouts: Mutex<HashMap<&'static str, (wgpu::ShaderModule, wgpu::BindGroupLayout, wgpu::PipelineLayout)>>,
    pipelines: Mutex<HashMap<(&'static str, &'static str, u32), wgpu::ComputePipeline>>,
    /// The first validation or device error wgpu reported since the last check. wgpu's default
    /// handler panics; this one keeps the error for the next synchronisation point to raise.
    errors: Arc<Mutex<Option<String>>>,
}

struct Slot {
    adapter: wgpu::Adapter,
    info: wgpu::AdapterInfo,
    context: OnceLock<std::result::Result<Context, String>>,
}

/// Whether an adapter is a real GPU rather than one emulated on the CPU. wgpu reports Mesa's
/// lavapipe/llvmpipe and SwiftShader as `DeviceType::Cpu`; the names catch a driver that
/// reports another type for them.
fn is_real_gpu_adapter(t: wgpu::DeviceType, name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let emulated = ["llvmpipe", "lavapipe", "swiftshader", "basic render driver"].iter().any(|n| name.contains(n));
    t != wgpu::DeviceType::Cpu && !emulated
}

/// Discrete GPUs first, software rasterisers last: `wgpu:0` is the best device, and the real
/// GPUs are a prefix of the list, so `cuda:N` and `wgpu:N` are the same adapter.
fn rank(info: &wgpu::AdapterInfo) -> u8 {
    if !is_real_gpu_adapter(info.device_type, &info.name) {
        return 4;
    }
    match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

fn slots() -> &'static [Slot] {
    static SLOTS: OnceLock<Vec<Slot>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        // A backend that fails to load (no Vulkan loader) yields no adapters; a panic inside
        // wgpu must not take the process down either.
        std::panic::catch_unwind(|| {
            let desc =
                wgpu::InstanceDescriptor { backends: wgpu::Backends::PRIMARY, ..wgpu::InstanceDescriptor::new_without_display_handle() };
            // WGPU_BACKEND and the other WGPU_* variables still apply.
            let instance = wgpu::Instance::new(desc.with_env());
            let mut adapters: Vec<wgpu::Adapter> = block_on(instance.enumerate_adapters(wgpu::Backends::all()))
                .into_iter()
                .filter(|a| a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS))
                .collect();
            adapters.sort_by_key(|a| rank(&a.get_info()));
            adapters.into_iter().map(|adapter| Slot { info: adapter.get_info(), adapter, context: OnceLock::new() }).collect()
        })
        .unwrap_or_default()
    })
}

pub fn is_available() -> bool {
    context(0).is_ok()
}

pub fn device_count() -> usize {
    slots().len()
}

/// Whether adapter `ordinal` exists and is a real GPU (see `is_real_gpu_adapter`).
pub fn is_real_gpu(ordinal: usize) -> bool {
    slots().get(ordinal).is_some_and(|s| is_real_gpu_adapter(s.info.device_type, &s.info.name))
}

/// The adapter's name and driver, as `get_device_name` reports it.
pub fn adapter_name(ordinal: usize) -> Result<String> {
    let slot = slot(ordinal)?;
    let i = &slot.info;
    Ok(if i.driver_info.is_empty() { i.name.clone() } else { format!("{} ({})", i.name, i.driver_info) })
}

/// Whether the adapter offers float16 arithmetic in shaders (`shader-f16`).
pub fn supports_f16(ordinal: usize) -> Result<bool> {
    Ok(context(ordinal)?.f16)
}

/// Whether the adapter offers float64 arithmetic in shaders (`shader-f64` with `shader-int64`,
/// which the float64 kernels use to move a value's bits).
pub fn supports_f64(ordinal: usize) -> Result<bool> {
    Ok(context(ordinal)?.f64)
}

/// Whether `ordinal`'s device writes kernel timestamps for the profiler (`timing.rs`), opening it if need be.
pub fn supports_timestamps(ordinal: usize) -> Result<bool> {
    Ok(context(ordinal)?.device.features().contains(wgpu::Features::TIMESTAMP_QUERY))
}

/// Submits pending work and waits for the device to finish it.
pub fn synchronize(ordinal: usize) -> Result<()> {
    let ctx = context(ordinal)?;
    ctx.flush();
    ctx.wait()?;
    ctx.check()
}

pub fn pool_stats(ordinal: usize) -> Result<PoolStats> {
    let ctx = context(ordinal)?;
    let mut stats = ctx.pool.stats();
    stats.read_backs = ctx.read_backs.load(Ordering::Relaxed);
    stats.read_back_bytes = ctx.read_back_bytes.load(Ordering::Relaxed);
    stats.launches = ctx.launches.load(Ordering::Relaxed);
    Ok(stats)
}

/// Frees the pooled buffers no tensor uses (`torch.cuda.empty_cache`).
pub fn empty_cache(ordinal: usize) -> Result<()> {
    let ctx = context(ordinal)?;
    ctx.pool.clear();
    ctx.readback.clear();
    Ok(())
}

fn no_adapter() -> Error {
    Error::Runtime(
        "rstorch.wgpu: no GPU adapter found: wgpu saw no Vulkan, Metal or DX12 device. On Linux without a GPU, Mesa's software Vulkan driver (lavapipe: apt-get install mesa-vulkan-drivers) provides one.".into(),
    )
}

fn slot(ordinal: usize) -> Result<&'static Slot> {
    let all = slots();
    if all.is_empty() {
        return Err(no_adapter());
    }
    all.get(ordinal)
        .ok_or_else(|| Error::Runtime(format!("Invalid device ordinal wgpu:{ordinal}: {} wgpu adapter(s) available", all.len())))
}

/// The opened device `wgpu:<ordinal>`, opening it on first use.
pub(crate) fn context(ordinal: usize) -> Result<&'static Context> {
    let slot = slot(ordinal)?;
    slot.context
        .get_or_init(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Context::open(&slot.adapter, ordinal)))
                .unwrap_or_else(|_| Err("opening the device panicked inside wgpu".into()))
        })
        .as_ref()
        .map_err(|e| Error::Runtime(format!("rstorch.wgpu: could not open {} ({}): {e}", slot.info.name, slot.info.backend)))
}

impl Context {
    fn open(adapter: &wgpu::Adapter, ordinal: usize) -> std::result::Result<Context, String> {
        let f16 = adapter.features().contains(wgpu::Features::SHADER_F16);
        let f64_features = wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64;
        // RSTORCH_WGPU_NO_F64 opens the device as if the adapter had no float64 shaders (to
        // see, and test, what such a device does).
        let f64 = adapter.features().contains(f64_features) && std::env::var_os("RSTORCH_WGPU_NO_F64").is_none();
        let mut features = wgpu::Features::empty();
        if f16 {
            features |= wgpu::Features::SHADER_F16;
        }
        if f64 {
            features |= f64_features;
        }
        // Kernel times for the profiler (src/wgpu/timing.rs), where the adapter has them.
        features |= adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        // Everything the adapter allows: big tensors need its largest buffers and bindings.
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("rstorch"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = block_on(adapter.request_device(&desc)).map_err(|e| e.to_string())?;
        let errors: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| e.to_string());
        }));
        let lost = errors.clone();
        device.set_device_lost_callback(move |reason, msg| {
            let mut slot = lost.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| format!("device lost ({reason:?}): {msg}"));
        });
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let readback = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        let batch = Batch::new(&device, &queue, &limits);
        Ok(Context {
            ordinal,
            pool: BufferPool::new(storage, "rstorch tensor"),
            readback: BufferPool::new(readback, "rstorch readback"),
            read_backs: AtomicU64::new(0),
            read_back_bytes: AtomicU64::new(0),
            launches: AtomicU64::new(0),
            batch: Mutex::new(batch),
            layouts: Mutex::new(HashMap::new()),
            pipelines: Mutex::new(HashMap::new()),
            errors,
            device,
            queue,
            limits,
            f16,
            f64,
        })
    }

    pub fn device_id(&self) -> crate::Device {
        crate::Device::Wgpu(self.ordinal)
    }

    /// The error for float64 work on a device without float64 shaders, naming what it lacks.
    pub fn require_f64(&self, op: &str) -> Result<()> {
        if self.f64 {
            return Ok(());
        }
        Err(Error::NotImplemented(format!(
            "Could not run '{op}' on float64 tensors on {}: the adapter lacks the wgpu features SHADER_F64 and SHADER_INT64 (Vulkan shaderFloat64 and shaderInt64) that float64 kernels need. Move the tensors to the CPU with .cpu(), or use float32.",
            self.device_id()
        )))
    }

    /// Raises (once) the error wgpu reported since the last check.
    pub fn check(&self) -> Result<()> {
        match self.errors.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(Error::Runtime(format!("wgpu error on {}: {e}", self.device_id()))),
            None => Ok(()),
        }
    }

    /// Blocks until the queue is idle.
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Runtime(format!("wgpu error on {}: {e}", self.device_id())))
    }

    fn layout(&self, shader: &'static Shader) -> (wgpu::ShaderModule, wgpu::BindGroupLayout, wgpu::PipelineLayout) {
        let mut layouts = self.layouts.lock().unwrap_or_else(|p| p.into_inner());
        layouts
            .entry(shader.name)
            .or_insert_with(|| {
                let desc =
                    wgpu::ShaderModuleDescriptor { label: Some(shader.name), source: wgpu::ShaderSource::Wgsl(shader.source.into()) };
                let module = if shader.trusted {
                    // SAFETY: a `trusted` shader indexes its arrays and buffers within bounds by
                    // construction and its loops end (see `Shader::trusted`).
                    unsafe { self.device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
                } else {
                    self.device.create_shader_module(desc)
                };
                let buffer = |binding: u32, ty: wgpu::BufferBindingType| wgpu::BindGroupLayoutEntry {
                    binding,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
                    count: None,
                };
                let mut entries = vec![buffer(0, wgpu::BufferBindingType::Uniform)];
                for (i, &written) in shader.storage.iter().enumerate() {
                    entries.push(buffer(i as u32 + 1, wgpu::BufferBindingType::Storage { read_only: !written }));
                }
                let group =
                    self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(shader.name), entries: &entries });
                let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(shader.name),
                    bind_group_layouts: &[Some(&group)],
                    immediate_size: 0,
                });
                (module, group, layout)
            })
            .clone()
    }

    /// The pipeline of `entry` in `shader` with its `OP` override set to `op` (compiled once).
    pub fn pipeline(
        &self,
        shader: &'static Shader,
        entry: &'static str,
        op: Option<u32>,
    ) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
        let (module, group, layout) = self.layout(shader);
        let key = (shader.name, entry, op.unwrap_or(u32::MAX));
        let mut pipelines = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        let pipeline = pipelines
            .entry(key)
            .or_insert_with(|| {
                let constants: Vec<(&str, f64)> = op.map(|o| ("OP", o as f64)).into_iter().collect();
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() },
                    cache: None,
                })
            })
            .clone();
        (pipeline, group)
    }

    fn lock_batch(&self) -> std::sync::MutexGuard<'_, Batch> {
        self.batch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a kernel into the pending batch.
    pub fn launch(&self, l: Launch<'_>) -> Result<()> {
        let (pipeline, group_layout) = self.pipeline(l.shader, l.entry, l.op);
        self.lock_batch().launch(&self.device, &self.queue, &pipeline, &group_layout, &l);
        self.launches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Records a non-kernel command (a buffer copy or clear) into the pending batch.
    pub fn record(&self, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
        self.lock_batch().record(&self.device, f);
    }

    /// Submits the pending batch, if any.
    pub fn flush(&self) {
        self.lock_batch().submit(&self.device, &self.queue);
    }
}

#[cfg(test)]
mod tests {
    use super::is_real_gpu_adapter;
    use wgpu::DeviceType;

    #[test]
    fn only_real_gpus_count_as_cuda() {
        assert!(is_real_gpu_adapter(DeviceType::DiscreteGpu, "NVIDIA H100"));
        assert!(is_real_gpu_adapter(DeviceType::IntegratedGpu, "Apple M2"));
        assert!(is_real_gpu_adapter(DeviceType::VirtualGpu, "virtio-gpu"));
        assert!(!is_real_gpu_adapter(DeviceType::Cpu, "llvmpipe (LLVM 15.0.7, 256 bits)"));
        assert!(!is_real_gpu_adapter(DeviceType::Cpu, "anything on the CPU"));
        // Emulators are not GPUs whatever type their driver reports.
        assert!(!is_real_gpu_adapter(DeviceType::Other, "llvmpipe (LLVM 15.0.7, 256 bits)"));
        assert!(!is_real_gpu_adapter(DeviceType::IntegratedGpu, "SwiftShader Device (Subzero)"));
        assert!(!is_real_gpu_adapter(DeviceType::Other, "Microsoft Basic Render Driver"));
    }
}
