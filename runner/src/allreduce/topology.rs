//! How the GPUs are connected, in nvidia-smi's words: `nvidia-smi topo -m`
//! (NV18 for 18 NVLinks, PIX/PXB/PHB/SYS for PCIe paths), stored verbatim.

/// Why there is no topology matrix; the report stores its text.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// nvidia-smi is not installed where `PATH` looks.
    #[error("nvidia-smi is not on PATH")]
    NotOnPath,
    /// It could not be started for another reason.
    #[error("running nvidia-smi topo -m: {0}")]
    NotStarted(std::io::Error),
    /// It ran and failed.
    #[error("nvidia-smi topo -m failed ({status}): {stderr}")]
    Failed {
        /// How it ended.
        status: std::process::ExitStatus,
        /// What it said, trimmed.
        stderr: String,
    },
}

/// nvidia-smi's topology matrix, or why there is none.
pub fn nvidia_smi_topo() -> Result<String, TopologyError> {
    let out = std::process::Command::new("nvidia-smi")
        .args(["topo", "-m"])
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TopologyError::NotOnPath,
            _ => TopologyError::NotStarted(e),
        })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(TopologyError::Failed {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}
