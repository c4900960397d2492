//! The SM clock, read through NVML after every sample so that samples taken
//! while the GPU was throttled can be dropped and counted.

use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;

/// An NVML handle on one GPU.
pub struct Clocks {
    nvml: Nvml,
    /// The GPU's UUID; device 0 when not known. NVML numbers GPUs without
    /// regard to CUDA_VISIBLE_DEVICES, so a process shown only GPU 1 (a
    /// lane of a session on several GPUs) must name its GPU by UUID.
    uuid: Option<String>,
}

impl Clocks {
    /// Opens NVML on the GPU with `uuid` (device 0 without one); `None`
    /// where it is not available (the figures then carry no clock and no
    /// sample is dropped).
    pub fn open(uuid: Option<&str>) -> Option<Self> {
        let clocks = Clocks {
            nvml: Nvml::init().ok()?,
            uuid: uuid.map(str::to_string),
        };
        clocks.device()?;
        Some(clocks)
    }

    fn device(&self) -> Option<nvml_wrapper::Device<'_>> {
        match &self.uuid {
            Some(uuid) => self.nvml.device_by_uuid(uuid.as_str()).ok(),
            None => self.nvml.device_by_index(0).ok(),
        }
    }

    /// The current SM clock in MHz.
    pub fn sm_mhz(&self) -> Option<f64> {
        self.device()?.clock_info(Clock::SM).ok().map(f64::from)
    }

    /// The driver version string.
    pub fn driver_version(&self) -> Option<String> {
        self.nvml.sys_driver_version().ok()
    }
}
