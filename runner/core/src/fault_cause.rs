//! Why a run faulted or a launch was refused, in words that name the
//! cause and the fix. The driver reports a device-side `__trap()` as
//! `CUDA_ERROR_LAUNCH_FAILED` ("unspecified launch failure"), a failed
//! `assert` as `CUDA_ERROR_ASSERT`, a stack overflow of a recursive kernel
//! as `CUDA_ERROR_ILLEGAL_ADDRESS` or `CUDA_ERROR_LAUNCH_FAILED` (or
//! `CUDA_ERROR_HARDWARE_STACK_ERROR`), and a kernel whose local memory
//! does not fit as "invalid argument" or "out of memory": none of these
//! names the cause. What the runner knows of the kernels (their local
//! memory per thread, and from their PTX whether they recurse, trap or
//! assert: [`crate::ptx_calls`]) and the stack each thread has turn the
//! driver's error into a likely cause. The runner (`fault_cause.rs` there)
//! reads the error code and the stack limit; the words are here, without
//! a GPU.

use crate::limits::{DEFAULT_STACK_BYTES, KernelNeeds, MAX_LOCAL_BYTES_PER_THREAD, size_text};
use std::collections::BTreeMap;

/// The driver's error codes whose cause the kernels' code can explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverCode {
    /// `CUDA_ERROR_LAUNCH_FAILED`, "unspecified launch failure" (a trap).
    LaunchFailed,
    /// `CUDA_ERROR_ASSERT`, "device-side assert triggered".
    Assert,
    /// `CUDA_ERROR_ILLEGAL_ADDRESS`, "an illegal memory access".
    IllegalAddress,
    /// `CUDA_ERROR_HARDWARE_STACK_ERROR`.
    HardwareStack,
    /// `CUDA_ERROR_INVALID_VALUE`, "invalid argument".
    InvalidValue,
    /// `CUDA_ERROR_OUT_OF_MEMORY`.
    OutOfMemory,
    /// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`, "too many resources requested".
    OutOfResources,
    /// Any other code.
    Other,
}

impl DriverCode {
    /// The code the driver names `name` (`CUDA_ERROR_ASSERT`, as the
    /// runner's driver bindings print it).
    pub fn from_name(name: &str) -> Self {
        match name {
            "CUDA_ERROR_LAUNCH_FAILED" => DriverCode::LaunchFailed,
            "CUDA_ERROR_ASSERT" => DriverCode::Assert,
            "CUDA_ERROR_ILLEGAL_ADDRESS" => DriverCode::IllegalAddress,
            "CUDA_ERROR_HARDWARE_STACK_ERROR" => DriverCode::HardwareStack,
            "CUDA_ERROR_INVALID_VALUE" => DriverCode::InvalidValue,
            "CUDA_ERROR_OUT_OF_MEMORY" => DriverCode::OutOfMemory,
            "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" => DriverCode::OutOfResources,
            _ => DriverCode::Other,
        }
    }
}

/// The stack each thread has, as the runner read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stack {
    /// Bytes per thread.
    pub bytes: u32,
    /// Whether the runner could not read the limit (after a fault the
    /// context refuses every call) and this is the driver's default.
    pub assumed: bool,
}

impl Stack {
    /// The driver's default, [`DEFAULT_STACK_BYTES`], not read.
    pub fn assumed_default() -> Self {
        Stack {
            bytes: DEFAULT_STACK_BYTES,
            assumed: true,
        }
    }
}

/// The likely cause of a fault (an error raised while the kernels ran or
/// at the next synchronisation) and its fix, or `None` when the kernels'
/// code explains nothing (an out-of-bounds access is the driver's own
/// "illegal memory access").
pub fn fault_cause(
    code: DriverCode,
    kernels: &BTreeMap<String, KernelNeeds>,
    stack: Stack,
) -> Option<String> {
    let named = |pick: fn(&KernelNeeds) -> bool| {
        let names: Vec<String> = kernels
            .iter()
            .filter(|(_, n)| pick(n))
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        (!names.is_empty()).then(|| names.join(", "))
    };
    let trapping = named(|n| n.code.traps);
    let recursing = named(|n| n.code.recurses);
    let asserting = named(|n| n.code.asserts);
    let mut causes = Vec::new();
    match code {
        DriverCode::Assert => causes.push(assert_failed(asserting.as_deref())),
        DriverCode::LaunchFailed => {
            if let Some(k) = &trapping {
                causes.push(trapped(k));
            }
            if let Some(k) = &recursing {
                causes.push(overflowed(k, stack, true));
            }
        }
        DriverCode::IllegalAddress => {
            if let Some(k) = &recursing {
                causes.push(overflowed(k, stack, true));
            }
        }
        DriverCode::HardwareStack => causes.push(match &recursing {
            Some(k) => overflowed(k, stack, false),
            None => "stack overflow: a thread ran past its stack (CUDA_ERROR_HARDWARE_STACK_ERROR): look for deep call chains or large per-thread arrays in the kernel".to_string(),
        }),
        _ => {}
    }
    (!causes.is_empty()).then(|| causes.join("; or "))
}

