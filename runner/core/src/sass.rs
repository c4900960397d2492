//! What the compiler made of an example: for each kernel, its resources
//! (registers, stack, shared and local memory, from `cuobjdump -res-usage`)
//! and its SASS with the source file and line of every instruction, and
//! for code of an inlined function the file and line of the outermost call
//! (from `nvdisasm --print-line-info-inline` of the cubin NVRTC made,
//! compiled with `-lineinfo`), stored as `results/sass/<example id>.json`
//! and shown by `{{#sass}}`. No GPU is involved: NVRTC and the two
//! disassemblers (from PyPI) are enough. A listing is current while its
//! `key` equals the example's key and it records files ([`Listing::has_files`]).

use serde::{Deserialize, Serialize};

/// Version of the listing format. v1: each instruction's line only. v2:
/// each instruction's file too, and for inlined code the call's file, so
/// that lines of an included `.cuh` are never taken for lines of the
/// example's own file.
pub const SCHEMA_VERSION: u32 = 2;

/// The stored listing of one example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    /// Format version ([`SCHEMA_VERSION`]).
    pub schema: u32,
    /// The example's id (`reductions/interleaved_tree`).
    pub example: String,
    /// The example's key when the listing was made.
    pub key: String,
    /// The architecture compiled for (`sm_90`).
    pub arch: String,
    /// The NVRTC that compiled it (`13.0`).
    pub nvrtc: String,
    /// The disassembler (`nvdisasm 13.5.37`).
    pub tool: String,
    /// When it was made (RFC 3339).
    pub made_at: String,
    /// Each kernel of the compiled code.
    pub kernels: Vec<Kernel>,
}

impl Listing {
    /// Whether its instructions carry their files (format v2 on): a v1
    /// listing cannot tell a line of the example's file from the same line
    /// number of an included file.
    pub fn has_files(&self) -> bool {
        self.schema >= 2
    }
}

/// One kernel's resources and instructions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Kernel {
    /// Its name as the driver sees it.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Stack frame bytes per thread (spills land here).
    pub stack: u32,
    /// Static shared memory bytes per block.
    pub shared: u32,
    /// Local memory bytes per thread.
    pub local: u32,
    /// The instructions, in order.
    pub instructions: Vec<Instruction>,
}

/// One SASS instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instruction {
    /// Its byte offset in the kernel.
    pub offset: u32,
    /// The instruction as the disassembler prints it, predicate included,
    /// without the trailing `;`.
    pub text: String,
    /// The file of `line`, relative to the book's root where it is one of
    /// the example's files (`kernels/reductions/block_sum.cuh`); absent in
    /// v1 listings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The source line it was compiled from, where the line table says
    /// (inside an inlined function, that function's line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// For code of an inlined function, the file of the outermost call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called_from_file: Option<String>,
    /// For code of an inlined function, the line of the outermost call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called_from: Option<u32>,
}

impl Instruction {
    /// An instruction at `offset` with no source place.
    pub fn new(offset: u32, text: impl Into<String>) -> Self {
        Instruction {
            offset,
            text: text.into(),
            file: None,
            line: None,
            called_from_file: None,
            called_from: None,
        }
    }

    /// Whether it came from a line in `first..=last` of `file`, directly or
    /// through a call on one of them. The same line numbers of another file
    /// (an included `.cuh`), or of an unknown one, do not count.
    pub fn from_lines(&self, file: &str, first: u32, last: u32) -> bool {
        let at = |f: &Option<String>, l: Option<u32>| {
            f.as_deref().is_some_and(|f| same_file(f, file))
                && l.is_some_and(|l| (first..=last).contains(&l))
        };
        at(&self.file, self.line) || at(&self.called_from_file, self.called_from)
    }

    /// Whether it executes under a predicate (`@P0`, `@!P1`): the form a
    /// short `if` takes instead of a branch.
    pub fn predicated(&self) -> bool {
        self.text.starts_with('@')
    }

    /// The opcode with its modifiers (`IMAD.HI.U32`), predicate skipped.
    pub fn opcode(&self) -> &str {
        let t = if self.predicated() {
            self.text
                .split_once(' ')
                .map_or("", |(_, rest)| rest.trim_start())
        } else {
            self.text.as_str()
        };
        t.split_whitespace().next().unwrap_or("")
    }
}

/// Whether two names of a source file name the same file: equal, or one a
/// path ending in the other at a `/` (`/b/kernels/r/k.cu` and
/// `kernels/r/k.cu`).
pub fn same_file(a: &str, b: &str) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    !short.is_empty()
        && long
            .strip_suffix(short)
            .is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

