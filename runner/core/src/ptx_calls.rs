//! What a kernel's code can do that explains a fault, read from the PTX
//! NVRTC writes: whether it recurses (a cycle in the call graph reachable
//! from the kernel, so ptxas cannot bound its stack and the driver gives
//! it only the stack each thread has, `CU_LIMIT_STACK_SIZE`), whether it
//! can execute `trap;` (`__trap()`), and whether it calls `__assertfail`
//! (a device `assert`). Indirect calls (through a register) are not
//! followed.

use std::collections::{BTreeMap, BTreeSet};

/// What the code reachable from one kernel does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct KernelCode {
    /// A function reachable from the kernel calls itself, directly or
    /// through others.
    pub recurses: bool,
    /// Reachable code holds a `trap;` instruction (`__trap()`).
    pub traps: bool,
    /// Reachable code calls `__assertfail` (a device `assert`).
    pub asserts: bool,
}

/// One function or kernel defined in the PTX, with a body.
#[derive(Debug, Default)]
struct Body {
    kernel: bool,
    calls: BTreeSet<String>,
    traps: bool,
}

/// [`KernelCode`] of every kernel (`.entry` with a body) of `ptx`, by name.
pub fn kernel_code(ptx: &str) -> BTreeMap<String, KernelCode> {
    let bodies = bodies(&crate::ptx::strip_comments(ptx));
    bodies
        .iter()
        .filter(|(_, b)| b.kernel)
        .map(|(name, _)| (name.clone(), code_of(name, &bodies)))
        .collect()
}

/// The code reachable from `kernel`: a depth-first walk of the call graph
/// that notes a call back into a function still on the walk's path.
fn code_of(kernel: &str, bodies: &BTreeMap<String, Body>) -> KernelCode {
    let mut code = KernelCode::default();
    let mut done = BTreeSet::new();
    let mut path = Vec::new();
    walk(kernel, bodies, &mut path, &mut done, &mut code);
    code
}

fn walk<'a>(
    name: &'a str,
    bodies: &'a BTreeMap<String, Body>,
    path: &mut Vec<&'a str>,
    done: &mut BTreeSet<&'a str>,
    code: &mut KernelCode,
) {
    if name == "__assertfail" {
        code.asserts = true;
    }
    if path.contains(&name) {
        code.recurses = true;
        return;
    }
    if !done.insert(name) {
        return;
    }
    let Some(body) = bodies.get(name) else {
        return;
    };
    code.traps |= body.traps;
    path.push(name);
    for callee in &body.calls {
        walk(callee, bodies, path, done, code);
    }
    path.pop();
}

