//! `pointer_chase`: dependent loads around one random cycle, the latency
//! of the memory level a footprint fits in. Dimensions `footprint` and
//! `stride`, both bytes (`"footprint = 64MiB, stride = 128"`); each is a
//! launch variable (`footprint`, `stride`).
//!
//! `next` is an array of 32-bit unsigned words spanning the footprint. Its
//! slots are the words at multiples of the stride: `footprint / stride`
//! slots (the footprint is taken as a whole number of strides, the stride
//! as a whole number of words, and at least two slots: a cycle of one slot
//! returns to word 0 after any number of loads, so a kernel that loads
//! nothing would pass), which `next` links into one cycle through
//! all of them, in an order drawn by Sattolo's algorithm (every
//! permutation that is a single cycle equally likely), so that no
//! prefetcher or stride detector can guess the next address. A slot holds
//! the word index of the next slot, so a kernel walks with `i = next[i]`
//! from word 0; words between slots hold 0. 32-bit words are enough for a
//! footprint of up to 16 GiB, and the load's width does not change its
//! latency; 64-bit words would only double the array for the same slots.
//!
//! `steps` (an `unsigned int` argument) is the number of dependent loads a
//! run makes, derived from the footprint ([`steps`]): whole laps of the
//! cycle, at least [`MIN_STEPS`] loads (so that a launch's few
//! microseconds are under 1% of the walk even when every load hits L1) and
//! at least one lap (so that each run touches every slot, and the run
//! before a timed sample leaves the whole footprint in whichever cache
//! holds it: the problem is timed warm, with no L2 flush between samples,
//! see [`Problem::warm`]), then `slots / 2` loads more, so that the walk
//! ends between 1 and `slots - 1` slots past its start, never at it, for
//! every number of slots (two included). Figures: ns per
//! access (median / steps) and SM cycles per access (at the SM clock the
//! samples recorded); no ceiling.
//!
//! The check is exact: `out` (one word) must be the word index reached
//! after `steps` loads. A kernel that loads too few or too many times, or
//! follows a wrong index, ends elsewhere; one that stops a whole number of
//! laps early cannot be told apart (the cycle returns to the same word).

use super::reports::Reports;
use super::{
    BufferRole, BufferSpec, CheckOutcome, Data, Elem, HostData, Instance, OutputInit, Prepared,
    Problem, Scalar, Shape, output,
};
use crate::dims::{Dim, Dims};
use rand::Rng;

/// The fewest dependent loads a run makes.
pub const MIN_STEPS: u64 = 1 << 16;

/// The most slots a cycle may have: 2^22 (a 512 MiB footprint at a stride
/// of 128 B; a larger footprint is walked over its first 2^22 slots): a
/// lap and a half of 2^22 DRAM loads of about 0.6 µs each is 4 s a sample.
pub const MAX_SLOTS: u64 = 1 << 22;

/// Its dimensions.
const DIMS: &[Dim] = &[Dim::bytes("footprint"), Dim::bytes("stride")];

/// See the module documentation.
pub struct PointerChase;

/// The run of a footprint and a stride, in bytes.
pub fn shape(footprint: u64, stride: u64) -> Shape {
    Shape::of(Dims::new(DIMS, &[footprint, stride]).expect("two values of two dimensions"))
}

/// Words between slots, and slots, of a run: at least two slots (a
/// footprint under two strides is walked over two), so that the walk can
/// end away from its start.
pub fn layout(shape: &Shape) -> (u64, u64) {
    let words_per_slot = (shape.dim("stride") / 4).max(1);
    let slots = (shape.dim("footprint") / (4 * words_per_slot))
        .min(MAX_SLOTS)
        .min(u64::from(u32::MAX) / words_per_slot)
        .max(2);
    (words_per_slot, slots)
}

/// Dependent loads per run of `slots` slots (module documentation): whole
/// laps, at least one and at least [`MIN_STEPS`] loads, then `slots / 2`
/// loads more (between 1 and `slots - 1` for `slots >= 2`, which
/// [`layout`] ensures), so that the walk never ends where it started (a
/// kernel that loads nothing, or whole laps too few, would end at word
/// 0). Half a lap plus one would be a whole lap at two slots.
pub fn steps(slots: u64) -> u64 {
    let laps = MIN_STEPS.div_ceil(slots).max(1);
    laps * slots + slots / 2
}

/// `next` of a run: `slots` slots `words_per_slot` words apart, linked into
/// one random cycle drawn from `seed`.
pub fn cycle(words_per_slot: u64, slots: u64, seed: u64) -> Vec<u32> {
    // Sattolo: a uniformly random permutation with a single cycle.
    let mut order: Vec<u64> = (0..slots).collect();
    let mut rng = super::draw::generator(seed, 0, slots * words_per_slot);
    for i in (1..slots as usize).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    let mut next = vec![0u32; (slots * words_per_slot) as usize];
    for (slot, to) in order.iter().enumerate() {
        next[slot * words_per_slot as usize] = (to * words_per_slot) as u32;
    }
    next
}

