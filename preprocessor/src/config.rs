//! Settings of the preprocessor: the `[preprocessor.cuda]` table of
//! book.toml, then the `CUDA_MEASURED_*` environment variables on top.
//!
//! ```toml
//! [preprocessor.cuda]
//! mode = "auto"          # auto | frozen | force
//! strict = false         # true: fail the build on stale, missing or failing results;
//!                        # "author": on all but examples not yet measured
//! runner = "cuda-runner" # path (relative to the book) or name on PATH
//! kernels = "kernels"    # folder of kernel files, relative to the book
//! results = "results"    # results store, relative to the book
//! timeout-s = 120        # time limit of one example without its own
//! on-failure = "continue" # continue | bail, for malformed examples
//! compile = true         # compile every example with NVRTC in every build
//!                        # (cached in .cuda-measured/compile/)
//! run-service = "http://127.0.0.1:8787" # the `cuda-runner serve` the page's
//!                        # Run button posts to (none: Run says it needs one)
//! ```

use mdbook_preprocessor::config::Config;
use serde::Deserialize;
use serde::de::IgnoredAny;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// When examples are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Measure stale and missing examples when a GPU is present.
    #[default]
    Auto,
    /// Never measure; render what the store holds.
    Frozen,
    /// Measure every example.
    Force,
}

impl std::str::FromStr for Mode {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "auto" => Ok(Mode::Auto),
            "frozen" => Ok(Mode::Frozen),
            "force" => Ok(Mode::Force),
            other => Err(ConfigError::Env {
                var: ENV_MODE,
                value: other.to_string(),
                allowed: "auto, frozen or force",
            }),
        }
    }
}

/// What a malformed example does to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnFailure {
    /// Render a red error panel and go on.
    #[default]
    Continue,
    /// Render the panels, report every malformed example, fail the build.
    Bail,
}

/// What a build refuses (`strict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strict {
    /// Nothing: malformed examples are listed, the rest counted.
    #[default]
    Off,
    /// Every example that is not current and as declared, every figure
    /// that is not measured, every stored report that is stale (CI).
    On,
    /// As [`Strict::On`], but examples that only wait to be measured (no
    /// record for their current code: missing or stale) are accepted, and
    /// so are figures that wait only on them: the check of an author
    /// without a GPU. Broken and failed examples, figures of unknown
    /// examples or sizes, and stale reports still fail.
    Author,
}

impl From<bool> for Strict {
    fn from(on: bool) -> Self {
        if on { Strict::On } else { Strict::Off }
    }
}

impl std::str::FromStr for Strict {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(Strict::On),
            "" | "0" | "false" | "no" | "off" => Ok(Strict::Off),
            "author" => Ok(Strict::Author),
            _ => Err(ConfigError::Env {
                var: ENV_STRICT,
                value: s.to_string(),
                allowed: "1/true, 0/false or author",
            }),
        }
    }
}

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Bool(bool),
            Word(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Bool(on) => Ok(Strict::from(on)),
            Written::Word(word) if word == "author" => Ok(Strict::Author),
            Written::Word(word) => Err(serde::de::Error::custom(format!(
                "strict = {word:?} is not understood: use true, false or \"author\""
            ))),
        }
    }
}

/// Environment variable overriding `mode`.
pub const ENV_MODE: &str = "CUDA_MEASURED_MODE";
/// Environment variable overriding `strict` (`1`/`true`, `0`/`false` or
/// `author`).
pub const ENV_STRICT: &str = "CUDA_MEASURED_STRICT";
/// Environment variable overriding `runner`.
pub const ENV_RUNNER: &str = "CUDA_MEASURED_RUNNER";
/// Environment variable overriding `compile` (`0`/`false` turns the
/// compiling of every build off, `1`/`true` on).
pub const ENV_COMPILE: &str = "CUDA_MEASURED_COMPILE";

/// Environment variable turning quick mode on (`1`/`true`): the preview's
/// measurements, one process each, kept apart from the results store.
pub const ENV_QUICK: &str = "CUDA_MEASURED_QUICK";

/// Environment variable overriding `run-service`.
pub const ENV_RUN_SERVICE: &str = "CUDA_MEASURED_RUN_SERVICE";

/// The folder, under the book root, of the build's compile cache.
pub const COMPILE_CACHE: &str = ".cuda-measured/compile";

/// The folder, under the book root, of quick measurements (git-ignored).
pub const QUICK_STORE: &str = ".cuda-measured/quick";

