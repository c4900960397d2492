//! The content hash that keys a stored result: everything that changes a
//! measurement, nothing that does not (an example's position in its chapter
//! does not, so `#line` markers are left out).

use crate::example::Example;
use serde::Serialize;
use sha2::{Digest, Sha256};

#[derive(Serialize)]
struct KeyInput<'a> {
    source: String,
    declaration: &'a crate::declaration::Declaration,
    problem: String,
    compile_options: Vec<String>,
    method_version: u32,
}

/// The key of an example: a SHA-256 hex digest.
pub fn example_key(example: &Example) -> String {
    let input = KeyInput {
        source: without_line_markers(&example.source),
        declaration: &example.declaration,
        problem: crate::problem::describe(&example.declaration.problem),
        compile_options: example.compile_options(),
        method_version: crate::METHOD_VERSION,
    };
    let json = serde_json::to_vec(&input).expect("key input serialises");
    let digest = Sha256::digest(&json);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn without_line_markers(source: &str) -> String {
    source
        .lines()
        .filter(|l| !l.starts_with("#line "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::Example;

    const BODY: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

    fn inline(body: &str, line: usize) -> Example {
        let dir = std::env::temp_dir();
        Example::from_inline(&dir, "src/ch.md", &dir, body, line, "demo").unwrap()
    }

    // Moving an example within its chapter keeps its stored result fresh.
    #[test]
    fn position_does_not_change_the_key() {
        assert_eq!(
            example_key(&inline(BODY, 3)),
            example_key(&inline(BODY, 300))
        );
    }

    // Any edit to the kernel or its plan makes the stored result stale.
    #[test]
    fn source_and_plan_edits_change_the_key() {
        let base = example_key(&inline(BODY, 3));
        assert_ne!(base, example_key(&inline(&BODY.replace("{}", "{ }"), 3)));
        assert_ne!(
            base,
            example_key(&inline(&BODY.replace("block = 32", "block = 64"), 3))
        );
        assert_eq!(base.len(), 64);
    }
}
