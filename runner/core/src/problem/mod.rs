//! Problems: the unit authors reuse. A problem owns its inputs (seeded
//! random, never zeros), its float64 reference, its check and tolerance, its
//! byte count and the ceiling it is compared with, and the buffers and
//! scalars kernel arguments bind to. A problem may take several element
//! types (`dtype` in the header) and may be row-wise (M rows of N: the
//! declared size is N and the header's `rows` gives M). Adding a problem is
//! one new file here plus one line in [`REGISTRY`].

pub mod cache;
pub mod dims_map;
pub mod draw;
mod elem;
pub mod elementwise;
mod fma_f32;
mod histogram_u8;
mod layernorm_rows;
pub mod matmul_f32;
pub mod pointer_chase;
pub mod reports;
mod rowwise;
pub mod scan_f32;
mod softmax_rows;
mod sum_f32;
pub mod transfer;
mod transpose;

pub use elem::{Elem, HostData};

use crate::dims::{Dim, Dims};
use crate::size::Size;
pub use elementwise::{Elementwise, ElementwiseSpec};
pub use fma_f32::FmaF32;
pub use histogram_u8::HistogramU8;
pub use layernorm_rows::LayernormRows;
pub use matmul_f32::MatmulF32;
pub use pointer_chase::PointerChase;
pub use reports::{Direction, NamedCeiling, Reports};
pub use scan_f32::ScanF32;
pub use softmax_rows::SoftmaxRows;
pub use sum_f32::SumF32;
pub use transfer::{Transfer, TransferSpec};
pub use transpose::Transpose;

/// Every problem, by name.
pub const REGISTRY: &[&dyn Problem] = &[
    &SumF32,
    &SoftmaxRows,
    &LayernormRows,
    &Transpose,
    &HistogramU8 { skewed: false },
    &HistogramU8 { skewed: true },
    &ScanF32,
    &MatmulF32,
    &PointerChase,
    &FmaF32,
];

/// The shape of one run: `rows` x `cols` elements, row-major. A 1-D
/// problem of size n is one row of n. A problem of several named
/// dimensions ([`Problem::dims`]) carries their values in `dims`, and is
/// one row of their product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Rows (M).
    pub rows: u64,
    /// Elements per row (N).
    pub cols: u64,
    /// The values of a problem of several dimensions; `None` for a
    /// problem of one dimension or a row-wise one.
    pub dims: Option<Dims>,
}

impl Shape {
    /// One row of `n`.
    pub fn flat(n: u64) -> Shape {
        Shape {
            rows: 1,
            cols: n,
            dims: None,
        }
    }

    /// `rows` rows of `cols` (a row-wise problem's run).
    pub fn rows(rows: u64, cols: u64) -> Shape {
        Shape {
            rows,
            cols,
            dims: None,
        }
    }

    /// The run of a size of a problem of several dimensions: one row of
    /// their product, with the values in `dims`. A size of the one
    /// dimension `n` is [`Shape::flat`].
    pub fn of(dims: Dims) -> Shape {
        if dims.is_flat() {
            return Shape::flat(dims.n_value());
        }
        Shape {
            rows: 1,
            cols: dims.n_value(),
            dims: Some(dims),
        }
    }

    /// The value of dimension `name` of a run of several dimensions
    /// (0 when it has none: a problem asks only for its own dimensions).
    pub fn dim(&self, name: &str) -> u64 {
        self.dims.and_then(|d| d.get(name)).unwrap_or(0)
    }

    /// `n = 2^20`, `3 rows of n = 1000`, or the canonical text of a size of
    /// several dimensions (`rows x cols 8192x4096`), for messages.
    pub fn describe(&self, rowwise: bool) -> String {
        match self.dims {
            Some(d) => format!("{} {d}", Dims::describe(d.dims())),
            None if rowwise => format!("{} rows of n = {}", self.rows, Size(self.cols)),
            None => format!("n = {}", Size(self.cols)),
        }
    }

    /// Elements in all.
    pub fn elements(&self) -> u64 {
        self.rows * self.cols
    }
}

/// What one run of a problem is: its shape and its element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instance {
    /// Rows and columns.
    pub shape: Shape,
    /// The element type of its data buffers.
    pub dtype: Elem,
}

/// How an output buffer starts each run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutputInit {
    /// An accumulator the kernel adds into: set to the operation's identity
    /// before every run (outside the timed region).
    Identity(f64),
    /// Filled with NaN so that an element the kernel never writes fails.
    Poison,
}

