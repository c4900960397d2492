//! Reading a stored SASS listing ([`crate::sass`]) the way a page shows it:
//! which instructions come from a region of the source (an mdBook anchor),
//! which run under a predicate, which are branches, which belong to an
//! integer division or modulo, and how many of each there are.
//!
//! The rules, as the book states them (AUTHORING §4):
//!
//! - **Padding.** ptxas ends every kernel with a branch to itself and pads
//!   it with `NOP`s to an alignment; the trailing `NOP`s and the
//!   unconditional `BRA` just before them are never executed and are left
//!   out of every count.
//! - **Branch**: an instruction whose opcode is `BRA`, `BRX`, `JMP` or
//!   `JMX`, taken or conditional.
//! - **Predicated**: an instruction that is not a branch and runs under a
//!   predicate (`@P1`, `@!P2`): the form a short `if` takes when the
//!   compiler does not branch around it.
//! - **Integer division or modulo.** On sm_90 an unsigned 32-bit `/` or
//!   `%` by a value the compiler cannot see compiles to a reciprocal and
//!   two corrections. A sequence is recognised by its start, an `I2F` with
//!   the `.RP` modifier (the divisor converted to float, rounded up),
//!   followed among the instructions of the same source line by
//!   `MUFU.RCP`, an `F2I` with `.TRUNC` and an `IMAD.HI`, in that order.
//!   The sequence is every instruction of that source line from the first
//!   that reads the divisor (the `I2F`'s source operand) to the last that
//!   does: the divisor's negation and zero test before the `I2F`, the
//!   reciprocal, the quotient estimate, the two corrections and the
//!   division-by-zero fix-up (`LOP3.LUT`) after it. Another line's
//!   instructions scheduled in between are not counted. Division by a
//!   constant (a multiply by a magic number) and 64-bit division (a call)
//!   are not recognised.

use crate::sass::{Instruction, Kernel};
use crate::source;

/// Inclusive ranges of source lines.
pub type LineRanges = Vec<(u32, u32)>;

/// The part of the source a page is about: ranges of lines of one file
/// (the example's own, as its `#line` markers name it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region<'a> {
    /// The file, relative to the book's root (`kernels/r/k.cu`).
    pub file: &'a str,
    /// Its lines.
    pub ranges: &'a [(u32, u32)],
}

impl Region<'_> {
    /// Whether `i` was compiled from these lines, directly or through a
    /// call on one of them; lines of another file never are.
    pub fn holds(&self, i: &Instruction) -> bool {
        self.ranges
            .iter()
            .any(|&(first, last)| i.from_lines(self.file, first, last))
    }
}

/// The lines of `file` between `// ANCHOR: name` and `// ANCHOR_END: name`
/// (the marker lines themselves excluded), read off an example's compiled
/// source, whose `#line` markers give every line its place in its own
/// file. An anchor opened more than once gives one range per opening; an
/// anchor never closed runs to the end of the file. Empty when the file
/// has no such anchor.
pub fn anchor_ranges(compiled: &str, file: &str, anchor: &str) -> LineRanges {
    let mut ranges = Vec::new();
    let mut open: Option<u32> = None;
    let mut last = 0;
    for (place, text) in placed_lines(compiled) {
        if place.0 != file {
            continue;
        }
        last = place.1;
        let t = text.trim_start();
        if source::anchor_marker(t, "ANCHOR:") == Some(anchor) {
            open.get_or_insert(place.1 + 1);
        } else if source::anchor_marker(t, "ANCHOR_END:") == Some(anchor)
            && let Some(first) = open.take()
            && first < place.1
        {
            ranges.push((first, place.1 - 1));
        }
    }
    if let Some(first) = open
        && first <= last
    {
        ranges.push((first, last));
    }
    ranges
}

