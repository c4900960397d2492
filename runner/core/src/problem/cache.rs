//! Prepared data shared by the measuring processes. Each of an example's
//! processes needs the same inputs and reference at each shape; drawing
//! them and computing the float64 reference carries no per-process
//! variance, so the first process computes them and leaves them in a
//! folder the session owns, and the others read them back. Examples of the
//! same problem share them too. Files are written under a temporary name and
//! renamed, so a process killed mid-write leaves nothing half-written.
//!
//! Judging an answer against the float64 reference is the other cost that
//! carries no variance: an answer whose bytes equal one already judged
//! correct, on the same inputs, is correct. So a passing verdict is kept
//! beside the data under a 128-bit key of the answer's bytes (taken on the
//! GPU, so that an answer already judged is never copied back), and a later
//! identical answer (the same kernel in the next process, or the check after
//! the timed runs) takes it instead of being judged again. The reference is
//! then never read back at all. Failing verdicts are kept too: the same
//! bytes judged by the same check on the same inputs fail with the same
//! message, and a kernel declared wrong would otherwise be judged in full by
//! every process (5.5 s of an example's 10 on the H200, 2026-12-01).

use super::{CheckOutcome, Data, Elem, HostData, Instance, Prepared, Problem};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that names the folder, set by the session for
/// its measuring children.
pub const DATA_DIR_VAR: &str = "CUDA_MEASURED_DATA_DIR";

#[derive(Serialize, Deserialize)]
struct Layout {
    inputs: Vec<(String, String, u64)>,
    reference: u64,
}

/// One shape's prepared data, with the reference read only when an answer
/// needs judging, and the verdicts other processes left.
///
/// A process that finds the data in the folder maps the file instead of
/// reading it: the inputs go to the GPU straight from the page cache
/// ([`SharedData::input_bytes`]), and only an answer that needs judging
/// copies inputs and reference into typed vectors
/// ([`SharedData::with_reference`]).
pub struct SharedData {
    prepared: Prepared,
    /// The shared file, when there is a folder to share through.
    file: Option<PathBuf>,
    /// The shared file mapped, if this process found it.
    mapped: Option<Mapped>,
    /// What of the mapped file has been copied into `prepared`.
    copied: Copied,
    /// The last verdict in this process, by digest (kept without a
    /// folder too, for the check after the timed runs).
    known: Option<(u128, CheckOutcome)>,
    /// The problem's check, for the verdicts' folder.
    check_tag: String,
}

/// Which parts of a mapped data file a process has copied out.
#[derive(Default)]
struct Copied {
    inputs: bool,
    reference: bool,
}

/// The 128-bit key of an answer from each output's name, byte length and
/// the two position-keyed sums the GPU took of its bytes (`cm_digest`).
pub fn answer_key(outputs: &[(&str, u64, [u64; 2])]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (name, bytes, sums) in outputs {
        h.update(name.as_bytes());
        h.update(&[0]);
        h.update(&bytes.to_le_bytes());
        h.update(&sums[0].to_le_bytes());
        h.update(&sums[1].to_le_bytes());
    }
    h.digest128()
}

impl SharedData {
    /// The data of `instance` from `seed`: read from `dir` when a process
    /// left it there (the reference deferred), else prepared (and left
    /// there for the next, when `dir` is given). A file that cannot be
    /// written or read back is prepared again: sharing is a saving, never a
    /// condition.
    pub fn open(
        dir: Option<&Path>,
        problem: &dyn Problem,
        instance: &Instance,
        seed: u64,
        data: Data,
    ) -> SharedData {
        let file = dir.map(|d| file_of(d, problem, instance, seed, data));
        let mut shared = SharedData {
            prepared: Prepared {
                inputs: Vec::new(),
                reference: Vec::new(),
            },
            file,
            mapped: None,
            copied: Copied::default(),
            known: None,
            check_tag: problem.check_tag(),
        };
        if let Some(mapped) = shared.file.as_deref().and_then(Mapped::open) {
            shared.mapped = Some(mapped);
            return shared;
        }
        shared.prepared = problem.prepare(instance, seed, data);
        if let Some(path) = &shared.file {
            // Best effort: a full disk costs the next process the same work.
            let _ = write(path, &shared.prepared);
        }
        shared
    }

    /// The bytes of input `name`, for the upload: from the mapped file, or
    /// from the data this process prepared.
    pub fn input_bytes(&self, name: &str) -> Option<&[u8]> {
        match &self.mapped {
            Some(m) => m.input(name),
            None => self.prepared.input(name).map(HostData::as_bytes),
        }
    }

