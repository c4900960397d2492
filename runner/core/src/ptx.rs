//! The kernels a compiled program defines, read from its PTX: each
//! `.entry` (with or without `.visible` or `.weak`) and the types of its
//! parameters. NVRTC writes a kernel declared `extern "C"` under its own
//! name and any other under its C++ (mangled) name, `_Z8sum_typoPKfPfj`;
//! a pointer parameter is `.u64`, an `unsigned int` or `int` `.u32`, a
//! `float` `.f32`, a struct passed by value `.b8 name[size]`.

use serde::{Deserialize, Serialize};

/// One kernel of the compiled program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Its name as the driver looks it up (mangled unless `extern "C"`).
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<ParamKind>,
}

/// The PTX type of one kernel parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// `.u8`: `unsigned char`, `bool`, `char`.
    U8,
    /// `.u16`: `unsigned short`, `short`.
    U16,
    /// `.u32`: `unsigned int`, `int`.
    U32,
    /// `.u64`: a pointer, `size_t`, `long long`.
    U64,
    /// `.s8`.
    S8,
    /// `.s16`.
    S16,
    /// `.s32`.
    S32,
    /// `.s64`.
    S64,
    /// `.b8`.
    B8,
    /// `.b16`.
    B16,
    /// `.b32`.
    B32,
    /// `.b64`: pointer-sized.
    B64,
    /// `.f16`.
    F16,
    /// `.f32`: `float`.
    F32,
    /// `.f64`: `double`.
    F64,
    /// An aggregate passed by value (`.b8 name[8]` for a struct of 8
    /// bytes): its size in bytes.
    Bytes(u32),
    /// A type this reader does not know, as written (`.pred`).
    Other(String),
}

impl ParamKind {
    /// The kind of the PTX type `ty` (`.u64`), or `None` when `ty` is not
    /// a type (`.align`, `.ptr`).
    fn of(ty: &str) -> Option<ParamKind> {
        Some(match ty {
            ".u8" => ParamKind::U8,
            ".u16" => ParamKind::U16,
            ".u32" => ParamKind::U32,
            ".u64" => ParamKind::U64,
            ".s8" => ParamKind::S8,
            ".s16" => ParamKind::S16,
            ".s32" => ParamKind::S32,
            ".s64" => ParamKind::S64,
            ".b8" => ParamKind::B8,
            ".b16" => ParamKind::B16,
            ".b32" => ParamKind::B32,
            ".b64" => ParamKind::B64,
            ".f16" => ParamKind::F16,
            ".f32" => ParamKind::F32,
            ".f64" => ParamKind::F64,
            ".pred" | ".f16x2" | ".bf16" | ".bf16x2" => ParamKind::Other(ty.to_string()),
            _ => return None,
        })
    }

    /// Bytes of one element of this type.
    fn size(&self) -> u32 {
        match self {
            ParamKind::U8 | ParamKind::S8 | ParamKind::B8 => 1,
            ParamKind::U16 | ParamKind::S16 | ParamKind::B16 | ParamKind::F16 => 2,
            ParamKind::U32 | ParamKind::S32 | ParamKind::B32 | ParamKind::F32 => 4,
            ParamKind::U64 | ParamKind::S64 | ParamKind::B64 | ParamKind::F64 => 8,
            ParamKind::Bytes(n) => *n,
            ParamKind::Other(_) => 0,
        }
    }

    /// A 64-bit integer: where a device pointer binds.
    pub fn is_pointer_sized(&self) -> bool {
        matches!(self, ParamKind::U64 | ParamKind::S64 | ParamKind::B64)
    }

    /// A 32-bit integer: where an `unsigned int` scalar binds.
    pub fn is_u32_sized(&self) -> bool {
        matches!(self, ParamKind::U32 | ParamKind::S32 | ParamKind::B32)
    }

    /// A `float`: where a float scalar binds (`.f32`, or `.b32` as some
    /// compilers spell it).
    pub fn is_f32(&self) -> bool {
        matches!(self, ParamKind::F32 | ParamKind::B32)
    }

