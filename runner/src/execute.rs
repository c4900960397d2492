//! Runs one example in this process: compile, load, bind the problem's
//! buffers to kernel arguments, check at edge sizes and declared sizes,
//! time the declared sizes, and build the record. This runs inside the
//! child process that [`crate::isolate`] starts.

use crate::binding::{self, Binding};
use crate::declaration::ScratchInit;
use crate::device;
use crate::example::Example;
use crate::fault_cause;
use crate::figures;
use crate::launch_plan::ScratchBuffer;
use crate::launch_plan::{self, Launch, ResolvedPlan};
use crate::limits::{self, DeviceLimits, KernelNeeds};
use crate::measure::{self, Ceilings, RunError, SharedPoison, Timer};
use crate::pool::Measured;
use crate::problem::{
    self, Bound, BufferRole, Data, Elem, HostData, OutputInit, Problem, Reports, Scalar, Shape,
    cache::SharedData,
};
use crate::record::{Cost, EdgeCheck, Record, SizeResult, Status};
use crate::resident::ResidentInputs;
use crate::signature;
use crate::size::Size;
use cuda_measured_core::problem::draw::INPUT_SEED;
use cuda_measured_core::sweep::SweepValue;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig,
    PushKernelArg, sys,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Skip the hot figure when one cold run already takes this long (µs).
const HOT_LIMIT_US: f64 = 10_000.0;

/// A failure that ends the example with a status.
struct Stop {
    status: Status,
    message: String,
    log: String,
}

impl Stop {
    fn new(status: Status, message: impl Into<String>) -> Self {
        Stop {
            status,
            message: message.into(),
            log: String::new(),
        }
    }
}

/// What the measuring process is told by its parent, read once by the
/// `measure` command from the environment the parent gave it.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Where the session's processes share prepared inputs, references and
    /// ceilings ([`problem::cache::DATA_DIR_VAR`]); `None`: this process
    /// prepares its own.
    pub data_dir: Option<std::path::PathBuf>,
    /// Where raw samples are written, one file per timed size
    /// ([`crate::diagnostics::ENV_SAMPLES_DIR`]); `None`: nowhere.
    pub samples_dir: Option<std::path::PathBuf>,
    /// Bytes of inputs this process keeps on the GPU between examples
    /// ([`RESIDENT_VAR`] MiB, default [`crate::resident::DEFAULT_CAP`]; 0
    /// uploads every example's inputs afresh).
    pub resident_bytes: u64,
    /// Whether an answer is judged on a thread of its own while the GPU
    /// times its size (unless [`OVERLAP_VAR`] is `0`).
    pub overlap_checks: bool,
    /// The seed timed inputs are drawn from, when the job gives one (the
    /// Run service's, fresh per request); `None`: the book's
    /// [`INPUT_SEED`], so the book's inputs never change.
    pub input_seed: Option<u64>,
    /// Whether the answer of every timed run is checked, not only the
    /// first run's and the last timed run's (the Run service's jobs, whose
    /// kernels are a reader's: one that remembers an answer between runs
    /// must not pass); no hot figure is taken then.
    pub check_every_run: bool,
    /// Whether a problem with a check the GPU can do ([`problem::DeviceCheck`])
    /// is judged there (unless [`DEVICE_CHECKS_VAR`] is `0`); never with
    /// [`Settings::check_every_run`].
    pub device_checks: bool,
}

impl Settings {
    /// These settings for a job that draws its inputs from `seed`, the Run
    /// service's (every timed run then checked); `None`: the book's job,
    /// as before.
    pub fn with_seed(&self, seed: Option<u64>) -> Settings {
        Settings {
            input_seed: seed,
            check_every_run: seed.is_some(),
            ..self.clone()
        }
    }

    /// The seed timed and edge inputs are drawn from.
    fn seed(&self) -> u64 {
        self.input_seed.unwrap_or(INPUT_SEED)
    }
}

/// The environment variable that turns [`Settings::overlap_checks`] off
/// (`0`).
pub const OVERLAP_VAR: &str = "CUDA_MEASURED_OVERLAP_CHECKS";

/// The environment variable that turns [`Settings::device_checks`] off
/// (`0`): every answer is then copied back and judged on the host.
pub const DEVICE_CHECKS_VAR: &str = "CUDA_MEASURED_DEVICE_CHECKS";

/// The environment variable that sets [`Settings::resident_bytes`], in MiB.
pub const RESIDENT_VAR: &str = "CUDA_MEASURED_RESIDENT_MIB";

impl Settings {
    /// The settings as the parent gave them in this process's environment:
    /// what the `measure` and `worker` commands read once, at their start.
    pub fn from_env() -> Settings {
        Settings {
            data_dir: std::env::var_os(problem::cache::DATA_DIR_VAR).map(Into::into),
            samples_dir: std::env::var_os(crate::diagnostics::ENV_SAMPLES_DIR).map(Into::into),
            resident_bytes: std::env::var(RESIDENT_VAR)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map_or(crate::resident::DEFAULT_CAP, |mib| mib << 20),
            overlap_checks: std::env::var(OVERLAP_VAR).map_or(true, |v| v.trim() != "0"),
            input_seed: None,
            check_every_run: false,
            device_checks: std::env::var(DEVICE_CHECKS_VAR).map_or(true, |v| v.trim() != "0"),
        }
    }
}

/// Runs `example` as process `process` of `processes` (each samples with
/// its [`measure::Policy::share`] of the budget) and returns its record with
/// the raw samples of every timed size; never panics on kernel failures.
/// Opens the GPU for this one example; a warm worker keeps it open across
/// examples ([`run_example_keeping`]).
pub fn run_example(
    example: &Example,
    key: &str,
    process: usize,
    processes: usize,
    settings: &Settings,
) -> Measured {
    run_example_keeping(&mut None, example, key, process, processes, settings)
}

/// [`run_example`] on the GPU `device` holds, opening it first when it
/// holds none (a process's first example, whose record then carries the
/// cost of opening it, or says why it could not be opened).
pub fn run_example_keeping(
    device: &mut Option<Device>,
    example: &Example,
    key: &str,
    process: usize,
    processes: usize,
    settings: &Settings,
) -> Measured {
    let started = Instant::now();
    let mut opening = Cost::default();
    if device.is_none() {
        match Device::open(settings, &mut opening) {
            Ok(opened) => *device = Some(opened),
            Err(stop) => {
                let mut record = Record::failure(example, key, stop.status, stop.message, stop.log);
                record.processes = 1;
                record.cost = Some(opening);
                record.wall_s = started.elapsed().as_secs_f64();
                return Measured {
                    record,
                    samples_us: Vec::new(),
                };
            }
        }
    }
    let device = device.as_mut().expect("opened above");
    let mut measured = run_example_on(device, example, key, process, processes, settings);
    if let Some(c) = &mut measured.record.cost {
        c.context_s += opening.context_s;
        c.support_s += opening.support_s;
    }
    measured.record.wall_s = started.elapsed().as_secs_f64();
    measured
}

/// [`run_example`] on a GPU already open: the context, the support
/// kernels, the device's limits and its ceilings are the device's, made
/// once for every example this process measures.
fn run_example_on(
    device: &mut Device,
    example: &Example,
    key: &str,
    process: usize,
    processes: usize,
    settings: &Settings,
) -> Measured {
    let started = Instant::now();
    let mut record = Record::failure(example, key, Status::Pass, "", "");
    record.processes = 1;
    let mut samples_us = Vec::new();
    let policy = measure::policy_of(example, processes);
    let mut cost = Cost::default();
    let outcome = run_into(
        device,
        example,
        &mut record,
        &mut samples_us,
        &policy,
        process,
        settings,
        &mut cost,
    );
    record.cost = Some(cost);
    if let Err(stop) = outcome {
        record.status = stop.status;
        record.message = stop.message;
        if !stop.log.is_empty() {
            record.log = stop.log;
        }
    }
    record.wall_s = started.elapsed().as_secs_f64();
    Measured { record, samples_us }
}