/// Renames the files of `kernels`' instructions as the disassembler printed
/// them (NVRTC puts the folder it ran in before a relative `#line` name) to
/// the one of `known` they end with: the example's files as its `#line`
/// markers name them, relative to the book's root. A file that is none of
/// them keeps its printed name.
pub fn name_files(kernels: &mut [Kernel], known: &[&str]) {
    let rename = |file: &mut Option<String>| {
        if let Some(f) = file
            && let Some(k) = known.iter().find(|k| same_file(f, k))
        {
            *f = (*k).to_string();
        }
    };
    for i in kernels.iter_mut().flat_map(|k| k.instructions.iter_mut()) {
        rename(&mut i.file);
        rename(&mut i.called_from_file);
    }
}

/// The file of example `id`'s listing, relative to the results folder.
pub fn relative_path(id: &str) -> String {
    format!("sass/{id}.json")
}

/// Resources by kernel from `cuobjdump -res-usage` output:
/// ` Function NAME:` then `  REG:10 STACK:0 SHARED:1024 LOCAL:0 ...`.
pub fn parse_res_usage(text: &str) -> Vec<Kernel> {
    let mut kernels = Vec::new();
    let mut name: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Function ") {
            name = Some(rest.trim_end_matches(':').to_string());
            continue;
        }
        let Some(n) = name.take() else { continue };
        let mut k = Kernel {
            name: n,
            ..Kernel::default()
        };
        for field in t.split_whitespace() {
            let Some((key, value)) = field.split_once(':') else {
                continue;
            };
            let v = value.parse().unwrap_or(0);
            match key {
                "REG" => k.registers = v,
                "STACK" => k.stack = v,
                "SHARED" => k.shared = v,
                "LOCAL" => k.local = v,
                _ => {}
            }
        }
        kernels.push(k);
    }
    kernels
}

/// A file and a line in it.
type FileLine = (String, u32);

/// One `//## File "F", line N [inlined at "G", line M]` annotation.
#[derive(Debug, Clone, PartialEq)]
struct Place {
    file: String,
    line: u32,
    inlined_at: Option<FileLine>,
}

/// `"F", line N` at the start of `text`, and what follows it.
fn file_and_line(text: &str) -> Option<(FileLine, &str)> {
    let rest = text.strip_prefix('"')?;
    let (file, rest) = rest.split_once("\", line ")?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let line = rest[..digits].parse().ok()?;
    Some(((file.to_string(), line), &rest[digits..]))
}

/// The place an annotation names (what follows `//## File `).
fn parse_place(text: &str) -> Option<Place> {
    let ((file, line), rest) = file_and_line(text.trim())?;
    let inlined_at = rest
        .trim_start()
        .strip_prefix("inlined at ")
        .and_then(|r| file_and_line(r.trim_start()))
        .map(|(at, _)| at);
    Some(Place {
        file,
        line,
        inlined_at,
    })
}

/// The source of the instructions under a run of annotations. With
/// `--print-line-info-inline`, code of an inlined function is annotated by
/// its chain of places, innermost first (`line 7 inlined at ... line 18`,
/// then `line 18 inlined at "k.cu", line 33`), the outermost last
/// (`"k.cu", line 33`): its line is the innermost's, its call the
/// outermost's. With `--print-line-info` a run is one place, the call (if
/// any) in its `inlined at`.
fn source_of(chain: &[Place]) -> (Option<FileLine>, Option<FileLine>) {
    let Some(first) = chain.first() else {
        return (None, None);
    };
    let innermost = (first.file.clone(), first.line);
    let last = chain.last().unwrap_or(first);
    let outermost = match &last.inlined_at {
        Some(at) => at.clone(),
        None => (last.file.clone(), last.line),
    };
    let call = (chain.len() > 1 || first.inlined_at.is_some()).then_some(outermost);
    (Some(innermost), call)
}

