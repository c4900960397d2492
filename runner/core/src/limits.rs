//! Launches the GPU would refuse, caught before launch. The driver answers
//! a block of 2048 threads, a grid past its limit, too much shared memory
//! or a block whose registers do not fit with a bare "invalid argument" or
//! "too many resources requested"; here each becomes a sentence with the
//! value asked for, the device's limit, and the header line to change.
//! The runner checks against the limits the driver reports; without a GPU
//! the book checks against a [`KnownGpu`] of [`KNOWN_GPUS`]
//! ([`crate::plan_check`]).

use crate::example::Example;
use crate::header_lines::HeaderError;
use crate::launch_plan::ResolvedPlan;
use crate::ptx_calls::KernelCode;
use std::collections::BTreeMap;

/// Dynamic shared memory a block gets without the opt-in attribute.
pub const DEFAULT_SHARED_BYTES: u32 = 48 * 1024;

/// Local memory one thread may have (its stack frame: per-thread arrays
/// and register spills), the same on every compute capability from 2.0 on
/// (CUDA C++ Programming Guide, "Technical Specifications per Compute
/// Capability"); the driver answers a launch of a kernel that needs more
/// with a bare "invalid argument", so it is refused before launch here.
pub const MAX_LOCAL_BYTES_PER_THREAD: u32 = 512 * 1024;

/// The stack each thread gets unless a program raises it with
/// `cuCtxSetLimit(CU_LIMIT_STACK_SIZE, ...)`, which the runner never does:
/// what a recursive kernel, whose stack ptxas cannot bound, runs in.
pub const DEFAULT_STACK_BYTES: u32 = 1024;

/// `1 MiB`, `512 KiB`, `1 KiB`, `1536 B`: a size in the largest binary
/// unit that divides it, for messages.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

/// What the device allows one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceLimits {
    /// The device's name, for messages.
    pub name: String,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Blocks in the x dimension of a grid.
    pub max_grid_x: u32,
    /// Shared memory per block with the opt-in attribute set, bytes.
    pub max_shared_optin: u32,
    /// 32-bit registers available to one block.
    pub registers_per_block: u32,
}

/// A GPU whose limits are known without one, as the driver reports them
/// (`cudaDeviceProp`): the book's plans are resolved with its SM count and
/// held to its limits before anything is compiled or launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownGpu {
    /// The name the driver reports.
    pub name: &'static str,
    /// Streaming multiprocessors (`sms` in expressions).
    pub sm_count: u32,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Blocks in the x dimension of a grid.
    pub max_grid_x: u32,
    /// Shared memory per block with the opt-in attribute set, bytes.
    pub max_shared_optin: u32,
    /// 32-bit registers available to one block.
    pub registers_per_block: u32,
}

/// GPUs whose limits the static checks know, the book's target (the GPU
/// its results are measured on) first.
pub const KNOWN_GPUS: &[KnownGpu] = &[
    KnownGpu {
        name: "NVIDIA H200",
        sm_count: 132,
        max_threads_per_block: 1024,
        max_grid_x: i32::MAX as u32,
        max_shared_optin: 232_448,
        registers_per_block: 65_536,
    },
    KnownGpu {
        name: "NVIDIA H100 80GB HBM3",
        sm_count: 132,
        max_threads_per_block: 1024,
        max_grid_x: i32::MAX as u32,
        max_shared_optin: 232_448,
        registers_per_block: 65_536,
    },
    KnownGpu {
        name: "NVIDIA H100 PCIe",
        sm_count: 114,
        max_threads_per_block: 1024,
        max_grid_x: i32::MAX as u32,
        max_shared_optin: 232_448,
        registers_per_block: 65_536,
    },
    KnownGpu {
        name: "NVIDIA A100-SXM4-80GB",
        sm_count: 108,
        max_threads_per_block: 1024,
        max_grid_x: i32::MAX as u32,
        max_shared_optin: 166_912,
        registers_per_block: 65_536,
    },
    KnownGpu {
        name: "NVIDIA L40S",
        sm_count: 142,
        max_threads_per_block: 1024,
        max_grid_x: i32::MAX as u32,
        max_shared_optin: 101_376,
        registers_per_block: 65_536,
    },
];

impl KnownGpu {
    /// The GPU the book targets: the first of [`KNOWN_GPUS`].
    pub fn target() -> &'static KnownGpu {
        &KNOWN_GPUS[0]
    }

    /// The known GPU the driver calls `name`.
    pub fn named(name: &str) -> Option<&'static KnownGpu> {
        KNOWN_GPUS.iter().find(|g| g.name == name)
    }

    /// Its launch limits.
    pub fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            name: self.name.to_string(),
            max_threads_per_block: self.max_threads_per_block,
            max_grid_x: self.max_grid_x,
            max_shared_optin: self.max_shared_optin,
            registers_per_block: self.registers_per_block,
        }
    }
}