/// The GPU as a measuring process holds it across examples: its context,
/// facts and limits, the measuring support (support kernels, L2 flush,
/// blocking kernel) and the ceilings once measured.
pub struct Device {
    ctx: Arc<CudaContext>,
    facts: crate::record::GpuFacts,
    arch: String,
    timer: Timer,
    limits: DeviceLimits,
    /// Names the physical GPU in values shared once per session.
    gpu_tag: String,
    /// The read and copy ceilings and launch floor, once measured.
    ceilings: Option<Ceilings>,
    /// Page-locked chunks the inputs go to the GPU through.
    staging: crate::upload::Staging,
    /// Inputs kept on the GPU for the next example of the same data.
    resident: ResidentInputs,
}

impl Device {
    /// Opens the GPU, loads the measuring support and reads the device's
    /// limits; the seconds each takes go to `cost`.
    fn open(settings: &Settings, cost: &mut Cost) -> Result<Device, Stop> {
        let mut phase = Instant::now();
        let mut lap = || {
            let s = phase.elapsed().as_secs_f64();
            phase = Instant::now();
            s
        };
        if !device::driver_present() {
            return Err(Stop::new(
                Status::Fault,
                "no usable GPU: no CUDA driver (libcuda.so) on this machine",
            ));
        }
        let (ctx, facts) =
            device::open().map_err(|e| Stop::new(Status::Fault, format!("no usable GPU: {e}")))?;
        // Single stream, explicit synchronisation: no per-allocation events.
        // SAFETY: everything below runs on the one default stream.
        unsafe { ctx.disable_event_tracking() };
        cost.context_s = lap();
        let arch = device::arch_of(&facts);
        let limits = device_limits(&ctx, &facts.name).map_err(|e| {
            Stop::new(
                Status::Fault,
                format!("reading the device's limits failed: {e}"),
            )
        })?;
        let timer = Timer::new(
            &ctx,
            &arch,
            (facts.sm_count, facts.l2_bytes),
            facts.uuid.as_deref(),
            settings.data_dir.as_deref(),
        )
        .map_err(|e| {
            Stop::new(
                Status::Fault,
                format!("the measuring support failed: {e:#}"),
            )
        })?;
        cost.support_s = lap();
        // Ceilings are shared per physical GPU: by its PCI location, not its
        // ordinal, which is 0 for every child of a session on several GPUs.
        let gpu_tag = format!(
            "{}-{}",
            crate::device::pci_location(&ctx)
                .unwrap_or_else(|_| ctx.ordinal().to_string())
                .replace(':', "-"),
            facts.name.replace(' ', "_")
        );
        let staging = crate::upload::Staging::new(&ctx).map_err(|e| {
            Stop::new(
                Status::Fault,
                format!("allocating page-locked staging memory failed: {e}"),
            )
        })?;
        Ok(Device {
            ctx,
            facts,
            arch,
            timer,
            limits,
            gpu_tag,
            ceilings: None,
            staging,
            resident: ResidentInputs::new(settings.resident_bytes),
        })
    }

    /// Waits for everything queued on the GPU, so that a kernel's device
    /// `printf` output has reached this process's stdout.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.ctx.synchronize()
    }
}

#[allow(clippy::too_many_arguments)]
fn run_into(
    device: &mut Device,
    example: &Example,
    record: &mut Record,
    samples_us: &mut Vec<Vec<f64>>,
    policy: &measure::Policy,
    process: usize,
    settings: &Settings,
    cost: &mut Cost,
) -> Result<(), Stop> {
    let mut phase = Instant::now();
    // Seconds since the last phase ended; starts the next.
    let mut lap = || {
        let s = phase.elapsed().as_secs_f64();
        phase = Instant::now();
        s
    };
    let decl = &example.declaration;
    // Validation refuses a header without sizes, so none here means the
    // declaration lost them on its way to this process: never a pass.
    if decl.sizes.is_empty() {
        return Err(Stop::new(
            Status::LaunchError,
            "the example reached the measuring process without its sizes (a bug of the runner: report it)",
        ));
    }
    let problem = decl.resolve_problem().ok_or_else(|| {
        Stop::new(
            Status::SetupError,
            format!(
                "unknown problem `{}`; known: {}",
                decl.problem,
                problem::names().join(", ")
            ),
        )
    })?;
    let Device {
        ctx,
        facts,
        arch,
        timer,
        limits: device_limits,
        gpu_tag,
        ceilings: known_ceilings,
        staging,
        resident,
    } = device;
    let (ctx, facts, arch, gpu_tag) = (&*ctx, &*facts, arch.as_str(), gpu_tag.clone());
    let device_limits = &*device_limits;
    // A worker's timer has measured other examples: this one's budget
    // starts whole, whatever the last one left.
    timer.start_budget();
    record.gpu = Some(facts.clone());
    record
        .compile_options
        .push(format!("--gpu-architecture={arch}"));

    // One compilation per value of a sweep (one for an example without),
    // all before anything is run: a value that does not compile ends the
    // example, named.
    let mut variants = Vec::new();
    for (value, variant) in example.variants() {
        let loaded = load_variant(
            ctx,
            &variant,
            arch,
            value.as_ref(),
            settings.data_dir.as_deref(),
            record,
        )
        .map_err(|stop| match &value {
            Some(v) => Stop {
                message: format!("with {v}: {}", stop.message),
                ..stop
            },
            None => stop,
        })?;
        variants.push((value, variant, loaded));
    }
    cost.compile_s = lap();
    let data_dir = settings.data_dir.clone();
    // The read and copy ceilings and the launch floor: once per session
    // (shared by its processes through the data folder) and, within a
    // process, once for every example it measures.
    let mut ceilings = match known_ceilings {
        Some(known) => known.clone(),
        None => problem::cache::once_per_session(
            data_dir.as_deref(),
            &format!("ceilings-{gpu_tag}"),
            || timer.ceilings(policy),
        )
        .map_err(|e| {
            Stop::new(
                Status::Fault,
                format!("measuring the ceilings failed: {e:#}"),
            )
        })?,
    };
    if let Some(named) = problem.reports().named_ceiling()
        && !ceilings.named.contains_key(named.name)
    {
        let measured = problem::cache::once_per_session(
            data_dir.as_deref(),
            &format!("ceiling-{}-{gpu_tag}", named.name),
            || timer.named_ceiling(named, policy),
        )
        .map_err(|e| {
            Stop::new(
                Status::Fault,
                format!("measuring the {} ceiling failed: {e:#}", named.name),
            )
        })?;
        ceilings.named.insert(named.name.to_string(), measured);
    }
    *known_ceilings = Some(ceilings.clone());
    // The record holds the ceilings its problem is held to: the read and
    // copy ceilings and launch floor, and its own named ceiling if any.

    let own = problem.reports().named_ceiling().map(|n| n.name);
    ceilings.named.retain(|name, _| Some(name.as_str()) == own);
    record.ceilings = Some(ceilings.clone());
    cost.ceilings_s = lap();
    if let Some(spec) = decl.transfer {
        let mut phases = crate::transfer::Phases::default();
        let outcome = crate::transfer::run_sizes(
            &crate::transfer::Context {
                ctx,
                example,
                problem: &*problem,
                spec,
                policy,
                process,
                data_dir: data_dir.as_deref(),
                samples_dir: settings.samples_dir.as_deref(),
                peak_gbs: facts.peak_gbs,
                l2_bytes: facts.l2_bytes,
                ceilings: &ceilings,
            },
            timer,
            record,
            samples_us,
            &mut phases,
        );
        cost.inputs_s = phases.inputs_s;
        cost.checks_s = phases.checks_s;
        cost.timing_s = (lap() - phases.inputs_s - phases.checks_s).max(0.0);
        return outcome.map_err(|e| match e {
            RunError::Launch(err) => {
                Stop::new(Status::LaunchError, format!("the copy was refused: {err}"))
            }
            RunError::Fault(err) => Stop::new(Status::Fault, format!("the copy failed: {err}")),
        });
    }

    for (value, variant, (functions, needs)) in &variants {
        let point = Point {
            value: value.as_ref(),
            example: variant,
            functions,
            needs,
        };
        run_sizes(
            ctx,
            &*problem,
            point,
            device_limits,
            timer,
            &ceilings,
            facts,
            Shared {
                data_dir: data_dir.clone(),
                samples_dir: settings.samples_dir.clone(),
                gpu_tag: gpu_tag.clone(),
                policy,
                process,
                staging: &mut *staging,
                resident: &mut *resident,
                overlap_checks: settings.overlap_checks,
                seed: settings.seed(),
                check_every_run: settings.check_every_run,
                device_checks: settings.device_checks,
            },
            record,
            samples_us,
            cost,
        )?;
    }
    cost.timing_s = (lap() - cost.inputs_s - cost.checks_s).max(0.0);
    let all_pass = record.sizes.iter().all(|s| s.pass) && record.edge_checks.iter().all(|c| c.pass);
    record.status = if all_pass {
        Status::Pass
    } else {
        Status::Wrong
    };
    Ok(())
}

