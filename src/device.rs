//! Devices a tensor can live on, PyTorch's device strings, and the same-device rule of ops.

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
    /// A wgpu adapter, by its position in `rstorch.wgpu`'s adapter list.
    Wgpu(usize),
}

impl Device {
    /// Parses PyTorch-style device strings: `"cpu"`, `"cpu:0"`, `"wgpu"` (adapter 0), `"wgpu:N"`,
    /// and `"cuda"` / `"cuda:N"`, PyTorch's name for the GPU, which is wgpu's adapter N (the real
    /// GPUs come first in wgpu's list). Whether the device exists is checked when a tensor is put
    /// on it, as PyTorch does.
    pub fn parse(s: &str) -> Result<Device> {
        Ok(DeviceSpec::parse(s)?.resolve())
    }

    pub fn type_name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Wgpu(_) => "wgpu",
        }
    }

    /// The ordinal PyTorch reports in `tensor.device.index` (None for the CPU).
    pub fn index(self) -> Option<usize> {
        match self {
            Device::Cpu => None,
            Device::Wgpu(i) => Some(i),
        }
    }

    pub fn is_cpu(self) -> bool {
        self == Device::Cpu
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Wgpu(i) => write!(f, "wgpu:{i}"),
        }
    }
}

/// A device as written by the user: `rstorch.device("wgpu")` has no index (it means the current
/// adapter, 0) and is not equal to `rstorch.device("wgpu:0")`, as in PyTorch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceSpec {
    pub kind: DeviceKind,
    pub index: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    Cpu,
    Wgpu,
    /// PyTorch's `cuda`: the wgpu adapter of the same ordinal, when it is a real GPU (as
    /// PyTorch's ROCm build names AMD GPUs `cuda`). The binding checks that it is one.
    Cuda,
}

impl DeviceSpec {
    pub fn parse(s: &str) -> Result<DeviceSpec> {
        let (kind, index) = match s.split_once(':') {
            Some((k, i)) => (k, Some(i)),
            None => (s, None),
        };
        let kind = match kind {
            "cpu" => DeviceKind::Cpu,
            "wgpu" => DeviceKind::Wgpu,
            "cuda" => DeviceKind::Cuda,
            "mps" | "xpu" => {
                return Err(Error::Runtime(format!(
                    "device '{s}' is not available: rstorch's backends are 'cpu' and 'wgpu' (the GPU through Vulkan, Metal or DX12)"
                )))
            }
            _ => return Err(Error::Runtime(format!("Expected one of cpu, cuda, wgpu device type at start of device string: {s}"))),
        };
        let index = match index {
            None => None,
            // PyTorch accepts only plain decimal digits after the colon.
            Some(i) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => {
                Some(i.parse::<usize>().map_err(|_| Error::Runtime(format!("Invalid device string: '{s}'")))?)
            }
            Some(_) => return Err(Error::Runtime(format!("Invalid device string: '{s}'"))),
        };
        if kind == DeviceKind::Cpu && index.is_some_and(|i| i != 0) {
            return Err(Error::Runtime(format!("CPU device index must be -1 or zero, got {}", index.unwrap_or(0))));
        }
        Ok(DeviceSpec { kind, index })
    }

    /// The device tensors are put on (an unindexed `wgpu` or `cuda` is adapter 0).
    pub fn resolve(self) -> Device {
        match self.kind {
            DeviceKind::Cpu => Device::Cpu,
            DeviceKind::Wgpu | DeviceKind::Cuda => Device::Wgpu(self.index.unwrap_or(0)),
        }
    }

    /// The spec a tensor on `device` reports (`tensor.device`): always indexed for accelerators.
    pub fn of(device: Device) -> DeviceSpec {
        match device {
            Device::Cpu => DeviceSpec { kind: DeviceKind::Cpu, index: None },
            Device::Wgpu(i) => DeviceSpec { kind: DeviceKind::Wgpu, index: Some(i) },
        }
    }

    pub fn type_name(self) -> &'static str {
        match self.kind {
            DeviceKind::Cuda => "cuda",
            _ => self.resolve().type_name(),
        }
    }
}

impl std::fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}:{i}", self.type_name()),
            None => f.write_str(self.type_name()),
        }
    }
}

/// The device an op over `tensors` runs on, or PyTorch's error when they disagree. Zero-dim CPU
/// tensors are scalars that may join tensors of any device (as in PyTorch's TensorIterator);
/// ops that take no such scalars (matmul) pass `allow_cpu_scalars = false`.
pub fn common_device(tensors: &[&crate::Tensor], allow_cpu_scalars: bool) -> Result<Device> {
    let mut found: Option<Device> = None;
    for t in tensors {
        let d = t.device();
        if allow_cpu_scalars && d == Device::Cpu && t.ndim() == 0 {
            continue;
        }
        match found {
            None => found = Some(d),
            Some(f) if f != d => return Err(mixed_devices(f, d)),
            Some(_) => {}
        }
    }
    Ok(found.unwrap_or(Device::Cpu))
}

/// PyTorch's wording for operands on two devices.
pub fn mixed_devices(a: Device, b: Device) -> Error {
    Error::Runtime(format!("Expected all tensors to be on the same device, but found at least two devices, {a} and {b}!"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_device_strings() {
        assert_eq!(Device::parse("cpu").unwrap(), Device::Cpu);
        assert_eq!(Device::parse("cpu:0").unwrap(), Device::Cpu);
        assert_eq!(Device::parse("wgpu").unwrap(), Device::Wgpu(0));
        assert_eq!(Device::parse("wgpu:1").unwrap(), Device::Wgpu(1));
        assert_eq!(DeviceSpec::parse("wgpu").unwrap().index, None);
        assert_eq!(DeviceSpec::parse("wgpu:0").unwrap().index, Some(0));
        for bad in ["wgpu:", "wgpu:x", "wgpu:-1", "gpu", "cpu:1", "wgpu:0:1"] {
            assert!(Device::parse(bad).is_err(), "{bad}");
        }
        // `cuda` names wgpu's adapters; a spec keeps the name the user wrote.
        assert_eq!(Device::parse("cuda").unwrap(), Device::Wgpu(0));
        assert_eq!(Device::parse("cuda:1").unwrap(), Device::Wgpu(1));
        assert_eq!(DeviceSpec::parse("cuda").unwrap().to_string(), "cuda");
        assert_eq!(DeviceSpec::parse("cuda:2").unwrap().to_string(), "cuda:2");
        assert!(DeviceSpec::parse("cuda:x").is_err());
        assert!(Device::parse("mps").unwrap_err().to_string().contains("'wgpu'"));
        assert_eq!(Device::Wgpu(0).to_string(), "wgpu:0");
    }
}
