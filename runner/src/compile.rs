//! NVRTC compilation of an example for one GPU architecture, straight to a
//! cubin (machine code for that architecture, no PTX JIT at load time).
//! `#line` markers in the source make the compiler's messages name the
//! author's file and line. The same program's PTX gives the kernels it
//! defines and their parameters ([`crate::ptx`]), which the book checks
//! against the declaration without a GPU.

use crate::example::Example;
use crate::ptx::{self, Entry};
use cudarc::nvrtc::sys;
use std::ffi::{CStr, CString, c_char, c_int};

pub use cuda_measured_core::compile_options::BASE_OPTIONS;

/// A successful compilation.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Compiled {
    /// The cubin image.
    pub cubin: Vec<u8>,
    /// The compiler log (warnings), possibly empty.
    pub log: String,
    /// `sm_90`, ...
    pub arch: String,
    /// The kernels the program defines, with their parameters, from its
    /// PTX.
    pub entries: Vec<Entry>,
    /// What each kernel's code does that can explain a fault (recursion,
    /// `__trap()`, `assert`), from its PTX, by kernel name.
    pub code: std::collections::BTreeMap<String, cuda_measured_core::ptx_calls::KernelCode>,
}

/// Why a compilation failed.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// NVRTC is not installed where the loader looks.
    #[error(
        "NVRTC (libnvrtc.so) was not found: install CUDA 13 or `pip install nvidia-cuda-nvrtc==13.0.88` and add its nvidia/cu13/lib to LD_LIBRARY_PATH"
    )]
    NoNvrtc,
    /// The source does not compile.
    #[error("{first_error}")]
    Source {
        /// The first `error` line of the log.
        first_error: String,
        /// The whole log.
        log: String,
    },
    /// NVRTC failed for another reason.
    #[error("NVRTC failed: {0}")]
    Nvrtc(String),
}

/// The NVRTC version, `"13.0"`, or `None` without NVRTC.
pub fn nvrtc_version() -> Option<String> {
    if !nvrtc_present() {
        return None;
    }
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: both pointers are valid for writes.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    (r == sys::nvrtcResult::NVRTC_SUCCESS).then(|| format!("{major}.{minor}"))
}

fn nvrtc_present() -> bool {
    // SAFETY: only probes whether the shared library can be opened.
    unsafe { sys::is_culib_present() }
}

/// Compiles `example` for `arch` (e.g. `sm_90`).
pub fn compile(example: &Example, arch: &str) -> Result<Compiled, CompileError> {
    compile_source(
        &example.source,
        &example.origin.file,
        example.compile_options(),
        arch,
    )
}

/// Compiles a source text named `file` with `options` for `arch`.
pub fn compile_source(
    source: &str,
    file: &str,
    mut options: Vec<String>,
    arch: &str,
) -> Result<Compiled, CompileError> {
    if !nvrtc_present() {
        return Err(CompileError::NoNvrtc);
    }
    let src = CString::new(source)
        .map_err(|_| CompileError::Nvrtc("the source contains a NUL byte".into()))?;
    let name = CString::new(file).unwrap_or_else(|_| c"example.cu".into());
    options.push(format!("--gpu-architecture={arch}"));
    let c_options: Vec<CString> = options
        .iter()
        .map(|o| CString::new(o.as_str()).unwrap_or_default())
        .collect();
    let option_ptrs: Vec<*const c_char> = c_options.iter().map(|c| c.as_ptr()).collect();

    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: all pointers are valid NUL-terminated strings living across
    // the calls; the program is destroyed on every path below.
    unsafe {
        check(sys::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        ))?;
        let compiled =
            sys::nvrtcCompileProgram(prog, option_ptrs.len() as c_int, option_ptrs.as_ptr());
        let log = program_log(prog);
        let result = if compiled == sys::nvrtcResult::NVRTC_SUCCESS {
            cubin(prog).and_then(|cubin| {
                let ptx = ptx_text(prog)?;
                Ok(Compiled {
                    cubin,
                    log,
                    arch: arch.to_string(),
                    entries: ptx::entries(&ptx),
                    code: cuda_measured_core::ptx_calls::kernel_code(&ptx),
                })
            })
        } else {
            Err(CompileError::Source {
                first_error: cuda_measured_core::compile_hint::summary(&first_error(&log), &log),
                log,
            })
        };
        sys::nvrtcDestroyProgram(&mut prog);
        result
    }
}

unsafe fn program_log(prog: sys::nvrtcProgram) -> String {
    let mut size = 0usize;
    // SAFETY: prog is a live program (caller's contract).
    if unsafe { sys::nvrtcGetProgramLogSize(prog, &mut size) } != sys::nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: buf holds `size` bytes.
    unsafe { sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr().cast()) };
    CStr::from_bytes_until_nul(&buf)
        .map(|s| s.to_string_lossy().trim().to_string())
        .unwrap_or_default()
}

unsafe fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, CompileError> {
    let mut size = 0usize;
    // SAFETY: prog is a live, compiled program (caller's contract).
    check(unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) })?;
    let mut buf = vec![0u8; size];
    // SAFETY: buf holds `size` bytes.
    check(unsafe { sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast()) })?;
    Ok(buf)
}

unsafe fn ptx_text(prog: sys::nvrtcProgram) -> Result<String, CompileError> {
    let mut size = 0usize;
    // SAFETY: prog is a live, compiled program (caller's contract).
    check(unsafe { sys::nvrtcGetPTXSize(prog, &mut size) })?;
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: buf holds `size` bytes.
    check(unsafe { sys::nvrtcGetPTX(prog, buf.as_mut_ptr().cast()) })?;
    Ok(CStr::from_bytes_until_nul(&buf)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default())
}

fn check(r: sys::nvrtcResult) -> Result<(), CompileError> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(CompileError::Nvrtc(format!("{r:?}")))
    }
}

/// The first line of a log that reports an error, or the log's first line.
pub fn first_error(log: &str) -> String {
    log.lines()
        .find(|l| l.contains("error"))
        .or_else(|| log.lines().next())
        .unwrap_or("compilation failed with an empty log")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The summary line is the compiler's first error, with its file and line.
    #[test]
    fn first_error_is_picked_from_the_log() {
        let log = "kernels/a.cu(3): warning: unused\nkernels/a.cu(7): error: identifier \"x\" is undefined\n1 error detected";
        assert_eq!(
            first_error(log),
            "kernels/a.cu(7): error: identifier \"x\" is undefined"
        );
    }
}
