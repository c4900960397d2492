use super::*;

/// A folder holding `files` (path, text), for includes to read.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create folder");
        std::fs::write(path, text).expect("write file");
    }
    dir
}

/// Where the first `needle` of `expanded` was written, as `file:line`
/// (`ch` for the chapter) with ` via N` for the include's chapter line.
fn where_is(map: &SourceMap, expanded: &str, needle: &str, root: &Path) -> String {
    let offset = expanded
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {expanded:?}"));
    let place = map.place(offset);
    let file = place.file.map_or("ch".to_string(), |f| {
        f.strip_prefix(root).unwrap_or(&f).display().to_string()
    });
    match place.included_at {
        Some(via) => format!("{file}:{} via {via}", place.line),
        None => format!("{file}:{}", place.line),
    }
}

const KERNEL: &str = "// head\n// ANCHOR: body\nint a;\n// ANCHOR: inner\nint b;\n// ANCHOR_END: inner\nint c;\n// ANCHOR_END: body\n// tail\n";

// Text after an include that brought in more lines than its own is placed
// at the chapter file's line, not the line of the expanded text; text that
// came from an included file is placed in that file, with the chapter
// line of the include (the outermost one when includes nest).
#[test]
fn places_follow_includes_back_to_their_files() {
    let dir = folder(&[
        ("src/k/x.cu", KERNEL),
        (
            "src/part/frag.md",
            "intro\n{{#measured a time 2^20}}\n{{#include ../deep.md}}\n",
        ),
        ("src/deep.md", "deep one\ndeep two\n"),
    ]);
    let raw = "# T\n\n```cpp\n{{#include k/x.cu:body}}\n```\n\n{{#include part/frag.md}}\nafter {{#ratio a b 2^20}}\n";
    let expanded = "# T\n\n```cpp\nint a;\nint b;\nint c;\n```\n\nintro\n{{#measured a time 2^20}}\ndeep one\ndeep two\nafter {{#ratio a b 2^20}}\n";
    let map = SourceMap::new(raw, expanded, &dir.path().join("src"));
    assert!(map.exact);
    let at = |needle: &str| where_is(&map, expanded, needle, dir.path());
    assert_eq!(at("# T"), "ch:1");
    assert_eq!(at("int a"), "src/k/x.cu:3 via 4");
    // The anchor lines are left out, so `int b` is line 5, not 4.
    assert_eq!(at("int b"), "src/k/x.cu:5 via 4");
    assert_eq!(at("int c"), "src/k/x.cu:7 via 4");
    assert_eq!(at("```\n\nintro"), "ch:5");
    assert_eq!(at("{{#measured"), "src/part/frag.md:2 via 7");
    assert_eq!(at("deep two"), "src/deep.md:2 via 7");
    assert_eq!(at("after"), "ch:8");
    assert_eq!(at("{{#ratio"), "ch:8");
    assert_eq!(map.place_of_line(13).line, 8);
}

