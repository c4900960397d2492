//! Calls of two-argument functions (`min(a, b)`, `ceil_div(n, 256)`,
//! `atan2(y, x)`), rewritten as the infix form `exmex` evaluates them by,
//! `((a) min (b))`, before it parses the text. `exmex` reads the call form
//! itself but loses count of parentheses when an argument after the comma
//! holds a call of its own (`min(1024, 32 * ceil_div(n, 128))` fails to
//! parse in exmex 0.21), so every expression of the book goes through this
//! rewrite first: launch plans ([`crate::plan_expr`]) and elementwise
//! references ([`crate::problem::elementwise`]).

/// Why an expression's calls cannot be rewritten: a call with other than
/// two arguments, or parentheses that do not match; in words, with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CallSyntaxError(String);

impl From<String> for CallSyntaxError {
    fn from(message: String) -> Self {
        CallSyntaxError(message)
    }
}

/// `text` with every call of a function in `binary` rewritten infix,
/// innermost first; `Err` says what is wrong (a call with other than two
/// arguments, parentheses that do not match).
pub fn infix(text: &str, binary: &[&str]) -> Result<String, CallSyntaxError> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_alphabetic() || c == '_' {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..len];
            let after = &rest[len..];
            let open = after.len() - after.trim_start().len();
            if binary.contains(&name) && after[open..].starts_with('(') {
                let args_at = len + open + 1;
                let close = args_at
                    + matching(&rest[args_at..]).ok_or_else(|| {
                        format!("`{name}(` has no matching `)`: close its parentheses")
                    })?;
                let args = split_top_level(&rest[args_at..close]);
                let [a, b] = args.as_slice() else {
                    return Err(format!(
                        "`{name}` takes two arguments, `{name}(a, b)`; it is given {}",
                        args.len()
                    )
                    .into());
                };
                out.push_str(&format!(
                    "(({}) {name} ({}))",
                    infix(a, binary)?,
                    infix(b, binary)?
                ));
                rest = &rest[close + 1..];
            } else {
                out.push_str(name);
                rest = after;
            }
        } else if c.is_ascii_digit() || c == '.' {
            // A number, so that `2e5` or `1x` is never read as a name.
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                .unwrap_or(rest.len());
            out.push_str(&rest[..len]);
            rest = &rest[len..];
        } else if c == '{' {
            // A braced variable name is copied whole.
            let len = rest.find('}').map_or(rest.len(), |i| i + 1);
            out.push_str(&rest[..len]);
            rest = &rest[len..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    Ok(out)
}

/// The byte offset in `text` of the `)` that closes a `(` just before it.
fn matching(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `text` split at the commas outside any parentheses or brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &[&str] = &["min", "max", "ceil_div"];

    // Nested calls in either argument become nested infix operators; names
    // that merely contain a function's name, and numbers, are left alone.
    #[test]
    fn nested_calls_become_infix() {
        assert_eq!(
            infix("min(1024, 32 * ceil_div(cols, 128))", PLAN).unwrap(),
            "((1024) min ( 32 * ((cols) ceil_div ( 128))))"
        );
        assert_eq!(
            infix("max(min(a, b), c) + minimum", PLAN).unwrap(),
            "((((a) min ( b))) max ( c)) + minimum"
        );
        assert_eq!(infix("2e5 + min2", PLAN).unwrap(), "2e5 + min2");
    }

    // A call with one or three arguments, or unclosed, is an error in words.
    #[test]
    fn wrong_calls_are_refused() {
        assert!(
            infix("min(a)", PLAN)
                .unwrap_err()
                .to_string()
                .contains("takes two arguments")
        );
        assert!(
            infix("min(a, b, c)", PLAN)
                .unwrap_err()
                .to_string()
                .contains("given 3")
        );
        assert!(
            infix("min(a, (b)", PLAN)
                .unwrap_err()
                .to_string()
                .contains("no matching")
        );
    }
}
