//! Links between the book's rendered chapters: the page mdBook renders a
//! chapter to, and the relative link from one chapter to a section of
//! another, as the `{{#status}}` page links to examples and stored files.

use std::path::{Component, Path};

/// A link from the chapter `page` to `anchor` (or the top) of `chapter`,
/// both relative to the chapters folder.
pub(crate) fn link(chapter: &Path, page: &Path, anchor: Option<&str>) -> String {
    let fragment = anchor.map_or_else(String::new, |a| format!("#{a}"));
    if chapter == page {
        if fragment.is_empty() {
            "#".to_string()
        } else {
            fragment
        }
    } else {
        format!("{}{fragment}", relative_link(page, &rendered(chapter)))
    }
}

/// The page mdBook renders a chapter to: `ch.md` → `ch.html`, and a
/// `README.md` → `index.html` (mdBook's index preprocessor).
pub(crate) fn rendered(chapter: &std::path::Path) -> std::path::PathBuf {
    if chapter
        .file_stem()
        .is_some_and(|s| s.eq_ignore_ascii_case("readme"))
    {
        chapter.with_file_name("index.html")
    } else {
        chapter.with_extension("html")
    }
}

/// A link from the chapter `from` to the file `to`, both relative to the
/// chapters folder, with forward slashes: `../part/ch.html`.
pub(crate) fn relative_link(from: &Path, to: &Path) -> String {
    let parts = |p: &Path| -> Vec<String> {
        p.components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let from_dir = from.parent().map(parts).unwrap_or_default();
    let to = parts(to);
    let common = from_dir.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".into(); from_dir.len() - common];
    out.extend(to[common..].iter().cloned());
    out.join("/")
}