/// Every `.entry` and `.func` of `text` (comments stripped) that has a
/// body, with the functions its body calls by name.
fn bodies(text: &str) -> BTreeMap<String, Body> {
    let mut found = BTreeMap::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'.' if depth == 0 => {
                let word = word_at(text, i + 1);
                if word == "entry" || word == "func" {
                    let after = i + 1 + word.len();
                    if let Some((name, body, end)) = definition(text, after) {
                        let kernel = word == "entry";
                        found.insert(
                            name,
                            Body {
                                kernel,
                                calls: calls(body),
                                traps: body.split([';', '{', '}']).any(is_trap),
                            },
                        );
                        i = end;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// A statement that is the `trap` instruction, guarded or not
/// (`@%p1 trap`).
fn is_trap(statement: &str) -> bool {
    let mut words = statement.split_whitespace();
    let first = words.next();
    let op = match first {
        Some(w) if w.starts_with('@') => words.next(),
        other => other,
    };
    op == Some("trap")
}

/// The identifier (letters, digits, `_`, `$`) starting at byte `at`.
fn word_at(text: &str, at: usize) -> &str {
    let rest = text.get(at..).unwrap_or("");
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// After `.entry` or `.func` at byte `at`: the name, the body between its
/// braces and the byte after the closing brace; `None` for a declaration
/// without a body (`;` before any `{`).
fn definition(text: &str, at: usize) -> Option<(String, &str, usize)> {
    let mut rest = text[at..].trim_start();
    // A `.func` may declare its return parameters first: `.func (.param
    // .b32 r) name(...)`.
    if rest.starts_with('(') {
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let start = text.len() - rest.len();
    let name = word_at(text, start).to_string();
    if name.is_empty() {
        return None;
    }
    let tail = &text[start..];
    let open = tail.find(['{', ';'])?;
    if tail.as_bytes()[open] == b';' {
        return None;
    }
    let body_start = start + open + 1;
    let mut depth = 1usize;
    for (k, c) in text[body_start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let close = body_start + k;
                    return Some((name, &text[body_start..close], close + 1));
                }
            }
            _ => {}
        }
    }
    None
}

/// The functions a body calls by name: `call`, `call.uni`, with or
/// without return parameters (`call.uni (retval0), name, (p0);`).
fn calls(body: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for statement in body.split([';', '{', '}']) {
        let mut s = statement.trim_start();
        if let Some(guarded) = s.strip_prefix('@') {
            s = guarded
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r)
                .trim_start();
        }
        let Some(after) = s.strip_prefix("call") else {
            continue;
        };
        if !after.starts_with(['.', ' ', '\t', '\n', '(']) {
            continue;
        }
        // Past the modifiers (`.uni`) to the operands.
        let mut operands = after
            .trim_start_matches(|c: char| c == '.' || c.is_ascii_alphanumeric())
            .trim_start();
        if operands.starts_with('(') {
            let Some(close) = operands.find(')') else {
                continue;
            };
            operands = operands[close + 1..]
                .trim_start()
                .trim_start_matches(',')
                .trim_start();
        }
        let callee = word_at(operands, 0);
        if !callee.is_empty() && !operands.starts_with('%') {
            found.insert(callee.to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    // NVRTC's PTX of a recursive device function called from a kernel
    // (abridged from sm_90 output): the kernel recurses through it.
    const RECURSIVE: &str = r#"
.func  (.param .b32 func_retval0) _Z4downjPKf(
	.param .b32 _Z4downjPKf_param_0,
	.param .b64 _Z4downjPKf_param_1
)
{
	.local .align 16 .b8 	__local_depot0[64];
	@%p1 bra 	$L__BB0_2;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r5;
	.param .b32 retval0;
	call.uni (retval0),
	_Z4downjPKf,
	(
	param0,
	param1
	);
	ld.param.b32 	%r6, [retval0+0];
	} // callseq 0
$L__BB0_2:
	st.param.b32 	[func_retval0+0], %r9;
	ret;
}
	// .globl	sum_recurse
.visible .entry sum_recurse(
	.param .u64 sum_recurse_param_0
)
{
	{ // callseq 1, 0
	.param .b32 retval0;
	call.uni (retval0),
	_Z4downjPKf,
	(
	param0,
	param1
	);
	} // callseq 1
	ret;
}
.visible .entry plain(
	.param .u64 plain_param_0
)
{
	ret;
}
"#;

    // A kernel that reaches a self-calling function recurses; one that
    // calls nothing does not.
    #[test]
    fn a_cycle_reachable_from_the_kernel_is_recursion() {
        let code = kernel_code(RECURSIVE);
        assert!(code["sum_recurse"].recurses, "{code:?}");
        assert_eq!(code["plain"], KernelCode::default());
        // The device function is not a kernel.
        assert!(!code.contains_key("_Z4downjPKf"));
    }

    // A call chain without a cycle (a calls b calls c, a calls c) is not
    // recursion, though c is reached twice.
    #[test]
    fn a_diamond_of_calls_is_not_recursion() {
        let ptx = ".func c()\n{\n ret;\n}\n.func b()\n{\n call.uni c, ();\n ret;\n}\n.visible .entry a()\n{\n call.uni b, ();\n call c, ();\n ret;\n}\n";
        assert_eq!(kernel_code(ptx)["a"], KernelCode::default());
    }

    // Mutual recursion through two functions counts.
    #[test]
    fn mutual_recursion_counts() {
        let ptx = ".func (.param .b32 r) odd(.param .b32 n)\n{\n call.uni (retval0), even, (param0);\n ret;\n}\n.func (.param .b32 r) even(.param .b32 n)\n{\n @%p1 call.uni (retval0), odd, (param0);\n ret;\n}\n.visible .entry k()\n{\n call.uni (retval0), even, (param0);\n ret;\n}\n";
        assert!(kernel_code(ptx)["k"].recurses);
    }

    // `__trap()` (a `trap;`, guarded or not, in a reachable function) and
    // `assert` (a call of the declared `__assertfail`) are found; a
    // declaration without a body is neither a kernel nor a body.
    #[test]
    fn traps_and_asserts_are_found_through_calls() {
        let ptx = ".extern .func __assertfail(.param .b64 m)\n;\n.func helper()\n{\n @%p1 trap;\n ret;\n}\n.visible .entry t()\n{\n call.uni helper, ();\n ret;\n}\n.visible .entry a()\n{\n { // callseq 0\n call.uni __assertfail, (param0);\n }\n ret;\n}\n";
        let code = kernel_code(ptx);
        assert_eq!(
            code["t"],
            KernelCode {
                traps: true,
                ..KernelCode::default()
            }
        );
        assert_eq!(
            code["a"],
            KernelCode {
                asserts: true,
                ..KernelCode::default()
            }
        );
        assert_eq!(code.len(), 2);
    }

    // An indirect call (through a register) is not taken for a callee.
    #[test]
    fn indirect_calls_are_not_followed() {
        let ptx =
            ".visible .entry k()\n{\n call (retval0), %rd4, (param0), prototype_0;\n ret;\n}\n";
        assert_eq!(kernel_code(ptx)["k"], KernelCode::default());
    }
}
