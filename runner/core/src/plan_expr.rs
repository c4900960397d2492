//! Integer expressions of launch plans (`"min(ceil_div(n, 256), sms * 4)"`),
//! parsed and evaluated by `exmex` over 64-bit signed integers: `+ - * /
//! %` (`/` and `%` truncate, `*`, `/` and `%` bind tighter than `+` and
//! `-`, operators of one rank apply left to right), unary minus,
//! parentheses, `min(a, b)`, `max(a, b)`, `ceil_div(a, b)` and
//! `pow2_floor(a)` (the largest power of two not above `a`). Arithmetic is
//! checked: an overflow, a division by zero, `ceil_div` by a number below 1
//! or `pow2_floor` of one is an error, never a wrapped value.

use exmex::prelude::*;
use exmex::{BinOp, MakeOperators, Operator};
use std::str::FromStr;

/// What expressions may use besides variables, for error messages.
pub const VOCABULARY: &str = "+ - * / %, min(a, b), max(a, b), ceil_div(a, b) and pow2_floor(a)";

/// The functions of the language.
const FUNCTIONS: &[&str] = &["min", "max", "ceil_div", "pow2_floor"];

/// A value of an expression: a whole number, or why the arithmetic that
/// made it failed (carried to the end, since `exmex`'s operators return
/// values, not results).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Int(Result<i64, String>);

impl Default for Int {
    fn default() -> Self {
        Int(Ok(0))
    }
}

impl FromStr for Int {
    type Err = std::num::ParseIntError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(|v| Int(Ok(v)))
    }
}

/// `f(a, b)` when both are numbers, else the first failure.
fn both(a: Int, b: Int, f: impl Fn(i64, i64) -> Result<i64, String>) -> Int {
    Int(a.0.and_then(|a| b.0.and_then(|b| f(a, b))))
}

fn checked(v: Option<i64>, what: impl FnOnce() -> String) -> Result<i64, String> {
    v.ok_or_else(what)
}

/// The operators of the language, for `exmex`.
#[derive(Debug, Clone)]
struct PlanOps;

impl MakeOperators<Int> for PlanOps {
    fn make<'a>() -> Vec<Operator<'a, Int>> {
        let bin = |apply: fn(Int, Int) -> Int, prio| BinOp {
            apply,
            prio,
            is_commutative: false,
        };
        vec![
            Operator::make_bin_unary(
                "+",
                bin(
                    |a, b| {
                        both(a, b, |a, b| {
                            checked(a.checked_add(b), || format!("{a} + {b} overflows"))
                        })
                    },
                    0,
                ),
                |a| a,
            ),
            Operator::make_bin_unary(
                "-",
                bin(
                    |a, b| {
                        both(a, b, |a, b| {
                            checked(a.checked_sub(b), || format!("{a} - {b} overflows"))
                        })
                    },
                    0,
                ),
                |a| {
                    Int(a
                        .0
                        .and_then(|a| checked(a.checked_neg(), || format!("-{a} overflows"))))
                },
            ),
            Operator::make_bin(
                "*",
                bin(
                    |a, b| {
                        both(a, b, |a, b| {
                            checked(a.checked_mul(b), || format!("{a} * {b} overflows"))
                        })
                    },
                    1,
                ),
            ),
            Operator::make_bin(
                "/",
                bin(
                    |a, b| {
                        both(a, b, |a, b| {
                            checked(a.checked_div(b), || format!("{a} / {b} divides by zero"))
                        })
                    },
                    1,
                ),
            ),
            Operator::make_bin(
                "%",
                bin(
                    |a, b| {
                        both(a, b, |a, b| {
                            checked(a.checked_rem(b), || format!("{a} % {b} divides by zero"))
                        })
                    },
                    1,
                ),
            ),
            Operator::make_bin("min", bin(|a, b| both(a, b, |a, b| Ok(a.min(b))), 2)),
            Operator::make_bin("max", bin(|a, b| both(a, b, |a, b| Ok(a.max(b))), 2)),
            Operator::make_bin(
                "ceil_div",
                bin(
                    |a, b| {
                        both(a, b, |a, b| {
                            if b <= 0 {
                                return Err(format!(
                                    "ceil_div({a}, {b}) divides by zero or a negative number"
                                ));
                            }
                            checked(a.checked_add(b - 1), || {
                                format!("ceil_div({a}, {b}) overflows")
                            })
                            .map(|s| s.div_euclid(b))
                        })
                    },
                    2,
                ),
            ),
            Operator::make_unary("pow2_floor", |a| {
                Int(a.0.and_then(|a| {
                    if a <= 0 {
                        Err(format!("pow2_floor({a}) of zero or a negative number"))
                    } else {
                        Ok(1i64 << (63 - a.leading_zeros()))
                    }
                }))
            }),
        ]
    }
}