    /// The reference, and the inputs when `inputs` is set (a check that
    /// reads them), copied out of the mapped file the first time they are
    /// asked for; the mapping stays for the uploads, and stays valid if the
    /// file is removed. Without `inputs` the returned inputs may be empty.
    pub fn with_reference(&mut self, inputs: bool) -> &Prepared {
        if let Some(m) = &self.mapped {
            if !self.copied.reference {
                self.prepared.reference = m.reference();
                self.copied.reference = true;
            }
            if inputs && !self.copied.inputs {
                self.prepared.inputs = m.inputs();
                self.copied.inputs = true;
            }
        }
        &self.prepared
    }

    /// The verdict some process kept for an answer with this digest,
    /// judged by the same check (the problem's [`Problem::check_tag`]) on
    /// the same inputs.
    pub fn verdict(&self, digest: u128) -> Option<CheckOutcome> {
        if let Some((_, v)) = self.known.as_ref().filter(|(d, _)| *d == digest) {
            return Some(v.clone());
        }
        let path = self.verdict_file(digest)?;
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    /// Keeps `outcome`, passing or failing, for answers with this digest.
    pub fn remember(&mut self, digest: u128, outcome: &CheckOutcome) {
        self.known = Some((digest, outcome.clone()));
        if let Some(path) = self.verdict_file(digest) {
            // Best effort, as for the data.
            let _ = crate::atomic_file::write_json_atomically(&path, outcome);
        }
    }

    fn verdict_file(&self, digest: u128) -> Option<PathBuf> {
        let file = self.file.as_ref()?;
        let mut dir = file.clone().into_os_string();
        dir.push(".verdicts");
        if !self.check_tag.is_empty() {
            dir.push(format!("-{}", self.check_tag));
        }
        Some(PathBuf::from(dir).join(format!("{digest:032x}.json")))
    }
}

/// A value measured once per session and shared by its processes: read
/// from `dir` if a process left it under `name`, else computed (and left
/// there). Used for the device's ceilings, whose spread from process to
/// process is well inside the repeatability goal, so that each example
/// does not pay for measuring them again.
pub fn once_per_session<T, E>(
    dir: Option<&Path>,
    name: &str,
    compute: impl FnOnce() -> Result<T, E>,
) -> Result<T, E>
where
    T: Serialize + serde::de::DeserializeOwned,
{
    let Some(path) = dir.map(|d| d.join(format!("session-{name}.json"))) else {
        return compute();
    };
    if let Some(v) = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
    {
        return Ok(v);
    }
    let v = compute()?;
    // Best effort, as for the data.
    let _ = crate::atomic_file::write_json_atomically(&path, &v);
    Ok(v)
}

/// Bytes made once per session and shared by its processes, as
/// [`once_per_session`] (the measuring support kernels' cubin, whose
/// compilation each process otherwise repeats): read from `dir` if a
/// process left them under `name`, else made (and left there).
pub fn once_per_session_bytes<E>(
    dir: Option<&Path>,
    name: &str,
    make: impl FnOnce() -> Result<Vec<u8>, E>,
) -> Result<Vec<u8>, E> {
    let Some(path) = dir.map(|d| d.join(format!("session-{name}.bin"))) else {
        return make();
    };
    if let Some(bytes) = std::fs::read(&path).ok().filter(|b| !b.is_empty()) {
        return Ok(bytes);
    }
    let bytes = make()?;
    // Best effort, as for the data.
    let _ = crate::atomic_file::write_atomically(&path, &bytes);
    Ok(bytes)
}

fn file_of(dir: &Path, problem: &dyn Problem, i: &Instance, seed: u64, data: Data) -> PathBuf {
    dir.join(format!("{}.bin", data_key(problem, i, seed, data)))
}

/// The name of the data `problem` draws for `instance` from `seed`: its
/// name, data tag and version, the element type, the shape, the seed and
/// the kind of data. Two runs with the same name are given the same bytes
/// (the shared file's stem, and the key of inputs kept on the GPU).
pub fn data_key(problem: &dyn Problem, i: &Instance, seed: u64, data: Data) -> String {
    let tag = problem.data_tag();
    let shape = match i.shape.dims {
        Some(dims) => dims.file_stem(),
        None => format!("{}x{}", i.shape.rows, i.shape.cols),
    };
    format!(
        "{}{}{tag}-v{}-{}-{shape}-{seed:x}-{}",
        problem.name(),
        if tag.is_empty() { "" } else { "-" },
        problem.version(),
        i.dtype,
        data.name()
    )
}

/// The layout as one JSON line, then the raw bytes of each input and the
/// reference.
fn write(path: &Path, p: &Prepared) -> std::io::Result<()> {
    let layout = Layout {
        inputs: p
            .inputs
            .iter()
            .map(|(name, d)| (name.clone(), d.elem().name().to_string(), d.len() as u64))
            .collect(),
        reference: p.reference.len() as u64,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        serde_json::to_writer(&mut w, &layout)?;
        w.write_all(b"\n")?;
        for (_, d) in &p.inputs {
            w.write_all(d.as_bytes())?;
        }
        w.write_all(bytemuck::cast_slice(&p.reference))?;
        w.flush()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A shared data file mapped read-only: its layout line, then each input's
/// bytes and the reference's.
struct Mapped {
    map: memmap2::Mmap,
    /// Each input's name, element type and byte range.
    inputs: Vec<(String, Elem, std::ops::Range<usize>)>,
    /// The reference's byte range.
    reference: std::ops::Range<usize>,
}

impl Mapped {
    /// The file at `path` mapped, its layout read and its size checked;
    /// `None` for a file that is missing, torn or too long.
    fn open(path: &Path) -> Option<Mapped> {
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: the session's files are written once under a temporary
        // name and renamed into place, never changed afterwards, so the
        // mapped bytes do not change under us. Pages are mapped as they are
        // read, not all at once: the reference (as large as the answer, in
        // float64) is read only by a process that judges an answer.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let end = map.iter().position(|&b| b == b'\n')?;
        let layout: Layout = serde_json::from_slice(&map[..end]).ok()?;
        let mut at = end + 1;
        let mut inputs = Vec::new();
        for (name, elem, len) in layout.inputs {
            let elem = Elem::parse(&elem)?;
            let bytes = usize::try_from(len)
                .ok()?
                .checked_mul(elem.bytes() as usize)?;
            inputs.push((name, elem, at..at.checked_add(bytes)?));
            at += bytes;
        }
        let reference =
            at..at.checked_add(usize::try_from(layout.reference).ok()?.checked_mul(8)?)?;
        (reference.end == map.len()).then_some(Mapped {
            map,
            inputs,
            reference,
        })
    }

    fn input(&self, name: &str) -> Option<&[u8]> {
        self.inputs
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(.., range)| &self.map[range.clone()])
    }

    /// The inputs copied into typed vectors.
    fn inputs(&self) -> Vec<(String, HostData)> {
        self.inputs
            .iter()
            .map(|(name, elem, range)| {
                (
                    name.clone(),
                    HostData::from_bytes(*elem, &self.map[range.clone()]),
                )
            })
            .collect()
    }

    /// The reference copied out, in the machine's byte order as [`write`]
    /// wrote it: one copy of the bytes (decoding float by float took about
    /// 0.3 s per 2^26 elements, paid by every check of a row problem).
    fn reference(&self) -> Vec<f64> {
        bytemuck::pod_collect_to_vec(&self.map[self.reference.clone()])
    }
}

/// The whole file: inputs and reference.
#[cfg(test)]
fn read(path: &Path) -> Option<Prepared> {
    Mapped::open(path).map(|m| Prepared {
        inputs: m.inputs(),
        reference: m.reference(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Shape, SoftmaxRows, SumF32};

    /// Everything, the reference included, as a process that judges sees it.
    fn prepared(
        dir: Option<&Path>,
        problem: &dyn Problem,
        i: &Instance,
        seed: u64,
        data: Data,
    ) -> Prepared {
        SharedData::open(dir, problem, i, seed, data)
            .with_reference(true)
            .clone()
    }

    // The first process computes a session value; later ones read it
    // without computing; without a folder every call computes.
    #[test]
    fn a_session_value_is_computed_once_and_shared() {
        let dir = tempfile::tempdir().unwrap();
        let mut calls = 0;
        let mut get = |d: Option<&Path>| {
            once_per_session(d, "ceilings-0", || {
                calls += 1;
                Ok::<_, std::io::Error>(vec![4594.3, 3949.7])
            })
            .unwrap()
        };
        assert_eq!(get(Some(dir.path())), vec![4594.3, 3949.7]);
        assert_eq!(get(Some(dir.path())), vec![4594.3, 3949.7]);
        get(None);
        assert_eq!(calls, 2);
        let failed: Result<u32, &str> = once_per_session(Some(dir.path()), "x", || Err("no"));
        assert_eq!(failed, Err("no"));
    }

    // Two elementwise examples on the same inputs share the data but never
    // a verdict: a kernel computing x + y must not pass where x - y (or a
    // tighter tolerance) is asked for.
    #[test]
    fn examples_with_other_checks_on_the_same_inputs_share_no_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let spec = |reference: &str, tolerance: &str| -> crate::problem::ElementwiseSpec {
            toml::from_str(&format!(
                "inputs = [\"x\", \"y\"]\noutput = \"z\"\nreference = \"{reference}\"\n{tolerance}"
            ))
            .unwrap()
        };
        let add = crate::problem::Elementwise::new(spec("x + y", ""));
        let sub = crate::problem::Elementwise::new(spec("x - y", ""));
        let strict = crate::problem::Elementwise::new(spec("x + y", "tolerance = 1e-12"));
        let i = Instance {
            shape: Shape::flat(100),
            dtype: Elem::F32,
        };
        let mut a = SharedData::open(Some(dir.path()), &add, &i, 7, Data::Timed);
        let pass = CheckOutcome {
            error: 0.0,
            tolerance: 1e-6,
            pass: true,
            detail: String::new(),
        };
        let key = answer_key(&[("z", 400, [5, 6])]);
        a.remember(key, &pass);
        let again = SharedData::open(Some(dir.path()), &add, &i, 7, Data::Timed);
        assert_eq!(again.verdict(key), Some(pass));
        let b = SharedData::open(Some(dir.path()), &sub, &i, 7, Data::Timed);
        assert_eq!(b.input_bytes("x"), again.input_bytes("x"));
        assert!(b.input_bytes("x").is_some());
        assert_eq!(b.verdict(key), None);
        let c = SharedData::open(Some(dir.path()), &strict, &i, 7, Data::Timed);
        assert_eq!(c.verdict(key), None);
    }

    // A process that finds the data defers the reference until an answer
    // needs judging, and then copies out the same inputs and reference the
    // first prepared; its uploads read the mapped file's bytes.
    #[test]
    fn a_later_process_maps_the_data_and_copies_it_only_when_it_judges() {
        let dir = tempfile::tempdir().unwrap();
        let i = Instance {
            shape: Shape::rows(4, 100),
            dtype: Elem::F32,
        };
        let mut first = SharedData::open(Some(dir.path()), &SoftmaxRows, &i, 3, Data::Timed);
        assert!(first.mapped.is_none());
        let x = first.input_bytes("x").unwrap().to_vec();
        let expected = first.with_reference(true).clone();
        assert!(!expected.reference.is_empty());
        let mut later = SharedData::open(Some(dir.path()), &SoftmaxRows, &i, 3, Data::Timed);
        assert!(later.mapped.is_some() && later.prepared.inputs.is_empty());
        assert_eq!(later.input_bytes("x"), Some(x.as_slice()));
        assert_eq!(later.input_bytes("nothing"), None);
        assert_eq!(later.with_reference(true), &expected);
        // The mapping stays for the uploads.
        assert_eq!(later.input_bytes("x"), Some(x.as_slice()));
        // Removed once mapped: the mapping still reads it.
        let mut orphan = SharedData::open(Some(dir.path()), &SoftmaxRows, &i, 3, Data::Timed);
        for f in std::fs::read_dir(dir.path()).unwrap() {
            let _ = std::fs::remove_file(f.unwrap().path());
        }
        assert_eq!(orphan.with_reference(true), &expected);
    }

    // A check that reads only the reference gets it without the inputs
    // being copied out; asking again with inputs copies them then.
    #[test]
    fn a_check_that_reads_no_inputs_copies_only_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        let i = Instance {
            shape: Shape::rows(1, 1 << 16),
            dtype: Elem::F32,
        };
        let mut first = SharedData::open(Some(dir.path()), &SumF32, &i, 5, Data::Timed);
        let expected = first.with_reference(true).clone();
        let mut later = SharedData::open(Some(dir.path()), &SumF32, &i, 5, Data::Timed);
        let judged = later.with_reference(false);
        assert_eq!(judged.reference, expected.reference);
        assert!(judged.inputs.is_empty());
        assert_eq!(later.with_reference(true), &expected);
    }

    // Bytes made once per session are made by the first process only and
    // read back by the others; without a folder every call makes them.
    #[test]
    fn session_bytes_are_made_once_and_shared() {
        let dir = tempfile::tempdir().unwrap();
        let made = std::cell::Cell::new(0);
        let make = || -> Result<Vec<u8>, ()> {
            made.set(made.get() + 1);
            Ok(vec![7, 0, 9])
        };
        for _ in 0..3 {
            assert_eq!(
                once_per_session_bytes(Some(dir.path()), "cubin", make),
                Ok(vec![7, 0, 9])
            );
        }
        assert_eq!(made.get(), 1);
        assert_eq!(
            once_per_session_bytes(None, "cubin", make),
            Ok(vec![7, 0, 9])
        );
        assert_eq!(made.get(), 2);
    }

    // Verdicts, passing and failing, are kept under the answer's digest;
    // another answer, another shape or no folder finds none.
    #[test]
    fn verdicts_are_kept_by_digest_whether_they_pass_or_fail() {
        let dir = tempfile::tempdir().unwrap();
        let i = Instance {
            shape: Shape::rows(2, 8),
            dtype: Elem::F32,
        };
        let mut data = SharedData::open(Some(dir.path()), &SoftmaxRows, &i, 3, Data::Timed);
        let d = answer_key(&[("y", 64, [1, 2])]);
        let other = answer_key(&[("y", 64, [1, 3])]);
        assert_ne!(d, other);
        assert_ne!(d, answer_key(&[("z", 64, [1, 2])]));
        assert_ne!(d, answer_key(&[("y", 60, [1, 2])]));
        let pass = CheckOutcome {
            error: 1e-9,
            tolerance: 1e-6,
            pass: true,
            detail: String::new(),
        };
        // A NaN answer's error is infinite: the verdict must survive JSON.
        let fail = CheckOutcome {
            error: f64::INFINITY,
            pass: false,
            detail: "expected 1, got NaN".into(),
            ..pass.clone()
        };
        data.remember(other, &fail);
        assert_eq!(data.verdict(other), Some(fail.clone()));
        assert_eq!(data.verdict(d), None);
        data.remember(d, &pass);
        let later = SharedData::open(Some(dir.path()), &SoftmaxRows, &i, 3, Data::Timed);
        assert_eq!(later.verdict(d), Some(pass.clone()));
        assert_eq!(later.verdict(other), Some(fail.clone()));
        let elsewhere = Instance {
            shape: Shape::rows(4, 4),
            ..i
        };
        let shape = SharedData::open(Some(dir.path()), &SoftmaxRows, &elsewhere, 3, Data::Timed);
        assert_eq!(shape.verdict(d), None);
        let mut alone = SharedData::open(None, &SoftmaxRows, &i, 3, Data::Timed);
        assert_eq!(alone.verdict(d), None);
        alone.remember(d, &pass);
        assert_eq!(alone.verdict(d), Some(pass.clone()));
        let again = SharedData::open(None, &SoftmaxRows, &i, 3, Data::Timed);
        assert_eq!(again.verdict(d), None);
    }

    // The second process reads what the first prepared, equal to preparing
    // it again; a torn file is prepared afresh.
    #[test]
    fn prepared_data_is_shared_and_a_torn_file_is_redone() {
        let dir = tempfile::tempdir().unwrap();
        let i = Instance {
            shape: Shape::rows(3, 33),
            dtype: Elem::BF16,
        };
        let first = prepared(Some(dir.path()), &SoftmaxRows, &i, 7, Data::Timed);
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1);
        let path = files[0].as_ref().unwrap().path();
        assert_eq!(read(&path).as_ref(), Some(&first));
        assert_eq!(SoftmaxRows.prepare(&i, 7, Data::Timed), first);
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len - 1)
            .unwrap();
        assert_eq!(read(&path), None);
        let flat = Instance {
            shape: Shape::flat(1000),
            dtype: Elem::F32,
        };
        assert_eq!(
            prepared(Some(dir.path()), &SoftmaxRows, &i, 7, Data::Timed),
            first
        );
        assert_ne!(
            prepared(Some(dir.path()), &SumF32, &flat, 7, Data::Exact),
            prepared(Some(dir.path()), &SumF32, &flat, 7, Data::Timed)
        );
    }

    // Two elementwise problems with other inputs never share a file.
    #[test]
    fn elementwise_problems_with_other_inputs_keep_their_own_data() {
        let dir = tempfile::tempdir().unwrap();
        let spec = |inputs: &str| -> crate::problem::ElementwiseSpec {
            toml::from_str(&format!(
                "inputs = {inputs}\noutput = \"out\"\nreference = \"1\"\n"
            ))
            .unwrap()
        };
        let one = crate::problem::Elementwise::new(spec("[\"x\"]"));
        let two = crate::problem::Elementwise::new(spec("[\"a\", \"b\"]"));
        let i = Instance {
            shape: Shape::flat(100),
            dtype: Elem::F32,
        };
        let first = prepared(Some(dir.path()), &one, &i, 7, Data::Timed);
        let second = prepared(Some(dir.path()), &two, &i, 7, Data::Timed);
        assert!(first.input("x").is_some());
        assert!(second.input("a").is_some() && second.input("b").is_some());
    }
}
