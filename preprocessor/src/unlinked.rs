//! Example files no page of the book shows. A build measures, checks and
//! stores only the examples its pages link, and a chapter listed in
//! SUMMARY.md as a draft (`- [Title]()`, no file) links none, so a kernel
//! file written for it is silently left out; the build says which.

use crate::catalog::Catalog;
use std::path::{Path, PathBuf};

/// The example files (`.cu` with a `/*+++` header) under `kernels`, as
/// paths relative to `root`, that no entry of `catalog` comes from.
pub fn unlinked(root: &Path, kernels: &Path, catalog: &Catalog) -> Vec<PathBuf> {
    let linked: std::collections::HashSet<PathBuf> = catalog
        .entries
        .iter()
        .filter_map(|e| e.example())
        .map(|e| root.join(&e.origin.file))
        .collect();
    crate::book_files::files_under(kernels, "cu")
        .into_iter()
        .filter(|path| !linked.contains(path))
        .filter(|path| {
            std::fs::read_to_string(path).is_ok_and(|text| text.trim_start().starts_with("/*+++"))
        })
        .map(|path| {
            path.strip_prefix(root)
                .map_or(path.clone(), Path::to_path_buf)
        })
        .collect()
}

/// The build's line about them, or `None` when every example file is
/// shown: how many, the first few, and what to do.
pub fn line(files: &[PathBuf]) -> Option<String> {
    const NAMED: usize = 3;
    if files.is_empty() {
        return None;
    }
    let mut named: Vec<String> = files
        .iter()
        .take(NAMED)
        .map(|p| p.display().to_string())
        .collect();
    if files.len() > NAMED {
        named.push(format!("and {} more", files.len() - NAMED));
    }
    Some(format!(
        "[cuda] {} example file(s) under kernels/ are on no page of the book, so this build neither checks nor measures them ({}); a chapter listed in SUMMARY.md as a draft, `- [Title]()`, links none: give it its file to measure its kernels",
        files.len(),
        named.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{KERNEL, chapter, settings_in};

    // A kernel file the chapter links is not listed; one no page links is,
    // relative to the book; a header-less helper file is not an example.
    #[test]
    fn lists_the_example_files_no_page_links() {
        let (_dir, settings) = settings_in(&[
            ("kernels/r/tree.cu", KERNEL),
            ("kernels/draft/wide.cu", KERNEL),
            (
                "kernels/draft/helper.cu",
                "// no header: included by others\n",
            ),
        ]);
        let page = chapter("ch.md", "```cuda run file=r/tree.cu\n```\n");
        let catalog = Catalog::build(&settings, &[page]);
        assert_eq!(
            unlinked(&settings.root, &settings.kernels, &catalog),
            vec![PathBuf::from("kernels/draft/wide.cu")]
        );
    }

    // Three files named, then a count; nothing said when all are shown.
    #[test]
    fn names_the_first_files_and_counts_the_rest() {
        assert_eq!(line(&[]), None);
        let files: Vec<PathBuf> = [
            "kernels/a/x.cu",
            "kernels/a/y.cu",
            "kernels/b/z.cu",
            "kernels/c/w.cu",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let said = line(&files).unwrap();
        assert!(
            said.starts_with("[cuda] 4 example file(s) under kernels/ are on no page"),
            "{said}"
        );
        assert!(
            said.contains("(kernels/a/x.cu, kernels/a/y.cu, kernels/b/z.cu, and 1 more)"),
            "{said}"
        );
    }
}