/// A buffer the problem owns.
#[derive(Debug, Clone, PartialEq)]
pub enum BufferRole {
    /// Read by the kernel, drawn by [`Problem::prepare`].
    Input,
    /// Written by the kernel, checked afterwards.
    Output(OutputInit),
    /// Drawn like an input and updated in place by the kernel: restored to
    /// its drawn values before every run, outside the timed region, and
    /// checked afterwards.
    InOut,
}

/// One named buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferSpec {
    /// Name kernel arguments use (`input`, `out`).
    pub name: &'static str,
    /// Its element type.
    pub elem: Elem,
    /// Elements.
    pub len: u64,
    /// Its role.
    pub role: BufferRole,
}

/// The type of a scalar kernel argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// `unsigned int`: sizes, counts, grid and block dimensions.
    U32,
    /// `int`.
    I32,
    /// `float`.
    F32,
}

impl ScalarKind {
    /// The C++ type a kernel takes it as.
    pub fn c_type(self) -> &'static str {
        match self {
            ScalarKind::U32 => "unsigned int",
            ScalarKind::I32 => "int",
            ScalarKind::F32 => "float",
        }
    }
}

/// The value of a scalar argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// An `unsigned int`.
    U32(u32),
    /// An `int`.
    I32(i32),
    /// A `float`.
    F32(f32),
}

impl Scalar {
    /// Its type.
    pub fn kind(self) -> ScalarKind {
        match self {
            Scalar::U32(_) => ScalarKind::U32,
            Scalar::I32(_) => ScalarKind::I32,
            Scalar::F32(_) => ScalarKind::F32,
        }
    }
}

/// The verdict on one run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CheckOutcome {
    /// Error as the problem defines it; infinite for a non-finite answer,
    /// which is why it travels through [`crate::nonfinite`] (plain JSON
    /// would write `null` and fail to read it back).
    #[serde(with = "crate::nonfinite")]
    pub error: f64,
    /// What the error must not exceed.
    pub tolerance: f64,
    /// Whether it passed (NaN never does).
    pub pass: bool,
    /// A sentence for the page (expected vs got).
    pub detail: String,
}

/// Which data a run gets, and so how its answer is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Data {
    /// Random values as the problem draws them for timing; the answer is
    /// held to the problem's tolerance against the float64 reference.
    Timed,
    /// Values chosen so that the arithmetic of every correct kernel is
    /// exact whatever its order (small integers for a sum), where the
    /// problem has such values; the answer must then equal the reference
    /// exactly, so that one element dropped, read twice or read from the
    /// wrong place shows. Used at the edge shapes.
    Exact,
}

impl Data {
    /// `timed` or `exact`, for file names.
    pub fn name(self) -> &'static str {
        match self {
            Data::Timed => "timed",
            Data::Exact => "exact",
        }
    }
}

/// The inputs of one run and what the check needs of the float64
/// reference, computed once per run shape and shared by the measuring
/// processes ([`cache`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Every input buffer's contents, by name.
    pub inputs: Vec<(String, HostData)>,
    /// Float64 figures of the reference, as the problem defines them (the
    /// sum and the sum of magnitudes; per row the maximum and the sum of
    /// exponentials...).
    pub reference: Vec<f64>,
}

impl Prepared {
    /// The input called `name`.
    pub fn input(&self, name: &str) -> Option<&HostData> {
        self.inputs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// The output called `name` among `outputs`.
pub fn output<'a>(outputs: &[(&str, &'a HostData)], name: &str) -> Option<&'a HostData> {
    outputs.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
}

/// The measured bandwidth a problem's kernels are compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The read ceiling: kernels that read their input and write little
    /// (a sum).
    Read,
    /// The copy ceiling (bytes read plus bytes written by a copy kernel):
    /// kernels that read once and write as much (softmax, layer norm).
    Copy,
}

impl Bound {
    /// `read` or `copy`, as records store it.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Read => "read",
            Bound::Copy => "copy",
        }
    }
}

