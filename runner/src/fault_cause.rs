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

#[cfg(test)]
mod tests {
    use super::*;
    use sys::cudaError_enum as E;

    // The driver bindings print each code under the name core maps, so a
    // trap, an assert, a stack error and the refusals reach their words
    // (formatting the error itself needs the driver library, absent here).
    #[test]
    fn the_bindings_names_reach_their_codes() {
        for (e, code) in [
            (E::CUDA_ERROR_LAUNCH_FAILED, DriverCode::LaunchFailed),
            (E::CUDA_ERROR_ASSERT, DriverCode::Assert),
            (E::CUDA_ERROR_ILLEGAL_ADDRESS, DriverCode::IllegalAddress),
            (
                E::CUDA_ERROR_HARDWARE_STACK_ERROR,
                DriverCode::HardwareStack,
            ),
            (E::CUDA_ERROR_INVALID_VALUE, DriverCode::InvalidValue),
            (E::CUDA_ERROR_OUT_OF_MEMORY, DriverCode::OutOfMemory),
            (
                E::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                DriverCode::OutOfResources,
            ),
            (E::CUDA_ERROR_MISALIGNED_ADDRESS, DriverCode::Other),
        ] {
            assert_eq!(super::code(&DriverError(e)), code, "{e:?}");
        }
    }
}
