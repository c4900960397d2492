//! `transfer`: a copy between host and device memory, with no kernel of
//! ours. The header's `[transfer]` table names the direction and the kind
//! of host memory instead of `[[launch]]` tables:
//!
//! ```toml
//! problem = "transfer"
//! sizes = ["1MiB", "64MiB", "1GiB"]  # bytes
//! [transfer]
//! direction = "h2d"                  # or "d2h"
//! host = "pinned"                    # or "pageable" or "mapped"
//! ```
//!
//! The runner times one `cuMemcpyHtoDAsync` (or `DtoH`) of the size's
//! bytes with the event timer the kernels use: from page-locked memory
//! with the blocking kernel holding the stream while the copy is queued,
//! as for kernels; from pageable memory without it, since the driver
//! copies pageable memory through its own staging buffer and may wait for
//! the stream inside the call, which a blocked stream would never let it
//! finish. Mapped host memory (page-locked and mapped into the device's
//! address space) is not copied by the driver: the runner's copy kernel
//! reads it (to the device) or writes it (to the host) through its device
//! pointer, one float4 a thread, timed as a kernel is; its sizes must be
//! whole float4s, multiples of 16 bytes. Figures: GB/s and the percentage of the pinned host-link ceiling
//! of the same direction measured in the same session
//! ([`super::reports::H2D_PINNED`], [`super::reports::D2H_PINNED`]).
//!
//! The data is N bytes drawn from the seeded generator (32-bit words); the
//! check is exact: after the timed copies the destination is read back
//! and every byte must equal the source's (a pageable copy that lost a
//! chunk, a copy of the wrong length). There are no edge sizes: no code of
//! the book's runs, only the driver's.

use super::draw;
use super::reports::{Direction, Reports};
use super::{BufferSpec, CheckOutcome, Data, HostData, Instance, Prepared, Problem, Shape, output};
use crate::dims::Dim;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Its one dimension: the bytes copied (`"2^26"`, `"256MiB"`).
const DIMS: &[Dim] = &[Dim::bytes("bytes")];

/// Bumped whenever the data or the check change; part of every key (2: the
/// runner poisons the destination before every timed copy, so the final
/// check sees what a timed copy wrote).
pub const VERSION: u32 = 2;

/// The name of the drawn data in [`Prepared::inputs`], and of the copy the
/// runner reads back for the check.
pub const DATA: &str = "data";

/// The destination as read back, named in the check's outputs.
pub const COPY: &str = "copy";

/// What kind of host memory the copy reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostMemory {
    /// Page-locked (`cuMemHostAlloc`): the copy engine reads or writes it
    /// directly.
    Pinned,
    /// Ordinary `malloc`ed memory: the driver stages it through its own
    /// page-locked buffer.
    Pageable,
    /// Page-locked and mapped into the device's address space
    /// (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP`): no copy is
    /// queued; a kernel reads or writes it across the link.
    Mapped,
}

impl HostMemory {
    /// `pinned`, `pageable` or `mapped`.
    pub fn name(self) -> &'static str {
        match self {
            HostMemory::Pinned => "pinned",
            HostMemory::Pageable => "pageable",
            HostMemory::Mapped => "mapped",
        }
    }
}

/// The `[transfer]` table of a header: the plan of a problem without
/// kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferSpec {
    /// `h2d` or `d2h`.
    pub direction: Direction,
    /// `pinned`, `pageable` or `mapped`.
    pub host: HostMemory,
}

impl TransferSpec {
    /// `cuMemcpyHtoD: pinned host memory`, for the panel's launch line.
    pub fn describe(&self) -> String {
        if self.host == HostMemory::Mapped {
            return format!(
                "cm_copy kernel {}: mapped host memory, one float4 per thread, 256 threads a block",
                match self.direction {
                    Direction::H2d => "from",
                    Direction::D2h => "into",
                }
            );
        }
        format!(
            "cuMemcpy{}: {} host memory",
            match self.direction {
                Direction::H2d => "HtoD",
                Direction::D2h => "DtoH",
            },
            self.host.name()
        )
    }
}

/// See the module documentation.
pub struct Transfer {
    spec: TransferSpec,
}

impl Transfer {
    /// The problem of one `[transfer]` table.
    pub fn new(spec: TransferSpec) -> Self {
        Transfer { spec }
    }

    /// Its table.
    pub fn spec(&self) -> TransferSpec {
        self.spec
    }
}

/// `n` bytes from `seed`: 32-bit words of the seeded generator, the last
/// one cut to what is left.
pub fn data(n: u64, seed: u64) -> Vec<u8> {
    let mut rng = draw::generator(seed, 0, n);
    let mut bytes = vec![0u8; n as usize];
    for chunk in bytes.chunks_mut(4) {
        let word = rng.random::<u32>().to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    bytes
}

/// The verdict on a copy of `n` bytes all equal to the source's (compared
/// byte by byte, or by the GPU digests of both ends).
pub fn all_equal(n: usize) -> CheckOutcome {
    CheckOutcome {
        error: 0.0,
        tolerance: 0.0,
        pass: true,
        detail: format!("all {n} bytes equal the source's"),
    }
}

/// The verdict on a copy: `got` (what came back, at most `n` bytes) against
/// `want` (the source's first `n` bytes). Equal copies, the usual case,
/// cost one `memcmp`.
pub fn compare(want: &[u8], got: &[u8], n: usize) -> CheckOutcome {
    let want = &want[..n];
    if got.len() == n && want == got {
        return all_equal(n);
    }
    let wrong = want
        .iter()
        .zip(got)
        .filter(|(a, b)| a != b)
        .count()
        .saturating_add(n - got.len());
    let detail = match want.iter().zip(got).position(|(a, b)| a != b) {
        None => format!("only {} of {n} bytes came back", got.len()),
        Some(i) => format!(
            "{wrong} of {n} bytes differ from the source's, the first at byte {i} (got {:#04x}, expected {:#04x})",
            got[i], want[i]
        ),
    };
    CheckOutcome {
        error: wrong as f64 / n.max(1) as f64,
        tolerance: 0.0,
        pass: false,
        detail,
    }
}

fn words(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            i32::from_le_bytes(w)
        })
        .collect()
}

