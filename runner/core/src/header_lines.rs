//! Where a field of an example's header is written: `file:line` of a
//! launch table's `block`, a scratch buffer or `bytes`, so that every
//! message about a declaration (launch limits, plans, argument binding,
//! kernels against the PTX) names the line to change
//! ([`crate::example::Example::header_place`]).

/// A mistake in an example's header that a check of its plans, limits,
/// argument bindings or kernels found: what is wrong, the `file:line` of
/// the field to change ([`HeaderField`]) and the fix, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HeaderError(String);

impl HeaderError {
    /// The same mistake, said to happen `at` a size or a case (`at n =
    /// 1024: ...`).
    pub fn at(self, at: impl std::fmt::Display) -> Self {
        HeaderError(format!("at {at}: {}", self.0))
    }
}

impl From<String> for HeaderError {
    fn from(message: String) -> Self {
        HeaderError(message)
    }
}

/// A field of an example's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderField<'a> {
    /// `field` of the `index`-th `[[launch]]` table.
    Launch(usize, &'a str),
    /// A buffer of the `[scratch]` table.
    Scratch(&'a str),
    /// A key outside any table (`bytes`, `sizes`).
    Top(&'a str),
    /// A key of the `[elementwise]` table.
    Elementwise(&'a str),
    /// A key of the `[transfer]` table.
    Transfer(&'a str),
    /// A key of the `[sweep]` table (the parameter's name).
    Sweep(&'a str),
}

/// 0-based line, counted from the first line of the author's text, of
/// `field` in the header of an example's compiled `source`.
pub fn header_field_line(source: &str, field: HeaderField<'_>) -> Option<usize> {
    // The compiled source starts with one `#line` marker.
    let mut text = source
        .lines()
        .skip(usize::from(source.starts_with("#line ")))
        .enumerate();
    let open = text
        .by_ref()
        .find(|(_, line)| line.trim().starts_with(crate::source::HEADER_OPEN))?
        .0;
    let toml = text
        .map(|(_, line)| line)
        .take_while(|line| !line.trim().starts_with(crate::source::HEADER_CLOSE));
    Some(match field_line(toml, field) {
        Some(i) => open + 1 + i,
        None => open,
    })
}

/// 0-based line of `field` among the TOML `lines` of a header: where it
/// is written, else the line of its table; `None` when neither is there.
pub fn field_line<'t>(
    lines: impl Iterator<Item = &'t str>,
    field: HeaderField<'_>,
) -> Option<usize> {
    /// The table a header line belongs to.
    #[derive(PartialEq)]
    enum Table {
        Top,
        Launch(usize),
        Scratch,
        Elementwise,
        Transfer,
        Sweep,
        Other,
    }
    let (want_table, key) = match field {
        HeaderField::Launch(i, key) => (Table::Launch(i), key),
        HeaderField::Scratch(key) => (Table::Scratch, key),
        HeaderField::Top(key) => (Table::Top, key),
        HeaderField::Elementwise(key) => (Table::Elementwise, key),
        HeaderField::Transfer(key) => (Table::Transfer, key),
        HeaderField::Sweep(key) => (Table::Sweep, key),
    };
    let mut table = Table::Top;
    let mut launches = 0;
    let mut table_line = None;
    for (i, line) in lines.enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            table = if t.starts_with("[[launch]]") {
                launches += 1;
                Table::Launch(launches - 1)
            } else if t
                .trim_start_matches('[')
                .trim_start()
                .starts_with("scratch")
            {
                Table::Scratch
            } else if t
                .trim_start_matches('[')
                .trim_start()
                .starts_with("elementwise")
            {
                Table::Elementwise
            } else if t
                .trim_start_matches('[')
                .trim_start()
                .starts_with("transfer")
            {
                Table::Transfer
            } else if t.trim_start_matches('[').trim_start().starts_with("sweep") {
                Table::Sweep
            } else {
                Table::Other
            };
            if table == want_table {
                table_line = Some(i);
                // `[elementwise.structs]` is where key `structs` is written.
                let sub = t.trim_matches(|c| c == '[' || c == ']').trim();
                if sub.split_once('.').is_some_and(|(_, k)| k.trim() == key) {
                    return Some(i);
                }
            }
            continue;
        }
        let written = t.split('=').next().unwrap_or("").trim().trim_matches('"');
        if table == want_table && written == key {
            return Some(i);
        }
    }
    table_line
}
