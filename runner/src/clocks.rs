//! The SM clock, read through NVML after every sample so that samples taken
//! while the GPU was throttled can be dropped and counted.

use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;

/// An NVML handle on device 0.
pub struct Clocks {
    nvml: Nvml,
}

impl Clocks {
    /// Opens NVML; `None` where it is not available (the figures then carry
    /// no clock and no sample is dropped).
    pub fn open() -> Option<Self> {
        let nvml = Nvml::init().ok()?;
        nvml.device_by_index(0).ok()?;
        Some(Clocks { nvml })
    }

    /// The current SM clock in MHz.
    pub fn sm_mhz(&self) -> Option<f64> {
        let device = self.nvml.device_by_index(0).ok()?;
        device.clock_info(Clock::SM).ok().map(f64::from)
    }

    /// The driver version string.
    pub fn driver_version(&self) -> Option<String> {
        self.nvml.sys_driver_version().ok()
    }
}
