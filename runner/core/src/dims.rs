//! Sizes of problems with several named dimensions (`rows x cols`,
//! `M x N x K`, `footprint, stride`): the dimensions a problem declares,
//! the values of one size, how authors write them and how pages show them.
//!
//! A problem declares its dimensions in order ([`Dim`]); a problem of one
//! dimension declares [`N`] and its sizes stay plain [`crate::size::Size`]s
//! (`"2^20"`, `1000003`). A size of several dimensions is written
//!
//! - by position, in the problem's order: `"8192x8192"` (`×` too);
//! - by name: `"M = N = K = 4096"`, `"M = 2048, N = 4096, K = 1024"`,
//!   `"footprint = 64MiB, stride = 128"` (`=` may be a space:
//!   `"footprint 64 MiB, stride 128 B"`).
//!
//! Values are whole numbers or `b^k`; a dimension that is a byte amount
//! also takes `B`, `KiB`, `MiB` and `GiB`. Names match ignoring case. The
//! canonical text ([`Dims`]'s `Display`) is one of these forms and reads
//! back to the same size.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The most dimensions a problem may declare.
pub const MAX_DIMS: usize = 4;

/// What the values of a dimension count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DimKind {
    /// Elements (rows, columns, M, N, K).
    Count,
    /// Bytes (a footprint, a stride): written and shown with `B`, `KiB`,
    /// `MiB` or `GiB`.
    Bytes,
}

/// One dimension a problem declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dim {
    /// Its name as authors write it (`rows`, `M`, `footprint`); its
    /// lowercase form is the launch variable and kernel argument.
    pub name: &'static str,
    /// Whether it counts elements or bytes.
    pub kind: DimKind,
}

impl Dim {
    /// A dimension that counts elements.
    pub const fn count(name: &'static str) -> Dim {
        Dim {
            name,
            kind: DimKind::Count,
        }
    }

    /// A dimension that is a byte amount.
    pub const fn bytes(name: &'static str) -> Dim {
        Dim {
            name,
            kind: DimKind::Bytes,
        }
    }

    /// The launch variable and kernel argument it is (`m` for `M`).
    pub fn variable(&self) -> String {
        self.name.to_lowercase()
    }
}

/// The dimensions of a problem of one dimension (and of a row-wise one,
/// whose declared size is the row length): `n`.
pub const N: &[Dim] = &[Dim::count("n")];

/// The values of one size of a problem, one per dimension in the
/// problem's order. `Copy`: the dimensions are the problem's own static
/// list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dims {
    dims: &'static [Dim],
    values: [u64; MAX_DIMS],
}

/// Why a size could not be read as a size of a problem's dimensions.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("`{text}` is not a size of {of}: {message}")]
pub struct DimsError {
    /// The text as written.
    pub text: String,
    /// The dimensions, as `rows x cols` or `n`.
    pub of: String,
    /// What is wrong, with the fix.
    pub message: String,
}

/// Why a size's text does not read as a size at all, whatever its
/// dimensions (`2^`, `M = `, a name without a value); in words.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct SyntaxError(String);

impl From<String> for SyntaxError {
    fn from(message: String) -> Self {
        SyntaxError(message)
    }
}

impl Dims {
    /// The size `values` of `dims` (one value each, in order), or `None`
    /// when the counts differ or there are more than [`MAX_DIMS`].
    pub fn new(dims: &'static [Dim], values: &[u64]) -> Option<Dims> {
        if values.len() != dims.len() || dims.len() > MAX_DIMS {
            return None;
        }
        let mut v = [0; MAX_DIMS];
        v[..values.len()].copy_from_slice(values);
        Some(Dims { dims, values: v })
    }

    /// A size `n` of a problem of one dimension.
    pub const fn n(n: u64) -> Dims {
        Dims {
            dims: N,
            values: [n, 0, 0, 0],
        }
    }

