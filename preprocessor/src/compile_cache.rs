//! The build's compile cache, `.cuda-measured/compile/` under the book
//! root (git-ignored; delete it at any time): what NVRTC made of each
//! example, so that a build compiles only what changed and a build with
//! nothing changed starts no runner at all.
//!
//! One file per compile: `<cache key>.json`, the key a SHA-256 of the
//! example's key (source, declaration, problem, options, method), its
//! source as compiled (with the `#line` markers that put the author's file
//! and line into NVRTC's messages, so that an example moved in its chapter
//! is compiled again and its errors keep their lines), the target
//! architecture, and the runner's and NVRTC's versions ([`Compiler`]). The
//! file holds those again with the verdict; only verdicts on the source
//! (compiled, refused, or a compile time-out: the limit is in the
//! declaration, so raising it makes a new key) are kept, never "no NVRTC"
//! or a failure of NVRTC itself.
//!
//! Which NVRTC a runner loads is known only by asking it; so that a build
//! need not start it to find out, `runners/<hash of its path>.json`
//! remembers the answer with what it depends on: the runner executable's
//! size and modification time, `LD_LIBRARY_PATH`, and the NVRTC library
//! file the runner loaded (its size and time). When any of them changed,
//! the build asks the runner again.

use cuda_measured_core::atomic_file::write_json_atomically;
use cuda_measured_core::compile_job::{CompileAnswer, CompileVerdict};
use cuda_measured_core::example::Example;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Version of the files' format and of the key's recipe: a change makes
/// every cached verdict a miss.
pub const FORMAT: u32 = 1;

/// Who compiled: the target architecture, the runner (its version and its
/// executable file: a rebuilt runner keeps its version but changes its
/// file, and what it caches, such as error hints and entry points, may
/// have changed) and the NVRTC it loaded (its `major.minor` and its library
/// file: patch releases share a version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compiler {
    /// `sm_90`.
    pub arch: String,
    /// The runner's package version.
    pub runner: String,
    /// NVRTC's `major.minor`.
    pub nvrtc: String,
    /// The runner's executable, size and time.
    #[serde(default)]
    pub runner_file: Option<FileStamp>,
    /// The NVRTC library the runner loaded, where it could tell.
    #[serde(default)]
    pub library_file: Option<FileStamp>,
}

impl Compiler {
    /// The compiler of the runner at `runner` from its answer, when the
    /// answer names its NVRTC.
    pub fn of(answer: &CompileAnswer, runner: &Path, arch: &str) -> Option<Compiler> {
        answer.nvrtc.as_ref().map(|nvrtc| Compiler {
            arch: arch.to_string(),
            runner: answer.runner.clone(),
            nvrtc: nvrtc.version.clone(),
            runner_file: FileStamp::of(runner),
            library_file: nvrtc
                .library
                .as_deref()
                .and_then(|l| FileStamp::of(Path::new(l))),
        })
    }
}

#[derive(Serialize)]
struct KeyInput<'a> {
    format: u32,
    key: &'a str,
    source: &'a str,
    file: &'a str,
    compiler: &'a Compiler,
}

/// The cache key of `example` (whose store key is `key`) compiled by
/// `compiler`: a SHA-256 hex digest.
pub fn cache_key(example: &Example, key: &str, compiler: &Compiler) -> String {
    let input = KeyInput {
        format: FORMAT,
        key,
        source: &example.source,
        file: &example.origin.file,
        compiler,
    };
    hex(&Sha256::digest(
        serde_json::to_vec(&input).expect("key input serialises"),
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One cache file: what was compiled, by whom, and the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheFile {
    /// [`FORMAT`].
    pub format: u32,
    /// The example's id, for a reader of the folder.
    pub example: String,
    /// The example's key in the results store.
    pub key: String,
    /// Who compiled it.
    pub compiler: Compiler,
    /// What NVRTC made of it.
    pub verdict: CompileVerdict,
}

/// A runner file's identity: where it is, its size and modification time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// The path.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, nanoseconds since 1970.
    pub modified_ns: u128,
}

impl FileStamp {
    /// The stamp of the file at `path` now, `None` when it cannot be read.
    pub fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        Some(FileStamp {
            path: path.to_path_buf(),
            size: meta.len(),
            modified_ns: modified.as_nanos(),
        })
    }

    /// Whether the file is still the one stamped.
    fn holds(&self) -> bool {
        FileStamp::of(&self.path).as_ref() == Some(self)
    }
}

/// What a runner answered about its NVRTC, and what the answer depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunnerStamp {
    /// [`FORMAT`].
    pub format: u32,
    /// The runner executable.
    pub runner: FileStamp,
    /// `LD_LIBRARY_PATH` when it answered.
    pub ld_library_path: Option<String>,
    /// The NVRTC library it loaded, where it could tell.
    pub library: Option<FileStamp>,
    /// The runner's version.
    pub runner_version: String,
    /// NVRTC's version.
    pub nvrtc: String,
}

