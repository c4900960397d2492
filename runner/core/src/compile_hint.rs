//! What a compile error's summary adds to NVRTC's own words, where they do
//! not say how to fix it. NVRTC has no host headers (no `<cstdio>`, no
//! `<stdio.h>`, no `<cmath>`): an include of one fails with `could not open
//! source file`, which reads like a missing file, while device `printf` and
//! the math functions need no include at all.

/// The summary of a failed compile: `first_error` (the log's first error
/// line), followed by a hint when `log` says a header could not be opened.
pub fn summary(first_error: &str, log: &str) -> String {
    match missing_header(log) {
        Some(header) => format!("{first_error}. {}", hint(header)),
        None => first_error.to_string(),
    }
}

/// The header NVRTC could not open (`stdio.h`), from its log line
/// `...: catastrophic error: could not open source file "stdio.h" (...)`.
fn missing_header(log: &str) -> Option<&str> {
    log.lines().find_map(|line| {
        let (_, rest) = line
            .split_once("could not open source file \"")
            .or_else(|| line.split_once("cannot open source file \""))?;
        rest.split_once('"').map(|(name, _)| name)
    })
}

fn hint(header: &str) -> &'static str {
    let name = header.rsplit('/').next().unwrap_or(header);
    match name {
        "stdio.h" | "cstdio" => "NVRTC has no host headers; device printf needs no include",
        "math.h" | "cmath" => {
            "NVRTC has no host headers; device math functions (sqrtf, expf, ...) need no include"
        }
        _ => {
            "NVRTC has no host headers; put what the kernel needs in a file under kernels/ and include it with #include \"FILE\""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log NVRTC 13.0 writes for `#include <NAME>` at line 10.
    fn nvrtc_log(name: &str) -> (String, String) {
        let first = format!(
            "kernels/p.cu(10): catastrophic error: could not open source file \"{name}\" (no directories in search list)"
        );
        let log = format!(
            "{first}\n  #include <{name}>\n                   ^\n\n1 catastrophic error detected in the compilation of \"kernels/p.cu\".\nCompilation terminated."
        );
        (first, log)
    }

    // A host header NVRTC cannot open is explained; printf needs none.
    #[test]
    fn missing_stdio_is_explained() {
        for name in ["stdio.h", "cstdio"] {
            let (first, log) = nvrtc_log(name);
            assert_eq!(
                summary(&first, &log),
                format!("{first}. NVRTC has no host headers; device printf needs no include")
            );
        }
        let (first, log) = nvrtc_log("cmath");
        assert!(summary(&first, &log).ends_with(
            ". NVRTC has no host headers; device math functions (sqrtf, expf, ...) need no include"
        ));
        let (first, log) = nvrtc_log("cstdint");
        assert!(
            summary(&first, &log).ends_with("put what the kernel needs in a file under kernels/ and include it with #include \"FILE\""),
        );
    }

    // Other errors keep NVRTC's line as it is.
    #[test]
    fn other_errors_are_left_alone() {
        let first = "kernels/a.cu(7): error: identifier \"x\" is undefined";
        let log = format!("{first}\n1 error detected");
        assert_eq!(summary(first, &log), first);
    }
}
