//! A stand-in `cuda-runner` for tests that measure without a GPU: a Python
//! script that answers `device --json` as an H200 would, and measures with
//! the test's own `measure(job, out)` both ways the book asks: as a child
//! (`measure --job FILE --out OUT`) and as a warm worker (`worker
//! --sentinel NONCE`: one job per line of stdin, each ended by the
//! sentinel on stdout).

/// The script, `measure_body` being the body of `def measure(job, out):`
/// (indented by four spaces), which writes the result to `out`.
pub fn script(measure_body: &str) -> String {
    format!(
        r#"#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
if args[:1] == ["device"]:
    print(json.dumps({{"name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132,
        "l2_bytes": 52428800, "memory_bytes": 1, "peak_gbs": 4800.0, "peak_source": "datasheet",
        "driver": "0", "cuda_driver_api": "13.0", "nvrtc": "13.0"}}))
    sys.exit(0)
def passing(job):
    return {{"schema": 1, "example": job["example"]["id"], "key": job["key"], "status": "pass",
        "expect": "pass", "method_version": 0, "problem": "sum_f32 v2", "compile_options": [],
        "gpu": None, "measured_at": "2026-12-01T00:00:00Z", "wall_s": 0.5, "sizes": []}}
def measure(job, out):
{measure_body}
if args[:1] == ["worker"]:
    sentinel = "\n\x1ecuda-measured worker " + args[args.index("--sentinel") + 1] + " done\x1e\n"
    for line in sys.stdin:
        request = json.loads(line)
        measure(request["job"], request["out"])
        sys.stdout.write(sentinel)
        sys.stdout.flush()
    sys.exit(0)
if args[:1] != ["measure"]:
    sys.exit(2)
measure(json.load(open(args[args.index("--job") + 1])), args[args.index("--out") + 1])
"#
    )
}