    /// What the parameter is in the kernel's own terms, for messages:
    /// `a 64-bit value (a pointer, or an integer such as size_t)`.
    pub fn describe(&self) -> String {
        match self {
            ParamKind::U64 | ParamKind::S64 | ParamKind::B64 => {
                "a 64-bit value (a pointer, or an integer such as size_t)".into()
            }
            ParamKind::U32 | ParamKind::S32 | ParamKind::B32 => {
                "a 32-bit integer (int or unsigned int)".into()
            }
            ParamKind::F32 => "a float".into(),
            ParamKind::F64 => "a double".into(),
            ParamKind::F16 => "a half".into(),
            ParamKind::U16 | ParamKind::S16 | ParamKind::B16 => "a 16-bit integer (short)".into(),
            ParamKind::U8 | ParamKind::S8 | ParamKind::B8 => "an 8-bit value (char or bool)".into(),
            ParamKind::Bytes(n) => format!("a struct or array of {n} bytes passed by value"),
            ParamKind::Other(ty) => format!("of PTX type {ty}"),
        }
    }

    /// Short name for a list of parameters: `64-bit`, `32-bit int`,
    /// `float`.
    pub fn short(&self) -> String {
        match self {
            ParamKind::U64 | ParamKind::S64 | ParamKind::B64 => "64-bit".into(),
            ParamKind::U32 | ParamKind::S32 | ParamKind::B32 => "32-bit int".into(),
            ParamKind::F32 => "float".into(),
            ParamKind::F64 => "double".into(),
            ParamKind::Bytes(n) => format!("{n}-byte struct"),
            ParamKind::Other(ty) => ty.clone(),
            other => format!("{}-bit", other.size() * 8),
        }
    }
}

/// The kernels (`.entry` directives) of a PTX text, in order. Device
/// functions (`.func`) and external declarations (`.extern .entry`) are
/// not kernels of this program and are left out.
pub fn entries(ptx: &str) -> Vec<Entry> {
    let text = strip_comments(ptx);
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = find_token(rest, ".entry") {
        let before = &rest[..at];
        let statement = before.rsplit([';', '}', '{']).next().unwrap_or("");
        let external = statement.split_whitespace().any(|t| t == ".extern");
        rest = &rest[at + ".entry".len()..];
        let name_end = rest.find(['(', '{', ';']).unwrap_or(rest.len());
        let name = rest[..name_end].trim().to_string();
        let mut params = Vec::new();
        if rest[name_end..].starts_with('(') {
            let close = rest[name_end..]
                .find(')')
                .map_or(rest.len(), |c| name_end + c);
            params = rest[name_end + 1..close]
                .split(',')
                .filter(|p| !p.trim().is_empty())
                .map(param_kind)
                .collect();
            rest = &rest[close..];
        }
        if !external && !name.is_empty() {
            found.push(Entry { name, params });
        }
    }
    found
}

/// `.param .align 4 .b8 p[8]` → `Bytes(8)`; `.param .u64 .ptr .align 1 p`
/// → `U64`.
fn param_kind(decl: &str) -> ParamKind {
    let tokens: Vec<&str> = decl.split_whitespace().collect();
    let Some(kind) = tokens.iter().find_map(|t| ParamKind::of(t)) else {
        return ParamKind::Other(decl.trim().to_string());
    };
    let count = tokens
        .last()
        .and_then(|name| name.split_once('['))
        .and_then(|(_, n)| n.trim_end_matches(']').trim().parse::<u32>().ok());
    match count {
        Some(count) => ParamKind::Bytes(kind.size().saturating_mul(count)),
        None => kind,
    }
}

