//! Which backend serves a device: the one place that names the backends' types, above them
//! and the trait they implement, so that nothing below it reaches back up.

use crate::backend::Backend;
use crate::device::Device;

/// The backend serving `device`.
pub fn of(device: Device) -> &'static dyn Backend {
    match device {
        Device::Cpu => &crate::cpu::Cpu,
        Device::Wgpu(_) => &crate::wgpu::Wgpu,
    }
}

/// The GPU backend (wgpu), for what concerns the devices rather than one tensor.
pub fn gpu() -> &'static dyn Backend {
    &crate::wgpu::Wgpu
}