/// A problem kernels solve.
pub trait Problem: Sync {
    /// Name used in headers (`sum_f32`).
    fn name(&self) -> &'static str;
    /// Bumped whenever inputs, reference or check change.
    fn version(&self) -> u32;
    /// One sentence for messages and `cuda-runner new`.
    fn summary(&self) -> &'static str;
    /// The element types it takes (`dtype`); the first is the default.
    fn dtypes(&self) -> &'static [Elem] {
        &[Elem::F32]
    }
    /// Whether it is row-wise: M rows of N, the declared size being N and
    /// the header's `rows` giving M.
    fn rowwise(&self) -> bool {
        false
    }
    /// Its dimensions, in the order sizes list their values
    /// ([`crate::dims`]): `n` unless it declares more (`rows`, `cols`).
    /// A problem of several dimensions gets runs of [`Shape::of`], and
    /// each dimension is a launch variable and kernel argument under its
    /// lowercase name.
    fn dims(&self) -> &'static [Dim] {
        crate::dims::N
    }
    /// The buffers of `instance`.
    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec>;
    /// Scalar arguments it gives kernels besides the launch variables
    /// (`eps`), by name.
    fn scalars(&self) -> Vec<(&'static str, Scalar)> {
        Vec::new()
    }
    /// Its scalars' values for a run of `instance` (a pointer chase's
    /// `steps` follows its footprint): [`Problem::scalars`] unless it says
    /// otherwise, whose names and types they keep.
    fn scalars_at(&self, _instance: &Instance) -> Vec<(&'static str, Scalar)> {
        self.scalars()
    }
    /// The inputs of `instance` from `seed`, of the kind `data` asks for,
    /// and what the check needs of the reference.
    fn prepare(&self, instance: &Instance, seed: u64, data: Data) -> Prepared;
    /// Checks `outputs` (by name) against the reference in `prepared`,
    /// exactly or within the tolerance as `data` says.
    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        data: Data,
    ) -> CheckOutcome;
    /// Bytes the algorithm must move: each input read once, each output
    /// written once.
    fn bytes(&self, instance: &Instance) -> u64;
    /// The work one run does besides the bytes it moves, by unit
    /// (`elements`, `rows`, `flop`): records turn each into a rate per
    /// second (`elements_per_s`) in their open `metrics` map.
    fn work(&self, instance: &Instance) -> Vec<(&'static str, f64)> {
        vec![("elements", instance.shape.elements() as f64)]
    }
    /// The ceiling its figures are a percentage of, for a bandwidth
    /// problem.
    fn bound(&self) -> Bound {
        Bound::Read
    }
    /// What it reports (its primary figure) and the measured ceiling it is
    /// held to: bandwidth against [`Problem::bound`] unless it says
    /// otherwise.
    fn reports(&self) -> Reports {
        Reports::Bandwidth(self.bound())
    }
    /// Whether its timed samples are warm: no L2 flush before each, so
    /// that data the run before left in a cache stays there (a pointer
    /// chase measuring the latency of the cache level its footprint fits
    /// in). Cold (flushed) unless it says so.
    fn warm(&self) -> bool {
        false
    }
    /// Untimed shapes checked besides the declared sizes, chosen to catch
    /// edge bugs (ragged tails, tiny inputs, rows that are not a multiple
    /// of anything); checked with [`Data::Exact`].
    fn edge_shapes(&self) -> Vec<Shape>;
    /// The largest size the problem takes, and why no larger: kernels
    /// receive sizes as 32-bit unsigned ints, so no problem goes past
    /// 2^32 - 1, and a problem may set a lower bound that its kernels'
    /// index arithmetic needs.
    fn max_size(&self) -> (u64, &'static str) {
        (
            u64::from(u32::MAX),
            "kernels receive sizes as 32-bit unsigned ints",
        )
    }

    /// What besides its name, version, shape, element type and seed
    /// decides its prepared data (an elementwise problem's input names);
    /// part of the shared data's file name.
    fn data_tag(&self) -> String {
        String::new()
    }

    /// Whether [`Problem::check`] reads the inputs, or only the reference
    /// and the answer: a process judging an answer then copies the inputs
    /// out of the shared data only when the check reads them (a sum's 4 GiB
    /// of input, for a reference of two numbers, cost seconds a check).
    fn check_reads_inputs(&self) -> bool {
        true
    }

    /// What besides its data decides how an answer is judged (an
    /// elementwise problem's reference expression, scalars, output and
    /// tolerance): verdicts kept for one check are never taken by another
    /// on the same inputs ([`cache::SharedData::verdict`]).
    fn check_tag(&self) -> String {
        String::new()
    }

    /// The same check done on the GPU, where the runner can do it on the
    /// buffers already there instead of copying a large answer back and
    /// judging it on the host ([`DeviceCheck`]); `None` (the default) for
    /// a check done on the host only.
    fn device_check(&self) -> Option<DeviceCheck> {
        None
    }

    /// The names of its buffers and scalars, whatever the shape.
    fn argument_names(&self) -> Vec<&'static str> {
        let probe = Instance {
            shape: Shape::flat(1),
            dtype: self.dtypes()[0],
        };
        let mut names: Vec<&'static str> = self.buffers(&probe).iter().map(|b| b.name).collect();
        names.extend(self.scalars().iter().map(|(name, _)| *name));
        names
    }
}

