//! Makes an example's SASS listing ([`crate::sass`]): compiles it with
//! NVRTC as the runner does (no GPU needed), and reads the cubin with
//! `cuobjdump -res-usage` and `nvdisasm -c --print-line-info-inline`
//! (which, unlike `--print-line-info`, says where inlined code was called
//! from), naming each instruction's file as the example's `#line` markers
//! do.

use crate::example::Example;
use crate::sass::{self, Listing};
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// The listing of `example` compiled for `arch`, the disassemblers taken
/// from `tools` (a folder) or else from PATH.
pub fn make(example: &Example, arch: &str, tools: Option<&Path>) -> Result<Listing> {
    if let Some(sweep) = &example.declaration.sweep {
        bail!(
            "{}",
            cuda_measured_core::sweep::not_taken_yet(&example.id, sweep, "a SASS listing")
        );
    }
    let compiled = crate::compile::compile(example, arch)
        .map_err(|e| anyhow::anyhow!("{}: does not compile: {e}", example.id))?;
    let dir = tempfile::tempdir()?;
    let cubin = dir.path().join("kernel.cubin");
    std::fs::write(&cubin, &compiled.cubin)?;
    let tool = |name: &str| tools.map_or_else(|| name.into(), |d| d.join(name));
    let resources = run(Command::new(tool("cuobjdump"))
        .arg("-res-usage")
        .arg(&cubin))?;
    let code = run(Command::new(tool("nvdisasm"))
        .args(["-c", "--print-line-info-inline"])
        .arg(&cubin))?;
    let version = run(Command::new(tool("nvdisasm")).arg("--version"))?;
    let mut kernels = sass::join(
        sass::parse_res_usage(&resources),
        sass::parse_nvdisasm(&code),
    );
    sass::name_files(&mut kernels, &crate::sass_counts::files(&example.source));
    if kernels.is_empty() {
        bail!(
            "{}: the disassembler found no kernel in the cubin",
            example.id
        );
    }
    Ok(Listing {
        schema: sass::SCHEMA_VERSION,
        example: example.id.clone(),
        key: crate::key::example_key(example),
        arch: arch.to_string(),
        nvrtc: crate::compile::nvrtc_version().unwrap_or_else(|| "unknown".into()),
        tool: tool_version(&version),
        made_at: crate::record::now_rfc3339(),
        kernels,
    })
}

/// `nvdisasm 13.5.37` from `--version` output (`... release 13.5, V13.5.37`).
fn tool_version(text: &str) -> String {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('V'))
        .map_or_else(|| "nvdisasm".into(), |v| format!("nvdisasm {v}"))
}

fn run(command: &mut Command) -> Result<String> {
    let out = command
        .output()
        .with_context(|| format!("running {:?}: are cuobjdump and nvdisasm installed (scripts/sass installs them from PyPI)?", command.get_program()))?;
    if !out.status.success() {
        bail!(
            "{:?} failed: {}",
            command.get_program(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    // The version is the V-number of the tool's last line.
    #[test]
    fn the_tool_version_is_read_off_its_banner() {
        let banner = "nvdisasm: NVIDIA (R) CUDA disassembler\nCopyright (c) 2005-2026 NVIDIA Corporation\nBuilt on Tue_Oct_13\nCuda compilation tools, release 13.5, V13.5.37\nBuild cuda_13.5.r13.5/compiler.36000000_0";
        assert_eq!(super::tool_version(banner), "nvdisasm 13.5.37");
    }
}