/// The loaded kernels of one compilation, by name, with what each needs.
type Loaded = (
    BTreeMap<String, CudaFunction>,
    BTreeMap<String, KernelNeeds>,
);

/// Compiles `variant` (one value of a sweep, or the example), loads its
/// module and kernels, and notes its log and registers in `record`.
fn load_variant(
    ctx: &Arc<CudaContext>,
    variant: &Example,
    arch: &str,
    value: Option<&SweepValue>,
    data_dir: Option<&std::path::Path>,
    record: &mut Record,
) -> Result<Loaded, Stop> {
    // Compiled once per session: the first process to compile this code
    // leaves the result in the session's folder and the others load it
    // (a compile error is not kept: it ends the example in that process).
    let name = format!(
        "compiled-{:032x}",
        xxhash_rust::xxh3::xxh3_128(
            format!(
                "{arch}\0{}\0{}",
                variant.compile_options().join("\0"),
                variant.source
            )
            .as_bytes()
        )
    );
    let compiled = problem::cache::once_per_session(data_dir, &name, || {
        crate::compile::compile(variant, arch)
    })
    .map_err(|e| match e {
        crate::compile::CompileError::Source { first_error, log } => Stop {
            status: Status::CompileError,
            message: first_error,
            log,
        },
        missing @ crate::compile::CompileError::NoNvrtc => {
            Stop::new(Status::SetupError, missing.to_string())
        }
        other => Stop::new(Status::CompileError, other.to_string()),
    })?;
    if !compiled.log.is_empty() {
        record.log = compiled.log.clone();
    }
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin))
        .map_err(|e| {
            Stop::new(
                Status::LaunchError,
                format!("the driver refused the compiled module: {e}"),
            )
        })?;
    let kernels = load_kernels(&module, variant, &compiled.entries)
        .map_err(|message| Stop::new(Status::LaunchError, message))?;
    let mut functions = BTreeMap::new();
    let mut needs = BTreeMap::new();
    for (name, f, kernel) in kernels {
        let shown = match value {
            Some(v) => format!("{name} ({v})"),
            None => name.clone(),
        };
        record.registers.push((shown, kernel.registers));
        needs.insert(
            name.clone(),
            fault_cause::with_code(kernel, &compiled.code, &name),
        );
        functions.insert(name, f);
    }
    Ok((functions, needs))
}

/// One compilation to run at the edge sizes and the declared sizes: the
/// value of the sweep it is of, its example and its kernels.
#[derive(Clone, Copy)]
struct Point<'a> {
    value: Option<&'a SweepValue>,
    example: &'a Example,
    functions: &'a BTreeMap<String, CudaFunction>,
    needs: &'a BTreeMap<String, KernelNeeds>,
}

/// What every compilation's runs share.
struct Shared<'a> {
    data_dir: Option<std::path::PathBuf>,
    samples_dir: Option<std::path::PathBuf>,
    gpu_tag: String,
    policy: &'a measure::Policy,
    process: usize,
    staging: &'a mut crate::upload::Staging,
    resident: &'a mut ResidentInputs,
    overlap_checks: bool,
    /// The seed inputs are drawn from.
    seed: u64,
    /// Whether every timed run's answer is checked.
    check_every_run: bool,
    /// Whether a check the GPU can do is done there.
    device_checks: bool,
}

/// Checks `point` at the problem's edge sizes and checks and times it at
/// every declared size, adding its checks, figures and samples to
/// `record` and `samples_us`, each with its value.
#[allow(clippy::too_many_arguments)]
fn run_sizes(
    ctx: &Arc<CudaContext>,
    problem: &dyn Problem,
    point: Point<'_>,
    device_limits: &DeviceLimits,
    timer: &mut Timer,
    ceilings: &Ceilings,
    facts: &crate::record::GpuFacts,
    shared: Shared<'_>,
    record: &mut Record,
    samples_us: &mut Vec<Vec<f64>>,
    cost: &mut Cost,
) -> Result<(), Stop> {
    let example = point.example;
    let decl = &example.declaration;
    let value = point.value;
    // A failure of one value names it, as its compile error does.
    let named = |stop: Stop| match value {
        Some(v) => Stop {
            message: format!("with {v}: {}", stop.message),
            ..stop
        },
        None => stop,
    };
    let Shared {
        data_dir,
        samples_dir,
        gpu_tag,
        policy,
        process,
        staging,
        resident,
        overlap_checks,
        seed,
        check_every_run,
        device_checks,
    } = shared;
    let mut runner = SizeRunner {
        ctx,
        problem,
        example,
        functions: point.functions,
        limits: device_limits,
        needs: point.needs,
        poison: timer.shared_poison(),
        digest: timer.answer_digest(),
        sms: facts.sm_count,
        data_dir,
        samples_dir,
        gpu_tag,
        policy,
        process,
        staging,
        resident,
        overlap_checks,
        seed,
        check_every_run,
        device_check: problem
            .device_check()
            .filter(|_| device_checks && !check_every_run)
            .map(|check| (check, timer.device_judge())),
        inputs_s: 0.0,
        checks_s: 0.0,
    };
    let rowwise = decl.rows.is_some();
    for shape in problem.edge_shapes() {
        let outcome = runner
            .run(shape, None)
            .map_err(|e| named(at_size(e, shape, rowwise, point.needs)))?;
        record.edge_checks.push(EdgeCheck {
            n: Size(shape.cols),
            rows: rowwise.then_some(shape.rows),
            dims: shape.dims,
            sweep: value.cloned(),
            error: outcome.check.error,
            tolerance: outcome.check.tolerance,
            pass: outcome.check.pass,
        });
        if !outcome.check.pass && record.message.is_empty() {
            record.message = format!(
                "wrong at {}{}: {}",
                value_words(value),
                where_(shape, rowwise),
                outcome.check.detail
            );
        }
    }
    for size in &decl.sizes {
        let shape = launch_plan::shape(decl, *size)
            .map_err(|e| named(Stop::new(Status::LaunchError, e.at(example))))?;
        let timing = Timing {
            timer: &mut *timer,
            ceilings,
            peak_gbs: facts.peak_gbs,
            l2_bytes: facts.l2_bytes,
        };
        let outcome = runner
            .run(shape, Some(timing))
            .map_err(|e| named(at_size(e, shape, rowwise, point.needs)))?;
        let (mut result, times) = outcome.figures.expect("timed runs have figures");
        result.sweep = value.cloned();
        if !result.pass && record.message.is_empty() {
            record.message = format!(
                "wrong at {}{}: {}",
                value_words(value),
                where_(shape, rowwise),
                outcome.check.detail
            );
        }
        record.sizes.push(result);
        samples_us.push(times);
    }
    cost.inputs_s += runner.inputs_s;
    cost.checks_s += runner.checks_s;
    Ok(())
}