/// Instructions by kernel from `nvdisasm -c --print-line-info-inline` (or
/// `--print-line-info`) output: a kernel starts at its `.text.NAME:`
/// label, a run of `//## File "...", line N` annotations sets the source
/// of the instructions after it ([`source_of`]), and an instruction reads
/// `/*0040*/   @!P0 LDG.E R0, desc[UR8][R2.64] ;`. File names are kept as
/// printed ([`name_files`] makes them the book's).
pub fn parse_nvdisasm(text: &str) -> Vec<(String, Vec<Instruction>)> {
    let mut kernels: Vec<(String, Vec<Instruction>)> = Vec::new();
    let mut chain: Vec<Place> = Vec::new();
    // Whether the last annotation or instruction seen was an annotation: a
    // new run of annotations replaces the chain, a continued one extends it.
    let mut annotating = false;
    let mut source = (None, None);
    for raw in text.lines() {
        let t = raw.trim();
        if let Some(name) = t
            .strip_prefix(".text.")
            .and_then(|rest| rest.strip_suffix(':'))
        {
            kernels.push((name.to_string(), Vec::new()));
            chain.clear();
            annotating = false;
            source = (None, None);
            continue;
        }
        if let Some(rest) = t.strip_prefix("//## File ") {
            if !annotating {
                chain.clear();
            }
            annotating = true;
            chain.extend(parse_place(rest));
            source = source_of(&chain);
            continue;
        }
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some((offset, body)) = rest.split_once("*/") else {
            continue;
        };
        let Ok(offset) = u32::from_str_radix(offset.trim(), 16) else {
            continue;
        };
        let body = body.split("/*").next().unwrap_or("").trim();
        let body = body.trim_end_matches(';').trim_end();
        if body.is_empty() {
            continue;
        }
        annotating = false;
        if let Some((_, instructions)) = kernels.last_mut() {
            let (at, call) = source.clone();
            let (file, line) = at.map_or((None, None), |(f, l)| (Some(f), Some(l)));
            let (called_from_file, called_from) =
                call.map_or((None, None), |(f, l)| (Some(f), Some(l)));
            instructions.push(Instruction {
                offset,
                text: body.split_whitespace().collect::<Vec<_>>().join(" "),
                file,
                line,
                called_from_file,
                called_from,
            });
        }
    }
    kernels
}

