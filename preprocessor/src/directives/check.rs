//! The problems of the book's directives that need no GPU and no store:
//! a directive that cannot be read, or one naming an example the book does
//! not have, a broken one, or a size the example does not declare (each
//! reason from [`crate::names`]). What the `check` commands report.

use super::{Directive, find};
use crate::catalog::{Catalog, ChapterText};
use crate::config::Settings;
use crate::names::{example, undeclared_written};
use cuda_measured_core::dims::Written;

/// The size a directive asks its examples for, when it names one that
/// must be declared.
fn size_of(directive: &Directive) -> Option<&Written> {
    match directive {
        Directive::Measured { size, .. }
        | Directive::Ratio { size, .. }
        | Directive::Ladder { size, .. }
        | Directive::Profile { size, .. }
        | Directive::Sanitizer { size, .. }
        | Directive::Host { size, .. } => Some(size),
        _ => None,
    }
}

/// What is wrong with the examples and size `directive` names, one reason
/// per mistake.
pub fn mistakes(directive: &Directive, catalog: &Catalog) -> Vec<String> {
    let size = size_of(directive);
    let mut out = Vec::new();
    for id in directive.ids() {
        match example(catalog, id) {
            Err(reason) => out.push(reason.to_string()),
            Ok(example) => out.extend(size.and_then(|n| undeclared_written(example, n))),
        }
    }
    out.extend(super::sweep_mistakes::mistakes(directive, catalog));
    // `{{#ratio a a N}}` says it once.
    out.dedup();
    out
}

/// The problems of the book's directives that need no GPU and no store,
/// as `place: directive: reason` lines in reading order: directives that
/// cannot be read, and ones naming an example the book does not have, a
/// broken one, or a size the example does not declare. What the `check`
/// commands report.
pub fn check(settings: &Settings, catalog: &Catalog, chapters: &[ChapterText]) -> Vec<String> {
    let mut out = Vec::new();
    for (index, chapter) in chapters.iter().enumerate() {
        let Some(scan) = catalog.chapters.get(index) else {
            continue;
        };
        for found in find(&chapter.content, scan) {
            let place = chapter.place_at(settings, found.range.start);
            let reasons = match &found.parsed {
                Err(message) => vec![message.to_string()],
                Ok(directive) => mistakes(directive, catalog),
            };
            for reason in reasons {
                out.push(format!("{place}: {}: {reason}", found.text));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::undeclared_size;
    use crate::test_support::{KERNEL, catalog_of, settings_in};
    use cuda_measured_core::dims::Dims;

    // Every mistake a directive can make about names is found without a
    // GPU or a store: an unknown id (with the id meant), a broken example
    // (with its header's error and line), an undeclared size (with the
    // size meant); an example not measured yet at a declared size is fine.
    #[test]
    fn directives_naming_what_the_book_lacks() {
        let (_dir, settings) = settings_in(&[]);
        let broken = KERNEL.replace("sizes = ", "sises = ");
        let fast = KERNEL.replace("[\"2^28\"]", "[\"2^28\", 1000003]");
        let text = format!(
            "```cuda run id=fast\n{fast}```\n\n```cuda run id=bad\n{broken}```\n\n\
             {{{{#measured fast time 2^28}}}}\n\
             {{{{#measured fsat time 2^28}}}}\n\
             {{{{#profile bad dram 2^28}}}}\n\
             {{{{#ratio fast fast 1000030}}}}\n\
             {{{{#measured fast tme 2^28}}}}\n"
        );
        let catalog = catalog_of(&settings, &text);
        let chapter = crate::test_support::chapter("ch.md", &text);
        let lines = check(&settings, &catalog, &[chapter]);
        let line = |start: &str| text.lines().position(|l| l.starts_with(start)).unwrap() + 1;
        let want = [
            format!(
                "src/ch.md:{}: {{{{#measured fsat time 2^28}}}}: no example with id `fsat` in this book; did you mean `fast`?",
                line("{{#measured fsat")
            ),
            format!(
                "src/ch.md:{}: {{{{#profile bad dram 2^28}}}}: `bad` is broken: src/ch.md:{}: unknown key `sises`; did you mean `sizes`?",
                line("{{#profile"),
                line("sises")
            ),
            format!(
                "src/ch.md:{}: {{{{#ratio fast fast 1000030}}}}: `fast` does not declare N = 1000030: its declared sizes are 2^28, 1000003; did you mean `1000003`?",
                line("{{#ratio")
            ),
        ];
        assert_eq!(lines[..3], want, "{lines:#?}");
        assert_eq!(lines.len(), 4, "{lines:#?}");
        assert!(lines[3].contains("`tme` is not a figure"), "{}", lines[3]);
        // Sizes a typo away alike suggest none.
        let example = catalog.entries[0].example().unwrap();
        let two = KERNEL.replace("[\"2^28\"]", "[\"2^20\", \"2^28\"]");
        let two = catalog_of(&settings, &format!("```cuda run id=two\n{two}```\n"));
        let two = two.entries[0].example().unwrap();
        assert!(
            undeclared_size(two, Dims::n(1 << 24))
                .unwrap()
                .ends_with("2^20, 2^28")
        );
        assert!(undeclared_size(example, Dims::n(1 << 28)).is_none());
    }
}
