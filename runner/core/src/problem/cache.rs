//! Prepared data shared by the measuring processes. Each of an example's
//! processes needs the same inputs and reference at each shape; drawing
//! them and computing the float64 reference carries no per-process
//! variance, so the first process computes them and leaves them in a
//! folder the session owns, and the others read them back. Examples of the
//! same problem share them too. Files are written under a temporary name and
//! renamed, so a process killed mid-write leaves nothing half-written.

use super::{Data, Elem, HostData, Instance, Prepared, Problem};
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

/// The data of `instance` from `seed`: read from `dir` when a process left
/// it there, else prepared (and left there for the next, when `dir` is
/// given). A file that cannot be written or read back is prepared again:
/// sharing is a saving, never a condition.
pub fn prepared(
    dir: Option<&Path>,
    problem: &dyn Problem,
    instance: &Instance,
    seed: u64,
    data: Data,
) -> Prepared {
    let Some(dir) = dir else {
        return problem.prepare(instance, seed, data);
    };
    let path = file_of(dir, problem, instance, seed, data);
    if let Some(p) = read(&path) {
        return p;
    }
    let p = problem.prepare(instance, seed, data);
    // Best effort: a full disk costs the next process the same work.
    let _ = write(&path, &p);
    p
}

fn file_of(dir: &Path, problem: &dyn Problem, i: &Instance, seed: u64, data: Data) -> PathBuf {
    let tag = problem.data_tag();
    dir.join(format!(
        "{}{}{tag}-v{}-{}-{}x{}-{seed:x}-{}.bin",
        problem.name(),
        if tag.is_empty() { "" } else { "-" },
        problem.version(),
        i.dtype,
        i.shape.rows,
        i.shape.cols,
        data.name()
    ))
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

/// Reads each buffer straight into its typed vector (no second copy of
/// hundreds of MiB); `None` for a file that is missing, torn or too long.
fn read(path: &Path) -> Option<Prepared> {
    use std::io::{BufRead, Read};
    let mut file = std::io::BufReader::new(std::fs::File::open(path).ok()?);
    let mut line = Vec::new();
    file.read_until(b'\n', &mut line).ok()?;
    let layout: Layout = serde_json::from_slice(line.strip_suffix(b"\n")?).ok()?;
    let mut inputs = Vec::new();
    for (name, elem, len) in layout.inputs {
        let mut data = HostData::zeroed(Elem::parse(&elem)?, usize::try_from(len).ok()?);
        file.read_exact(data.as_bytes_mut()).ok()?;
        inputs.push((name, data));
    }
    let mut reference = vec![0.0f64; usize::try_from(layout.reference).ok()?];
    file.read_exact(bytemuck::cast_slice_mut(&mut reference))
        .ok()?;
    let mut rest = [0u8; 1];
    (file.read(&mut rest).ok()? == 0).then_some(Prepared { inputs, reference })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Shape, SoftmaxRows, SumF32};

    // The second process reads what the first prepared, equal to preparing
    // it again; a torn file is prepared afresh.
    #[test]
    fn prepared_data_is_shared_and_a_torn_file_is_redone() {
        let dir = tempfile::tempdir().unwrap();
        let i = Instance {
            shape: Shape { rows: 3, cols: 33 },
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
