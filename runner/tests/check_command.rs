//! `cuda-runner check` on a folder of kernels whose headers do not parse:
//! every bad file is listed with its file:line message, the exit is
//! non-zero once at the end, and the error is an `error:` line, never a
//! backtrace, even with `RUST_BACKTRACE` set.

use std::process::Command;

// Two files with bad headers are both listed, in order, each at the line
// at fault; the run fails with one error line and no backtrace.
#[test]
fn check_lists_every_bad_header_and_fails_once() {
    let book = tempfile::tempdir().unwrap();
    let folder = book.path().join("kernels/ch");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("a_typo.cu"),
        "/*+++\nproblem = \"sum_f32\"\nsises = [\"2^20\"]\n+++*/\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("b_launch.cu"),
        "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\nlaunch = 3\n+++*/\n",
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .current_dir(book.path())
        .args(["check", "kernels"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("cuda-runner runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stdout}{stderr}");
    let listed: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAILED")).collect();
    assert_eq!(listed.len(), 2, "{stdout}");
    assert!(
        listed[0].starts_with("FAILED kernels/ch/a_typo.cu:3: unknown key `sises`"),
        "{stdout}"
    );
    assert!(
        listed[1].starts_with("FAILED kernels/ch/b_launch.cu:4: "),
        "{stdout}"
    );
    assert_eq!(
        stderr, "cuda-runner: error: 2 of 2 examples failed the check\n",
        "{stderr}"
    );
}

// An error with causes prints each cause on a line of its own, and no
// backtrace.
#[test]
fn errors_show_their_causes_not_a_backtrace() {
    let run = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .args(["plan", "/nonexistent/kernels/x.cu", "--size", "2^20"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("cuda-runner runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.starts_with("cuda-runner: error: "), "{stderr}");
    assert!(!stderr.to_lowercase().contains("backtrace"), "{stderr}");
}

// In a book, the check also reads the chapters' directives, as
// `mdbook-cuda check` does: an id one letter off and a size the example
// does not declare are listed at their lines, with the id and size meant,
// and fail the check; a directive of an example not measured yet at a
// declared size is fine.
#[test]
fn check_reports_directives_naming_what_the_book_lacks() {
    let book = tempfile::tempdir().unwrap();
    let root = book.path();
    std::fs::create_dir_all(root.join("kernels/ch")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    std::fs::write(root.join("src/SUMMARY.md"), "- [Ch](ch.md)\n").unwrap();
    std::fs::write(
        root.join("src/ch.md"),
        "# Ch\n\n```cuda run file=ch/sum.cu\n```\n\nFine: {{#measured ch/sum time 2^20}}.\nTypo: {{#measured ch/smu time 2^20}}.\nSize: {{#ratio ch/sum ch/sum 1000030}}.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("kernels/ch/sum.cu"),
        "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\", 1000003]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n",
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .current_dir(root)
        .args(["check", "kernels"])
        .output()
        .expect("cuda-runner runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stdout}{stderr}");
    let directives: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("FAILED src/"))
        .collect();
    assert_eq!(
        directives,
        [
            "FAILED src/ch.md:7: {{#measured ch/smu time 2^20}}: no example with id `ch/smu` in this book; did you mean `ch/sum`?",
            "FAILED src/ch.md:8: {{#ratio ch/sum ch/sum 1000030}}: `ch/sum` does not declare N = 1000030: its declared sizes are 2^20, 1000003; did you mean `1000003`?",
        ],
        "{stdout}"
    );
    assert!(stderr.contains("2 directive(s) of the book"), "{stderr}");
}