/// The table as written; unknown keys are refused so typos surface.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Table {
    mode: Option<Mode>,
    strict: Option<Strict>,
    runner: Option<String>,
    kernels: Option<PathBuf>,
    results: Option<PathBuf>,
    timeout_s: Option<u64>,
    on_failure: Option<OnFailure>,
    compile: Option<bool>,
    run_service: Option<String>,
    // Keys mdBook itself reads for every preprocessor: accepted, unused.
    #[serde(rename = "command")]
    _command: Option<IgnoredAny>,
    #[serde(rename = "before")]
    _before: Option<IgnoredAny>,
    #[serde(rename = "after")]
    _after: Option<IgnoredAny>,
    #[serde(rename = "renderers")]
    _renderers: Option<IgnoredAny>,
    #[serde(rename = "optional")]
    _optional: Option<IgnoredAny>,
}

/// Why the settings cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A run-service that is not an http(s) URL.
    #[error(
        "{from}: run-service = {value:?} is not an http:// or https:// URL; write the address of a `cuda-runner serve`, such as \"http://127.0.0.1:8787\""
    )]
    RunService {
        /// `book.toml [preprocessor.cuda]` or the environment variable.
        from: &'static str,
        /// The value written.
        value: String,
    },
    /// The book.toml table does not parse.
    #[error(
        "book.toml [preprocessor.cuda]: {0}; known keys: mode, strict, runner, kernels, results, timeout-s, on-failure, compile, run-service"
    )]
    Table(String),
    /// An environment variable with a value we cannot use.
    #[error("{var}={value:?} is not understood: use {allowed}")]
    Env {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What it may be.
        allowed: &'static str,
    },
}

/// Resolved settings, with absolute folders.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// When to measure.
    pub mode: Mode,
    /// What fails the build besides malformed examples under `on-failure`.
    pub strict: Strict,
    /// The `cuda-runner` executable: a path, or a bare name looked up on PATH.
    pub runner: PathBuf,
    /// The book root.
    pub root: PathBuf,
    /// The chapters folder (`src`).
    pub src: PathBuf,
    /// The kernels folder.
    pub kernels: PathBuf,
    /// The results store folder.
    pub results: PathBuf,
    /// Time limit of an example whose header sets none.
    pub timeout: Duration,
    /// What malformed examples do.
    pub on_failure: OnFailure,
    /// Whether every build compiles the examples (through the runner, with
    /// NVRTC) and holds each declaration to its kernels.
    pub compile: bool,
    /// The compile cache folder ([`COMPILE_CACHE`] under the root).
    pub compile_cache: PathBuf,
    /// Quick mode: examples are measured in one process and their records
    /// kept in [`Settings::quick_store`], never in the results store. Off
    /// whenever the build is strict (`strict = true`).
    pub quick: bool,
    /// The quick records' folder ([`QUICK_STORE`] under the root).
    pub quick_store: PathBuf,
    /// The share of the examples to measure that this machine measures
    /// (`CUDA_MEASURED_SHARD=K/N`, [`crate::shard`]); all when absent.
    pub shard: Option<crate::shard::Shard>,
    /// The page's Run button: where it posts and where a reader learns to
    /// start a service.
    pub run: RunLinks,
}

/// What the page's editable blocks are told ([`crate::render::Runnable`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunLinks {
    /// The `cuda-runner serve` address (`run-service`, else
    /// [`ENV_RUN_SERVICE`]), without a trailing slash; none: Run says it
    /// needs a runner service.
    pub service: Option<String>,
    /// The README's section on running a service, when book.toml names the
    /// repository (`[output.html] git-repository-url`).
    pub help: Option<String>,
}

/// The README's section on Run in the page, as GitHub names its anchor.
pub const RUN_HELP_ANCHOR: &str = "#run-in-the-page";

