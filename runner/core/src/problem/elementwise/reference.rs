//! The reference of an `[elementwise]` table, read before `exmex` sees it:
//! every read of an input element (`x`, `x[i + 1]`, `x[idx[i]]`, `p.x`,
//! `p[idx[i]].y`) becomes one variable of the float64 expression, named
//! by the read in a canonical spelling (`{x[i + 1]}`: `exmex` takes any
//! name between braces), and two-argument calls become infix
//! ([`crate::call_syntax`]). A reference of bare names only (`a * x + y`)
//! passes through unchanged, so it evaluates as it always has.
//!
//! A position is `i` (the output element's index), `i + K` or `i - K`
//! (`K` a whole number), or an index input's element at a position
//! (`idx[i]`, `idx[i + 1]`), plus or minus `K`.

use super::spec::{ElementwiseSpec, InputKind, RESERVED};
use std::fmt;

/// Where a read is: `base + offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pos {
    /// What the offset is added to.
    pub base: Base,
    /// Elements after (or, negative, before) the base.
    pub offset: i64,
}

/// The base of a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// `i`, the output element's index.
    I,
    /// The value of an index input's element at a position: `idx[i]`.
    Index(String, Box<Pos>),
}

impl Pos {
    /// Whether this position, or one it reads an index at, is offset from
    /// its base: a read that can fall outside the buffer.
    pub fn shifted(&self) -> bool {
        self.offset != 0
            || match &self.base {
                Base::I => false,
                Base::Index(_, inner) => inner.shifted(),
            }
    }

    /// Whether it is `i` itself.
    pub fn is_i(&self) -> bool {
        self.base == Base::I && self.offset == 0
    }

    /// The index inputs it reads.
    pub fn index_inputs(&self) -> Vec<&str> {
        match &self.base {
            Base::I => Vec::new(),
            Base::Index(name, inner) => {
                let mut names = inner.index_inputs();
                names.push(name);
                names
            }
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.base {
            Base::I => f.write_str("i")?,
            Base::Index(name, inner) => write!(f, "{name}[{inner}]")?,
        }
        match self.offset {
            0 => Ok(()),
            k if k > 0 => write!(f, " + {k}"),
            k => write!(f, " - {}", k.unsigned_abs()),
        }
    }
}

/// One read of an input element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// The input read.
    pub input: String,
    /// For a structure, the field's place in its layout.
    pub field: Option<(usize, String)>,
    /// The element read.
    pub pos: Pos,
}

impl fmt::Display for Read {
    /// The canonical spelling: `x`, `x[i + 1]`, `x[idx[i]]`, `p.x`,
    /// `p[i - 1].x`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.input)?;
        if !self.pos.is_i() {
            write!(f, "[{}]", self.pos)?;
        }
        if let Some((_, name)) = &self.field {
            write!(f, ".{name}")?;
        }
        Ok(())
    }
}

/// A variable of the float64 expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Var {
    /// A scalar, by name.
    Scalar(String),
    /// An input element.
    Read(Read),
}

/// A reference ready for `exmex`: its text and what each variable is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The text `exmex` parses.
    pub text: String,
    /// Each variable by the name `exmex` gives it.
    pub vars: Vec<(String, Var)>,
}

impl Reference {
    /// The variable `exmex` calls `name`.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Every read of an input element.
    pub fn reads(&self) -> impl Iterator<Item = &Read> {
        self.vars.iter().filter_map(|(_, v)| match v {
            Var::Read(r) => Some(r),
            Var::Scalar(_) => None,
        })
    }

    /// The first read at a shifted position, if any.
    pub fn first_shift(&self) -> Option<&Read> {
        self.reads().find(|r| r.pos.shifted())
    }

    /// The fields of structure `input` that the reference reads, in
    /// layout order.
    pub fn fields_read(&self, input: &str) -> Vec<usize> {
        let mut fields: Vec<usize> = self
            .reads()
            .filter(|r| r.input == input)
            .filter_map(|r| r.field.as_ref().map(|(k, _)| *k))
            .collect();
        fields.sort_unstable();
        fields.dedup();
        fields
    }