/// The anchors `file` defines in an example's compiled source, in order,
/// each once: what a misspelt anchor is compared with.
pub fn anchor_names<'a>(compiled: &'a str, file: &str) -> Vec<&'a str> {
    let mut names: Vec<&str> = Vec::new();
    for (place, text) in placed_lines(compiled) {
        if place.0 != file {
            continue;
        }
        if let Some(name) = source::anchor_marker(text.trim_start(), "ANCHOR:")
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// The files an example's compiled source is made of, as its `#line`
/// markers name them (its own first, then its includes), each once.
pub fn files(compiled: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for (_, name) in compiled.lines().filter_map(line_marker) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Line `line` of `file` in an example's compiled source, with the file's
/// name as its `#line` markers give it: what a tool's `k.cu:24` points at.
/// `file` may be a last path component (`k.cu`, as compute-sanitizer
/// prints it) or a path ending in one of the example's files.
pub fn placed_line<'a>(compiled: &'a str, file: &str, line: u32) -> Option<(&'a str, &'a str)> {
    placed_lines(compiled)
        .find(|((name, at), _)| *at == line && crate::sass::same_file(name, file))
        .map(|((name, _), text)| (name, text))
}

/// Every line of a compiled source that is not a `#line` marker, with
/// the file and 1-based line the markers give it.
fn placed_lines(compiled: &str) -> impl Iterator<Item = ((&str, u32), &str)> {
    let mut file = "";
    let mut next = 1u32;
    compiled.lines().filter_map(move |text| {
        if let Some((line, name)) = line_marker(text) {
            file = name;
            next = line;
            return None;
        }
        let place = (file, next);
        next += 1;
        Some((place, text))
    })
}

/// `#line 12 "kernels/r/k.cu"` as (12, `kernels/r/k.cu`).
fn line_marker(text: &str) -> Option<(u32, &str)> {
    let rest = text.strip_prefix("#line ")?;
    let (line, name) = rest.split_once(' ')?;
    Some((line.parse().ok()?, name.trim().trim_matches('"')))
}

/// How many instructions at the end of `code` are padding: the trailing
/// `NOP`s and the unconditional `BRA` to itself before them.
pub fn padding(code: &[Instruction]) -> usize {
    let nops = code.iter().rev().take_while(|i| i.text == "NOP").count();
    let before = code.len().checked_sub(nops + 1).map(|i| &code[i]);
    match before {
        Some(i) if !i.predicated() && opcode_base(i) == "BRA" => nops + 1,
        _ => nops,
    }
}

/// Whether the instruction is a branch (`BRA`, `BRX`, `JMP`, `JMX`).
pub fn is_branch(i: &Instruction) -> bool {
    matches!(opcode_base(i), "BRA" | "BRX" | "JMP" | "JMX")
}

/// The opcode without its modifiers: `IMAD` for `IMAD.HI.U32`.
fn opcode_base(i: &Instruction) -> &str {
    i.opcode().split('.').next().unwrap_or("")
}

/// Whether the opcode is `base` with `modifier` among its modifiers.
fn has(i: &Instruction, base: &str, modifier: &str) -> bool {
    let mut parts = i.opcode().split('.');
    parts.next() == Some(base) && parts.any(|m| m == modifier)
}

/// The operands of an instruction, destination first, as written.
fn operands(i: &Instruction) -> Vec<&str> {
    let text = if i.predicated() {
        i.text.split_once(' ').map_or("", |(_, rest)| rest)
    } else {
        i.text.as_str()
    };
    let rest = text
        .trim_start()
        .split_once(' ')
        .map_or("", |(_, rest)| rest);
    rest.split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect()
}

/// A register or value operand without its negation, absolute value,
/// inversion or reuse flag: `UR6` for `-UR6`, `R3` for `|R3|.reuse`.
fn bare(operand: &str) -> &str {
    let o = operand.trim_start_matches(['-', '!', '~', '|']);
    let o = o.strip_suffix(".reuse").unwrap_or(o);
    o.trim_end_matches('|')
}

/// Whether the instruction reads `operand` (names it after its first
/// operand, which is the destination where there is one).
fn reads(i: &Instruction, operand: &str) -> bool {
    operands(i).iter().skip(1).any(|o| bare(o) == operand)
}

/// The source place of an instruction, for "the same source line".
fn place(i: &Instruction) -> (Option<&str>, Option<u32>, Option<&str>, Option<u32>) {
    (
        i.file.as_deref(),
        i.line,
        i.called_from_file.as_deref(),
        i.called_from,
    )
}

/// Whether an integer division or modulo sequence starts at `code[at]`:
/// an `I2F…RP`, then `MUFU.RCP`, `F2I…TRUNC` and `IMAD.HI` on its line.
fn starts_division(code: &[Instruction], at: usize) -> bool {
    if !has(&code[at], "I2F", "RP") {
        return false;
    }
    let tests: [fn(&Instruction) -> bool; 3] = [
        |i| i.opcode() == "MUFU.RCP",
        |i| has(i, "F2I", "TRUNC"),
        |i| has(i, "IMAD", "HI"),
    ];
    let mut wanted = tests.iter().peekable();
    for i in code[at + 1..]
        .iter()
        .filter(|i| place(i) == place(&code[at]))
    {
        if wanted.peek().is_some_and(|test| test(i)) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

/// For each instruction of `code`, whether it belongs to an integer
/// division or modulo sequence (the rule in the module's documentation).
pub fn division_sequences(code: &[Instruction]) -> Vec<bool> {
    let mut mask = vec![false; code.len()];
    let starts: Vec<usize> = (0..code.len())
        .filter(|&at| starts_division(code, at))
        .collect();
    for (k, &at) in starts.iter().enumerate() {
        let Some(divisor) = operands(&code[at]).get(1).map(|o| bare(o)) else {
            continue;
        };
        let same = |i: usize| place(&code[i]) == place(&code[at]);
        // Two divisions on one line split it at their starts.
        let low = starts[..k]
            .iter()
            .rev()
            .find(|&&s| same(s))
            .map_or(0, |&s| s + 1);
        let high = starts[k + 1..]
            .iter()
            .find(|&&s| same(s))
            .copied()
            .unwrap_or(code.len());
        let reading: Vec<usize> = (low..high)
            .filter(|&i| same(i) && (i == at || reads(&code[i], divisor)))
            .collect();
        if let (Some(&first), Some(&last)) = (reading.first(), reading.last()) {
            for (i, slot) in mask.iter_mut().enumerate().take(last + 1).skip(first) {
                *slot |= same(i);
            }
        }
    }
    mask
}

/// What a page marks on one instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    /// Compiled from the region asked for.
    pub in_region: bool,
    /// Runs under a predicate, and is not a branch.
    pub predicated: bool,
    /// A branch.
    pub branch: bool,
    /// Part of an integer division or modulo sequence.
    pub division: bool,
}

/// Counts over a set of instructions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Instructions.
    pub instructions: usize,
    /// Of them, predicated (branches not included).
    pub predicated: usize,
    /// Of them, branches.
    pub branches: usize,
    /// Of them, in an integer division or modulo sequence.
    pub division: usize,
}

impl Counts {
    fn add(&mut self, m: &Marks) {
        self.instructions += 1;
        self.predicated += usize::from(m.predicated);
        self.branches += usize::from(m.branch);
        self.division += usize::from(m.division);
    }
}

/// A kernel read for a page: its instructions without padding, each with
/// its marks, and the counts of the whole kernel and of the region.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading<'a> {
    /// The instructions that execute (padding left out).
    pub code: &'a [Instruction],
    /// The marks of each, in order.
    pub marks: Vec<Marks>,
    /// How many padding instructions were left out.
    pub padding: usize,
    /// Counts over the whole kernel.
    pub kernel: Counts,
    /// Counts over the instructions compiled from `region`, when one was
    /// given.
    pub region: Option<Counts>,
}

