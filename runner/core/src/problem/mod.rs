//! Problems: the unit authors reuse. A problem owns its inputs (seeded
//! random, never zeros), its float64 reference, its check and tolerance, its
//! byte count, and the buffers kernel arguments bind to. Adding a problem is
//! one new file here plus one line in [`lookup`].

mod sum_f32;

pub use sum_f32::SumF32;

/// How an output buffer starts each run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutputInit {
    /// An accumulator the kernel adds into: set to the operation's identity
    /// before every run (outside the timed region).
    Identity(f32),
    /// Filled with NaN so that an element the kernel never writes fails.
    Poison,
}

/// A buffer the problem owns.
#[derive(Debug, Clone, PartialEq)]
pub enum BufferRole {
    /// Read by the kernel, drawn by [`Problem::input`].
    Input,
    /// Written by the kernel, checked afterwards.
    Output(OutputInit),
}

/// One named `f32` buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferSpec {
    /// Name kernel arguments use (`input`, `out`).
    pub name: &'static str,
    /// Elements.
    pub len: u64,
    /// Its role.
    pub role: BufferRole,
}

/// The verdict on one run.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// Error as the problem defines it.
    pub error: f64,
    /// What the error must not exceed.
    pub tolerance: f64,
    /// Whether it passed (NaN never does).
    pub pass: bool,
    /// A sentence for the page (expected vs got).
    pub detail: String,
}

/// Which data a run gets, and so how its answer is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Data {
    /// Random values as the problem draws them for timing; the answer is
    /// held to the problem's tolerance against the float64 reference.
    Timed,
    /// Values chosen so that the float32 arithmetic of every correct
    /// kernel is exact whatever its order (small integers for a sum); the
    /// answer must equal the reference exactly, so that one element
    /// dropped, read twice or read from the wrong place shows. Used at the
    /// edge sizes.
    Exact,
}

/// A problem kernels solve.
pub trait Problem: Sync {
    /// Name used in headers (`sum_f32`).
    fn name(&self) -> &'static str;
    /// Bumped whenever inputs, reference or check change.
    fn version(&self) -> u32;
    /// The buffers at size `n`.
    fn buffers(&self, n: u64) -> Vec<BufferSpec>;
    /// The contents of input `name` at size `n` from `seed`, of the kind
    /// `data` asks for.
    fn input(&self, name: &str, n: u64, seed: u64, data: Data) -> Vec<f32>;
    /// Checks `outputs` (by name) against the float64 reference of
    /// `inputs`, exactly or within the tolerance as `data` says.
    fn check(
        &self,
        n: u64,
        inputs: &[(&str, &[f32])],
        outputs: &[(&str, &[f32])],
        data: Data,
    ) -> CheckOutcome;
    /// Bytes the algorithm must move: each input read once, each output
    /// written once.
    fn bytes(&self, n: u64) -> u64;
    /// Untimed sizes checked besides the declared ones, chosen to catch
    /// edge bugs (ragged tails, tiny inputs); checked with [`Data::Exact`].
    fn edge_sizes(&self) -> Vec<u64>;
    /// The largest size the problem takes, and why no larger: kernels
    /// receive `n` as a 32-bit unsigned int, so no problem goes past
    /// 2^32 - 1, and a problem may set a lower bound that its kernels'
    /// index arithmetic needs.
    fn max_size(&self) -> (u64, &'static str) {
        (
            u64::from(u32::MAX),
            "kernels receive n as a 32-bit unsigned int",
        )
    }
}

/// The problem called `name`.
pub fn lookup(name: &str) -> Option<&'static dyn Problem> {
    match name {
        "sum_f32" => Some(&SumF32),
        _ => None,
    }
}

/// Names of all problems, for error messages.
pub fn names() -> Vec<&'static str> {
    vec!["sum_f32"]
}

/// `name vVERSION`, part of every key; unknown names describe themselves
/// as such so that a typo is reported at measuring time, not hashed away.
pub fn describe(name: &str) -> String {
    match lookup(name) {
        Some(p) => format!("{} v{}", p.name(), p.version()),
        None => format!("{name} (unknown)"),
    }
}