/// `STRIDE = 4, ` before the size in a message about one value.
fn value_words(value: Option<&SweepValue>) -> String {
    value.map(|v| format!("{v}, ")).unwrap_or_default()
}

/// Why one size could not be run.
enum SizeError {
    /// The driver refused or the kernel faulted.
    Run(RunError),
    /// The declaration does not fit this size (plan or argument binding).
    Declared(crate::header_lines::HeaderError),
    /// The measuring support (a ceiling at this size) failed: the GPU's
    /// fault, not the example's.
    Support(String),
}

impl From<RunError> for SizeError {
    fn from(e: RunError) -> Self {
        SizeError::Run(e)
    }
}

/// `n = 2^20`, for a row-wise problem `4096 rows of n = 2^14`, or for a
/// problem of several dimensions `rows x cols 8192x4096`.
fn where_(shape: Shape, rowwise: bool) -> String {
    shape.describe(rowwise)
}

fn at_size(
    e: SizeError,
    shape: Shape,
    rowwise: bool,
    kernels: &BTreeMap<String, KernelNeeds>,
) -> Stop {
    let at = where_(shape, rowwise);
    match e {
        SizeError::Declared(mistake) => Stop::new(Status::LaunchError, mistake.at(at).to_string()),
        SizeError::Run(RunError::Launch(err)) => Stop::new(
            Status::LaunchError,
            format!("at {at}: {}", fault_cause::refusal(&err, kernels)),
        ),
        SizeError::Support(why) => Stop::new(Status::Fault, format!("at {at}: {why}")),
        SizeError::Run(RunError::Fault(err)) => Stop::new(
            Status::Fault,
            format!("at {at}: {}", fault_cause::fault(&err, kernels)),
        ),
    }
}

struct Timing<'a> {
    timer: &'a mut Timer,
    ceilings: &'a Ceilings,
    peak_gbs: f64,
    l2_bytes: u64,
}

struct Outcome {
    check: problem::CheckOutcome,
    /// The figures of a timed size and its raw samples.
    figures: Option<(SizeResult, Vec<f64>)>,
}

struct SizeRunner<'a> {
    ctx: &'a Arc<CudaContext>,
    problem: &'a dyn Problem,
    example: &'a Example,
    functions: &'a BTreeMap<String, CudaFunction>,
    limits: &'a DeviceLimits,
    needs: &'a BTreeMap<String, KernelNeeds>,
    poison: SharedPoison,
    sms: u32,
    /// Where the measuring processes share prepared data, if anywhere.
    data_dir: Option<std::path::PathBuf>,
    /// Where raw samples are written, if anywhere.
    samples_dir: Option<std::path::PathBuf>,
    /// Digests answers on the GPU for the verdicts kept by key.
    digest: crate::digest::AnswerDigest,
    /// Names the GPU in values shared once per session (its ceilings).
    gpu_tag: String,
    policy: &'a measure::Policy,
    process: usize,
    /// Page-locked chunks the inputs go to the GPU through.
    staging: &'a mut crate::upload::Staging,
    /// Inputs kept on the GPU from earlier runs of this process.
    resident: &'a mut ResidentInputs,
    /// Whether a timed size's answer is judged while it is timed.
    overlap_checks: bool,
    /// The seed inputs are drawn from ([`Settings::input_seed`]).
    seed: u64,
    /// Whether every timed run's answer is checked
    /// ([`Settings::check_every_run`]).
    check_every_run: bool,
    /// The problem's check done on the GPU, and what does it, when it is
    /// done there ([`Settings::device_checks`]).
    device_check: Option<DeviceCheckWith>,
    /// Seconds spent drawing inputs and copying them to the GPU.
    inputs_s: f64,
    /// Seconds spent copying answers back and checking them.
    checks_s: f64,
}

/// A problem's check done on the GPU and the kernels that do it.
type DeviceCheckWith = (problem::DeviceCheck, crate::device_check::DeviceJudge);

/// What judges an answer on the GPU before any is copied back: the digest
/// that finds a verdict kept for the same answer, and the problem's check
/// done there, when it is.
#[derive(Clone, Copy)]
struct OnDevice<'a> {
    digest: &'a crate::digest::AnswerDigest,
    check: Option<&'a DeviceCheckWith>,
}

/// A kernel argument value.
enum Arg {
    Ptr(u64),
    Scalar(Scalar),
}