/// Why an expression has no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprError {
    /// It names a variable that is not defined here.
    UnknownVariable(String),
    /// It calls a function the language does not have.
    UnknownFunction(String),
    /// It does not parse, or its arithmetic fails: in words.
    Other(String),
}

/// The value of `text` with each variable's value given by `value`
/// (`None`: not defined here).
pub fn eval(text: &str, value: impl Fn(&str) -> Option<i64>) -> Result<i64, ExprError> {
    if let Some(f) = calls(text).find(|f| !FUNCTIONS.contains(f)) {
        return Err(ExprError::UnknownFunction(f.to_string()));
    }
    let infix = crate::call_syntax::infix(text, &["min", "max", "ceil_div"])
        .map_err(|e| ExprError::Other(e.to_string()))?;
    let expr = FlatEx::<Int, PlanOps>::parse(&infix).map_err(|e| {
        let e = e.to_string();
        ExprError::Other(if e.contains("ParseIntError") {
            "a number that is not a whole number: launch expressions are integer arithmetic".into()
        } else {
            e
        })
    })?;
    let values = expr
        .var_names()
        .iter()
        .map(|v| {
            value(v)
                .map(|v| Int(Ok(v)))
                .ok_or_else(|| ExprError::UnknownVariable(v.clone()))
        })
        .collect::<Result<Vec<Int>, _>>()?;
    let Int(v) = expr
        .eval(&values)
        .map_err(|e| ExprError::Other(e.to_string()))?;
    v.map_err(ExprError::Other)
}

/// The names written as calls (`name(`) in `text`.
fn calls(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let start = at;
            if bytes[at].is_ascii_alphabetic() || bytes[at] == b'_' {
                while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                    at += 1;
                }
                let name = &text[start..at];
                if text[at..].trim_start().starts_with('(') {
                    return Some(name);
                }
            } else if bytes[at].is_ascii_digit() {
                while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'.') {
                    at += 1;
                }
            } else {
                at += 1;
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, n: i64) -> Result<i64, ExprError> {
        eval(text, |v| (v == "n").then_some(n))
    }

    // Integer semantics: truncating division, left to right within a
    // rank, * / % over + -, checked arithmetic.
    #[test]
    fn integer_arithmetic_as_c_writes_it() {
        assert_eq!(at("7 * 5 / 2", 0), Ok(17));
        assert_eq!(at("20 / 2 * 5", 0), Ok(50));
        assert_eq!(at("10 - 4 + 3", 0), Ok(9));
        assert_eq!(at("2 + 3 * 4", 0), Ok(14));
        assert_eq!(at("min(1024, 32 * ceil_div(n, 128))", 1 << 20), Ok(1024));
        assert_eq!(at("-n * 2 + 3000", 1000), Ok(1000));
        assert_eq!(at("ceil_div(n, 256) * 256", 1000), Ok(1024));
        assert_eq!(at("pow2_floor(n)", 1000), Ok(512));
        assert_eq!(at("min(n, 5) + max(2, n) * 2", 1000), Ok(2005));
        assert!(
            matches!(at("n / 0", 1), Err(ExprError::Other(m)) if m.contains("divides by zero"))
        );
        assert!(
            matches!(at("n * n * n", 1 << 31), Err(ExprError::Other(m)) if m.contains("overflows"))
        );
        assert_eq!(at("m + 1", 0), Err(ExprError::UnknownVariable("m".into())));
        assert_eq!(
            at("foo(n)", 0),
            Err(ExprError::UnknownFunction("foo".into()))
        );
        assert!(at("2.5 * n", 2).is_err());
        assert!(at("n ^ 2", 2).is_err());
    }
}