/// The likely cause of a launch the driver refused and its fix, or `None`
/// when the kernels' needs explain nothing.
pub fn refusal_cause(code: DriverCode, kernels: &BTreeMap<String, KernelNeeds>) -> Option<String> {
    let (name, needs) = kernels.iter().max_by_key(|(_, n)| n.local_bytes)?;
    let local = size_text(u64::from(needs.local_bytes));
    match code {
        DriverCode::InvalidValue | DriverCode::OutOfResources | DriverCode::OutOfMemory
            if needs.local_bytes > MAX_LOCAL_BYTES_PER_THREAD =>
        {
            Some(format!(
                "kernel `{name}` needs {local} of local memory per thread; the device holds at most {} per thread: shrink the kernel's per-thread arrays (keep large data in global or shared memory)",
                size_text(u64::from(MAX_LOCAL_BYTES_PER_THREAD))
            ))
        }
        DriverCode::OutOfMemory if needs.local_bytes > 0 => Some(format!(
            "kernel `{name}` needs {local} of local memory per thread, which the driver reserves for every thread the GPU can hold at once (threads per SM x SMs), and the device's free memory does not hold that: shrink the kernel's per-thread arrays (keep large data in global or shared memory)"
        )),
        _ => None,
    }
}

fn assert_failed(kernels: Option<&str>) -> String {
    let which = kernels.map_or(String::new(), |k| format!(" in {k}"));
    format!(
        "a device-side `assert`{which} failed: the device prints the assertion, its file and line, and the block and thread that failed it to the log; make the asserted condition hold (or correct the assertion if it is wrong)"
    )
}

fn trapped(kernels: &str) -> String {
    format!(
        "the kernel executed `__trap()` ({kernels} can reach a trap, and the driver reports a trap only as \"unspecified launch failure\"): a thread met the condition that guards it; print the values that condition tests (printf before the trap) to see which, and fix the code, or the condition if it is wrong"
    )
}