impl SizeRunner<'_> {
    fn run(&mut self, shape: Shape, timing: Option<Timing<'_>>) -> Result<Outcome, SizeError> {
        let plan = launch_plan::resolve_shape(&self.example.declaration, shape, self.sms)
            .map_err(|e| SizeError::Declared(e.at(self.example).into()))?;
        limits::check(&plan, self.limits, self.needs, self.example).map_err(SizeError::Declared)?;
        // Edge sizes get data whose answer is exact; timed sizes random data.
        let data = if timing.is_some() {
            Data::Timed
        } else {
            Data::Exact
        };
        let stream = self.ctx.default_stream();
        let drawn = Instant::now();
        let prepared = problem::cache::SharedData::open(
            self.data_dir.as_deref(),
            self.problem,
            &plan.instance,
            self.seed,
            data,
        );
        let keep = Keep {
            resident: &mut *self.resident,
            digest: &self.digest,
            data: problem::cache::data_key(self.problem, &plan.instance, self.seed, data),
        };
        let mut buffers = Buffers::allocate(
            self.problem,
            &plan,
            prepared,
            self.staging,
            Some(keep),
            self.device_check.is_some(),
            &stream,
        )
        .map_err(measure::classify_queue_error)?;
        stream.synchronize().map_err(RunError::Fault)?;
        self.inputs_s += drawn.elapsed().as_secs_f64();
        let bindings =
            binding::bind(self.example, self.problem, &plan).map_err(SizeError::Declared)?;
        let args = buffers
            .args(&bindings, &stream)
            .map_err(|e| SizeError::Declared(e.into()))?;
        opt_in_shared(&plan.launches, self.functions, self.needs)
            .map_err(|e| SizeError::Run(RunError::Launch(e)))?;
        let functions = self.functions;
        // Setup launches come first; they run before the timed ones of
        // every run, outside the timed region.
        let setups = plan.launches.iter().take_while(|l| l.setup).count();
        let (setup_launches, timed_launches) = plan.launches.split_at(setups);
        let (setup_args, timed_args) = args.split_at(setups);
        let work = |s: &Arc<CudaStream>| launch_all(s, functions, timed_launches, timed_args);
        let setup = |s: &Arc<CudaStream>| launch_all(s, functions, setup_launches, setup_args);

        // Correctness run: identities set, everything else poisoned, and
        // every SM's shared memory filled with NaN before each launch.
        buffers
            .reset(&stream, true)
            .map_err(measure::classify_queue_error)?;
        let poison = &self.poison;
        let poisoned_work = |s: &Arc<CudaStream>| {
            plan.launches
                .iter()
                .zip(&args)
                .try_for_each(|(launch, args)| {
                    poison.launch(s)?;
                    launch_all(
                        s,
                        functions,
                        std::slice::from_ref(launch),
                        std::slice::from_ref(args),
                    )
                })
        };
        poisoned_work(&stream).map_err(measure::classify_queue_error)?;
        stream.synchronize().map_err(RunError::Fault)?;
        let checked = Instant::now();
        let on_device = OnDevice {
            digest: &self.digest,
            check: self.device_check.as_ref(),
        };
        let known = buffers
            .known_or_copied(on_device, data, self.staging, &stream)
            .map_err(RunError::Fault)?;
        // An answer not judged yet is judged now, or, at a timed size,
        // on a thread of its own while the GPU times the size: the
        // judging needs only the host copies, and the timed runs only the
        // device buffers.
        let (first, deferred) = match known {
            Ok(verdict) => (Some(verdict), None),
            // Every run checked needs the judge here, not on a thread.
            Err(key) if timing.is_some() && self.overlap_checks && !self.check_every_run => {
                (None, Some(key))
            }
            Err(key) => (
                Some(
                    buffers
                        .judge()
                        .judge(self.problem, &plan.instance, data, key),
                ),
                None,
            ),
        };
        self.checks_s += checked.elapsed().as_secs_f64();

        let Some(t) = timing else {
            return Ok(Outcome {
                check: first.expect("an untimed size is judged at once"),
                figures: None,
            });
        };
        let sampling = if self.problem.warm() {
            measure::Sampling::WARM
        } else {
            measure::Sampling::COLD
        };
        let lent = deferred.and_then(|key| buffers.judge.take().map(|judge| (key, judge)));
        let (problem, instance) = (self.problem, plan.instance);
        let mut waited_s = 0.0;
        // With every run checked (the Run service's jobs), the answer of
        // each run, warm-up included, is judged before the next run's
        // reset, outside the timed region: by its digest when it equals
        // an answer judged before (a few microseconds on the GPU), else
        // copied back and checked. The last run's is checked below.
        let check_every_run = self.check_every_run;
        let staging = &mut *self.staging;
        let mut ran = false;
        let mut first_wrong: Option<problem::CheckOutcome> = None;
        let (samples, judged) = std::thread::scope(|scope| {
            let judging = lent.map(|(key, mut judge)| {
                scope.spawn(move || {
                    let verdict = judge.judge(problem, &instance, data, key);
                    (verdict, judge)
                })
            });
            let samples = t.timer.sample(
                self.policy,
                sampling,
                |s| {
                    if check_every_run && ran {
                        let verdict = buffers.check(problem, &plan, data, on_device, staging, s)?;
                        if !verdict.pass && first_wrong.is_none() {
                            first_wrong = Some(verdict);
                        }
                    }
                    ran = true;
                    buffers.reset(s, false)?;
                    setup(s)
                },
                work,
            );
            let waiting = Instant::now();
            let judged = judging.map(|h| h.join().expect("the checking thread panicked"));
            waited_s = waiting.elapsed().as_secs_f64();
            (samples, judged)
        });
        self.checks_s += waited_s;
        let mut check = match judged {
            Some((verdict, judge)) => {
                buffers.judge = Some(judge);
                verdict
            }
            None => first.expect("an answer not lent out was judged at once"),
        };
        let samples = samples?;
        // One file per value of a sweep, named `ID@NAME=VALUE-...`.
        let dumped_id = match self.example.declaration.chosen() {
            Some(v) => format!("{}{}", self.example.id, v.suffix()),
            None => self.example.id.clone(),
        };
        crate::diagnostics::dump_samples(
            self.samples_dir.as_deref(),
            &dumped_id,
            shape.cols,
            self.process,
            &samples.times_us,
        );
        // The last timed run's answer must be right too. An answer equal
        // to one already judged takes that verdict (by a digest
        // taken on the GPU; keeping a device copy to compare bytes cost more
        // than it saved: bench/tuning/disguise-kernels/check-cost-bytecompare.log).
        let checked = Instant::now();
        let after = buffers
            .check(self.problem, &plan, data, on_device, self.staging, &stream)
            .map_err(RunError::Fault)?;
        self.checks_s += checked.elapsed().as_secs_f64();
        if !after.pass && check.pass {
            check = after;
        }
        if let Some(wrong) = first_wrong
            && check.pass
        {
            check = wrong;
        }
        let median_us = samples.median();
        // A run that needs the runner before the next (zeroed scratch,
        // setup launches) has no hot figure: back-to-back repeats of its
        // timed launches alone would not be runs of it.
        let repeatable = setups == 0 && !buffers.needs_reset_between_runs();
        // Back-to-back repeats are not checked one by one: none when every
        // run must be.
        let hot_median_us = if median_us < HOT_LIMIT_US
            && repeatable
            && samples.budget.is_none()
            && !self.check_every_run
        {
            Some(t.timer.hot(work)?)
        } else {
            None
        };
        let mut figures = SizeResult {
            n: Size(shape.cols),
            rows: (shape.dims.is_none() && plan.scalars.contains_key("rows")).then_some(shape.rows),
            dims: shape.dims,
            warm: self.problem.warm(),
            bytes: plan
                .bytes
                .unwrap_or_else(|| self.problem.bytes(&plan.instance)),
            launches: plan.launches.iter().map(Launch::describe).collect(),
            hot_median_us,
            sm_clock_mhz: samples.sm_clock_mhz,
            throttled_dropped: samples.throttled,
            budget: samples.budget,
            clusters: cluster_fit(functions, &plan.launches, &stream),
            error: check.error,
            tolerance: check.tolerance,
            pass: check.pass,
            ..SizeResult::default()
        };
        figures::set_kind(&mut figures, self.problem.reports());
        if self.problem.reports() == Reports::Bandwidth(Bound::Copy) {
            let bytes = figures.bytes;
            let copy_us = problem::cache::once_per_session(
                self.data_dir.as_deref(),
                &format!("copy-{}-{bytes}", self.gpu_tag),
                || t.timer.copy_at(bytes, self.policy),
            )
            .map_err(|e| {
                SizeError::Support(format!(
                    "measuring the copy ceiling at this size failed: {e:#}"
                ))
            })?;
            figures.ceiling_gbs = Some(bytes as f64 / (copy_us * 1e-6) / 1e9);
        }
        let reference = figures::Reference {
            peak_gbs: t.peak_gbs,
            l2_bytes: t.l2_bytes,
            ceilings: t.ceilings,
        };
        figures::derive(&mut figures, &samples.times_us, samples.noisy, &reference);
        figures::add_rates(&mut figures, &self.problem.work(&plan.instance));
        figures::hold_to_ceiling(&mut figures, t.ceilings);
        Ok(Outcome {
            check,
            figures: Some((figures, samples.times_us)),
        })
    }
}

fn launch_all(
    stream: &Arc<CudaStream>,
    functions: &BTreeMap<String, CudaFunction>,
    launches: &[Launch],
    args: &[Vec<Arg>],
) -> Result<(), DriverError> {
    for (launch, args) in launches.iter().zip(args) {
        let cfg = LaunchConfig {
            grid_dim: (launch.grid, 1, 1),
            block_dim: (launch.block, 1, 1),
            shared_mem_bytes: launch.shared,
        };
        let mut b = stream.launch_builder(&functions[&launch.kernel]);
        for a in args {
            match a {
                Arg::Ptr(p) => b.arg(p),
                Arg::Scalar(Scalar::U32(v)) => b.arg(v),
                Arg::Scalar(Scalar::I32(v)) => b.arg(v),
                Arg::Scalar(Scalar::F32(v)) => b.arg(v),
            };
        }
        // SAFETY: the author declares the argument list; pointers address
        // live allocations of the declared lengths.
        unsafe { b.launch(cfg) }?;
    }
    Ok(())
}