    /// The problem's dimensions.
    pub fn dims(&self) -> &'static [Dim] {
        self.dims
    }

    /// The values, in the dimensions' order.
    pub fn values(&self) -> &[u64] {
        &self.values[..self.dims.len()]
    }

    /// Each dimension with its value.
    pub fn iter(&self) -> impl Iterator<Item = (Dim, u64)> + '_ {
        self.dims.iter().copied().zip(self.values().iter().copied())
    }

    /// The value of the dimension called `name` (ignoring case).
    pub fn get(&self, name: &str) -> Option<u64> {
        self.iter()
            .find(|(d, _)| d.name.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// Whether it is a size of the one dimension `n`.
    pub fn is_flat(&self) -> bool {
        self.dims == N
    }

    /// The number records keep as `n`: the value itself for one dimension,
    /// else the product of the values (saturating), by which sizes sort.
    pub fn n_value(&self) -> u64 {
        self.values()
            .iter()
            .fold(1u64, |acc, &v| acc.saturating_mul(v))
    }

    /// Launch variables: each dimension's lowercase name with its value.
    pub fn variables(&self) -> impl Iterator<Item = (String, u64)> + '_ {
        self.iter().map(|(d, v)| (d.variable(), v))
    }

    /// The form of the size in stored file names, safe on every file
    /// system and in URLs: the number for one dimension (`1048576`), else
    /// `name-value` pairs joined by `_`, names in lowercase, values in
    /// units (elements or bytes): `rows-8192_cols-4096`,
    /// `footprint-67108864_stride-128`.
    pub fn file_stem(&self) -> String {
        if self.is_flat() {
            return self.values[0].to_string();
        }
        self.iter()
            .map(|(d, v)| format!("{}-{v}", d.variable()))
            .collect::<Vec<_>>()
            .join("_")
    }

    /// The dimensions in words for messages: `n`, `rows x cols`,
    /// `footprint (bytes) x stride (bytes)`.
    pub fn describe(dims: &[Dim]) -> String {
        dims.iter()
            .map(|d| match d.kind {
                DimKind::Count => d.name.to_string(),
                DimKind::Bytes => format!("{} (bytes)", d.name),
            })
            .collect::<Vec<_>>()
            .join(" x ")
    }

    /// Reads `text` as a size of `dims` (any of the written forms in the
    /// module's documentation).
    pub fn parse(text: &str, dims: &'static [Dim]) -> Result<Dims, DimsError> {
        Written::parse(text)
            .map_err(|message| DimsError {
                text: text.to_string(),
                of: Dims::describe(dims),
                message: format!("{message}; {}", how_to_write(dims)),
            })?
            .resolve(dims)
    }
}

/// How sizes of `dims` are written, for messages.
fn how_to_write(dims: &[Dim]) -> String {
    let example = |d: &Dim| match d.kind {
        DimKind::Count => "4096",
        DimKind::Bytes => "64MiB",
    };
    match dims {
        [one] if one.kind == DimKind::Count => {
            "write a whole number such as 1000003 or a power of two such as \"2^20\"".into()
        }
        _ => {
            let positional: Vec<&str> = dims.iter().map(example).collect();
            let named: Vec<String> = dims
                .iter()
                .map(|d| format!("{} = {}", d.name, example(d)))
                .collect();
            let units = if dims.iter().any(|d| d.kind == DimKind::Bytes) {
                " (bytes as B, KiB, MiB or GiB)"
            } else {
                ""
            };
            format!(
                "write one value per dimension, in order, as \"{}\", or by name as \"{}\"{units}",
                positional.join("x"),
                named.join(", ")
            )
        }
    }
}

impl fmt::Display for Dims {
    /// The canonical text: `2^20` for one dimension; `8192x4096` for two
    /// that count elements; `M=N=K=4096` where three or more are equal;
    /// `M=2048, N=4096, K=1024` otherwise; with a byte dimension,
    /// `footprint 64 MiB, stride 128 B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_flat() {
            return write!(f, "{}", crate::size::Size(self.values[0]));
        }
        let values = self.values();
        if self.dims.iter().any(|d| d.kind == DimKind::Bytes) {
            let parts: Vec<String> = self
                .iter()
                .map(|(d, v)| match d.kind {
                    DimKind::Count => format!("{} {v}", d.name),
                    DimKind::Bytes => format!("{} {}", d.name, bytes_text(v)),
                })
                .collect();
            return f.write_str(&parts.join(", "));
        }
        if values.len() >= 3 && values.iter().all(|&v| v == values[0]) {
            let names: Vec<&str> = self.dims.iter().map(|d| d.name).collect();
            return write!(f, "{}={}", names.join("="), values[0]);
        }
        if values.len() == 2 || values.len() == 1 {
            let parts: Vec<String> = values.iter().map(u64::to_string).collect();
            return f.write_str(&parts.join("x"));
        }
        let parts: Vec<String> = self
            .iter()
            .map(|(d, v)| format!("{}={v}", d.name))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// `64 MiB`, `1 GiB`, `128 B`: the largest binary unit that divides `v`.