/// The cache folder.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir` (`<book>/.cuda-measured/compile`).
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of a cache key.
    pub fn path_of(&self, cache_key: &str) -> PathBuf {
        self.dir.join(format!("{cache_key}.json"))
    }

    /// The cached verdict on `example` compiled by `compiler`; `None` when
    /// there is none, or the file is unreadable or holds anything else.
    pub fn lookup(
        &self,
        example: &Example,
        key: &str,
        compiler: &Compiler,
    ) -> Option<CompileVerdict> {
        let path = self.path_of(&cache_key(example, key, compiler));
        let text = std::fs::read(&path).ok()?;
        let file: CacheFile = serde_json::from_slice(&text).ok()?;
        let hit = file.format == FORMAT && file.key == key && file.compiler == *compiler;
        if hit {
            // Used now: the last to go when the cache is pruned.
            let _ = std::fs::File::options()
                .append(true)
                .open(&path)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        }
        hit.then_some(file.verdict)
    }

    /// Deletes the least recently used verdicts beyond the `keep` most
    /// recent (a hit or a store counts as a use), so that a book edited for
    /// months does not keep every version of every kernel. Returns how
    /// many files it deleted; a file it cannot delete is left.
    pub fn prune(&self, keep: usize) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if files.len() <= keep {
            return 0;
        }
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        files[keep..]
            .iter()
            .filter(|(_, path)| std::fs::remove_file(path).is_ok())
            .count()
    }

    /// Keeps a verdict on the source (compiled, refused or timed out: the
    /// next build does not wait on NVRTC again); returns whether it was
    /// kept. Written whole or not at all.
    pub fn store(
        &self,
        example: &Example,
        key: &str,
        compiler: &Compiler,
        verdict: &CompileVerdict,
    ) -> std::io::Result<bool> {
        if !matches!(
            verdict,
            CompileVerdict::Compiled { .. }
                | CompileVerdict::Refused { .. }
                | CompileVerdict::TimedOut { .. }
        ) {
            return Ok(false);
        }
        let file = CacheFile {
            format: FORMAT,
            example: example.id.clone(),
            key: key.to_string(),
            compiler: compiler.clone(),
            verdict: verdict.clone(),
        };
        let path = self.path_of(&cache_key(example, key, compiler));
        write_json_atomically(&path, &file)?;
        Ok(true)
    }

    /// The file remembering what the runner at `runner` answered.
    fn stamp_path(&self, runner: &Path) -> PathBuf {
        let digest = Sha256::digest(runner.to_string_lossy().as_bytes());
        self.dir
            .join("runners")
            .join(format!("{}.json", &hex(&digest)[..16]))
    }

    /// Who compiles with the runner at `runner`, as it last answered, when
    /// nothing it depends on changed since: the executable, the NVRTC
    /// library it loaded, `ld_library_path`.
    pub fn known_compiler(
        &self,
        runner: &Path,
        ld_library_path: Option<&str>,
        arch: &str,
    ) -> Option<Compiler> {
        let text = std::fs::read(self.stamp_path(runner)).ok()?;
        let stamp: RunnerStamp = serde_json::from_slice(&text).ok()?;
        let holds = stamp.format == FORMAT
            && stamp.runner.path == runner
            && stamp.runner.holds()
            && stamp.ld_library_path.as_deref() == ld_library_path
            && stamp.library.as_ref().is_none_or(FileStamp::holds);
        holds.then(|| Compiler {
            arch: arch.to_string(),
            runner: stamp.runner_version,
            nvrtc: stamp.nvrtc,
            runner_file: Some(stamp.runner),
            library_file: stamp.library,
        })
    }

    /// Remembers the runner's `answer` (when it names its NVRTC), so that
    /// the next build need not ask.
    pub fn remember_runner(
        &self,
        runner: &Path,
        ld_library_path: Option<&str>,
        answer: &CompileAnswer,
    ) -> std::io::Result<()> {
        let (Some(nvrtc), Some(runner_stamp)) = (&answer.nvrtc, FileStamp::of(runner)) else {
            return Ok(());
        };
        let library = match &nvrtc.library {
            Some(path) => match FileStamp::of(Path::new(path)) {
                Some(stamp) => Some(stamp),
                // A library it names but that cannot be read: ask again next time.
                None => return Ok(()),
            },
            None => None,
        };
        let stamp = RunnerStamp {
            format: FORMAT,
            runner: runner_stamp,
            ld_library_path: ld_library_path.map(str::to_string),
            library,
            runner_version: answer.runner.clone(),
            nvrtc: nvrtc.version.clone(),
        };
        write_json_atomically(&self.stamp_path(runner), &stamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::KERNEL;
    use cuda_measured_core::compile_job::Nvrtc;
    use cuda_measured_core::ptx::{Entry, ParamKind};

    fn example(body: &str, line: usize) -> Example {
        let dir = std::env::temp_dir();
        Example::from_inline(&dir, "src/ch.md", &dir, body, line, "demo").unwrap()
    }

    fn compiler() -> Compiler {
        Compiler {
            arch: "sm_90".into(),
            runner: "0.1.0".into(),
            nvrtc: "13.0".into(),
            runner_file: None,
            library_file: None,
        }
    }

    fn compiled() -> CompileVerdict {
        CompileVerdict::Compiled {
            log: String::new(),
            cubin_bytes: 7,
            entries: vec![Entry {
                name: "tree".into(),
                params: vec![ParamKind::U64, ParamKind::U64, ParamKind::U32],
            }],
        }
    }

    fn key_of(example: &Example) -> String {
        cuda_measured_core::key::example_key(example)
    }

    // The key follows the example's key, its source as compiled (its
    // lines included), the architecture and the runner's and NVRTC's
    // versions, and nothing else.
    #[test]
    fn the_key_follows_what_changes_a_compile() {
        let ex = example(KERNEL, 3);
        let key = key_of(&ex);
        let base = cache_key(&ex, &key, &compiler());
        assert_eq!(base.len(), 64);
        assert_eq!(base, cache_key(&example(KERNEL, 3), &key, &compiler()));
        let moved = example(KERNEL, 30);
        assert_eq!(key_of(&moved), key, "the store key ignores the position");
        assert_ne!(
            base,
            cache_key(&moved, &key, &compiler()),
            "errors name lines"
        );
        let edited = example(&KERNEL.replace("{}", "{ }"), 3);
        assert_ne!(base, cache_key(&edited, &key_of(&edited), &compiler()));
        assert_ne!(base, cache_key(&ex, "another key", &compiler()));
        for changed in [
            Compiler {
                arch: "sm_80".into(),
                ..compiler()
            },
            Compiler {
                nvrtc: "13.1".into(),
                ..compiler()
            },
            Compiler {
                runner: "0.2.0".into(),
                ..compiler()
            },
        ] {
            assert_ne!(base, cache_key(&ex, &key, &changed), "{changed:?}");
        }
    }

    // A stored verdict reads back for the same example and compiler only;
    // the file is JSON naming the example, its key and the compiler.
    #[test]
    fn verdicts_read_back_for_the_same_compile_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("compile"));
        let ex = example(KERNEL, 3);
        let key = key_of(&ex);
        assert_eq!(cache.lookup(&ex, &key, &compiler()), None);
        assert!(cache.store(&ex, &key, &compiler(), &compiled()).unwrap());
        assert_eq!(cache.lookup(&ex, &key, &compiler()), Some(compiled()));
        let other = Compiler {
            nvrtc: "13.1".into(),
            ..compiler()
        };
        assert_eq!(cache.lookup(&ex, &key, &other), None);

        let path = cache.path_of(&cache_key(&ex, &key, &compiler()));
        let text = std::fs::read_to_string(&path).unwrap();
        let file: CacheFile = serde_json::from_str(&text).unwrap();
        assert_eq!(
            file,
            CacheFile {
                format: FORMAT,
                example: "demo".into(),
                key: key.clone(),
                compiler: compiler(),
                verdict: compiled(),
            }
        );
        assert!(
            text.contains("\"outcome\": \"compiled\""),
            "the verdict is the runner's own form:\n{text}"
        );
        // A file that does not parse, or holds another compile, is a miss.
        std::fs::write(&path, "{").unwrap();
        assert_eq!(cache.lookup(&ex, &key, &compiler()), None);
        std::fs::write(&path, text.replace(&key, "another")).unwrap();
        assert_eq!(cache.lookup(&ex, &key, &compiler()), None);
    }

    // Only verdicts on the source are kept (a compile time-out among them,
    // so that the next build does not wait again): never the absence of
    // NVRTC or a failure of NVRTC itself.
    #[test]
    fn only_verdicts_on_the_source_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let ex = example(KERNEL, 3);
        let key = key_of(&ex);
        let refused = CompileVerdict::Refused {
            first_error: "e".into(),
            log: "e".into(),
        };
        assert!(cache.store(&ex, &key, &compiler(), &refused).unwrap());
        assert_eq!(cache.lookup(&ex, &key, &compiler()), Some(refused));
        let timed_out = CompileVerdict::TimedOut { limit_s: 5 };
        let later = Compiler {
            runner: "later".into(),
            ..compiler()
        };
        assert!(cache.store(&ex, &key, &later, &timed_out).unwrap());
        assert_eq!(cache.lookup(&ex, &key, &later), Some(timed_out));
        for passing in [
            CompileVerdict::NoNvrtc {
                message: "none".into(),
            },
            CompileVerdict::Failed {
                message: "oops".into(),
            },
        ] {
            let other = Compiler {
                runner: "x".into(),
                ..compiler()
            };
            assert!(!cache.store(&ex, &key, &other, &passing).unwrap());
            assert_eq!(cache.lookup(&ex, &key, &other), None);
        }
    }

    // A runner's answer holds while its executable, its NVRTC library and
    // LD_LIBRARY_PATH are as they were.
    #[test]
    fn a_runner_is_asked_again_when_it_or_its_nvrtc_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("compile"));
        let runner = dir.path().join("cuda-runner");
        let library = dir.path().join("libnvrtc.so.13");
        std::fs::write(&runner, "runner").unwrap();
        std::fs::write(&library, "nvrtc").unwrap();
        let answer = CompileAnswer {
            runner: "0.1.0".into(),
            nvrtc: Some(Nvrtc {
                version: "13.0".into(),
                library: Some(library.to_string_lossy().into_owned()),
            }),
            nvrtc_missing: None,
            verdicts: Vec::new(),
        };
        assert_eq!(cache.known_compiler(&runner, Some("/l"), "sm_90"), None);
        cache.remember_runner(&runner, Some("/l"), &answer).unwrap();
        // What is remembered is the compiler the answer names, files included.
        let named = Compiler::of(&answer, &runner, "sm_90");
        assert!(
            named
                .as_ref()
                .is_some_and(|c| c.runner_file.is_some() && c.library_file.is_some())
        );
        assert_eq!(cache.known_compiler(&runner, Some("/l"), "sm_90"), named);
        assert_eq!(cache.known_compiler(&runner, None, "sm_90"), None);
        assert_eq!(
            cache.known_compiler(&dir.path().join("other"), Some("/l"), "sm_90"),
            None
        );
        std::fs::write(&library, "nvrtc 13.1").unwrap();
        assert_eq!(cache.known_compiler(&runner, Some("/l"), "sm_90"), None);
        cache.remember_runner(&runner, Some("/l"), &answer).unwrap();
        assert!(cache.known_compiler(&runner, Some("/l"), "sm_90").is_some());
        std::fs::write(&runner, "rebuilt runner").unwrap();
        assert_eq!(cache.known_compiler(&runner, Some("/l"), "sm_90"), None);
        // A runner without NVRTC is not remembered: the next build asks.
        let none = CompileAnswer {
            nvrtc: None,
            ..answer
        };
        cache.remember_runner(&runner, Some("/l"), &none).unwrap();
        assert_eq!(cache.known_compiler(&runner, Some("/l"), "sm_90"), None);
    }

    // Pruning deletes the least recently used verdicts past the number
    // kept; a hit counts as a use.
    #[test]
    fn pruning_keeps_the_most_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let c = compiler();
        let examples: Vec<Example> = (0..4)
            .map(|i| example(&format!("{KERNEL}// {i}\n"), 10))
            .collect();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, e) in examples.iter().enumerate() {
            cache.store(e, &key_of(e), &c, &compiled()).unwrap();
            let path = cache.path_of(&cache_key(e, &key_of(e), &c));
            let when = old + std::time::Duration::from_secs(i as u64);
            std::fs::File::options()
                .append(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        // A hit on the oldest makes it the most recent.
        assert!(
            cache
                .lookup(&examples[0], &key_of(&examples[0]), &c)
                .is_some()
        );
        assert_eq!(cache.prune(2), 2);
        let kept: Vec<bool> = examples
            .iter()
            .map(|e| cache.lookup(e, &key_of(e), &c).is_some())
            .collect();
        assert_eq!(kept, [true, false, false, true]);
        assert_eq!(cache.prune(2), 0);
    }

    // A runner rebuilt with the same version, or an NVRTC patch release of
    // the same major.minor, is another compiler: its verdicts are misses.
    #[test]
    fn a_rebuilt_runner_or_another_nvrtc_file_is_a_miss() {
        let ex = example(KERNEL, 3);
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let verdict = CompileVerdict::Refused {
            first_error: "e".into(),
            log: "e".into(),
        };
        let stamp = |size| FileStamp {
            path: "/x/cuda-runner".into(),
            size,
            modified_ns: 1,
        };
        let old = Compiler {
            runner_file: Some(stamp(10)),
            ..compiler()
        };
        assert!(cache.store(&ex, "k", &old, &verdict).unwrap());
        assert!(cache.lookup(&ex, "k", &old).is_some());
        let rebuilt = Compiler {
            runner_file: Some(stamp(11)),
            ..compiler()
        };
        assert!(cache.lookup(&ex, "k", &rebuilt).is_none());
        let patched = Compiler {
            library_file: Some(stamp(12)),
            ..old.clone()
        };
        assert!(cache.lookup(&ex, "k", &patched).is_none());
    }
}