/// The problem called `name`, among those that need nothing but their
/// name ([`REGISTRY`]).
pub fn lookup(name: &str) -> Option<&'static dyn Problem> {
    REGISTRY.iter().copied().find(|p| p.name() == name)
}

/// The dimensions of a registered problem whose dimension names are
/// `names`, in that order (matched ignoring case), so that a record's
/// sizes read back with their kinds (bytes or counts); names no problem
/// declares are counts, in a list made once per distinct list of names.
pub fn dims_named(names: &[&str]) -> &'static [Dim] {
    let same = |dims: &[Dim]| {
        dims.len() == names.len()
            && dims
                .iter()
                .zip(names)
                .all(|(d, n)| d.name.eq_ignore_ascii_case(n))
    };
    if let Some(p) = REGISTRY.iter().find(|p| same(p.dims())) {
        return p.dims();
    }
    if same(crate::dims::N) {
        return crate::dims::N;
    }
    static MADE: std::sync::Mutex<Vec<&'static [Dim]>> = std::sync::Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(dims) = made.iter().find(|d| same(d)) {
        return dims;
    }
    // Leaked once per distinct list: records of a problem no longer
    // registered still read, with every dimension a count.
    let dims: &'static [Dim] = Box::leak(
        names
            .iter()
            .map(|n| Dim::count(Box::leak(n.to_string().into_boxed_str())))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    made.push(dims);
    dims
}

/// The name of the problem an author declares in the header's
/// `[elementwise]` table.
pub const ELEMENTWISE: &str = "elementwise";

/// The name of the host-device copy an author declares in the header's
/// `[transfer]` table.
pub const TRANSFER: &str = "transfer";

/// Names of all problems, for error messages.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = REGISTRY.iter().map(|p| p.name()).collect();
    names.push(ELEMENTWISE);
    names.push(TRANSFER);
    names
}

/// A problem as an example uses it: one of the [`REGISTRY`], or one made
/// from the example's own header.
pub enum ProblemRef {
    /// A registered problem.
    Registered(&'static dyn Problem),
    /// A problem the header declares.
    Declared(Box<dyn Problem>),
}

impl std::ops::Deref for ProblemRef {
    type Target = dyn Problem;
    fn deref(&self) -> &Self::Target {
        match self {
            ProblemRef::Registered(p) => *p,
            ProblemRef::Declared(p) => p.as_ref(),
        }
    }
}

/// `name vVERSION`, part of every key; unknown names describe themselves
/// as such so that a typo is reported at measuring time, not hashed away.
pub fn describe(name: &str) -> String {
    match lookup(name) {
        Some(p) => format!("{} v{}", p.name(), p.version()),
        None if name == ELEMENTWISE => format!("{ELEMENTWISE} v{}", elementwise::VERSION),
        None if name == TRANSFER => format!("{TRANSFER} v{}", transfer::VERSION),
        None => format!("{name} (unknown)"),
    }
}

/// A problem's check as the GPU can do it: what the runner's support
/// kernels compute, and how their result becomes the problem's verdict
/// (the same [`CheckOutcome`], its tolerance and wording, as the host
/// check). The runner uses it only on inputs it has verified unchanged
/// since the upload, and never for the Run service's jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceCheck {
    /// An inclusive prefix sum of float32 `input` into float32 `output`,
    /// judged as [`ScanF32`] judges it: float64 prefix sums and sums of
    /// magnitudes chunk by chunk ([`scan_f32::CHECK_CHUNK`] elements, each
    /// chunk starting from the float64 totals of the chunks before it),
    /// the worst element of each chunk returned, the worst of all turned
    /// into the verdict by [`scan_f32::outcome`].
    PrefixSumF32 {
        /// The input buffer's name.
        input: &'static str,
        /// The output buffer's name.
        output: &'static str,
    },
}

/// The relative error of `got` against `reference`, as a check reports
/// it: infinite for NaN or infinity, so that it never passes.
pub fn relative_error(got: f64, reference: f64, scale: f64) -> f64 {
    let e = (got - reference).abs() / scale;
    if e.is_finite() { e } else { f64::INFINITY }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Names are unique and every problem is found by its name.
    #[test]
    fn registry_names_are_unique_and_found() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for p in REGISTRY {
            assert_eq!(lookup(p.name()).unwrap().name(), p.name());
        }
        assert!(names.contains(&ELEMENTWISE) && lookup(ELEMENTWISE).is_none());
        assert!(names.contains(&TRANSFER) && lookup(TRANSFER).is_none());
        assert_eq!(describe("nope"), "nope (unknown)");
    }
}
