//! Declarations the GPU would refuse or misread, caught without one: plans
//! and arguments whenever the book is built, kernel names and parameter
//! lists by `mdbook-cuda check` against what NVRTC compiled.

use crate::book_test::BookTest;
use cuda_measured_core::compile_job::CompileVerdict;
use cuda_measured_core::ptx::{Entry, ParamKind};

// An unknown variable, a block or shared memory past the H200's limits, an
// argument naming nothing and an empty grid at an edge size are red panels
// with the header line; the build still succeeds and names each one.
#[test]
fn plans_the_gpu_would_refuse_are_broken_examples() {
    let test = BookTest::from_fixture("mismatched");
    let run = test.build();
    run.assert_success();
    for line in [
        "[cuda] src/mismatched.md:11: `launch 0 grid = \"ceil_div(N, 256)\"` at kernels/mismatched/unknown_variable.cu:6: unknown variable `N`: the variables here are n, sms; expressions also use + - * / %, min(a, b), max(a, b), ceil_div(a, b) and pow2_floor(a)",
        "[cuda] src/mismatched.md:16: launch 0 (`sum_k`) asks for blocks of 2048 threads; NVIDIA H200 allows at most 1024 threads per block: lower `block` at kernels/mismatched/big_block.cu:7",
        "[cuda] src/mismatched.md:21: launch 0 (`sum_k`) asks for 262144 B of dynamic shared memory; NVIDIA H200 allows at most 232448 B (227 KiB) per block, and more than 48 KiB only with the opt-in attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, which the runner sets for such launches: lower `shared` at kernels/mismatched/big_shared.cu:8",
        "[cuda] src/mismatched.md:26: launch 0 (`sum_k`): argument `output` is not a buffer of `sum_f32` (input, out), a scratch buffer (none declared) or a scalar (n, sms, grid0, block0): fix `args` at kernels/mismatched/unknown_arg.cu:8",
        "[cuda] src/mismatched.md:31: at n = 1 (an edge size of `sum_f32`): `launch 0 grid = \"n / 256\"` at src/mismatched.md:37: evaluates to 0: a launch needs at least one block of one thread",
    ] {
        assert!(
            run.stderr.contains(line),
            "stderr lacks {line:?}:\n{}",
            run.stderr
        );
    }
    assert!(
        !run.stderr.contains("declared-refusal"),
        "an example declaring its launch error is left to the GPU:\n{}",
        run.stderr
    );
    insta::assert_snapshot!("mismatched", test.main_html("mismatched.html"));
}

/// What NVRTC 13.0 reports for the fixture's kernels: `sum_k(const float*,
/// float*, unsigned)`, under its C++ name where `extern "C"` is missing.
fn entries(name: &str) -> Vec<Entry> {
    vec![Entry {
        name: name.into(),
        params: vec![ParamKind::U64, ParamKind::U64, ParamKind::U32],
    }]
}

// `check` fails an example whose `args` do not match its kernel's
// parameters, whose kernel the program does not define, or whose kernel
// lacks `extern "C"`. The runner here answers as `cuda-runner compile`
// does for these sources (tests/nvrtc_compile.rs in cuda-runner compiles
// them for real).
#[test]
fn check_holds_declarations_to_the_compiled_kernels() {
    let test = BookTest::from_fixture("mismatched");
    let compiled = |name: &str| CompileVerdict::Compiled {
        log: String::new(),
        cubin_bytes: 1,
        entries: entries(name),
    };
    // The resolved examples in book order: declared-refusal, missing_n,
    // kernel_typo, not_extern_c, matches.
    let verdicts = vec![
        compiled("sum_k"),
        compiled("sum_k"),
        compiled("sum_k"),
        compiled("_Z5sum_kPKfPfj"),
        compiled("sum_k"),
    ];
    std::fs::write(
        test.root().join("verdicts.json"),
        serde_json::to_vec(&verdicts).unwrap(),
    )
    .unwrap();
    let runner = test.root().join("fake-runner");
    // It answers each job with one verdict per example, in book order,
    // whether the job is a probe (no example), the whole book or what the
    // compile cache lacks.
    std::fs::write(
        &runner,
        r#"#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
job = json.load(open(args[args.index("--job") + 1]))
here = os.path.dirname(sys.argv[0])
verdicts = json.load(open(os.path.join(here, "verdicts.json")))
order = ["declared-refusal", "mismatched/missing_n", "mismatched/kernel_typo", "mismatched/not_extern_c", "mismatched/matches"]
with open(os.path.join(here, "compiled"), "a") as f:
    f.write(" ".join(e["id"] for e in job["examples"]) + "\n")
print(json.dumps({"runner": "0.1.0", "nvrtc": {"version": "13.0"},
    "verdicts": [verdicts[order.index(e["id"])] for e in job["examples"]]}))
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let test = test.env("CUDA_MEASURED_RUNNER", &runner.to_string_lossy());
    let run = test.mdbook_cuda(&["check", "--book", "."]);
    run.assert_failure();
    for line in [
        "launch 0 (`sum_k`) passes 2 arguments (input, out), but the kernel takes 3 parameters (64-bit, 64-bit, 32-bit int): the kernel would read garbage for what is missing; list one argument per parameter, in order, in `args` at kernels/mismatched/missing_n.cu:8",
        "launch 0: kernel `sum_typo` is not in the compiled code; it defines: sum_k: fix `kernel` at kernels/mismatched/kernel_typo.cu:5",
        "launch 0: kernel `sum_k` is in the compiled code only under its C++ name `_Z5sum_kPKfPfj`: declare it `extern \"C\" __global__` so that its name is kept (`kernel` at kernels/mismatched/not_extern_c.cu:5)",
        "10 example(s) checked for sm_90: 2 passed, 8 failed",
    ] {
        assert!(
            run.stdout.contains(line),
            "stdout lacks {line:?}:\n{}",
            run.stdout
        );
    }
    for ok in ["declared-refusal", "mismatched/matches"] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with("ok") && l.contains(ok)),
            "{ok} is not ok:\n{}",
            run.stdout
        );
    }
    // A second check finds every verdict in the compile cache: the runner
    // compiles nothing, and the report is the same.
    let calls = || std::fs::read_to_string(test.root().join("compiled")).unwrap();
    let before = calls();
    let again = test.mdbook_cuda(&["check", "--book", "."]);
    assert_eq!(again.stdout, run.stdout);
    assert_eq!(calls(), before, "nothing is compiled twice");
}
