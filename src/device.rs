//! Devices a tensor can live on.

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
}

impl Device {
    /// Parses PyTorch's device strings (`"cpu"`, `"cpu:0"`).
    pub fn parse(s: &str) -> Result<Device> {
        let (kind, index) = match s.split_once(':') {
            Some((k, i)) => (k, Some(i)),
            None => (s, None),
        };
        match kind {
            "cpu" if index.is_none_or(|i| i == "0") => Ok(Device::Cpu),
            "wgpu" | "cuda" | "mps" => Err(Error::Runtime(format!(
                "device '{s}' is not available: this build of rstorch has only the CPU backend"
            ))),
            _ => Err(Error::Runtime(format!(
                "Expected one of cpu, wgpu device type at start of device string: {s}"
            ))),
        }
    }

    pub fn type_name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
        }
    }
}
