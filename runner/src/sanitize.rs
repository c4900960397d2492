//! Runs an example once under NVIDIA's compute-sanitizer
//! (`cuda-runner launch-once` as the program) and reads what the check
//! found into a [`crate::sanitizer::Report`].

use crate::dims::Dims;
use crate::example::Example;
use crate::sanitizer::{self, Report};
use crate::size::Size;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// The report of `check` on `example` (from the kernel file `path`) at
/// size `n`, with the sanitizer at `tool`.
pub fn run(example: &Example, path: &Path, n: Dims, check: &str, tool: &Path) -> Result<Report> {
    if !sanitizer::CHECKS.contains(&check) {
        bail!(
            "`{check}` is not a compute-sanitizer check the runner runs; use one of {}",
            sanitizer::CHECKS.join(", ")
        );
    }
    let version = Command::new(tool)
        .arg("--version")
        .output()
        .with_context(|| {
            format!(
                "running {} --version: is compute-sanitizer installed?",
                tool.display()
            )
        })?;
    let version = crate::profile::tool_version(
        "compute-sanitizer",
        &String::from_utf8_lossy(&version.stdout),
    );
    let out = Command::new(tool)
        .args(["--tool", check])
        .arg(std::env::current_exe()?)
        .arg("launch-once")
        .arg(path)
        .arg("--size")
        .arg(n.to_string())
        .output()
        .with_context(|| format!("running {}", tool.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let gpu = stdout
        .lines()
        .find_map(|l| l.strip_prefix(crate::execute::GPU_LINE))
        .map(|g| g.trim().to_string())
        .with_context(|| {
            format!(
                "the run under {} did not finish (no GPU line); its output:\n{text}",
                tool.display()
            )
        })?;
    let (findings, summary, errors, warnings) = sanitizer::parse(&text);
    Ok(Report {
        schema: sanitizer::SCHEMA_VERSION,
        example: example.id.clone(),
        key: crate::key::example_key(example),
        n: Size(n.n_value()),
        dims: (!n.is_flat()).then_some(n),
        check: check.to_string(),
        tool: version,
        gpu,
        made_at: crate::record::now_rfc3339(),
        findings,
        summary,
        errors,
        warnings,
    })
}