/// Device buffers of one run, by name, with the inputs' host copies and
/// the reference the check needs.
struct Buffers {
    /// What judges the answers; lent to a checking thread while the size
    /// is timed ([`SizeRunner::run`]), otherwise always here.
    judge: Option<Judge>,
    inputs: Vec<(String, Arc<CudaSlice<u8>>)>,
    /// Each input's GPU digest as uploaded (or as kept, verified), when a
    /// check done on the GPU will read the inputs: it runs only while
    /// they still have these bytes.
    input_digests: Vec<[u64; 2]>,
    outputs: Vec<(String, Elem, Start, CudaSlice<u8>)>,
    scratch: Vec<(String, ScratchBuffer, CudaSlice<u8>)>,
}

/// How an output buffer starts each run.
enum Start {
    /// Set as the problem says (an identity, or NaN before a checked run).
    Init(OutputInit),
    /// Restored from this copy of its drawn values (an input the kernel
    /// updates in place).
    Restore(Arc<CudaSlice<u8>>),
}

/// Where an upload's buffers are kept for the next run of the same data,
/// and under what name.
struct Keep<'a> {
    resident: &'a mut ResidentInputs,
    digest: &'a crate::digest::AnswerDigest,
    /// The data's name ([`problem::cache::data_key`]).
    data: String,
}

impl Buffers {
    fn allocate(
        problem: &dyn Problem,
        plan: &ResolvedPlan,
        prepared: SharedData,
        staging: &mut crate::upload::Staging,
        mut keep: Option<Keep<'_>>,
        digest_inputs: bool,
        stream: &Arc<CudaStream>,
    ) -> Result<Self, DriverError> {
        let mut judge = Judge {
            prepared,
            answers: Vec::new(),
        };
        let mut b = Buffers {
            judge: None,
            inputs: Vec::new(),
            input_digests: Vec::new(),
            outputs: Vec::new(),
            scratch: Vec::new(),
        };
        // An input's drawn values on the device: kept from an earlier run
        // of the same data, or copied now (and kept), with the digest the
        // kept buffer carries.
        let mut upload = |prepared: &SharedData, name: &str| {
            let key = keep.as_ref().map(|k| format!("{}/{name}", k.data));
            if let (Some(k), Some(key)) = (keep.as_mut(), key.as_deref())
                && let Some((kept, sums)) = k.resident.get(key, k.digest, stream)?
            {
                return Ok((kept, Some(sums)));
            }
            let bytes = prepared
                .input_bytes(name)
                .expect("a problem prepares every input it declares");
            let dev = Arc::new(staging.upload(stream, bytes)?);
            let mut sums = None;
            if let (Some(k), Some(key)) = (keep.as_mut(), key.as_deref()) {
                sums = k.resident.put(key, &dev, k.digest, stream)?;
            }
            Ok::<_, DriverError>((dev, sums))
        };
        let mut input_sums = Vec::new();
        for spec in problem.buffers(&plan.instance) {
            match spec.role {
                BufferRole::Input => {
                    let (dev, sums) = upload(&judge.prepared, spec.name)?;
                    input_sums.push(sums);
                    b.inputs.push((spec.name.to_string(), dev));
                }
                BufferRole::Output(init) => {
                    let bytes = spec.len.max(1) * spec.elem.bytes();
                    // SAFETY: reset() writes every element before each run.
                    let dev = unsafe { stream.alloc::<u8>(bytes as usize)? };
                    judge.answers.push((
                        spec.name.to_string(),
                        HostData::zeroed(spec.elem, spec.len.max(1) as usize),
                    ));
                    b.outputs
                        .push((spec.name.to_string(), spec.elem, Start::Init(init), dev));
                }
                BufferRole::InOut => {
                    let (pristine, _) = upload(&judge.prepared, spec.name)?;
                    let dev = stream.clone_dtod(&*pristine)?;
                    judge.answers.push((
                        spec.name.to_string(),
                        HostData::zeroed(spec.elem, spec.len.max(1) as usize),
                    ));
                    b.outputs.push((
                        spec.name.to_string(),
                        spec.elem,
                        Start::Restore(pristine),
                        dev,
                    ));
                }
            }
        }
        // A buffer too large to keep has no digest yet.
        if digest_inputs && let Some(k) = keep.as_ref() {
            for ((_, dev), sums) in b.inputs.iter().zip(input_sums) {
                b.input_digests.push(match sums {
                    Some(sums) => sums,
                    None => k.digest.of(dev, stream)?,
                });
            }
        }
        for (name, spec) in &plan.scratch {
            // SAFETY: zeroed or poisoned by reset() before every run (kept
            // scratch before the checked run), so no run reads what the
            // allocation happened to hold.
            let dev =
                unsafe { stream.alloc::<u8>((spec.len.max(1) * spec.elem.bytes()) as usize)? };
            b.scratch.push((name.clone(), *spec, dev));
        }
        b.judge = Some(judge);
        Ok(b)
    }