/// Reads `kernel`, marking the instructions compiled from a line of
/// `region` (directly, or through a call on one of those lines).
pub fn read<'a>(kernel: &'a Kernel, region: Option<Region<'_>>) -> Reading<'a> {
    let padding = padding(&kernel.instructions);
    let code = &kernel.instructions[..kernel.instructions.len() - padding];
    let division = division_sequences(code);
    let marks: Vec<Marks> = code
        .iter()
        .zip(division)
        .map(|(i, division)| {
            let branch = is_branch(i);
            Marks {
                in_region: region.is_some_and(|r| r.holds(i)),
                predicated: i.predicated() && !branch,
                branch,
                division,
            }
        })
        .collect();
    let mut whole = Counts::default();
    let mut part = Counts::default();
    for m in &marks {
        whole.add(m);
        if m.in_region {
            part.add(m);
        }
    }
    Reading {
        code,
        marks,
        padding,
        kernel: whole,
        region: region.map(|_| part),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file of the test kernels.
    const FILE: &str = "kernels/r/k.cu";

    /// Instructions of [`FILE`] from `(line, text)` pairs, 16 bytes apart.
    fn code(lines: &[(u32, &str)]) -> Vec<Instruction> {
        lines
            .iter()
            .enumerate()
            .map(|(k, &(line, text))| Instruction {
                file: Some(FILE.into()),
                line: Some(line),
                ..Instruction::new(16 * k as u32, text)
            })
            .collect()
    }

    /// Lines `ranges` of [`FILE`].
    fn of_file(ranges: &[(u32, u32)]) -> Option<Region<'_>> {
        Some(Region { file: FILE, ranges })
    }

    /// The interleaved fold as NVRTC 13.0 compiles it for sm_90: line 30 is
    /// the loop, 31 the `tid % (2 * stride) == 0` test, 32 the addition.
    const FOLD: [(u32, &str); 33] = [
        (30, "ISETP.GE.U32.AND P1, PT, R4, 0x2, PT"),
        (38, "ISETP.NE.AND P0, PT, R6, RZ, PT"),
        (30, "@!P1 BRA `(.L_x_0)"),
        (30, "UMOV UR5, 0x1"),
        (31, "USHF.L.U32 UR6, UR5, 0x1, URZ"),
        (31, "IADD3 R7, RZ, -UR6, RZ"),
        (31, "ISETP.NE.U32.AND P2, PT, RZ, UR6, PT"),
        (31, "I2F.U32.RP R0, UR6"),
        (31, "MUFU.RCP R0, R0"),
        (31, "VIADD R2, R0, 0xffffffe"),
        (31, "F2I.FTZ.U32.TRUNC.NTZ R3, R2"),
        (31, "IMAD.MOV.U32 R2, RZ, RZ, RZ"),
        (31, "IMAD R7, R7, R3, RZ"),
        (31, "IMAD.HI.U32 R3, R3, R7, R2"),
        (31, "IMAD.HI.U32 R3, R3, R6, RZ"),
        (31, "IMAD.MOV R3, RZ, RZ, -R3"),
        (31, "IMAD R3, R3, UR6, R6"),
        (31, "ISETP.GE.U32.AND P1, PT, R3, UR6, PT"),
        (31, "@P1 IADD3 R3, R3, -UR6, RZ"),
        (31, "ISETP.GE.U32.AND P1, PT, R3, UR6, PT"),
        (31, "@P1 VIADD R3, R3, -UR6"),
        (31, "@!P2 LOP3.LUT R3, RZ, UR6, RZ, 0x33, !PT"),
        (31, "ISETP.NE.AND P1, PT, R3, RZ, PT"),
        (32, "@!P1 IADD3 R0, R6, UR5, RZ"),
        (32, "@!P1 LDS R2, [R5]"),
        (30, "UMOV UR5, UR6"),
        (32, "@!P1 LEA R0, R0, UR4, 0x2"),
        (32, "@!P1 LDS R3, [R0]"),
        (32, "@!P1 FADD R2, R2, R3"),
        (32, "@!P1 STS [R5], R2"),
        (34, "BAR.SYNC.DEFER_BLOCKING 0x0"),
        (30, "ISETP.LE.U32.AND P1, PT, R4, UR6, PT"),
        (30, "@!P1 BRA `(.L_x_1)"),
    ];

    // The modulo is the 17 instructions from the divisor's negation to the
    // division-by-zero fix-up: not the `2 * stride` before it (it writes
    // the divisor) nor the `== 0` test after it (it reads the remainder).
    #[test]
    fn the_modulo_sequence_runs_from_the_first_to_the_last_read_of_the_divisor() {
        let fold = code(&FOLD);
        let mask = division_sequences(&fold);
        let marked: Vec<&str> = fold
            .iter()
            .zip(&mask)
            .filter(|(_, m)| **m)
            .map(|(i, _)| i.text.as_str())
            .collect();
        assert_eq!(marked.len(), 17, "{marked:#?}");
        assert_eq!(marked[0], "IADD3 R7, RZ, -UR6, RZ");
        assert_eq!(marked[16], "@!P2 LOP3.LUT R3, RZ, UR6, RZ, 0x33, !PT");
        assert!(!marked.contains(&"USHF.L.U32 UR6, UR5, 0x1, URZ"));
        assert!(!marked.contains(&"ISETP.NE.AND P1, PT, R3, RZ, PT"));
    }

    // A reciprocal alone (a float division) or an I2F without the rest of
    // the sequence on its line is not an integer division; another line's
    // instruction scheduled inside the sequence is not counted in it.
    #[test]
    fn only_the_whole_pattern_on_one_line_is_a_division() {
        let float_div = code(&[(5, "MUFU.RCP R0, R3"), (5, "FFMA R4, R0, R2, RZ")]);
        assert!(!division_sequences(&float_div).contains(&true));
        let split = code(&[
            (7, "I2F.U32.RP R0, R9"),
            (7, "MUFU.RCP R0, R0"),
            (8, "F2I.FTZ.U32.TRUNC.NTZ R3, R2"),
            (8, "IMAD.HI.U32 R3, R3, R7, R2"),
        ]);
        assert!(!division_sequences(&split).contains(&true));
        let interleaved = code(&[
            (7, "IADD3 R7, RZ, -R9, RZ"),
            (7, "I2F.U32.RP R0, R9"),
            (9, "LDS R1, [R5]"),
            (7, "MUFU.RCP R0, R0"),
            (7, "F2I.FTZ.U32.TRUNC.NTZ R3, R0"),
            (7, "IMAD.HI.U32 R3, R3, R7, RZ"),
            (7, "IMAD R3, R3, R9.reuse, R6"),
        ]);
        assert_eq!(
            division_sequences(&interleaved),
            [true, true, false, true, true, true, true]
        );
    }

    // Counting the fold: its own lines only, branches apart from the
    // predicated instructions, the modulo's three predicated corrections
    // counted in both.
    #[test]
    fn region_counts_of_the_fold() {
        let kernel = Kernel {
            name: "reduce_interleaved".into(),
            instructions: code(&FOLD),
            ..Kernel::default()
        };
        let reading = read(&kernel, of_file(&[(30, 35)]));
        assert_eq!(
            reading.region,
            Some(Counts {
                instructions: 32,
                predicated: 9,
                branches: 2,
                division: 17,
            })
        );
        assert_eq!(reading.kernel.instructions, 33);
        assert!(!reading.marks[1].in_region);
        assert!(reading.marks[2].branch && !reading.marks[2].predicated);
        assert_eq!(read(&kernel, None).region, None);
    }

    // The self-branch and NOPs that end every kernel are padding, not code.
    #[test]
    fn trailing_self_branch_and_nops_are_padding() {
        let tail = code(&[
            (38, "@P0 EXIT"),
            (41, "EXIT"),
            (41, "BRA `(.L_x_2)"),
            (41, "NOP"),
            (41, "NOP"),
        ]);
        assert_eq!(padding(&tail), 3);
        assert_eq!(padding(&tail[..2]), 0);
        let conditional = code(&[(3, "@P0 BRA `(.L_x_0)"), (3, "NOP")]);
        assert_eq!(padding(&conditional), 1);
        let kernel = Kernel {
            instructions: tail,
            ..Kernel::default()
        };
        let reading = read(&kernel, None);
        assert_eq!((reading.code.len(), reading.kernel.branches), (2, 0));
    }

    // The same line numbers of an included file are not the region's
    // lines; code inlined from it through a call on one of them is.
    #[test]
    fn lines_of_an_included_file_are_not_the_regions() {
        let cuh = "kernels/r/block_sum.cuh";
        let mut kernel = Kernel {
            instructions: code(&[
                (31, "FADD R2, R2, R3"),
                (31, "SHFL.DOWN PT, R4, R9, 0x10, 0x1f"),
                (7, "SHFL.DOWN PT, R5, R4, 0x8, 0x1f"),
                (40, "EXIT"),
            ]),
            ..Kernel::default()
        };
        kernel.instructions[1].file = Some(cuh.into());
        kernel.instructions[2].file = Some(cuh.into());
        kernel.instructions[2].called_from_file = Some(FILE.into());
        kernel.instructions[2].called_from = Some(33);
        let region = read(&kernel, of_file(&[(30, 35)]));
        let marked: Vec<bool> = region.marks.iter().map(|m| m.in_region).collect();
        assert_eq!(marked, [true, false, true, false]);
        assert_eq!(region.region.map(|c| c.instructions), Some(2));
        // Of the included file, only its own line 31 is.
        let of_cuh = read(
            &kernel,
            Some(Region {
                file: cuh,
                ranges: &[(30, 35)],
            }),
        );
        assert_eq!(of_cuh.region.map(|c| c.instructions), Some(1));
    }

    /// A kernel file as an example's compiled source holds it: a `#line`
    /// marker first, and an include spliced in with its own markers.
    const COMPILED: &str = "#line 1 \"kernels/r/k.cu\"\n/*+++\n+++*/\n// ANCHOR: fold\nfor (;;) {\n    step();\n}\n// ANCHOR_END: fold\n#line 1 \"kernels/common.cuh\"\n// ANCHOR: fold\nint shared_helper;\n// ANCHOR_END: fold\n#line 10 \"kernels/r/k.cu\"\n// ANCHOR: tail\nint x;\n// ANCHOR: fold\nint y;\n";

    // Anchors are found in the example's own file, at the lines its editor
    // shows; one opened twice gives two ranges, one never closed runs on
    // to the end of the file.
    #[test]
    fn anchor_ranges_are_lines_of_the_examples_own_file() {
        assert_eq!(
            anchor_ranges(COMPILED, "kernels/r/k.cu", "fold"),
            [(4, 6), (13, 13)]
        );
        assert_eq!(
            anchor_ranges(COMPILED, "kernels/r/k.cu", "tail"),
            [(11, 13)]
        );
        assert_eq!(
            anchor_ranges(COMPILED, "kernels/common.cuh", "fold"),
            [(2, 2)]
        );
        assert!(anchor_ranges(COMPILED, "kernels/r/k.cu", "flod").is_empty());
        assert_eq!(anchor_names(COMPILED, "kernels/r/k.cu"), ["fold", "tail"]);
        assert_eq!(files(COMPILED), ["kernels/r/k.cu", "kernels/common.cuh"]);
        // What a tool's `k.cu:10` and `common.cuh:2` point at.
        assert_eq!(
            placed_line(COMPILED, "k.cu", 10),
            Some(("kernels/r/k.cu", "// ANCHOR: tail"))
        );
        assert_eq!(
            placed_line(COMPILED, "common.cuh", 2),
            Some(("kernels/common.cuh", "int shared_helper;"))
        );
        assert_eq!(placed_line(COMPILED, "r/k.cu", 99), None);
        assert_eq!(placed_line(COMPILED, "other.cu", 5), None);
    }
}