    /// Reads `spec.reference`, or says what is wrong and how to fix it.
    pub fn parse(spec: &ElementwiseSpec) -> Result<Reference, ReferenceError> {
        let mut parser = Parser {
            spec,
            vars: Vec::new(),
        };
        let text = parser.rewrite(&spec.reference)?;
        let text = crate::call_syntax::infix(&text, &["min", "max", "atan2"])
            .map_err(|e| ReferenceError(format!("`reference`: {e}")))?;
        Ok(Reference {
            text,
            vars: parser.vars,
        })
    }
}

struct Parser<'s> {
    spec: &'s ElementwiseSpec,
    vars: Vec<(String, Var)>,
}

/// The length of the name at the start of `s` (a letter or `_`, then
/// letters, digits or `_`), 0 if none.
fn name_len(s: &str) -> usize {
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return 0;
    }
    s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len())
}

/// The byte offset of the `]` closing a `[` just before `s`.
fn closing_bracket(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

const POSITIONS: &str = "an element is i, i + K or i - K (K a whole number), or an index input's element such as idx[i] or idx[i + 1]";

/// Why an elementwise table's `reference` cannot be read: a read of an
/// input that is not one, a position outside the language, a call that
/// does not parse; in words, with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReferenceError(String);

impl From<String> for ReferenceError {
    fn from(message: String) -> Self {
        ReferenceError(message)
    }
}

impl Parser<'_> {
    /// `text` with each read replaced by its variable.
    fn rewrite(&mut self, text: &str) -> Result<String, ReferenceError> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let len = name_len(rest);
            if len == 0 {
                // A number is copied whole, so that `2e5` is not a name.
                let len = if c.is_ascii_digit() || c == '.' {
                    rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                        .unwrap_or(rest.len())
                } else {
                    c.len_utf8()
                };
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
            let name = &rest[..len];
            rest = &rest[len..];
            let after = rest.trim_start();
            // `name[...]`: an element other than i.
            let pos = if let Some(inner) = after.strip_prefix('[') {
                let close = closing_bracket(inner)
                    .ok_or_else(|| format!("`reference`: `{name}[` has no closing `]`"))?;
                let written = format!("{name}[{}]", &inner[..close]);
                let pos = self.position(&inner[..close], &written)?;
                rest = &inner[close + 1..];
                Some((pos, written))
            } else {
                None
            };
            // `.field` of a structure.
            let field = {
                let after = rest.trim_start();
                let flen = after.strip_prefix('.').map_or(0, name_len);
                (flen > 0).then(|| {
                    let f = &after[1..1 + flen];
                    rest = &after[1 + flen..];
                    f
                })
            };
            let written = match (&pos, field) {
                (Some((_, w)), Some(f)) => format!("{w}.{f}"),
                (Some((_, w)), None) => w.clone(),
                (None, Some(f)) => format!("{name}.{f}"),
                (None, None) => name.to_string(),
            };
            if pos.is_none() && field.is_none() {
                if name == "i" {
                    return Err("`reference` uses `i`, the output element's index, as a value: `i` only says which element to read, as in x[i + 1]".to_string().into());
                }
                if RESERVED.contains(&name) {
                    // A function or constant of the language.
                    out.push_str(name);
                    continue;
                }
                if self.spec.scalars.contains_key(name) {
                    self.add(name.to_string(), Var::Scalar(name.to_string()));
                    out.push_str(name);
                    continue;
                }
            }
            let read = self.read(name, pos.map(|(p, _)| p), field, &written)?;
            let canonical = read.to_string();
            if canonical == read.input {
                out.push_str(&canonical);
            } else {
                out.push_str(&format!("{{{canonical}}}"));
            }
            self.add(canonical, Var::Read(read));
        }
        Ok(out)
    }

    fn add(&mut self, name: String, var: Var) {
        if !self.vars.iter().any(|(n, _)| *n == name) {
            self.vars.push((name, var));
        }
    }

    /// The read `written`: of input `name` at `pos` (i when none), field
    /// `field`.
    fn read(
        &self,
        name: &str,
        pos: Option<Pos>,
        field: Option<&str>,
        written: &str,
    ) -> Result<Read, ReferenceError> {
        let spec = self.spec;
        let pos = pos.unwrap_or(Pos {
            base: Base::I,
            offset: 0,
        });
        if spec.scalars.contains_key(name) {
            return Err(format!(
                "`reference` reads `{written}`, but `{name}` is a scalar, one number for every element: write `{name}`"
            ).into());
        }
        let Some(kind) = spec.kind(name) else {
            let known: Vec<&str> = spec
                .inputs
                .iter()
                .map(String::as_str)
                .chain(spec.scalars.keys().map(String::as_str))
                .collect();
            let what = if written == name {
                format!("`reference` uses `{name}`, which is neither an input nor a scalar")
            } else {
                format!("`reference` reads `{written}`, but `{name}` is not an input")
            };
            return Err(crate::suggest::message(
                &what,
                name,
                known.iter().copied(),
                &format!("use {}, or add `{name}` to `inputs`", known.join(", ")),
            )
            .into());
        };
        let field = match (kind, field) {
            (InputKind::Index(_), _) => {
                return Err(format!(
                    "`reference` reads `{written}`, but `{name}` is an index input: use its elements as positions, e.g. x[{name}[i]]"
                ).into());
            }
            (InputKind::Struct(fields), None) => {
                return Err(format!(
                    "`reference` reads `{written}`, but `{name}` is a structure ({}): read one of its fields, e.g. {name}.{}",
                    fields.join(", "),
                    fields[0]
                ).into());
            }
            (InputKind::Struct(fields), Some(f)) => {
                let k = fields.iter().position(|x| x == f).ok_or_else(|| {
                    crate::suggest::message(
                        &format!(
                            "`reference` reads `{written}`, but the structure `{name}` has no field `{f}`"
                        ),
                        f,
                        fields.iter().map(String::as_str),
                        &format!("its fields are {}", fields.join(", ")),
                    )
                })?;
                Some((k, f.to_string()))
            }
            (InputKind::Float, Some(f)) => {
                return Err(format!(
                    "`reference` reads `{written}`, but `{name}` is not a structure: read `{name}`, or declare its fields in [elementwise.structs], e.g. {name} = [\"{f}\", ...]"
                ).into());
            }
            (InputKind::Float, None) => None,
        };
        Ok(Read {
            input: name.to_string(),
            field,
            pos,
        })
    }

    /// The position written `text` inside the brackets of `written`.
    fn position(&self, text: &str, written: &str) -> Result<Pos, ReferenceError> {
        let bad = || format!("`reference` reads `{written}`: {POSITIONS}");
        let t = text.trim();
        let len = name_len(t);
        if len == 0 {
            return Err(bad().into());
        }
        let (name, mut rest) = (&t[..len], t[len..].trim_start());
        let base = if name == "i" {
            Base::I
        } else if let Some(inner) = rest.strip_prefix('[') {
            let close = closing_bracket(inner).ok_or_else(bad)?;
            let inner_written = format!("{name}[{}]", &inner[..close]);
            match self.spec.kind(name) {
                Some(InputKind::Index(_)) => {}
                Some(_) => {
                    let indices: Vec<&str> = self.spec.indices.keys().map(String::as_str).collect();
                    return Err(format!(
                        "`reference` reads `{written}`, but `{name}` is not an index input, so it cannot give positions: declare it in `indices` (indices = {{ {name} = \"permutation\" }}){}",
                        if indices.is_empty() {
                            String::new()
                        } else {
                            format!(" or index with {}", indices.join(", "))
                        }
                    ).into());
                }
                None => {
                    let indices: Vec<&str> = self.spec.indices.keys().map(String::as_str).collect();
                    return Err(crate::suggest::message(
                        &format!("`reference` reads `{written}`, but `{name}` is not an input"),
                        name,
                        indices.iter().copied(),
                        "declare an index input: add it to `inputs` and to `indices`, e.g. indices = { idx = \"permutation\" }",
                    ).into());
                }
            }
            let inner_pos = self.position(&inner[..close], &inner_written)?;
            rest = inner[close + 1..].trim_start();
            Base::Index(name.to_string(), Box::new(inner_pos))
        } else {
            return Err(bad().into());
        };
        let offset = if rest.is_empty() {
            0
        } else {
            let (sign, k) = if let Some(k) = rest.strip_prefix('+') {
                (1, k)
            } else if let Some(k) = rest.strip_prefix('-') {
                (-1, k)
            } else {
                return Err(bad().into());
            };
            let k: i64 = k.trim().parse().map_err(|_| bad())?;
            if k > i64::from(u32::MAX) {
                return Err(bad().into());
            }
            sign * k
        };
        Ok(Pos { base, offset })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra: &str, reference: &str) -> ElementwiseSpec {
        toml::from_str(&format!(
            "inputs = [\"x\", \"y\", \"idx\", \"p\"]\nscalars = {{ a = 2.0 }}\noutput = \"z\"\nreference = \"{reference}\"\nindices = {{ idx = \"permutation\" }}\n{extra}[structs]\np = [\"x\", \"y\", \"z\", \"w\"]\n"
        ))
        .unwrap()
    }

    // Bare names pass through unchanged; other reads become one braced
    // variable each, spelt canonically, so `x[i+1]` and `x[i + 1]` are one.
    #[test]
    fn reads_become_canonical_variables() {
        let r = Reference::parse(&spec("", "a * x + y")).unwrap();
        assert_eq!(r.text, "a * x + y");
        let r = Reference::parse(&spec(
            "",
            "x[idx[i]] + x[i+1] * x[ i + 1 ] - p[idx[i - 2]].w + p.y",
        ))
        .unwrap();
        assert_eq!(
            r.text,
            "{x[idx[i]]} + {x[i + 1]} * {x[i + 1]} - {p[idx[i - 2]].w} + {p.y}"
        );
        assert_eq!(r.vars.len(), 4);
        assert_eq!(r.fields_read("p"), [1, 3]);
        assert!(r.first_shift().is_some());
        let r = Reference::parse(&spec("", "max(x[i], min(y, p.x))")).unwrap();
        assert_eq!(r.text, "((x) max ( ((y) min ( {p.x}))))");
        assert!(r.first_shift().is_none());
    }

    // Each mistake says what is wrong and the fix.
    #[test]
    fn mistakes_say_the_fix() {
        let err = |r: &str| Reference::parse(&spec("", r)).unwrap_err().to_string();
        assert!(
            err("q[i + 1]").contains("`q` is not an input"),
            "{}",
            err("q[i + 1]")
        );
        assert!(
            err("x[y[i]]").contains("`y` is not an index input"),
            "{}",
            err("x[y[i]]")
        );
        assert!(
            err("x[idz[i]]").contains("did you mean `idx`?"),
            "{}",
            err("x[idz[i]]")
        );
        assert!(err("p.q").contains("has no field `q`"), "{}", err("p.q"));
        assert!(
            err("p.v").contains("its fields are x, y, z, w"),
            "{}",
            err("p.v")
        );
        assert!(
            err("p").contains("read one of its fields, e.g. p.x"),
            "{}",
            err("p")
        );
        assert!(err("x.y").contains("is not a structure"), "{}", err("x.y"));
        assert!(err("idx").contains("is an index input"), "{}", err("idx"));
        assert!(err("a[i]").contains("is a scalar"), "{}", err("a[i]"));
        assert!(
            err("x[2 * i]").contains("an element is i, i + K"),
            "{}",
            err("x[2 * i]")
        );
        assert!(err("x[i + 1").contains("no closing"), "{}", err("x[i + 1"));
    }
}
