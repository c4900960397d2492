//! All-reduce across GPUs, the parts that need no GPU: the message sizes
//! of a sweep ([`sizes`]), every rank's input and the float64 reference
//! ([`inputs`]), the tolerance of an f32 sum over k ranks ([`tolerance`])
//! and the check it drives ([`check`]), how the ranks split a message
//! between them ([`chunks`]), the all-reduces a sweep runs
//! ([`implementations`]), nccl-tests' bandwidths ([`bandwidth`]), the
//! pure parts of the timing method ([`timing`]), where NCCL's library is
//! looked for ([`nccl_library`]), the key of the kernels' sources a report
//! was measured with ([`kernels`]) and the versioned JSON report
//! ([`report`]). `cuda-runner allreduce` does the GPU work with them.

pub mod bandwidth;
pub mod check;
pub mod chunks;
pub mod implementations;
pub mod inputs;
pub mod kernels;
pub mod nccl_library;
pub mod report;
pub mod sizes;
pub mod timing;
pub mod tolerance;

/// The environment every process of a multi-GPU run carries: NVLink
/// multicast stays off (NCCL's NVLS algorithms, PyTorch's symmetric
/// memory, NVSHMEM), since on the machines this book is measured on a
/// program creating multicast objects can take the host's shared GPUs out
/// of service (../shared/briefs/multigpu.md). The runner sets these before
/// NCCL initialises; children inherit them.
pub const MULTICAST_OFF: &[(&str, &str)] = &[
    ("NCCL_NVLS_ENABLE", "0"),
    ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
    ("NVSHMEM_DISABLE_NVLS", "1"),
];

/// The most ranks the kernels' pointer tables hold (`MAX_RANKS` in
/// kernels/allreduce/*.cu).
pub const MAX_RANKS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    // NCCL's NVLink SHARP (multicast) must be switched off by the very
    // variable NCCL reads; a typo here would leave it on.
    #[test]
    fn multicast_off_names_nccls_own_switch() {
        assert!(MULTICAST_OFF.contains(&("NCCL_NVLS_ENABLE", "0")));
        assert!(MULTICAST_OFF.contains(&("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")));
        assert!(MULTICAST_OFF.contains(&("NVSHMEM_DISABLE_NVLS", "1")));
    }
}