/// Byte offset of `token` in `text` where it stands as a word of its own.
fn find_token(text: &str, token: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(token) {
        let at = from + i;
        let end = at + token.len();
        let starts = at == 0 || text[..at].ends_with(char::is_whitespace);
        let ends = text[end..].chars().next().is_none_or(|c| c.is_whitespace());
        if starts && ends {
            return Some(at);
        }
        from = end;
    }
    None
}

/// The text without `// ...` and `/* ... */` comments (PTX has no string
/// literals, so no comment marker hides in one).
pub(crate) fn strip_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut rest = ptx;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (None, None) => {
                out.push_str(rest);
                return out;
            }
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            (Some(_), None) => unreachable!("handled by the arm above"),
        }
    }
}

/// The source names inside an Itanium-mangled C++ name
/// (`_ZN2ns5innerEPfj` → `ns`, `inner`): each is written as its length
/// followed by its characters. Empty for a name that is not mangled.
pub fn mangled_parts(name: &str) -> Vec<&str> {
    let Some(body) = name.strip_prefix("_Z") else {
        return Vec::new();
    };
    let bytes = body.as_bytes();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let Ok(len) = body[start..i].parse::<usize>() else {
            continue;
        };
        if let Some(part) = body.get(i..i + len) {
            parts.push(part);
            i += len;
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVRTC 13.0's PTX for kernels/reductions/two_pass.cu (sm_90), bodies
    /// cut short.
    const TWO_PASS: &str = "//\n// Generated by NVIDIA NVVM Compiler\n//\n// Compiler Build ID: CL-36424714\n// Cuda compilation tools, release 13.0, V13.0.88\n// Based on NVVM 7.0.1\n//\n\n.version 9.0\n.target sm_90\n.address_size 64\n\n\t// .globl\tpartial_sums\n\n.visible .entry partial_sums(\n\t.param .u64 partial_sums_param_0,\n\t.param .u64 partial_sums_param_1,\n\t.param .u32 partial_sums_param_2\n)\n{\n\t.reg .pred \t%p<2>;\n\t.loc\t1 1 0\n\tld.param.u64 \t%rd1, [partial_sums_param_0];\n\tret;\n\n}\n\t// .globl\tfinal_sum\n.visible .entry final_sum(\n\t.param .u64 final_sum_param_0,\n\t.param .u64 final_sum_param_1,\n\t.param .u32 final_sum_param_2\n)\n.maxntid 1024, 1, 1\n{\n\tret;\n\n}\n\n\t.file\t1 \"kernels/reductions/two_pass.cu\"\n";

    /// NVRTC 13.0's PTX for C++ kernels (no `extern "C"`), a template
    /// instance, a kernel in a namespace, a struct by value and a kernel
    /// without parameters; bodies cut short.
    const CPP: &str = "\t// .globl\t_Z8sum_typoPKfPfj\n.visible .entry _Z8sum_typoPKfPfj(\n\t.param .u64 _Z8sum_typoPKfPfj_param_0,\n\t.param .u64 _Z8sum_typoPKfPfj_param_1,\n\t.param .u32 _Z8sum_typoPKfPfj_param_2\n)\n{\n\tret;\n}\n\t// .globl\tmixed\n.visible .entry mixed(\n\t.param .u64 mixed_param_0,\n\t.param .u32 mixed_param_1,\n\t.param .f32 mixed_param_2,\n\t.param .f64 mixed_param_3,\n\t.param .u64 mixed_param_4,\n\t.param .u64 mixed_param_5,\n\t.param .u16 mixed_param_6,\n\t.param .u8 mixed_param_7,\n\t.param .u8 mixed_param_8\n)\n{\n\tret;\n}\n\t// .globl\tbystruct\n.visible .entry bystruct(\n\t.param .align 4 .b8 bystruct_param_0[8],\n\t.param .u64 bystruct_param_1,\n\t.param .u64 bystruct_param_2\n)\n{\n\tret;\n}\n\t// .globl\tnoparams\n.visible .entry noparams()\n{\n\tret;\n}\n\t// .weak\t_Z4tmplILi4EEvPf\n.weak .entry _Z4tmplILi4EEvPf(\n\t.param .u64 _Z4tmplILi4EEvPf_param_0\n)\n{\n\tret;\n}\n.entry _Z6hiddenPf(\n\t.param .u64 _Z6hiddenPf_param_0\n)\n{\n\tret;\n}\n.visible .entry _ZN2ns5innerEPfj(\n\t.param .u64 _ZN2ns5innerEPfj_param_0,\n\t.param .u32 _ZN2ns5innerEPfj_param_1\n)\n{\n\tret;\n}\n";

    fn names(ptx: &str) -> Vec<String> {
        entries(ptx).into_iter().map(|e| e.name).collect()
    }

    // The book's two-pass kernels: two pointers and an unsigned int each;
    // the `// .globl` comments are not entries.
    #[test]
    fn two_pass_entries_and_parameters() {
        use ParamKind::*;
        let found = entries(TWO_PASS);
        assert_eq!(
            found,
            vec![
                Entry {
                    name: "partial_sums".into(),
                    params: vec![U64, U64, U32]
                },
                Entry {
                    name: "final_sum".into(),
                    params: vec![U64, U64, U32]
                },
            ]
        );
    }

    // C++ names stay mangled; .weak and unmarked entries count; scalars,
    // structs by value and empty parameter lists are read.
    #[test]
    fn cpp_kernels_structs_and_scalars() {
        use ParamKind::*;
        assert_eq!(
            names(CPP),
            [
                "_Z8sum_typoPKfPfj",
                "mixed",
                "bystruct",
                "noparams",
                "_Z4tmplILi4EEvPf",
                "_Z6hiddenPf",
                "_ZN2ns5innerEPfj"
            ]
        );
        let found = entries(CPP);
        assert_eq!(found[1].params, [U64, U32, F32, F64, U64, U64, U16, U8, U8]);
        assert_eq!(found[2].params, [Bytes(8), U64, U64]);
        assert!(found[3].params.is_empty());
    }

    // Attributes between `.param` and the name do not hide the type.
    #[test]
    fn parameter_attributes_are_skipped() {
        let ptx = ".visible .entry k(\n\t.param .u64 .ptr .global .align 4 k_param_0,\n\t.param .align 8 .b8 k_param_1[24]\n)\n{\n}\n";
        assert_eq!(
            entries(ptx)[0].params,
            [ParamKind::U64, ParamKind::Bytes(24)]
        );
    }

    // Comments and external declarations are not kernels of the program.
    #[test]
    fn comments_and_extern_declarations_are_skipped() {
        let ptx = "/* .entry fake( .param .u32 x ) */\n// .entry other(\n.extern .entry elsewhere(\n\t.param .u64 p\n);\n.visible .entry real()\n{\n}\n";
        assert_eq!(names(ptx), ["real"]);
    }

    // The source names of mangled kernels, including an anonymous
    // namespace's long prefix; plain names have none.
    #[test]
    fn mangled_names_are_split_into_source_names() {
        assert_eq!(mangled_parts("_Z8sum_typoPKfPfj"), ["sum_typo"]);
        assert_eq!(mangled_parts("_ZN2ns5innerEPfj"), ["ns", "inner"]);
        assert_eq!(mangled_parts("_Z10sumsquaredPf"), ["sumsquared"]);
        assert!(
            mangled_parts("_ZN41_GLOBAL__N__00000000_4_k_cu_11ead65d_60234anonEPfj")
                .contains(&"anon")
        );
        assert!(mangled_parts("reduce_fast").is_empty());
    }

    // Verdicts travel as JSON: kinds read back as written.
    #[test]
    fn entries_round_trip_through_json() {
        let found = entries(CPP);
        let text = serde_json::to_string(&found).unwrap();
        assert!(text.contains(r#""params":["u64","u64","u32"]"#), "{text}");
        assert_eq!(serde_json::from_str::<Vec<Entry>>(&text).unwrap(), found);
    }
}