    fn pointer(&self, name: &str, stream: &Arc<CudaStream>) -> Option<u64> {
        let find = |s: &CudaSlice<u8>| s.device_ptr(stream).0;
        self.inputs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| find(d))
            .or_else(|| {
                self.outputs
                    .iter()
                    .find(|(n, ..)| n == name)
                    .map(|(.., d)| find(d))
            })
            .or_else(|| {
                self.scratch
                    .iter()
                    .find(|(n, ..)| n == name)
                    .map(|(.., d)| find(d))
            })
    }

    /// The argument values of every launch: each buffer's device pointer,
    /// each scalar's value.
    fn args(
        &self,
        bindings: &[Vec<Binding>],
        stream: &Arc<CudaStream>,
    ) -> Result<Vec<Vec<Arg>>, String> {
        bindings
            .iter()
            .map(|launch| {
                launch
                    .iter()
                    .map(|b| match b {
                        Binding::Buffer(name) | Binding::Scratch(name) => self
                            .pointer(name, stream)
                            .map(Arg::Ptr)
                            .ok_or_else(|| format!("buffer `{name}` was not allocated")),
                        Binding::Scalar(v) => Ok(Arg::Scalar(*v)),
                    })
                    .collect()
            })
            .collect()
    }

    /// Sets accumulators to their identity, zeroed scratch to zero and
    /// poisoned scratch to its poison (before every run); with `poison`
    /// (the checked run), also fills other outputs and kept scratch with
    /// the poison of their type (NaN for floats).
    fn reset(&self, stream: &Arc<CudaStream>, poison: bool) -> Result<(), DriverError> {
        for (_, elem, start, dev) in &self.outputs {
            let bits = match start {
                Start::Restore(pristine) => {
                    restore(dev, pristine, stream)?;
                    continue;
                }
                Start::Init(OutputInit::Identity(v)) => elem.bits_of(*v),
                Start::Init(OutputInit::Poison) if poison => elem.poison_bits(),
                Start::Init(OutputInit::Poison) => continue,
            };
            fill(dev, elem.bytes(), bits, stream)?;
        }
        for (_, spec, dev) in &self.scratch {
            let bits = match spec.init {
                ScratchInit::Zeroed => 0,
                ScratchInit::Poisoned => spec.elem.poison_bits(),
                ScratchInit::Kept if poison => spec.elem.poison_bits(),
                ScratchInit::Kept => continue,
            };
            fill(dev, spec.elem.bytes(), bits, stream)?;
        }
        Ok(())
    }

    /// Whether a run needs the runner between it and the next beyond what
    /// a hot figure may skip: zeroed or poisoned scratch (a scan's flags,
    /// a block counter), which back-to-back runs would find used.
    fn needs_reset_between_runs(&self) -> bool {
        self.scratch
            .iter()
            .any(|(_, spec, _)| spec.init != ScratchInit::Kept)
    }

    /// The key of the answer now in the outputs: a digest of each taken
    /// on the GPU, so that an answer already judged is never copied back.
    fn answer_key(
        &self,
        digest: &crate::digest::AnswerDigest,
        stream: &Arc<CudaStream>,
    ) -> Result<u128, DriverError> {
        let mut parts = Vec::with_capacity(self.outputs.len());
        for (name, _, _, dev) in &self.outputs {
            parts.push((name.as_str(), dev.len() as u64, digest.of(dev, stream)?));
        }
        Ok(problem::cache::answer_key(&parts))
    }

    /// Copies the outputs into the judge's host copies, through the
    /// page-locked chunks.
    fn copy_answers(
        &mut self,
        staging: &mut crate::upload::Staging,
        stream: &Arc<CudaStream>,
    ) -> Result<(), DriverError> {
        let judge = self.judge.as_mut().expect("the judge is back");
        for ((_, _, _, dev), (_, host)) in self.outputs.iter().zip(&mut judge.answers) {
            staging.download(stream, dev, host.as_bytes_mut())?;
        }
        Ok(())
    }

    /// The verdict kept for an answer identical to the one in the outputs
    /// (known from its digest, taken on the GPU, without copying it back),
    /// or, when there is none, the answer's key, with the answer copied
    /// back into the judge's host copies for judging.
    ///
    /// With `device`, an answer not known is judged on the GPU when the
    /// inputs still have their uploaded bytes ([`crate::device_check`]),
    /// and its verdict kept under its key like any other.
    fn known_or_copied(
        &mut self,
        on_device: OnDevice<'_>,
        data: Data,
        staging: &mut crate::upload::Staging,
        stream: &Arc<CudaStream>,
    ) -> Result<Result<problem::CheckOutcome, u128>, DriverError> {
        let digest = on_device.digest;
        let key = self.answer_key(digest, stream)?;
        if let Some(known) = self.judge().verdict(key) {
            return Ok(Ok(known));
        }
        if let Some((check, judge)) = on_device.check
            && self.inputs_unchanged(digest, stream)?
        {
            let named: Vec<(&str, &CudaSlice<u8>)> = self
                .inputs
                .iter()
                .map(|(n, d)| (n.as_str(), &**d))
                .chain(self.outputs.iter().map(|(n, .., d)| (n.as_str(), d)))
                .collect();
            let judged = judge.judge(*check, data, &named, stream)?;
            if let Some(outcome) = judged {
                self.judge().prepared.remember(key, &outcome);
                return Ok(Ok(outcome));
            }
        }
        self.copy_answers(staging, stream)?;
        Ok(Err(key))
    }

    /// Whether every input still has the bytes it was uploaded with (by
    /// its GPU digest); false when they were not digested.
    fn inputs_unchanged(
        &self,
        digest: &crate::digest::AnswerDigest,
        stream: &Arc<CudaStream>,
    ) -> Result<bool, DriverError> {
        if self.input_digests.len() != self.inputs.len() {
            return Ok(false);
        }
        for ((_, dev), want) in self.inputs.iter().zip(&self.input_digests) {
            if digest.of(dev, stream)? != *want {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Judges the answer: by the verdict kept for an identical answer,
    /// else copied back and checked against the reference
    /// ([`Buffers::known_or_copied`]).
    fn check(
        &mut self,
        problem: &dyn Problem,
        plan: &ResolvedPlan,
        data: Data,
        on_device: OnDevice<'_>,
        staging: &mut crate::upload::Staging,
        stream: &Arc<CudaStream>,
    ) -> Result<problem::CheckOutcome, DriverError> {
        Ok(
            match self.known_or_copied(on_device, data, staging, stream)? {
                Ok(known) => known,
                Err(key) => self.judge().judge(problem, &plan.instance, data, key),
            },
        )
    }

    fn judge(&mut self) -> &mut Judge {
        self.judge.as_mut().expect("the judge is back")
    }
}

/// The host side of a check: the prepared data (the reference read only
/// when an answer needs judging) and host copies of the outputs,
/// allocated once and refilled by every check (no fresh pages of hundreds
/// of MiB per check). It owns no device memory, so it can judge on a
/// thread of its own while the GPU times the same size.
struct Judge {
    prepared: SharedData,
    /// Each output's name and host copy.
    answers: Vec<(String, HostData)>,
}

impl Judge {
    /// The verdict kept for an answer with this key, if any.
    fn verdict(&self, key: u128) -> Option<problem::CheckOutcome> {
        self.prepared.verdict(key)
    }

    /// Checks the host copies against the reference and keeps the verdict
    /// under `key`.
    fn judge(
        &mut self,
        problem: &dyn Problem,
        instance: &problem::Instance,
        data: Data,
        key: u128,
    ) -> problem::CheckOutcome {
        let outputs: Vec<(&str, &HostData)> = self
            .answers
            .iter()
            .map(|(name, host)| (name.as_str(), host))
            .collect();
        let prepared = self.prepared.with_reference(problem.check_reads_inputs());
        let outcome = problem.check(instance, prepared, &outputs, data);
        self.prepared.remember(key, &outcome);
        outcome
    }
}

/// The example's kernels from `module`, each once, in the order its
/// launches first use them, with what each needs of the device; the error
/// names the kernels the program does define, or says to declare the
/// kernel `extern "C"`.
fn load_kernels(
    module: &Arc<cudarc::driver::CudaModule>,
    example: &Example,
    entries: &[crate::ptx::Entry],
) -> Result<Vec<(String, CudaFunction, KernelNeeds)>, String> {
    let mut kernels: Vec<(String, CudaFunction, KernelNeeds)> = Vec::new();
    for spec in &example.declaration.launches {
        if kernels.iter().any(|(name, ..)| *name == spec.kernel) {
            continue;
        }
        let f = module.load_function(&spec.kernel).map_err(|_| {
            signature::kernels_defined(example, entries)
                .err()
                .map(|mistake| mistake.to_string())
                .unwrap_or_else(|| format!(
                    "kernel `{}` is not in the compiled code: declare it `extern \"C\" __global__` so its name is not mangled",
                    spec.kernel
                ))
        })?;
        let needs = kernel_needs(&f);
        allow_large_cluster(&f).map_err(|e| {
            format!(
                "kernel `{}` asks for a cluster of more than 8 blocks and the driver refused it: {e}",
                spec.kernel
            )
        })?;
        kernels.push((spec.kernel.clone(), f, needs));
    }
    Ok(kernels)
}

/// Sets the opt-in attribute for every launch that needs it. The driver's
/// rule: dynamic shared memory above 48 KiB minus the kernel's static
/// `__shared__` arrays needs `MAX_DYNAMIC_SHARED_SIZE_BYTES`.
fn opt_in_shared(
    launches: &[Launch],
    functions: &BTreeMap<String, CudaFunction>,
    needs: &BTreeMap<String, KernelNeeds>,
) -> Result<(), DriverError> {
    for l in launches {
        let static_shared = needs.get(&l.kernel).map_or(0, |k| k.static_shared);
        if l.shared + static_shared > limits::DEFAULT_SHARED_BYTES {
            functions[&l.kernel].set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                l.shared as i32,
            )?;
        }
    }
    Ok(())
}

/// What a loaded kernel needs of the device (attributes it cannot read
/// count as nothing, so the check never refuses on a missing attribute).
fn kernel_needs(f: &CudaFunction) -> KernelNeeds {
    use sys::CUfunction_attribute as F;
    let get = |a| f.get_attribute(a).map_or(0, |v| v.max(0) as u32);
    KernelNeeds {
        registers: get(F::CU_FUNC_ATTRIBUTE_NUM_REGS),
        static_shared: get(F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
        max_threads_per_block: get(F::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        local_bytes: get(F::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
        code: Default::default(),
    }
}

/// Blocks a cluster of `f`'s compile-time cluster (`__cluster_dims__`), 1
/// for a kernel without one (or whose attributes cannot be read).
fn cluster_blocks(f: &CudaFunction) -> u32 {
    use sys::CUfunction_attribute as F;
    let get = |a| f.get_attribute(a).map_or(1, |v| v.max(1) as u32);
    get(F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)
        * get(F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)
        * get(F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)
}

/// How many clusters of the first launch of a cluster kernel the GPU holds
/// resident at once (`cuOccupancyMaxActiveClusters` for its block, dynamic
/// shared memory and the kernel's compile-time cluster size; the opt-in
/// for large shared memory is already set). `None` when no launch uses
/// clusters, or when the driver cannot say (the record then lacks it, as
/// records made before it do).
fn cluster_fit(
    functions: &BTreeMap<String, CudaFunction>,
    launches: &[Launch],
    stream: &Arc<CudaStream>,
) -> Option<crate::record::ClusterFit> {
    launches.iter().find_map(|launch| {
        let f = &functions[&launch.kernel];
        let blocks = cluster_blocks(f);
        if blocks <= 1 {
            return None;
        }
        let cfg = LaunchConfig {
            grid_dim: (launch.grid, 1, 1),
            block_dim: (launch.block, 1, 1),
            shared_mem_bytes: launch.shared,
        };
        let max_active = f.occupancy_max_active_clusters(cfg, stream).ok()?;
        Some(crate::record::ClusterFit { blocks, max_active })
    })
}

/// A compile-time cluster (`__cluster_dims__`) of more than the portable 8
/// blocks (Hopper allows 16) needs the non-portable opt-in before launch.
fn allow_large_cluster(f: &CudaFunction) -> Result<(), DriverError> {
    use sys::CUfunction_attribute as F;
    let get = |a| f.get_attribute(a).map_or(1, |v| v.max(1));
    let blocks = get(F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)
        * get(F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)
        * get(F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
    if blocks > 8 {
        f.set_attribute(F::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)?;
    }
    Ok(())
}

/// The device's launch limits.
fn device_limits(ctx: &Arc<CudaContext>, name: &str) -> Result<DeviceLimits, DriverError> {
    use sys::CUdevice_attribute as A;
    let get = |a| ctx.attribute(a).map(|v| v.max(0) as u32);
    Ok(DeviceLimits {
        name: name.to_string(),
        max_threads_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_grid_x: get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
        max_shared_optin: get(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        registers_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
    })
}

/// Copies `pristine` over `dev` (the same length) on the device.
fn restore(
    dev: &CudaSlice<u8>,
    pristine: &CudaSlice<u8>,
    stream: &Arc<CudaStream>,
) -> Result<(), DriverError> {
    let (dst, _a) = dev.device_ptr(stream);
    let (src, _b) = pristine.device_ptr(stream);
    // SAFETY: both address dev.len() bytes of live allocations made from
    // the same host data, and the copy is queued on the stream that uses
    // them.
    unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, dev.len(), stream.cu_stream()).result() }
}

/// Fills `dev` with elements of `width` bytes (1, 2, 4 or 8) of bit
/// pattern `bits`. An 8-byte pattern is written as 4-byte halves, so its
/// halves must be equal (0, and the poison of `double`, are).
fn fill(
    dev: &CudaSlice<u8>,
    width: u64,
    bits: u64,
    stream: &Arc<CudaStream>,
) -> Result<(), DriverError> {
    let (ptr, _sync) = dev.device_ptr(stream);
    let (width, bits) = if width == 8 {
        assert_eq!(
            bits >> 32,
            bits & 0xffff_ffff,
            "an 8-byte fill needs equal halves"
        );
        (4, bits & 0xffff_ffff)
    } else {
        (width, bits)
    };
    let count = dev.len() / width as usize;
    // SAFETY: ptr addresses dev.len() bytes of a live allocation, which
    // `count` elements of `width` bytes do not pass.
    unsafe {
        match width {
            1 => sys::cuMemsetD8Async(ptr, bits as u8, count, stream.cu_stream()).result(),
            2 => sys::cuMemsetD16Async(ptr, bits as u16, count, stream.cu_stream()).result(),
            _ => sys::cuMemsetD32Async(ptr, bits as u32, count, stream.cu_stream()).result(),
        }
    }
}

/// The line `launch-once` prints to name the GPU it ran on, read back by
/// the tools that run it (`profile`, `sanitize`).
pub const GPU_LINE: &str = "cuda-runner launch-once: GPU ";

/// Runs `example`'s launches once at size `size` on inputs of the
/// kind timed runs get, and waits for them: what `cuda-runner profile`
/// runs under Nsight Compute and `cuda-runner sanitize` under
/// compute-sanitizer. Returns the GPU's name.
pub fn launch_once(example: &Example, size: crate::dims::Dims) -> anyhow::Result<String> {
    use anyhow::Context;
    let decl = &example.declaration;
    if let Some(sweep) = &decl.sweep {
        anyhow::bail!(
            "{}",
            cuda_measured_core::sweep::not_taken_yet(
                &example.id,
                sweep,
                "a single run (profile, sanitize)"
            )
        );
    }
    let problem = decl
        .resolve_problem()
        .context("the example's problem is unknown")?;
    let (ctx, facts) = device::open().context("no usable GPU")?;
    let arch = device::arch_of(&facts);
    let compiled = crate::compile::compile(example, &arch)
        .map_err(|e| anyhow::anyhow!("the example does not compile: {e}"))?;
    let module = ctx.load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin))?;
    let mut functions = BTreeMap::new();
    let mut needs = BTreeMap::new();
    for (name, f, kernel) in
        load_kernels(&module, example, &compiled.entries).map_err(anyhow::Error::msg)?
    {
        needs.insert(name.clone(), kernel);
        functions.insert(name, f);
    }
    let shape = launch_plan::shape(decl, size).map_err(|e| anyhow::anyhow!(e.at(example)))?;
    let plan = launch_plan::resolve_shape(decl, shape, facts.sm_count)
        .map_err(|e| anyhow::anyhow!(e.at(example)))?;
    opt_in_shared(&plan.launches, &functions, &needs)?;
    let stream = ctx.default_stream();
    let prepared = SharedData::open(None, &*problem, &plan.instance, INPUT_SEED, Data::Timed);
    let mut staging = crate::upload::Staging::new(&ctx)?;
    let buffers = Buffers::allocate(
        &*problem,
        &plan,
        prepared,
        &mut staging,
        None,
        false,
        &stream,
    )?;
    let bindings = binding::bind(example, &*problem, &plan).map_err(anyhow::Error::msg)?;
    let args = buffers
        .args(&bindings, &stream)
        .map_err(anyhow::Error::msg)?;
    buffers.reset(&stream, false)?;
    launch_all(&stream, &functions, &plan.launches, &args)?;
    stream.synchronize()?;
    Ok(facts.name)
}