fn overflowed(kernels: &str, stack: Stack, likely: bool) -> String {
    let limit = size_text(u64::from(stack.bytes));
    let whose = if stack.assumed {
        "CU_LIMIT_STACK_SIZE, the driver's default, which the runner keeps"
    } else {
        "CU_LIMIT_STACK_SIZE"
    };
    let (lead, tail) = if likely {
        (
            "likely a stack overflow",
            " (an out-of-bounds access reads the same: if the kernel does not recurse deeply, look there)",
        )
    } else {
        ("stack overflow", "")
    };
    format!(
        "{lead}: kernel {kernels} recurses (a cycle in its call graph, so ptxas cannot bound its stack: \"Stack size ... cannot be statically determined\") and ran past the {limit} stack each thread has ({whose}); remove the recursion (a loop over an explicit stack in an array) or bound its depth so that depth x frame fits, or raise the limit with cuCtxSetLimit(CU_LIMIT_STACK_SIZE, bytes) in a program of your own{tail}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx_calls::KernelCode;

    fn kernels(code: KernelCode, local_bytes: u32) -> BTreeMap<String, KernelNeeds> {
        let needs = KernelNeeds {
            registers: 32,
            local_bytes,
            code,
            ..KernelNeeds::default()
        };
        [
            ("k".to_string(), needs),
            ("plain".to_string(), KernelNeeds::default()),
        ]
        .into()
    }

    fn code(recurses: bool, traps: bool, asserts: bool) -> KernelCode {
        KernelCode {
            recurses,
            traps,
            asserts,
        }
    }

    // The driver's names map to their codes; an unknown one is Other.
    #[test]
    fn driver_names_map_to_codes() {
        assert_eq!(
            DriverCode::from_name("CUDA_ERROR_ASSERT"),
            DriverCode::Assert
        );
        assert_eq!(
            DriverCode::from_name("CUDA_ERROR_LAUNCH_FAILED"),
            DriverCode::LaunchFailed
        );
        assert_eq!(
            DriverCode::from_name("CUDA_ERROR_ILLEGAL_ADDRESS"),
            DriverCode::IllegalAddress
        );
        assert_eq!(
            DriverCode::from_name("CUDA_ERROR_NOT_READY"),
            DriverCode::Other
        );
    }

    // An "unspecified launch failure" of a kernel that can trap is named a
    // trap, with the kernel and the fix.
    #[test]
    fn a_trap_is_named_with_its_kernel_and_fix() {
        let c = fault_cause(
            DriverCode::LaunchFailed,
            &kernels(code(false, true, false), 0),
            Stack::assumed_default(),
        )
        .unwrap();
        assert!(
            c.starts_with("the kernel executed `__trap()` (`k` can reach a trap"),
            "{c}"
        );
        assert!(c.contains("\"unspecified launch failure\""), "{c}");
        assert!(c.contains("printf before the trap"), "{c}");
        assert!(!c.contains("stack"), "{c}");
    }

    // CUDA_ERROR_ASSERT is a failed assert, pointing at the device's own
    // line in the log.
    #[test]
    fn a_failed_assert_is_named_with_its_kernel_and_fix() {
        let c = fault_cause(
            DriverCode::Assert,
            &kernels(code(false, false, true), 0),
            Stack::assumed_default(),
        )
        .unwrap();
        assert!(c.starts_with("a device-side `assert` in `k` failed"), "{c}");
        assert!(c.contains("to the log"), "{c}");
        assert!(c.contains("make the asserted condition hold"), "{c}");
    }

    // An illegal address in a recursive kernel is likely a stack
    // overflow: the kernel, ptxas's note, the 1 KiB default stack and both
    // fixes are named, and an out-of-bounds access is left open.
    #[test]
    fn an_overflow_names_the_recursion_the_stack_and_the_fixes() {
        let c = fault_cause(
            DriverCode::IllegalAddress,
            &kernels(code(true, false, false), 0),
            Stack::assumed_default(),
        )
        .unwrap();
        assert!(
            c.starts_with("likely a stack overflow: kernel `k` recurses"),
            "{c}"
        );
        assert!(c.contains("cannot be statically determined"), "{c}");
        assert!(c.contains("ran past the 1 KiB stack each thread has (CU_LIMIT_STACK_SIZE, the driver's default, which the runner keeps)"), "{c}");
        assert!(c.contains("remove the recursion"), "{c}");
        assert!(
            c.contains("cuCtxSetLimit(CU_LIMIT_STACK_SIZE, bytes)"),
            "{c}"
        );
        assert!(c.contains("out-of-bounds access"), "{c}");
    }

    // A stack read from the driver is named as read (8 KiB), without
    // "default"; the hardware's own stack error is certain.
    #[test]
    fn a_stack_read_from_the_driver_is_named_as_read() {
        let read = Stack {
            bytes: 8192,
            assumed: false,
        };
        let c = fault_cause(
            DriverCode::HardwareStack,
            &kernels(code(true, false, false), 0),
            read,
        )
        .unwrap();
        assert!(c.starts_with("stack overflow: kernel `k`"), "{c}");
        assert!(
            c.contains("the 8 KiB stack each thread has (CU_LIMIT_STACK_SIZE);"),
            "{c}"
        );
        assert!(!c.contains("out-of-bounds"), "{c}");
    }

    // A launch failure of a kernel that both traps and recurses names both.
    #[test]
    fn a_launch_failure_with_two_causes_names_both() {
        let c = fault_cause(
            DriverCode::LaunchFailed,
            &kernels(code(true, true, false), 0),
            Stack::assumed_default(),
        )
        .unwrap();
        assert!(
            c.contains("`__trap()`") && c.contains("; or likely a stack overflow"),
            "{c}"
        );
    }

    // A plain kernel's illegal address (an out-of-bounds write) gets no
    // invented cause: the driver's own words stand.
    #[test]
    fn a_plain_fault_gets_no_cause() {
        for code in [
            DriverCode::IllegalAddress,
            DriverCode::LaunchFailed,
            DriverCode::Other,
        ] {
            assert_eq!(
                fault_cause(
                    code,
                    &kernels(KernelCode::default(), 0),
                    Stack::assumed_default()
                ),
                None
            );
        }
    }

    // A refusal of a kernel with too much local memory names its size and
    // the device's limit; an out-of-memory refusal of a kernel with local
    // memory names the reservation for every resident thread; a refusal
    // of a kernel without local memory gets no cause.
    #[test]
    fn refusals_for_local_memory_are_named() {
        let c = refusal_cause(
            DriverCode::InvalidValue,
            &kernels(KernelCode::default(), 1 << 20),
        )
        .unwrap();
        assert_eq!(
            c,
            "kernel `k` needs 1 MiB of local memory per thread; the device holds at most 512 KiB per thread: shrink the kernel's per-thread arrays (keep large data in global or shared memory)"
        );
        let c = refusal_cause(
            DriverCode::OutOfMemory,
            &kernels(KernelCode::default(), 256 << 10),
        )
        .unwrap();
        assert!(
            c.starts_with("kernel `k` needs 256 KiB of local memory per thread, which the driver reserves for every thread the GPU can hold at once"),
            "{c}"
        );
        assert_eq!(
            refusal_cause(DriverCode::InvalidValue, &kernels(KernelCode::default(), 0)),
            None
        );
    }
}
