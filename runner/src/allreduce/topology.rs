//! How the GPUs are connected, in nvidia-smi's words: `nvidia-smi topo -m`
//! (NV18 for 18 NVLinks, PIX/PXB/PHB/SYS for PCIe paths), stored verbatim.

/// nvidia-smi's topology matrix, or why there is none.
pub fn nvidia_smi_topo() -> Result<String, String> {
    let out = std::process::Command::new("nvidia-smi")
        .args(["topo", "-m"])
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "nvidia-smi is not on PATH".to_string(),
            _ => format!("running nvidia-smi topo -m: {e}"),
        })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "nvidia-smi topo -m failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
