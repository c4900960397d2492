//! Facts about the GPU a measurement runs on: name, compute capability,
//! multiprocessors, L2 size, memory, the datasheet bandwidth peak, and the
//! driver, CUDA and NVRTC versions.

use crate::record::GpuFacts;
use cudarc::driver::{CudaContext, DriverError, sys};
use std::sync::Arc;

/// Datasheet peak memory bandwidth, GB/s, by the name the driver reports.
/// Sources: NVIDIA's product datasheets (SXM parts).
const DATASHEET_GBS: &[(&str, f64)] = &[
    ("NVIDIA H200", 4800.0),
    ("NVIDIA H100 80GB HBM3", 3350.0),
    ("NVIDIA A100-SXM4-80GB", 2039.0),
    ("NVIDIA A100-SXM4-40GB", 1555.0),
];

/// The device printf buffer. A kernel printing into a full buffer waits for
/// the host to drain it: on an H200, 2^16 lines took 1.2-1.5 s into a
/// 512 KiB buffer against 0.04-0.16 s into the driver's default 8 MiB, and
/// 2^20 lines into the default did not finish within 90 s
/// (bench/tuning/printf-probe). With 256 MiB the planted printf flood (a
/// line per element, edge sizes up to 1,000,003) measured in 16 s over its
/// eight processes. Large enough for a line per element of the edge sizes.
pub const PRINTF_FIFO_BYTES: usize = 256 << 20;

/// Opens device 0, sizes its printf buffer and reads its facts.
pub fn open() -> Result<(Arc<CudaContext>, GpuFacts), DriverError> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    // SAFETY: the context is current on this thread; no module is loaded yet.
    unsafe { sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE, PRINTF_FIFO_BYTES) }
        .result()?;
    let facts = facts(&ctx)?;
    Ok((ctx, facts))
}

/// How many GPUs this process sees (after `CUDA_VISIBLE_DEVICES`).
pub fn count() -> Result<usize, DriverError> {
    cudarc::driver::result::init()?;
    Ok(CudaContext::device_count()?.max(0) as usize)
}

/// Where the context's device sits on the PCI bus (`0000:06:00`): names
/// one physical GPU among identical ones, whatever its ordinal in this
/// process (a child on a lane of several GPUs sees its GPU as ordinal 0).
pub fn pci_location(ctx: &Arc<CudaContext>) -> Result<String, DriverError> {
    use sys::CUdevice_attribute as A;
    Ok(format!(
        "{:04x}:{:02x}:{:02x}",
        ctx.attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        ctx.attribute(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        ctx.attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
    ))
}

/// Whether the CUDA driver library can be loaded at all.
pub fn driver_present() -> bool {
    // SAFETY: only probes whether the shared library can be opened.
    unsafe { sys::is_culib_present() }
}

/// Reads the facts of the context's device.
pub fn facts(ctx: &Arc<CudaContext>) -> Result<GpuFacts, DriverError> {
    use sys::CUdevice_attribute as A;
    let name = ctx.name()?;
    let (major, minor) = ctx.compute_capability()?;
    let sm_count = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
    let l2_bytes = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64;
    let mem_clock_khz = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? as f64;
    let bus_bits = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)? as f64;
    let (peak_gbs, peak_source) = match DATASHEET_GBS.iter().find(|(n, _)| *n == name) {
        Some((_, gbs)) => (*gbs, "datasheet".to_string()),
        None => (
            2.0 * mem_clock_khz * 1e3 * bus_bits / 8.0 / 1e9,
            "memory clock x bus width (double data rate)".to_string(),
        ),
    };
    let mut version = 0;
    // SAFETY: the pointer is valid for a write.
    unsafe { sys::cuDriverGetVersion(&mut version) }.result()?;
    let cuda_driver_api = format!("{}.{}", version / 1000, (version % 1000) / 10);
    Ok(GpuFacts {
        name,
        compute_capability: format!("{major}.{minor}"),
        sm_count,
        l2_bytes,
        memory_bytes: ctx.total_mem()? as u64,
        peak_gbs,
        peak_source,
        driver: kernel_driver_version().unwrap_or_else(|| format!("CUDA {cuda_driver_api}")),
        cuda_driver_api,
        nvrtc: crate::compile::nvrtc_version().unwrap_or_else(|| "not found".into()),
        uuid: ctx.uuid().ok().map(|u| uuid_text(&u.bytes)),
    })
}

/// `GPU-8905907f-2deb-99f9-de3b-5b52277fc84d`, as nvidia-smi writes a
/// GPU's UUID, from its 16 bytes.
pub fn uuid_text(bytes: &[std::ffi::c_char; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{:02x}", *b as u8)).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The architecture to compile for: `sm_90` for compute capability 9.0.
pub fn arch_of(facts: &GpuFacts) -> String {
    format!("sm_{}", facts.compute_capability.replace('.', ""))
}

/// The kernel module's version string (`580.159.04`) on Linux.
fn kernel_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|w| {
            w.chars().filter(|c| *c == '.').count() >= 1
                && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    // The driver's 16 bytes read as nvidia-smi -L prints them.
    #[test]
    fn a_uuid_reads_as_nvidia_smi_prints_it() {
        let bytes: Vec<u8> = (0..16)
            .map(|i| {
                u8::from_str_radix(&"8905907f2deb99f9de3b5b52277fc84d"[2 * i..2 * i + 2], 16)
                    .unwrap()
            })
            .collect();
        let bytes: [std::ffi::c_char; 16] = std::array::from_fn(|i| bytes[i] as std::ffi::c_char);
        assert_eq!(
            super::uuid_text(&bytes),
            "GPU-8905907f-2deb-99f9-de3b-5b52277fc84d"
        );
    }
}