// Line ranges, escaped links, titles, rustdoc includes and playgrounds
// are expanded as mdBook does, so the lines after them keep their places;
// a link whose file cannot be read stays as written.
#[test]
fn every_link_form_is_expanded_as_mdbook_does() {
    let dir = folder(&[
        ("five.txt", "1\n2\n3\n4\n5\n"),
        (
            "x.rs",
            "fn a() {}\n// ANCHOR: b\nfn b() {}\n// ANCHOR_END: b\n",
        ),
    ]);
    let cases = [
        (
            "{{#include five.txt:2:3}}\nA\n",
            "2\n3\nA\n",
            "five.txt:2 via 1",
        ),
        ("{{#include five.txt:4}}\nA\n", "4\nA\n", "five.txt:4 via 1"),
        (
            "{{#include five.txt:4:}}\nA\n",
            "4\n5\nA\n",
            "five.txt:4 via 1",
        ),
        (
            "{{#include five.txt::2}}\nA\n",
            "1\n2\nA\n",
            "five.txt:1 via 1",
        ),
        (
            "\\{{#include five.txt}}\nA\n",
            "{{#include five.txt}}\nA\n",
            "ch:1",
        ),
        ("{{#title Mine}}\nA\n", "\nA\n", "ch:1"),
        (
            "{{#rustdoc_include x.rs:b}}\nA\n",
            "# fn a() {}\nfn b() {}\nA\n",
            "x.rs:1 via 1",
        ),
        (
            "{{#rustdoc_include x.rs:2}}\nA\n",
            "# fn a() {}\n// ANCHOR: b\n# fn b() {}\n# // ANCHOR_END: b\nA\n",
            "x.rs:1 via 1",
        ),
        (
            "{{#playground x.rs editable}}\nA\n",
            "```rust,editable\nfn a() {}\n// ANCHOR: b\nfn b() {}\n// ANCHOR_END: b\n```\n\nA\n",
            "ch:1",
        ),
        (
            "{{#include nope.md}}\nA\n",
            "{{#include nope.md}}\nA\n",
            "ch:1",
        ),
    ];
    for (raw, expanded, first) in cases {
        let map = SourceMap::new(raw, expanded, dir.path());
        assert!(map.exact, "{raw:?}: fell back to the diff");
        assert_eq!(where_is(&map, expanded, "", dir.path()), first, "{raw:?}");
        assert_eq!(
            where_is(&map, expanded, "A\n", dir.path()),
            "ch:2",
            "{raw:?}"
        );
    }
    // The closing fence of a playground stands at the link.
    let expanded = "```rust\nfn a() {}\n// ANCHOR: b\nfn b() {}\n// ANCHOR_END: b\n```\n";
    let map = SourceMap::new("{{#playground x.rs}}", expanded, dir.path());
    assert_eq!(where_is(&map, expanded, "fn b", dir.path()), "x.rs:3 via 1");
    assert_eq!(where_is(&map, expanded, "```\n", dir.path()), "ch:1");
    assert_eq!(
        where_is(&map, expanded, "\n```\n", dir.path()),
        "x.rs:4 via 1"
    );
}

// Lines of a chapter file with CRLF endings and a byte-order mark keep
// their numbers; included text (whose lines mdBook joins with LF) too.
#[test]
fn crlf_and_bom_keep_lines() {
    let dir = folder(&[("two.md", "one\r\ntwo\r\n")]);
    let raw = "\u{feff}a\r\n{{#include two.md}}\r\nb\r\n";
    let expanded = "a\r\none\ntwo\r\nb\r\n";
    let map = SourceMap::new(raw, expanded, dir.path());
    assert_eq!(
        where_is(&map, expanded, "two", dir.path()),
        "two.md:2 via 2"
    );
    assert_eq!(where_is(&map, expanded, "b", dir.path()), "ch:3");
}

// Text that is not the expansion of its file (another preprocessor ran
// first) is mapped by a line diff: unchanged lines to their own line,
// lines that took another's place to that line.
#[test]
fn other_changes_fall_back_to_a_line_diff() {
    let raw = "a\nb\n{{#unknown thing}}\nc\nd\n";
    let expanded = "top\na\nb\nx\ny\nc\nd\n";
    let map = SourceMap::new(raw, expanded, Path::new("/nonexistent"));
    assert!(!map.exact);
    let line = |needle: &str| {
        let place = map.place(expanded.find(needle).unwrap());
        assert_eq!(place.file, None);
        place.line
    };
    assert_eq!(line("top"), 1);
    assert_eq!(line("a\n"), 1);
    assert_eq!(line("b\n"), 2);
    assert_eq!(line("x\n"), 3);
    assert_eq!(line("y\n"), 3);
    assert_eq!(line("c\n"), 4);
    assert_eq!(line("d\n"), 5);
}

// A chapter as written maps every byte to its own line.
#[test]
fn identity_is_the_file_itself() {
    let text = "a\nb\n\nc";
    let map = SourceMap::identity(text);
    assert_eq!(map.place(text.find('c').unwrap()).line, 4);
    assert_eq!(map.place_of_line(2).line, 2);
    assert_eq!(map.place(0).file, None);
}

// Includes nested deeper than mdBook follows them are dropped, as mdBook
// drops them, and a self-include does not loop.
#[test]
fn self_includes_stop_at_mdbooks_depth() {
    let dir = folder(&[("loop.md", "x\n{{#include loop.md}}")]);
    let raw = "{{#include loop.md}}\nA\n";
    let expanded = format!("{}\nA\n", "x\n".repeat(10));
    let map = SourceMap::new(raw, &expanded, dir.path());
    assert!(map.exact, "fell back to the diff");
    assert_eq!(where_is(&map, &expanded, "A\n", dir.path()), "ch:2");
}