pub fn bytes_text(v: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if v >= 1 << shift && v.is_multiple_of(1 << shift) {
            return format!("{} {unit}", v >> shift);
        }
    }
    format!("{v} B")
}

/// A value as written: the number, and whether it carried a byte unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Value {
    value: u64,
    unit: bool,
}

/// A size as written, before it is read against a problem's dimensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Values in the problem's order (`8192x8192`, or one value).
    Positional(Vec<u64>, Vec<bool>),
    /// Names, each group sharing one value (`M = N = 4096, K = 1024`).
    Named(Vec<(Vec<String>, u64, bool)>),
}

impl Written {
    /// Reads the syntax of `text`; the message says what is wrong.
    pub fn parse(text: &str) -> Result<Written, SyntaxError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(SyntaxError("it is empty".into()));
        }
        let named =
            t.contains('=') || t.contains(',') || t.starts_with(|c: char| c.is_ascii_alphabetic());
        if !named {
            let mut values = Vec::new();
            let mut units = Vec::new();
            let parts: Vec<&str> = t.split(['x', '×']).collect();
            for part in &parts {
                let v = value(part).map_err(|e| {
                    if parts.len() > 1 {
                        format!("`{t}` is not values joined by `x`: {e}").into()
                    } else {
                        e
                    }
                })?;
                values.push(v.value);
                units.push(v.unit);
            }
            return Ok(Written::Positional(values, units));
        }
        let mut groups = Vec::new();
        for segment in t.split(',') {
            let mut pieces: Vec<&str> = segment.split('=').map(str::trim).collect();
            if pieces.len() == 1 {
                // `footprint 64 MiB`: the name, a space, the value.
                let s = pieces[0];
                let (name, rest) = s
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| format!("`{s}` has a name but no value"))?;
                pieces = vec![name, rest.trim()];
            }
            let v = value(pieces.last().expect("split gives one piece at least"))?;
            let names = &pieces[..pieces.len() - 1];
            for name in names {
                if name.is_empty()
                    || !name.starts_with(|c: char| c.is_ascii_alphabetic())
                    || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    return Err(format!("`{name}` is not a dimension's name").into());
                }
            }
            groups.push((
                names.iter().map(|n| n.to_string()).collect(),
                v.value,
                v.unit,
            ));
        }
        Ok(Written::Named(groups))
    }

    /// The size of `dims` it writes.
    pub fn resolve(&self, dims: &'static [Dim]) -> Result<Dims, DimsError> {
        let text = self.to_string();
        let fail = |message: String| DimsError {
            text: text.clone(),
            of: Dims::describe(dims),
            message: format!("{message}; {}", how_to_write(dims)),
        };
        let mut values: Vec<Option<(u64, bool)>> = vec![None; dims.len()];
        match self {
            Written::Positional(vs, units) => {
                if vs.len() != dims.len() {
                    return Err(fail(format!(
                        "it has {} value{} and {} has {} dimension{}",
                        vs.len(),
                        if vs.len() == 1 { "" } else { "s" },
                        Dims::describe(dims),
                        dims.len(),
                        if dims.len() == 1 { "" } else { "s" },
                    )));
                }
                for (i, (&v, &u)) in vs.iter().zip(units).enumerate() {
                    values[i] = Some((v, u));
                }
            }
            Written::Named(groups) => {
                for (names, v, u) in groups {
                    for name in names {
                        let Some(i) = dims.iter().position(|d| d.name.eq_ignore_ascii_case(name))
                        else {
                            let known: Vec<&str> = dims.iter().map(|d| d.name).collect();
                            return Err(fail(crate::suggest::message(
                                &format!("there is no dimension `{name}`"),
                                name,
                                known.iter().copied(),
                                &format!("the dimensions are {}", known.join(", ")),
                            )));
                        };
                        if values[i].is_some() {
                            return Err(fail(format!("`{}` is given twice", dims[i].name)));
                        }
                        values[i] = Some((*v, *u));
                    }
                }
                let missing: Vec<&str> = dims
                    .iter()
                    .zip(&values)
                    .filter(|(_, v)| v.is_none())
                    .map(|(d, _)| d.name)
                    .collect();
                if !missing.is_empty() {
                    return Err(fail(format!("it gives no value of {}", missing.join(", "))));
                }
            }
        }
        let mut out = Vec::with_capacity(dims.len());
        for (d, v) in dims.iter().zip(values) {
            let (v, unit) = v.expect("every dimension has a value");
            if unit && d.kind == DimKind::Count {
                return Err(fail(format!(
                    "`{}` counts elements, so its value takes no byte unit",
                    d.name
                )));
            }
            out.push(v);
        }
        Dims::new(dims, &out).ok_or_else(|| fail(format!("at most {MAX_DIMS} dimensions")))
    }
}

