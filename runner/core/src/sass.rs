//! What the compiler made of an example: for each kernel, its resources
//! (registers, stack, shared and local memory, from `cuobjdump -res-usage`)
//! and its SASS with the source line of every instruction (from `nvdisasm
//! --print-line-info` of the cubin NVRTC made, compiled with `-lineinfo`),
//! stored as `results/sass/<example id>.json` and shown by `{{#sass}}`.
//! No GPU is involved: NVRTC and the two disassemblers (from PyPI) are
//! enough. A listing is current while its `key` equals the example's key.

use serde::{Deserialize, Serialize};

/// Version of the listing format.
pub const SCHEMA_VERSION: u32 = 1;

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
    /// The source line it was compiled from, where the line table says
    /// (inside an inlined function, that function's line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// For code of an inlined function, the line of the outermost call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called_from: Option<u32>,
}

impl Instruction {
    /// Whether it came from a source line in `first..=last`, directly or
    /// through a call on one of them.
    pub fn from_lines(&self, first: u32, last: u32) -> bool {
        [self.line, self.called_from]
            .into_iter()
            .flatten()
            .any(|l| (first..=last).contains(&l))
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

/// Instructions by kernel from `nvdisasm -c --print-line-info` output:
/// a kernel starts at its `.text.NAME:` label, `//## File "...", line N`
/// sets the line of the instructions after it, and an instruction reads
/// `/*0040*/   @!P0 LDG.E R0, desc[UR8][R2.64] ;`.
pub fn parse_nvdisasm(text: &str) -> Vec<(String, Vec<Instruction>)> {
    let mut kernels: Vec<(String, Vec<Instruction>)> = Vec::new();
    let mut line: Option<u32> = None;
    let mut called_from: Option<u32> = None;
    for raw in text.lines() {
        let t = raw.trim();
        if let Some(name) = t
            .strip_prefix(".text.")
            .and_then(|rest| rest.strip_suffix(':'))
        {
            kernels.push((name.to_string(), Vec::new()));
            line = None;
            called_from = None;
            continue;
        }
        if let Some(rest) = t.strip_prefix("//## File ") {
            let lines: Vec<u32> = rest
                .split(", line ")
                .skip(1)
                .filter_map(|part| part.split_whitespace().next()?.parse().ok())
                .collect();
            line = lines.first().copied();
            called_from = (lines.len() > 1).then(|| lines[lines.len() - 1]);
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
        if let Some((_, instructions)) = kernels.last_mut() {
            instructions.push(Instruction {
                offset,
                text: body.split_whitespace().collect::<Vec<_>>().join(" "),
                line,
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
        assert_eq!(ins[1].text, "@!P0 LDC.64 R2, c[0x0][0x210]");
        assert_eq!((ins[1].line, ins[1].called_from), (Some(25), Some(40)));
        assert!(ins[1].from_lines(40, 41) && ins[1].from_lines(20, 30));
        assert!(!ins[0].from_lines(17, 39) && ins[0].called_from.is_none());
        assert!(ins[2].predicated() && !ins[0].predicated());
        assert_eq!(ins[2].opcode(), "IMAD.WIDE.U32");
        assert_eq!(ins[3].offset, 0x190);
        assert_eq!(ins[3].text, "I2F.U32.RP R0, UR6");
        let joined = join(parse_res_usage(RES), code);
        assert_eq!(joined[0].registers, 10);
        assert_eq!(joined[0].instructions.len(), 4);
    }
}