impl Settings {
    /// Reads `[preprocessor.cuda]` of a book rooted at `root`, then applies
    /// the environment through `env` (pass `|k| std::env::var(k).ok()`).
    pub fn load(
        root: &Path,
        config: &Config,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let table: Table = config
            .get("preprocessor.cuda")
            .map_err(|e| ConfigError::Table(format!("{e:#}")))?
            .unwrap_or_default();
        let mut mode = table.mode.unwrap_or_default();
        let mut strict = table.strict.unwrap_or_default();
        let mut runner = table.runner;
        if let Some(value) = env(ENV_MODE).filter(|v| !v.trim().is_empty()) {
            mode = value.parse()?;
        }
        if let Some(value) = env(ENV_STRICT) {
            strict = value.parse()?;
        }
        if let Some(value) = env(ENV_RUNNER).filter(|v| !v.trim().is_empty()) {
            runner = Some(value);
        }
        let mut compile = table.compile.unwrap_or(true);
        if let Some(value) = env(ENV_COMPILE).filter(|v| !v.trim().is_empty()) {
            compile = switch(ENV_COMPILE, &value)?;
        }
        let mut quick = false;
        if let Some(value) = env(ENV_QUICK).filter(|v| !v.trim().is_empty()) {
            quick = switch(ENV_QUICK, &value)?;
        }
        let shard = match env(crate::shard::ENV_SHARD).filter(|v| !v.trim().is_empty()) {
            Some(value) => Some(value.parse().map_err(|_| ConfigError::Env {
                var: crate::shard::ENV_SHARD,
                value,
                allowed: "K/N with 1 <= K <= N (`2/3`: the second of every three examples to measure)",
            })?),
            None => None,
        };
        let run = RunLinks {
            service: run_service(table.run_service, env(ENV_RUN_SERVICE))?,
            help: config
                .get::<String>("output.html.git-repository-url")
                .ok()
                .flatten()
                .map(|url| format!("{}{RUN_HELP_ANCHOR}", url.trim_end_matches('/'))),
        };
        let under_root =
            |p: Option<PathBuf>, default: &str| root.join(p.unwrap_or_else(|| default.into()));
        Ok(Settings {
            mode,
            strict,
            runner: runner.map_or_else(default_runner, |r| runner_path(root, &r)),
            root: root.to_path_buf(),
            src: root.join(&config.book.src),
            kernels: under_root(table.kernels, "kernels"),
            results: under_root(table.results, "results"),
            timeout: table.timeout_s.map_or(
                cuda_measured_core::isolate::DEFAULT_LIMIT,
                Duration::from_secs,
            ),
            on_failure: table.on_failure.unwrap_or_default(),
            compile,
            compile_cache: root.join(COMPILE_CACHE),
            // A strict build judges the results store alone.
            quick: quick && strict != Strict::On,
            quick_store: root.join(QUICK_STORE),
            shard,
            run,
        })
    }

    /// How a path under the book root is shown in messages: relative, with
    /// forward slashes.
    pub fn shown(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// The run service's address: the environment's (when set and not empty),
/// else book.toml's; an http(s) URL without its trailing slash.
fn run_service(table: Option<String>, env: Option<String>) -> Result<Option<String>, ConfigError> {
    let (from, value) = match env.filter(|v| !v.trim().is_empty()) {
        Some(value) => (ENV_RUN_SERVICE, value),
        None => match table {
            Some(value) => ("book.toml [preprocessor.cuda]", value),
            None => return Ok(None),
        },
    };
    let url = value.trim().trim_end_matches('/');
    let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
    if !scheme_ok || url.contains(char::is_whitespace) || url.contains('"') {
        return Err(ConfigError::RunService { from, value });
    }
    Ok(Some(url.to_string()))
}

/// An on/off environment variable's value.
fn switch(var: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ConfigError::Env {
            var,
            value: value.to_string(),
            allowed: "1/true or 0/false",
        }),
    }
}