impl From<crate::size::Size> for Written {
    /// A size of one dimension, as a number.
    fn from(n: crate::size::Size) -> Written {
        Written::Positional(vec![n.0], vec![false])
    }
}

impl Dims {
    /// The size in words for messages and titles: `N = 2^20` for one
    /// dimension, else the dimensions and the canonical text
    /// (`rows x cols 8192x4096`).
    pub fn words(&self) -> String {
        if self.is_flat() {
            format!("N = {self}")
        } else {
            format!("{} {self}", Dims::describe(self.dims))
        }
    }
}

impl fmt::Display for Written {
    /// The written form with spacing and units made uniform (`2^13` kept
    /// as its value): `8192x8192`, `M=N=4096, K=1024`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = |v: u64, unit: bool| {
            if unit {
                bytes_text(v).replace(' ', "")
            } else {
                v.to_string()
            }
        };
        match self {
            Written::Positional(vs, units) => {
                let parts: Vec<String> = vs.iter().zip(units).map(|(&x, &u)| v(x, u)).collect();
                f.write_str(&parts.join("x"))
            }
            Written::Named(groups) => {
                let parts: Vec<String> = groups
                    .iter()
                    .map(|(names, x, u)| format!("{}={}", names.join("="), v(*x, *u)))
                    .collect();
                f.write_str(&parts.join(", "))
            }
        }
    }
}

/// One value: a whole number or `b^k`, with an optional byte unit.
fn value(text: &str) -> Result<Value, SyntaxError> {
    let t = text.trim().replace('_', "");
    let bad = || {
        format!(
            "`{}` is not a value (a whole number, `2^k`, or for bytes `64MiB`)",
            text.trim()
        )
    };
    let (number, scale) = [("GiB", 30), ("MiB", 20), ("KiB", 10), ("B", 0)]
        .into_iter()
        .find_map(|(unit, shift)| t.strip_suffix(unit).map(|n| (n.trim(), Some(shift))))
        .unwrap_or((t.as_str(), None));
    let v = match number.split_once('^') {
        Some((base, exp)) => {
            let base: u64 = base.trim().parse().map_err(|_| bad())?;
            let exp: u32 = exp.trim().parse().map_err(|_| bad())?;
            base.checked_pow(exp).ok_or_else(bad)?
        }
        None => number.parse::<u64>().map_err(|_| bad())?,
    };
    let value = match scale {
        Some(shift) => v.checked_mul(1 << shift).ok_or_else(bad)?,
        None => v,
    };
    Ok(Value {
        value,
        unit: scale.is_some(),
    })
}