impl Problem for Transfer {
    fn name(&self) -> &'static str {
        super::TRANSFER
    }

    fn version(&self) -> u32 {
        VERSION
    }

    fn summary(&self) -> &'static str {
        "a copy of n bytes between host and device memory, no kernel, declared by a [transfer] table"
    }

    fn dims(&self) -> &'static [Dim] {
        DIMS
    }

    fn buffers(&self, _instance: &Instance) -> Vec<BufferSpec> {
        // No kernel takes arguments: the runner owns both ends of the copy.
        Vec::new()
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let bytes = data(instance.shape.elements(), seed);
        Prepared {
            inputs: vec![(DATA.to_string(), HostData::I32(words(&bytes)))],
            reference: Vec::new(),
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let n = instance.shape.elements() as usize;
        let want = &prepared.input(DATA).expect("prepared data").as_bytes()[..n];
        let Some(got) = output(outputs, COPY).map(HostData::as_bytes) else {
            return CheckOutcome {
                error: f64::INFINITY,
                tolerance: 0.0,
                pass: false,
                detail: "the copy was not read back".into(),
            };
        };
        compare(want, &got[..n.min(got.len())], n)
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        instance.shape.elements()
    }

    fn work(&self, _instance: &Instance) -> Vec<(&'static str, f64)> {
        // Its one figure is bytes over time (GB/s), already in every record.
        Vec::new()
    }

    fn reports(&self) -> Reports {
        Reports::HostLink(self.spec.direction)
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        Vec::new()
    }

    fn max_size(&self) -> (u64, &'static str) {
        (
            1 << 32,
            "the runner holds the source, the destination and the drawn data in host memory at once",
        )
    }

    fn data_tag(&self) -> String {
        "bytes".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Elem;

    fn problem() -> (Transfer, Instance, Prepared) {
        let p = Transfer::new(TransferSpec {
            direction: Direction::H2d,
            host: HostMemory::Pinned,
        });
        let instance = Instance {
            shape: Shape::flat(1001),
            dtype: Elem::I32,
        };
        let prepared = p.prepare(&instance, 7, Data::Timed);
        (p, instance, prepared)
    }

    // A faithful copy passes; one byte changed, a copy cut short, or nothing
    // read back fails, and the message says where.
    #[test]
    fn the_copy_must_equal_the_source_byte_for_byte() {
        let (p, instance, prepared) = problem();
        let source = prepared.input(DATA).unwrap().clone();
        let good = p.check(&instance, &prepared, &[(COPY, &source)], Data::Timed);
        assert!(good.pass, "{}", good.detail);

        let mut flipped = source.clone();
        flipped.as_bytes_mut()[1000] ^= 1;
        let bad = p.check(&instance, &prepared, &[(COPY, &flipped)], Data::Timed);
        assert!(
            !bad.pass && bad.detail.contains("byte 1000"),
            "{}",
            bad.detail
        );

        let HostData::I32(words) = &source else {
            unreachable!()
        };
        let short = HostData::I32(words[..100].to_vec());
        let cut = p.check(&instance, &prepared, &[(COPY, &short)], Data::Timed);
        assert!(
            !cut.pass && cut.detail.contains("400 of 1001"),
            "{}",
            cut.detail
        );

        assert!(!p.check(&instance, &prepared, &[], Data::Timed).pass);
    }

    // The data is seeded (the same for the same size and seed), not all
    // alike, and its last partial word is cut to the size.
    #[test]
    fn data_is_seeded_and_cut_to_the_size() {
        assert_eq!(data(1001, 7), data(1001, 7));
        assert_ne!(data(1001, 7), data(1001, 8));
        let d = data(1001, 7);
        assert_eq!(d.len(), 1001);
        assert!(d.iter().filter(|&&b| b == d[0]).count() < 50);
    }

    // The table parses in the header's words, refuses a misspelt key, and
    // the problem reports the host link of its direction.
    #[test]
    fn the_table_names_direction_and_host_memory() {
        let spec: TransferSpec =
            toml::from_str("direction = \"d2h\"\nhost = \"pageable\"").unwrap();
        assert_eq!(spec.direction, Direction::D2h);
        assert_eq!(spec.host, HostMemory::Pageable);
        assert!(toml::from_str::<TransferSpec>("direction = \"h2d\"\nhots = \"pinned\"").is_err());
        let mapped: TransferSpec =
            toml::from_str("direction = \"h2d\"\nhost = \"mapped\"").unwrap();
        assert_eq!(mapped.host, HostMemory::Mapped);
        assert!(mapped.describe().starts_with("cm_copy kernel from: mapped"));
        assert_eq!(
            Transfer::new(spec).reports(),
            Reports::HostLink(Direction::D2h)
        );
    }
}
