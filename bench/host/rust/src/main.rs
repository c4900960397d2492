//! The host side of a sum kernel in Rust, with cudarc:
//!
//! ```text
//! host-sum KERNEL_FILE KERNEL N GRID BLOCK SHARED_BYTES
//! ```
//!
//! It compiles the kernel file the page shows with NVRTC, fills N floats in
//! [0, 1), launches KERNEL(x, out, n) once with the given grid, block and
//! dynamic shared memory, and compares the float sum with a double sum on
//! the CPU.

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};
use rand::{Rng, SeedableRng};
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, kernel, n, grid, block, shared] = args.as_slice() else {
        return Err("usage: host-sum KERNEL_FILE KERNEL N GRID BLOCK SHARED_BYTES".into());
    };
    let (n, grid, block, shared): (u32, u32, u32, u32) =
        (n.parse()?, grid.parse()?, block.parse()?, shared.parse()?);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let folder = std::path::Path::new(path)
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let ptx = compile_ptx_with_opts(
        std::fs::read_to_string(path)?,
        CompileOptions {
            options: vec!["-std=c++17".into()],
            include_paths: vec![folder.display().to_string()],
            arch: Some("compute_90"),
            ..Default::default()
        },
    )?;
    let module = ctx.load_module(ptx)?;
    let sum_kernel = module.load_function(kernel)?;

    let mut rng = rand_pcg::Pcg64::seed_from_u64(2026);
    let x_host: Vec<f32> = (0..n).map(|_| rng.random::<f32>()).collect();
    let expected: f64 = x_host.iter().map(|&v| f64::from(v)).sum();

    let x = stream.clone_htod(&x_host)?;
    let mut out = stream.alloc_zeros::<f32>(1)?; // kernels that add into out start from 0
    let config = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared,
    };
    let mut launch = stream.launch_builder(&sum_kernel);
    launch.arg(&x).arg(&mut out).arg(&n);
    // SAFETY: the kernel takes (const float*, float*, unsigned int) and
    // reads n floats of x; out holds one float.
    unsafe { launch.launch(config) }?;
    let got = f64::from(stream.clone_dtoh(&out)?[0]);

    // The book's tolerance for a float sum (values in [0, 1), so relative
    // to the sum itself): 4 sqrt(n) units of roundoff, u = 2^-24.
    let rel = (got - expected).abs() / expected;
    let tol = 4.0 * f64::from(n).sqrt() * f64::from(f32::EPSILON) / 2.0;
    let verdict = if rel <= tol { "right" } else { "WRONG" };
    println!(
        "sum {got:.6}, double sum on the CPU {expected:.6}, relative error {rel:.2e} (tolerance {tol:.2e}): {verdict}"
    );
    if rel > tol {
        std::process::exit(1);
    }
    Ok(())
}