/// A configured runner: a bare name is looked up on PATH when spawned; a
/// path is relative to the book root.
fn runner_path(root: &Path, value: &str) -> PathBuf {
    let path = Path::new(value);
    if path.components().count() == 1 {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

/// The runner built alongside this executable (same cargo target folder),
/// else `cuda-runner` on PATH.
fn default_runner() -> PathBuf {
    let name = format!("cuda-runner{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .filter(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml_text: &str) -> Config {
        toml_text.parse().expect("test book.toml parses")
    }

    fn load(toml_text: &str, env: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        Settings::load(Path::new("/book"), &config(toml_text), |k| {
            env.iter()
                .find(|(var, _)| *var == k)
                .map(|(_, v)| v.to_string())
        })
    }

    // A book without the table gets the documented defaults.
    #[test]
    fn defaults() {
        let s = load("[book]\ntitle = \"t\"\n", &[]).unwrap();
        assert_eq!(s.mode, Mode::Auto);
        assert_eq!(s.strict, Strict::Off);
        assert_eq!(s.kernels, Path::new("/book/kernels"));
        assert_eq!(s.results, Path::new("/book/results"));
        assert_eq!(s.src, Path::new("/book/src"));
        assert_eq!(s.timeout, cuda_measured_core::isolate::DEFAULT_LIMIT);
        assert_eq!(s.on_failure, OnFailure::Continue);
        assert!(s.compile);
        assert_eq!(s.compile_cache, Path::new("/book/.cuda-measured/compile"));
        assert_eq!(s.run, RunLinks::default());
    }

    // The run service comes from book.toml, the environment wins, a
    // trailing slash goes, and anything but an http(s) URL is an error
    // naming where it was written; the help link follows the repository.
    #[test]
    fn run_service() {
        let toml_text = "[preprocessor.cuda]\nrun-service = \"http://127.0.0.1:8787/\"\n";
        let s = load(toml_text, &[]).unwrap();
        assert_eq!(s.run.service.as_deref(), Some("http://127.0.0.1:8787"));
        assert_eq!(s.run.help, None);
        let s = load(toml_text, &[(ENV_RUN_SERVICE, "https://gpu.example/api")]).unwrap();
        assert_eq!(s.run.service.as_deref(), Some("https://gpu.example/api"));
        let s = load(toml_text, &[(ENV_RUN_SERVICE, " ")]).unwrap();
        assert_eq!(s.run.service.as_deref(), Some("http://127.0.0.1:8787"));
        let err = load(
            "[preprocessor.cuda]\nrun-service = \"127.0.0.1:8787\"\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("book.toml [preprocessor.cuda]: run-service = \"127.0.0.1:8787\""),
            "{err}"
        );
        let err = load("", &[(ENV_RUN_SERVICE, "ftp://x")])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("CUDA_MEASURED_RUN_SERVICE: "), "{err}");
        let s = load(
            "[output.html]\ngit-repository-url = \"https://github.com/o/book/\"\n",
            &[],
        )
        .unwrap();
        assert_eq!(
            s.run.help.as_deref(),
            Some("https://github.com/o/book#run-in-the-page")
        );
    }

    // Every key of the table is read, next to mdBook's own keys.
    #[test]
    fn table_keys() {
        let s = load(
            "[preprocessor.cuda]\ncommand = \"mdbook-cuda\"\nafter = [\"links\"]\nrenderers = [\"html\"]\nmode = \"frozen\"\nstrict = true\nrunner = \"bin/cuda-runner\"\nkernels = \"k\"\nresults = \"r\"\ntimeout-s = 5\non-failure = \"bail\"\ncompile = false\n",
            &[],
        )
        .unwrap();
        assert_eq!(s.mode, Mode::Frozen);
        assert_eq!(s.strict, Strict::On);
        assert_eq!(s.runner, Path::new("/book/bin/cuda-runner"));
        assert_eq!(s.kernels, Path::new("/book/k"));
        assert_eq!(s.results, Path::new("/book/r"));
        assert_eq!(s.timeout, Duration::from_secs(5));
        assert_eq!(s.on_failure, OnFailure::Bail);
        assert!(!s.compile);
    }

    // The environment wins over book.toml, so CI can be strict without editing it.
    #[test]
    fn environment_overrides() {
        let toml_text = "[preprocessor.cuda]\nmode = \"force\"\nrunner = \"x/y\"\n";
        let s = load(
            toml_text,
            &[
                (ENV_MODE, "frozen"),
                (ENV_STRICT, "true"),
                (ENV_RUNNER, "my-runner"),
            ],
        )
        .unwrap();
        assert_eq!(s.mode, Mode::Frozen);
        assert_eq!(s.strict, Strict::On);
        assert_eq!(s.runner, Path::new("my-runner"));
        let strict = |value| load(toml_text, &[(ENV_STRICT, value)]).unwrap().strict;
        assert_eq!(strict("1"), Strict::On);
        assert_eq!(strict("0"), Strict::Off);
        assert_eq!(strict(" Author "), Strict::Author);
        let compile = |toml_text, value| load(toml_text, &[(ENV_COMPILE, value)]).unwrap().compile;
        assert!(!compile(toml_text, "0"));
        assert!(!compile(toml_text, "false"));
        assert!(compile("[preprocessor.cuda]\ncompile = false\n", "1"));
        assert!(!compile("[preprocessor.cuda]\ncompile = false\n", ""));
    }

    // The author's mode of strict is a value of the same switch, in
    // book.toml and from the environment, which wins.
    #[test]
    fn strict_author() {
        let s = load("[preprocessor.cuda]\nstrict = \"author\"\n", &[]).unwrap();
        assert_eq!(s.strict, Strict::Author);
        let s = load(
            "[preprocessor.cuda]\nstrict = false\n",
            &[(ENV_STRICT, "author")],
        )
        .unwrap();
        assert_eq!(s.strict, Strict::Author);
        let s = load(
            "[preprocessor.cuda]\nstrict = \"author\"\n",
            &[(ENV_STRICT, "1")],
        )
        .unwrap();
        assert_eq!(s.strict, Strict::On);
        let err = load("[preprocessor.cuda]\nstrict = \"authors\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("use true, false or \"author\""), "{err}");
    }

    // Typos in keys or values are errors that list what is allowed.
    #[test]
    fn typos_are_errors() {
        let err = load("[preprocessor.cuda]\ntimeout = 5\n", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("timeout-s"), "{err}");
        let err = load("[preprocessor.cuda]\nmode = \"often\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("often"), "{err}");
        let err = load("", &[(ENV_MODE, "often")]).unwrap_err().to_string();
        assert!(err.contains("auto, frozen or force"), "{err}");
        let err = load("", &[(ENV_STRICT, "maybe")]).unwrap_err().to_string();
        assert!(err.contains("CUDA_MEASURED_STRICT"), "{err}");
        assert!(err.contains("1/true, 0/false or author"), "{err}");
        let err = load("", &[(ENV_COMPILE, "sometimes")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("CUDA_MEASURED_COMPILE"), "{err}");
    }
}