/// What the compiled kernel itself needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelNeeds {
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory (`__shared__` arrays), bytes.
    pub static_shared: u32,
    /// The largest block this kernel can be launched with (registers and
    /// `__launch_bounds__` taken into account).
    pub max_threads_per_block: u32,
    /// Local memory per thread (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`: its
    /// stack frame, per-thread arrays and spills), bytes.
    pub local_bytes: u32,
    /// What its code can do that explains a fault (recursion, `__trap()`,
    /// `assert`), from its PTX.
    pub code: KernelCode,
}

/// Checks every launch of `plan` against the device and the kernels'
/// needs; the error says what was asked, what is allowed, and where to
/// change it.
pub fn check(
    plan: &ResolvedPlan,
    device: &DeviceLimits,
    kernels: &BTreeMap<String, KernelNeeds>,
    example: &Example,
) -> Result<(), HeaderError> {
    for (i, l) in plan.launches.iter().enumerate() {
        let at = |field: &str| example.header_place(i, field);
        let which = format!("launch {i} (`{}`)", l.kernel);
        if l.block > device.max_threads_per_block {
            return Err(format!(
                "{which} asks for blocks of {} threads; {} allows at most {} threads per block: lower `block` at {}",
                l.block,
                device.name,
                device.max_threads_per_block,
                at("block")
            ).into());
        }
        if l.grid > device.max_grid_x {
            return Err(format!(
                "{which} asks for a grid of {} blocks; {} allows at most {} blocks in x: lower `grid` at {} (a grid-stride loop lets fewer blocks cover any n)",
                l.grid,
                device.name,
                device.max_grid_x,
                at("grid")
            ).into());
        }
        let needs = kernels.get(&l.kernel).copied().unwrap_or_default();
        if needs.local_bytes > MAX_LOCAL_BYTES_PER_THREAD {
            return Err(format!(
                "{which}: kernel `{}` needs {} of local memory per thread (its stack frame: per-thread arrays and register spills); {} holds at most {} per thread, so the driver would refuse the launch with \"invalid argument\": shrink the kernel's per-thread arrays (keep large data in global or shared memory); the launch is declared at {}",
                l.kernel,
                size_text(u64::from(needs.local_bytes)),
                device.name,
                size_text(u64::from(MAX_LOCAL_BYTES_PER_THREAD)),
                at("kernel")
            ).into());
        }
        let shared = u64::from(l.shared) + u64::from(needs.static_shared);
        if shared > u64::from(device.max_shared_optin) {
            return Err(format!(
                "{which} asks for {} B of dynamic shared memory{}; {} allows at most {} B ({} KiB) per block, and more than {} KiB only with the opt-in attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, which the runner sets for such launches: lower `shared` at {}",
                l.shared,
                if needs.static_shared > 0 {
                    format!(
                        " on top of {} B of static __shared__ arrays",
                        needs.static_shared
                    )
                } else {
                    String::new()
                },
                device.name,
                device.max_shared_optin,
                device.max_shared_optin / 1024,
                DEFAULT_SHARED_BYTES / 1024,
                at("shared")
            ).into());
        }
        let registers_fit = u64::from(needs.registers) * u64::from(l.block)
            <= u64::from(device.registers_per_block);
        if needs.max_threads_per_block > 0 && l.block > needs.max_threads_per_block && registers_fit
        {
            return Err(format!(
                "{which} asks for blocks of {} threads, but the kernel's `__launch_bounds__` caps it at {} threads per block: lower `block` at {}, or raise the kernel's `__launch_bounds__`",
                l.block,
                needs.max_threads_per_block,
                at("block")
            ).into());
        }
        if needs.max_threads_per_block > 0 && l.block > needs.max_threads_per_block {
            return Err(format!(
                "{which} asks for blocks of {} threads, but the kernel uses {} registers per thread and {} holds {} registers per block, so this kernel runs at most {} threads per block: lower `block` at {}, or cap registers with `__launch_bounds__({})` on the kernel",
                l.block,
                needs.registers,
                device.name,
                device.registers_per_block,
                needs.max_threads_per_block,
                at("block"),
                l.block
            ).into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch_plan::Launch;

    const BODY: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"a\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 2048\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

    fn example() -> Example {
        let dir = std::env::temp_dir();
        Example::from_inline(&dir, "src/ch.md", &dir, BODY, 10, "demo").unwrap()
    }

    fn plan(block: u32, grid: u32, shared: u32) -> ResolvedPlan {
        let launch = |kernel: &str, block| Launch {
            kernel: kernel.into(),
            grid,
            block,
            shared,
            args: vec![],
            setup: false,
        };
        ResolvedPlan {
            launches: vec![launch("a", 32), launch("k", block)],
            scratch: BTreeMap::new(),
            bytes: None,
            scalars: BTreeMap::new(),
            instance: crate::problem::Instance {
                shape: crate::problem::Shape::flat(1),
                dtype: crate::problem::Elem::F32,
            },
        }
    }

    fn needs(registers: u32, max_threads: u32) -> BTreeMap<String, KernelNeeds> {
        let k = KernelNeeds {
            registers,
            static_shared: 1024,
            max_threads_per_block: max_threads,
            ..KernelNeeds::default()
        };
        [("a".to_string(), k), ("k".to_string(), k)].into()
    }

    fn refusal(plan: &ResolvedPlan, needs: &BTreeMap<String, KernelNeeds>) -> String {
        check(plan, &KnownGpu::target().limits(), needs, &example())
            .unwrap_err()
            .to_string()
    }

    // A plan within every limit passes.
    #[test]
    fn a_plan_within_limits_passes() {
        let ok = check(
            &plan(1024, 1 << 20, 4096),
            &KnownGpu::target().limits(),
            &needs(32, 1024),
            &example(),
        );
        assert_eq!(ok, Ok(()));
    }

    // Too many threads names the value, the limit and the header line.
    #[test]
    fn too_many_threads_names_value_limit_and_line() {
        let e = refusal(&plan(2048, 1, 0), &needs(32, 1024));
        assert_eq!(
            e,
            "launch 1 (`k`) asks for blocks of 2048 threads; NVIDIA H200 allows at most 1024 threads per block: lower `block` at src/ch.md:21"
        );
    }

    // Shared memory beyond the opt-in limit names the attribute and the
    // line of the launch table (shared is not written, so its default).
    #[test]
    fn too_much_shared_memory_names_the_opt_in() {
        let e = refusal(&plan(32, 1, 240 * 1024), &needs(32, 1024));
        assert!(e.starts_with("launch 0 (`a`) asks for 245760 B of dynamic shared memory on top of 1024 B of static __shared__ arrays; NVIDIA H200 allows at most 232448 B (227 KiB) per block"), "{e}");
        assert!(
            e.contains("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"),
            "{e}"
        );
        assert!(e.ends_with("lower `shared` at src/ch.md:13"), "{e}");
    }

    // A kernel whose `__launch_bounds__` (not its registers) caps the block
    // is told so: 32 registers x 1024 threads fit in 65536.
    #[test]
    fn launch_bounds_caps_are_not_blamed_on_registers() {
        let e = refusal(&plan(1024, 1, 0), &needs(32, 256));
        assert!(
            e.contains("the kernel's `__launch_bounds__` caps it at 256 threads per block"),
            "{e}"
        );
        assert!(!e.contains("registers"), "{e}");
    }

    // A kernel with more local memory per thread than the device holds
    // (a 1 MiB array) is refused before launch with its size, the limit,
    // the fix and the header line of the launch; 512 KiB exactly passes.
    #[test]
    fn too_much_local_memory_is_refused_before_launch() {
        let mut kernels = needs(32, 1024);
        kernels.get_mut("k").unwrap().local_bytes = MAX_LOCAL_BYTES_PER_THREAD;
        let fits = check(
            &plan(32, 1, 0),
            &KnownGpu::target().limits(),
            &kernels,
            &example(),
        );
        assert_eq!(fits, Ok(()));
        kernels.get_mut("k").unwrap().local_bytes = 1 << 20;
        let e = refusal(&plan(32, 1, 0), &kernels);
        assert_eq!(
            e,
            "launch 1 (`k`): kernel `k` needs 1 MiB of local memory per thread (its stack frame: per-thread arrays and register spills); NVIDIA H200 holds at most 512 KiB per thread, so the driver would refuse the launch with \"invalid argument\": shrink the kernel's per-thread arrays (keep large data in global or shared memory); the launch is declared at src/ch.md:19"
        );
    }

    // A grid past 2^31 - 1 blocks is refused.
    #[test]
    fn too_large_a_grid_is_refused() {
        let e = refusal(&plan(32, u32::MAX, 0), &needs(32, 1024));
        assert!(
            e.contains("a grid of 4294967295 blocks") && e.contains("at most 2147483647"),
            "{e}"
        );
    }

    // Registers that do not fit the block: the register count, the
    // per-kernel block limit and __launch_bounds__ as the other fix.
    #[test]
    fn registers_that_do_not_fit_are_explained() {
        let e = refusal(&plan(1024, 1, 0), &needs(128, 512));
        assert!(e.starts_with("launch 1 (`k`) asks for blocks of 1024 threads, but the kernel uses 128 registers per thread"), "{e}");
        assert!(
            e.contains("at most 512 threads per block: lower `block` at src/ch.md:21"),
            "{e}"
        );
        assert!(
            e.ends_with("`__launch_bounds__(1024)` on the kernel"),
            "{e}"
        );
    }
}