/// The resources and instructions, joined by kernel name (a kernel missing
/// from the resources keeps zeros).
pub fn join(resources: Vec<Kernel>, code: Vec<(String, Vec<Instruction>)>) -> Vec<Kernel> {
    code.into_iter()
        .map(|(name, instructions)| {
            let mut k = resources
                .iter()
                .find(|r| r.name == name)
                .cloned()
                .unwrap_or_else(|| Kernel {
                    name: name.clone(),
                    ..Kernel::default()
                });
            k.instructions = instructions;
            k
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RES: &str = "\nResource usage:\n Common:\n  GLOBAL:0\n Function reduce_interleaved:\n  REG:10 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0\n Function other:\n  REG:64 STACK:8 SHARED:400 LOCAL:8\n";

    const DIS: &str = r#"
//--------------------- .text.reduce_interleaved  --------------------------
	.section	.text.reduce_interleaved,"ax",@progbits
reduce_interleaved:
.text.reduce_interleaved:
	//## File "/tmp/k.cu", line 16
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/tmp/k.cu", line 25 inlined at "/tmp/k.cu", line 40
        /*0090*/              @!P0 LDC.64 R2, c[0x0][0x210] ;
        /*00a0*/              @!P0 IMAD.WIDE.U32 R2, R5, 0x4, R2 ;
.L_x_1:
        /*0190*/                   I2F.U32.RP R0, UR6 ;   /* 0x0000000600007d06 */
"#;

    // The resources of each function are read off the line after its name.
    #[test]
    fn resources_are_read_per_function() {
        let k = parse_res_usage(RES);
        assert_eq!(k.len(), 2);
        assert_eq!(
            (k[0].name.as_str(), k[0].registers, k[0].shared),
            ("reduce_interleaved", 10, 1024)
        );
        assert_eq!((k[1].registers, k[1].stack, k[1].local), (64, 8, 8));
    }

    // Instructions keep their offset, predicate and the line the table
    // gave last; labels, directives and encodings are dropped.
    #[test]
    fn instructions_carry_their_source_line_and_predicate() {
        let code = parse_nvdisasm(DIS);
        assert_eq!(code.len(), 1);
        let (name, ins) = &code[0];
        assert_eq!(name, "reduce_interleaved");
        assert_eq!(ins.len(), 4);
        assert_eq!(ins[0].line, Some(16));
        assert_eq!(ins[0].file.as_deref(), Some("/tmp/k.cu"));
        assert_eq!(ins[1].text, "@!P0 LDC.64 R2, c[0x0][0x210]");
        assert_eq!((ins[1].line, ins[1].called_from), (Some(25), Some(40)));
        assert!(ins[1].from_lines("/tmp/k.cu", 40, 41) && ins[1].from_lines("k.cu", 20, 30));
        assert!(!ins[0].from_lines("/tmp/k.cu", 17, 39) && ins[0].called_from.is_none());
        assert!(ins[2].predicated() && !ins[0].predicated());
        assert_eq!(ins[2].opcode(), "IMAD.WIDE.U32");
        assert_eq!(ins[3].offset, 0x190);
        assert_eq!(ins[3].text, "I2F.U32.RP R0, UR6");
        let joined = join(parse_res_usage(RES), code);
        assert_eq!(joined[0].registers, 10);
        assert_eq!(joined[0].instructions.len(), 4);
    }

    /// `nvdisasm -c --print-line-info-inline` (13.5) of
    /// kernels/reductions/rung_float4.cu, which includes block_sum.cuh:
    /// code inlined from block_sum.cuh is annotated by its chain of
    /// places, innermost first, the call in the kernel's file last.
    const INLINE: &str = r#"
.text.rung_float4:
	//## File "/b/kernels/reductions/rung_float4.cu", line 30
        /*0210*/              @!P0 LDG.E.CONSTANT R2, desc[UR8][R2.64] ;
	//## File "/b/kernels/reductions/block_sum.cuh", line 23 inlined at "/b/kernels/reductions/rung_float4.cu", line 33
	//## File "/b/kernels/reductions/rung_float4.cu", line 33
        /*0220*/                   USHF.R.U32.HI UR4, URZ, 0x5, UR5 ;
.L_x_13:
	//## File "/b/kernels/reductions/block_sum.cuh", line 7 inlined at "/b/kernels/reductions/block_sum.cuh", line 18
	//## File "/b/kernels/reductions/block_sum.cuh", line 18 inlined at "/b/kernels/reductions/rung_float4.cu", line 33
	//## File "/b/kernels/reductions/rung_float4.cu", line 33
        /*0280*/                   SHFL.DOWN PT, R4, R9, 0x10, 0x1f ;
.L_x_14:
        /*02c0*/                   SHFL.DOWN PT, R5, R4, 0x8, 0x1f ;
	//## File "/b/kernels/reductions/rung_float4.cu", line 34
        /*0400*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;
"#;

    // An inlined instruction's line is the innermost place's, in its own
    // file; its call is the outermost place, in the kernel's file. A label
    // does not end a chain, an instruction does; an instruction without
    // annotations of its own keeps the last chain.
    #[test]
    fn inlined_code_keeps_its_file_and_the_outermost_call() {
        let mut code = join(Vec::new(), parse_nvdisasm(INLINE));
        let place = |i: &Instruction| {
            (
                i.file.clone().unwrap_or_default(),
                i.line,
                i.called_from_file.clone().unwrap_or_default(),
                i.called_from,
            )
        };
        let ins = &code[0].instructions;
        let own = "/b/kernels/reductions/rung_float4.cu";
        let cuh = "/b/kernels/reductions/block_sum.cuh";
        assert_eq!(place(&ins[0]), (own.into(), Some(30), String::new(), None));
        assert_eq!(place(&ins[1]), (cuh.into(), Some(23), own.into(), Some(33)));
        assert_eq!(place(&ins[2]), (cuh.into(), Some(7), own.into(), Some(33)));
        assert_eq!(place(&ins[3]), place(&ins[2]));
        assert_eq!(place(&ins[4]), (own.into(), Some(34), String::new(), None));
        name_files(
            &mut code,
            &[
                "kernels/reductions/rung_float4.cu",
                "kernels/reductions/block_sum.cuh",
            ],
        );
        let ins = &code[0].instructions;
        assert_eq!(
            ins[2].file.as_deref(),
            Some("kernels/reductions/block_sum.cuh")
        );
        assert_eq!(
            ins[2].called_from_file.as_deref(),
            Some("kernels/reductions/rung_float4.cu")
        );
        // Line 23 of block_sum.cuh is not line 23 of the kernel's file; the
        // call on line 33 is.
        let file = "kernels/reductions/rung_float4.cu";
        assert!(!ins[1].from_lines(file, 20, 31));
        assert!(ins[1].from_lines(file, 33, 33));
        assert!(ins[1].from_lines("kernels/reductions/block_sum.cuh", 23, 23));
        assert!(!ins[0].from_lines("kernels/reductions/block_sum.cuh", 30, 30));
    }

    // A file is named by its path or by a path ending in it at a folder.
    #[test]
    fn file_names_match_at_a_folder() {
        assert!(same_file("/b/kernels/r/k.cu", "kernels/r/k.cu"));
        assert!(same_file("kernels/r/k.cu", "kernels/r/k.cu"));
        assert!(!same_file("/b/kernels/r/kk.cu", "k.cu"));
        assert!(!same_file("kernels/r/k.cu", ""));
    }

    // A listing written before files were recorded still reads, without
    // files, and says so.
    #[test]
    fn a_v1_listing_reads_without_files() {
        let v1 = r#"{"schema": 1, "example": "r/k", "key": "k", "arch": "sm_90", "nvrtc": "13.0",
            "tool": "nvdisasm 13.5.37", "made_at": "2026-12-01T00:00:00Z",
            "kernels": [{"name": "k", "registers": 8, "stack": 0, "shared": 0, "local": 0,
            "instructions": [{"offset": 0, "text": "EXIT", "line": 3}]}]}"#;
        let listing: Listing = serde_json::from_str(v1).unwrap();
        assert!(!listing.has_files());
        let i = &listing.kernels[0].instructions[0];
        assert_eq!((i.line, i.file.as_deref()), (Some(3), None));
        assert!(!i.from_lines("kernels/r/k.cu", 1, 5));
    }
}
