//! A failed run's or refused launch's message with its likely cause: the
//! driver's error code and the stack limit read here, the kernels' needs
//! and code (local memory, recursion, `__trap()`, `assert`) as loaded, the
//! words from [`cuda_measured_core::fault_cause`].

use crate::limits::KernelNeeds;
use cuda_measured_core::fault_cause::{self, DriverCode, Stack};
use cuda_measured_core::ptx_calls::KernelCode;
use cudarc::driver::{DriverError, sys};
use std::collections::BTreeMap;

/// `needs` of kernel `name` with what its code does, from the PTX of its
/// compilation ([`crate::compile::Compiled::code`]).
pub fn with_code(
    needs: KernelNeeds,
    code: &BTreeMap<String, KernelCode>,
    name: &str,
) -> KernelNeeds {
    KernelNeeds {
        code: code.get(name).copied().unwrap_or_default(),
        ..needs
    }
}

/// What to say of a fault `err` of a run of `kernels`: the likely cause
/// and its fix followed by the driver's words, or the driver's words
/// alone (`the kernel faulted: ...`).
pub fn fault(err: &DriverError, kernels: &BTreeMap<String, KernelNeeds>) -> String {
    match fault_cause::fault_cause(code(err), kernels, stack()) {
        Some(cause) => format!("{cause} (the driver: {err})"),
        None => format!("the kernel faulted: {err}"),
    }
}

/// What to say of a launch of `kernels` the driver refused with `err`.
pub fn refusal(err: &DriverError, kernels: &BTreeMap<String, KernelNeeds>) -> String {
    match fault_cause::refusal_cause(code(err), kernels) {
        Some(cause) => format!("launch refused: {cause} (the driver: {err})"),
        None => format!("launch refused: {err}"),
    }
}

fn code(err: &DriverError) -> DriverCode {
    DriverCode::from_name(&format!("{:?}", err.0))
}

/// The stack each thread of the current context has, or the driver's
/// default when the context no longer answers (it refuses every call
/// after most faults).
fn stack() -> Stack {
    let mut bytes = 0usize;
    // SAFETY: writes one usize; the context of the failed run is current
    // on this thread (every driver call of the run bound it).
    let read = unsafe { sys::cuCtxGetLimit(&mut bytes, sys::CUlimit::CU_LIMIT_STACK_SIZE) };
    match (read, u32::try_from(bytes)) {
        (sys::cudaError_enum::CUDA_SUCCESS, Ok(bytes)) if bytes > 0 => Stack {
            bytes,
            assumed: false,
        },
        _ => Stack::assumed_default(),
    }
}