/// The word reached after `steps` loads from word 0.
pub fn walk(next: &[u32], steps: u64) -> u32 {
    (0..steps).fold(0u32, |i, _| next[i as usize])
}

impl Problem for PointerChase {
    fn name(&self) -> &'static str {
        "pointer_chase"
    }

    fn version(&self) -> u32 {
        2
    }

    fn summary(&self) -> &'static str {
        "`steps` dependent loads i = next[i] around one random cycle of footprint / stride slots; `out` is the word reached"
    }

    fn dims(&self) -> &'static [Dim] {
        DIMS
    }

    fn buffers(&self, instance: &Instance) -> Vec<BufferSpec> {
        let (words_per_slot, slots) = layout(&instance.shape);
        vec![
            BufferSpec {
                name: "next",
                elem: Elem::U32,
                len: words_per_slot * slots,
                role: BufferRole::Input,
            },
            BufferSpec {
                name: "out",
                elem: Elem::U32,
                len: 1,
                role: BufferRole::Output(OutputInit::Poison),
            },
        ]
    }

    fn scalars(&self) -> Vec<(&'static str, Scalar)> {
        vec![("steps", Scalar::U32(MIN_STEPS as u32))]
    }

    fn scalars_at(&self, instance: &Instance) -> Vec<(&'static str, Scalar)> {
        let (_, slots) = layout(&instance.shape);
        vec![("steps", Scalar::U32(steps(slots) as u32))]
    }

    fn prepare(&self, instance: &Instance, seed: u64, _data: Data) -> Prepared {
        let (words_per_slot, slots) = layout(&instance.shape);
        let next = cycle(words_per_slot, slots, seed);
        let end = walk(&next, steps(slots));
        Prepared {
            inputs: vec![("next".to_string(), HostData::U32(next))],
            reference: vec![f64::from(end)],
        }
    }

    fn check(
        &self,
        instance: &Instance,
        prepared: &Prepared,
        outputs: &[(&str, &HostData)],
        _data: Data,
    ) -> CheckOutcome {
        let want = prepared.reference[0];
        let (_, slots) = layout(&instance.shape);
        let got = output(outputs, "out")
            .filter(|o| !o.is_empty())
            .map(|o| o.get(0));
        let pass = got == Some(want);
        let detail = match got {
            None => "no output `out`".to_string(),
            Some(g) if pass => format!("reached word {g} after {} loads", steps(slots)),
            Some(g) => format!(
                "out = {}, expected word {want} after {} loads from word 0",
                g,
                steps(slots)
            ),
        };
        CheckOutcome {
            error: if pass { 0.0 } else { f64::INFINITY },
            tolerance: 0.0,
            pass,
            detail,
        }
    }

    fn bytes(&self, instance: &Instance) -> u64 {
        // The bytes the cycle spans (what decides the cache level it fits
        // in, and the `fits-in-l2` label), not bytes moved: its GB/s is
        // not a figure to quote.
        let (words_per_slot, slots) = layout(&instance.shape);
        4 * words_per_slot * slots
    }

    fn work(&self, instance: &Instance) -> Vec<(&'static str, f64)> {
        let (_, slots) = layout(&instance.shape);
        vec![(super::reports::ACCESSES, steps(slots) as f64)]
    }

    fn reports(&self) -> Reports {
        Reports::Latency
    }

    fn warm(&self) -> bool {
        true
    }

    fn edge_shapes(&self) -> Vec<Shape> {
        // Two slots (the fewest), a few slots of one word, a stride that is not a power of
        // two, a footprint that is not a whole number of strides.
        [(4, 4), (40, 4), (1000, 12), (4096, 128), (100_000, 96)]
            .into_iter()
            .map(|(f, s)| shape(f, s))
            .collect()
    }

    fn check_reads_inputs(&self) -> bool {
        false
    }

    fn max_size(&self) -> (u64, &'static str) {
        // A size's number is footprint x stride here, not an index: the
        // walk is bounded by MAX_SLOTS and by 32-bit word indices instead.
        (
            u64::MAX,
            "a footprint past 2^22 slots, or past 2^32 words, is walked over its first slots",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(footprint: u64, stride: u64) -> (Instance, Prepared, Vec<u32>) {
        let instance = Instance {
            shape: shape(footprint, stride),
            dtype: Elem::I32,
        };
        let prepared = PointerChase.prepare(&instance, 5, Data::Timed);
        let HostData::U32(next) = prepared.input("next").unwrap().clone() else {
            unreachable!()
        };
        (instance, prepared, next)
    }

    fn judge(instance: &Instance, prepared: &Prepared, out: u32) -> CheckOutcome {
        let out = HostData::U32(vec![out]);
        PointerChase.check(instance, prepared, &[("out", &out)], Data::Timed)
    }

    // The slots form one cycle through every slot, each holding a slot's
    // word index, the words between them 0.
    #[test]
    fn next_is_one_cycle_through_every_slot() {
        let (w, slots) = (32, 1000);
        let next = cycle(w, slots, 9);
        let mut seen = std::collections::BTreeSet::new();
        let mut i = 0u32;
        for _ in 0..slots {
            assert_eq!(i as u64 % w, 0);
            assert!(seen.insert(i));
            i = next[i as usize];
        }
        assert_eq!(i, 0, "back at the start after exactly `slots` loads");
        assert_eq!(seen.len() as u64, slots);
        assert!(
            next.iter()
                .enumerate()
                .all(|(k, &v)| (k as u64).is_multiple_of(w) || v == 0)
        );
        assert_ne!(cycle(w, slots, 9), cycle(w, slots, 10));
    }

    // The walk's end passes; ending one load early or late, or at the start
    // (a kernel that never loads), fails, and the message names both words.
    #[test]
    fn out_must_be_the_word_reached() {
        let (instance, prepared, next) = run(64 << 10, 128);
        let (_, slots) = layout(&instance.shape);
        let n = steps(slots);
        assert!(judge(&instance, &prepared, walk(&next, n)).pass);
        for wrong in [walk(&next, n - 1), walk(&next, n + 1), 0] {
            let bad = judge(&instance, &prepared, wrong);
            assert!(
                !bad.pass && bad.detail.contains("expected word"),
                "{}",
                bad.detail
            );
        }
        assert!(
            !PointerChase
                .check(&instance, &prepared, &[], Data::Timed)
                .pass
        );
    }

    // Steps: at least MIN_STEPS, at least a lap and a half; the layout
    // takes whole strides and words; the figure is a latency, timed warm.
    #[test]
    fn steps_layout_and_kind() {
        assert_eq!(steps(10), 6554 * 10 + 5);
        assert_eq!(steps(512), MIN_STEPS + 256);
        assert_eq!(steps(1 << 20), 3 << 19);
        assert_eq!(layout(&shape(1000, 12)), (3, 83));
        assert_eq!(layout(&shape(64 << 20, 128)), (32, 1 << 19));
        assert_eq!(layout(&shape(4, 4)), (1, 2));
        let instance = Instance {
            shape: shape(64 << 20, 128),
            dtype: Elem::I32,
        };
        assert_eq!(PointerChase.bytes(&instance), 64 << 20);
        assert_eq!(
            PointerChase.scalars_at(&instance),
            [("steps", Scalar::U32(3 << 18))]
        );
        assert_eq!(PointerChase.reports(), Reports::Latency);
        assert!(PointerChase.warm());
    }

    // The walk never ends at its start, for every slot count from the
    // fewest (two: before, one and two slots walked whole laps, and a
    // kernel that loaded nothing passed there) to many; at one and two
    // slots the output 0 (a kernel that never loads) fails.
    #[test]
    fn the_walk_never_ends_at_its_start() {
        for slots in (2..=5000).chain([MAX_SLOTS - 1, MAX_SLOTS]) {
            assert_ne!(steps(slots) % slots, 0, "{slots} slots");
        }
        for footprint in [4, 8] {
            let (instance, prepared, next) = run(footprint, 4);
            assert_eq!(layout(&instance.shape).1, 2);
            let (_, slots) = layout(&instance.shape);
            assert_ne!(walk(&next, steps(slots)), 0);
            assert!(!judge(&instance, &prepared, 0).pass);
        }
    }

    // A final word index past 2^31 - 1 (a correct kernel's `out` there)
    // passes: `next` and `out` are unsigned 32-bit words, so it is not
    // read as a negative int.
    #[test]
    fn a_word_index_past_2_31_passes() {
        assert_eq!(
            PointerChase
                .buffers(&Instance {
                    shape: shape(1 << 20, 128),
                    dtype: Elem::U32,
                })
                .iter()
                .map(|b| b.elem)
                .collect::<Vec<_>>(),
            [Elem::U32, Elem::U32]
        );
        let instance = Instance {
            shape: shape(64, 4),
            dtype: Elem::U32,
        };
        let want = (1u32 << 31) + 5;
        let prepared = Prepared {
            inputs: Vec::new(),
            reference: vec![f64::from(want)],
        };
        assert!(judge(&instance, &prepared, want).pass);
        assert!(!judge(&instance, &prepared, want - 1).pass);
    }
}