impl Serialize for Written {
    /// One value without a unit as the number (so that `"2^20"` keys as
    /// `1048576`, as sizes always have); anything else as its uniform text.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Written::Positional(vs, units) if vs.len() == 1 && !units[0] => s.serialize_u64(vs[0]),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Written {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(Written::Positional(vec![n], vec![false])),
            Raw::Text(t) => Written::parse(&t)
                .map_err(|m| serde::de::Error::custom(format!("`{t}` is not a size: {m}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RC: &[Dim] = &[Dim::count("rows"), Dim::count("cols")];
    const MNK: &[Dim] = &[Dim::count("M"), Dim::count("N"), Dim::count("K")];
    const FS: &[Dim] = &[Dim::bytes("footprint"), Dim::bytes("stride")];

    // Every written form reads to the size meant, and the canonical text
    // reads back to the same size.
    #[test]
    fn written_forms_read_and_canonical_text_round_trips() {
        let cases: &[(&str, &'static [Dim], &[u64], &str)] = &[
            ("2^20", N, &[1 << 20], "2^20"),
            ("n = 1000003", N, &[1000003], "1000003"),
            ("8192x8192", RC, &[8192, 8192], "8192x8192"),
            ("2^13 × 4096", RC, &[8192, 4096], "8192x4096"),
            ("cols = 33, rows = 7", RC, &[7, 33], "7x33"),
            ("M = N = K = 4096", MNK, &[4096; 3], "M=N=K=4096"),
            (
                "m = 2048, n = 4096, k = 1024",
                MNK,
                &[2048, 4096, 1024],
                "M=2048, N=4096, K=1024",
            ),
            (
                "M = N = 4096, K = 2^10",
                MNK,
                &[4096, 4096, 1024],
                "M=4096, N=4096, K=1024",
            ),
            ("4096x4096x4096", MNK, &[4096; 3], "M=N=K=4096"),
            (
                "footprint = 64MiB, stride = 128",
                FS,
                &[64 << 20, 128],
                "footprint 64 MiB, stride 128 B",
            ),
            (
                "footprint 1 GiB, stride 4 KiB",
                FS,
                &[1 << 30, 4096],
                "footprint 1 GiB, stride 4 KiB",
            ),
        ];
        for &(text, dims, values, canonical) in cases {
            let d = Dims::parse(text, dims).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(d.values(), values, "{text}");
            assert_eq!(d.to_string(), canonical, "{text}");
            assert_eq!(Dims::parse(canonical, dims).unwrap(), d, "{canonical}");
        }
    }

    // Each mistake says what is wrong and how to write the size instead.
    #[test]
    fn mistakes_say_what_is_wrong_and_the_fix() {
        let e = |text: &str, dims: &'static [Dim]| Dims::parse(text, dims).unwrap_err().to_string();
        let one = e("8192", RC);
        assert!(
            one.contains("it has 1 value and rows x cols has 2 dimensions"),
            "{one}"
        );
        assert!(one.contains("\"4096x4096\""), "{one}");
        let typo = e("rows = 4, colz = 5", RC);
        assert!(
            typo.contains("no dimension `colz`; did you mean `cols`?"),
            "{typo}"
        );
        let missing = e("M = N = 4096", MNK);
        assert!(missing.contains("no value of K"), "{missing}");
        let twice = e("M = 1, M = 2, N = 3, K = 4", MNK);
        assert!(twice.contains("`M` is given twice"), "{twice}");
        let unit = e("rows = 64MiB, cols = 1", RC);
        assert!(unit.contains("`rows` counts elements"), "{unit}");
        let junk = e("2^x", N);
        assert!(junk.contains("\"2^20\""), "{junk}");
        let nameless = e("stride, footprint = 1", FS);
        assert!(
            nameless.contains("`stride` has a name but no value"),
            "{nameless}"
        );
    }

    // Stored file names of several dimensions are plain and distinct;
    // one dimension keeps today's number.
    #[test]
    fn file_stems_are_plain() {
        assert_eq!(Dims::n(1 << 20).file_stem(), "1048576");
        let rc = Dims::parse("8192x4096", RC).unwrap();
        assert_eq!(rc.file_stem(), "rows-8192_cols-4096");
        let mnk = Dims::parse("M=1, N=2, K=3", MNK).unwrap();
        assert_eq!(mnk.file_stem(), "m-1_n-2_k-3");
        assert!(
            mnk.file_stem()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }

    // One unitless value keys as the number sizes always keyed as; other
    // forms as their uniform text, which reads back.
    #[test]
    fn written_serialises_as_before_for_one_value() {
        let w = Written::parse("2^20").unwrap();
        assert_eq!(serde_json::to_string(&w).unwrap(), "1048576");
        let m = Written::parse("M = N = 4096 , K=2^10").unwrap();
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, "\"M=N=4096, K=1024\"");
        assert_eq!(serde_json::from_str::<Written>(&json).unwrap(), m);
    }
}
